-- bench/index_runtime.sql: a runtime filter taken from a bloomfilter index
-- (1.9) against one built from the inner rows, in one run, JIT off, one
-- process.
--
--   semijoin_1m   10,000,000 probe rows IN a 1,000,000-row table, 10 %
--                 matching (bench/runtime.sql's semijoin)
--   semijoin_4m   the same probe rows IN a 4,000,000-row table
--
-- Each build table exists twice, alike but for a bloomfilter index on the
-- key of one: with filters on, the join over the indexed one takes its
-- filter from the index (EXPLAIN: Filter Source), the other builds it.
-- Each query runs 5 times per setting, alternating (off, built, index);
-- the medians are compared.  The build nodes' Build Time (EXPLAIN ANALYZE:
-- from the first inner row to the finished filter, or to the index's filter
-- taken) is shown for both, but only the index's is the filter's own cost
-- (the time to copy the index's filter): a built filter's spans the Hash
-- node's work on the same rows.  The rows removed show both filters work.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET work_mem = '2GB';
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = warning;
LOAD 'bloomfilter';
CREATE EXTENSION IF NOT EXISTS bloomfilter;

DROP TABLE IF EXISTS ix_probe, ix_build_1m, ix_build_1m_ix, ix_build_4m, ix_build_4m_ix;
CREATE TABLE ix_probe AS
  SELECT CASE WHEN (g * 2654435761 % 1000003) < 100000 THEN 1 + g % 1000000 ELSE -g END::int8 AS k,
         g AS payload
    FROM generate_series(1, 10000000) g;
CREATE TABLE ix_build_1m AS SELECT g::int8 AS k FROM generate_series(1, 1000000) g;
CREATE TABLE ix_build_1m_ix AS SELECT k FROM ix_build_1m;
CREATE TABLE ix_build_4m AS SELECT g::int8 AS k FROM generate_series(1, 4000000) g;
CREATE TABLE ix_build_4m_ix AS SELECT k FROM ix_build_4m;
CREATE INDEX ix_build_1m_ix_k ON ix_build_1m_ix USING bloomfilter (k);
CREATE INDEX ix_build_4m_ix_k ON ix_build_4m_ix USING bloomfilter (k);
VACUUM ANALYZE ix_probe, ix_build_1m, ix_build_1m_ix, ix_build_4m, ix_build_4m_ix;

\ir timing.sql

CREATE TEMP TABLE runs (name text, setting text, ms float8, result text);
DO $$
DECLARE
    c text;
    s text;
BEGIN
    FOREACH c IN ARRAY ARRAY['1m', '4m'] LOOP
        FOR rep IN 1..5 LOOP
            FOREACH s IN ARRAY ARRAY['off', 'built', 'index'] LOOP
                PERFORM set_config('bloomfilter.runtime_filter', CASE WHEN s = 'off' THEN 'off' ELSE 'on' END, false);
                INSERT INTO runs
                  SELECT 'semijoin_' || c, s, t.ms, t.result
                    FROM pg_temp.timed(format('SELECT count(*) FROM ix_probe WHERE k IN (SELECT k FROM %I)',
                                              'ix_build_' || c || CASE WHEN s = 'index' THEN '_ix' ELSE '' END)) t;
            END LOOP;
        END LOOP;
    END LOOP;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
END $$;

\echo '== every run (ms)'
SELECT name, setting, round(ms) AS ms, result FROM runs ORDER BY name, setting, ms;

\echo '== medians of 5 (ms); speedup = off / on'
WITH med AS (
  SELECT name, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
         min(result) AS result, count(DISTINCT result) AS results
    FROM runs GROUP BY 1, 2)
SELECT o.name, round(o.ms) AS off_ms, round(b.ms) AS built_ms, round(i.ms) AS index_ms,
       round((o.ms / b.ms)::numeric, 2) AS speedup_built, round((o.ms / i.ms)::numeric, 2) AS speedup_index,
       round((b.ms / i.ms)::numeric, 3) AS built_over_index,
       o.result = b.result AND b.result = i.result AND o.results + b.results + i.results = 3 AS same_result
  FROM med o JOIN med b USING (name) JOIN med i USING (name)
 WHERE o.setting = 'off' AND b.setting = 'built' AND i.setting = 'index'
 ORDER BY o.name;

\echo '== the build nodes, built and taken from the index (EXPLAIN ANALYZE, 3 runs each)'
-- (run is only there so that each call runs the query again)
CREATE FUNCTION pg_temp.build_node(tbl text, run int) RETURNS TABLE (tbl_ text, source text, filter_keys bigint, filter_kb bigint,
    build_ms numeric, rows_removed bigint, execution_ms numeric) LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
    b jsonb;
    p jsonb;
BEGIN
    EXECUTE format('EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM ix_probe WHERE k IN (SELECT k FROM %I)', tbl) INTO plan;
    SELECT n INTO b FROM jsonb_path_query(plan, 'strict $.**') n
     WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'BloomFilterBuild';
    SELECT n INTO p FROM jsonb_path_query(plan, 'strict $.**') n
     WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'BloomFilterProbe';
    tbl_ := tbl;
    source := coalesce(b->>'Filter Source', 'built');
    filter_keys := (b->>'Filter Keys')::bigint;
    filter_kb := (b->>'Filter Size')::bigint;
    build_ms := round((b->>'Build Time')::numeric, 2);
    rows_removed := (p->>'Rows Removed by Runtime Filter')::bigint;
    execution_ms := round((plan->0->>'Execution Time')::numeric);
    RETURN NEXT;
END $$;
SELECT r.* FROM generate_series(1, 3) rep,
       unnest(ARRAY['ix_build_1m', 'ix_build_1m_ix', 'ix_build_4m', 'ix_build_4m_ix']) tbl,
       LATERAL pg_temp.build_node(tbl, rep) r
 ORDER BY tbl, rep;

\echo '== the plan, taken from the index'
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
  SELECT count(*) FROM ix_probe WHERE k IN (SELECT k FROM ix_build_1m_ix);
