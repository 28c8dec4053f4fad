#!/usr/bin/env bash
# tests/citus/citus_test.sh N: the aggregates and probes on a real Citus
# cluster (a coordinator and two workers on loopback, PostgreSQL N, servers
# running as postgres).  Citus is built from the vendored source once and
# cached (tests/citus/build.sh).  Checks, each printed "name: ok|FAILED":
#   - the extension, installed as 1.3 and updated to 1.12 on the coordinator,
#     is 1.12 on the workers too;
#   - every form of bloom_agg and counting_bloom_agg, over each key type that
#     has aggregates of its own, grouped and not, gives on a distributed
#     table the filter a local build over the same rows gives, bit for bit;
#   - EXPLAIN VERBOSE shows them run as partial aggregates on the workers
#     (worker_partial_agg), not as rows gathered to the coordinator;
#   - bloom_union_agg and bloom_intersect_agg over a distributed table of
#     filters;
#   - probes on the shards (a stored filter, one built on the workers) give
#     the rows local evaluation gives;
#   - the bloom join across a repartition: a filter in a reference table,
#     joined to the large side, or given as a literal, is probed in the map
#     tasks (what citus.log_remote_commands shows), and the join's answer is
#     the local one;
#   - a column of a nondeterministic collation (docs/citus.md);
#   - a type without aggregates of its own is refused, as docs/citus.md says.
# Run as root, with the extension built and installed for N.  Ends with
# "citusN: P passed, F failed", or "citusN: skipped (why)" when the vendored
# source is absent or Citus does not support N.
set -euo pipefail
cd "$(dirname "$0")/../.."

citus_version=${1:?usage: $0 N}
status=0
bash tests/citus/build.sh "$citus_version" || status=$?
if [ "$status" = 3 ]; then
	echo "citus$citus_version: skipped (see the line above)"
	exit 0
elif [ "$status" != 0 ]; then
	echo "citus$citus_version: 0 passed, 1 failed"
	exit 1
fi

. tests/citus/cluster.sh
# one repartition bucket per node: Citus's default 4 makes each repartition
# join take seconds of task overhead on this small data (bench/README.md)
citus_start citus.repartition_join_bucket_count_per_node=1
echo "== citus: coordinator on port $citus_port, workers on $((citus_port + 1)) and $((citus_port + 2))"

# The extension is installed as 1.3 and updated, as on an existing cluster:
# Citus runs both on the workers too.  The same rows in a plain table (loc)
# and a distributed one (dist, 4 shards by id); g groups across shards.
# NULLs in every column.
citus_sql <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter VERSION '1.3';
ALTER EXTENSION bloomfilter UPDATE;
SET citus.shard_count = 4;
CREATE TABLE loc AS
SELECT i::bigint AS id, i % 7 AS g,
       nullif(i % 30000, 13)::smallint AS c_int2,
       nullif(i * 37, 74) AS c_int4,
       nullif(i::bigint * 1000003, 2000006) AS c_int8,
       nullif('key ' || i, 'key 5') AS c_text,
       nullif(('v' || i)::varchar(20), 'v6') AS c_varchar,
       nullif(('c' || i)::char(12), 'c7') AS c_bpchar,
       nullif(md5(i::text)::uuid, md5('8')::uuid) AS c_uuid,
       nullif(i / 7.0, 9 / 7.0) AS c_numeric,
       nullif(date '2000-01-01' + i, date '2000-01-11') AS c_date,
       nullif(timestamp '2000-01-01' + i * interval '1 minute', timestamp '2000-01-01 00:11') AS c_timestamp,
       nullif(timestamptz '2000-01-01 UTC' + i * interval '1 second', timestamptz '2000-01-01 00:00:12 UTC') AS c_timestamptz,
       nullif(sha256(i::text::bytea), sha256('13')) AS c_bytea
  FROM generate_series(1, 20000) i;
CREATE TABLE dist AS SELECT * FROM loc;
SELECT create_distributed_table('dist', 'id');
-- filters, as users store them, in a plain and a distributed table
CREATE TABLE loc_filters AS
SELECT i AS id, bloom_agg(k, 5000, 0.01) AS f
  FROM generate_series(1, 40) i, generate_series(i * 10, i * 10 + 3000) k GROUP BY i;
CREATE TABLE dist_filters AS SELECT * FROM loc_filters;
SELECT create_distributed_table('dist_filters', 'id');
SQL

passed=0
failed=0
# check NAME SQL: SQL prints one boolean
check() {
	local out
	out=$(citus_sql <<<"$2" 2>&1) || true
	if [ "$out" = t ]; then
		echo "$1: ok"
		passed=$((passed + 1))
	else
		echo "$1: FAILED"
		head -n 20 <<<"$out"
		failed=$((failed + 1))
	fi
}

# expect NAME OUTPUT PATTERN...: a check that passes if OUTPUT matches every
# extended regular expression PATTERN (one that starts with "!" must not
# match); a failure prints OUTPUT.
expect() {
	local name=$1 out=$2 pattern ok=1
	shift 2
	for pattern in "$@"; do
		if [[ $pattern == '!'* ]]; then
			! grep -qE -- "${pattern#!}" <<<"$out" || ok=0
		else
			grep -qE -- "$pattern" <<<"$out" || ok=0
		fi
	done
	if [ "$ok" = 1 ]; then
		echo "$name: ok"
		passed=$((passed + 1))
	else
		echo "$name: FAILED"
		echo "$out"
		failed=$((failed + 1))
	fi
}

check "1.12 on the coordinator and both workers, after ALTER EXTENSION UPDATE" "
	SELECT (SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter') = '1.12'
	   AND (SELECT array_agg(DISTINCT result) FROM run_command_on_workers(
	            \$\$SELECT extversion || ' ' || count(*) FROM pg_extension e, pg_proc p
	                WHERE e.extname = 'bloomfilter' AND p.proname = 'bloom_agg'
	                GROUP BY extversion\$\$)) = ARRAY['1.12 52'];"

types=(int2 int4 int8 text varchar bpchar uuid numeric date timestamp timestamptz bytea)
forms=("bloom_agg(%s)" "bloom_agg(%s, 0.001)" "bloom_agg(%s, 30000, 0.01)"
	"bloom_agg(%s, 30000, 0.01, 'blocked')" "counting_bloom_agg(%s)"
	"counting_bloom_agg(%s, 30000, 0.01)")

for t in "${types[@]}"; do
	for form in "${forms[@]}"; do
		# shellcheck disable=SC2059
		agg=$(printf "$form" "c_$t")
		# one filter of all rows, and one per group (g is not the
		# distribution column: partial states per group, combined on the
		# coordinator).  counting_bloom_agg(v) is sized for a million
		# values (4.8 MB a partial state): its groups, which take seconds,
		# are checked for one type; the sized form covers every type.
		grouped="AND (SELECT string_agg(g || ':' || f::text, ',' ORDER BY g)
			         FROM (SELECT g, $agg AS f FROM dist GROUP BY g) d)
			     = (SELECT string_agg(g || ':' || f::text, ',' ORDER BY g)
			         FROM (SELECT g, $agg AS f FROM loc GROUP BY g) l)"
		[ "$form" != "counting_bloom_agg(%s)" ] || [ "$t" = int8 ] || grouped=
		check "$agg" "
			SELECT (SELECT $agg::text FROM dist) = (SELECT $agg::text FROM loc) $grouped;"
	done
done

# Partial aggregation on the workers, for every form: EXPLAIN VERBOSE shows
# the shard query calling worker_partial_agg with the type's own aggregate.
for form in "${forms[@]}"; do
	# shellcheck disable=SC2059
	agg=$(printf "$form" c_int8)
	name=${agg%%(*}
	out=$(citus_sql <<<"EXPLAIN (VERBOSE, COSTS OFF) SELECT $agg FROM dist;" 2>&1 || true)
	expect "explain $agg: worker_partial_agg on the shards" "$out" \
		"worker_partial_agg\\('([a-z_]+\\.)?$name\\(bigint" "coord_combine_agg\\(" "!Output: .*c_int8$"
done

# Grouped by the distribution column, the whole aggregate runs on the shards.
check "bloom_agg grouped by the distribution column" "
	SELECT (SELECT md5(string_agg(id || ':' || f::text, ',' ORDER BY id))
	          FROM (SELECT id, bloom_agg(c_text) AS f FROM dist GROUP BY id) d)
	     = (SELECT md5(string_agg(id || ':' || f::text, ',' ORDER BY id))
	          FROM (SELECT id, bloom_agg(c_text) AS f FROM loc GROUP BY id) l);"

# Types without aggregates of their own keep working where Citus can run
# them: grouped by the distribution column.
check "bloom_agg over an array, grouped by the distribution column" "
	SELECT (SELECT md5(string_agg(id || ':' || f::text, ',' ORDER BY id))
	          FROM (SELECT id, bloom_agg(ARRAY[c_int4]) AS f FROM dist GROUP BY id) d)
	     = (SELECT md5(string_agg(id || ':' || f::text, ',' ORDER BY id))
	          FROM (SELECT id, bloom_agg(ARRAY[c_int4]) AS f FROM loc GROUP BY id) l);"

# Union and intersection of stored filters.
check "bloom_union_agg over a distributed table of filters" "
	SELECT (SELECT bloom_union_agg(f) FROM dist_filters) = (SELECT bloom_union_agg(f) FROM loc_filters)
	   AND (SELECT bloom_union_agg(f) FROM dist_filters) @> 3400;"
check "bloom_intersect_agg over a distributed table of filters" "
	SELECT (SELECT bloom_intersect_agg(f) FROM dist_filters) = (SELECT bloom_intersect_agg(f) FROM loc_filters)
	   AND (SELECT bloom_intersect_agg(f) FROM dist_filters) @> 2000;"
out=$(citus_sql <<<"EXPLAIN (VERBOSE, COSTS OFF) SELECT bloom_union_agg(f), bloom_intersect_agg(f) FROM dist_filters;" 2>&1 || true)
expect "explain bloom_union_agg, bloom_intersect_agg: worker_partial_agg on the shards" "$out" \
	"worker_partial_agg\\('([a-z_]+\\.)?bloom_union_agg\\(([a-z_]+\\.)?bloom\\)'" \
	"worker_partial_agg\\('([a-z_]+\\.)?bloom_intersect_agg\\(([a-z_]+\\.)?bloom\\)'"

# Probes on the shards: a stored filter, and one the workers build from a
# distributed table, each shipped to the shards as an intermediate result.
check "probe with a stored filter equals local evaluation" "
	CREATE TABLE IF NOT EXISTS probe_filter AS
	    SELECT bloom_agg(c_text, 1000, 0.01) AS f FROM loc WHERE id % 50 = 0;
	SELECT (SELECT count(*) FROM dist WHERE (SELECT f FROM probe_filter) @> c_text)
	     = (SELECT count(*) FROM loc WHERE (SELECT f FROM probe_filter) @> c_text)
	   AND (SELECT count(*) FROM dist WHERE (SELECT f FROM probe_filter) @> c_text) >= 400;"
check "probe with a filter built on the workers equals local evaluation" "
	SELECT (SELECT count(*) FROM dist
	         WHERE bloom_contains((SELECT bloom_agg(c_int8) FROM dist WHERE g = 3), c_int8))
	     = (SELECT count(*) FROM loc
	         WHERE bloom_contains((SELECT bloom_agg(c_int8) FROM loc WHERE g = 3), c_int8))
	   AND (SELECT count(*) FROM dist
	         WHERE bloom_contains((SELECT bloom_agg(c_int8) FROM dist WHERE g = 3), c_int8))
	     >= (SELECT count(c_int8) FROM loc WHERE g = 3);"
out=$(citus_sql <<<"EXPLAIN (VERBOSE, COSTS OFF) SELECT count(*) FROM dist WHERE (SELECT f FROM probe_filter) @> c_text;" 2>&1 || true)
expect "explain probe: the shards evaluate @>" "$out" "Filter: \\(.*@> .*c_text"

# The bloom join across a repartition: the filter, in a reference table,
# joins the large side's map tasks, which drop the rows before sending them.
citus_sql <<'SQL'
SET client_min_messages = warning;
SET citus.shard_count = 2;
CREATE TABLE orders AS SELECT g::int8 AS id, (g * 7919 % 20000)::int8 AS region_key FROM generate_series(1, 60000) g;
CREATE TABLE regions AS SELECT g::int8 AS id, (g * 10)::int8 AS region_key FROM generate_series(0, 1999) g;
CREATE TABLE loc_orders AS SELECT * FROM orders;
CREATE TABLE loc_regions AS SELECT * FROM regions;
SELECT create_distributed_table('orders', 'id');
SELECT create_distributed_table('regions', 'id');
CREATE TABLE join_filters (name text PRIMARY KEY, f bloom);
SELECT create_reference_table('join_filters');
INSERT INTO join_filters SELECT 'regions', bloom_agg(region_key) FROM regions;
SQL
check "repartition join with the filter joined from a reference table" "
	SET citus.enable_repartition_joins = on;
	SELECT (SELECT count(*) FROM orders o JOIN regions r ON o.region_key = r.region_key
	          JOIN join_filters jf ON jf.name = 'regions' AND jf.f @> o.region_key)
	     = (SELECT count(*) FROM loc_orders o JOIN loc_regions r ON o.region_key = r.region_key)
	   AND (SELECT count(*) FROM orders o JOIN regions r ON o.region_key = r.region_key) = 6000
	   AND (SELECT f FROM join_filters) = (SELECT bloom_agg(region_key) FROM loc_regions);"
expect "repartition map tasks probe the filter" "$(citus_map_tasks "
	SELECT count(*) FROM orders o JOIN regions r ON o.region_key = r.region_key
	  JOIN join_filters jf ON jf.name = 'regions' AND jf.f @> o.region_key")" \
	"^SELECT .* FROM \\(public\\.orders_[0-9]+ o JOIN public\\.join_filters_[0-9]+ jf ON .*@>"

# The same with the filter as a literal in the query (psql's \gset).
expect "repartition map tasks probe a literal filter" "$(citus_map_tasks "
SELECT f FROM join_filters WHERE name = 'regions' \\gset
SELECT count(*) FROM orders o JOIN regions r ON o.region_key = r.region_key
 WHERE :'f'::bloom @> o.region_key")" \
	"^SELECT .* FROM public\\.orders_[0-9]+ o WHERE .*@>"

# A column of a nondeterministic collation: the one-argument forms get the
# column's collation from Citus and equal the local build; the others get
# their arguments as a row, which carries no collation, so they hash by the
# bytes (the default collation's key), and a probe with values of the
# nondeterministic collation is refused rather than answered wrongly
# (docs/citus.md, Limits).
citus_sql <<'SQL'
SET client_min_messages = warning;
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE loc_ci AS SELECT i::int8 AS id, ('Key ' || i) COLLATE ci AS c FROM generate_series(1, 2000) i;
CREATE TABLE dist_ci AS SELECT * FROM loc_ci;
SELECT create_distributed_table('dist_ci', 'id');
SQL
check "nondeterministic collation: bloom_agg(v) as locally" "
	SELECT (SELECT bloom_agg(c)::text FROM dist_ci) = (SELECT bloom_agg(c)::text FROM loc_ci)
	   AND (SELECT bloom_agg(c) FROM dist_ci) @> ('KEY 7' COLLATE ci)
	   AND (SELECT (bloom_info(bloom_agg(c))).element_family FROM dist_ci) LIKE '%@%ci';"
out=$(citus_sql 2>&1 <<'SQL' || true
SELECT (bloom_info(bloom_agg(c, 4000, 0.01))).element_family FROM dist_ci;
SELECT bloom_agg(c, 4000, 0.01) @> ('KEY 7' COLLATE ci) FROM dist_ci;
SQL
)
expect "nondeterministic collation: bloom_agg(v, n, fpp) hashes by bytes, probes refused" "$out" \
	"^pg_catalog\\.text_ops$" \
	"ERROR:  bloom filter holds values hashed by pg_catalog\\.text_ops, not values of type text"

# A type without aggregates of its own: Citus refuses to push the
# polymorphic aggregate down (docs/citus.md).  If this starts to pass,
# docs/citus.md is out of date.
out=$(citus_sql 2>&1 <<<"SELECT bloom_agg(ARRAY[c_int4]) FROM dist;" || true)
expect "a polymorphic bloom_agg is refused by Citus, as documented" "$out" \
	"worker_partial_agg_sfunc could not confirm type correctness"

echo "citus$citus_version: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
