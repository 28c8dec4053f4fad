-- bench/probe_cost.sql: per-row cost of probing a stored filter, against a
-- bare scan, in one run (so the ratio is what to read).
--   pg_virtualenv -t psql -X -q -f bench/probe_cost.sql
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS bench_big, bench_filters;
CREATE TABLE bench_big AS SELECT (g * 2654435761 % 100000000)::int8 AS k FROM generate_series(1, 10000000) g;
VACUUM ANALYZE bench_big;
CREATE TABLE bench_filters AS
  SELECT 'keys_1m'::text AS name, bloom_agg(g::int8, 1000000, 0.01) AS f FROM generate_series(1, 1000000) g;

CREATE TEMP TABLE bench_results (what text, ms numeric, rows bigint);
DO $$
DECLARE
    t0 timestamptz;
    n bigint;
    rep int;
BEGIN
    FOR rep IN 1..3 LOOP
        t0 := clock_timestamp();
        SELECT count(*) INTO n FROM bench_big WHERE k <> -1;
        INSERT INTO bench_results VALUES ('bare scan: k <> -1', extract(epoch FROM clock_timestamp() - t0) * 1000, n);
        t0 := clock_timestamp();
        SELECT count(*) INTO n FROM bench_big WHERE (SELECT f FROM bench_filters WHERE name = 'keys_1m') @> k;
        INSERT INTO bench_results VALUES ('probe stored 1M-key filter (1.2 MB)', extract(epoch FROM clock_timestamp() - t0) * 1000, n);
    END LOOP;
END $$;
SELECT what, round(min(ms)) AS best_ms, round(min(ms) * 1e6 / 10000000, 1) AS ns_per_row, max(rows) AS rows
  FROM bench_results GROUP BY what ORDER BY best_ms;
SELECT round((SELECT min(ms) FROM bench_results WHERE what LIKE 'probe%')
           / (SELECT min(ms) FROM bench_results WHERE what LIKE 'bare%'), 2) AS probe_over_bare_scan;
