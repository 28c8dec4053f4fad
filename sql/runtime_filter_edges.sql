--
-- Runtime filters: the plan edges a probe must never sit on, with filters
-- forced.  A probe may go only between a node and a child that the node
-- reads through ExecProcNode alone (accepts_probe in
-- src/runtime/placement.c); each case below builds a plan with one of the
-- other edges in the way of a probe, shows where the probes went (parent ->
-- probe -> child), and compares the rows with the setting on and off.
-- Uses the tables and helpers of runtime_filter.sql.
--
LOAD 'bloomfilter';
SET search_path = runtime, public;
SET bloomfilter.runtime_filter_force = on;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
-- join order as written: each case's shape does not depend on estimates
SET join_collapse_limit = 1;
SET from_collapse_limit = 1;

-- For each node of ours: "probe N: Parent -> Child" (or "build N: ..."),
-- the parent being the node the probe's rows go to, with the child's role
-- under it when that is not the only one (Outer, Inner, Member).
CREATE FUNCTION rf_edges(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO plan;
    RETURN coalesce((
        WITH RECURSIVE n(node, parent, path) AS (
            SELECT plan->0->'Plan', NULL::jsonb, ARRAY[]::bigint[]
            UNION ALL
            SELECT c.child, n.node, n.path || c.i
              FROM n, jsonb_array_elements(n.node->'Plans') WITH ORDINALITY AS c(child, i)
        )
        SELECT string_agg(format('%s %s: %s -> %s%s',
                   CASE WHEN node->>'Custom Plan Provider' = 'BloomFilterProbe' THEN 'probe' ELSE 'build' END,
                   node->>'Runtime Filter',
                   coalesce(parent->>'Custom Plan Provider', parent->>'Node Type'),
                   coalesce(node->'Plans'->0->>'Custom Plan Provider', node->'Plans'->0->>'Node Type'),
                   CASE WHEN node->>'Parent Relationship' IN ('Outer', 'Inner')
                         AND parent->>'Node Type' NOT IN ('Hash', 'Sort', 'Memoize', 'Material', 'Aggregate', 'Unique', 'Custom Scan')
                        THEN ' (' || lower(node->>'Parent Relationship') || ' side)' ELSE '' END),
                   ', ' ORDER BY path)
          FROM n
         WHERE node->>'Custom Plan Provider' LIKE 'BloomFilter%'), 'no filter');
END $$;

-- Rows of a data-modifying statement with the setting on and off, compared,
-- each run undone.
CREATE FUNCTION rf_check_dml(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    setting text;
    rows text[];
    results text[] := '{}';  -- each setting's rows, as text
BEGIN
    FOREACH setting IN ARRAY ARRAY['on', 'off'] LOOP
        PERFORM set_config('bloomfilter.runtime_filter', setting, true);
        BEGIN
            EXECUTE format('WITH m AS (%s RETURNING *) SELECT coalesce(array_agg(m::text ORDER BY m::text), ''{}'') FROM m', q)
               INTO rows;
            results := results || ARRAY[rows::text];
            RAISE EXCEPTION USING ERRCODE = 'P0004';  -- undo the writes
        EXCEPTION WHEN assert_failure THEN NULL;
        END;
    END LOOP;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', true);
    RETURN format('%s rows, %s', cardinality(results[1]::text[]),
                  CASE WHEN results[1] = results[2] THEN 'same' ELSE 'DIFFERENT' END);
END $$;

CREATE TABLE big_copy AS SELECT * FROM big;
CREATE INDEX big_copy_k ON big_copy (k);
CREATE INDEX big_copy_id ON big_copy (id);
ANALYZE big_copy;

-- Hash Join -> Hash.  The upper join's key (m.w) comes from the lower
-- join's inner side.  Its inner side reads an InitPlan's value, so its filter
-- may change between scans and may not pass the lower Hash node: the probe
-- stays above the lower join, never between it and its Hash (1.5 put it
-- there: "unrecognized node type" on 15, a crash on 18).
SELECT rf_edges(q), rf_check(q) FROM (VALUES (
  'SELECT count(*), sum(b.id) FROM (big b JOIN mid m ON b.m = m.m) JOIN mid d ON m.w = d.m WHERE d.w = (SELECT 1)')) AS x(q);
-- The same with a constant: the filter is the same at every scan and goes
-- through the lower Hash node, to the scan below it.
SELECT rf_edges(q), rf_check(q) FROM (VALUES (
  'SELECT count(*), sum(b.id) FROM (big b JOIN mid m ON b.m = m.m) JOIN mid d ON m.w = d.m WHERE d.w = 1')) AS x(q);
-- 1.5's failing query, at a smaller scale: its plan, and its rows.
CREATE TABLE rt_big AS SELECT (hashint8(g) & 1073741823)::bigint AS k FROM generate_series(1, 20000) g;
CREATE TABLE rt_small AS SELECT k FROM rt_big WHERE k % 10 = 0;
CREATE TABLE rt_mid AS SELECT k, (k % 2000) AS y FROM rt_small;
CREATE TABLE rt_dim AS SELECT g AS y, g % 10 AS z FROM generate_series(0, 9999) g;
ANALYZE rt_big, rt_small, rt_mid, rt_dim;
-- (an InitPlan's value is "$0" up to 16, "(InitPlan 1).col1" from 17 on)
SELECT regexp_replace(regexp_replace(line, ' \(returns \$0\)$', ''), '\$0', '(InitPlan 1).col1') AS plan
  FROM explain_analyze('SELECT count(*) FROM (rt_big b JOIN rt_mid m ON b.k = m.k) JOIN rt_dim d ON m.y = d.y WHERE d.z = (SELECT 1 + 0)') AS line;
SELECT count(*) FROM (rt_big b JOIN rt_mid m ON b.k = m.k) JOIN rt_dim d ON m.y = d.y WHERE d.z = (SELECT 1 + 0);
SET bloomfilter.runtime_filter = off;
SELECT count(*) FROM (rt_big b JOIN rt_mid m ON b.k = m.k) JOIN rt_dim d ON m.y = d.y WHERE d.z = (SELECT 1 + 0);
SET bloomfilter.runtime_filter = on;

-- Merge Join -> its inner side (marked and restored).  bit(32) has no hash
-- operator class, so the lower join can only be a merge join (or a nested
-- loop).  A key from the inner side keeps its probe above the merge join;
-- one from the outer side goes down it.
SET enable_nestloop = off;
SELECT rf_edges(q), rf_check(q) FROM (VALUES (
  'SELECT count(*), sum(a.id) FROM (big a JOIN big_copy b ON a.k::bit(32) = b.k::bit(32)) JOIN mid ON b.m = mid.m WHERE mid.w = 1'),
  ('SELECT count(*), sum(a.id) FROM (big a JOIN big_copy b ON a.k::bit(32) = b.k::bit(32)) JOIN mid ON a.m = mid.m WHERE mid.w = 1')) AS x(q);
RESET enable_nestloop;

-- Nested Loop -> its parameterized inner side, with and without Memoize:
-- the outer row's values reach the index scan under the probe at every
-- rescan.
SET enable_hashjoin = on;
SET enable_mergejoin = off;
SELECT rf_edges(q), rf_check(q) FROM (VALUES (
  'SELECT count(*), sum(b.id) FROM (big x JOIN big_copy b ON b.k BETWEEN x.grp AND x.grp + 1) JOIN mid ON b.m = mid.m WHERE mid.w = 1'),
  ('SELECT count(*), sum(b.id) FROM (small x JOIN big_copy b ON b.k BETWEEN x.k AND x.k + 1) JOIN mid ON b.m = mid.m WHERE mid.w = 1')) AS x(q);
RESET enable_mergejoin;

-- Bitmap Heap Scan -> bitmap nodes (read with MultiExecProcNode): the probe
-- stays above the Bitmap Heap Scan.
SET enable_seqscan = off;
SET enable_nestloop = off;
SET enable_mergejoin = off;
SELECT rf_edges(q), rf_check(q) FROM (VALUES (
  'SELECT count(*), sum(b.id) FROM big_copy b JOIN (SELECT * FROM small WHERE v < 50) s USING (k) WHERE b.id < 3000 OR b.id > 17000')) AS x(q);
RESET enable_seqscan;

-- Gather and Gather Merge: the rows below come from other processes; the
-- probe stays above.  A temporary table keeps the join in the leader.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_hashagg = off;
SELECT rf_edges(q), rf_check(q) FROM (VALUES (
  'SELECT g.k, g.n FROM (SELECT k, count(*) AS n FROM big GROUP BY k) g JOIN (SELECT * FROM small WHERE v < 100) s USING (k)')) AS x(q);
RESET enable_hashagg;
CREATE TEMP TABLE tsmall AS SELECT * FROM small WHERE v < 100;
ANALYZE tsmall;
SELECT rf_edges(q), rf_check(q) FROM (VALUES (
  'SELECT big.id FROM big JOIN tsmall USING (k)')) AS x(q);
SET max_parallel_workers_per_gather = 0;
RESET enable_nestloop;
RESET enable_mergejoin;

-- RecursiveUnion and its work table: joins inside the recursive term are
-- rescanned at every step with a new work table.
SELECT rf_edges(q), rf_check(q) FROM (VALUES (
  'WITH RECURSIVE r(k, n) AS (SELECT k, 0 FROM small WHERE v < 10 UNION ALL SELECT big.k + 20, r.n + 1 FROM r JOIN big ON big.k = r.k WHERE r.n < 5) SELECT k, n FROM r'),
  ('WITH RECURSIVE r(k, n) AS (SELECT k, 0 FROM small WHERE v < 10 UNION ALL SELECT big.k + 20, r.n + 1 FROM big JOIN r ON big.k = r.k WHERE r.n < 5) SELECT r.k, r.n FROM r JOIN small USING (k)')) AS x(q);

-- ModifyTable: deletes and updates driven by joins, among them 1.5's second
-- crash on 18 (a hash join under a hash right anti join, from PostgreSQL's
-- rules test).
CREATE TABLE small_copy AS SELECT * FROM small;
CREATE TABLE mid_copy AS SELECT * FROM mid;
ANALYZE small_copy, mid_copy;
SELECT rf_check_dml('DELETE FROM big_copy WHERE EXISTS (SELECT FROM small WHERE small.k = big_copy.k)') AS delete_semi;
SELECT rf_check_dml('DELETE FROM small_copy WHERE NOT EXISTS (SELECT FROM big WHERE big.k = small_copy.k)') AS delete_anti;
SELECT rf_check_dml('DELETE FROM mid_copy WHERE NOT EXISTS (SELECT FROM big JOIN small USING (k) WHERE big.m = mid_copy.m AND small.v < 3)') AS delete_anti_over_join;
SELECT rf_check_dml('UPDATE big_copy SET m = big_copy.m + 1 FROM small WHERE small.k = big_copy.k') AS update_from;

RESET ALL;
