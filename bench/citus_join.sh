#!/usr/bin/env bash
# bench/citus_join.sh: the bloom join on Citus, where rows move between
# machines.  A coordinator and two workers on loopback (PostgreSQL 15, Citus
# 13.2.2 built by tests/citus/build.sh), started here and stopped at the end.
#
# big (5,000,000 rows) and small (100,000 rows) are both distributed by id
# and joined on k, the distribution column of neither, so Citus repartitions
# both sides (citus.enable_repartition_joins): every row of big that the
# join reads is hashed on k and sent to the worker that owns its partition.
# 10% of big's rows match.  The join runs
#   plain:     SELECT ... FROM big JOIN small ON big.k = small.k
#   filtered:  the same, JOIN join_filters jf ON jf.f @> big.k
# where join_filters is a reference table (a copy on every node) holding
# bloom_agg(k) over small, built by partial aggregates on the workers.  The
# map tasks of the repartition read big joined with the filter, so the rows
# that cannot match are dropped before they are hashed and sent.  Reports
# the rows and bytes of big that enter the repartition (counted with the map
# tasks' own clause, which citus.log_remote_commands shows), the time of the
# filter's build and of each join (5 alternating runs), in two set-ups: 2
# shards per table and one repartition bucket per node, where the rows moved
# decide the time, and 8 shards with Citus's default 4 buckets per node,
# where the repartition's many small tasks cost seconds whatever the rows.
# Run as root after
# tools/run.sh has installed the extension.  Writes
# bench/results/citus_join.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

citus_version=15
bash tests/citus/build.sh "$citus_version" >/dev/null || {
	echo "citus_join: needs Citus (tests/citus/build.sh $citus_version)"
	exit 1
}
citus_port=56300
. tests/citus/cluster.sh

plain="SELECT count(*), sum(length(b.payload)) FROM big b JOIN small s ON b.k = s.k"
filtered="SELECT count(*), sum(length(b.payload)) FROM big b JOIN small s ON b.k = s.k
  JOIN join_filters jf ON jf.name = 'small' AND jf.f @> b.k"
build="INSERT INTO join_filters SELECT 'small', bloom_agg(k) FROM small
  ON CONFLICT (name) DO UPDATE SET f = EXCLUDED.f"

# ms QUERY: the query's time in milliseconds, repartition joins on
ms() {
	citus_ms "SET citus.enable_repartition_joins = on; $1"
}

# map_queries QUERY: the queries the map tasks over big's shards run, shard
# numbers replaced by N
map_queries() {
	citus_map_tasks "$1" | grep "FROM .*big_" | sed -E "s/_[0-9]+ /_N /g; s/''/'/g" | sort -u
}

# run_config SHARDS BUCKETS: the whole measurement with SHARDS shards per
# table and citus.repartition_join_bucket_count_per_node = BUCKETS
run_config() {
	citus_start max_parallel_workers_per_gather=0 shared_buffers=512MB \
		citus.repartition_join_bucket_count_per_node="$2"
	citus_sql <<SQL
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
SET citus.shard_count = $1;
CREATE TABLE big (id int8, k int8, payload text);
SELECT create_distributed_table('big', 'id');
INSERT INTO big SELECT g, g::int8 * 7919 % 1000000, 'order ' || g || ' of a customer' FROM generate_series(1, 5000000) g;
CREATE TABLE small (id int8, k int8);
SELECT create_distributed_table('small', 'id');
INSERT INTO small SELECT g, g * 10 FROM generate_series(0, 99999) g;
ANALYZE big;
ANALYZE small;
SQL

	citus_sql <<SQL
CREATE TABLE join_filters (name text PRIMARY KEY, f bloom);
SELECT create_reference_table('join_filters');
$build;
SQL

{
	echo "== big: 5,000,000 rows, small: 100,000 keys, 10% of big matching; join on k,"
	echo "== the distribution column of neither (a repartition join); 2 workers, $1 shards per table,"
	echo "== citus.repartition_join_bucket_count_per_node = $2"
	echo "== results, plain and filtered (must be equal):"
	citus_sql <<<"SET citus.enable_repartition_joins = on; $plain;"
	citus_sql <<<"SET citus.enable_repartition_joins = on; $filtered;"
	echo "== the filter: $(citus_sql <<<"SELECT pg_size_pretty(pg_column_size(f)::bigint) || ', ' || (bloom_info(f)).nbits || ' bits, k = ' || (bloom_info(f)).nhashes FROM join_filters")"
	echo "== rows and bytes (k, payload) of big entering the repartition:"
	citus_sql <<'SQL'
SELECT 'plain' AS plan, count(*) AS rows, sum(pg_column_size(row(b.k, b.payload))) AS bytes FROM big b
UNION ALL
SELECT 'filtered', count(*), sum(pg_column_size(row(b.k, b.payload)))
  FROM big b JOIN join_filters jf ON jf.name = 'small' AND jf.f @> b.k;
SQL
	echo "== the map tasks' queries over big's shards (citus.log_remote_commands):"
	for q in "$plain" "$filtered"; do
		map_queries "$q"
	done
	echo "== times, ms (5 alternating runs, then the medians):"
	local run p b f ps=() bs=() fs=()
	for run in 1 2 3 4 5; do
		p=$(ms "$plain")
		b=$(ms "$build")
		f=$(ms "$filtered")
		ps+=("$p")
		bs+=("$b")
		fs+=("$f")
		echo "run $run: plain $p, filter build $b, filtered $f"
	done
	p=$(printf '%s\n' "${ps[@]}" | sort -n | sed -n 3p)
	b=$(printf '%s\n' "${bs[@]}" | sort -n | sed -n 3p)
	f=$(printf '%s\n' "${fs[@]}" | sort -n | sed -n 3p)
	awk -v p="$p" -v b="$b" -v f="$f" 'BEGIN {
		printf "median: plain %s, filter build %s, filtered %s; plain / filtered = %.2f, plain / (build + filtered) = %.2f\n", p, b, f, p / f, p / (b + f) }'
} 2>&1
citus_stop
}

{
	run_config 2 1
	echo
	run_config 8 4
} | tee bench/results/citus_join.txt
