#!/usr/bin/env bash
# tests/load/load_test.sh [seconds]: pgbench, 8 clients on loopback (60 s by
# default), adding values to 16 stored filters and probing them; then every
# filter must equal a serial rebuild from the values logged.  Run against a
# server (as pg_virtualenv sets up).  Prints "load: ok" or fails.
set -euo pipefail
seconds=${1:-60}
cd "$(dirname "$0")"
db=bloom_load
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE load_filters (id int PRIMARY KEY, f bloom NOT NULL);
CREATE TABLE load_added (id int NOT NULL, v int NOT NULL);
INSERT INTO load_filters SELECT g, bloom_empty(100000, 0.01) FROM generate_series(1, 16) g;
SQL
out=$(pgbench -n -h "${PGHOST:-localhost}" -c 8 -j 2 -T "$seconds" -f probe_and_add.pgbench "$db" 2>&1) || {
	echo "$out" | tail -n 20
	echo "load: FAILED (pgbench)"
	exit 1
}
echo "$out" | grep -E "number of (transactions actually processed|failed transactions)|tps"
failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
check=$(psql -X -At -d "$db" <<'SQL'
SELECT count(*) FILTER (WHERE NOT same) || ' ' || count(*)
  FROM (SELECT l.id,
               coalesce(l.f = r.f AND (bloom_info(l.f)).values_added = r.n,
                        (bloom_info(l.f)).values_added = 0) AS same
          FROM load_filters l
          LEFT JOIN (SELECT id, bloom_agg(v, 100000, 0.01) AS f, count(*) AS n
                       FROM load_added GROUP BY id) r USING (id)) s;
SQL
)
psql -X -q -d postgres -c "DROP DATABASE $db"
if [ "${failed:-1}" != 0 ] || [ "${check%% *}" != 0 ]; then
	echo "load: FAILED (failed transactions: ${failed:-?}; filters differing from a rebuild: ${check})"
	exit 1
fi
echo "load: ok (filters equal to their serial rebuild: ${check#* } of 16)"
