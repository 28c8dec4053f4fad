#!/usr/bin/env bash
# bench/client_writes.sh: filters the application writes (issue 42), one run,
# on a throwaway cluster of the host's PostgreSQL (15), writing
# bench/results/client_writes.txt:
#   write   adds per second of 10,000,000 int8 keys (numbers in JavaScript,
#           ints in Python) into a filter created for them at 1%, classic
#           and blocked, by addMany / add_many and by add one at a time;
#           and the bytes compared with bloom_send(bloom_agg(k, 10000000,
#           0.01, layout)) of the same keys (md5), which must be equal
#   param   the application's side of a bloom join, with node-postgres: 1,000,000
#           keys (50,000 of them in a table of 10,000,000 rows) sent as a
#           filter the application writes, WHERE $1::bytea::bloom @> id,
#           then checked exactly in the application; against the same keys
#           sent as WHERE id = ANY($1::int8[]).  Milliseconds from the keys
#           to the exact rows (the filter's writing included), bytes of
#           the parameter, rows that came back; median of 3, alternating
# Needs npm's registry (node-postgres, pinned, for the parameter case).
# Run as root from the top folder.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-/usr/bin/python3}
make -s install >/dev/null
chmod -R a+rX . 2>/dev/null || true
work=$(mktemp -d /tmp/bloom-client-writes.XXXXXX)
chmod a+rwx "$work"
trap 'rm -rf "$work"' EXIT
mkdir -p bench/results
out=bench/results/client_writes.txt
# node-postgres for the parameter case, and this tree's library, in a project of their own
(cd "$work" && echo '{"name": "bench", "version": "1.0.0", "private": true}' >package.json &&
	npm install --silent --no-audit --no-fund pg@8.23.1 >/dev/null)
mkdir -p "$work/node_modules/pg-bloomfilter"
cp -r clients/js/package.json clients/js/src clients/js/cjs "$work/node_modules/pg-bloomfilter/"

cat >"$work/make.sql" <<'SQL'
\set ON_ERROR_STOP on
CREATE EXTENSION IF NOT EXISTS bloomfilter;
-- the keys of the write case: 10,000,000 int8, spread over the range
CREATE TABLE wk AS SELECT g::int8 * 7919 AS k FROM generate_series(1, 10000000) g;
\copy (SELECT md5(bloom_send(bloom_agg(k, 10000000, 0.01, 'classic'))) || ' ' || md5(bloom_send(bloom_agg(k, 10000000, 0.01, 'blocked512'))) FROM wk) TO 'WORK/server_md5.txt'
-- the parameter case: a table of 10,000,000 rows
CREATE TABLE facts AS SELECT g::int8 AS id, md5(g::text) AS payload FROM generate_series(1, 10000000) g;
VACUUM ANALYZE facts;
SQL
sed -i "s|WORK|$work|g" "$work/make.sql"
chmod a+r "$work/make.sql"

cat >"$work/write.mjs" <<'JS'
import { createHash } from "node:crypto";
import { BloomFilter } from "pg-bloomfilter";
const n = 10000000;
const keys = new Array(n);
for (let g = 1; g <= n; g++) keys[g - 1] = g * 7919;
const md5 = (b) => createHash("md5").update(b).digest("hex");
const rate = (count, ms) => Math.round(count / (ms / 1000)).toLocaleString("en");
for (const layout of ["classic", "blocked"]) {
  const make = () => BloomFilter.create({ type: "int8", expectedItems: n, falsePositiveRate: 0.01, layout });
  make().addMany(keys.slice(0, 200000)); // warm the JIT
  let t = performance.now();
  const f = make().addMany(keys);
  const many = performance.now() - t;
  t = performance.now();
  const g = make();
  for (const k of keys) g.add(k);
  const one = performance.now() - t;
  console.log(`${layout} ${md5(f.toBytes())} ${md5(g.toBytes())} js ${layout}: ${rate(n, many)} adds/s with addMany, ${rate(n, one)} one at a time (${f.toBytes().length} bytes)`);
}
JS

cat >"$work/write.py" <<'PY'
import hashlib, sys, time
sys.path.insert(0, "clients/python/src")
from pg_bloomfilter import BloomFilter
n = 10_000_000
keys = [g * 7919 for g in range(1, n + 1)]
for layout in ("classic", "blocked"):
    make = lambda: BloomFilter.create("int8", expected_items=n, false_positive_rate=0.01, layout=layout)
    t = time.perf_counter(); f = make(); f.add_many(keys); many = time.perf_counter() - t
    sample = keys[:1_000_000]
    t = time.perf_counter(); g = make()
    for k in sample:
        g.add(k)
    one = time.perf_counter() - t
    print(f"{layout} {hashlib.md5(f.to_bytes()).hexdigest()} python {layout}: {n / many:,.0f} adds/s with add_many, "
          f"{len(sample) / one:,.0f} one at a time (over the first 1,000,000)")
PY

cat >"$work/param.cjs" <<'JS'
const { Client } = require("pg");
const { BloomFilter } = require("pg-bloomfilter");
(async () => {
  const client = new Client();
  await client.connect();
  // 1,000,000 keys: 50,000 in the table (multiples of 200), the rest beyond it
  const keys = [];
  for (let i = 1; i <= 50000; i++) keys.push(i * 200);
  for (let i = 1; keys.length < 1000000; i++) keys.push(20000000 + i * 3);
  const exact = new Set(keys);
  const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];
  const runs = { filter: [], any: [] };
  let facts = {};
  for (let r = 0; r < 3; r++) {
    let t = performance.now();
    const f = BloomFilter.create({ type: "int8", expectedItems: keys.length, falsePositiveRate: 0.01 }).addMany(keys);
    const bytes = Buffer.from(f.toBytes());
    const res = await client.query("SELECT id FROM facts WHERE $1::bytea::bloom @> id", [bytes]);
    const kept = res.rows.filter((row) => exact.has(Number(row.id)));
    runs.filter.push(performance.now() - t);
    facts.filter = { sent: bytes.length, back: res.rows.length, exact: kept.length };
    t = performance.now();
    const any = await client.query("SELECT id FROM facts WHERE id = ANY($1::int8[])", [keys]);
    runs.any.push(performance.now() - t);
    // (node-postgres sends an array as its text form: what crossed the network)
    facts.any = { sent: Buffer.byteLength("{" + keys.join(",") + "}"), back: any.rows.length, exact: any.rows.length };
  }
  if (facts.filter.exact !== facts.any.exact) throw new Error(`filter kept ${facts.filter.exact} rows, = ANY ${facts.any.exact}`);
  const ms = { filter: median(runs.filter), any: median(runs.any) };
  console.log(`param filter: ${ms.filter.toFixed(0)} ms, ${facts.filter.sent.toLocaleString("en")} bytes sent, ${facts.filter.back.toLocaleString("en")} rows back, ${facts.filter.exact.toLocaleString("en")} exact`);
  console.log(`param = ANY:  ${ms.any.toFixed(0)} ms, ${facts.any.sent.toLocaleString("en")} bytes sent, ${facts.any.back.toLocaleString("en")} rows back`);
  console.log(`param ratio (= ANY / filter): ${(ms.any / ms.filter).toFixed(2)}x time, ${(facts.any.sent / facts.filter.sent).toFixed(2)}x bytes`);
  await client.end();
})().catch((e) => { console.error(e); process.exit(1); });
JS

cat >"$work/all.sh" <<SH
set -euo pipefail
psql -X -q -f "$work/make.sql" >/dev/null
read -r classic_md5 blocked_md5 <"$work/server_md5.txt"
cd "$PWD"
node_out=\$(cd "$work" && NODE_PATH="$work/node_modules" node write.mjs)
py_out=\$("$python" "$work/write.py")
echo "\$node_out" | while read -r layout a b rest; do
	want=\$classic_md5; [ "\$layout" = blocked ] && want=\$blocked_md5
	[ "\$a" = "\$want" ] && [ "\$b" = "\$want" ] || { echo "js \$layout: bytes differ from bloom_agg's"; exit 1; }
	echo "\$rest; bytes equal to bloom_agg's"
done
echo "\$py_out" | while read -r layout a rest; do
	want=\$classic_md5; [ "\$layout" = blocked ] && want=\$blocked_md5
	[ "\$a" = "\$want" ] || { echo "python \$layout: bytes differ from bloom_agg's"; exit 1; }
	echo "\$rest; bytes equal to bloom_agg's"
done
cd "$work" && node param.cjs
SH
{
	echo "# bench/client_writes.sh at $(git rev-parse --short HEAD), $(date -u +%Y-%m-%d), PostgreSQL $(pg_config --version | awk '{print $2}'), Node $(node --version), Python $("$python" -c 'import platform; print(platform.python_version())')"
	pg_virtualenv -t -o shared_buffers=2GB -o max_parallel_workers_per_gather=2 bash "$work/all.sh"
} | tee "$out"
