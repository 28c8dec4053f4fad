#!/usr/bin/env bash
# tests/dump/make_fixture.sh SQL OUT: run SQL (tests/dump/filters*.sql) in a
# new database, dump it with pg_dump (plain SQL) to OUT, and write the
# fingerprint of its filters to OUT.fingerprint.  Run against a server (as
# pg_virtualenv sets up) with the release whose dumps the fixture keeps.
#
# The fixtures in tests/dump/fixtures/ were made so, with the extension as
# it was released (1.3: commit e83d2aa; the 1.0 fixture by that build's
# CREATE EXTENSION ... VERSION '1.0'); dump_restore.sh restores them with
# the current build and requires the same fingerprint: every value those
# releases wrote still reads back bit for bit.
set -euo pipefail
sql=$1
out=$2
db=bloom_fixture
here=$(cd "$(dirname "$0")" && pwd)
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
psql -X -q -v ON_ERROR_STOP=1 -d "$db" -f "$sql"
pg_dump --no-owner --no-privileges -d "$db" -f "$out"
bash "$here/fingerprint.sh" "$db" >"$out.fingerprint"
psql -X -q -d postgres -c "DROP DATABASE $db"
cat "$out.fingerprint"
