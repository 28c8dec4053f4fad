#!/usr/bin/env bash
# bench/btree_cache.sh: does a BloomFilterScan read the keys' rows through
# the B-tree where that is faster, and the whole table where that is?  On
# data in shared buffers and on data read from disk (issue 41).
#
# 61 monthly partitions of 50,000 rows (3M), each with a B-tree on
# (item, ticket), the item in no order; a hash join on the item with k item
# keys (1 to 1,000).  Per k, three ways, each run 3 times (median):
#   off    bloomfilter.runtime_filter off: every row read and joined
#   btree  runtime_filter_force on: the keys' rows read through the B-trees
#   model  the setting on: the cost model chooses, per partition
# and which way the model chose (partitions read through the B-tree, of 61).
# "cached": every table and index prewarmed into shared buffers (2GB);
# "disk": the server restarted and the kernel's page cache dropped before
# each query (needs root; skipped otherwise).
#
# Runs on a cluster of its own (pg_createcluster, port 5497, dropped at the
# end), as root, with the tree's library installed: bash bench/btree_cache.sh
# Output: bench/results/btree_cache.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
ver=$(pg_config --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
port=5497
cluster=btreecache
out=bench/results/btree_cache.txt
make -s install >/dev/null
chmod -R a+rX . 2>/dev/null || true
pg_dropcluster --stop "$ver" "$cluster" 2>/dev/null || true
pg_createcluster "$ver" "$cluster" -p "$port" -- -A trust >/dev/null
trap 'pg_dropcluster --stop "$ver" "$cluster" 2>/dev/null || true' EXIT
cat >>"/etc/postgresql/$ver/$cluster/postgresql.conf" <<EOF
shared_preload_libraries = 'bloomfilter'
shared_buffers = 2GB
jit = off
max_parallel_workers_per_gather = 0
EOF
pg_ctlcluster "$ver" "$cluster" start
psql_() { su postgres -c "psql -p $port -X -q -v ON_ERROR_STOP=1 $*"; }

psql_ >/dev/null <<'EOF'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION pg_prewarm;
CREATE TABLE item AS SELECT g AS i_item_sk FROM generate_series(1, 18000) g;
ALTER TABLE item ADD PRIMARY KEY (i_item_sk);
CREATE TABLE ss (ss_sold_date_sk int, ss_item_sk int, ss_ticket int, ss_price numeric)
  PARTITION BY RANGE (ss_sold_date_sk);
DO $$ BEGIN FOR m IN 0..59 LOOP
  EXECUTE format('CREATE TABLE ss_%s PARTITION OF ss FOR VALUES FROM (%s) TO (%s)', m,
     (date '1998-01-01' + make_interval(months => m))::date - date '1900-01-01',
     (date '1998-01-01' + make_interval(months => m + 1))::date - date '1900-01-01');
END LOOP; END $$;
CREATE TABLE ss_def PARTITION OF ss DEFAULT;
INSERT INTO ss SELECT (date '1998-01-01' - date '1900-01-01') + (g % 1826),
                      1 + (hashint4(g) & 2147483647) % 18000, g, (g % 100)::numeric
  FROM generate_series(1, 3000000) g;
CREATE INDEX ON ss (ss_item_sk, ss_ticket);
VACUUM ANALYZE item, ss;
EOF

# one query's time in ms: $1 the settings, $2 k
timed() {
	printf '%s\n' "SET enable_nestloop = off; SET enable_mergejoin = off; $1" '\timing on' '\o /dev/null' \
		"SELECT count(*), sum(ss_price) FROM ss JOIN item ON ss_item_sk = i_item_sk WHERE i_item_sk % 18000 < $2;" \
		>/tmp/btree_cache.sql
	chmod a+r /tmp/btree_cache.sql
	psql_ -f /tmp/btree_cache.sql | sed -nE 's/^Time: ([0-9.]+) ms.*/\1/p' | tail -n 1
}
# partitions the model read through the B-tree, for k keys
chosen() {
	psql_ -At <<EOF
SET enable_nestloop = off; SET enable_mergejoin = off;
CREATE TEMP TABLE p AS SELECT 1;
DO \$\$ DECLARE plan jsonb; BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) SELECT count(*), sum(ss_price) FROM ss JOIN item ON ss_item_sk = i_item_sk WHERE i_item_sk % 18000 < $1' INTO plan;
  RAISE NOTICE '%', (SELECT count(*) FROM jsonb_path_query(plan, 'strict \$.**') n
                      WHERE jsonb_typeof(n) = 'object' AND n ? 'Read Through B-tree');
END \$\$;
EOF
}
median() { sort -n | sed -n 2p; }
cold() {
	pg_ctlcluster "$ver" "$cluster" stop
	sync
	echo 3 >/proc/sys/vm/drop_caches
	pg_ctlcluster "$ver" "$cluster" start
}
modes=(cached)
if (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then modes+=(disk); fi
{
	echo "# bench/btree_cache.sh, $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src core || echo '+changes'), $(date -u +%F), PostgreSQL $ver"
	echo "# median of 3 runs, ms; 'read by B-tree' is the model's choice, partitions of 61"
	printf '%-7s %6s %9s %9s %9s %8s %8s  %s\n' mode keys off btree model model/off btree/off "read by B-tree"
	for mode in "${modes[@]}"; do
		[ "$mode" = cached ] && psql_ -c "\"SELECT count(pg_prewarm(oid)) FROM pg_class WHERE relname ~ '^(ss|item)' AND relkind IN ('r', 'i')\"" >/dev/null
		for k in 1 10 30 100 180 400 1000; do
			declare -A t=()
			for way in off btree model; do
				case $way in
				off) set_="SET bloomfilter.runtime_filter = off;" ;;
				btree) set_="SET bloomfilter.runtime_filter_force = on;" ;;
				model) set_="" ;;
				esac
				t[$way]=$(for rep in 1 2 3; do
					[ "$mode" = disk ] && cold
					timed "$set_" "$k"
				done | median)
			done
			[ "$mode" = disk ] && cold
			picked=$(chosen "$k" 2>&1 | sed -nE 's/.*NOTICE: +([0-9]+).*/\1/p')
			awk -v mode="$mode" -v k="$k" -v off="${t[off]}" -v bt="${t[btree]}" -v model="${t[model]}" -v picked="$picked" \
				'BEGIN { printf "%-7s %6d %9.1f %9.1f %9.1f %8.2f %8.2f  %s\n", mode, k, off, bt, model, model / off, bt / off, picked }'
		done
	done
} | tee "$out"
