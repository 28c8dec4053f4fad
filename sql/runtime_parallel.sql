--
-- Runtime filters in parallel plans: a BloomFilterScan in place of a
-- Parallel Seq Scan (src/runtime/exec/scanshare.c).  Its processes agree on
-- how the table is read (the first to start decides), then share it out:
-- BRIN block ranges claimed one by one, buckets of keys looked up in a
-- B-tree, or PostgreSQL's own parallel heap scan.  Each process builds the
-- join's hash table whole (the join is not a Parallel Hash Join).
--
-- Every query runs with filters on and off and the rows are compared.  The
-- figures shown are every process's summed (how many workers start varies
-- from run to run; the sums do not): the blocks of the ranges read and of
-- the ranges claimed (every range is claimed once: the table's blocks), or
-- the keys looked up.
--
LOAD 'bloomfilter';
CREATE SCHEMA runtime_parallel;
SET search_path = runtime_parallel, public;
SET jit = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0.01;
SET min_parallel_table_scan_size = 0;
-- a Parallel Hash Join's processes each hold a share of the keys: no skipping by them (yet)
SET enable_parallel_hash = off;

-- Rows on and off, compared; what each BloomFilterScan read, summed over its processes.
CREATE FUNCTION rf_par(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    with_filters text;
    without text;
    plan jsonb;
    scans text;
    shares_ok bool;
BEGIN
    PERFORM set_config('bloomfilter.runtime_filter', 'on', true);
    EXECUTE format('SELECT md5(coalesce(string_agg(r::text, '','' ORDER BY r::text), '''')) FROM (%s) r', q)
       INTO with_filters;
    EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
    SELECT string_agg(format('%sBloomFilterScan read %s',
                             CASE WHEN (n->>'Parallel Aware')::bool THEN 'Parallel ' ELSE '' END,
                             concat_ws(', ', n->>'Heap Blocks Read' || ' blocks',
                                       (n->>'Read Through B-tree') || ' through the B-tree',
                                       'the whole table: ' || (n->>'Whole Table Read'),
                                       CASE WHEN n ? 'Partition Scans Skipped' THEN 'skipped ' || (n->>'Partition Scans Skipped') END)),
                      '; ' ORDER BY ord)
      INTO scans
      FROM jsonb_path_query(plan, 'strict $.**') WITH ORDINALITY AS x(n, ord)
     WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'BloomFilterScan'
       AND (n->>'Actual Loops')::bigint > 0;
    -- each worker's share (VERBOSE) is within the whole, and the leader's is the rest
    SELECT count(*) FILTER (WHERE w.read > w.claimed OR w.claimed > t.claimed OR w.keys > t.keys) = 0
           AND coalesce(bool_and(t.claimed >= t.sum_claimed AND t.keys >= t.sum_keys), true)
      INTO shares_ok
      FROM (SELECT n, coalesce(split_part(n->>'Heap Blocks Read', ' of ', 2)::bigint, 0) AS claimed,
                   coalesce(split_part(n->>'Read Through B-tree', ' ', 1)::bigint, 0) AS keys,
                   (SELECT coalesce(sum(split_part(w->>'Heap Blocks Read', ' of ', 2)::bigint), 0)
                      FROM jsonb_array_elements(n->'Runtime Filter Workers') w) AS sum_claimed,
                   (SELECT coalesce(sum(split_part(w->>'Read Through B-tree', ' ', 1)::bigint), 0)
                      FROM jsonb_array_elements(n->'Runtime Filter Workers') w) AS sum_keys
              FROM jsonb_path_query(plan, 'strict $.**') AS x(n)
             WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'BloomFilterScan'
               AND (n->>'Actual Loops')::bigint > 0) t
      LEFT JOIN LATERAL (SELECT coalesce(split_part(w->>'Heap Blocks Read', ' of ', 1)::bigint, 0) AS read,
                                coalesce(split_part(w->>'Heap Blocks Read', ' of ', 2)::bigint, 0) AS claimed,
                                coalesce(split_part(w->>'Read Through B-tree', ' ', 1)::bigint, 0) AS keys
                           FROM jsonb_array_elements(coalesce(t.n->'Runtime Filter Workers', '[]')) w) w ON true;
    PERFORM set_config('bloomfilter.runtime_filter', 'off', true);
    EXECUTE format('SELECT md5(coalesce(string_agg(r::text, '','' ORDER BY r::text), '''')) FROM (%s) r', q)
       INTO without;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', true);
    -- the blocks claimed: the log's (its length differs between versions), once per run
    scans := replace(scans, ' of ' || pg_relation_size('log') / 8192 || ' blocks', ' of the log''s blocks');
    scans := replace(scans, ' of ' || 3 * pg_relation_size('log') / 8192 || ' blocks', ' of 3 x the log''s blocks');
    RETURN CASE WHEN with_filters = without THEN 'same rows' ELSE 'ROWS DIFFER' END
           || CASE WHEN shares_ok THEN '' ELSE '; WORKERS'' SHARES EXCEED THE WHOLE' END
           -- (how many processes scanned varies)
           || '; ' || coalesce(regexp_replace(scans, ' \(\d+ of \d+ scans\)', '', 'g'), 'no BloomFilterScan ran');
END $$;

-- The plan, its figures that vary from run to run masked.
CREATE FUNCTION explain_par(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, BUFFERS OFF, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
        -- (each worker's share, and whether it started, vary: rf_par checks the shares)
        -- (nor are the estimates from a sample of the rows)
        CONTINUE WHEN line ~ '^\s+(Output|Buffers|Worker \d+:|Planned (Outer|Inner|Pass))|Workers Launched|Filter Builds|Build Time|Memory Usage';
        line := regexp_replace(line, 'actual rows=[0-9.]+ loops=\d+', 'actual rows=N loops=N');
        line := regexp_replace(line, '(Heap Blocks Read: \d+) of ' || pg_relation_size('log') / 8192 || '$', '\1 of the log''s');
        line := regexp_replace(line, '(Heap Blocks Read: \d+) of ' || 3 * pg_relation_size('log') / 8192 || '$', '\1 of 3 x the log''s');
        line := regexp_replace(line, '(Planned Skip: [a-z ]+), \d+ of \d+', '\1, n of m');
        line := regexp_replace(line, ', \d+ expected read', ', n expected read');
        RETURN NEXT line;
    END LOOP;
END $$;

-- A log in date order, BRIN-indexed on the date, and a date dimension.
CREATE TABLE dim AS
  SELECT d::date AS d, extract(year FROM d)::int AS y, extract(month FROM d)::int AS m
    FROM generate_series(date '2020-01-01', date '2023-12-31', interval '1 day') d;
CREATE TABLE log AS
  SELECT dim.d, (hashint4(i + extract(doy FROM dim.d)::int) & 1023) AS v, i
    FROM dim, generate_series(1, 40) i ORDER BY dim.d, i;
CREATE INDEX log_d ON log USING brin (d) WITH (pages_per_range = 4);
-- items and their sales, in no order, with a B-tree on the item
CREATE TABLE items AS SELECT g AS item, g % 100 AS grp FROM generate_series(1, 5000) g;
CREATE TABLE sales AS
  SELECT 1 + (hashint4(g) & 2147483647) % 5000 AS item, g AS v FROM generate_series(1, 100000) g;
CREATE INDEX sales_item ON sales (item);
ANALYZE dim, log, items, sales;
SELECT relpages > 300 AS log_is_large,
       (SELECT relpages > 300 FROM pg_class WHERE oid = 'sales'::regclass) AS sales_is_large
  FROM pg_class WHERE oid = 'log'::regclass;

-- One month of four years: the processes claim the ranges, and read the month's.
SELECT line FROM explain_par('SELECT count(*), sum(log.v) FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS line;
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS brin_month;
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y = 2022') AS brin_year;
SELECT rf_par('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.d IN (''2020-01-05'', ''2023-12-30'')') AS brin_two_days;
-- no key: no range is read
SELECT rf_par('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2050') AS brin_no_key;
-- most ranges may hold a key: the processes share PostgreSQL's parallel heap scan
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y IN (2020, 2021, 2023)') AS brin_most;

-- A few items' sales through the B-tree: the processes share the keys out in buckets.
SET bloomfilter.runtime_filter_force = on;
SELECT line FROM explain_par('SELECT count(*), sum(sales.v) FROM sales JOIN items USING (item) WHERE items.grp = 7') AS line;
SELECT rf_par('SELECT sales.v FROM sales JOIN items USING (item) WHERE items.grp = 7') AS btree_keys;
SELECT rf_par('SELECT sales.v FROM sales JOIN items USING (item) WHERE items.item = 4321') AS btree_one_key;
SELECT rf_par('SELECT sales.v FROM sales JOIN items USING (item) WHERE items.item < 0') AS btree_no_key;
-- a B-tree whose collation equates keys the join tells apart ('k1' and
-- 'K1'): the processes would look them up in two buckets and read their
-- rows twice; a parallel scan reads the table instead
CREATE COLLATION par_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE ikeys AS SELECT 'k' || g AS k FROM generate_series(1, 200) g;
INSERT INTO ikeys SELECT upper(k) FROM ikeys;
CREATE TABLE facts AS SELECT 'k' || (1 + g % 5000) AS k, g AS v FROM generate_series(1, 100000) g;
CREATE INDEX facts_k_ci ON facts (k COLLATE par_ci);
ANALYZE ikeys, facts;
SELECT rf_par('SELECT facts.v FROM facts JOIN ikeys USING (k)') AS btree_coarser_collation;
SET max_parallel_workers_per_gather = 0;
SELECT rf_par('SELECT facts.v FROM facts JOIN ikeys USING (k)') AS btree_coarser_collation_serial;
SET max_parallel_workers_per_gather = 2;
RESET bloomfilter.runtime_filter_force;

-- The leader only gathers; or no worker starts (the leader reads it all); or
-- PostgreSQL runs the serial plan in a worker.
SET parallel_leader_participation = off;
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS leader_not_participating;
RESET parallel_leader_participation;
SET max_parallel_workers = 0;
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS no_worker_started;
SET bloomfilter.runtime_filter_force = on;
SELECT rf_par('SELECT sales.v FROM sales JOIN items USING (item) WHERE items.grp = 7') AS no_worker_started_btree;
RESET bloomfilter.runtime_filter_force;
RESET max_parallel_workers;
SET max_parallel_workers_per_gather = 0;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) IS NOT NULL AS forced;
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS serial_plan_in_a_worker;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false) IS NOT NULL AS unforced;
SET max_parallel_workers_per_gather = 2;

-- A Gather run again (a subplan run for each row): the processes decide
-- again, and every run reads the month (three runs: 3 x 12 blocks).
SELECT regexp_replace(line, 'rows=\d+ ', '') FROM explain_par('SELECT x, (SELECT n FROM (SELECT count(*) AS n FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3) s WHERE n > x) FROM (VALUES (1), (2), (3)) v(x)') AS line
 WHERE line ~ 'SubPlan|Gather|BloomFilterScan|Heap Blocks';
SELECT rf_par('SELECT x, (SELECT n FROM (SELECT count(*) AS n FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3) s WHERE n > x) FROM (VALUES (1), (2), (3)) v(x)') AS gather_rescanned;

-- Under a Parallel Hash Join (1.12) each process hashes a share of the
-- inner side.  The filter is made once, of every share, sized for all of
-- them as a serial build is; every process merges the shares' key values,
-- so the scans skip as above.
SET enable_parallel_hash = on;
SELECT line FROM explain_par('SELECT count(*), sum(log.v) FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS line
 WHERE line ~ 'Parallel Hash|BloomFilter|Heap Blocks|Filter (Shared|Keys)';
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS shared_brin_month;
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y IN (2020, 2023) AND dim.m IN (1, 12)') AS shared_brin_months;
SELECT rf_par('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2050') AS shared_no_key;
SET bloomfilter.runtime_filter_force = on;
SELECT rf_par('SELECT sales.v FROM sales JOIN items USING (item) WHERE items.grp = 7') AS shared_btree_keys;
-- the shared filter's size is the serial one's: sized for every share's keys
CREATE FUNCTION filter_size(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
    RETURN (SELECT string_agg(concat_ws(' ', n->>'Node Type', n->>'Filter Keys', 'keys in',
                                        n->>'Filter Size', 'kB', n->>'Filter Shared'), '; ')
              FROM jsonb_path_query(plan, 'strict $.**') AS x(n)
             WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'BloomFilterBuild');
END $$;
SELECT filter_size('SELECT count(*) FROM sales JOIN items USING (item) WHERE items.grp < 40') AS parallel_hash_filter;
SET max_parallel_workers_per_gather = 0;
SELECT filter_size('SELECT count(*) FROM sales JOIN items USING (item) WHERE items.grp < 40') AS serial_filter;
SET max_parallel_workers_per_gather = 2;
-- shares past the pending hashes' room (64 kB: 16,384 hashes) give filters
-- of the largest size, ORed into the shared one; and a hash join of many
-- batches reads every inner row before any is probed
CREATE TABLE big AS SELECT g AS item, g % 7 AS grp FROM generate_series(1, 90000) g;
ANALYZE big;
SET bloomfilter.runtime_filter_max_size = '64kB';
SELECT rf_par('SELECT sales.v FROM sales JOIN big USING (item) WHERE big.grp <> 3') AS shared_filter_shares;
SELECT filter_size('SELECT count(*) FROM sales JOIN big USING (item) WHERE big.grp <> 3') AS largest_filter;
RESET bloomfilter.runtime_filter_max_size;
SET work_mem = '64kB';
SELECT rf_par('SELECT sales.v FROM sales JOIN big USING (item) WHERE big.grp <> 3') AS shared_many_batches;
RESET work_mem;
RESET bloomfilter.runtime_filter_force;
-- the leader only gathers; no worker starts; the Gather run again
SET parallel_leader_participation = off;
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS shared_leader_not_participating;
RESET parallel_leader_participation;
SET max_parallel_workers = 0;
SELECT rf_par('SELECT log.v, log.i FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS shared_no_worker_started;
RESET max_parallel_workers;
SELECT rf_par('SELECT x, (SELECT n FROM (SELECT count(*) AS n FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3) s WHERE n > x) FROM (VALUES (1), (2), (3)) v(x)') AS shared_gather_rescanned;
-- ... with other keys at each run, and the leader reaching the join after
-- the workers' build (it builds nothing: its hash table may come back at
-- the same address): each run decides for its own build.  Every month of
-- March holds 1,240 rows (a hostile review found 960, 760, 1160).
CREATE TABLE one AS SELECT 1 AS a;
ALTER TABLE one SET (parallel_workers = 0);
ANALYZE one;
CREATE FUNCTION leader_slow(i int) RETURNS bool LANGUAGE plpgsql STABLE PARALLEL SAFE COST 1 AS $$
BEGIN
    IF pg_backend_pid()::text = current_setting('bf.leader', true) THEN
        PERFORM pg_sleep(0.1);
    END IF;
    RETURN true;
END $$;
CREATE FUNCTION outer_slow(i int) RETURNS bool LANGUAGE plpgsql STABLE PARALLEL SAFE COST 1 AS $$
BEGIN
    PERFORM pg_sleep(0.0002);
    RETURN true;
END $$;
SET bloomfilter.runtime_filter_force = on;
SELECT set_config('bf.leader', pg_backend_pid()::text, false) IS NOT NULL AS leader_known;
SELECT t.x, (SELECT count(*) FROM log JOIN dim USING (d) JOIN one ON one.a = log.i % 1 + 1
              WHERE dim.y = (SELECT t.x) AND dim.m = 3 AND outer_slow(log.i)
                AND leader_slow(one.a) AND one.a <> (SELECT t.x)) AS march_rows
  FROM (VALUES (2020), (2022), (2021), (2023)) t(x);
RESET ALL;

DROP SCHEMA runtime_parallel CASCADE;
