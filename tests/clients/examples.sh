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
# exits non-zero otherwise.  (1.12) And the README's examples: every code
# block of clients/LANG/README.md is marked (<!-- example: NAME --> or
# <!-- not run: REASON -->); tests/clients/readme_examples.py checks the
# marks and writes each block marked to run out as a program, after the
# data its snippets assume (tests/clients/readme_setup.mjs, .py):
# readme-NAME.mjs (js, run by node as ES modules) and readme_NAME.py,
# run here as the examples are (each must exit 0).  Prints "example NAME:
# ok" per example.
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
	"${PYTHON:-/usr/bin/python3}" "$top/tests/clients/readme_examples.py" "$top/clients/js/README.md" js "$dir" "$top/tests/clients/readme_setup.mjs"
	run=(node)
	examples=(*.cjs readme-*.mjs)
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
	"$python" "$top/tests/clients/readme_examples.py" "$top/clients/python/README.md" python "$dir" "$top/tests/clients/readme_setup.py"
	cd "$dir"
	run=("$dir/venv/bin/python")
	examples=(*.py)
	;;
*)
	echo "usage: $0 js|python PACKAGES DIR VERSION" >&2
	exit 2
	;;
esac
# every example on one throwaway cluster (a fresh one each costs 8 to 10 s;
# each example makes and drops its own tables), one after another, each
# with its log; -t: the cluster in a temporary folder, not
# /etc/postgresql/N/regress, which another run on the machine may hold.
# Inside, this loop writes DIR/NAME.status (0 or not) per example.
# shellcheck disable=SC2016
loop='dir=$1; shift; n=$1; shift; run=("${@:1:$n}"); shift "$n"
for example in "$@"; do
	"${run[@]}" "$example" >"$dir/$example.log" 2>&1
	echo $? >"$dir/$example.status"
done'
pg_virtualenv -v "$version" -t bash -c "$loop" loop "$dir" "${#run[@]}" "${run[@]}" "${examples[@]}" >"$dir/cluster.log" 2>&1 || {
	cat "$dir/cluster.log"
	echo "pg_virtualenv failed"
	exit 1
}
failed=0
for example in "${examples[@]}"; do
	if [ "$(cat "$dir/$example.status" 2>/dev/null)" = 0 ]; then
		cat "$dir/$example.log"
		echo "example $example: ok"
	else
		cat "$dir/$example.log" 2>/dev/null
		echo "example $example: FAILED"
		failed=1
	fi
done
exit $failed
