-- demo/bloom_join.sql: the MapReduce "bloom join" on generated data.
--
-- A large table (the probe side) and a small one (the build side).  Build a
-- Bloom filter on the small side, drop the large side's rows that cannot
-- match, and only then run the real join.  Across a network the rows dropped
-- are rows never shipped; on one server the prefilter replaces a probe of a
-- large hash table (a cache miss per row) by a probe of a compact filter.
--
-- Run by `bash tools/run.sh demo` on a throwaway cluster.
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
SET jit = off;
SET max_parallel_workers_per_gather = 0;   -- one process: per-row costs compare directly

CREATE EXTENSION IF NOT EXISTS bloomfilter;

\echo '== generating data: large(k) 5,000,000 rows, small(k) 500,000 keys; 10% of large matches'
DROP TABLE IF EXISTS large, small, filters;
CREATE TABLE large AS
  SELECT (g * 2654435761 % 10000000)::int8 AS k, g AS id FROM generate_series(1, 5000000) g;
CREATE TABLE small AS
  SELECT (g * 2654435761 % 10000000)::int8 AS k FROM generate_series(1, 5000000, 10) g;
ANALYZE large;
ANALYZE small;

CREATE TEMP TABLE demo_results (step text, result_rows bigint, ms numeric);

DO $$
DECLARE
    t0 timestamptz;
    n bigint;
BEGIN
    -- 1. the plain hash semi-join
    t0 := clock_timestamp();
    SELECT count(*) INTO n FROM large WHERE k IN (SELECT k FROM small);
    INSERT INTO demo_results VALUES ('plain semi-join: k IN (SELECT k FROM small)', n,
        round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000));

    -- 2. build the filter on the small side and store it
    t0 := clock_timestamp();
    CREATE TABLE filters AS SELECT 'small'::text AS name, bloom_agg(k, 500000, 0.01) AS f FROM small;
    INSERT INTO demo_results VALUES ('build: bloom_agg(k, 500000, 0.01) over small', 1,
        round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000));

    -- 3. the prefilter alone: what would be shipped
    t0 := clock_timestamp();
    SELECT count(*) INTO n FROM large WHERE (SELECT f FROM filters) @> k;
    INSERT INTO demo_results VALUES ('prefilter only: rows of large passing the filter', n,
        round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000));

    -- 4. the bloom join: prefilter, then the real semi-join
    t0 := clock_timestamp();
    SELECT count(*) INTO n FROM large
     WHERE (SELECT f FROM filters) @> k AND k IN (SELECT k FROM small);
    INSERT INTO demo_results VALUES ('bloom join: prefilter, then the semi-join', n,
        round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000));
END $$;

\echo '== results (row counts and wall-clock times on this machine)'
SELECT step, result_rows, ms FROM demo_results;

\echo '== the filter'
SELECT nbits, nhashes, pg_size_pretty(bytes::bigint) AS size, values_added,
       round(fill_ratio::numeric, 3) AS fill, round(estimated_distinct) AS est_distinct,
       round(estimated_fpp::numeric, 4) AS expected_fp_rate, element_family
  FROM filters, bloom_info(f);

\echo '== rows the prefilter dropped (never shipped, never probed in the hash table)'
SELECT (SELECT count(*) FROM large) - (SELECT result_rows FROM demo_results WHERE step LIKE 'prefilter only%') AS rows_dropped,
       round(100.0 * ((SELECT result_rows FROM demo_results WHERE step LIKE 'prefilter only%')
              - (SELECT result_rows FROM demo_results WHERE step LIKE 'bloom join%'))
              / ((SELECT count(*) FROM large) - (SELECT result_rows FROM demo_results WHERE step LIKE 'bloom join%')), 2)
         AS false_positive_pct;

\echo '== the plan of the bloom join'
EXPLAIN (COSTS OFF)
SELECT count(*) FROM large WHERE (SELECT f FROM filters) @> k AND k IN (SELECT k FROM small);
