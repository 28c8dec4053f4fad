#!/usr/bin/env bash
# tests/clients/examples.sh LANG PACKAGES DIR VERSION: the client libraries'
# examples run as a user runs them, against a throwaway cluster of
# PostgreSQL VERSION (pg_virtualenv; the extension installed for it):
#   js      clients/js/examples/*.cjs, in a fresh project in DIR that holds
#           the npm tarball from PACKAGES (tools/package.sh clients),
#           installed with npm install --offline, and node-postgres
#           (npm's registry, pinned): the examples require() both
#   python  clients/python/examples/*.py, in a fresh venv in DIR that holds
#           the wheel from PACKAGES (pip --no-index) and sees Debian's
#           psycopg 3 (python3-psycopg; --system-site-packages)
# Each example asserts what it shows (a filter's bytes equal to the
# server's, no row lost, a refresh that fetches only after a change) and
# exits non-zero otherwise.  Prints "example NAME: ok" per example.
set -euo pipefail
lang=$1
packages=$(cd "$2" && pwd)
dir=$3
version=$4
top=$(pwd)
rm -rf "$dir"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod a+rx "$dir"
case $lang in
js)
	tgz=$(ls "$packages"/pg-bloomfilter-*.tgz)
	cd "$dir"
	echo '{"name": "examples", "version": "1.0.0", "private": true}' >package.json
	npm install --silent --offline --no-audit --no-fund "$tgz"
	npm install --silent --no-audit --no-fund pg@8.23.1
	cp "$top"/clients/js/examples/*.cjs .
	run=(node)
	examples=(*.cjs)
	;;
python)
	python=${PYTHON:-/usr/bin/python3}
	"$python" -m venv --system-site-packages "$dir/venv"
	PIP_CONFIG_FILE=/dev/null "$dir/venv/bin/pip" install -q --isolated --no-index --no-deps "$packages"/pg_bloomfilter-*-py3-none-any.whl
	"$dir/venv/bin/python" -c 'import psycopg' 2>/dev/null || {
		echo "psycopg 3 is missing (Debian: apt-get install python3-psycopg)"
		exit 1
	}
	cp "$top"/clients/python/examples/*.py "$dir/"
	cd "$dir"
	run=("$dir/venv/bin/python")
	examples=(*.py)
	;;
*)
	echo "usage: $0 js|python PACKAGES DIR VERSION" >&2
	exit 2
	;;
esac
failed=0
for example in "${examples[@]}"; do
	if pg_virtualenv -v "$version" "${run[@]}" "$example" >"$dir/$example.log" 2>&1; then
		grep -v '^Creating\|^Dropping\|^20[0-9][0-9]-' "$dir/$example.log" || true
		echo "example $example: ok"
	else
		cat "$dir/$example.log"
		echo "example $example: FAILED"
		failed=1
	fi
done
exit $failed
