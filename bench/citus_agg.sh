#!/usr/bin/env bash
# bench/citus_agg.sh: what bloom_agg costs on Citus against a local build,
# and what the state's kept hasher (src/bloom_value.c, bloom_agg_hasher) saves.
# Citus's worker_partial_agg calls the transition function through an
# FmgrInfo it sets up for every row, so fn_extra is empty on every call;
# the state keeps the hasher instead.  The script builds the extension twice
# -- as it is, and a copy of the tree with the kept hasher switched off (one
# condition patched by sed) -- and swaps the two libraries between runs in
# one cluster: a coordinator and two workers on loopback (PostgreSQL 15,
# Citus built by tests/citus/build.sh), a 2,000,000-row int8 table
# distributed over 2 shards and a local copy, no parallel workers, JIT off.
# Prints the time of each query, 3 alternating runs; reinstalls the normal
# build at the end.  Run as root.  Writes bench/results/citus_agg.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
pg_config=/usr/lib/postgresql/15/bin/pg_config
lib=$("$pg_config" --pkglibdir)/bloomfilter.so
bash tests/citus/build.sh 15 >/dev/null

work=$(mktemp -d /tmp/bloom-agg-ab.XXXXXX)
git ls-files | tar -T - -cf - | tar -C "$work" -xf -
sed -i 's/if (kept != NULL \&\& kept->valid \&\& fcinfo->flinfo->fn_expr == NULL \&\&/if (false \&\& kept != NULL \&\& kept->valid \&\& fcinfo->flinfo->fn_expr == NULL \&\&/' \
	"$work/src/bloom_value.c"
grep -q "if (false && kept" "$work/src/bloom_value.c" || {
	echo "citus_agg: could not switch the kept hasher off in the copy"
	exit 1
}
make -s -C "$work" PG_CONFIG="$pg_config" >/dev/null
make -s PG_CONFIG="$pg_config" >/dev/null
make -s PG_CONFIG="$pg_config" install >/dev/null
cp bloomfilter.so "$work/kept.so"
cp "$work/bloomfilter.so" "$work/not_kept.so"

citus_version=15
citus_port=56800
. tests/citus/cluster.sh
citus_start max_parallel_workers_per_gather=0
trap 'cp "$work/kept.so" "$lib"; citus_stop; rm -rf "$work"' EXIT
citus_sql <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION bloomfilter;
SET citus.shard_count = 2;
CREATE TABLE loc AS SELECT g::int8 AS id, g::int8 * 7 AS k FROM generate_series(1, 2000000) g;
CREATE TABLE dist AS SELECT * FROM loc;
SELECT create_distributed_table('dist', 'id');
VACUUM ANALYZE loc;
VACUUM ANALYZE dist;
SQL
citus_sql <<<"SELECT count(*) FROM dist;" >/dev/null # warm-up: the workers' connections

{
	echo "== 2,000,000 int8 rows; local table, and distributed over 2 shards on 2 workers; ms"
	for run in 1 2 3; do
		for v in kept not_kept; do
			cp "$work/$v.so" "$lib"
			echo "run $run, hasher $v:" \
				"local bloom_agg(k, 2000000, 0.01) $(citus_ms "SELECT bloom_agg(k, 2000000, 0.01) IS NULL FROM loc")," \
				"citus $(citus_ms "SELECT bloom_agg(k, 2000000, 0.01) IS NULL FROM dist");" \
				"local bloom_agg(k) $(citus_ms "SELECT bloom_agg(k) IS NULL FROM loc")," \
				"citus $(citus_ms "SELECT bloom_agg(k) IS NULL FROM dist");" \
				"local count(k) $(citus_ms "SELECT count(k) FROM loc"), citus $(citus_ms "SELECT count(k) FROM dist")"
		done
	done
} | tee bench/results/citus_agg.txt
