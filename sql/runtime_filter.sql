--
-- Runtime Bloom filters in hash joins (bloomfilter.runtime_filter).
--
-- Every query runs with the setting on and off and the results are
-- compared ("same" or "DIFFERENT"); then EXPLAIN ANALYZE says where the
-- filters were built and probed, and whether each probe removed rows.
-- bloomfilter.runtime_filter_force puts a filter on every hash join that can
-- take one, so that correctness is tested whatever the cost model would say
-- of these small tables; the decision itself is tested at the end.
--
-- (1.12) Whether runtime filters are active in a session, and why not: a
-- session loads the library at its first call of a bloomfilter function
-- (LOAD counts), and plans without filters before; one whose database
-- names it in session_preload_libraries loads it at its start, and its
-- settings exist before any call.  bloom_runtime_check() warns where new
-- sessions would not load it (CREATE EXTENSION calls it: bloom_type).
LOAD 'bloomfilter';
SELECT active, loaded, every_session FROM bloom_runtime_status();
SELECT bloom_runtime_check();
-- (a SET in this session is not what a new session starts with)
SET session_preload_libraries = 'bloomfilter';
SELECT every_session FROM bloom_runtime_status();
RESET session_preload_libraries;
DO $$BEGIN EXECUTE format('ALTER DATABASE %I SET session_preload_libraries = %L',
                          current_database(), 'bloomfilter'); END$$;
\c
SHOW bloomfilter.runtime_filter;
SELECT active, loaded, every_session, reason FROM bloom_runtime_status();
SELECT bloom_runtime_check();
SET bloomfilter.runtime_filter = off;
SELECT active, reason FROM bloom_runtime_status();
DO $$BEGIN EXECUTE format('ALTER DATABASE %I RESET session_preload_libraries',
                          current_database()); END$$;
\c
LOAD 'bloomfilter';
CREATE SCHEMA runtime;
SET search_path = runtime, public;
SET bloomfilter.runtime_filter_force = on;
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET jit = off;

-- big: 20,000 rows, keys 0 .. 19,999; small: 1,000 keys, every 20th (5 %).
CREATE TABLE big AS
  SELECT g AS id, g AS k, g::int8 AS k8, 'k' || g AS t, g % 50 AS grp,
         CASE WHEN g % 7 = 0 THEN NULL ELSE g END AS nk, g % 100 AS m
    FROM generate_series(0, 19999) g;
CREATE TABLE small AS
  SELECT g * 20 AS k, (g * 20)::int8 AS k8, 'K' || g * 20 AS t, g AS v
    FROM generate_series(0, 999) g;
INSERT INTO small VALUES (NULL, NULL, NULL, -1);
CREATE TABLE small_wide AS SELECT k, repeat(t, 200) AS t FROM small;
CREATE TABLE mid AS SELECT g AS m, g % 10 AS w FROM generate_series(0, 99) g;
CREATE TABLE dim2 AS SELECT g * 2 AS grp FROM generate_series(0, 4) g;
ANALYZE big, small, small_wide, mid, dim2;

-- Where the filters are: for each node of ours, in plan order, "probe N on
-- <child>" or "build N on <child>", and whether a probe removed rows.
CREATE FUNCTION rf_where(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
    RETURN coalesce((
        SELECT string_agg(format('%s %s on %s%s%s',
                   CASE WHEN n->>'Custom Plan Provider' = 'BloomFilterProbe' THEN 'probe' ELSE 'build' END,
                   n->>'Runtime Filter',
                   n->'Plans'->0->>'Node Type',
                   coalesce(' ' || (n->'Plans'->0->>'Alias'), ''),
                   CASE WHEN n->>'Custom Plan Provider' = 'BloomFilterBuild' THEN ''
                        WHEN (n->>'Rows Removed by Runtime Filter')::bigint > 0 THEN ' (removes)'
                        ELSE ' (removes none)' END),
                   ', ' ORDER BY ord)
          FROM jsonb_path_query(plan, 'strict $.**') WITH ORDINALITY AS x(n, ord)
         WHERE jsonb_typeof(n) = 'object' AND n ? 'Custom Plan Provider'
           AND n->>'Custom Plan Provider' LIKE 'BloomFilter%'), 'no filter');
END $$;

-- The query's rows with the setting on and off, compared, and where the filters are.
CREATE FUNCTION rf_check(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    with_filters text[];
    without text[];
    placed text;
BEGIN
    PERFORM set_config('bloomfilter.runtime_filter', 'on', true);
    EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
       INTO with_filters;
    placed := rf_where(q);
    PERFORM set_config('bloomfilter.runtime_filter', 'off', true);
    EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
       INTO without;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', true);
    RETURN format('%s rows, %s: %s', cardinality(with_filters),
                  CASE WHEN with_filters = without THEN 'same' ELSE 'DIFFERENT' END, placed);
END $$;

-- EXPLAIN ANALYZE's text, with row counts printed alike on every version
-- (18 prints "rows=1.00").
CREATE FUNCTION explain_analyze(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
        RETURN NEXT regexp_replace(line, 'rows=(\d+)\.00 ', 'rows=\1 ');
    END LOOP;
END $$;

-- The plan, as EXPLAIN shows it.
EXPLAIN (COSTS OFF) SELECT count(*) FROM big JOIN small USING (k);
SELECT explain_analyze('SELECT count(*) FROM big JOIN small USING (k)');

-- Join types: the outer side of inner, semi and right joins is filtered;
-- the preserved side of left, full and anti joins never is.
SELECT rf_check('SELECT big.id, small.v FROM big JOIN small USING (k)') AS inner_join;
SELECT rf_check('SELECT id FROM big WHERE k IN (SELECT k FROM small)') AS semi_in;
SELECT rf_check('SELECT id FROM big WHERE EXISTS (SELECT FROM small WHERE small.k = big.k)') AS semi_exists;
SELECT rf_check('SELECT small.v, big.id FROM small LEFT JOIN big USING (k)') AS right_join;
SELECT rf_check('SELECT big.id, small.v FROM big LEFT JOIN small USING (k)') AS left_join;
SELECT rf_check('SELECT big.id, small.v FROM big FULL JOIN small USING (k)') AS full_join;
SELECT rf_check('SELECT id FROM big WHERE NOT EXISTS (SELECT FROM small WHERE small.k = big.k)') AS anti_join;
-- (right anti and right semi joins, which 16 and 18 added: runtime_filter_right.sql)

-- Keys: cross-type, several columns, an expression, a NULL on either side,
-- a nondeterministic collation.
SELECT rf_check('SELECT big.id FROM big JOIN small ON big.k = small.k8') AS int4_int8;
SELECT rf_check('SELECT big.id FROM big JOIN small ON big.k8 = small.k') AS int8_int4;
SELECT rf_check('SELECT big.id FROM big JOIN small ON big.k = small.k AND big.k8 = small.k8') AS two_keys;
CREATE STATISTICS big_upper_t ON (upper(t)) FROM big;
ANALYZE big;
SELECT rf_check('SELECT big.id FROM big JOIN small ON upper(big.t) = small.t') AS expression_key;
SELECT rf_check('SELECT big.id FROM big JOIN small ON big.nk = small.k') AS null_keys;
CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT rf_check('SELECT big.id FROM big JOIN small ON big.t COLLATE ci = small.t') AS nondeterministic;
SELECT rf_check('SELECT big.id FROM big JOIN small ON big.t = small.t') AS deterministic_text;

-- How far down a probe goes: through inner joins (star joins), Append
-- (partitions, UNION ALL), grouping by the key; not through LIMIT, window
-- functions, DISTINCT ON another column, set-returning functions, volatile
-- expressions or the nullable side of an outer join.
SELECT rf_check('SELECT big.id, mid.w FROM big JOIN mid USING (m) JOIN small USING (k)') AS through_join;
SELECT rf_check('SELECT big.id FROM big JOIN small USING (k) JOIN dim2 USING (grp)') AS star_join;
CREATE TABLE bigp (LIKE big) PARTITION BY HASH (id);
CREATE TABLE bigp0 PARTITION OF bigp FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE bigp1 PARTITION OF bigp FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE bigp2 PARTITION OF bigp FOR VALUES WITH (MODULUS 3, REMAINDER 2);
INSERT INTO bigp SELECT * FROM big;
ANALYZE bigp;
SELECT rf_check('SELECT bigp.id FROM bigp JOIN small USING (k)') AS partitions;
SELECT rf_check('SELECT u.id FROM (SELECT id, k FROM big UNION ALL SELECT id, k FROM bigp) u JOIN (SELECT * FROM small WHERE v < 50) s USING (k)') AS union_all;
SELECT rf_check('SELECT g.k, g.n FROM (SELECT k, count(*) AS n FROM big GROUP BY k) g JOIN (SELECT * FROM small WHERE v < 100) s USING (k)') AS group_by_key;
-- (a wrong filter below the Agg, DISTINCT ON or Limit would add rows here)
SELECT rf_check('SELECT g.c FROM (SELECT id % 5000 AS c, max(k) AS k FROM big GROUP BY id % 5000) g JOIN (SELECT * FROM small WHERE v < 100) s USING (k)') AS group_by_other;
-- grouping under a nondeterministic collation merges 'kN' and 'KN': only a
-- join under the same collation may filter below it
CREATE TABLE cased AS
  SELECT CASE WHEN g % 2 = 0 THEN 'k' ELSE 'K' END || (g / 2) AS t FROM generate_series(0, 19999) g;
ANALYZE cased;
SELECT rf_check('SELECT g.t, g.n FROM (SELECT t COLLATE ci AS t, count(*) AS n FROM cased GROUP BY 1) g JOIN (SELECT * FROM small WHERE v < 100) s ON g.t = s.t') AS group_ci_join_ci;
SELECT rf_check('SELECT g.t, g.n FROM (SELECT t COLLATE ci AS t, count(*) AS n FROM cased GROUP BY 1) g JOIN (SELECT * FROM small WHERE v < 100) s ON g.t = s.t COLLATE "C"') AS group_ci_join_c;
SELECT rf_check('SELECT l.id FROM (SELECT id, k FROM big ORDER BY id LIMIT 5000) l JOIN small USING (k)') AS under_limit;
SELECT rf_check('SELECT w.rn FROM (SELECT k, row_number() OVER (ORDER BY id) AS rn FROM big) w JOIN small USING (k)') AS window_function;
SELECT rf_check('SELECT d.id FROM (SELECT DISTINCT ON (id / 4) id, k FROM big ORDER BY id / 4, k DESC) d JOIN (SELECT * FROM small WHERE v < 100) s USING (k)') AS distinct_on_other;
SELECT rf_check('SELECT d.id FROM (SELECT DISTINCT ON (k) k, id FROM big ORDER BY k, id) d JOIN small USING (k)') AS distinct_on_key;
SELECT rf_check('SELECT s.g FROM (SELECT k, generate_series(1, 2) AS g FROM big) s JOIN small USING (k)') AS set_returning;
CREATE SEQUENCE seq;
SELECT rf_check('SELECT s.k FROM (SELECT k, nextval(''seq'') > 0 AS x FROM big) s JOIN small USING (k) WHERE s.x') AS volatile_column;
-- (no hash join takes a volatile clause: a nested loop, over a tenth of big)
SELECT rf_check('SELECT big.id FROM big JOIN small ON big.k + (random() * 0)::int = small.k WHERE big.id < 2000') AS volatile_key;
-- (OFFSET 0 keeps the upper join's strict clause from turning the left join into an inner one)
SELECT rf_check('SELECT o.id FROM (SELECT big.id, s2.k FROM big LEFT JOIN small s2 ON s2.k = big.k OFFSET 0) o JOIN (SELECT * FROM small WHERE v < 100) s USING (k)') AS nullable_side;
SELECT rf_check('SELECT o.id FROM (SELECT big.id, big.k FROM big LEFT JOIN small s2 ON s2.k = big.k + 1 OFFSET 0) o JOIN (SELECT * FROM small WHERE v < 100) s USING (k)') AS preserved_side;

-- Spilling: the filter holds the keys of every batch.
SET work_mem = '64kB';
SELECT rf_check('SELECT big.id, s.t FROM big JOIN small_wide s USING (k)') AS multi_batch;
SELECT bool_or(substring(line FROM 'Batches: (\d+)')::int > 1) AS spills
  FROM explain_analyze('SELECT big.id, s.t FROM big JOIN small_wide s USING (k)') AS line;
RESET work_mem;

-- Rescans: a join under a nested loop whose inner side depends on the
-- outer row (rebuilt every time), or whose outer side does (table reused).
SET enable_nestloop = on;
SELECT rf_check('SELECT s1.v, x.n FROM small s1, LATERAL (SELECT count(*) AS n FROM big JOIN small s2 USING (k) WHERE s2.v < s1.v) x WHERE s1.v BETWEEN 1 AND 5') AS rescan_inner_param;
SELECT rf_check('SELECT s1.v, x.n FROM small s1, LATERAL (SELECT count(*) AS n FROM big JOIN small s2 USING (k) WHERE big.id < s1.v * 100) x WHERE s1.v BETWEEN 1 AND 5') AS rescan_outer_param;
SELECT rf_check('SELECT s1.v, (SELECT count(*) FROM big JOIN small s2 USING (k) WHERE s2.v <= s1.v) FROM small s1 WHERE s1.v < 4') AS correlated_subplan;
RESET enable_nestloop;

-- Prepared statements with a generic plan, and cursors.
SET plan_cache_mode = force_generic_plan;
PREPARE q(int) AS SELECT count(*), sum(big.id) FROM big JOIN small USING (k) WHERE small.v < $1;
EXECUTE q(10);
EXECUTE q(1000);
SET bloomfilter.runtime_filter = off;
EXECUTE q(10);
EXECUTE q(1000);
SET bloomfilter.runtime_filter = on;
DEALLOCATE q;
RESET plan_cache_mode;
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT big.id FROM big JOIN small USING (k) ORDER BY big.id;
FETCH 3 FROM c;
FETCH BACKWARD 2 FROM c;
MOVE LAST IN c;
FETCH BACKWARD 1 FROM c;
COMMIT;

-- Parallel query: a join that is not parallel-aware builds one filter per
-- process; a Parallel Hash Join one filter that its processes share.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;
SET enable_parallel_hash = off;
SELECT rf_check('SELECT big.id FROM big JOIN small USING (k)') AS parallel_per_worker;
SET enable_parallel_hash = on;
SELECT rf_check('SELECT big.id FROM big JOIN small USING (k)') AS parallel_hash;
SET parallel_leader_participation = on;
SELECT rf_check('SELECT big.id FROM big JOIN small USING (k) JOIN dim2 USING (grp)') AS parallel_hash_star;
SET work_mem = '64kB';
SELECT rf_check('SELECT big.id, s.t FROM big JOIN small_wide s USING (k)') AS parallel_hash_batches;
SELECT bool_or(substring(line FROM 'Batches: (\d+)')::int > 1) AS spills
  FROM explain_analyze('SELECT big.id, s.t FROM big JOIN small_wide s USING (k)') AS line;
RESET work_mem;
RESET ALL;

-- Empty sides, and the setting off.
SET search_path = runtime, public;
SET bloomfilter.runtime_filter_force = on;
SET max_parallel_workers_per_gather = 0;
SELECT rf_check('SELECT big.id FROM big JOIN (SELECT * FROM small WHERE v < 0 AND k IS NOT NULL) s USING (k)') AS empty_inner;
SELECT rf_check('SELECT b.id FROM (SELECT * FROM big WHERE id < 0) b JOIN small USING (k)') AS empty_outer;
SET bloomfilter.runtime_filter = off;
SELECT rf_where('SELECT big.id FROM big JOIN small USING (k)') AS setting_off;

-- The decision, from the estimates (core/bf_runtime.h): a hash table
-- beyond the CPU cache with most outer rows removable gets a filter; one in
-- the cache does not (a removed row saves little more than a probe costs),
-- nor a join where every outer row matches.
SET bloomfilter.runtime_filter = on;
SET bloomfilter.runtime_filter_force = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
CREATE TABLE wide AS SELECT g * 10 AS k, repeat('w', 200) AS pad FROM generate_series(1, 20000) g;
CREATE TABLE big2 AS SELECT g AS k, g % 20000 + 1 AS fk FROM generate_series(1, 200000) g;
ANALYZE wide, big2;
SELECT rf_check('SELECT big2.k, length(wide.pad) FROM big2 JOIN wide USING (k)') AS large_table;
SELECT rf_check('SELECT big.id FROM big JOIN small USING (k)') AS table_in_cache;
SELECT rf_check('SELECT big2.k FROM big2 JOIN (SELECT k / 10 AS fk, pad FROM wide) w USING (fk)') AS every_row_matches;

-- The planner's estimate of the hash table can be wrong: here it expects
-- 30,000 inner rows (1.6 MB, a filter planned) and gets 50.  Once the table
-- is built the probe prices the filter again from its real size (the 50
-- rows and the bucket array sized for 30,000: 260 kB), finds it in the CPU
-- cache, and does not probe (nor remove) at all.
CREATE TABLE stale WITH (autovacuum_enabled = off) AS SELECT g * 4 AS k FROM generate_series(1, 30000) g;
ANALYZE stale;
DELETE FROM stale WHERE k > 200;
SELECT rf_check('SELECT big2.k FROM big2 JOIN stale USING (k)') AS table_smaller_than_planned;
SELECT regexp_replace(line, '\(\d+ kB\)', '(N kB)') AS line
  FROM explain_analyze('SELECT count(*) FROM big2 JOIN stale USING (k)') AS line
 WHERE line ~ 'Runtime Filter|Filter Disabled';
-- The same under a Parallel Hash Join: the shared table's size is read from
-- its one batch once every participant has hashed its share, and whichever
-- process probes finds it in the cache.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT rf_check('SELECT big2.k FROM big2 JOIN stale USING (k)') AS parallel_table_smaller_than_planned;
-- (the counts depend on how many workers start)
SELECT regexp_replace(regexp_replace(line, '\(\d+ kB\)', '(N kB)'), ' \(actual .*\)', '') AS line
  FROM explain_analyze('SELECT count(*) FROM big2 JOIN stale USING (k)') AS line
 WHERE line ~ 'Parallel Hash Join|Runtime Filter|Filter Disabled';
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- More inner rows than the build collects before sizing (4,194,304 hashes,
-- as much memory as the largest filter): the rest go straight into the
-- largest filter, whatever the estimate said (here 1,000 rows).  About half
-- the probe keys match; the join's row count must equal the count below.
SET bloomfilter.runtime_filter_force = on;
SET work_mem = '1GB';
CREATE FUNCTION many_keys() RETURNS SETOF int ROWS 1000 LANGUAGE plpgsql AS
  'BEGIN RETURN QUERY SELECT generate_series(1, 4300000); END';
SELECT line FROM explain_analyze('SELECT count(*) FROM big2 JOIN many_keys() g(k) ON big2.k * 7919 % 8600000 = g.k') AS line
 WHERE line ~ 'Hash Join|Filter (Keys|Size)|Removed';
RESET work_mem;
SELECT count(*) AS matching FROM big2 WHERE k * 7919 % 8600000 BETWEEN 1 AND 4300000;

-- bloomfilter.runtime_filter_max_size caps every filter: 64kB holds about
-- 53,000 keys at 1%.  The join below hashes big2, so its filter gets 200,000
-- keys, which leave a 64kB filter too full to remove rows: its probe (on
-- 250,000 odd numbers, 100,000 of which match) then passes every row, the
-- same rows come out, none removed.  Uncapped, the same filter removes.
-- (The planner plans no filter for more inner rows than the cap holds;
-- here the filter is forced.)
CREATE FUNCTION odd_keys() RETURNS SETOF int ROWS 1000 LANGUAGE plpgsql AS
  'BEGIN RETURN QUERY SELECT generate_series(1, 500000, 2); END';
SELECT rf_check('SELECT big2.k FROM big2 JOIN odd_keys() g(k) ON big2.k = g.k') AS uncapped;
SET bloomfilter.runtime_filter_max_size = '64kB';
SELECT rf_check('SELECT big2.k FROM big2 JOIN odd_keys() g(k) ON big2.k = g.k') AS capped;
SELECT line FROM explain_analyze('SELECT count(*) FROM big2 JOIN odd_keys() g(k) ON big2.k = g.k') AS line
 WHERE line ~ 'Hash Join|Filter (Keys|Size|Disabled)|Removed';
RESET bloomfilter.runtime_filter_max_size;
-- its bounds: 64kB to 16MB (the message's wording differs between versions)
DO $$
DECLARE
    size text;
BEGIN
    FOREACH size IN ARRAY ARRAY['32kB', '32MB'] LOOP
        BEGIN
            PERFORM set_config('bloomfilter.runtime_filter_max_size', size, false);
            RAISE NOTICE '% accepted', size;
        EXCEPTION WHEN invalid_parameter_value THEN
            RAISE NOTICE '% refused (%)', size, SQLSTATE;
        END;
    END LOOP;
END $$;
SHOW bloomfilter.runtime_filter_max_size;
