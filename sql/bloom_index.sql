--
-- The bloomfilter index access method (1.9): one Bloom filter over a column,
-- kept current by PostgreSQL on every write (src/index/).
--
CREATE SCHEMA bloom_index;
SET search_path = bloom_index, public;

-- ---- building, and what it holds ----
CREATE TABLE users (id int8, name text, note text);
INSERT INTO users SELECT g, 'user' || g, 'n' FROM generate_series(1, 20000) g;
CREATE INDEX users_id_seen ON users USING bloomfilter (id);
CREATE INDEX users_name_seen ON users USING bloomfilter (name) WITH (false_positive_rate = 0.001);

-- the first layer is sized for the table's distinct keys (and 5 % more): one layer
SELECT layers, keys_added BETWEEN 19900 AND 20000 AS keys_added_about_20000,
       capacity, false_positive_rate, estimated_rate < false_positive_rate AS under_declared
  FROM bloom_index_info('users_id_seen');
SELECT layers, capacity, false_positive_rate FROM bloom_index_info('users_name_seen');

-- every key is found; absent keys mostly are not, at most at the declared rate (+15 %)
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('users_id_seen', id)) AS id_false_negatives,
       count(*) FILTER (WHERE NOT bloom_index_contains('users_name_seen', name)) AS name_false_negatives
  FROM users;
SELECT count(*) FILTER (WHERE bloom_index_contains('users_id_seen', g::int8)) <= 0.0115 * 100000
           AS id_rate_ok,
       count(*) FILTER (WHERE bloom_index_contains('users_name_seen', 'user' || g)) <= 0.00115 * 100000
           AS name_rate_ok
  FROM generate_series(20001, 120000) g;

-- a value of another type of the column's hash family: an int4 against an int8 column
SELECT bloom_index_contains('users_id_seen', 42), bloom_index_contains('users_id_seen', 42::int2);
-- NULL asks nothing (strict)
SELECT bloom_index_contains('users_id_seen', NULL::int8) IS NULL AS null_is_null;
-- (1.12) an untyped literal, as WHERE would take it: read as text for a text
-- column, as the column's type otherwise (an int8 here), and refused as
-- that type refuses it; an explicit text value likewise; a varchar (text's
-- hash family) hashes as text
SELECT bloom_index_contains('users_name_seen', 'user42') AS untyped_text,
       bloom_index_contains('users_id_seen', '42') AS untyped_int8,
       bloom_index_contains('users_id_seen', ' 20001') AS untyped_int8_absent,
       bloom_index_contains('users_id_seen', '42'::text) AS text_as_int8,
       bloom_index_contains('users_name_seen', 'user42'::varchar) AS varchar_as_text,
       bloom_index_contains('users_name_seen', NULL) IS NULL AS untyped_null_is_null;
SELECT bloom_index_contains('users_id_seen', 'forty-two');
SELECT bloom_index_contains('users_id_seen', '99999999999999999999');
-- a domain's literal is read as its base type, unchecked, as WHERE reads it
CREATE DOMAIN positive AS int CHECK (VALUE > 0);
CREATE TABLE typed_domain (p positive);
INSERT INTO typed_domain VALUES (5);
CREATE INDEX typed_domain_p ON typed_domain USING bloomfilter (p);
SELECT bloom_index_contains('typed_domain_p', '5') AS five, bloom_index_contains('typed_domain_p', '-1') AS minus_one,
       EXISTS (SELECT FROM typed_domain WHERE p = '-1') AS where_minus_one;
DROP TABLE typed_domain;
DROP DOMAIN positive;
-- the literal's and the typed form's answers are the same for every key
SELECT count(*) FILTER (WHERE bloom_index_contains('users_id_seen', g::text)
                         <> bloom_index_contains('users_id_seen', g::int8)) AS disagree
  FROM generate_series(1, 40000) g;
-- the index answers no WHERE clause: no path goes through it, even with
-- sequential scans disabled (18's "Disabled:" lines left out)
CREATE FUNCTION plan_of(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line NOT LIKE '%Disabled:%' THEN
            RETURN NEXT line;
        END IF;
    END LOOP;
END $$;
SET enable_seqscan = off;
SELECT plan_of('SELECT * FROM users WHERE id = 42');
SELECT plan_of('SELECT * FROM users ORDER BY id LIMIT 1');
RESET enable_seqscan;

-- a table whose hashes do not fit in maintenance_work_mem (1MB: 131,072 of
-- them): the first layer is sized for the planner's estimate of its rows,
-- with the same 5 % headroom (without it, its fullest page would fill first
-- and a second layer follow)
CREATE TABLE many AS SELECT g::int8 AS k FROM generate_series(1, 200000) g;
ANALYZE many;
SET maintenance_work_mem = '1MB';
CREATE INDEX many_k ON many USING bloomfilter (k);
RESET maintenance_work_mem;
SELECT layers, capacity >= 1.05 * 200000 AS capacity_with_headroom FROM bloom_index_info('many_k');
DROP TABLE many;

-- ---- it stays current: inserts, COPY, updates; past its capacity it grows by layers ----
CREATE TABLE events (k int4, payload text);
CREATE INDEX events_k ON events USING bloomfilter (k) WITH (capacity = 1000, false_positive_rate = 0.01);
SELECT layers, capacity FROM bloom_index_info('events_k');
INSERT INTO events SELECT g, 'p' FROM generate_series(1, 60000) g;
COPY events FROM stdin;
900001	copied
900002	copied
\.
-- grown: every key found, the rate still under the declared one
SELECT layers > 1 AS grew, keys_added BETWEEN 59000 AND 60002 AS keys_added_about_60002
  FROM bloom_index_info('events_k');
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('events_k', k)) AS false_negatives FROM events;
SELECT count(*) FILTER (WHERE bloom_index_contains('events_k', g)) <= 0.0115 * 100000 AS rate_ok
  FROM generate_series(1000001, 1100000) g;
SELECT * FROM bloom_index_verify('events_k');
-- ---- the filter as a bloom value: layered, the index's layers bit for bit ----
CREATE TABLE snap AS SELECT bloom_index_filter('events_k') AS f;
SELECT layout, nhashes IS NULL AS no_single_k, nbits = (SELECT sum(nbits) FROM bloom_layers(f)) AS nbits_of_layers,
       values_added = (SELECT keys_added FROM bloom_index_info('events_k')) AS values_are_keys_added,
       element_family
  FROM snap, bloom_info(f);
SELECT count(*) = (SELECT layers FROM bloom_index_info('events_k')) AS one_row_per_layer,
       bool_and(nhashes BETWEEN 1 AND 64) AS ks_in_range
  FROM snap, bloom_layers(f);
-- it answers every key, held or not, exactly as the index does
SELECT count(*) FILTER (WHERE bloom_contains(f, g) <> bloom_index_contains('events_k', g)) AS disagree,
       count(*) FILTER (WHERE f @> g) > 60000 AS holds_the_keys
  FROM snap, generate_series(1, 200000) g;
-- and as a value: text and binary round trips, union with itself, stored
SELECT f::text::bloom = f AS text_round_trip FROM snap;
SELECT current_setting('data_directory') || '/bloom_index_snap.bin' AS binfile \gset
COPY snap TO :'binfile' (FORMAT binary);
CREATE TABLE snap_back (f bloom);
COPY snap_back FROM :'binfile' (FORMAT binary);
SELECT a.f = b.f AS binary_round_trip, bloom_send(a.f) = bloom_send(b.f) AS same_bytes FROM snap a, snap_back b;
DROP TABLE snap_back;
SELECT (f | f) = f AS union_with_itself FROM snap;
SELECT bloom_try($$SELECT f & f FROM bloom_index.snap$$) AS intersect;
SELECT bloom_try($$SELECT f | (SELECT bloom_agg(g, 100, 0.01) FROM generate_series(1, 10) g) FROM bloom_index.snap$$) AS union_with_classic;
DROP TABLE snap;

-- the same keys again, an UPDATE that keeps them, and one that does not:
-- only the new keys are added
SELECT keys_added AS before FROM bloom_index_info('events_k') \gset
INSERT INTO events SELECT g, 'again' FROM generate_series(1, 1000) g;
UPDATE events SET payload = 'updated' WHERE k <= 2000;
SELECT keys_added - :before AS added_by_repeats FROM bloom_index_info('events_k');
UPDATE events SET k = k + 5000000 WHERE k <= 10;
SELECT keys_added - :before AS added_by_new_keys FROM bloom_index_info('events_k');
SELECT bloom_index_contains('events_k', 5000001) AS moved_key_found;
-- one call site probing many keys copies the filter while no transaction completes; a key this
-- transaction adds afterwards (a later command) is still found by the same call site
SELECT bloom_index_contains('events_k', -424242) AS fresh_key_before;
DO $$
DECLARE
    k int;
    held bool;
    hits int := 0;
BEGIN
    FOR round IN 1..3 LOOP
        FOR i IN 1..3000 LOOP
            k := CASE WHEN round = 3 AND i = 3000 THEN -424242 ELSE i END;
            held := bloom_index_contains('events_k', k);
            IF held THEN
                hits := hits + 1;
            END IF;
        END LOOP;
        IF round = 2 THEN
            INSERT INTO events VALUES (-424242, 'fresh');
        END IF;
    END LOOP;
    RAISE NOTICE 'keys found: %, the fresh one: %', hits, held;
END $$;
-- the call site copies the filter only where it fits in a hash join's memory (work_mem times
-- hash_mem_multiplier), and reads pages otherwise
SELECT pg_relation_size('events_k') BETWEEN 65536 AND 32 * 65536 AS index_between_64kB_and_2MB;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SET client_min_messages = debug1;
SELECT count(*) FILTER (WHERE bloom_index_contains('events_k', g)) AS found_reading_pages
  FROM generate_series(1, 5000) g;
SET hash_mem_multiplier = 32;
SELECT count(*) FILTER (WHERE bloom_index_contains('events_k', g)) AS found_with_a_copy
  FROM generate_series(1, 5000) g;
RESET client_min_messages;
RESET hash_mem_multiplier;
RESET work_mem;
-- reading pages, a call site reads the directory once while no transaction completes and in one
-- command: layers this transaction adds in a later command are read, and their keys found
CREATE TABLE small_growth (k int4);
CREATE INDEX small_growth_k ON small_growth USING bloomfilter (k) WITH (capacity = 100, false_positive_rate = 0.0001);
INSERT INTO small_growth SELECT g FROM generate_series(1, 100) g;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
DO $$
DECLARE
    layers_before int;
    missing int := 0;
BEGIN
    SELECT layers INTO layers_before FROM bloom_index_info('small_growth_k');
    FOR round IN 1..2 LOOP
        FOR i IN 1..(CASE WHEN round = 1 THEN 100 ELSE 20100 END) LOOP
            IF NOT bloom_index_contains('small_growth_k', i) THEN
                missing := missing + 1;
            END IF;
        END LOOP;
        IF round = 1 THEN
            INSERT INTO small_growth SELECT g FROM generate_series(101, 20100) g;
        END IF;
    END LOOP;
    RAISE NOTICE 'layers added: %, keys missing: %',
        (SELECT layers FROM bloom_index_info('small_growth_k')) > layers_before, missing;
END $$;
RESET hash_mem_multiplier;
RESET work_mem;
DROP TABLE small_growth;
-- a delete leaves the key in: the filter stays a superset (no false negatives)
DELETE FROM events WHERE k = 500 OR k BETWEEN 40001 AND 41000;
SELECT bloom_index_contains('events_k', 500) AS deleted_key_still_in,
       bool_and(bloom_index_contains('events_k', g)) AS deleted_keys_still_in
  FROM generate_series(40001, 41000) g;
-- NULL keys are not added
INSERT INTO events VALUES (NULL, 'no key');
SELECT * FROM bloom_index_verify('events_k');

-- ---- rebuilding ----
REINDEX INDEX events_k;
SELECT layers, keys_added <= 60000 AS keys_from_live_rows FROM bloom_index_info('events_k');
-- the deleted keys are gone but for false positives (about 1 %; one key alone, as a test of
-- this, fails about once in a hundred row orders, which autovacuum may change)
SELECT count(*) FILTER (WHERE bloom_index_contains('events_k', g)) < 50 AS deleted_keys_gone_after_reindex,
       bloom_index_contains('events_k', 5000001) AS kept
  FROM generate_series(40001, 41000) g;
REINDEX INDEX CONCURRENTLY events_k;
SELECT * FROM bloom_index_verify('events_k');
DROP INDEX events_k;
CREATE INDEX CONCURRENTLY events_k ON events USING bloomfilter (k);
-- its second pass added every row again: no key twice, so one layer still
SELECT layers FROM bloom_index_info('events_k');
SELECT * FROM bloom_index_verify('events_k');
-- an index on an expression
CREATE INDEX users_lower_name ON users USING bloomfilter (lower(name));
SELECT bloom_index_contains('users_lower_name', 'user7'::text), bloom_index_contains('users_lower_name', 'USER7'::text);
SELECT * FROM bloom_index_verify('users_lower_name');

-- ---- the types of the operator classes, each hashed as bloom_agg hashes ----
CREATE TABLE typed (i2 int2, i4 int4, i8 int8, t text, vc varchar(20), c char(5), b bytea,
                    u uuid, n numeric, d date, ts timestamp, tz timestamptz, tm time,
                    iv interval, f4 float4, f8 float8, bo bool, o oid, ip inet);
INSERT INTO typed
  SELECT g, g, g, 't' || g, 'v' || g, 'c' || (g % 1000), ('\x' || lpad(to_hex(g), 8, '0'))::bytea,
         ('00000000-0000-0000-0000-' || lpad(to_hex(g), 12, '0'))::uuid, g / 7.0,
         date '2020-01-01' + g, timestamp '2020-01-01' + g * interval '1 minute',
         timestamptz '2020-01-01 00:00+00' + g * interval '1 minute', time '00:00' + g * interval '1 second',
         g * interval '1 second', g / 4.0, g / 8.0, g % 2 = 0, g, ('10.0.' || (g / 256) || '.' || (g % 256))::inet
    FROM generate_series(1, 2000) g;
DO $$
DECLARE
    col text;
    missing bigint;
BEGIN
    FOREACH col IN ARRAY ARRAY['i2','i4','i8','t','vc','c','b','u','n','d','ts','tz','tm','iv','f4','f8','bo','o','ip'] LOOP
        EXECUTE format('CREATE INDEX typed_%s ON typed USING bloomfilter (%I)', col, col);
        EXECUTE format('SELECT count(*) FROM typed WHERE NOT bloom_index_contains(%L, %I)', 'typed_' || col, col)
            INTO missing;
        IF missing <> 0 THEN
            RAISE EXCEPTION 'column %: % keys missing', col, missing;
        END IF;
    END LOOP;
END $$;
-- numeric 1.0 and 1.00 are one key; float -0 and 0, too (the type's equality)
SELECT bloom_index_contains('typed_n', 1.000::numeric) = bloom_index_contains('typed_n', 1::numeric) AS numeric_scale,
       bloom_index_contains('typed_f8', 0.0::float8) = bloom_index_contains('typed_f8', '-0'::float8) AS float_zero;
-- bloom_layers: a classic or blocked512 filter is one layer
SELECT layer, nbits, nhashes FROM bloom_layers(bloom_empty_mk(1024, 5, 3));
SELECT layer, nbits, nhashes, bits_set FROM bloom_layers((SELECT bloom_agg(g, 100, 0.01) FROM generate_series(1, 10) g));
-- every operator class is valid
SELECT count(*) AS opclasses, bool_and(amvalidate(oc.oid)) AS all_valid
  FROM pg_opclass oc JOIN pg_am am ON am.oid = oc.opcmethod WHERE am.amname = 'bloomfilter';

-- ---- bad input: each a clear error with its SQLSTATE ----
SELECT bloom_try($$CREATE INDEX ON users USING bloomfilter (id) WITH (false_positive_rate = 0)$$) AS rate_zero;
SELECT bloom_try($$CREATE INDEX ON users USING bloomfilter (id) WITH (false_positive_rate = 0.9)$$) AS rate_too_high;
SELECT bloom_try($$CREATE INDEX ON users USING bloomfilter (id) WITH (capacity = -1)$$) AS capacity_negative;
SELECT bloom_try($$CREATE INDEX ON users USING bloomfilter (id) WITH (layers = 3)$$) AS unknown_option;
SELECT bloom_try($$CREATE INDEX ON users USING bloomfilter (id, name)$$) AS two_columns;
SELECT bloom_try($$CREATE INDEX ON users USING bloomfilter (note) WHERE id > 0$$) AS partial;
CREATE TABLE shapes (p point);
SELECT bloom_try($$CREATE INDEX ON shapes USING bloomfilter (p)$$) AS no_opclass;
SELECT bloom_try($$CREATE UNIQUE INDEX ON users USING bloomfilter (id)$$) AS unique_index;
-- an operator class whose function is not the type's hash (its keys would not be bloom_agg's)
CREATE OPERATOR CLASS text_as_bytes FOR TYPE text USING bloomfilter AS FUNCTION 1 hashvarlenaextended(internal, int8);
SELECT amvalidate(oid) AS valid_text_as_bytes FROM pg_opclass WHERE opcname = 'text_as_bytes';
SELECT bloom_try($$CREATE INDEX ON users USING bloomfilter (name text_as_bytes)$$) AS foreign_hash;
DROP OPERATOR CLASS text_as_bytes USING bloomfilter;
DROP OPERATOR FAMILY text_as_bytes USING bloomfilter;
-- (a text value is read as the column's type since 1.12: a bytea is of another family)
SELECT bloom_try($$SELECT bloom_index_contains('users_id_seen', 'x'::bytea)$$) AS wrong_family;
SELECT bloom_try($$SELECT bloom_index_contains('users', 1)$$) AS a_table;
CREATE INDEX users_id_btree ON users (id);
SELECT bloom_try($$SELECT bloom_index_contains('users_id_btree', 1)$$) AS a_btree;
SELECT bloom_try($$SELECT bloom_index_info('users_id_btree')$$) AS info_of_a_btree;
SELECT bloom_try($$SELECT bloom_index_contains(0, 1)$$) AS no_such_relation;

-- ---- privileges: reading the filter is reading the column ----
CREATE ROLE regress_bloom_reader;
GRANT USAGE, CREATE ON SCHEMA bloom_index TO regress_bloom_reader;
SET ROLE regress_bloom_reader;
SELECT bloom_try($$SELECT bloom_index_contains('bloom_index.users_id_seen', 1::int8)$$) AS no_select;
SELECT bloom_try($$SELECT bloom_index_verify('bloom_index.users_id_seen')$$) AS verify_no_select;
SELECT bloom_try($$SELECT bloom_index_filter('bloom_index.users_id_seen')$$) AS filter_no_select;
SELECT layers FROM bloom_index_info('bloom_index.users_id_seen'); -- its keys' counts: refused too (pg_stats's rule)
RESET ROLE;
GRANT SELECT (id) ON users TO regress_bloom_reader;
SET ROLE regress_bloom_reader;
SELECT bloom_index_contains('bloom_index.users_id_seen', 1::int8) AS column_select_enough;
SELECT bloom_try($$SELECT bloom_index_contains('bloom_index.users_name_seen', 'user1'::text)$$) AS other_column;
RESET ROLE;
-- row-level security: refused to whom the policies apply, as the filter holds every row's key
GRANT SELECT ON users TO regress_bloom_reader;
ALTER TABLE users ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_small ON users FOR SELECT USING (id < 10);
SET ROLE regress_bloom_reader;
SELECT bloom_try($$SELECT bloom_index_contains('bloom_index.users_id_seen', 15::int8)$$) AS under_rls;
SELECT bloom_try($$SELECT bloom_index_filter('bloom_index.users_id_seen')$$) AS filter_under_rls;
RESET ROLE;
SELECT bloom_index_contains('users_id_seen', 15::int8) AS bypassing_rls;
ALTER TABLE users DISABLE ROW LEVEL SECURITY;
DROP POLICY only_small ON users;
-- a table's owner is not subject to its policies unless they are forced
SET ROLE regress_bloom_reader;
CREATE TABLE bloom_index.owned (k int);
CREATE INDEX owned_k ON bloom_index.owned USING bloomfilter (k);
ALTER TABLE bloom_index.owned ENABLE ROW LEVEL SECURITY;
SELECT bloom_try($$SELECT bloom_index_contains('bloom_index.owned_k', 1)$$) AS owner;
ALTER TABLE bloom_index.owned FORCE ROW LEVEL SECURITY;
SELECT bloom_try($$SELECT bloom_index_contains('bloom_index.owned_k', 1)$$) AS owner_under_forced_rls;
DROP TABLE bloom_index.owned;
RESET ROLE;
REVOKE ALL ON users FROM regress_bloom_reader;
REVOKE ALL ON SCHEMA bloom_index FROM regress_bloom_reader;
DROP ROLE regress_bloom_reader;

-- ---- unlogged and temporary tables, partitions ----
CREATE UNLOGGED TABLE unlogged_keys (k int8);
CREATE INDEX unlogged_keys_k ON unlogged_keys USING bloomfilter (k);
-- an empty index's filter holds nothing, and has no element key yet
SELECT layout, values_added, element_family IS NULL AS no_family, bloom_index_filter('unlogged_keys_k') @> 1::int8 AS holds_1
  FROM bloom_info(bloom_index_filter('unlogged_keys_k'));
INSERT INTO unlogged_keys SELECT g FROM generate_series(1, 5000) g;
SELECT * FROM bloom_index_verify('unlogged_keys_k');
CREATE TEMP TABLE temp_keys (k text);
CREATE INDEX temp_keys_k ON temp_keys USING bloomfilter (k);
INSERT INTO temp_keys SELECT 'k' || g FROM generate_series(1, 5000) g;
SELECT * FROM bloom_index_verify('temp_keys_k');
SELECT bloom_index_contains('temp_keys_k', 'k42'::text) AS temp_found;
DROP TABLE temp_keys;
CREATE TABLE parted (k int8, v text) PARTITION BY RANGE (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (10000);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (10000) TO (20000);
CREATE INDEX parted_k ON parted USING bloomfilter (k);
CREATE TABLE parted_3 PARTITION OF parted FOR VALUES FROM (20000) TO (30000);
INSERT INTO parted SELECT g, 'v' FROM generate_series(0, 29999) g;
-- one index per partition, the later partition's too
SELECT c.relname, (bloom_index_verify(c.oid)).keys_missing, (bloom_index_info(c.oid)).layers
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'parted_k'::regclass ORDER BY 1;
-- an index made ON ONLY the partitioned table holds no partition's keys: refused
CREATE INDEX parted_only ON ONLY parted USING bloomfilter (k);
SELECT bloom_try($$SELECT bloom_index_contains('parted_only', 1::int8)$$) AS on_only;
SELECT bloom_try($$SELECT bloom_index_filter('parted_only')$$) AS on_only_filter;
DROP INDEX parted_only;
-- the partitioned index reads its partitions' indexes
SELECT bloom_index_contains('parted_k', 1::int8) AS in_first, bloom_index_contains('parted_k', 25000::int8) AS in_third,
       (SELECT count(*) FROM generate_series(0, 29999) g WHERE NOT bloom_index_contains('parted_k', g::int8)) AS false_negatives;
SELECT layers, keys_added BETWEEN 29700 AND 30000 AS keys_added_about_30000, live_rows IS NOT NULL AS has_live_rows
  FROM bloom_index_info('parted_k');
SELECT * FROM bloom_index_verify('parted_k');
-- its filter: the partitions' layers, one after another
SELECT (SELECT count(*) FROM bloom_layers(bloom_index_filter('parted_k'))) =
       (SELECT layers FROM bloom_index_info('parted_k')) AS every_partitions_layers,
       (SELECT count(*) FROM generate_series(0, 29999) g WHERE NOT bloom_index_filter('parted_k') @> g::int8) AS false_negatives;
-- more partitions than a bloom value has layers (64): the filter is refused
-- with what to do instead (not REINDEX, which leaves a layer a partition);
-- bloom_index_contains reads them all
CREATE TABLE wide (k int) PARTITION BY RANGE (k);
DO $$ BEGIN FOR i IN 0..64 LOOP
  EXECUTE format('CREATE TABLE wide_%s PARTITION OF wide FOR VALUES FROM (%s) TO (%s)', i, i * 10, i * 10 + 10);
END LOOP; END $$;
INSERT INTO wide SELECT g FROM generate_series(0, 649) g;
CREATE INDEX wide_k ON wide USING bloomfilter (k);
SELECT bloom_index_filter('wide_k');
SELECT filter IS NULL FROM bloom_index_refresh('wide_k');
SELECT bloom_index_filter('wide_64_k_idx') @> 645 AS one_partitions_filter,
       (SELECT count(*) FROM generate_series(0, 649) g WHERE NOT bloom_index_contains('wide_k', g)) AS false_negatives;
DROP TABLE wide;

DROP TABLE typed, shapes, unlogged_keys, parted;
