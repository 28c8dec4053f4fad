-- bench/windows.sql: window filters (1.12, issue 52), in one run.
--   accuracy: 10 generations of 100,000 int8 values at 1 % (a day each),
--   built by bloom_window_agg; every value of the window probed (false
--   negatives), 1,000,000 values never added (10^9 and up: no day's; the rate), and the values of
--   each age past the window (the recall, against the formula the unit
--   tests check); bits per value of the window, against one filter per
--   generation (ten classic filters of 100,000 values at 0.1 %, all
--   probed: 1 % for the window) and one filter of the whole window.
--   speed: 10,000,000 int8 rows none of which is in the filters, probed in
--   a stored window filter (100,000 a generation over 10) and in a
--   blocked filter of the same 1,000,000 values at 1 %: each probe's cost
--   is its query's time less a bare scan's, per row (probe_speed_vs:
--   blocked's cost over window's); and the builds, bloom_window_agg over
--   the 1,000,000 rows with their days against bloom_agg(k, 1000000,
--   0.01, 'blocked') over the same rows (build_speed_vs).
-- psql -X -q -v workers=W -v rounds=N -f bench/windows.sql (W: 0 by default,
-- one process; 2 is PostgreSQL's default; N: 5).  Rounds rotate the order;
-- medians.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET TimeZone = 'UTC';
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
DROP TABLE IF EXISTS win_rows, win_probe, win_filters;
-- day d (0 .. 9) holds the values d * 1,000,000 + 1 .. + 100,000; the last day is 2026-11-30
CREATE TABLE win_rows AS
  SELECT (d * 1000000 + i)::int8 AS k, '2026-11-21 00:00+00'::timestamptz + d * interval '1 day' + (i % 86400) * interval '1 second' AS at
    FROM generate_series(0, 9) d, generate_series(1, 100000) i;
-- ten more days of 100,000 before them, for the recall of older values and
-- the rate at the filter's fullest (a filter of all twenty days)
CREATE TABLE win_old AS
  SELECT (d * 1000000 + i)::int8 AS k, '2026-11-21 00:00+00'::timestamptz + d * interval '1 day' AS at
    FROM generate_series(-10, -1) d, generate_series(1, 100000) i;
CREATE TABLE win_probe AS SELECT (-(g * 2654435761 % 100000000) - 1)::int8 AS k FROM generate_series(1, 10000000) g;
VACUUM ANALYZE win_rows, win_old, win_probe;
CREATE TABLE win_filters (what text, f bloom);
INSERT INTO win_filters
  SELECT 'window', bloom_window_agg(k, at, 100000, 0.01, 10, '1 day') FROM win_rows;
INSERT INTO win_filters
  SELECT 'blocked', bloom_agg(k, 1000000, 0.01, 'blocked') FROM win_rows;
-- the window filter with the older days too (at the same end): the steady state
INSERT INTO win_filters
  SELECT 'window with older', bloom_window_agg(k, at, 100000, 0.01, 10, '1 day')
    FROM (SELECT k, at FROM win_rows UNION ALL SELECT k, at FROM win_old) r;

\echo '== accuracy: false negatives within the window, the rate of values never added (the filter of the'
\echo '   ten days alone, and at its fullest: with ten days of 100,000 before them)'
SELECT f.what,
       (SELECT count(*) FROM win_rows WHERE NOT f.f @> k) AS false_negatives,
       (SELECT count(*) FROM win_rows) AS probed,
       (SELECT avg((f.f @> (1000000000 + g)::int8)::int) FROM generate_series(1, 1000000) g) AS measured_rate,
       i.estimated_fpp
  FROM win_filters f, bloom_window_info(f.f) i WHERE f.what IN ('window', 'window with older') ORDER BY 1;
\echo '== the recall of values older than the window (days before the 10); the formula (bf_window_recall,'
\echo '   docs/windows.md): 0.500 0.250 0.125 0.063 0.032 0.017 0.010 0.0067, then the rate'
SELECT 9 - d AS age,
       round(avg((f.f @> k)::int), 4) AS found, count(*) AS probed
  FROM (SELECT k, (extract(epoch FROM at - '2026-11-21 00:00+00') / 86400)::int AS d FROM win_old) o,
       win_filters f
 WHERE f.what = 'window with older'
 GROUP BY d ORDER BY 1;
\echo '== bits per value of the window (1,000,000 values)'
SELECT f.what, i.nbits, round(i.nbits / 1000000.0, 1) AS bits_per_value, pg_size_pretty(pg_column_size(f.f)::bigint) AS stored
  FROM win_filters f, bloom_info(f.f) i WHERE f.what IN ('window', 'blocked')
UNION ALL
SELECT 'ten classic filters at 0.1 %', 10 * nbits, round(10 * nbits / 1000000.0, 1), pg_size_pretty(10 * bytes)
  FROM bloom_params(100000, 0.001)
ORDER BY 1;

SELECT set_config('bench.rounds', :'rounds', false) \g /dev/null
CREATE TEMP TABLE timings (what text, layout text, ms float8);
DO $$
DECLARE
    layouts text[] := array['bare scan', 'window', 'blocked'];
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
                SELECT count(*) INTO cnt FROM win_probe WHERE k <> 1;
            ELSE
                EXECUTE format('SELECT count(*) FROM win_probe WHERE (SELECT f FROM win_filters WHERE what = %L) @> k', l)
                INTO cnt;
            END IF;
            INSERT INTO timings VALUES ('probe', l, extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
        FOREACH l IN ARRAY CASE WHEN rep % 2 = 1 THEN array['blocked', 'window'] ELSE array['window', 'blocked'] END LOOP
            t0 := clock_timestamp();
            IF l = 'window' THEN
                SELECT pg_column_size(bloom_window_agg(k, at, 100000, 0.01, 10, '1 day')) INTO cnt FROM win_rows;
            ELSE
                SELECT pg_column_size(bloom_agg(k, 1000000, 0.01, 'blocked')) INTO cnt FROM win_rows;
            END IF;
            INSERT INTO timings VALUES ('build', l, extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
    END LOOP;
END $$;

\echo '== speed (medians): probes of 10,000,000 rows none of which is held; builds of 1,000,000 rows'
WITH med AS (
  SELECT what, layout, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM timings GROUP BY what, layout
), probe AS (
  SELECT m.layout, m.ms, (m.ms - b.ms) * 1e6 / 10000000 AS ns_per_probe
  FROM med m, med b WHERE m.what = 'probe' AND b.what = 'probe' AND b.layout = 'bare scan' AND m.layout <> 'bare scan'
)
SELECT (SELECT round(ms::numeric) FROM med WHERE what = 'probe' AND layout = 'bare scan') AS bare_scan_ms,
       round(w.ns_per_probe::numeric, 1) AS window_ns_per_probe,
       round(b.ns_per_probe::numeric, 1) AS blocked_ns_per_probe,
       round((b.ns_per_probe / w.ns_per_probe)::numeric, 2) AS probe_speed_vs,
       round((b.ms / w.ms)::numeric, 2) AS query_speed_vs,
       (SELECT round(ms::numeric) FROM med WHERE what = 'build' AND layout = 'window') AS build_window_ms,
       (SELECT round(ms::numeric) FROM med WHERE what = 'build' AND layout = 'blocked') AS build_blocked_ms,
       round(((SELECT ms FROM med WHERE what = 'build' AND layout = 'blocked')
              / (SELECT ms FROM med WHERE what = 'build' AND layout = 'window'))::numeric, 2) AS build_speed_vs
  FROM probe w, probe b WHERE w.layout = 'window' AND b.layout = 'blocked';
DROP TABLE win_rows, win_old, win_probe, win_filters;
