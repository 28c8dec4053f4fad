-- bench/makers.sql: other systems' filters (1.12, issue 51) beside this
-- extension's own layouts, in one run.
--   probes: 10,000,000 int8 rows (bench/probe.sql's keys), none of them in
--   the filters (a selective prefilter: most rows do not match), probed in
--   stored filters of 800,000 values at 1 % (about 1 MB each: Parquet's are powers of two, and 800,000 is the most it puts in 1 MB): classic, blocked,
--   and Spark's (version 2), Guava's and Parquet's built by bloom_agg in
--   their formats (what bloom_import gives for their makers' bytes: the same
--   bytes, the same probe).  Each probe's cost is its query's time less a
--   bare scan's, per row (probe_speed_vs; with workers, the scan's time
--   varies as much as the probes', and query_speed_vs, the queries' times,
--   says more); the issue's targets compare Spark's and Guava's
--   with classic at the same size (both are the classic m and k for n and
--   fpp), Parquet's with blocked.
--   builds: bloom_agg(k, 10,000,000, 0.01, layout) over the same rows,
--   'parquet' beside 'blocked'.
-- psql -X -q -v workers=W -v rounds=N -f bench/makers.sql (W: 0 by default,
-- one process; 2 is PostgreSQL's default; N: 5).  Rounds rotate the order;
-- medians.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
\if :{?workers}
\else
\set workers 0
\endif
\if :{?rounds}
\else
\set rounds 5
\endif
SET max_parallel_workers_per_gather = :workers;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
\echo '== load average at the start:' `cat /proc/loadavg`
\echo '== max_parallel_workers_per_gather =' :workers
DROP TABLE IF EXISTS maker_probe, maker_filters;
CREATE TABLE maker_probe AS SELECT (g * 2654435761 % 100000000)::int8 AS k FROM generate_series(1, 10000000) g;
VACUUM ANALYZE maker_probe;
-- filters of negative keys: no probe is a member
CREATE TABLE maker_filters (layout text, f bloom);
INSERT INTO maker_filters
  SELECT l, (SELECT bloom_agg(-g::int8, 800000, 0.01, l) FROM generate_series(1, 800000) g)
  FROM unnest(array['classic', 'blocked', 'spark', 'guava', 'parquet']) l;
SELECT s.layout, i.nbits, i.nhashes, pg_size_pretty(pg_column_size(s.f)::bigint) AS stored
  FROM maker_filters s, bloom_info(s.f) i ORDER BY s.layout;

SELECT set_config('bench.rounds', :'rounds', false) \g /dev/null
CREATE TEMP TABLE timings (what text, layout text, ms float8);
DO $$
DECLARE
    layouts text[] := array['bare scan', 'classic', 'blocked', 'spark', 'guava', 'parquet'];
    n int := array_length(layouts, 1);
    t0 timestamptz;
    cnt bigint;
    l text;
BEGIN
    FOR rep IN 1..current_setting('bench.rounds')::int LOOP
        FOR i IN 0..n - 1 LOOP
            l := layouts[1 + (i + rep) % n];
            t0 := clock_timestamp();
            IF l = 'bare scan' THEN
                SELECT count(*) INTO cnt FROM maker_probe WHERE k <> -1;
            ELSE
                EXECUTE format('SELECT count(*) FROM maker_probe WHERE (SELECT f FROM maker_filters WHERE layout = %L) @> k', l)
                INTO cnt;
            END IF;
            INSERT INTO timings VALUES ('probe', l, extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
        FOREACH l IN ARRAY CASE WHEN rep % 2 = 1 THEN array['blocked', 'parquet'] ELSE array['parquet', 'blocked'] END LOOP
            t0 := clock_timestamp();
            EXECUTE format('SELECT pg_column_size(bloom_agg(k, 10000000, 0.01, %L)) FROM maker_probe', l) INTO cnt;
            INSERT INTO timings VALUES ('build', l, extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
    END LOOP;
END $$;

WITH med AS (
  SELECT what, layout, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM timings GROUP BY what, layout
), probe AS (
  SELECT m.layout, m.ms, (m.ms - b.ms) * 1e6 / 10000000 AS ns_per_probe
  FROM med m, med b WHERE m.what = 'probe' AND b.what = 'probe' AND b.layout = 'bare scan' AND m.layout <> 'bare scan'
)
SELECT p.layout, round(p.ms::numeric) AS query_ms, round(p.ns_per_probe::numeric, 1) AS ns_per_probe,
       round((r.ns_per_probe / p.ns_per_probe)::numeric, 2) AS probe_speed_vs,
       round((r.ms / p.ms)::numeric, 2) AS query_speed_vs,
       CASE WHEN p.layout IN ('spark', 'guava') THEN 'classic' WHEN p.layout = 'parquet' THEN 'blocked' END AS against
FROM probe p LEFT JOIN probe r
  ON r.layout = CASE WHEN p.layout IN ('spark', 'guava') THEN 'classic' WHEN p.layout = 'parquet' THEN 'blocked' END
ORDER BY p.layout;
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric) AS bare_scan_ms
FROM timings WHERE what = 'probe' AND layout = 'bare scan';
WITH med AS (
  SELECT layout, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM timings WHERE what = 'build' GROUP BY layout
)
SELECT round((SELECT ms FROM med WHERE layout = 'blocked')::numeric) AS build_blocked_ms,
       round((SELECT ms FROM med WHERE layout = 'parquet')::numeric) AS build_parquet_ms,
       round(((SELECT ms FROM med WHERE layout = 'parquet') / (SELECT ms FROM med WHERE layout = 'blocked'))::numeric, 2)
         AS parquet_vs_blocked;
DROP TABLE maker_probe, maker_filters;
