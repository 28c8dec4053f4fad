#!/usr/bin/env bash
# tests/docs/run_docs.sh [PAGE.md ...]: the docs are run, not only read.
# Every ```sql block of README.md and docs/*.md marked <!-- run --> runs, in
# order, in one psql session per page (psql -X -q, as a reader pastes the
# blocks), against a fresh database of that page in which only CREATE
# EXTENSION bloomfilter was run (in a session of its own, so the page's
# session has not loaded the library unless the page does), with the
# server's default settings; each block's output is compared with the
# output block after it on the page (tests/docs/docs.pl has the rules), and
# a mismatch prints a unified diff.  First a lint: a block that shows psql
# output but is not run fails.  Run it against a server (pg_virtualenv -t
# sets PGHOST etc.; tools/suite.sh does).  Prints "docs <page>: ok|FAILED"
# per page, "docs lint: ok|FAILED", and last "docs: P passed, F failed".
set -euo pipefail

cd "$(dirname "$0")/../.."
helper=tests/docs/docs.pl
if [ $# -gt 0 ]; then
	pages=("$@")
else
	pages=(README.md docs/*.md)
fi
# server messages in English, whatever the machine's locale
export PGOPTIONS="-c lc_messages=C ${PGOPTIONS:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0
failed=0
if perl "$helper" lint "${pages[@]}"; then
	echo "docs lint: ok"
	passed=$((passed + 1))
else
	echo "docs lint: FAILED"
	failed=$((failed + 1))
fi

version=$(psql -X -At -d postgres -c 'SHOW server_version_num')
for page in "${pages[@]}"; do
	n=$(perl "$helper" count "$page")
	[ "$n" -gt 0 ] || continue
	db=docs_$(basename "${page%.md}" | tr -c 'a-zA-Z0-9\n' _ | tr 'A-Z' 'a-z')
	[ "$(dirname "$page")" = docs ] || db=${db}_top
	start=$(date +%s)
	dropdb --if-exists "$db" >/dev/null 2>&1
	createdb "$db"
	psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c 'CREATE EXTENSION bloomfilter'
	perl "$helper" script "$page" >"$work/script.sql"
	psql -X -q -d "$db" <"$work/script.sql" >"$work/out" 2>&1 || true
	if perl "$helper" compare "$page" "$work/out" "$version"; then
		echo "docs $page: ok ($n blocks, $(($(date +%s) - start)) s)"
		passed=$((passed + 1))
	else
		echo "docs $page: FAILED"
		failed=$((failed + 1))
	fi
	dropdb "$db"
done
echo "docs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
