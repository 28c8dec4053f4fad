-- bench/skip_bound.sql: how far skipping can go (1.12, issue 50).  For the
-- star queries of bench/skip_plans.sql whose targets ask most of a
-- parallel plan, the filtered plan is timed beside a plan that needs no
-- filter to skip: the fact's date keys written into the query, so that
-- PostgreSQL prunes the partitions (or reads the BRIN ranges) at plan
-- time.  That plan reads what the best skip reads and probes nothing; what
-- remains of its time is the joins and the aggregate of the rows that do
-- match.  Where the filtered plan's time is near it, a greater gain needs
-- a faster join, not a better skip.
--
--   A  bloomfilter.runtime_filter off (the bench's A)
--   C  filters on, the skip costed (the bench's C)
--   P  filters off; the query with "AND ss_sold_date_sk BETWEEN lo AND hi"
--      (lo, hi: the least and greatest date key the date qual selects; each
--      of these quals selects every day between them), written date-first
--      with join_collapse_limit = 1, and enable_nestloop = off (without it,
--      the range's estimate, which PostgreSQL multiplies with the date
--      join's, turns the joins into nested loops: 687 ms where C took 203,
--      a year at 2 workers)
--
-- psql -X -q -v workers=W -v rounds=N -f bench/skip_bound.sql (W: 2 by
-- default, PostgreSQL's own; N: 11), against a server that has the library
-- loaded; makes the data of skip_plans_data.sql (about 30 s).  Rounds as
-- skip_plans.sql's: a warm-up, then N, the order rotated; medians.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET work_mem = '256MB';
\if :{?workers}
\else
\set workers 2
\endif
\if :{?rounds}
\else
\set rounds 11
\endif
SET max_parallel_workers_per_gather = :workers;
SET client_min_messages = warning;
LOAD 'bloomfilter';
\echo '== load average at the start:' `cat /proc/loadavg`
\echo '== max_parallel_workers_per_gather =' :workers
\ir skip_plans_data.sql
\ir timing.sql

CREATE TEMP TABLE bound_queries (ord int, name text, fact text, date_cond text, item_cond text,
                                 lo int, hi int, q text, qp text);
INSERT INTO bound_queries (ord, name, fact, date_cond, item_cond) VALUES
  (1, 'month_manager', 'store_sales', 'd_year = 2001 AND d_moy = 11', 'i_manager_id = 28'),
  (2, 'days30_categories', 'store_sales', 'd_date BETWEEN ''2001-02-22'' AND ''2001-03-24''',
   'i_category IN (''Books'', ''Home'', ''Music'')'),
  (3, 'year_every_item', 'store_sales', 'd_year = 2000', 'true'),
  (4, 'month_manager_brin', 'store_sales_brin', 'd_year = 2001 AND d_moy = 11', 'i_manager_id = 28'),
  (5, 'days30_categories_brin', 'store_sales_brin', 'd_date BETWEEN ''2001-02-22'' AND ''2001-03-24''',
   'i_category IN (''Books'', ''Home'', ''Music'')'),
  (6, 'year_every_item_brin', 'store_sales_brin', 'd_year = 2000', 'true');
-- P's range: each date qual selects a run of days, so it holds no other key
DO $$
DECLARE
    b bound_queries;
    least_key int;
    greatest_key int;
    run bool;
BEGIN
    FOR b IN SELECT * FROM bound_queries LOOP
        EXECUTE format('SELECT min(d_date_sk), max(d_date_sk), count(*) = max(d_date_sk) - min(d_date_sk) + 1'
                       ' FROM date_dim WHERE %s', b.date_cond) INTO least_key, greatest_key, run;
        IF NOT run THEN
            RAISE EXCEPTION '%: its date qual selects no run of days', b.name;
        END IF;
        UPDATE bound_queries SET lo = least_key, hi = greatest_key WHERE name = b.name;
    END LOOP;
END $$;
UPDATE bound_queries SET
  q = format('SELECT count(*), sum(ss_quantity), sum(ss_sales_price) FROM date_dim, %s, item'
             ' WHERE d_date_sk = ss_sold_date_sk AND ss_item_sk = i_item_sk AND %s AND %s',
             fact, date_cond, item_cond),
  qp = format('SELECT count(*), sum(ss_quantity), sum(ss_sales_price) FROM %s'
              ' JOIN date_dim ON d_date_sk = ss_sold_date_sk JOIN item ON ss_item_sk = i_item_sk'
              ' WHERE %s AND %s AND ss_sold_date_sk BETWEEN %s AND %s',
              fact, date_cond, item_cond, lo, hi);

CREATE FUNCTION pg_temp.bound_setting(setting text, b bound_queries) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('bloomfilter.runtime_filter', CASE WHEN setting = 'C' THEN 'on' ELSE 'off' END, false);
    PERFORM set_config('join_collapse_limit', CASE WHEN setting = 'P' THEN '1' ELSE '8' END, false);
    PERFORM set_config('enable_nestloop', CASE WHEN setting = 'P' THEN 'off' ELSE 'on' END, false);
    RETURN CASE WHEN setting = 'P' THEN b.qp ELSE b.q END;
END $$;
SELECT set_config('skip_bound.rounds', :'rounds', false) \g /dev/null
CREATE TEMP TABLE bound_runs (name text, setting text, round int, ms float8, result text);
\echo '== timing: A, C, P, a warm-up round and' :rounds 'rounds per query; load average now:' `cat /proc/loadavg`
DO $$
DECLARE
    b bound_queries;
    s text;
    t record;
    expected text;
BEGIN
    FOR b IN SELECT * FROM bound_queries ORDER BY ord LOOP
        expected := NULL;
        FOR r IN 0..current_setting('skip_bound.rounds')::int LOOP
            FOREACH s IN ARRAY (ARRAY[ARRAY['A', 'C', 'P'], ARRAY['P', 'A', 'C'], ARRAY['C', 'P', 'A']])[r % 3 + 1:r % 3 + 1] LOOP
                SELECT * INTO t FROM pg_temp.timed(pg_temp.bound_setting(s, b));
                expected := coalesce(expected, t.result);
                IF t.result IS DISTINCT FROM expected THEN
                    RAISE EXCEPTION 'WRONG ANSWER: % under % in round %: % (expected %)',
                        b.name, s, r, t.result, expected;
                END IF;
                IF r > 0 THEN
                    INSERT INTO bound_runs VALUES (b.name, s, r, t.ms, t.result);
                END IF;
            END LOOP;
        END LOOP;
    END LOOP;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
    PERFORM set_config('join_collapse_limit', '8', false);
    PERFORM set_config('enable_nestloop', 'on', false);
END $$;

-- the blocks each setting's plan touched in the fact (heap and index), from EXPLAIN (ANALYZE, BUFFERS)
CREATE FUNCTION pg_temp.fact_blocks(b bound_queries, setting text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
    blocks bigint;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, TIMING OFF) ' || pg_temp.bound_setting(setting, b) INTO plan;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
    PERFORM set_config('join_collapse_limit', '8', false);
    PERFORM set_config('enable_nestloop', 'on', false);
    SELECT sum((n->>'Shared Hit Blocks')::bigint + (n->>'Shared Read Blocks')::bigint) INTO blocks
      FROM jsonb_path_query(plan, 'strict $.**') AS n
     WHERE jsonb_typeof(n) = 'object' AND n->>'Relation Name' ~ '^store_sales';
    RETURN blocks;
END $$;

\echo '== medians (ms) of' :rounds 'runs per setting (every run gave its query''s answer); A/C is the issue''s "Nx", A/P what a plan that reads as little and probes nothing gives'
SELECT b.name, round(a.ms) AS a_ms, round(c.ms) AS c_ms, round(p.ms) AS p_ms,
       round((a.ms / c.ms)::numeric, 2) AS "A/C", round((a.ms / p.ms)::numeric, 2) AS "A/P",
       round((c.ms / p.ms)::numeric, 2) AS "C/P",
       'A ' || pg_temp.fact_blocks(b, 'A') || ', C ' || pg_temp.fact_blocks(b, 'C') || ', P '
       || pg_temp.fact_blocks(b, 'P') AS fact_blocks
  FROM bound_queries b,
       LATERAL (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM bound_runs
                 WHERE name = b.name AND setting = 'A') a,
       LATERAL (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM bound_runs
                 WHERE name = b.name AND setting = 'C') c,
       LATERAL (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM bound_runs
                 WHERE name = b.name AND setting = 'P') p
 ORDER BY b.ord;
\echo '== load average at the end:' `cat /proc/loadavg`
