-- demo/bloom_join.sql: the MapReduce "bloom join" on generated data.
--
-- A large table (the probe side) and a small one (the build side).  Build a
-- Bloom filter on the small side, drop the large side's rows that cannot
-- match, and only then run the real join.  Across a network the rows dropped
-- are rows never shipped; on one server the prefilter replaces a probe of a
-- large hash table (a cache miss per row) by a probe of a compact filter.
--
-- Run by `bash tools/run.sh demo` on a throwaway cluster.  It shows the
-- bloom join two ways: automatic (runtime filters, the default) and written
-- by hand (a stored filter probed with @>), each against the plain join.
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
SET jit = off;
SET max_parallel_workers_per_gather = 0;   -- one process: per-row costs compare directly

CREATE EXTENSION IF NOT EXISTS bloomfilter;
-- Runtime filters come from the module's planner hook: in production the
-- module is preloaded (shared_preload_libraries); here this session loads it.
LOAD 'bloomfilter';

\echo '== generating data: large(k) 5,000,000 rows, small(k) 500,000 keys; 10% of large matches'
DROP TABLE IF EXISTS large, small, filters;
CREATE TABLE large AS
  SELECT (g * 2654435761 % 10000000)::int8 AS k, g AS id FROM generate_series(1, 5000000) g;
CREATE TABLE small AS
  SELECT (g * 2654435761 % 10000000)::int8 AS k FROM generate_series(1, 5000000, 10) g;
ANALYZE large;
ANALYZE small;

\echo '== building the filter on the small side and storing it (the hand-written recipe)'
\timing on
CREATE TABLE filters AS SELECT 'small'::text AS name, bloom_agg(k, 500000, 0.01) AS f FROM small;
\timing off

-- The same semi-join three ways, 3 times each, alternating:
--   off          bloomfilter.runtime_filter = off: PostgreSQL's plain hash join
--   on           the setting on (its default), the query unchanged: the
--                planner adds a runtime filter built from small's keys
--   hand-written the setting off, the stored filter probed by hand in front
--                of the join: WHERE (SELECT f FROM filters) @> k AND k IN (...)
CREATE TEMP TABLE demo_runs (way text, result_rows bigint, ms numeric);
CREATE TEMP TABLE demo_ways (ord int, way text, setting text, q text);
INSERT INTO demo_ways VALUES
  (1, 'off', 'off', 'SELECT count(*) FROM large WHERE k IN (SELECT k FROM small)'),
  (2, 'on, no rewrite', 'on', 'SELECT count(*) FROM large WHERE k IN (SELECT k FROM small)'),
  (3, 'hand-written recipe', 'off',
   'SELECT count(*) FROM large WHERE (SELECT f FROM filters) @> k AND k IN (SELECT k FROM small)');

DO $$
DECLARE
    w record;
    t0 timestamptz;
    n bigint;
BEGIN
    FOR rep IN 1..3 LOOP
        FOR w IN SELECT * FROM demo_ways ORDER BY ord LOOP
            PERFORM set_config('bloomfilter.runtime_filter', w.setting, false);
            t0 := clock_timestamp();
            EXECUTE w.q INTO n;
            INSERT INTO demo_runs VALUES (w.way, n,
                round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000));
        END LOOP;
    END LOOP;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
END $$;

\echo '== the semi-join three ways: median of 3 runs each (wall-clock ms on this machine)'
SELECT w.way, min(r.result_rows) AS result_rows,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ms) AS median_ms,
       round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM demo_runs WHERE way = 'off')::numeric
             / percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ms)::numeric, 2) AS speedup_vs_off
  FROM demo_ways w JOIN demo_runs r USING (way)
 GROUP BY w.ord, w.way ORDER BY w.ord;

\echo '== the filter stored by the recipe'
SELECT nbits, nhashes, pg_size_pretty(bytes::bigint) AS size, values_added,
       round(fill_ratio::numeric, 3) AS fill, round(estimated_distinct) AS est_distinct,
       round(estimated_fpp::numeric, 4) AS expected_fp_rate, element_family
  FROM filters, bloom_info(f);

\echo '== plan 1, off: every row of large probes the hash table'
SET bloomfilter.runtime_filter = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM large WHERE k IN (SELECT k FROM small);
\echo '== plan 2, on: the runtime filter (BloomFilterBuild under the Hash, BloomFilterProbe on large)'
SET bloomfilter.runtime_filter = on;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM large WHERE k IN (SELECT k FROM small);
\echo '== plan 3, the hand-written recipe: the stored filter in the WHERE clause'
SET bloomfilter.runtime_filter = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM large WHERE (SELECT f FROM filters) @> k AND k IN (SELECT k FROM small);
