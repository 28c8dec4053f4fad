-- bench/runtime_order.sql: the runtime filter's adaptive switch against the
-- order of the probe rows.  One process, JIT off, every hash table in
-- memory; the setting on against off, alternating (off first in odd runs,
-- on first in even ones), medians of 5 runs per setting; of 15 for misled,
-- whose 2 % difference is smaller than the machine's noise over 5 runs.
--
-- Every case is a semi-join of 10,000,000 probe rows against 1,000,000
-- build keys where 10 % of the probe rows match; only the order of the rows
-- in the table changes:
--   random      matching rows scattered at random
--   runs_N      matching rows in runs of N (300 to 300,000), each followed
--               by 9 N rows that match nothing: time-ordered facts against a
--               dimension that selects periods
--   sorted      the probe rows sorted by key, the build keys one range: 40 %
--               of rows that match nothing, the 10 % that match, 50 % that
--               match nothing
--   match_then_none  the first half all matches, the second half nothing
--                    (50 % removable)
--   none_then_match  the reverse
-- and two more:
--   star_runs   a 10,000,000-row fact table joined to two 1,000,000-key
--               dimension sets, each matching 10 % of the fact rows, one at
--               random, the other in runs of 30,000
--   misled      a join whose inner side the planner believes a third of a
--               customer table (a condition it cannot estimate: a PL/pgSQL
--               function), so that two thirds of the orders would find no
--               match; in fact every customer, and every order, matches.  A
--               filter is planned (18 MB table, 33 % pass) and removes
--               nothing; the switch must pause it (the cost of a wrong
--               estimate)
-- After the timings, EXPLAIN ANALYZE of each case shows the probe's counts:
-- rows probed, removed, passed unprobed (paused) and pauses.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET work_mem = '2GB';
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = warning;
LOAD 'bloomfilter';

DROP TABLE IF EXISTS ro_build, ro_build_range, ro_random, ro_runs_300, ro_runs_3000, ro_runs_30000,
  ro_runs_300000, ro_sorted, ro_match_then_none, ro_none_then_match, ro_fact, ro_dim1, ro_dim2,
  ro_orders, ro_customers;
CREATE TABLE ro_build AS SELECT g::int8 AS k FROM generate_series(1, 1000000) g;
CREATE TABLE ro_build_range AS SELECT g::int8 AS k FROM generate_series(4000001, 5000000) g;
-- a matching key (1..1,000,000) where `matches`, else one that matches nothing
CREATE FUNCTION ro_key(g int8, matches bool) RETURNS int8 IMMUTABLE LANGUAGE sql
  AS 'SELECT CASE WHEN matches THEN 1 + g % 1000000 ELSE -g END';
CREATE TABLE ro_random AS
  SELECT ro_key(g, g * 2654435761 % 1000003 < 100000) AS k, g AS payload FROM generate_series(1, 10000000) g;
CREATE TABLE ro_runs_300 AS
  SELECT ro_key(g, g / 300 % 10 = 0) AS k, g AS payload FROM generate_series(1, 10000000) g;
CREATE TABLE ro_runs_3000 AS
  SELECT ro_key(g, g / 3000 % 10 = 0) AS k, g AS payload FROM generate_series(1, 10000000) g;
CREATE TABLE ro_runs_30000 AS
  SELECT ro_key(g, g / 30000 % 10 = 0) AS k, g AS payload FROM generate_series(1, 10000000) g;
CREATE TABLE ro_runs_300000 AS
  SELECT ro_key(g, g / 300000 % 10 = 0) AS k, g AS payload FROM generate_series(1, 10000000) g;
CREATE TABLE ro_sorted AS
  SELECT 1 + g * 2654435761 % 10000000 AS k, g AS payload FROM generate_series(1, 10000000) g ORDER BY 1;
CREATE TABLE ro_match_then_none AS
  SELECT ro_key(g, g <= 5000000) AS k, g AS payload FROM generate_series(1, 10000000) g;
CREATE TABLE ro_none_then_match AS
  SELECT ro_key(g, g > 5000000) AS k, g AS payload FROM generate_series(1, 10000000) g;
-- star: d1 matches ro_dim1 for 10 % of rows at random, d2 matches ro_dim2 in runs of 30,000
CREATE TABLE ro_fact AS
  SELECT (g * 2654435761 % 10000000) + 1 AS d1,
         CASE WHEN g / 30000 % 10 = 0 THEN 1 + g % 1000000 ELSE -g END AS d2, g AS amount
    FROM generate_series(1::int8, 10000000) g;
CREATE TABLE ro_dim1 AS SELECT g::int8 * 10 AS k FROM generate_series(1, 1000000) g;
CREATE TABLE ro_dim2 AS SELECT g::int8 AS k FROM generate_series(1, 1000000) g;
-- misled: every order's customer exists, but the planner believes a third do
CREATE FUNCTION ro_kept(id int) RETURNS bool IMMUTABLE PARALLEL SAFE LANGUAGE plpgsql
  AS 'BEGIN RETURN id > 0; END';
CREATE TABLE ro_customers AS SELECT g AS id, g % 100 AS region FROM generate_series(1, 1000000) g;
CREATE TABLE ro_orders AS SELECT g AS id, 1 + (g::int8 * 7919) % 1000000 AS customer, g % 1000 AS amount
  FROM generate_series(1, 10000000) g;
VACUUM ANALYZE ro_build, ro_build_range, ro_random, ro_runs_300, ro_runs_3000, ro_runs_30000,
  ro_runs_300000, ro_sorted, ro_match_then_none, ro_none_then_match, ro_fact, ro_dim1, ro_dim2,
  ro_orders, ro_customers;

CREATE TEMP TABLE runs (name text, setting text, ms float8, result text);
CREATE TEMP TABLE queries (ord int, name text, q text, reps int DEFAULT 5);
INSERT INTO queries VALUES
  (1, 'random', 'SELECT count(*) FROM ro_random WHERE k IN (SELECT k FROM ro_build)', 5),
  (2, 'runs_300', 'SELECT count(*) FROM ro_runs_300 WHERE k IN (SELECT k FROM ro_build)', 5),
  (3, 'runs_3000', 'SELECT count(*) FROM ro_runs_3000 WHERE k IN (SELECT k FROM ro_build)', 5),
  (4, 'runs_30000', 'SELECT count(*) FROM ro_runs_30000 WHERE k IN (SELECT k FROM ro_build)', 5),
  (5, 'runs_300000', 'SELECT count(*) FROM ro_runs_300000 WHERE k IN (SELECT k FROM ro_build)', 5),
  (6, 'sorted', 'SELECT count(*) FROM ro_sorted WHERE k IN (SELECT k FROM ro_build_range)', 5),
  (7, 'match_then_none', 'SELECT count(*) FROM ro_match_then_none WHERE k IN (SELECT k FROM ro_build)', 5),
  (8, 'none_then_match', 'SELECT count(*) FROM ro_none_then_match WHERE k IN (SELECT k FROM ro_build)', 5),
  (9, 'star_runs', 'SELECT count(*), sum(amount) FROM ro_fact JOIN ro_dim1 ON ro_fact.d1 = ro_dim1.k JOIN ro_dim2 ON ro_fact.d2 = ro_dim2.k', 5),
  (10, 'misled', 'SELECT count(*), sum(o.amount) FROM ro_orders o JOIN ro_customers c ON o.customer = c.id WHERE ro_kept(c.id)', 15);

\ir timing.sql

SELECT pg_temp.timed_on_off(name, q, reps) FROM queries ORDER BY ord \g /dev/null

\echo '== every run (ms)'
SELECT name, setting, round(ms) AS ms, result FROM runs ORDER BY name, setting;

\echo '== medians (ms) of each case''s runs (runs per setting); speedup = off / on; vs_random = this case''s speedup / random''s'
WITH med AS (
  SELECT name, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
         min(result) AS result, count(DISTINCT result) AS results
    FROM runs GROUP BY 1, 2),
ratio AS (
  SELECT f.name, f.ms AS off_ms, n.ms AS on_ms, f.ms / n.ms AS speedup,
         f.result = n.result AND f.results = 1 AND n.results = 1 AS same_result
    FROM med f JOIN med n USING (name) WHERE f.setting = 'off' AND n.setting = 'on')
SELECT r.name, q.reps AS runs, round(r.off_ms) AS off_ms, round(r.on_ms) AS on_ms, round(r.speedup::numeric, 2) AS speedup,
       round((r.speedup / x.speedup)::numeric, 2) AS vs_random, r.same_result
  FROM ratio r JOIN queries q USING (name), ratio x
 WHERE x.name = 'random'
 ORDER BY q.ord;

\echo '== the probes'' counts (EXPLAIN ANALYZE, VERBOSE for the switch''s counts)'
CREATE FUNCTION probe_counts(q text) RETURNS TABLE (probe text, rows_in bigint, probed bigint, removed bigint,
                                                    unprobed bigint, pauses bigint) LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF) ' || q INTO plan;
    RETURN QUERY
      SELECT 'filter ' || (n->>'Runtime Filter'),
             (n->'Plans'->0->>'Actual Rows')::bigint,
             (n->>'Rows Probed')::bigint, (n->>'Rows Removed by Runtime Filter')::bigint,
             (n->>'Rows Passed Unprobed')::bigint, (n->>'Pauses')::bigint
        FROM jsonb_path_query(plan, 'strict $.**') AS n
       WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'BloomFilterProbe';
END $$;
SELECT q.name, c.* FROM queries q, probe_counts(q.q) c ORDER BY q.ord, c.probe;
