#!/usr/bin/env bash
# tests/fdw/pushdown.sh: with postgres_fdw's server option
# extensions 'bloomfilter', probes of a foreign table are evaluated on the
# remote side: EXPLAIN VERBOSE shows them in "Remote SQL", for a constant
# filter and for one computed locally by an InitPlan (sent as a parameter,
# in text form), and the answers equal local evaluation.  Loopback: the
# "remote" server is the same cluster, another database.  Run against a
# server (as pg_virtualenv sets up).  Prints "fdw: ok" or fails.
set -euo pipefail
local_db=bloom_fdw_local
remote_db=bloom_fdw_remote
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $local_db" \
	-c "DROP DATABASE IF EXISTS $remote_db" -c "CREATE DATABASE $local_db" -c "CREATE DATABASE $remote_db" 2>/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$remote_db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE big (k int8, payload text);
INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 100000) g;
ANALYZE big;
SQL
out=$(psql -X -At -v ON_ERROR_STOP=1 -v pw="${PGPASSWORD:-}" -v port="${PGPORT:-5432}" \
	-v remote="$remote_db" -d "$local_db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'localhost', port :'port', dbname :'remote', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard OPTIONS (user 'postgres', password :'pw');
CREATE FOREIGN TABLE big (k int8, payload text) SERVER shard;
CREATE TABLE small AS SELECT g * 7 AS k FROM generate_series(1, 1000) g;
CREATE TABLE filters AS SELECT bloom_agg(k, 1000, 0.01) AS f FROM small;
-- a stored filter and one computed locally, both reach the remote side as
-- an InitPlan parameter ($1) and are probed there
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM big WHERE (SELECT f FROM filters) @> k;
EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM big WHERE bloom_contains((SELECT bloom_agg(k, 1000, 0.01) FROM small), k);
SELECT 'rows: ' || (SELECT count(*) FROM big WHERE (SELECT f FROM filters) @> k)
    || ' ' || (SELECT count(*) FROM big b WHERE EXISTS (SELECT 1 FROM small s WHERE s.k = b.k))
    || ' ' || (SELECT count(*) FROM (SELECT * FROM big OFFSET 0) b, filters WHERE f @> b.k);
SQL
)
psql -X -q -d postgres -c "DROP DATABASE $local_db" -c "DROP DATABASE $remote_db"
echo "$out" | grep -E "Remote SQL|rows:"
remote_probes=$(echo "$out" | grep -c -E 'Remote SQL: .* WHERE .*(@>|bloom_contains)' || true)
read -r _ filtered exact local <<<"$(echo "$out" | grep '^rows:')"
if [ "$remote_probes" -ge 2 ] && [ "$filtered" = "$local" ] && [ "$filtered" -ge "$exact" ]; then
	echo "fdw: ok (probes shipped in $remote_probes plans; $filtered rows pass remotely, as locally; $exact match)"
else
	echo "fdw: FAILED"
	echo "$out"
	exit 1
fi
