#!/usr/bin/env bash
# tests/dump/dump_restore.sh: pg_dump / pg_restore of tables holding every
# kind of filter round-trips bit for bit, and dumps that earlier releases
# made (tests/dump/fixtures: 1.0 and 1.3) restore to the same bits.  Run
# against a server (as pg_virtualenv sets up); prints "dump_restore: ok" or
# fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=bloom_dump_src
dst=bloom_dump_dst
dump=$(mktemp)
trap 'rm -f "$dump"' EXIT

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $src" -c "DROP DATABASE IF EXISTS $dst" \
	-c "CREATE DATABASE $src" -c "CREATE DATABASE $dst"
psql -X -q -v ON_ERROR_STOP=1 -d "$src" -f "$here/filters.sql"
pg_dump -Fc -d "$src" -f "$dump"
pg_restore -d "$dst" "$dump"
a=$(bash "$here/fingerprint.sh" "$src" | tr -d '\n')
b=$(bash "$here/fingerprint.sh" "$dst" | tr -d '\n')
psql -X -q -d postgres -c "DROP DATABASE $src" -c "DROP DATABASE $dst"
if [ "$a" != "$b" ] || [ -z "$a" ]; then
	echo "dump_restore: FAILED (source $a, restored $b)"
	exit 1
fi

# dumps of earlier releases, restored by this build
for fixture in "$here"/fixtures/*.sql; do
	name=$(basename "$fixture" .sql)
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $dst" -c "CREATE DATABASE $dst"
	psql -X -q -v ON_ERROR_STOP=1 -d "$dst" -f "$fixture" >/dev/null
	got=$(bash "$here/fingerprint.sh" "$dst" | tr -d '\n')
	want=$(tr -d '\n' <"$fixture.fingerprint")
	psql -X -q -d postgres -c "DROP DATABASE $dst"
	if [ "$got" != "$want" ]; then
		echo "dump_restore: FAILED ($name restores to $got, its release wrote $want)"
		exit 1
	fi
	echo "$name: restored bit for bit"
done
echo "dump_restore: ok ($a)"
