#!/usr/bin/env bash
# tests/fdw/recheck.sh: a runtime filter shipped into a postgres_fdw scan
# under an UPDATE ... FROM, DELETE ... USING or SELECT ... FOR UPDATE whose
# rows another session holds, so that PostgreSQL rechecks them in a copy of
# the plan (EvalPlanQual).  The copy's parameters start as the query's own
# values: the recheck's filter node must not free the query's filter
# (1.10 did: a double free, the server crashed).  Each statement runs with
# filters on, then off, on the same data; the row counts must match, and the
# server must stay up.  Loopback: the "remote" server is another database of
# the same cluster.  Run against a server (as pg_virtualenv sets up).  Ends
# with "recheck: N passed, N failed".
set -uo pipefail
local_db=bloom_recheck_local
remote_db=bloom_recheck_remote
passed=0
failed=0
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $local_db" -c "DROP DATABASE IF EXISTS $remote_db" \
	-c "CREATE DATABASE $local_db" -c "CREATE DATABASE $remote_db" 2>/dev/null
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $local_db" -c "DROP DATABASE IF EXISTS $remote_db" 2>/dev/null || true' EXIT

psql -X -q -v ON_ERROR_STOP=1 -d "$remote_db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE t AS SELECT g::int8 AS k, 'w' || g AS s FROM generate_series(1, 200000) g;
ANALYZE t;
SQL
psql -X -q -v ON_ERROR_STOP=1 -v port="${PGPORT:-5432}" -v pw="${PGPASSWORD:-}" \
	-v remote="$remote_db" -d "$local_db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'localhost', port :'port', dbname :'remote', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard OPTIONS (user 'postgres', password :'pw');
CREATE FOREIGN TABLE f (k int8, s text) SERVER shard OPTIONS (table_name 't');
ANALYZE f;
CREATE TABLE l AS SELECT g * 7 AS k FROM generate_series(1, 100) g;
ANALYZE l;
SQL

# run NAME SETTING STATEMENT: STATEMENT (its rows counted by psql's command
# tag) with runtime filters SETTING, while another session holds three of
# the rows it changes or locks for a moment; prints the tag
run() {
	local setting=$2 statement=$3
	psql -X -q -d "$local_db" -c "DROP TABLE IF EXISTS upd" \
		-c "CREATE TABLE upd AS SELECT g::int8 AS k, 0 AS n FROM generate_series(1, 1000) g" \
		-c "ANALYZE upd" >/dev/null
	psql -X -q -d "$local_db" -c "BEGIN; UPDATE upd SET n = n WHERE k IN (7, 14, 700); SELECT pg_sleep(1.5); COMMIT;" \
		>/dev/null 2>&1 &
	sleep 0.5
	psql -X -d "$local_db" -v ON_ERROR_STOP=1 2>&1 <<SQL | grep -E '^(UPDATE|DELETE|SELECT) [0-9]+|ERROR|server closed|terminated'
LOAD 'bloomfilter';
SET bloomfilter.runtime_filter = $setting;
SET bloomfilter.runtime_filter_force = $setting;
$statement;
SQL
	wait
}

check() {
	local name=$1 statement=$2 on off up
	on=$(run "$name" on "$statement")
	off=$(run "$name" off "$statement")
	up=$(psql -X -At -d "$local_db" -c "SELECT 1" 2>&1)
	if [ -n "$on" ] && [ "$on" = "$off" ] && [[ "$on" != *ERROR* ]] && [ "$up" = 1 ]; then
		echo "recheck: $name: ok ($on, as with filters off)"
		passed=$((passed + 1))
	else
		echo "recheck: $name: FAILED (on: '$on', off: '$off', server: '$up')"
		failed=$((failed + 1))
	fi
}

check "UPDATE ... FROM a join with the foreign table" \
	"UPDATE upd SET n = n + 1 FROM f JOIN l ON f.k = l.k WHERE upd.k = f.k"
check "DELETE ... USING a join with the foreign table" \
	"DELETE FROM upd USING f JOIN l ON f.k = l.k WHERE upd.k = f.k"
check "SELECT ... FOR UPDATE of the local table" \
	"CREATE TEMP TABLE locked AS SELECT upd.k FROM upd JOIN f ON upd.k = f.k JOIN l ON f.k = l.k FOR UPDATE OF upd"

# the statement's EXPLAIN: the filter is shipped (else the test tests nothing)
shipped=$(psql -X -At -d "$local_db" <<'SQL' | grep -c 'Remote SQL: .*bloom_runtime_contains'
LOAD 'bloomfilter';
SET bloomfilter.runtime_filter_force = on;
CREATE TABLE IF NOT EXISTS upd AS SELECT g::int8 AS k, 0 AS n FROM generate_series(1, 1000) g;
EXPLAIN (VERBOSE, COSTS OFF) UPDATE upd SET n = n + 1 FROM f JOIN l ON f.k = l.k WHERE upd.k = f.k;
SQL
)
if [ "$shipped" -ge 1 ]; then
	echo "recheck: the UPDATE ships its filter: ok"
	passed=$((passed + 1))
else
	echo "recheck: the UPDATE ships its filter: FAILED"
	failed=$((failed + 1))
fi
echo "recheck: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
