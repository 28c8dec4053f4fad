#!/usr/bin/env bash
# tests/clients/js_package.sh DIR: npm pack clients/js (offline: it has no
# dependencies), install the tarball into a fresh project in DIR, and probe
# a filter from there, through the package's exports.
set -euo pipefail
dir=$1
rm -rf "$dir"
mkdir -p "$dir/app"
(cd clients/js && npm pack --silent --pack-destination "$dir" >/dev/null)
ls "$dir"/*.tgz
cd "$dir/app"
echo '{"name": "app", "version": "1.0.0", "type": "module", "private": true}' >package.json
npm install --silent --offline --no-audit --no-fund "$dir"/pg-bloomfilter-*.tgz
cat >probe.mjs <<'JS'
import { BloomFilter, BloomFilterError } from "pg-bloomfilter";
import { createRequire } from "node:module";
const f = BloomFilter.from("v1 classic m=97 k=7 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops bits=CACAAAAEAEAAAAIAAA==");
if (!f.contains(1n) || f.contains(2)) throw new Error("wrong answers");
// the WebAssembly probe ships in the package (src/probe_wasm.js) and answers
if (f.probeEngine !== "webassembly") throw new Error("probed by " + f.probeEngine + ", not webassembly");
if (typeof BloomFilterError !== "function") throw new Error("no error class");
const where = import.meta.resolve ? import.meta.resolve("pg-bloomfilter") : "node_modules/pg-bloomfilter";
console.log("imported from", where);
JS
node probe.mjs
# the package holds the library, its types and its README, and nothing else
# (its listing read once into a file: "tar | grep -q" can end tar by SIGPIPE,
# which pipefail counts as a failure)
tar -tzf "$dir"/pg-bloomfilter-*.tgz | sort >"$dir/listing"
cat "$dir/listing"
grep -q "package/src/index.d.ts" "$dir/listing"
grep -q "package/src/probe_wasm.js" "$dir/listing"
# (the C source and the tests stay in the repository: the package is what
# runs; "if", not "!": set -e ignores a command that starts with "!")
for kept_out in package/wasm/ package/test/; do
	if grep -q "$kept_out" "$dir/listing"; then
		echo "the package holds $kept_out"
		exit 1
	fi
done
