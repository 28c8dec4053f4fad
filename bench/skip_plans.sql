-- bench/skip_plans.sql: issue 41's bench, "plans that skip".  A hash join
-- whose build is a filtered date dimension lets the fact's scan skip
-- partitions, BRIN block ranges and B-tree reads (1.8); PostgreSQL does
-- not know that, and on star queries with a second filtered dimension it
-- often joins that dimension first and the date last, and nothing is
-- skipped.  bloomfilter.runtime_filter_skip_costing (issue 41) is to let
-- the planner price the skipping; this bench measures what it changes.
-- One process, JIT off.  `bash bench/run.sh skip_plans` on the host; on
-- PostgreSQL 18 in its chroot, with run.sh's cluster options (run.sh
-- itself would install gnuplot there):
--   BLOOM_CHROOT_OUTPUT=/tmp/out bash tools/chroot.sh run 18 bash -c \
--     'make -s install && chmod -R a+rX . && pg_virtualenv -v 18 -t \
--      -o shared_buffers=2GB -o max_parallel_workers_per_gather=2 psql -X -q \
--      -v ON_ERROR_STOP=1 -f bench/skip_plans.sql >/build/output/skip_plans.txt 2>&1'
-- The whole run takes about 80 s here (2 cores; the data about 10 s).
--
-- The data: TPC-DS-shaped, made by skip_plans_data.sql (a 200-year
-- date_dim, item, store; store_sales over 5 years, 3.03M rows, 60 monthly
-- partitions and a default; store_sales_brin, the same rows date-ordered
-- with BRIN).
--
-- Each query is a single-row aggregate (its answer compared as text), run
-- under four settings, in one run:
--   A  bloomfilter.runtime_filter off
--   B  filters on, bloomfilter.runtime_filter_skip_costing off
--   C  filters on, skip costing on
--   R  the reference: filters on, skip costing off, join_collapse_limit = 1
--      and the query written date-first (FROM fact JOIN date_dim ... JOIN
--      item ...): the plan a date-first join order gets today
-- A warm-up round (answers checked, times not kept), then 11 rounds (psql
-- variable rounds), the settings' order rotated and reversed from round to
-- round; medians.  This machine is shared: B and C are the same plan until
-- the costing is wired, so C/B shows the noise of the run.
-- Every round's answers are compared with the first; a difference is a
-- WARNING at once and a line in the summary.
--
-- Besides the times, from EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) under
-- each setting, what does not vary with the machine's load: the fact's
-- scans that read (Actual Loops > 0 and not "Partition Scans Skipped: n of
-- n"), the blocks the fact's scans touched (heap and index, shared hit +
-- read), all the plan's blocks, the plan's shape (its joins, outer side
-- first) and what the runtime filters' nodes said.  Then planning time of
-- the star query: 6 blocks of 50 EXPLAINs (no ANALYZE) per setting,
-- alternating.
--
-- The queries (TPC-DS's Q3/Q42/Q52/Q55 shapes; the issue's list):
--   month_manager       d_year = 2001, d_moy = 11, one manager (190 items)
--   month_brands        the same month, 20 of 1000 brands (359 items)
--   moy_every_year      d_moy = 11 of all 200 years (5 in the fact's), 5
--                       managers (908 items): 5 partitions hold the keys,
--                       and the default one (keys outside every bound; it
--                       holds the undated rows).  6,000 date keys: past the
--                       1,024 a filter keeps exactly, 1.8's partition test
--                       has only their least and greatest, and 1.8's BRIN
--                       test likewise, so today even date-first reads all
--   quarter_category    d_year = 2000, d_qoy = 2, one category of 10
--   *_brin              the same four on store_sales_brin
--   star                month_manager's month, 5 managers, the stores of one
--                       state (5 of 100): date, item and store
--   nothing_to_skip     control: the first day of every month (d_dom = 1:
--                       2,400 dates, 60 in the fact's years, one in each
--                       partition) and one manager; nothing can be skipped
--   one_item            control: one item by its i_item_id over one year;
--                       index probes per partition (a nested loop) are right
--   days30_categories   a 30-day range and three of ten categories (TPC-DS
--                       Q98's shape): 2 partitions hold the days (1.12)
--   year_every_item     one year, every item: 12 partitions (1.12)
--   *_brin              the same two on store_sales_brin (1.12)
-- Run it at max_parallel_workers_per_gather 0 (the default here) and 2
-- (PostgreSQL's default): psql -v workers=2 (1.12, issue 50).
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET work_mem = '256MB';
-- psql variable workers: max_parallel_workers_per_gather (0 by default; 2
-- is PostgreSQL's default, with its default parallel costs)
\if :{?workers}
\else
\set workers 0
\endif
SET max_parallel_workers_per_gather = :workers;
SET client_min_messages = warning;
LOAD 'bloomfilter';

SELECT clock_timestamp() AS bench_start \gset
-- The machine's load (another cluster may share it): at the start, before
-- the timing, and at the end.
\echo '== load average at the start:' `cat /proc/loadavg`
\echo '== max_parallel_workers_per_gather =' :workers
\ir skip_plans_data.sql
SELECT round(extract(epoch FROM clock_timestamp() - :'bench_start'::timestamptz)::numeric, 1) AS data_seconds \gset
\echo '== data: made in' :data_seconds 's (tables, indexes, VACUUM ANALYZE)'
SELECT c.relname, c.reltuples::bigint AS rows, c.relpages AS pages,
       (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = c.oid) AS partitions,
       pg_size_pretty(pg_total_relation_size(c.oid)
                      + coalesce((SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i
                                   WHERE i.inhparent = c.oid), 0)::bigint) AS size_with_indexes
  FROM pg_class c
 WHERE c.relname IN ('date_dim', 'item', 'store', 'store_sales', 'store_sales_brin')
 ORDER BY c.relname;

-- The queries.  Each is made from its fact, its WHERE clause and whether
-- it joins store: q with the tables in a FROM list (the planner picks the
-- order), qr date-first in JOIN syntax (kept in that order under R).
CREATE TEMP TABLE queries (ord int, name text, fact text, star bool, cond text, target text,
                           q text, qr text);
INSERT INTO queries (ord, name, fact, star, cond, target) VALUES
  (1, 'month_manager', 'store_sales', false,
   'd_year = 2001 AND d_moy = 11 AND i_manager_id = 28', '<= 2 partitions; >= 4x'),
  (2, 'month_brands', 'store_sales', false,
   'd_year = 2001 AND d_moy = 11 AND i_brand_id BETWEEN 300 AND 319', '<= 2 partitions; >= 4x'),
  (3, 'moy_every_year', 'store_sales', false,
   'd_moy = 11 AND i_manager_id BETWEEN 10 AND 14', '<= 6 partitions; >= 3x'),
  (4, 'quarter_category', 'store_sales', false,
   'd_year = 2000 AND d_qoy = 2 AND i_category = ''Music''', '<= 4 partitions; >= 3x'),
  (5, 'month_manager_brin', 'store_sales_brin', false,
   'd_year = 2001 AND d_moy = 11 AND i_manager_id = 28', '<= 10% heap blocks; >= 3x'),
  (6, 'month_brands_brin', 'store_sales_brin', false,
   'd_year = 2001 AND d_moy = 11 AND i_brand_id BETWEEN 300 AND 319', '<= 10% heap blocks; >= 3x'),
  (7, 'moy_every_year_brin', 'store_sales_brin', false,
   'd_moy = 11 AND i_manager_id BETWEEN 10 AND 14', '<= 10% heap blocks; >= 3x'),
  (8, 'quarter_category_brin', 'store_sales_brin', false,
   'd_year = 2000 AND d_qoy = 2 AND i_category = ''Music''', '<= 10% heap blocks; >= 3x'),
  (9, 'star', 'store_sales', true,
   'd_year = 2001 AND d_moy = 11 AND i_manager_id BETWEEN 10 AND 14 AND s_state = ''TN''', 'ratio'),
  (10, 'nothing_to_skip', 'store_sales', false,
   'd_dom = 1 AND i_manager_id = 28', '>= 0.95x, same plan or better'),
  (11, 'one_item', 'store_sales', false,
   'd_year = 2001 AND i_item_id = ''AAAAAAAA000004D2''', '>= 0.95x, same plan or better'),
  (12, 'days30_categories', 'store_sales', false,
   'd_date BETWEEN ''2001-02-22'' AND ''2001-03-24'' AND i_category IN (''Books'', ''Home'', ''Music'')',
   '<= 2 partitions; >= 4x'),
  (13, 'year_every_item', 'store_sales', false, 'd_year = 2000', '<= 13 partitions; >= 2.5x'),
  (14, 'days30_categories_brin', 'store_sales_brin', false,
   'd_date BETWEEN ''2001-02-22'' AND ''2001-03-24'' AND i_category IN (''Books'', ''Home'', ''Music'')',
   '>= 3x'),
  (15, 'year_every_item_brin', 'store_sales_brin', false, 'd_year = 2000', '>= 1.8x');
UPDATE queries SET
  q = format('SELECT count(*), sum(ss_quantity), sum(ss_sales_price) FROM date_dim, %s, item%s'
             ' WHERE d_date_sk = ss_sold_date_sk AND ss_item_sk = i_item_sk%s AND %s',
             fact, CASE WHEN star THEN ', store' ELSE '' END,
             CASE WHEN star THEN ' AND ss_store_sk = s_store_sk' ELSE '' END, cond),
  qr = format('SELECT count(*), sum(ss_quantity), sum(ss_sales_price) FROM %s'
              ' JOIN date_dim ON d_date_sk = ss_sold_date_sk JOIN item ON ss_item_sk = i_item_sk%s'
              ' WHERE %s',
              fact, CASE WHEN star THEN ' JOIN store ON ss_store_sk = s_store_sk' ELSE '' END, cond);

\ir timing.sql

-- A setting: the runtime filters, the skip costing, the join search, and
-- which text of the query it runs.
CREATE FUNCTION pg_temp.use_setting(setting text, qq queries) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('bloomfilter.runtime_filter', CASE WHEN setting = 'A' THEN 'off' ELSE 'on' END, false);
    PERFORM set_config('bloomfilter.runtime_filter_skip_costing', CASE WHEN setting = 'C' THEN 'on' ELSE 'off' END, false);
    PERFORM set_config('join_collapse_limit', CASE WHEN setting = 'R' THEN '1' ELSE '8' END, false);
    RETURN CASE WHEN setting = 'R' THEN qq.qr ELSE qq.q END;
END $$;

CREATE FUNCTION pg_temp.reset_settings() RETURNS void LANGUAGE sql AS $$
    SELECT set_config('bloomfilter.runtime_filter', 'on', false),
           set_config('bloomfilter.runtime_filter_skip_costing', 'on', false),
           set_config('join_collapse_limit', '8', false);
$$;

-- Round r's order: A B C R rotated by r - 1, reversed in even rounds
-- (1: A B C R, 2: A R C B, 3: C R A B, 4: C B A R, then again).
CREATE FUNCTION pg_temp.round_order(r int) RETURNS text[] LANGUAGE sql AS $$
    SELECT CASE WHEN r % 2 = 0 THEN array_agg(s ORDER BY i DESC) ELSE array_agg(s ORDER BY i) END
      FROM unnest((ARRAY['A', 'B', 'C', 'R', 'A', 'B', 'C'])[1 + (greatest(r, 1) - 1) % 4 : 4 + (greatest(r, 1) - 1) % 4])
           WITH ORDINALITY AS u(s, i);
$$;

\if :{?rounds}
\else
\set rounds 11
\endif
SELECT set_config('skip_plans.rounds', :'rounds', false) \g /dev/null
CREATE TEMP TABLE runs (name text, setting text, round int, ms float8, result text);
CREATE TEMP TABLE mismatches (name text, setting text, round int, result text, expected text);

\echo '== timing: 4 settings, a warm-up round and' :rounds 'rounds per query; load average now:' `cat /proc/loadavg`
SELECT clock_timestamp() AS timing_start \gset
DO $$
DECLARE
    qq queries;
    s text;
    q text;
    expected text;
    t record;
BEGIN
    FOR qq IN SELECT * FROM queries ORDER BY ord LOOP
        expected := NULL;
        FOR r IN 0..current_setting('skip_plans.rounds')::int LOOP
            FOREACH s IN ARRAY pg_temp.round_order(r) LOOP
                q := pg_temp.use_setting(s, qq);
                SELECT * INTO t FROM pg_temp.timed(q);
                expected := coalesce(expected, t.result);
                IF t.result IS DISTINCT FROM expected THEN
                    RAISE WARNING 'WRONG ANSWER: % under % in round %: % (expected %)',
                        qq.name, s, r, t.result, expected;
                    INSERT INTO mismatches VALUES (qq.name, s, r, t.result, expected);
                END IF;
                IF r > 0 THEN
                    INSERT INTO runs VALUES (qq.name, s, r, t.ms, t.result);
                END IF;
            END LOOP;
        END LOOP;
    END LOOP;
    PERFORM pg_temp.reset_settings();
END $$;
SELECT round(extract(epoch FROM clock_timestamp() - :'timing_start'::timestamptz)::numeric, 1) AS timing_seconds \gset
\echo '== timing took' :timing_seconds 's'

\echo '== answers: every run of every setting against the query''s first answer'
SELECT CASE WHEN (SELECT count(*) FROM mismatches) = 0
            THEN 'all ' || (SELECT count(*) FROM runs) || ' timed runs (and the warm-up runs) gave their query''s answer'
            ELSE '*** WRONG ANSWERS: ' || (SELECT count(*) FROM mismatches) || ' runs differ (listed below) ***' END AS answers;
SELECT * FROM mismatches ORDER BY name, round, setting;

\echo '== every run (ms, by round) and the answer'
SELECT r.name, r.setting, array_agg(round(r.ms::numeric, 1) ORDER BY r.round) AS ms_by_round,
       min(r.result) AS answer
  FROM runs r JOIN queries q USING (name)
 GROUP BY q.ord, r.name, r.setting ORDER BY q.ord, r.setting;

-- The leaf of a plan shape: a scanned relation (its partitions named by
-- their parent), and how it was read.
CREATE FUNCTION pg_temp.scan_kind(n jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT CASE WHEN n->>'Custom Plan Provider' = 'BloomFilterScan' THEN 'bfscan'
                WHEN n->>'Custom Plan Provider' = 'BloomFilterProbe' THEN pg_temp.scan_kind(n->'Plans'->0) || '+probe'
                WHEN n->>'Node Type' IN ('Memoize', 'Materialize') THEN pg_temp.scan_kind(n->'Plans'->0)
                ELSE CASE n->>'Node Type' WHEN 'Seq Scan' THEN 'seq' WHEN 'Index Scan' THEN 'index'
                                          WHEN 'Index Only Scan' THEN 'indexonly' WHEN 'Bitmap Heap Scan' THEN 'bitmap'
                                          ELSE lower(n->>'Node Type') END END;
$$;
CREATE FUNCTION pg_temp.scan_rel(n jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT coalesce(regexp_replace(n->>'Relation Name', '_p(\d{6}|default)$', ''),
                    pg_temp.scan_rel(n->'Plans'->0));
$$;

-- A plan's shape on one line: joins as Join(outer, inner), a leaf as
-- relation:how (an Append as relation[count how, ...]); nodes with one
-- child (Aggregate, Hash, Memoize, our build and probe) are passed through.
CREATE FUNCTION pg_temp.shape(n jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    t text := n->>'Node Type';
    kids jsonb;
    leaves text;
BEGIN
    SELECT coalesce(jsonb_agg(k), '[]') INTO kids
      FROM jsonb_array_elements(coalesce(n->'Plans', '[]')) k
     WHERE coalesce(k->>'Parent Relationship', '') NOT IN ('InitPlan', 'SubPlan');
    IF t IN ('Hash Join', 'Nested Loop', 'Merge Join') THEN
        RETURN replace(t, ' ', '') || '(' || pg_temp.shape(kids->0) || ', ' || pg_temp.shape(kids->1) || ')';
    ELSIF t IN ('Append', 'Merge Append') THEN
        SELECT string_agg(cnt || ' ' || kind, ', ' ORDER BY kind) INTO leaves
          FROM (SELECT pg_temp.scan_kind(k) AS kind, count(*) AS cnt
                  FROM jsonb_array_elements(kids) k GROUP BY 1) g;
        RETURN pg_temp.scan_rel(kids->0) || '[' || leaves || ']';
    ELSIF n ? 'Relation Name' OR (jsonb_array_length(kids) = 1 AND n->>'Custom Plan Provider' = 'BloomFilterProbe'
                                    AND kids->0 ? 'Relation Name') THEN
        RETURN pg_temp.scan_rel(n) || ':' || pg_temp.scan_kind(n);
    ELSIF jsonb_array_length(kids) = 1 THEN
        RETURN pg_temp.shape(kids->0);
    END IF;
    RETURN t || '(' || (SELECT string_agg(pg_temp.shape(k), ', ') FROM jsonb_array_elements(kids) k) || ')';
END $$;

-- What a setting's plan read (EXPLAIN ANALYZE, BUFFERS): the fact's scans
-- that read (ran, and were not skipped whole), their blocks, the plan's
-- blocks, its shape, the dimension joined first to the fact, and the
-- lines of the runtime filters' nodes (each distinct line once, with how
-- many nodes said it).
CREATE FUNCTION pg_temp.reads(qq queries, setting text, OUT fact_scans_read bigint, OUT fact_scans bigint,
                              OUT fact_blocks bigint, OUT plan_blocks bigint, OUT shape text,
                              OUT first_join text, OUT filter_lines text) LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
    q text := pg_temp.use_setting(setting, qq);
    pair text;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON, TIMING OFF) ' || q INTO plan;
    PERFORM pg_temp.reset_settings();
    SELECT count(*) FILTER (WHERE (n->>'Actual Loops')::bigint > 0
                              AND coalesce(n->>'Partition Scans Skipped' !~ '^(\d+) of \1$', true)),
           count(*),
           sum((n->>'Shared Hit Blocks')::bigint + (n->>'Shared Read Blocks')::bigint)
      INTO fact_scans_read, fact_scans, fact_blocks
      FROM jsonb_path_query(plan, 'strict $.**') AS n
     WHERE jsonb_typeof(n) = 'object' AND n->>'Relation Name' ~ '^store_sales';
    plan_blocks := (plan->0->'Plan'->>'Shared Hit Blocks')::bigint + (plan->0->'Plan'->>'Shared Read Blocks')::bigint;
    shape := pg_temp.shape(plan->0->'Plan');
    -- the innermost join with the fact as one of its two sides
    pair := substring(shape FROM '(?:HashJoin|NestedLoop|MergeJoin)\(([^()]*store_sales[^()]*)\)');
    first_join := coalesce((SELECT string_agg(split_part(x, ':', 1), ', ')
                              FROM unnest(string_to_array(pair, ', ')) x
                             WHERE x !~ '^store_sales'), 'a join of dimensions');
    SELECT string_agg(l.line || CASE WHEN l.cnt > 1 THEN ' (x' || l.cnt || ')' ELSE '' END, '; ' ORDER BY l.line)
      INTO filter_lines
      FROM (SELECT e.key || ': ' || (e.value #>> '{}') AS line, count(*) AS cnt
              FROM jsonb_path_query(plan, 'strict $.**') AS n, jsonb_each(n) e
             WHERE jsonb_typeof(n) = 'object'
               AND n->>'Custom Plan Provider' IN ('BloomFilterScan', 'BloomFilterBuild', 'BloomFilterProbe')
               AND e.key IN ('Partition Scans Skipped', 'Heap Blocks Read', 'Read Through B-tree',
                             'Whole Table Read', 'Rows Removed by Runtime Filter', 'Filter Keys',
                             'Filter Disabled', 'Filter Use')
               AND NOT (n->>'Custom Plan Provider' = 'BloomFilterScan' AND e.key = 'Partition Scans Skipped')
             GROUP BY 1) l;
END $$;

CREATE TEMP TABLE plan_reads AS
  SELECT qq.ord, qq.name, s.setting, r.*
    FROM queries qq, unnest(ARRAY['A', 'B', 'C', 'R']) AS s(setting), LATERAL pg_temp.reads(qq, s.setting) r;

CREATE TEMP TABLE medians AS
  SELECT name, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM runs GROUP BY 1, 2;

\echo '== medians (ms) of' :rounds 'runs per setting; ratios of times (X/Y = X''s ms over Y''s: below 1, X is faster; the issue''s "Nx" is A/X)'
\echo '   parts: the fact''s scans that read, of its scans in the plan (61 partitions; 1 for store_sales_brin); fact_blocks: the blocks they touched'
SELECT q.name, round(a.ms) AS a_ms, round(b.ms) AS b_ms, round(c.ms) AS c_ms, round(r.ms) AS r_ms,
       round((b.ms / a.ms)::numeric, 2) AS "B/A", round((c.ms / a.ms)::numeric, 2) AS "C/A",
       round((c.ms / b.ms)::numeric, 2) AS "C/B", round((r.ms / a.ms)::numeric, 2) AS "R/A",
       (SELECT string_agg(p.setting || ' ' || p.fact_scans_read || '/' || p.fact_scans, ', ' ORDER BY p.setting)
          FROM plan_reads p WHERE p.name = q.name) AS parts,
       (SELECT string_agg(p.setting || ' ' || p.fact_blocks, ', ' ORDER BY p.setting)
          FROM plan_reads p WHERE p.name = q.name) AS fact_blocks,
       q.target
  FROM queries q
  JOIN medians a ON a.name = q.name AND a.setting = 'A' JOIN medians b ON b.name = q.name AND b.setting = 'B'
  JOIN medians c ON c.name = q.name AND c.setting = 'C' JOIN medians r ON r.name = q.name AND r.setting = 'R'
 ORDER BY q.ord;

\echo '== what each setting''s plan read (EXPLAIN ANALYZE, BUFFERS): the fact''s scans that read, blocks the fact''s scans touched, all the plan''s blocks (shared hit + read)'
SELECT name, setting, fact_scans_read AS scans_read, fact_blocks, plan_blocks, first_join, shape
  FROM plan_reads ORDER BY ord, setting;

\echo '== the runtime filters'' nodes under each setting (each distinct line once, (xN): said by N nodes)'
SELECT name, setting, filter_lines FROM plan_reads WHERE filter_lines IS NOT NULL ORDER BY ord, setting;

\echo '== which dimension PostgreSQL joins to the fact first, per setting (the date first is what lets the fact skip)'
SELECT q.name,
       max(p.first_join) FILTER (WHERE p.setting = 'A') AS a,
       max(p.first_join) FILTER (WHERE p.setting = 'B') AS b,
       max(p.first_join) FILTER (WHERE p.setting = 'C') AS c,
       max(p.first_join) FILTER (WHERE p.setting = 'R') AS r
  FROM queries q JOIN plan_reads p USING (name) GROUP BY q.ord, q.name ORDER BY q.ord;

\echo '== the queries (q: under A, B, C; qr: under R, with join_collapse_limit = 1)'
SELECT name, q, qr FROM queries ORDER BY ord;

-- Planning time of the star query (3 dimensions, 61 partitions): 6 blocks
-- of 50 EXPLAINs (no ANALYZE) per setting, alternating; per block the
-- median of the 50 "Planning Time"s (planning alone) and the block's wall
-- time per EXPLAIN (planning, executor start and end, printing).
\echo '== planning the star query (61 partitions, 3 dimensions), and the month of every year (which reads date_dim at plan time): medians over 6 blocks of 50 EXPLAINs per setting, alternating'
-- glibc's malloc: one large allocation first puts every setting in the state
-- of a backend that has run something big (see skip.sql).
SELECT length(repeat('x', 20000000)) AS malloc_warmed \g /dev/null
CREATE TEMP TABLE planning (name text, block int, setting text, plan_ms float8, explain_ms float8);
DO $$
DECLARE
    qq queries;
    q text;
    plan jsonb;
    t0 timestamptz;
    times float8[];
    s text;
BEGIN
    FOR qq IN SELECT * FROM queries WHERE name IN ('star', 'moy_every_year') ORDER BY ord LOOP
    FOR b IN 1..6 LOOP
        FOREACH s IN ARRAY CASE WHEN b % 2 = 1 THEN ARRAY['A', 'B', 'C'] ELSE ARRAY['C', 'B', 'A'] END LOOP
            q := pg_temp.use_setting(s, qq);
            times := '{}';
            t0 := clock_timestamp();
            FOR i IN 1..50 LOOP
                EXECUTE 'EXPLAIN (FORMAT JSON, SUMMARY ON) ' || q INTO plan;
                times := times || (plan->0->>'Planning Time')::float8;
            END LOOP;
            INSERT INTO planning
              SELECT qq.name, b, s, percentile_cont(0.5) WITHIN GROUP (ORDER BY x),
                     extract(epoch FROM clock_timestamp() - t0) * 1000 / 50
                FROM unnest(times) x;
        END LOOP;
    END LOOP;
    END LOOP;
    PERFORM pg_temp.reset_settings();
END $$;
SELECT name, setting, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms)::numeric, 3) AS planning_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY explain_ms)::numeric, 3) AS explain_ms
  FROM planning GROUP BY name, setting ORDER BY name DESC, setting;
SELECT name, round((percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms) FILTER (WHERE setting = 'C')
              / percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms) FILTER (WHERE setting = 'B'))::numeric, 3) AS "planning C/B",
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms) FILTER (WHERE setting = 'C')
              / percentile_cont(0.5) WITHIN GROUP (ORDER BY plan_ms) FILTER (WHERE setting = 'A'))::numeric, 3) AS "planning C/A",
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY explain_ms) FILTER (WHERE setting = 'C')
              / percentile_cont(0.5) WITHIN GROUP (ORDER BY explain_ms) FILTER (WHERE setting = 'B'))::numeric, 3) AS "explain C/B"
  FROM planning GROUP BY name ORDER BY name DESC;

\echo '== load average at the end:' `cat /proc/loadavg`
SELECT version() AS server, (SELECT setting FROM pg_settings WHERE name = 'shared_buffers') AS shared_buffers_8kB,
       round(extract(epoch FROM clock_timestamp() - :'bench_start'::timestamptz)::numeric, 1) AS total_seconds;
