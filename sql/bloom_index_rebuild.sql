--
-- A bloomfilter index forgets deleted keys (1.12): VACUUM rebuilds its
-- filter when its keys outgrow the table's live rows (rebuild_factor) or
-- its estimated rate passes a multiple of the declared one
-- (rebuild_rate_factor); bloom_index_rebuild() rebuilds now.
-- (Inserts racing a rebuild: specs/index_rebuild.spec, tests/index/.)
--
CREATE SCHEMA bloom_rebuild;
SET search_path = bloom_rebuild, public;

-- autovacuum off on every table here: only the test's VACUUMs rebuild.
-- VACUUM counts the keys deleted from the statistics (src/index/amvacuum.c),
-- which a session sends at most once a second: flush() sends them now.
-- It then waits (a minute at most) until no other session of this database
-- holds a snapshot: autovacuum's ANALYZE of another test's table would keep
-- the rows deleted here from being removed, and VACUUM counts rows it cannot
-- remove as live, so does not rebuild (a rebuild would keep their keys).
CREATE FUNCTION flush() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_stat_force_next_flush();
  FOR attempt IN 1 .. 600 LOOP
    PERFORM pg_stat_clear_snapshot();
    IF NOT EXISTS (SELECT FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                      AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)) THEN
      RETURN;
    END IF;
    PERFORM pg_sleep(0.1);
  END LOOP;
  RAISE WARNING 'flush(): another session of this database held a snapshot for a minute: the next VACUUM may not remove the rows deleted here';
END $$;
CREATE TABLE events (k int8, note text) WITH (autovacuum_enabled = off);
INSERT INTO events SELECT g, 'n' FROM generate_series(1, 20000) g;
CREATE INDEX events_k ON events USING bloomfilter (k);
-- built for its keys and the rebuild factor's room (1.2 + 0.25 per key), never rebuilt
SELECT layers, capacity, last_rebuilt IS NULL AS never, last_rebuild_reason, rebuilds
  FROM bloom_index_info('events_k');

-- a VACUUM that finds too few deleted keys does nothing
DELETE FROM events WHERE k <= 2000;
SELECT flush();
VACUUM events;
SELECT rebuilds FROM bloom_index_info('events_k');
SELECT bool_and(bloom_index_contains('events_k', g)) AS deleted_keys_still_in
  FROM generate_series(1, 2000) g;

-- a day's keys out, another's in, until the keys pass 1.2 per live row
DELETE FROM events WHERE k <= 6000;
INSERT INTO events SELECT g, 'new' FROM generate_series(100001, 106000) g;
SELECT layers, keys_added > 24000 AS keys_past_factor FROM bloom_index_info('events_k');
SELECT flush();
VACUUM events;
SELECT layers, last_rebuilt > now() - interval '1 hour' AS just_now, last_rebuild_reason, rebuilds,
       keys_added BETWEEN 19000 AND 20000 AS keys_of_live_rows
  FROM bloom_index_info('events_k');
-- the deleted keys are gone but for false positives (under the declared 1 %)
SELECT count(*) FILTER (WHERE bloom_index_contains('events_k', g)) < 60 AS deleted_keys_gone
  FROM generate_series(1, 6000) g;
-- every live key is there; every page whole
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('events_k', k)) AS false_negatives FROM events;
SELECT keys_missing, rows_checked FROM bloom_index_verify('events_k');
-- inserts after the rebuild go into its layer
INSERT INTO events SELECT g, 'later' FROM generate_series(200001, 201000) g;
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('events_k', k)) AS false_negatives FROM events;
-- the filter as a value holds what the index holds
SELECT bool_and(bloom_index_filter('events_k') @> k) AS filter_holds_every_key FROM events;

-- ---- the options ----
ALTER INDEX events_k SET (rebuild_factor = 1.01);
ALTER INDEX events_k SET (rebuild_rate_factor = 1);
ALTER INDEX events_k SET (rebuild_factor = -1);
-- 0 turns it off: deleted keys stay
ALTER INDEX events_k SET (rebuild_factor = 0, rebuild_rate_factor = 0);
DELETE FROM events WHERE k > 100000;
SELECT flush();
VACUUM events;
SELECT rebuilds FROM bloom_index_info('events_k');
-- a larger factor waits for more deleted keys
ALTER INDEX events_k SET (rebuild_factor = 3);
SELECT flush();
VACUUM events;
SELECT rebuilds FROM bloom_index_info('events_k');
ALTER INDEX events_k RESET (rebuild_factor, rebuild_rate_factor);
SELECT flush();
VACUUM events;
SELECT rebuilds, last_rebuild_reason FROM bloom_index_info('events_k');
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('events_k', k)) AS false_negatives FROM events;

-- ---- bloom_index_rebuild: now, for the table's owner ----
INSERT INTO events SELECT g, 'again' FROM generate_series(300001, 302000) g;
SELECT bloom_index_rebuild('events_k');
SELECT last_rebuild_reason, rebuilds FROM bloom_index_info('events_k');
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('events_k', k)) AS false_negatives FROM events;
-- rows of this very transaction, not committed, are in the rebuilt filter
BEGIN;
INSERT INTO events SELECT g, 'open' FROM generate_series(400001, 400500) g;
SELECT bloom_index_rebuild('events_k');
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('events_k', k)) AS false_negatives FROM events;
COMMIT;
SELECT keys_missing FROM bloom_index_verify('events_k');
-- refusals
CREATE ROLE regress_bloom_rebuilder;
GRANT USAGE ON SCHEMA bloom_rebuild TO regress_bloom_rebuilder;
GRANT SELECT, INSERT ON events TO regress_bloom_rebuilder;
SET ROLE regress_bloom_rebuilder;
SELECT bloom_index_rebuild('events_k');
RESET ROLE;
CREATE INDEX events_btree ON events (k);
SELECT bloom_index_rebuild('events_btree');
SELECT bloom_index_rebuild('events');
SELECT bloom_index_rebuild(0);
SELECT bloom_index_rebuild(NULL);
DROP INDEX events_btree;

-- ---- an expression, a column with duplicates, partitions ----
CREATE TABLE names (name text) WITH (autovacuum_enabled = off);
INSERT INTO names SELECT 'User' || (g % 5000) FROM generate_series(1, 20000) g;
CREATE INDEX names_lower ON names USING bloomfilter (lower(name));
-- four rows per key: the ratio at the build (0.25 keys per row) is the baseline, no rebuild
SELECT flush();
VACUUM names;
SELECT rebuilds, round(keys_per_live_row::numeric, 2) AS keys_per_row FROM bloom_index_info('names_lower');
DELETE FROM names WHERE name LIKE 'User1%' OR name LIKE 'User2%';
INSERT INTO names SELECT 'Fresh' || g FROM generate_series(1, 2000) g;
SELECT flush();
VACUUM names;
SELECT rebuilds, last_rebuild_reason FROM bloom_index_info('names_lower');
SELECT count(*) FILTER (WHERE bloom_index_contains('names_lower', 'user1' || g)) < 20 AS deleted_gone
  FROM generate_series(0, 999) g;
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('names_lower', lower(name))) AS false_negatives
  FROM names;

CREATE TABLE parted (k int4) PARTITION BY RANGE (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (10000) WITH (autovacuum_enabled = off);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (10000) TO (20000) WITH (autovacuum_enabled = off);
INSERT INTO parted SELECT generate_series(0, 19999);
CREATE INDEX parted_k ON parted USING bloomfilter (k);
DELETE FROM parted WHERE k % 2 = 0;
-- a rebuild before VACUUM keeps the deleted rows' keys: their tuples are still there
SELECT bloom_index_rebuild('parted_k');
SELECT count(*) FILTER (WHERE bloom_index_contains('parted_k', g)) = 10000 AS deleted_still_in
  FROM generate_series(0, 19999, 2) g;
-- VACUUM removes them, then rebuilds each partition's filter (twice the keys of the live rows)
SELECT flush();
VACUUM parted;
SELECT rebuilds, last_rebuild_reason FROM bloom_index_info('parted_k');
SELECT count(*) FILTER (WHERE bloom_index_contains('parted_k', g)) < 200 AS deleted_gone
  FROM generate_series(0, 19999, 2) g;
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('parted_k', k)) AS false_negatives FROM parted;

-- ---- an empty table: a small filter, nothing found ----
DELETE FROM parted;
SELECT flush();
VACUUM parted;
SELECT rebuilds, layers FROM bloom_index_info('parted_k');
SELECT bloom_index_contains('parted_k', 1) AS one;

-- ---- an index expression that fails while the rebuild reads the table ----
-- (one never truly immutable: it reads a setting) VACUUM gives the rebuild
-- up with a WARNING, the filter whole; bloom_index_rebuild lets the error through
CREATE FUNCTION picky(int8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF current_setting('bloom_test.picky', true) = 'on' THEN RAISE EXCEPTION 'picky about %', $1; END IF;
  RETURN $1;
END$$;
CREATE TABLE picky_rows (k int8) WITH (autovacuum_enabled = off);
INSERT INTO picky_rows SELECT generate_series(1, 1000);
CREATE INDEX picky_k ON picky_rows USING bloomfilter (picky(k));
DELETE FROM picky_rows WHERE k <= 600;
SET bloom_test.picky = on;
SELECT flush();
VACUUM picky_rows;
SELECT bloom_index_rebuild('picky_k');
RESET bloom_test.picky;
SELECT rebuilds, (SELECT count(*) FILTER (WHERE NOT bloom_index_contains('picky_k', k)) FROM picky_rows) AS false_negatives
  FROM bloom_index_info('picky_k');
VACUUM picky_rows;
SELECT rebuilds, last_rebuild_reason FROM bloom_index_info('picky_k');

-- a failed insert's tuple (its expression failed) is skipped: no one ever sees it
CREATE TABLE fragile (x int) WITH (autovacuum_enabled = off);
INSERT INTO fragile VALUES (1), (2);
CREATE INDEX fragile_i ON fragile USING bloomfilter ((100 / x));
INSERT INTO fragile VALUES (0);
SELECT bloom_index_rebuild('fragile_i');
SELECT bloom_index_contains('fragile_i', 100) AND bloom_index_contains('fragile_i', 50) AS both_found;
-- it writes: not in a read-only transaction
BEGIN READ ONLY;
SELECT bloom_index_rebuild('fragile_i');
ROLLBACK;

-- deleted rows with toasted keys, not yet removed: their values may be gone
-- (the TOAST table vacuumed first): the rebuild waits for a VACUUM that removes them
CREATE TABLE docs (n int, body text) WITH (autovacuum_enabled = off);
ALTER TABLE docs ALTER COLUMN body SET STORAGE EXTERNAL;
INSERT INTO docs SELECT g, repeat(md5(g::text), 100) FROM generate_series(1, 50) g;
CREATE INDEX docs_body ON docs USING bloomfilter (body);
CREATE INDEX docs_n ON docs USING bloomfilter (n);
DELETE FROM docs WHERE length(body) > 0 AND body < '5';
SELECT bloom_index_rebuild('docs_body');
-- (only the index's columns count: an index on n reads no toasted value)
SELECT bloom_index_rebuild('docs_n');
SELECT flush();
VACUUM docs;
SELECT bloom_index_rebuild('docs_body');
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('docs_body', body)) AS false_negatives FROM docs;

-- a parallel VACUUM (its leader cleans this index up while workers run: no subtransaction)
CREATE TABLE wide_rows (id int PRIMARY KEY, v int, k int8) WITH (autovacuum_enabled = off);
INSERT INTO wide_rows SELECT g, g, g FROM generate_series(1, 20000) g;
CREATE INDEX wide_rows_v ON wide_rows (v);
CREATE INDEX wide_rows_k ON wide_rows USING bloomfilter (k);
DELETE FROM wide_rows WHERE id % 2 = 0;
SELECT flush();
SET min_parallel_index_scan_size = 0;
VACUUM (PARALLEL 2) wide_rows;
RESET min_parallel_index_scan_size;
SELECT rebuilds, last_rebuild_reason FROM bloom_index_info('wide_rows_k');
-- updates that keep the key (not HOT: an indexed column changes) leave no key:
-- VACUUM does not rebuild for them, however many
UPDATE wide_rows SET v = v + 1 WHERE id % 4 = 1;
SELECT flush();
VACUUM wide_rows;
UPDATE wide_rows SET v = v + 1 WHERE id % 4 = 3;
SELECT flush();
VACUUM wide_rows;
SELECT rebuilds FROM bloom_index_info('wide_rows_k');

-- ---- a rebuild in a transaction that rolls back keeps its filter (it is not transactional) ----
BEGIN;
SELECT bloom_index_rebuild('events_k');
ROLLBACK;
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('events_k', k)) AS false_negatives FROM events;
SELECT keys_missing FROM bloom_index_verify('events_k');

DROP SCHEMA bloom_rebuild CASCADE;
DROP ROLE regress_bloom_rebuilder;
