-- bench/skip.sql: runtime filters that skip what they would throw away
-- (1.8): partitions whose bounds hold no built key, and block ranges whose
-- BRIN summary holds none.  One process unless a case says otherwise, JIT
-- off; the setting on against off, alternating (off first in odd runs, on
-- first in even ones), medians of 5 runs per setting.
--
-- Besides the times, what each query read, which does not vary with the
-- machine's load: the relation scans that ran (EXPLAIN ANALYZE's loops > 0)
-- and the heap and index blocks they touched (shared hit + read).
--
-- The cases (the issue's figures):
--   month         36 monthly range partitions (and a default), 3.6M rows,
--                 joined to a date dimension picking one month
--   year_misled   the same fact joined to a 200-year date table filtered to
--                 one of the fact's 3 years: the planner expects 0.5 % of the
--                 fact's rows to match, a third do
--   list_two      20 list partitions (regions), a dimension picking 2
--   hash_five     16 hash partitions, 5 keys
--   brin_ordered  a 3.6M-row table in date order, BRIN on the date, one
--                 month of 36
--   brin_random   the same rows in random order (BRIN useless)
--   btree_ordered the rows of brin_ordered with a B-tree on the date instead,
--                 joined to dates the planner cannot estimate (a third of the
--                 200 years, it guesses; 547 dates qualify, 15 in the fact's
--                 years): it plans a hash join, and the keys' rows are read
--                 through the B-tree
--   btree_random  the same in random order: the cost model keeps the whole
--                 table (the keys' rows are spread over every page)
--   star          the monthly fact, a date dimension (one month) and a
--                 region dimension (2 of 20); star_parallel: with 2 workers
--                 (each builds its own hash tables: Parallel Hash off, as a
--                 Parallel Hash Join's processes hold a share of the keys)
-- Then planning plus executor start-up of the month query, two ways; and a
-- foreign table never analyzed locally (postgres_fdw on loopback, with
-- use_remote_estimate), whose estimate says every row matches.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET work_mem = '256MB';
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = warning;
LOAD 'bloomfilter';

DROP TABLE IF EXISTS sk_fact, sk_dates, sk_regions, sk_sales, sk_events, sk_picks, sk_ordered,
  sk_random, sk_bt_ordered, sk_bt_random, sk_btree CASCADE;
CREATE TABLE sk_fact (d date, region text, amount int) PARTITION BY RANGE (d);
DO $$ BEGIN FOR m IN 0..35 LOOP
  EXECUTE format('CREATE TABLE sk_fact_%s PARTITION OF sk_fact FOR VALUES FROM (%L) TO (%L)', m,
                 date '2020-01-01' + make_interval(months => m),
                 date '2020-01-01' + make_interval(months => m + 1));
END LOOP; END $$;
CREATE TABLE sk_fact_default PARTITION OF sk_fact DEFAULT;
INSERT INTO sk_fact
  SELECT date '2020-01-01' + (g % 1096)::int, 'r' || (g % 20), g % 1000 FROM generate_series(1, 3600000) g;
CREATE TABLE sk_dates AS
  SELECT d::date AS d, extract(year FROM d)::int AS y, extract(month FROM d)::int AS m
    FROM generate_series(date '1900-01-01', date '2099-12-31', '1 day') d;
CREATE TABLE sk_regions AS SELECT 'r' || g AS region, g AS n FROM generate_series(0, 19) g;

CREATE TABLE sk_sales (region text, amount int) PARTITION BY LIST (region);
DO $$ BEGIN FOR r IN 0..19 LOOP
  EXECUTE format('CREATE TABLE sk_sales_%s PARTITION OF sk_sales FOR VALUES IN (%L)', r, 'r' || r);
END LOOP; END $$;
INSERT INTO sk_sales SELECT region, amount FROM sk_fact;

CREATE TABLE sk_events (k int, amount int) PARTITION BY HASH (k);
DO $$ BEGIN FOR r IN 0..15 LOOP
  EXECUTE format('CREATE TABLE sk_events_%s PARTITION OF sk_events FOR VALUES WITH (MODULUS 16, REMAINDER %s)', r, r);
END LOOP; END $$;
INSERT INTO sk_events SELECT g % 100000, g % 1000 FROM generate_series(1, 3600000) g;
CREATE TABLE sk_picks AS SELECT g AS k, g % 20000 AS grp FROM generate_series(0, 99999) g;

CREATE TABLE sk_ordered AS SELECT d, region, amount FROM sk_fact ORDER BY d;
CREATE TABLE sk_random AS SELECT d, region, amount FROM sk_fact ORDER BY hashint4(amount) # hashtext(region) # hashint4(d - date '2000-01-01');
CREATE INDEX sk_ordered_d ON sk_ordered USING brin (d);
CREATE INDEX sk_random_d ON sk_random USING brin (d);
CREATE TABLE sk_bt_ordered AS SELECT * FROM sk_ordered;
CREATE TABLE sk_bt_random AS SELECT * FROM sk_random;
CREATE INDEX sk_bt_ordered_d ON sk_bt_ordered (d);
CREATE INDEX sk_bt_random_d ON sk_bt_random (d);
VACUUM ANALYZE sk_fact, sk_dates, sk_regions, sk_sales, sk_events, sk_picks, sk_ordered, sk_random,
  sk_bt_ordered, sk_bt_random;

CREATE TEMP TABLE runs (name text, setting text, ms float8, result text);
CREATE TEMP TABLE queries (ord int, name text, q text, workers int DEFAULT 0);
INSERT INTO queries VALUES
  (1, 'month', 'SELECT count(*), sum(amount) FROM sk_fact f JOIN sk_dates d USING (d) WHERE d.y = 2021 AND d.m = 3', 0),
  (2, 'year_misled', 'SELECT count(*), sum(amount) FROM sk_fact f JOIN sk_dates d USING (d) WHERE d.y = 2021', 0),
  (3, 'list_two', 'SELECT count(*), sum(amount) FROM sk_sales s JOIN sk_regions r USING (region) WHERE r.n IN (3, 7)', 0),
  (4, 'hash_five', 'SELECT count(*), sum(amount) FROM sk_events e JOIN sk_picks p USING (k) WHERE p.grp = 17 AND p.k < 100000', 0),
  (5, 'brin_ordered', 'SELECT count(*), sum(amount) FROM sk_ordered o JOIN sk_dates d USING (d) WHERE d.y = 2021 AND d.m = 3', 0),
  (6, 'brin_random', 'SELECT count(*), sum(amount) FROM sk_random o JOIN sk_dates d USING (d) WHERE d.y = 2021 AND d.m = 3', 0),
  (7, 'star', 'SELECT count(*), sum(amount) FROM sk_fact f JOIN sk_dates d USING (d) JOIN sk_regions r USING (region) WHERE d.y = 2021 AND d.m = 3 AND r.n IN (3, 7)', 0),
  (8, 'star_parallel', 'SELECT count(*), sum(amount) FROM sk_fact f JOIN sk_dates d USING (d) JOIN sk_regions r USING (region) WHERE d.y = 2021 AND d.m = 3 AND r.n IN (3, 7)', 2),
  (9, 'btree_ordered', 'SELECT count(*), sum(amount) FROM sk_bt_ordered o JOIN sk_dates d USING (d) WHERE (d.d - date ''1900-01-01'') % 2000 < 15', 0),
  (10, 'btree_random', 'SELECT count(*), sum(amount) FROM sk_bt_random o JOIN sk_dates d USING (d) WHERE (d.d - date ''1900-01-01'') % 2000 < 15', 0);

\ir timing.sql

CREATE FUNCTION pg_temp.explain_json(q text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ' || q INTO plan;
    RETURN plan;
END $$;

-- Each query's plan settings: workers, and no Parallel Hash with workers.
CREATE FUNCTION pg_temp.plan_settings(workers int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('max_parallel_workers_per_gather', workers::text, false);
    PERFORM set_config('enable_parallel_hash', CASE WHEN workers > 0 THEN 'off' ELSE 'on' END, false);
    PERFORM set_config('parallel_setup_cost', CASE WHEN workers > 0 THEN '0' ELSE '1000' END, false);
END $$;

DO $$
DECLARE
    qq record;
BEGIN
    FOR qq IN SELECT * FROM queries ORDER BY ord LOOP
        PERFORM pg_temp.plan_settings(qq.workers);
        PERFORM pg_temp.timed_on_off(qq.name, qq.q, 5);
    END LOOP;
    PERFORM pg_temp.plan_settings(0);
END $$;

-- What a query read: relation scans run, and their blocks (shared hit + read).
CREATE FUNCTION pg_temp.reads(q text, setting text, workers int, OUT scans bigint, OUT blocks bigint,
                              OUT skipped text) LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    PERFORM pg_temp.plan_settings(workers);
    PERFORM set_config('bloomfilter.runtime_filter', setting, false);
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, TIMING OFF) ' || q INTO plan;
    -- scans that read their relation: run, and not skipped whole (a BloomFilterScan that skipped says "1 of 1")
    SELECT count(*) FILTER (WHERE (n->>'Actual Loops')::bigint > 0
                              AND coalesce(n->>'Partition Scans Skipped' !~ '^(\d+) of \1$', true)),
           sum((n->>'Shared Hit Blocks')::bigint + (n->>'Shared Read Blocks')::bigint)
      INTO scans, blocks
      FROM jsonb_path_query(plan, 'strict $.**') AS n
     WHERE jsonb_typeof(n) = 'object' AND n ? 'Relation Name' AND n->>'Relation Name' NOT IN ('sk_dates', 'sk_regions', 'sk_picks');
    -- the builds' partition scans skipped; the BRIN scans' blocks read
    SELECT string_agg(CASE WHEN n->>'Custom Plan Provider' = 'BloomFilterBuild'
                           THEN 'partition scans skipped ' || (n->>'Partition Scans Skipped')
                           ELSE coalesce('heap blocks read ' || (n->>'Heap Blocks Read'),
                                         'read through the B-tree: ' || (n->>'Read Through B-tree'),
                                         'whole table read: ' || (n->>'Whole Table Read')) END, '; ')
      INTO skipped
      FROM jsonb_path_query(plan, 'strict $.**') AS n
     WHERE jsonb_typeof(n) = 'object'
       AND (n->>'Custom Plan Provider' = 'BloomFilterBuild' AND n ? 'Partition Scans Skipped'
            OR n ? 'Heap Blocks Read' OR n ? 'Whole Table Read' OR n ? 'Read Through B-tree');
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
    PERFORM pg_temp.plan_settings(0);
END $$;

\echo '== every run (ms)'
SELECT name, setting, round(ms) AS ms, result FROM runs ORDER BY name, setting;

\echo '== medians (ms) of 5 runs per setting; speedup = off / on; scans and blocks: the fact side''s relation scans that ran, and the blocks they touched'
WITH med AS (
  SELECT name, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
         min(result) AS result, count(DISTINCT result) AS results
    FROM runs GROUP BY 1, 2)
SELECT q.name, round(f.ms) AS off_ms, round(n.ms) AS on_ms, round((f.ms / n.ms)::numeric, 2) AS speedup,
       f.result = n.result AND f.results = 1 AND n.results = 1 AS same_result,
       ro.scans AS scans_off, rn.scans AS scans_on, ro.blocks AS blocks_off, rn.blocks AS blocks_on,
       rn.skipped AS on_explain
  FROM queries q JOIN med f ON f.name = q.name AND f.setting = 'off'
  JOIN med n ON n.name = q.name AND n.setting = 'on',
  LATERAL pg_temp.reads(q.q, 'off', q.workers) ro, LATERAL pg_temp.reads(q.q, 'on', q.workers) rn
 ORDER BY q.ord;

\echo '== the planner''s estimate of year_misled''s matching fact rows, and the truth'
SELECT round(100.0 * (plan->0->'Plan'->'Plans'->0->>'Plan Rows')::numeric
             / (SELECT count(*) FROM sk_fact), 1) AS estimated_pct,
       round(100.0 * (plan->0->'Plan'->'Plans'->0->>'Actual Rows')::numeric
             / (SELECT count(*) FROM sk_fact), 1) AS actual_pct
  FROM (SELECT pg_temp.explain_json('SELECT count(*) FROM sk_fact f JOIN sk_dates d USING (d) WHERE d.y = 2021') AS plan) x;

\echo '== planning plus executor start-up of the month query, 37 partitions, medians of 6 blocks of 50 per setting, alternating'
\echo '   explain: EXPLAIN without ANALYZE (plans, starts and ends the executor, prints the plan: our nodes print too)'
\echo '   nothing_read: the query run against a month-start dimension selecting no row (month 13), so that the join reads no fact row (plans, starts, runs an empty build, ends)'
CREATE TABLE sk_month_starts AS SELECT d, y, m FROM sk_dates WHERE extract(day FROM d) = 1;
ANALYZE sk_month_starts;
-- glibc's malloc raises its mmap and trim thresholds once a large block is
-- freed; until then each query's memory is handed back to the kernel and
-- faulted in again, which in a fresh session made the setting that ran
-- after the other's larger queries look 30% faster.  One large allocation
-- first puts both settings in the state of a backend that has run anything
-- big (as every earlier case here has).
SELECT length(repeat('x', 20000000)) AS malloc_warmed \g /dev/null
CREATE TEMP TABLE startup (way text, setting text, ms float8);
DO $$
DECLARE
    qs text[] := ARRAY['explain', 'EXPLAIN SELECT count(*), sum(amount) FROM sk_fact f JOIN sk_dates d USING (d) WHERE d.y = 2021 AND d.m = 3',
                       'nothing_read', 'SELECT count(*), sum(amount) FROM sk_fact f JOIN sk_month_starts d USING (d) WHERE d.y = 2050 AND d.m = 13'];
    s text;
    t0 timestamptz;
    line text;
BEGIN
    FOR w IN 0..1 LOOP
        FOR rep IN 1..6 LOOP
            FOREACH s IN ARRAY CASE WHEN rep % 2 = 1 THEN ARRAY['off', 'on'] ELSE ARRAY['on', 'off'] END LOOP
                PERFORM set_config('bloomfilter.runtime_filter', s, false);
                t0 := clock_timestamp();
                FOR i IN 1..50 LOOP
                    FOR line IN EXECUTE qs[2 * w + 2] LOOP END LOOP;
                END LOOP;
                INSERT INTO startup VALUES (qs[2 * w + 1], s, extract(epoch FROM clock_timestamp() - t0) * 1000 / 50);
            END LOOP;
        END LOOP;
    END LOOP;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
END $$;
SELECT way, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE setting = 'off')::numeric, 3) AS off_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE setting = 'on')::numeric, 3) AS on_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE setting = 'on')
              / percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE setting = 'off'))::numeric, 3) AS on_over_off
  FROM startup GROUP BY way ORDER BY way;
SELECT line AS nothing_read_plan FROM (SELECT pg_temp.explain_json('SELECT count(*), sum(amount) FROM sk_fact f JOIN sk_month_starts d USING (d) WHERE d.y = 2050 AND d.m = 13') AS plan) x,
  LATERAL (SELECT DISTINCT n->>'Node Type' || coalesce(' (' || (n->>'Custom Plan Provider') || ')', '') AS line
             FROM jsonb_path_query(x.plan, 'strict $.**') AS n
            WHERE jsonb_typeof(n) = 'object' AND n ? 'Node Type') l;

\echo '== a foreign table with no local statistics (postgres_fdw, loopback, use_remote_estimate): 2M rows, 199k local keys, 6% of the rows matching'
\echo '   remote_rows: the rows the remote side sent; median ms of 5 runs per setting, alternating'
CREATE EXTENSION IF NOT EXISTS bloomfilter;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
\getenv pgport PGPORT
\getenv pgpassword PGPASSWORD
\getenv pguser PGUSER
SELECT current_database() AS db \gset
DROP SERVER IF EXISTS sk_loopback CASCADE;
CREATE SERVER sk_loopback FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host 'localhost', port :'pgport', dbname :'db', extensions 'bloomfilter', use_remote_estimate 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER sk_loopback OPTIONS (user :'pguser', password :'pgpassword');
DROP TABLE IF EXISTS sk_remote, sk_lkeys;
CREATE TABLE sk_remote AS SELECT g::int8 AS k, 'payload ' || g AS payload FROM generate_series(1, 2000000) g;
CREATE TABLE sk_lkeys AS SELECT g::int8 * 16 + 1 AS k FROM generate_series(0, 119999) g
  UNION ALL SELECT -g::int8 FROM generate_series(1, 79000) g;
VACUUM ANALYZE sk_remote, sk_lkeys;
CREATE FOREIGN TABLE sk_ft_nostats (k int8, payload text) SERVER sk_loopback OPTIONS (table_name 'sk_remote');
CREATE FOREIGN TABLE sk_ft_stats (k int8, payload text) SERVER sk_loopback OPTIONS (table_name 'sk_remote');
ANALYZE sk_ft_stats;
CREATE FUNCTION pg_temp.remote_rows(q text, setting text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    PERFORM set_config('bloomfilter.runtime_filter', setting, false);
    plan := pg_temp.explain_json(q);
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
    RETURN (SELECT sum((n->>'Actual Rows')::bigint * (n->>'Actual Loops')::bigint)
              FROM jsonb_path_query(plan, 'strict $.**') AS n
             WHERE jsonb_typeof(n) = 'object' AND n->>'Node Type' = 'Foreign Scan');
END $$;
TRUNCATE runs;
CREATE TEMP TABLE fdw_queries (name text, q text);
INSERT INTO fdw_queries VALUES
  ('no_statistics', 'SELECT count(*), sum(length(f.payload)) FROM sk_ft_nostats f JOIN sk_lkeys l ON f.k = l.k'),
  ('statistics', 'SELECT count(*), sum(length(f.payload)) FROM sk_ft_stats f JOIN sk_lkeys l ON f.k = l.k');
SELECT pg_temp.timed_on_off(name, q, 5) FROM fdw_queries \g /dev/null
WITH med AS (
  SELECT name, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
         min(result) AS result, count(DISTINCT result) AS results
    FROM runs GROUP BY 1, 2)
SELECT q.name, round(f.ms) AS off_ms, round(n.ms) AS on_ms, round((f.ms / n.ms)::numeric, 2) AS speedup,
       f.result = n.result AND f.results = 1 AND n.results = 1 AS same_result,
       pg_temp.remote_rows(q.q, 'off') AS remote_rows_off, pg_temp.remote_rows(q.q, 'on') AS remote_rows_on
  FROM fdw_queries q JOIN med f ON f.name = q.name AND f.setting = 'off'
  JOIN med n ON n.name = q.name AND n.setting = 'on'
 ORDER BY q.name;

