#!/usr/bin/env bash
# tests/clients/python_package.sh DIR: build clients/python's sdist and wheel
# offline (python3-build, no isolation: the system's setuptools), install
# each into a fresh venv in DIR, and probe a filter from there, away from the
# source tree.
set -euo pipefail
# Debian's Python, where python3-build and python3-venv are (not one on PATH ahead of it)
python=${PYTHON:-/usr/bin/python3}
dir=$1
src=$(cd clients/python && pwd)
rm -rf "$dir"
mkdir -p "$dir"
cp -a "$src" "$dir/source"
rm -rf "$dir/source/build" "$dir/source/src/"*.egg-info
(cd "$dir/source" && "$python" -m build --no-isolation --sdist --wheel --outdir "$dir/dist" >"$dir/build.log" 2>&1) ||
	{ cat "$dir/build.log"; exit 1; }
ls "$dir/dist"
# probe, pickle, and find PEP 561's py.typed beside the installed package
probe='
import os, pickle, pg_bloomfilter, sys
from pg_bloomfilter import BloomFilter
f = BloomFilter.from_text("v1 classic m=97 k=7 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops bits=CACAAAAEAEAAAAIAAA==")
assert 1 in f and 2 not in f
assert 1 in pickle.loads(pickle.dumps(f))
assert os.path.isfile(os.path.join(os.path.dirname(pg_bloomfilter.__file__), "py.typed"))
assert not pg_bloomfilter.__file__.startswith(sys.argv[1]), pg_bloomfilter.__file__
print("imported from", pg_bloomfilter.__file__, "with py.typed")
'
for kind in whl tar.gz; do
	venv=$dir/venv-${kind%%.*}
	# the sdist builds with the system's setuptools (no network): a venv that sees it
	"$python" -m venv --system-site-packages "$venv"
	"$venv/bin/pip" install -q --no-index --no-deps --no-build-isolation "$dir"/dist/*."$kind"
	(cd "$dir" && "$venv/bin/python" -c "$probe" "$src")
done
