#!/usr/bin/env bash
# bench/clients.sh: the client libraries (clients/js, clients/python) against
# the issue's figures (issue 30), one run, on a throwaway cluster of the
# host's PostgreSQL (15):
#   int8    a blocked512 filter of 10,000,000 int8 keys at 1% (12 MB), probed
#           with 1,000,000 keys, half of them added: probes per second, one
#           at a time (contains) and in one call (containsMany /
#           contains_many)
#   int8-1M the same keys against a filter of the first 1,000,000 of them
#           (1.2 MB, the size of the text case's filter)
#   text    a blocked512 filter of 1,000,000 text keys of 19 to 20 bytes,
#           probed with 1,000,000 of them, half added
#   (and, JavaScript only, the int8 filter probed with 1,000,000 random
#   hashes, no value hashed: what a probe's memory read costs alone)
# JavaScript runs each case in each engine it has: WebAssembly (its default
# since wasm/probe.c) and JavaScript (from(input, { wasm: false })).
#   load    loading the 12 MB filter from its bytes (bloom_send), as a driver
#           returns a bytea: milliseconds, median of 5
# Each library checks its answers against the server's count of keys the
# filter holds (bloom_contains over the same keys).  Then, since this VM's
# timings vary from run to run by half, what does not: the instructions
# JavaScript runs per probe (callgrind; the difference between 2 and 12
# passes over 100,000 keys, so that loading and compiling cancel out), for
# contains and containsMany, int8 keys on the 1.2 MB filter and text keys.
# BLOOM_CLIENTS_COUNT=0 skips the counts (a few minutes).
# BLOOM_CLIENTS_BASE=COMMIT also runs that commit's JavaScript library beside
# this tree's, alternating in one process (ratios of probes per second),
# and counts its instructions.  Run as root; writes
# bench/results/clients.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-/usr/bin/python3}
make -s install >/dev/null
work=$(mktemp -d /tmp/bloom-clients-bench.XXXXXX)
chmod a+rwx "$work"
trap 'rm -rf "$work"' EXIT
cat >"$work/make.sql" <<'SQL'
\set ON_ERROR_STOP on
CREATE EXTENSION IF NOT EXISTS bloomfilter;
CREATE TABLE k8 AS SELECT g::int8 * 7919 AS k FROM generate_series(1, 10000000) g;
CREATE TABLE kt AS SELECT left(md5(g::text), 16) || '-' || (g % 97) AS k FROM generate_series(1, 1000000) g;
CREATE TABLE f AS SELECT (SELECT bloom_agg(k, 10000000, 0.01, 'blocked512') FROM k8) AS f8,
                         (SELECT bloom_agg(k, 1000000, 0.01, 'blocked512') FROM k8 WHERE k <= 7919::int8 * 1000000) AS f1,
                         (SELECT bloom_agg(k, 1000000, 0.01, 'blocked512') FROM kt) AS ft;
-- the probes: half added keys, half keys never added, interleaved
CREATE TABLE p8 AS SELECT CASE WHEN g % 2 = 0 THEN g::int8 * 7919 * 10 ELSE g::int8 * 7919 * 10 + 1 END AS k FROM generate_series(1, 1000000) g;
CREATE TABLE pt AS SELECT CASE WHEN g % 2 = 0 THEN left(md5(g::text), 16) || '-' || (g % 97) ELSE left(md5((-g)::text), 16) || '+' || (g % 97) END AS k FROM generate_series(1, 1000000) g;
\copy (SELECT encode(bloom_send(f8), 'hex') FROM f) TO 'WORK/f8.hex'
\copy (SELECT encode(bloom_send(f1), 'hex') FROM f) TO 'WORK/f1.hex'
\copy (SELECT encode(bloom_send(ft), 'hex') FROM f) TO 'WORK/ft.hex'
\copy (SELECT k FROM p8) TO 'WORK/p8.txt'
\copy (SELECT k FROM pt) TO 'WORK/pt.txt'
\copy (SELECT (SELECT count(*) FROM p8 WHERE bloom_contains(f8, k)), (SELECT count(*) FROM pt WHERE bloom_contains(ft, k)), length(bloom_send(f8)), (SELECT count(*) FROM p8 WHERE bloom_contains(f1, k)), length(bloom_send(f1)) FROM f) TO 'WORK/server.txt'
SQL
sed -i "s|WORK|$work|g" "$work/make.sql"
chmod a+r "$work/make.sql"
pg_virtualenv -t psql -X -q -f "$work/make.sql" >/dev/null
read -r want8 wantt bytes8 want1 bytes1 <"$work/server.txt"
cat >"$work/bench.py" <<PY
import statistics, sys, time
sys.path.insert(0, "clients/python/src")
from pg_bloomfilter import BloomFilter
w = "$work"
f8b = bytes.fromhex(open(w + "/f8.hex").read().strip())
p8 = [int(x) for x in open(w + "/p8.txt").read().split()]
pt = open(w + "/pt.txt").read().split()
loads = []
for _ in range(5):
    t = time.perf_counter(); f8 = BloomFilter.from_bytes(f8b); loads.append((time.perf_counter() - t) * 1000)
f1 = BloomFilter.from_bytes(bytes.fromhex(open(w + "/f1.hex").read().strip()))
ft = BloomFilter.from_bytes(bytes.fromhex(open(w + "/ft.hex").read().strip()))
for name, f, keys, want in (("int8", f8, p8, $want8), ("int8-1M", f1, p8, $want1), ("text", ft, pt, $wantt)):
    t = time.perf_counter(); held = sum(1 for k in keys if f.contains(k)); dt = time.perf_counter() - t
    assert held == want, (name, held, want)
    t = time.perf_counter(); many = sum(f.contains_many(keys)); dm = time.perf_counter() - t
    assert many == want, (name, many, want)
    print(f"python {name}: {len(keys) / dt:,.0f} probes/s one at a time, {len(keys) / dm:,.0f} with contains_many ({held} held, as the server says)")
print(f"python load: {statistics.median(loads):.1f} ms for {len(f8b):,} bytes (median of 5)")
PY
cat >"$work/bench.mjs" <<JS
import { readFileSync } from "node:fs";
// the library: this tree's, or (LIB) another's, such as BLOOM_CLIENTS_BASE's
const { BloomFilter } = await import(process.env.LIB || "$PWD/clients/js/src/index.js");
const w = "$work";
const bytes = (name) => Uint8Array.from(Buffer.from(readFileSync(w + "/" + name + ".hex", "utf8").trim(), "hex"));
const f8b = bytes("f8");
const p8 = readFileSync(w + "/p8.txt", "utf8").trim().split("\\n").map(Number);
const pt = readFileSync(w + "/pt.txt", "utf8").trim().split("\\n");
// node bench.mjs count CASE MODE PASSES [ENGINE]: PASSES passes over CASE's
// first 100,000 keys, by MODE (one: contains; many: containsMany), probed
// in ENGINE (webassembly, the default where the library has it, or
// javascript), for callgrind
if (process.argv[2] === "count") {
  const [, , , which, mode, passes, engine] = process.argv;
  const f = BloomFilter.from(bytes(which === "int8" ? "f1" : "ft"), engine === "javascript" ? { wasm: false } : undefined);
  const keys = (which === "int8" ? p8 : pt).slice(0, 100000);
  let held = 0;
  for (let r = 0; r < Number(passes); r++) {
    if (mode === "one") { for (const k of keys) if (f.contains(k)) held++; }
    else for (const x of f.containsMany(keys)) if (x) held++;
  }
  process.exit(held > 0 ? 0 : 1);
}
const loads = [];
let f8;
for (let i = 0; i < 5; i++) { const t = performance.now(); f8 = BloomFilter.from(f8b); loads.push(performance.now() - t); }
const rate = (n, ms) => Math.round(n / (ms / 1000)).toLocaleString("en");
// each filter in each engine the library has: WebAssembly (its default) and JavaScript
const engines = f8.probeEngine === "webassembly" ? [undefined, { wasm: false }] : [undefined];
const runs = [];
for (const options of engines) {
  const f = (name) => (name === "f8" && options === undefined ? f8 : BloomFilter.from(bytes(name), options));
  runs.push(["int8", f("f8"), p8, $want8], ["int8-1M", f("f1"), p8, $want1], ["text", f("ft"), pt, $wantt]);
}
for (const [caseName, f, keys, want] of runs) {
  const name = caseName + (f.probeEngine === "javascript" ? " (javascript)" : f.probeEngine === "webassembly" ? " (webassembly)" : "");
  for (let i = 0; i < 100000; i++) f.contains(keys[i]); // warm the JIT
  f.containsMany(keys.slice(0, 100000));
  let t = performance.now();
  let held = 0;
  for (const k of keys) if (f.contains(k)) held++;
  const one = performance.now() - t;
  if (held !== want) throw new Error(name + ": " + held + " held, the server says " + want);
  t = performance.now();
  let many = 0;
  for (const x of f.containsMany(keys)) if (x) many++;
  const batch = performance.now() - t;
  if (many !== want) throw new Error(name + ": containsMany held " + many + ", the server says " + want);
  console.log("js " + name + ": " + rate(keys.length, one) + " probes/s one at a time, " + rate(keys.length, batch) + " with containsMany (" + held + " held, as the server says)");
}
// the int8 filter probed with 1,000,000 random hashes and no hashing: the
// cost of a probe's memory read alone (the filter is far beyond the caches)
{
  const n = 1000000, his = new Uint32Array(n), los = new Uint32Array(n);
  let x = 0x2545f491;
  for (let i = 0; i < n; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; his[i] = x >>> 0; x ^= x << 13; x ^= x >>> 17; x ^= x << 5; los[i] = x >>> 0; }
  for (const f of engines.map((options) => (options === undefined ? f8 : BloomFilter.from(f8b, options)))) {
    for (let i = 0; i < 100000; i++) f.containsHash(his[i], los[i]);
    const t = performance.now();
    let held = 0;
    for (let i = 0; i < n; i++) if (f.containsHash(his[i], los[i])) held++;
    console.log("js int8, hashes only" + (f.probeEngine ? " (" + f.probeEngine + ")" : "") + ": " + rate(n, performance.now() - t) + " probes/s (" + held + " held)");
  }
}
loads.sort((a, b) => a - b);
console.log("js load: " + loads[2].toFixed(1) + " ms for " + f8b.length.toLocaleString("en") + " bytes (median of 5)");
JS
# node compare.mjs BASE: this tree's contains and containsMany, in each
# engine, against BASE's contains, alternating in one process, 5 rounds;
# each case's median ratio of probes per second (the machine's speed
# cancels out)
cat >"$work/compare.mjs" <<JS
import { readFileSync } from "node:fs";
const w = "$work";
const mine = (await import("$PWD/clients/js/src/index.js")).BloomFilter;
const base = (await import(process.argv[2])).BloomFilter;
const bytes = (name) => Uint8Array.from(Buffer.from(readFileSync(w + "/" + name + ".hex", "utf8").trim(), "hex"));
const p8 = readFileSync(w + "/p8.txt", "utf8").trim().split("\\n").map(Number);
const pt = readFileSync(w + "/pt.txt", "utf8").trim().split("\\n");
const cases = [["int8", "f8", p8], ["int8-1M", "f1", p8], ["text", "ft", pt]];
const time = (fn) => { const t = performance.now(); const held = fn(); return [performance.now() - t, held]; };
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
for (const [name, file, keys] of cases) {
  // BASE's filter, and this tree's in each engine it has (WebAssembly, its default, and JavaScript)
  const b = base.from(bytes(file)), mw = mine.from(bytes(file)), mj = mine.from(bytes(file), { wasm: false });
  const engines = mw.probeEngine === "webassembly" ? [["webassembly", mw], ["javascript", mj]] : [["javascript", mj]];
  const one = (f) => () => { let h = 0; for (const k of keys) if (f.contains(k)) h++; return h; };
  const many = (f) => () => { let h = 0; for (const x of f.containsMany(keys)) if (x) h++; return h; };
  const ratios = engines.map(() => ({ contains: [], containsMany: [] }));
  for (let round = 0; round < 6; round++) {
    const [tb, hb] = time(one(b));
    engines.forEach(([engine, f], e) => {
      const [tm, hm] = time(one(f)), [tn, hn] = time(many(f));
      if (hb !== hm || hm !== hn) throw new Error(name + " " + engine + ": held " + hb + ", " + hm + ", " + hn);
      if (round === 0) return; // (the first round warms the JIT)
      ratios[e].contains.push(tb / tm);
      ratios[e].containsMany.push(tb / tn);
    });
  }
  console.log("js " + name + ", against " + process.env.BASE_NAME + "'s contains (median of 5 rounds, alternating): " +
    engines.map(([engine], e) => engine + ": contains " + median(ratios[e].contains).toFixed(2) + "x, containsMany " +
      median(ratios[e].containsMany).toFixed(2) + "x").join("; "));
}
JS
# instructions per probe, of LIB (default: this tree's): callgrind's total
# for 12 passes less that for 2, over 1,000,000 probes
instructions() {
	local a b
	a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded "$work/bench.mjs" count "$1" "$2" 2 "${3:-}" 2>&1 | sed -n 's/.*Collected : //p')
	b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded "$work/bench.mjs" count "$1" "$2" 12 "${3:-}" 2>&1 | sed -n 's/.*Collected : //p')
	echo $(((b - a) / 1000000))
}
# BLOOM_CLIENTS_BASE=COMMIT: that commit's JavaScript library, to compare with
base=${BLOOM_CLIENTS_BASE:-}
if [ -n "$base" ]; then
	mkdir -p "$work/base"
	git archive "$base" clients/js/src | tar -x -C "$work/base"
fi
{
	echo "== bench/clients.sh: the client libraries, PostgreSQL $(pg_config --version | awk '{print $2}'), node $(node --version), $("$python" --version), commit $(git rev-parse --short HEAD)"
	echo "   filters: int8, 10,000,000 keys blocked512 at 1% ($bytes8 bytes); int8-1M, 1,000,000 of them ($bytes1 bytes); text, 1,000,000 keys; 1,000,000 probes each, half added"
	node "$work/bench.mjs"
	"$python" "$work/bench.py"
	if [ -n "$base" ]; then
		BASE_NAME=$(git rev-parse --short "$base") node "$work/compare.mjs" "$work/base/clients/js/src/index.js"
	fi
	if [ "${BLOOM_CLIENTS_COUNT:-1}" != 0 ]; then
		for which in int8 text; do
			line="js $which, instructions per probe (callgrind): contains $(instructions "$which" one), containsMany $(instructions "$which" many); in javascript: contains $(instructions "$which" one javascript), containsMany $(instructions "$which" many javascript)"
			[ -z "$base" ] || line="$line; $(git rev-parse --short "$base")'s contains $(LIB="$work/base/clients/js/src/index.js" instructions "$which" one)"
			echo "$line"
		done
	fi
} | tee bench/results/clients.txt
