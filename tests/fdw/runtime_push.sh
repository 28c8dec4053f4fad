#!/usr/bin/env bash
# tests/fdw/runtime_push.sh: runtime filters shipped into postgres_fdw scans
# (src/runtime/pushdown.c).  Loopback: the "remote" server is the same
# cluster, another database, with bloomfilter installed; a second server
# points at the same database without listing bloomfilter in "extensions".
# Filters are forced (bloomfilter.runtime_filter_force), so every hash join
# that can take one gets one, whatever the estimates.
#
# For each query: the rows with the setting on equal the rows with it off;
# EXPLAIN VERBOSE shows bloom_runtime_contains in the Remote SQL where it
# must be shipped, and not where it must not; EXPLAIN ANALYZE's foreign scan
# rows show how many rows the remote side sent, on and off.
# Run against a server (as pg_virtualenv sets up).  Prints a line per case,
# then "fdw_push: N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/compare.sh"
local_db=bloom_push_local
remote_db=bloom_push_remote
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $local_db" \
	-c "DROP DATABASE IF EXISTS $remote_db" -c "CREATE DATABASE $local_db" \
	-c "CREATE DATABASE $remote_db" 2>/dev/null
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $local_db" -c "DROP DATABASE IF EXISTS $remote_db" 2>/dev/null || true' EXIT

psql -X -q -v ON_ERROR_STOP=1 -d "$remote_db" <<'SQL'
CREATE EXTENSION bloomfilter;
-- 200,000 rows, one in 20 matching the local keys; a NULL key every 1,000
CREATE TABLE big (k int8, payload text);
INSERT INTO big SELECT CASE WHEN g % 1000 = 0 THEN NULL ELSE g END, 'row ' || g
  FROM generate_series(1, 200000) g;
CREATE TABLE p1 (k int4, v int4);
CREATE TABLE p2 (k int4, v int4);
INSERT INTO p1 SELECT g, g % 7 FROM generate_series(1, 100000) g;
INSERT INTO p2 SELECT g, g % 7 FROM generate_series(100001, 200000) g;
-- 600,000 rows (k up to 600,000), for the outer side of a join whose inner
-- side has more keys than a filter capped at 64kB holds
CREATE VIEW big3 AS SELECT k, payload FROM big UNION ALL SELECT k + 200000, payload FROM big
  UNION ALL SELECT k + 400000, payload FROM big;
CREATE TABLE words (w text);
INSERT INTO words SELECT CASE WHEN g % 2 = 0 THEN 'Word' || g ELSE 'word' || g END
  FROM generate_series(1, 20000) g;
ANALYZE;
SQL

psql -X -q -v ON_ERROR_STOP=1 -v pw="${PGPASSWORD:-}" -v port="${PGPORT:-5432}" \
	-v remote="$remote_db" -d "$local_db" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'localhost', port :'port', dbname :'remote', extensions 'bloomfilter');
CREATE SERVER plain_shard FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'localhost', port :'port', dbname :'remote');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard OPTIONS (user 'postgres', password :'pw');
CREATE USER MAPPING FOR CURRENT_USER SERVER plain_shard OPTIONS (user 'postgres', password :'pw');
CREATE FOREIGN TABLE big (k int8, payload text) SERVER shard;
CREATE FOREIGN TABLE big3 (k int8, payload text) SERVER shard;
CREATE FOREIGN TABLE big_plain (k int8, payload text) SERVER plain_shard OPTIONS (table_name 'big');
-- fetched in one batch: postgres_fdw reuses the rows of a rescan that it
-- was not told changed, so a rebuilt filter must say so
CREATE FOREIGN TABLE big_one_batch (k int8, payload text) SERVER shard
  OPTIONS (table_name 'big', fetch_size '1000000');
-- a local declaration that differs from the remote column (int4 there)
-- (on a second server with the extension, so that postgres_fdw does not
-- push its joins with big, on the first, to the remote side)
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'localhost', port :'port', dbname :'remote', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2 OPTIONS (user 'postgres', password :'pw');
CREATE FOREIGN TABLE p1_wide (k int8, v int4) SERVER shard2 OPTIONS (table_name 'p1');
CREATE TABLE parts (k int4, v int4) PARTITION BY RANGE (k);
CREATE FOREIGN TABLE parts_1 PARTITION OF parts FOR VALUES FROM (1) TO (100001)
  SERVER shard OPTIONS (table_name 'p1');
CREATE FOREIGN TABLE parts_2 PARTITION OF parts FOR VALUES FROM (100001) TO (200001)
  SERVER shard OPTIONS (table_name 'p2');
-- the same partitions scanned asynchronously (Append talks to them directly)
CREATE SERVER shard_async FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'localhost', port :'port', dbname :'remote', extensions 'bloomfilter',
           async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard_async OPTIONS (user 'postgres', password :'pw');
CREATE TABLE parts_async (k int4, v int4) PARTITION BY RANGE (k);
CREATE FOREIGN TABLE parts_async_1 PARTITION OF parts_async FOR VALUES FROM (1) TO (100001)
  SERVER shard_async OPTIONS (table_name 'p1');
CREATE FOREIGN TABLE parts_async_2 PARTITION OF parts_async FOR VALUES FROM (100001) TO (200001)
  SERVER shard_async OPTIONS (table_name 'p2');
CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE FOREIGN TABLE words (w text COLLATE nocase) SERVER shard;
CREATE TABLE small AS SELECT g * 20 AS k, g % 10 AS grp FROM generate_series(1, 10000) g;
CREATE TABLE small4 AS SELECT (g * 20)::int4 AS k FROM generate_series(1, 10000) g;
-- keys of the first foreign partition only (parts_1: 1 to 100,000)
CREATE TABLE low4 AS SELECT k FROM small4 WHERE k <= 100000;
-- never analyzed here (autovacuum does not analyze foreign tables): no
-- column statistics, so the join's estimate says every row matches
CREATE FOREIGN TABLE big_nostats (k int8, payload text) SERVER shard OPTIONS (table_name 'big');
CREATE SERVER shard_estimate FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'localhost', port :'port', dbname :'remote', extensions 'bloomfilter',
           use_remote_estimate 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard_estimate OPTIONS (user 'postgres', password :'pw');
CREATE FOREIGN TABLE big_estimate (k int8, payload text) SERVER shard_estimate OPTIONS (table_name 'big');
-- 250,000 keys: a filter of 64kB (about 53,000 keys) with these is too full
CREATE TABLE many AS SELECT g * 2 AS k FROM generate_series(1, 250000) g;
CREATE TABLE dim AS SELECT g AS v, g % 2 = 0 AS even FROM generate_series(0, 6) g;
CREATE TABLE some_words AS SELECT 'WORD' || (g * 10) AS w FROM generate_series(1, 1000) g;
ANALYZE small, small4, low4, many, dim, some_words;
ANALYZE big, big3, big_plain, big_one_batch, p1_wide, parts, parts_async, words;
SQL

passed=0
failed=0
# check NAME SHIPPED QUERY [SETTINGS]: rows on = rows off, and
#   yes     the Remote SQL takes the filter, and the remote side sends fewer rows;
#   skip    as yes, and EXPLAIN ANALYZE says a partition's scan was skipped
#           (SKIPPED: "N of M");
#   no      no Remote SQL takes it;
#   unsent  the Remote SQL takes it, but the filter is not sent (the remote
#           side lets every row through: as many rows as off);
#   full    as unsent, and EXPLAIN ANALYZE says the filter is too full;
#   planned as yes, and EXPLAIN (no ANALYZE) says the join was chosen for
#           the partitions its keys skip (SKIPPED: "N of M" expected read),
#           with runtime_filter_skip_costing on (1.11);
#   unplanned as yes, and EXPLAIN says no such thing.
# Prints the foreign scans' rows on and off.
check() {
	local name=$1 pushed=$2 query=$3 settings=${4:-} skipped=${5:-} out
	out=$(psql -X -At -v ON_ERROR_STOP=1 -d "$local_db" <<SQL 2>&1
LOAD 'bloomfilter';
SET bloomfilter.runtime_filter_force = on;
$settings
SET max_parallel_workers_per_gather = 0;
SET enable_nestloop = off;
SET enable_mergejoin = off;
CREATE TEMP TABLE r_on AS $query;
SET bloomfilter.runtime_filter = off;
CREATE TEMP TABLE r_off AS $query;
$(compare_sql "$query")
SET bloomfilter.runtime_filter = on;
$([ "$pushed" = full ] || [ "$pushed" = skip ] && echo "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $query;")
$([ "$pushed" = planned ] || [ "$pushed" = unplanned ] && echo "EXPLAIN (COSTS OFF) $query;")
SQL
	) || true
	local same shipped on off
	same=$(grep -c '^same: true' <<<"$out" || true)
	shipped=$(grep -c 'Remote SQL: .*bloom_runtime_contains' <<<"$out" || true)
	on=$(sed -n 's/^remote rows on: //p' <<<"$out")
	off=$(sed -n 's/^remote rows off: //p' <<<"$out")
	local ok=0
	case "$pushed" in
	yes) [ "$shipped" -ge 1 ] && [ -n "$on" ] && [ "$on" -lt "${off:-0}" ] && ok=1 ;;
	skip) [ "$shipped" -ge 1 ] && [ -n "$on" ] && [ "$on" -lt "${off:-0}" ] &&
		grep -q "^ *Partition Scans Skipped: $skipped\$" <<<"$out" && ok=1 ;;
	no) [ "$shipped" = 0 ] && ok=1 ;;
	unsent) [ "$shipped" -ge 1 ] && [ -n "$on" ] && [ "$on" = "$off" ] && ok=1 ;;
	full) [ "$shipped" -ge 1 ] && [ -n "$on" ] && [ "$on" = "$off" ] &&
		grep -q 'Filter Disabled: too full to remove rows' <<<"$out" && ok=1 ;;
	planned) [ "$shipped" -ge 1 ] && [ -n "$on" ] && [ "$on" -lt "${off:-0}" ] &&
		grep -q "^ *Planned Skip: partitions, $skipped expected read\$" <<<"$out" && ok=1 ;;
	unplanned) [ "$shipped" -ge 1 ] && [ -n "$on" ] && [ "$on" -lt "${off:-0}" ] &&
		! grep -q "Planned Skip" <<<"$out" && ok=1 ;;
	esac
	if [ "$same" = 1 ] && [ "$ok" = 1 ]; then
		echo "fdw_push: $name: ok ($(sed -n 's/^rows: //p' <<<"$out") rows; the remote side sent ${on:-?} rows on, ${off:-?} off; shipped into $shipped scans)"
		passed=$((passed + 1))
	else
		echo "fdw_push: $name: FAILED (expected shipped: $pushed)"
		echo "$out"
		failed=$((failed + 1))
	fi
}

check "inner join" yes "SELECT b.k, b.payload FROM big b JOIN small s ON b.k = s.k"
check "semi-join" yes "SELECT b.k FROM big b WHERE b.k IN (SELECT k FROM small)"
check "star join" yes "SELECT b.k, s.grp, d.even FROM big b JOIN small s ON b.k = s.k JOIN p1_wide p ON p.k = b.k JOIN dim d ON d.v = p.v"
check "foreign partitions" yes "SELECT p.k, p.v FROM parts p JOIN small4 s ON p.k = s.k"
check "async foreign partitions" yes "SELECT p.k, p.v FROM parts_async p JOIN small4 s ON p.k = s.k"
check "cross-type keys, remote column narrower" yes "SELECT p.k FROM p1_wide p JOIN small4 s ON p.k = s.k"
check "NULL keys" yes "SELECT b.k FROM big b WHERE b.k IN (SELECT k FROM small UNION ALL SELECT NULL)"
check "rescanned join (a nested loop over it)" yes "SELECT s.grp, x.n FROM (SELECT DISTINCT grp FROM small) s, LATERAL (SELECT count(*) AS n FROM big_one_batch b JOIN (SELECT k FROM small WHERE grp = s.grp OFFSET 0) t ON b.k = t.k) x"
check "foreign partitions, one skipped" skip "SELECT p.k, p.v FROM parts p JOIN low4 s ON p.k = s.k" "" "1 of 2"
check "foreign partitions, one skipped, filters not forced" skip "SELECT p.k, p.v FROM parts p JOIN low4 s ON p.k = s.k" "SET bloomfilter.runtime_filter_force = off;" "1 of 2"
# the join search prices the skip (1.11): bounds from a qual on the key; an
# asynchronous foreign partition counts as read (never skipped), so nothing is
check "foreign partitions, the skip priced" planned "SELECT p.k, p.v FROM parts p JOIN small4 s ON p.k = s.k WHERE s.k <= 100000" "SET bloomfilter.runtime_filter_force = off;" "1 of 2"
check "async foreign partitions, no skip priced" unplanned "SELECT p.k, p.v FROM parts_async p JOIN small4 s ON p.k = s.k WHERE s.k <= 100000" "SET bloomfilter.runtime_filter_force = off;"
check "no local statistics, filters not forced" yes "SELECT b.k, b.payload FROM big_nostats b JOIN small s ON b.k = s.k" "SET bloomfilter.runtime_filter_force = off;"
check "no local statistics, use_remote_estimate, filters not forced" yes "SELECT b.k, b.payload FROM big_estimate b JOIN small s ON b.k = s.k" "SET bloomfilter.runtime_filter_force = off;"
check "server without the extension" no "SELECT b.k FROM big_plain b JOIN small s ON b.k = s.k"
check "nondeterministic collation" no "SELECT w.w FROM words w JOIN some_words s ON w.w = s.w"
check "filter over the size sent (runtime_filter_ship_max = 1kB)" unsent "SELECT b.k, b.payload FROM big b JOIN small s ON b.k = s.k" "SET bloomfilter.runtime_filter_ship_max = '1kB';"
check "filter too full to be useful (runtime_filter_max_size = 64kB, 250,000 keys)" full "SELECT b.k FROM big3 b JOIN many m ON b.k = m.k" "SET bloomfilter.runtime_filter_max_size = '64kB';"

echo "fdw_push: $passed passed, $failed failed"
[ "$failed" = 0 ]
