-- bench/runtime.sql: runtime join filters (bloomfilter.runtime_filter) on
-- against off, in one run, JIT off, one process and two workers.
--
--   semijoin   10,000,000 probe rows IN 1,000,000 build keys, 10 % matching;
--              also today's hand-written prefilter for comparison
--   small      the same probe rows IN 10,000 build keys (0.1 % matching): a
--              hash table that fits in the CPU cache
--   star       a 10,000,000-row fact table joined to two 1,000,000-key
--              dimension sets, each matching 10 % of the fact rows
--   spill      the semi-join with work_mem = 4MB: a multi-batch join; temp
--              blocks written, from EXPLAIN (ANALYZE, BUFFERS)
--   fk         a foreign-key join where every row matches (no filter is
--              expected: the estimate says 100 % match)
--   misled     the same join with a build side the planner estimates at
--              0.5 % of its rows: a filter is planned that removes nothing,
--              and the probe's switch must pause it
--
-- Each query runs 3 times per setting, alternating; the medians are compared.
-- work_mem is 2GB, so no join spills, except in "spill".
-- With two workers PostgreSQL picks Parallel Hash Joins, whose processes
-- share one filter; "2 workers, no parallel hash" has enable_parallel_hash
-- off, where every process builds its own filter.  The machine has 2 cores:
-- with the leader, 3 processes share them.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
-- every hash table in memory, as in semijoin.sql (the spill case sets 4MB)
SET work_mem = '2GB';
SET client_min_messages = warning;
LOAD 'bloomfilter';
CREATE EXTENSION IF NOT EXISTS bloomfilter;

DROP TABLE IF EXISTS rt_probe, rt_build, rt_build_small, rt_fact, rt_dim1, rt_dim2, rt_orders, rt_customers;
-- 10 % of the probe rows carry a key in 1..1,000,000 (a build key), the rest a negative one
CREATE TABLE rt_probe AS
  SELECT CASE WHEN (g * 2654435761 % 1000003) < 100000 THEN 1 + g % 1000000 ELSE -g END::int8 AS k,
         g AS payload
    FROM generate_series(1, 10000000) g;
CREATE TABLE rt_build AS SELECT g::int8 AS k FROM generate_series(1, 1000000) g;
CREATE TABLE rt_build_small AS SELECT g::int8 * 100 AS k FROM generate_series(1, 10000) g;
-- fact: d1 and d2 in 1..10,000,000; each dimension holds 1,000,000 of those values
CREATE TABLE rt_fact AS
  SELECT (g::int8 * 2654435761 % 10000000) + 1 AS d1, (g::int8 * 40503 % 10000000) + 1 AS d2, g AS amount
    FROM generate_series(1, 10000000) g;
CREATE TABLE rt_dim1 AS SELECT g * 10 AS k, g AS name FROM generate_series(1, 1000000) g;
CREATE TABLE rt_dim2 AS SELECT g * 10 - 3 AS k, g AS name FROM generate_series(1, 1000000) g;
CREATE TABLE rt_customers AS SELECT g AS id, g % 100 AS region FROM generate_series(1, 1000000) g;
CREATE TABLE rt_orders AS SELECT g AS id, 1 + (g::int8 * 7919) % 1000000 AS customer, g % 1000 AS amount
  FROM generate_series(1, 10000000) g;
VACUUM ANALYZE rt_probe, rt_build, rt_build_small, rt_fact, rt_dim1, rt_dim2, rt_orders, rt_customers;

CREATE TEMP TABLE runs (name text, workers text, setting text, ms float8, result text);
CREATE TEMP TABLE queries (name text, q text);
INSERT INTO queries VALUES
  ('semijoin', 'SELECT count(*) FROM rt_probe WHERE k IN (SELECT k FROM rt_build)'),
  ('small', 'SELECT count(*) FROM rt_probe WHERE k IN (SELECT k FROM rt_build_small)'),
  ('star', 'SELECT count(*), sum(amount) FROM rt_fact JOIN rt_dim1 ON rt_fact.d1 = rt_dim1.k JOIN rt_dim2 ON rt_fact.d2 = rt_dim2.k'),
  ('fk', 'SELECT count(*), sum(o.amount) FROM rt_orders o JOIN rt_customers c ON o.customer = c.id'),
  ('misled', 'SELECT count(*), sum(o.amount) FROM rt_orders o JOIN rt_customers c ON o.customer = c.id WHERE (c.region < 1000) = (c.id > 0)');

\ir timing.sql

DO $$
DECLARE
    w record;
    qq record;
    s text;
BEGIN
    FOR w IN SELECT * FROM (VALUES ('0', 0, 'on'), ('2', 2, 'on'), ('2, no parallel hash', 2, 'off')) v(label, n, ph) LOOP
        PERFORM set_config('max_parallel_workers_per_gather', w.n::text, false);
        PERFORM set_config('enable_parallel_hash', w.ph, false);
        FOR qq IN SELECT * FROM queries LOOP
            FOR rep IN 1..3 LOOP
                FOREACH s IN ARRAY ARRAY['off', 'on'] LOOP
                    PERFORM set_config('bloomfilter.runtime_filter', s, false);
                    INSERT INTO runs SELECT qq.name, w.label, s, t.ms, t.result FROM pg_temp.timed(qq.q) t;
                END LOOP;
                IF qq.name = 'semijoin' THEN
                    PERFORM set_config('bloomfilter.runtime_filter', 'off', false);
                    INSERT INTO runs SELECT qq.name, w.label, 'hand-written', t.ms, t.result
                      FROM pg_temp.timed('SELECT count(*) FROM rt_probe WHERE (SELECT bloom_agg(k, 1000000, 0.01) FROM rt_build) @> k AND k IN (SELECT k FROM rt_build)') t;
                END IF;
            END LOOP;
        END LOOP;
    END LOOP;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
END $$;

\echo '== every run (ms)'
SELECT name, workers, setting, round(ms) AS ms, result FROM runs ORDER BY name, workers, setting;

\echo '== medians of 3 (ms); speedup = off / on'
WITH med AS (
  SELECT name, workers, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
         min(result) AS result, count(DISTINCT result) AS results
    FROM runs GROUP BY 1, 2, 3)
SELECT f.name, f.workers, round(f.ms) AS off_ms, round(n.ms) AS on_ms,
       round((f.ms / n.ms)::numeric, 2) AS speedup,
       round(h.ms) AS hand_written_ms,
       f.result = n.result AND f.results = 1 AND n.results = 1 AS same_result
  FROM med f JOIN med n USING (name, workers)
  LEFT JOIN med h ON h.name = f.name AND h.workers = f.workers AND h.setting = 'hand-written'
 WHERE f.setting = 'off' AND n.setting = 'on'
 ORDER BY array_position(ARRAY['semijoin', 'small', 'star', 'fk', 'misled'], f.name), f.workers;

\echo '== where the filters are (one process)'
SET max_parallel_workers_per_gather = 0;
SET bloomfilter.runtime_filter = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM rt_probe WHERE k IN (SELECT k FROM rt_build);
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), sum(amount) FROM rt_fact JOIN rt_dim1 ON rt_fact.d1 = rt_dim1.k JOIN rt_dim2 ON rt_fact.d2 = rt_dim2.k;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*), sum(o.amount) FROM rt_orders o JOIN rt_customers c ON o.customer = c.id WHERE (c.region < 1000) = (c.id > 0);

\echo '== spill: work_mem = 4MB, temp blocks written by the semi-join, off and on'
SET work_mem = '4MB';
CREATE FUNCTION temp_written(setting text) RETURNS TABLE (setting_ text, temp_blocks_written bigint, temp_mb numeric, ms numeric) LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    PERFORM set_config('bloomfilter.runtime_filter', setting, true);
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT count(*) FROM rt_probe WHERE k IN (SELECT k FROM rt_build)' INTO plan;
    setting_ := setting;
    temp_blocks_written := (plan->0->'Plan'->>'Temp Written Blocks')::bigint;
    temp_mb := round(temp_blocks_written * 8192 / 1048576.0, 1);
    ms := round((plan->0->>'Execution Time')::numeric);
    RETURN NEXT;
END $$;
SELECT * FROM temp_written('off') UNION ALL SELECT * FROM temp_written('on')
UNION ALL SELECT * FROM temp_written('off') UNION ALL SELECT * FROM temp_written('on');
