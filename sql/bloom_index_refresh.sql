--
-- bloom_index_refresh (1.11): a client's copy of an index's filter, kept
-- current in one round trip.  The filter comes with a stamp of its bytes;
-- given the stamp of the caller's copy, the filter is sent only if it
-- changed.  A key added changes it; a key the filter already held does not
-- (its bits were set); TRUNCATE and as many keys again changes it.
--
CREATE SCHEMA refresh_test;
SET search_path = refresh_test, public;
CREATE TABLE names (name text);
INSERT INTO names SELECT 'user' || g FROM generate_series(1, 1000) g;
CREATE INDEX names_seen ON names USING bloomfilter (name);

CREATE TABLE copies (step text, stamp bigint, filter bloom);
INSERT INTO copies SELECT 'first', stamp, filter FROM bloom_index_refresh('names_seen');
-- the first call (no stamp known): the filter, exactly bloom_index_filter's
SELECT filter IS NOT NULL AS sent, filter::text = bloom_index_filter('names_seen')::text AS same_filter
FROM copies WHERE step = 'first';
-- known: the stamp alone
SELECT r.stamp = c.stamp AS same_stamp, r.filter IS NULL AS not_sent
FROM copies c, bloom_index_refresh('names_seen', c.stamp) r WHERE c.step = 'first';
-- a stamp of another copy (or any other number): the filter
SELECT r.filter IS NOT NULL AS sent FROM copies c, bloom_index_refresh('names_seen', c.stamp + 1) r WHERE c.step = 'first';

-- a key already held: nothing changed, nothing sent
INSERT INTO names VALUES ('user1');
SELECT r.filter IS NULL AS not_sent FROM copies c, bloom_index_refresh('names_seen', c.stamp) r WHERE c.step = 'first';
-- new keys: a new stamp and the filter, which holds them; the old copy did not
INSERT INTO names SELECT 'new' || g FROM generate_series(1, 100) g;
INSERT INTO copies SELECT 'after inserts', r.stamp, r.filter
FROM copies c, bloom_index_refresh('names_seen', c.stamp) r WHERE c.step = 'first';
SELECT stamp <> (SELECT stamp FROM copies WHERE step = 'first') AS new_stamp, filter IS NOT NULL AS sent,
       (SELECT count(*) FROM generate_series(1, 100) g WHERE filter @> ('new' || g)) AS new_keys_held,
       (SELECT count(*) FROM generate_series(1, 100) g, copies o
         WHERE o.step = 'first' AND o.filter @> ('new' || g)) < 100 AS old_copy_lacked_some
FROM copies WHERE step = 'after inserts';

-- TRUNCATE, then as many keys again, other ones: the stamp changes
INSERT INTO copies SELECT 'before truncate', stamp, filter FROM bloom_index_refresh('names_seen');
TRUNCATE names;
INSERT INTO names SELECT 'other' || g FROM generate_series(1, 1101) g;
SELECT r.filter IS NOT NULL AS sent, r.filter @> 'other7'::text AS holds_new
FROM copies c, bloom_index_refresh('names_seen', c.stamp) r WHERE c.step = 'before truncate';

-- a partitioned index: its partitions' filters, as bloom_index_filter gives them
CREATE TABLE parts (id int) PARTITION BY RANGE (id);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES FROM (0) TO (1000);
CREATE TABLE parts_2 PARTITION OF parts FOR VALUES FROM (1000) TO (2000);
INSERT INTO parts SELECT g FROM generate_series(0, 1999) g;
CREATE INDEX parts_seen ON parts USING bloomfilter (id);
SELECT r.filter::text = bloom_index_filter('parts_seen')::text AS same_filter,
       (SELECT r2.filter IS NULL FROM bloom_index_refresh('parts_seen', r.stamp) r2) AS then_not_sent
FROM bloom_index_refresh('parts_seen') r;
-- a partition attached with keys of its own: a change, its keys sent
INSERT INTO copies SELECT 'parts', stamp, filter FROM bloom_index_refresh('parts_seen');
CREATE TABLE parts_3 (id int);
INSERT INTO parts_3 SELECT g FROM generate_series(2000, 2099) g;
CREATE INDEX ON parts_3 USING bloomfilter (id);
ALTER TABLE parts ATTACH PARTITION parts_3 FOR VALUES FROM (2000) TO (3000);
SELECT r.filter IS NOT NULL AS sent, (SELECT count(*) FROM generate_series(2000, 2099) g WHERE r.filter @> g) AS attached_keys_held
FROM copies c, bloom_index_refresh('parts_seen', c.stamp) r WHERE c.step = 'parts';

-- NULL: NULL; the same privileges as bloom_index_filter, whether or not the filter is sent
SELECT * FROM bloom_index_refresh(NULL);
CREATE ROLE regress_refresh_reader;
GRANT USAGE ON SCHEMA refresh_test TO regress_refresh_reader;
GRANT SELECT ON copies TO regress_refresh_reader;
SET ROLE regress_refresh_reader;
SELECT bloom_try($$SELECT bloom_index_refresh('refresh_test.names_seen')$$) AS no_select;
SELECT bloom_try($$SELECT bloom_index_refresh('refresh_test.names_seen', (SELECT stamp FROM copies WHERE step = 'first'))$$) AS no_select_known;
RESET ROLE;
GRANT SELECT ON names TO regress_refresh_reader;
SET ROLE regress_refresh_reader;
SELECT filter IS NOT NULL AS sent FROM bloom_index_refresh('refresh_test.names_seen');
RESET ROLE;
DROP SCHEMA refresh_test CASCADE;
DROP ROLE regress_refresh_reader;
RESET search_path;
