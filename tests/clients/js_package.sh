#!/usr/bin/env bash
# tests/clients/js_package.sh DIR [PACKAGES]: clients/js's npm tarball as
# tools/package.sh clients writes it (into PACKAGES; without it, built here
# into DIR/packages), checked, installed into a fresh project in DIR with
# npm install --offline, and used from there through the package's exports:
#   - the tarball holds the library (src/, with the WebAssembly module
#     src/probe_wasm.js), the CommonJS entry (cjs/index.cjs, index.d.cts),
#     the types, README.md, LICENSE (the repository's) and package.json, and
#     not wasm/, test/ or cjs/build.sh; its package.json names the license
#     and the repository; its README has no relative link leading out of
#     the package;
#   - import (probe.mjs) and require() (probe.cjs, run with
#     --no-experimental-require-module: require() as Node 18 has it, which
#     cannot load an ES module) each probe a filter in WebAssembly, and
#     resolve to src/index.js and cjs/index.cjs; the same require() of the
#     package without its "require" condition fails with ERR_REQUIRE_ESM
#     (the check above can fail);
#   - TypeScript (Debian's tsc, module node16) finds the types of each:
#     src/index.d.ts for an import, cjs/index.d.cts for a require.
set -euo pipefail
dir=$1
top=$(pwd)
rm -rf "$dir"
mkdir -p "$dir/app"
dir=$(cd "$dir" && pwd)
. tools/lib.sh
packages=$(client_packages "$dir" "${2:-}")
version=$(node -p 'require(process.argv[1]).version' "$top/clients/js/package.json")
tgz=$packages/pg-bloomfilter-$version.tgz
[ -f "$tgz" ] || {
	echo "no $tgz: tools/package.sh clients did not write it"
	exit 1
}
echo "tarball: $(basename "$tgz")"

# ---- the tarball's files ----
# (its listing read once into a file: "tar | grep -q" can end tar by
# SIGPIPE, which pipefail counts as a failure)
tar -tzf "$tgz" | sort >"$dir/listing"
cat "$dir/listing"
for want in package.json README.md LICENSE src/index.js src/index.d.ts src/probe_wasm.js \
	cjs/index.cjs cjs/index.d.cts; do
	grep -qx "package/$want" "$dir/listing" || {
		echo "the package has no $want"
		exit 1
	}
done
# (the C source, the tests and the build script stay in the repository: the
# package is what runs; "if", not "!": set -e ignores a command that starts
# with "!")
for kept_out in package/wasm/ package/test/ package/cjs/build.sh; do
	if grep -q "^$kept_out" "$dir/listing"; then
		echo "the package holds $kept_out"
		exit 1
	fi
done
mkdir "$dir/unpacked"
tar -C "$dir/unpacked" -xzf "$tgz"
cmp "$dir/unpacked/package/LICENSE" "$top/LICENSE"
node - "$dir/unpacked/package" <<'JS'
const fs = require("node:fs");
const dir = process.argv[2];
const pkg = JSON.parse(fs.readFileSync(dir + "/package.json", "utf8"));
const r = pkg.repository || {};
if (pkg.license !== "PostgreSQL") throw new Error("license: " + pkg.license);
if (r.type !== "git" || r.url !== "https://github.com/bloomfilter/bloomfilter.git" || r.directory !== "clients/js")
  throw new Error("repository: " + JSON.stringify(pkg.repository));
const e = pkg.exports["."];
if (e.import.default !== "./src/index.js" || e.require.default !== "./cjs/index.cjs" ||
    e.import.types !== "./src/index.d.ts" || e.require.types !== "./cjs/index.d.cts")
  throw new Error("exports: " + JSON.stringify(pkg.exports));
// the README is the package's page: no relative link leading out of it
const readme = fs.readFileSync(dir + "/README.md", "utf8");
const out = readme.match(/\]\((\.\.\/|\/)[^)]*\)|^\s*\[[^\]]+\]:\s*(\.\.\/|\/)\S*/gm);
if (out) throw new Error("the packaged README links out of the package: " + out.join(" "));
console.log("package.json: license, repository, exports; README: no link out of the package");
JS

# ---- installed into a fresh project, offline ----
cd "$dir/app"
echo '{"name": "app", "version": "1.0.0", "type": "module", "private": true}' >package.json
npm install --silent --offline --no-audit --no-fund "$tgz"
filter='v1 classic m=97 k=7 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops bits=CACAAAAEAEAAAAIAAA=='
# probe(BloomFilter, BloomFilterError, how): the answers, the engine, the error
probe_js='
function probe(BloomFilter, BloomFilterError, how) {
  const f = BloomFilter.from(FILTER);
  if (!f.contains(1n) || f.contains(2)) throw new Error(how + ": wrong answers");
  // the WebAssembly probe ships in the package (src/probe_wasm.js) and answers
  if (f.probeEngine !== "webassembly") throw new Error(how + ": probed by " + f.probeEngine + ", not webassembly");
  let threw = null;
  try { BloomFilter.from("v9 nothing"); } catch (e) { threw = e; }
  if (!(threw instanceof BloomFilterError)) throw new Error(how + ": a bad filter threw " + threw);
}
'
probe_js=${probe_js//FILTER/\"$filter\"}
cat >probe.mjs <<JS
import { BloomFilter, BloomFilterError } from "pg-bloomfilter";
$probe_js
probe(BloomFilter, BloomFilterError, "import");
const where = import.meta.resolve("pg-bloomfilter");
if (!where.endsWith("/node_modules/pg-bloomfilter/src/index.js")) throw new Error("imported " + where);
console.log("imported from", where);
JS
cat >probe.cjs <<JS
"use strict";
const { BloomFilter, BloomFilterError } = require("pg-bloomfilter");
$probe_js
probe(BloomFilter, BloomFilterError, "require");
const where = require.resolve("pg-bloomfilter");
if (!where.endsWith("/node_modules/pg-bloomfilter/cjs/index.cjs")) throw new Error("required " + where);
console.log("required from", where);
JS
node probe.mjs
node --no-experimental-require-module probe.cjs
# the control: the package as it was without a CommonJS entry ("exports"
# sending every condition to src/index.js) cannot be required so
cp -a "$dir/app" "$dir/app-esm-only"
(
	cd "$dir/app-esm-only"
	node -e '
	const fs = require("node:fs"), p = "node_modules/pg-bloomfilter/package.json";
	const pkg = JSON.parse(fs.readFileSync(p, "utf8"));
	pkg.exports["."] = { types: "./src/index.d.ts", default: "./src/index.js" };
	pkg.main = "./src/index.js";
	fs.writeFileSync(p, JSON.stringify(pkg));'
	if node --no-experimental-require-module probe.cjs >require.log 2>&1; then
		echo "control: without the \"require\" condition, require() still loaded the package"
		exit 1
	fi
	grep -q ERR_REQUIRE_ESM require.log || {
		cat require.log
		echo "control: require() failed, but not with ERR_REQUIRE_ESM"
		exit 1
	}
	echo "control: without the \"require\" condition: ERR_REQUIRE_ESM"
)

# ---- TypeScript: the types of each condition ----
command -v tsc >/dev/null || {
	echo "tsc is missing (Debian: apt-get install node-typescript; tools/run.sh installs it)"
	exit 1
}
cat >typed.mts <<'TS'
import { BloomFilter, type FilterInfo } from "pg-bloomfilter";
const f: BloomFilter = BloomFilter.from("v1 classic m=97 k=7 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops bits=CACAAAAEAEAAAAIAAA==");
const yes: boolean = f.contains(1n);
const info: FilterInfo = f.info;
export { yes, info };
TS
cat >typed.cts <<'TS'
import pg = require("pg-bloomfilter");
const f: pg.BloomFilter = pg.BloomFilter.from(new Uint8Array(0));
const engine: "webassembly" | "javascript" = f.probeEngine;
export = engine;
TS
tsc --noEmit --strict --module node16 --moduleResolution node16 --listFiles typed.mts typed.cts >tsc.log 2>&1 || {
	cat tsc.log
	echo "tsc: the package's types do not check"
	exit 1
}
for want in node_modules/pg-bloomfilter/src/index.d.ts node_modules/pg-bloomfilter/cjs/index.d.cts; do
	grep -q "/$want\$" tsc.log || {
		cat tsc.log
		echo "tsc did not read $want"
		exit 1
	}
done
echo "tsc: an import reads src/index.d.ts, a require cjs/index.d.cts"
