-- bench/auto.sql: bloom_agg(value) without hints, from 1,000 to 100,000,000
-- distinct values: size against the optimum (bloom_params for the distinct
-- count), false-positive rate measured on 1,000,000 values outside, time
-- against count() and against bloom_agg given the right hint, all over the
-- same rows (a generate_series in the select list, so nothing is
-- materialized).  Then the memory of a GROUP BY of 10,000 groups of 1,000.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

CREATE TEMP TABLE sizes (n bigint, nbits bigint, optimal bigint, fpp float8,
                         count_ms float8, hinted_ms float8, auto_ms float8);
DO $$
DECLARE
    t0 timestamptz;
    n bigint;
    f bloom;
    c_ms float8;
    h_ms float8;
    a_ms float8;
    measured float8;
BEGIN
    FOREACH n IN ARRAY ARRAY[1000, 100000, 1000000, 10000000, 100000000] LOOP
        t0 := clock_timestamp();
        PERFORM count(g) FROM (SELECT generate_series(1, n) g) s;
        c_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
        t0 := clock_timestamp();
        PERFORM bloom_agg(g, n, 0.01) FROM (SELECT generate_series(1, n) g) s;
        h_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
        t0 := clock_timestamp();
        SELECT bloom_agg(g) INTO f FROM (SELECT generate_series(1, n) g) s;
        a_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
        SELECT avg((f @> g)::int) INTO measured FROM generate_series(-1000000, -1) g;
        INSERT INTO sizes VALUES (n, (bloom_info(f)).nbits, (bloom_params(n)).nbits, measured,
                                  c_ms, h_ms, a_ms);
    END LOOP;
END $$;

\echo '== bloom_agg(value): size against the optimum, measured rate, time (ms) against count() and the hinted build'
SELECT n AS distinct_values, nbits, optimal, round(nbits::numeric / optimal, 4) AS size_ratio,
       round(fpp::numeric, 5) AS measured_fpp, round(count_ms) AS count_ms,
       round(hinted_ms) AS hinted_ms, round(auto_ms) AS auto_ms,
       round((auto_ms / count_ms)::numeric, 2) AS auto_to_count,
       round((auto_ms / hinted_ms)::numeric, 2) AS auto_to_hinted
  FROM sizes ORDER BY n;

\echo '== GROUP BY: 10,000 groups of 1,000 distinct values (10,000,000 rows)'
SET work_mem = '1GB';
SET enable_sort = off;
CREATE TEMP TABLE plan_lines (line text);
DO $$
DECLARE
    line text;
BEGIN
    FOR line IN EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF)
        SELECT g % 10000, bloom_agg(g) FROM (SELECT generate_series(1, 10000000) g) s GROUP BY 1
    LOOP
        INSERT INTO plan_lines VALUES (line);
    END LOOP;
END $$;
SELECT line FROM plan_lines WHERE line ~ 'HashAggregate|Memory Usage|Execution Time';
SELECT count(*) AS groups,
       count(*) FILTER (WHERE (bloom_info(f)).nbits = (bloom_params(1000)).nbits) AS sized_for_1000,
       pg_size_pretty(sum(pg_column_size(f))) AS total_filter_size
  FROM (SELECT g % 10000 AS grp, bloom_agg(g) AS f
          FROM (SELECT generate_series(1, 10000000) g) s GROUP BY 1) r;
\echo 'for comparison, 10,000 filters sized for 1,000,000 values (the 1.2 default):'
SELECT pg_size_pretty(10000 * (bloom_params(1000000)).bytes) AS would_take;
