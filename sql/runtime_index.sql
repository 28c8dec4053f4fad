--
-- Runtime filters taken from a bloomfilter index (1.9): a hash join whose
-- inner side reads a whole table with a bloomfilter index on a join key
-- takes its filter from the index instead of building it; EXPLAIN says
-- "Filter Source".  Every query runs with filters on and off and the rows
-- are compared (runtime_filter.sql's rf_check), with filters forced.
--
LOAD 'bloomfilter';
CREATE SCHEMA runtime_index;
SET search_path = runtime_index, runtime, public;
SET bloomfilter.runtime_filter_force = on;
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET jit = off;

-- seen: 2,000 keys (every 10th of 0 .. 19,990), with a bloomfilter index on
-- k; events: 20,000 rows whose keys come in sorted runs, then at random.
CREATE TABLE seen (k int8, t text, v varchar, code int4);
INSERT INTO seen SELECT g * 10, 'k' || g * 10, 'v' || g * 10, g FROM generate_series(0, 1999) g;
INSERT INTO seen VALUES (NULL, NULL, NULL, NULL);
CREATE INDEX seen_k ON seen USING bloomfilter (k);
CREATE TABLE events (id int, k int8, k4 int4, t text, code int4);
INSERT INTO events SELECT g, g, g, 'k' || g, g % 3000 FROM generate_series(0, 9999) g;
INSERT INTO events
  SELECT 10000 + g, h, h, 'k' || h, h % 3000
    FROM (SELECT g, (g * 7919) % 25000 AS h FROM generate_series(0, 9999) g) r;
INSERT INTO events VALUES (-1, NULL, NULL, NULL, NULL);
ANALYZE seen, events;

-- Where the filter of a query's join comes from: "Filter Source: ...", or built
CREATE FUNCTION source_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line ~ 'Filter Source' THEN
            RETURN trim(line);
        END IF;
    END LOOP;
    RETURN 'built';
END $$;

-- The filter comes from the index: its layers, not hashes; no key is read
SELECT explain_analyze('SELECT count(*) FROM events JOIN seen USING (k)');

-- Join types whose outer rows may be filtered, rows compared with filters off
SELECT rf_check('SELECT events.id, seen.t FROM events JOIN seen USING (k)') AS inner_join;
SELECT rf_check('SELECT id FROM events WHERE k IN (SELECT k FROM seen)') AS semi_in;
SELECT rf_check('SELECT id FROM events WHERE EXISTS (SELECT FROM seen WHERE seen.k = events.k)') AS semi_exists;
SELECT rf_check('SELECT seen.t, events.id FROM seen LEFT JOIN events USING (k)') AS right_join;
SELECT rf_check('SELECT id FROM events WHERE NOT EXISTS (SELECT FROM seen WHERE seen.k = events.k)') AS anti_join;
-- cross-type: int4 probes against the int8 index (integer_ops hashes both alike)
SELECT rf_check('SELECT events.id FROM events JOIN seen ON events.k4 = seen.k') AS int4_probe;
-- two keys: the filter tests the one the index holds
SELECT rf_check('SELECT events.id FROM events JOIN seen ON events.code = seen.code AND events.k = seen.k') AS two_keys;

-- What the index holds and the table does not: deleted keys stay (the filter
-- is a superset); keys added in this transaction are in it
BEGIN;
DELETE FROM seen WHERE k % 20 = 0;
INSERT INTO seen SELECT g, 'new' || g, NULL, NULL FROM generate_series(20001, 20999, 2) g;
SELECT rf_check('SELECT events.id, seen.t FROM events JOIN seen USING (k)') AS after_changes;
ROLLBACK;

-- Grown past its first layer (a page: about 6,700 keys at 1 %): several
-- layers, every one probed
CREATE TABLE grown (k int8);
INSERT INTO grown SELECT g FROM generate_series(0, 99) g;
CREATE INDEX grown_k ON grown USING bloomfilter (k) WITH (capacity = 100);
INSERT INTO grown SELECT g * 3 FROM generate_series(34, 20000) g;
ANALYZE grown;
SELECT layers > 1 AS several_layers FROM bloom_index_info('grown_k');
SELECT rf_check('SELECT events.id FROM events JOIN grown USING (k)') AS grown_index;
SELECT line FROM explain_analyze('SELECT count(*) FROM events JOIN grown USING (k)') AS line
 WHERE line ~ 'Filter (Source|Layers)';

-- Text: a deterministic collation hashes by bytes, as the index did; a
-- varchar column's index hashes as text does
CREATE INDEX seen_t ON seen USING bloomfilter (t);
CREATE INDEX seen_v ON seen USING bloomfilter (v);
SELECT rf_check('SELECT events.id FROM events JOIN seen USING (t)') AS text_key;
SELECT rf_check($$SELECT events.id FROM events JOIN seen ON 'v' || events.k = seen.v$$) AS varchar_column;
SELECT line FROM explain_analyze($$SELECT count(*) FROM events JOIN seen ON 'v' || events.k = seen.v$$) AS line
 WHERE line ~ 'Filter Source';

-- numeric: 1.0 and 1.00 are one key (the family's hash ignores the scale)
CREATE TABLE amounts (a numeric);
INSERT INTO amounts SELECT (g * 10)::numeric(12, 2) FROM generate_series(0, 1999) g;
CREATE INDEX amounts_a ON amounts USING bloomfilter (a);
ANALYZE amounts;
SELECT rf_check('SELECT events.id FROM events JOIN amounts ON events.k::numeric = amounts.a') AS numeric_key,
       source_of('SELECT count(*) FROM events JOIN amounts ON events.k::numeric = amounts.a') AS numeric_source;

-- Not taken from the index (the filter is built; rows still compared):
-- a nondeterministic collation: equal strings need not have equal bytes
SELECT source_of('SELECT count(*) FROM events JOIN seen ON events.t COLLATE ci = seen.t') AS nondeterministic,
       rf_check('SELECT events.id FROM events JOIN seen ON events.t COLLATE ci = seen.t') AS rows;
-- an index under a nondeterministic collation: its keys were hashed by sort
-- keys, which a new version of the collation may change
CREATE TABLE names_ci (t text COLLATE ci);
INSERT INTO names_ci SELECT t FROM seen;
CREATE INDEX names_ci_t ON names_ci USING bloomfilter (t);
ANALYZE names_ci;
SELECT source_of('SELECT count(*) FROM events JOIN names_ci ON events.t COLLATE ci = names_ci.t') AS index_nondeterministic,
       rf_check('SELECT events.id FROM events JOIN names_ci ON events.t COLLATE ci = names_ci.t') AS rows;
-- quals on the inner side (the index is not the inner side's keys)
SELECT source_of('SELECT count(*) FROM events JOIN seen USING (k) WHERE seen.code < 100') AS inner_quals;
-- an expression of the column as the key
SELECT source_of('SELECT count(*) FROM events JOIN seen ON events.k = seen.k + 1') AS expression_key;
-- an expression index, an index of a higher rate than a runtime filter's
-- (a partial one cannot be made: bloom_index.sql)
CREATE TABLE others (k int8, code int4);
INSERT INTO others SELECT g * 10, g FROM generate_series(0, 1999) g;
ANALYZE others;
CREATE INDEX others_expr ON others USING bloomfilter ((code + 0));
CREATE INDEX others_coarse ON others USING bloomfilter (code) WITH (false_positive_rate = 0.05);
SELECT source_of('SELECT count(*) FROM events JOIN others ON events.code = others.code + 0') AS expression,
       source_of('SELECT count(*) FROM events JOIN others USING (code)') AS coarse;
-- an index that is not valid (as an interrupted CREATE INDEX CONCURRENTLY leaves it)
UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'seen_k'::regclass;
SELECT source_of('SELECT count(*) FROM events JOIN seen USING (k)') AS not_valid;
UPDATE pg_index SET indisvalid = true WHERE indexrelid = 'seen_k'::regclass;
SELECT source_of('SELECT count(*) FROM events JOIN seen USING (k)') AS valid_again;

-- A filter larger than bloomfilter.runtime_filter_max_size is not taken at
-- run time: rows pass, and EXPLAIN says why
CREATE TABLE wide (k int8);
INSERT INTO wide SELECT k FROM seen;
CREATE INDEX wide_k ON wide USING bloomfilter (k) WITH (capacity = 100000);
ANALYZE wide;
SET bloomfilter.runtime_filter_max_size = '64kB';
SELECT rf_check('SELECT events.id FROM events JOIN wide USING (k)') AS too_large;
SELECT line FROM explain_analyze('SELECT count(*) FROM events JOIN wide USING (k)') AS line
 WHERE line ~ 'Filter (Source|Disabled)|Rows Removed';
RESET bloomfilter.runtime_filter_max_size;

-- A plan kept by a prepared statement: a dropped index makes it be planned again
PREPARE by_index AS SELECT count(*) FROM events JOIN others USING (code);
CREATE INDEX others_code ON others USING bloomfilter (code);
EXECUTE by_index;
SELECT source_of('EXECUTE by_index') AS prepared;
DROP INDEX others_code;
EXECUTE by_index;
SELECT source_of('EXECUTE by_index') AS after_drop;
DEALLOCATE by_index;

-- Rescans: a join rescanned for each outer row of a nested loop keeps its
-- hash table and the index's filter (its inner side does not change)
SET enable_nestloop = on;
SELECT rf_check($$SELECT g, (SELECT count(*) FROM events JOIN seen USING (k) WHERE events.id > g * 1000)
                    FROM generate_series(1, 3) g$$) AS rescans;
SELECT line FROM explain_analyze($$SELECT g, (SELECT count(*) FROM events JOIN seen USING (k) WHERE events.id > g * 1000)
                                   FROM generate_series(1, 3) g$$) AS line
 WHERE line ~ 'Filter Source|Rows Removed';
RESET enable_nestloop;

-- Under Gather: each process's build (a Hash that is not shared) takes the
-- index's filter; a Parallel Hash Join's shared filter is built
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_parallel_hash = off;
SELECT rf_check('SELECT events.id FROM events JOIN seen USING (k)') AS parallel_private,
       source_of('SELECT count(*) FROM events JOIN seen USING (k)') AS parallel_private_source;
SET enable_parallel_hash = on;
SELECT rf_check('SELECT events.id FROM events JOIN seen USING (k)') AS parallel_shared,
       source_of('SELECT count(*) FROM events JOIN seen USING (k)') AS parallel_shared_source;
RESET enable_parallel_hash;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
SET max_parallel_workers_per_gather = 0;

-- Unlogged and temporary tables, and a materialized view
CREATE UNLOGGED TABLE seen_unlogged AS SELECT k FROM seen;
CREATE INDEX ON seen_unlogged USING bloomfilter (k);
CREATE TEMP TABLE seen_temp AS SELECT k FROM seen;
CREATE INDEX ON seen_temp USING bloomfilter (k);
CREATE MATERIALIZED VIEW seen_view AS SELECT k FROM seen;
CREATE INDEX ON seen_view USING bloomfilter (k);
ANALYZE seen_unlogged, seen_temp, seen_view;
SELECT rf_check('SELECT events.id FROM events JOIN seen_unlogged USING (k)') AS unlogged,
       source_of('SELECT count(*) FROM events JOIN seen_unlogged USING (k)') AS unlogged_source;
SELECT rf_check('SELECT events.id FROM events JOIN seen_temp USING (k)') AS temporary;
SELECT rf_check('SELECT events.id FROM events JOIN seen_view USING (k)') AS materialized_view,
       source_of('SELECT count(*) FROM events JOIN seen_view USING (k)') AS view_source;

-- An ordinary user with SELECT on the tables gets the same rows
CREATE ROLE runtime_index_reader;
GRANT USAGE ON SCHEMA runtime_index, runtime TO runtime_index_reader;
GRANT SELECT ON events, seen TO runtime_index_reader;
GRANT EXECUTE ON FUNCTION rf_check(text), rf_where(text) TO runtime_index_reader;
SET ROLE runtime_index_reader;
SELECT rf_check('SELECT events.id FROM events JOIN seen USING (k)') AS ordinary_user;
RESET ROLE;
-- with row-level security on the inner table, the scan has the policy's
-- quals: the filter is built from the rows the user sees
ALTER TABLE seen ENABLE ROW LEVEL SECURITY;
CREATE POLICY seen_some ON seen FOR SELECT USING (k < 5000);
SET ROLE runtime_index_reader;
SELECT rf_check('SELECT events.id FROM events JOIN seen USING (k)') AS row_security,
       source_of('SELECT count(*) FROM events JOIN seen USING (k)') AS row_security_source;
RESET ROLE;
ALTER TABLE seen DISABLE ROW LEVEL SECURITY;
DROP POLICY seen_some ON seen;
REVOKE ALL ON events, seen FROM runtime_index_reader;
REVOKE ALL ON SCHEMA runtime_index, runtime FROM runtime_index_reader;
REVOKE ALL ON FUNCTION rf_check(text), rf_where(text) FROM runtime_index_reader;
DROP ROLE runtime_index_reader;

DROP SCHEMA runtime_index CASCADE;
