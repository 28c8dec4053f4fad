-- bench/probe.sql: per-row cost of a probe against a bare scan, for stored
-- filters of 10 KB, 1 MB, 10 MB and 100 MB, classic and blocked, in one run.
-- 10,000,000 int8 probe rows, none of them in the filters (the common case
-- of a selective prefilter: most rows do not match); one process, JIT off.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS probe, filters;
CREATE TABLE probe AS SELECT (g * 2654435761 % 100000000)::int8 AS k FROM generate_series(1, 10000000) g;
VACUUM ANALYZE probe;
-- filters of negative keys: no probe is a member
CREATE TABLE filters (size text, n bigint, layout text, f bloom);
INSERT INTO filters
  SELECT s.size, s.n, l.layout, (SELECT bloom_agg(-g, s.n, 0.01, l.layout) FROM generate_series(1, s.n) g)
    FROM (VALUES ('10 KB', 8500), ('1 MB', 870000), ('10 MB', 8700000), ('100 MB', 87000000)) s(size, n),
         (VALUES ('classic'), ('blocked')) l(layout);
SELECT s.size, s.layout, pg_size_pretty(pg_column_size(s.f)::bigint) AS stored, i.nbits, i.nhashes
  FROM filters s, bloom_info(s.f) i ORDER BY s.n, s.layout;

CREATE TEMP TABLE timings (what text, size text, layout text, ms float8);
DO $$
DECLARE
    r record;
    t0 timestamptz;
    cnt bigint;
BEGIN
    FOR rep IN 1..3 LOOP
        t0 := clock_timestamp();
        SELECT count(*) INTO cnt FROM probe WHERE k <> -1;
        INSERT INTO timings VALUES ('bare scan', '', '', extract(epoch FROM clock_timestamp() - t0) * 1000);
        FOR r IN SELECT s.size, s.layout FROM filters s ORDER BY s.n, s.layout LOOP
            t0 := clock_timestamp();
            EXECUTE format('SELECT count(*) FROM probe WHERE (SELECT f FROM filters WHERE size = %L AND layout = %L) @> k',
                           r.size, r.layout) INTO cnt;
            INSERT INTO timings VALUES ('probe', r.size, r.layout, extract(epoch FROM clock_timestamp() - t0) * 1000);
        END LOOP;
    END LOOP;
END $$;

\echo '== best of 3; ratio = probe query / bare scan'
WITH best AS (SELECT what, size, layout, min(ms) AS ms FROM timings GROUP BY 1, 2, 3),
     bare AS (SELECT ms FROM best WHERE what = 'bare scan')
SELECT best.what, best.size, best.layout, round(best.ms) AS best_ms,
       round((best.ms * 1e6 / 10000000)::numeric, 1) AS ns_per_row,
       round((best.ms / bare.ms)::numeric, 2) AS ratio_to_bare_scan
  FROM best, bare
 ORDER BY best.what, (SELECT n FROM filters f WHERE f.size = best.size LIMIT 1) NULLS FIRST, best.layout;
