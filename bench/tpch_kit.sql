-- bench/tpch_kit.sql: timings and plan analysis of TPC-H, called by
-- bench/tpch_kit.sh after it loaded the queries into tpch_queries (n, q).
-- psql variables: reps (runs per setting), configs ("4MB:0 64MB:2 ...",
-- work_mem:workers).
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;

CREATE TEMP TABLE tpch_runs (n int, work_mem text, workers int, setting text, ms float8, result text);

\ir timing.sql

CREATE TEMP TABLE tpch_filters (n int, work_mem text, workers int, probes int, removed bigint,
                                probe_rows bigint);
CREATE TEMP TABLE tpch_stakes (n int, workers int, node text, join_type text, outer_rows bigint,
                               join_rows bigint, at_stake bigint, note text);

-- every config and query: the runs, the setting off then on, then the
-- filters it gets (EXPLAIN ANALYZE, the setting on) and, at 64MB, the
-- joins whose outer rows without a match are not dropped early
DO $$
DECLARE
    c text;
    qq record;
    s text;
    plan jsonb;
BEGIN
    FOREACH c IN ARRAY regexp_split_to_array(current_setting('tpch.configs'), '\s+') LOOP
        PERFORM set_config('work_mem', split_part(c, ':', 1), false);
        PERFORM set_config('max_parallel_workers_per_gather', split_part(c, ':', 2), false);
        FOR qq IN SELECT * FROM tpch_queries ORDER BY n LOOP
            FOR rep IN 1..current_setting('tpch.reps')::int LOOP
                FOREACH s IN ARRAY ARRAY['off', 'on'] LOOP
                    PERFORM set_config('bloomfilter.runtime_filter', s, false);
                    -- every value of every row is used (a count(*) would let the
                    -- planner drop the unused outputs: Q6 in 0 ms), and a
                    -- subquery with ORDER BY, LIMIT or aggregates is planned
                    -- as it stands; the digest also compares the rows
                    INSERT INTO tpch_runs
                      SELECT qq.n, split_part(c, ':', 1), split_part(c, ':', 2)::int, s, t.ms, t.result
                        FROM pg_temp.timed('SELECT count(*) || '' '' || md5(string_agg(x::text, ''|'')) FROM ('
                                           || qq.q || ') x') t;
                END LOOP;
            END LOOP;
            PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
            EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || qq.q INTO plan;
            INSERT INTO tpch_filters
              SELECT qq.n, split_part(c, ':', 1), split_part(c, ':', 2)::int, count(*),
                     coalesce(sum((p->>'Rows Removed by Runtime Filter')::bigint), 0),
                     coalesce(sum((p->>'Actual Rows')::numeric * (p->>'Actual Loops')::numeric
                                  + (p->>'Rows Removed by Runtime Filter')::bigint), 0)
                FROM jsonb_path_query(plan, 'strict $.**') p
               WHERE jsonb_typeof(p) = 'object' AND p->>'Custom Plan Provider' = 'BloomFilterProbe';
            IF split_part(c, ':', 1) = '64MB' THEN
                INSERT INTO tpch_stakes
                  SELECT qq.n, split_part(c, ':', 2)::int, j->>'Node Type', j->>'Join Type',
                         round(o.rows), round(jr.rows), round(greatest(o.rows - jr.rows, 0)),
                         CASE WHEN j->>'Node Type' = 'Hash Join' THEN 'hash join, no filter'
                              WHEN j->>'Node Type' = 'Merge Join' THEN 'merge join: no filters'
                              ELSE 'nested loop: no filters' END
                    FROM jsonb_path_query(plan, 'strict $.**') j,
                         LATERAL (SELECT (j->>'Actual Rows')::numeric * (j->>'Actual Loops')::numeric AS rows) jr,
                         LATERAL (SELECT (x->>'Actual Rows')::numeric * (x->>'Actual Loops')::numeric AS rows
                                    FROM jsonb_array_elements(j->'Plans') x
                                   WHERE x->>'Parent Relationship' = 'Outer') o
                   WHERE jsonb_typeof(j) = 'object'
                     AND j->>'Node Type' IN ('Hash Join', 'Merge Join', 'Nested Loop')
                     AND j->>'Join Type' IN ('Inner', 'Semi', 'Right', 'Right Anti', 'Right Semi')
                     -- a hash join whose outer child is our probe has its filter
                     AND NOT EXISTS (SELECT FROM jsonb_array_elements(j->'Plans') y
                                      WHERE y->>'Custom Plan Provider' = 'BloomFilterProbe')
                     AND o.rows - jr.rows >= 10000
                  UNION ALL
                  -- a probe above a Gather drops rows only after they crossed from the workers
                  SELECT qq.n, split_part(c, ':', 2)::int, 'probe above ' || (p->'Plans'->0->>'Node Type'), NULL,
                         round((p->'Plans'->0->>'Actual Rows')::numeric * (p->'Plans'->0->>'Actual Loops')::numeric),
                         NULL, (p->>'Rows Removed by Runtime Filter')::bigint, 'filtered in the leader, after the workers'
                    FROM jsonb_path_query(plan, 'strict $.**') p
                   WHERE jsonb_typeof(p) = 'object' AND p->>'Custom Plan Provider' = 'BloomFilterProbe'
                     AND p->'Plans'->0->>'Node Type' IN ('Gather', 'Gather Merge');
            END IF;
        END LOOP;
    END LOOP;
END $$;

\echo '== every run (ms)'
SELECT n, work_mem, workers, setting, round(ms) AS ms, result FROM tpch_runs ORDER BY 1, 2, 3, 4;

\echo '== per query and config: medians (ms), speedup = off / on, the filters with the setting on'
CREATE TEMP TABLE tpch_ratios AS
WITH med AS (
  SELECT n, work_mem, workers, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
         min(result) AS result, count(DISTINCT result) AS results
    FROM tpch_runs GROUP BY 1, 2, 3, 4)
SELECT f.n, f.work_mem, f.workers, f.ms AS off_ms, o.ms AS on_ms, f.ms / o.ms AS speedup,
       f.result = o.result AND f.results = 1 AND o.results = 1 AS same_rows,
       t.probes, t.removed, t.probe_rows
  FROM med f JOIN med o USING (n, work_mem, workers)
  LEFT JOIN tpch_filters t USING (n, work_mem, workers)
 WHERE f.setting = 'off' AND o.setting = 'on';
SELECT n AS q, work_mem, workers, round(off_ms) AS off_ms, round(on_ms) AS on_ms,
       round(speedup::numeric, 2) AS speedup, same_rows, probes AS filters,
       CASE WHEN probes > 0 THEN removed || ' of ' || probe_rows END AS rows_removed
  FROM tpch_ratios ORDER BY work_mem, workers, n;

\echo '== per config: queries with filters, geometric mean of their speedups, lowest and highest; all 22'
SELECT work_mem, workers,
       count(*) FILTER (WHERE probes > 0) AS with_filters,
       round(exp(avg(ln(speedup)) FILTER (WHERE probes > 0))::numeric, 3) AS geomean_with_filters,
       round(min(speedup) FILTER (WHERE probes > 0)::numeric, 2) AS min_with,
       round(max(speedup) FILTER (WHERE probes > 0)::numeric, 2) AS max_with,
       round(exp(avg(ln(speedup)))::numeric, 3) AS geomean_all,
       round(min(speedup)::numeric, 2) AS min_all,
       bool_and(same_rows) AS all_same_rows
  FROM tpch_ratios GROUP BY 1, 2 ORDER BY 1, 2;

\echo '== rows that could be dropped early but are not (64MB; joins keeping 10,000 or more outer rows from being dropped)'
SELECT n AS q, workers, node, join_type, outer_rows, join_rows, at_stake, note
  FROM tpch_stakes ORDER BY at_stake DESC, n, workers;
