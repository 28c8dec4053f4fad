#!/usr/bin/env bash
# bench/fdw_shards.sh: the distributed bloom join on three clusters on
# loopback — a coordinator and two shards, started here as the postgres user
# and stopped at the end.  `orders` (5,000,000 rows) is a table partitioned
# by range of customer_id whose two partitions are postgres_fdw foreign
# tables, one per shard; `customers` is local to the
# coordinator.  (customers: 100,000 ids.)  Reports, for the semi-join of orders with customers, the rows
# shipped from the shards and the time of: the plain join; the join with the
# filter applied on the coordinator (after shipping); the join with the
# filter pushed to the shards.  Run as root after tools/run.sh has installed
# the extension.  Writes bench/results/fdw_shards.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
bindir=$(/usr/lib/postgresql/15/bin/pg_config --bindir)
work=$(mktemp -d /tmp/bloom-shards.XXXXXX)
chown postgres "$work"
as_pg() { su postgres -s /bin/bash -c "$*"; }
ports=(55431 55432 55433) # coordinator, shard1, shard2
names=(coord shard1 shard2)
stop_all() {
	for n in "${names[@]}"; do
		[ -d "$work/$n" ] && as_pg "$bindir/pg_ctl -D $work/$n -m fast stop >/dev/null 2>&1" || true
	done
	rm -rf "$work"
}
trap stop_all EXIT
for i in 0 1 2; do
	as_pg "$bindir/initdb -D $work/${names[$i]} -A trust >/dev/null"
	as_pg "$bindir/pg_ctl -D $work/${names[$i]} -l $work/${names[$i]}.log -w -o \"-p ${ports[$i]} -k $work -c listen_addresses=127.0.0.1 -c jit=off -c max_parallel_workers_per_gather=0\" start >/dev/null"
done
sql() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -p "$1" -d postgres "${@:2}"; }

for i in 1 2; do
	lo=$(((i - 1) * 500000))
	sql "${ports[$i]}" -c "CREATE EXTENSION bloomfilter" -c "
	  CREATE TABLE orders_p$i AS
	    SELECT g AS id, ($lo + g::int8 * 7919 % 500000) AS customer_id, 'order ' || g AS payload
	      FROM generate_series(1, 2500000) g" -c "ANALYZE orders_p$i"
done
sql "${ports[0]}" <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '127.0.0.1', port '${ports[1]}', dbname 'postgres', extensions 'bloomfilter', fetch_size '10000');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '127.0.0.1', port '${ports[2]}', dbname 'postgres', extensions 'bloomfilter', fetch_size '10000');
CREATE USER MAPPING FOR postgres SERVER shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR postgres SERVER shard2 OPTIONS (user 'postgres');
CREATE TABLE orders (id int8, customer_id int8, payload text) PARTITION BY RANGE (customer_id);
CREATE FOREIGN TABLE orders_p1 PARTITION OF orders FOR VALUES FROM (0) TO (500000)
  SERVER shard1 OPTIONS (table_name 'orders_p1', use_remote_estimate 'true');
CREATE FOREIGN TABLE orders_p2 PARTITION OF orders FOR VALUES FROM (500000) TO (1000000)
  SERVER shard2 OPTIONS (table_name 'orders_p2', use_remote_estimate 'true');
CREATE TABLE customers AS SELECT (g * 10)::int8 AS id FROM generate_series(0, 99999) g;
ANALYZE customers;
CREATE TABLE filters AS SELECT 'customers'::text AS name, bloom_agg(id, 100000, 0.01) AS f FROM customers;

-- rows each foreign scan returned, and the time, for a query
CREATE FUNCTION measure(query text, OUT shipped bigint, OUT ms numeric, OUT result bigint)
LANGUAGE plpgsql AS \$\$
DECLARE
    line text;
    t0 timestamptz;
BEGIN
    shipped := 0;
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) ' || query LOOP
        IF line ~ 'Foreign Scan' THEN
            shipped := shipped + substring(line FROM 'actual rows=(\d+)')::bigint;
        END IF;
    END LOOP;
    t0 := clock_timestamp();
    EXECUTE query INTO result;
    ms := round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000);
END \$\$;
SQL

sql "${ports[0]}" <<'SQL' | tee bench/results/fdw_shards.txt
\pset footer off
\echo '== orders: 5,000,000 rows on two shards; customers: 100,000 ids (10% of orders match)'
CREATE TEMP TABLE results AS
SELECT i, plan, m.shipped AS rows_shipped, m.ms, m.result AS matching_orders
  FROM (VALUES
    (1, 'plain semi-join',
        'SELECT count(*) FROM orders o WHERE o.customer_id IN (SELECT id FROM customers)'),
    (2, 'filter on the coordinator',
        'SELECT count(*) FROM (SELECT * FROM orders OFFSET 0) o WHERE (SELECT f FROM filters) @> o.customer_id AND o.customer_id IN (SELECT id FROM customers)'),
    (3, 'filter pushed to the shards',
        'SELECT count(*) FROM orders o WHERE (SELECT f FROM filters) @> o.customer_id AND o.customer_id IN (SELECT id FROM customers)')
  ) q(i, plan, query), LATERAL measure(query) m;
SELECT plan, rows_shipped, ms, matching_orders FROM results ORDER BY i;
-- the recipe checks itself: same answer three ways, far fewer rows shipped
DO $$
BEGIN
    IF (SELECT count(DISTINCT matching_orders) FROM results) <> 1 THEN
        RAISE EXCEPTION 'the three plans disagree';
    END IF;
    IF (SELECT rows_shipped FROM results WHERE i = 3) * 5 > (SELECT rows_shipped FROM results WHERE i = 1) THEN
        RAISE EXCEPTION 'the pushed filter did not cut the rows shipped';
    END IF;
END $$;
\echo 'fdw_shards: ok'
\echo '== the pushed plan'
EXPLAIN (VERBOSE, COSTS OFF)
SELECT count(*) FROM orders o WHERE (SELECT f FROM filters) @> o.customer_id AND o.customer_id IN (SELECT id FROM customers);
SQL
