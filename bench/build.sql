-- bench/build.sql: the cost of building a filter with bloom_agg against
-- count() over the same 10,000,000 rows, serial and with 2 parallel workers.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS rows10m;
CREATE TABLE rows10m AS SELECT g::int8 AS k FROM generate_series(1, 10000000) g;
VACUUM ANALYZE rows10m;

CREATE TEMP TABLE bt (workers int, what text, ms float8);
DO $$
DECLARE
    t0 timestamptz;
    w int;
    q text;
BEGIN
    FOREACH w IN ARRAY ARRAY[0, 2] LOOP
        EXECUTE format('SET max_parallel_workers_per_gather = %s', w);
        FOR rep IN 1..3 LOOP
            FOREACH q IN ARRAY ARRAY['count(k)', 'bloom_agg(k, 10000000, 0.01)', 'bloom_agg(k)',
                                     'bloom_agg(k, 10000000, 0.01, ''blocked'')'] LOOP
                t0 := clock_timestamp();
                EXECUTE format('SELECT %s FROM rows10m', q);
                INSERT INTO bt VALUES (w, q, extract(epoch FROM clock_timestamp() - t0) * 1000);
            END LOOP;
        END LOOP;
    END LOOP;
END $$;

\echo '== best of 3 (ms); ratio = query / count(k) with the same workers'
SELECT b.workers, b.what, round(min(b.ms)) AS best_ms,
       round((min(b.ms) / (SELECT min(ms) FROM bt c WHERE c.workers = b.workers AND c.what = 'count(k)'))::numeric, 2) AS ratio_to_count
  FROM bt b GROUP BY 1, 2 ORDER BY 1, 3;
