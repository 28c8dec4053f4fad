-- bloomfilter index: "certainly absent" only for a key no row the caller
-- may see holds, and only to a caller who may read the keys (issue 39).
-- Each case compares the filter with EXISTS on the same table.  The
-- functions name their index by a variable: a constant would tie their
-- expression's plan to the index, and a change to the index would replan
-- it, so that the call site would be new by chance.
SET client_min_messages = warning;
CREATE SCHEMA bloom_vis;
SET search_path = bloom_vis, public;

-- ---- 1. a volatile function in the inserting command ----
-- The function takes a fresh snapshot per call, in which the INSERT's
-- earlier rows are visible; the call site must see their keys too.
CREATE TABLE t1 (k int);
CREATE INDEX t1_k ON t1 USING bloomfilter (k);
CREATE FUNCTION seen1(int, idx text DEFAULT 'bloom_vis.t1_k') RETURNS bool LANGUAGE plpgsql AS
$$BEGIN RETURN bloom_index_contains(idx::regclass, $1); END$$;
INSERT INTO t1 SELECT g % 100 FROM generate_series(1, 300) g WHERE NOT seen1(g % 100);
SELECT count(*) AS rows, count(DISTINCT k) AS keys FROM t1;
-- the same through EXISTS
CREATE TABLE t1e (k int);
INSERT INTO t1e SELECT g % 100 FROM generate_series(1, 300) g
  WHERE NOT EXISTS (SELECT FROM t1e WHERE k = g % 100);
SELECT count(*) AS rows, count(DISTINCT k) AS keys FROM t1e;
-- with no copy (the limit below one page), the pages read must include the
-- layers this INSERT adds: a first layer of one page, grown many times
TRUNCATE t1;
ALTER INDEX t1_k SET (capacity = 1);
REINDEX INDEX t1_k;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
INSERT INTO t1 SELECT g % 20000 FROM generate_series(1, 40000) g WHERE NOT seen1(g % 20000);
SELECT count(*) = count(DISTINCT k) AS no_duplicate, count(DISTINCT k) > 19000 AS most_keys
  FROM t1;
SELECT layers > 1 AS grew FROM bloom_index_info('t1_k');
SELECT count(*) AS false_negatives FROM t1 WHERE NOT bloom_index_contains('t1_k', k);
RESET work_mem;
RESET hash_mem_multiplier;

-- ---- 1b. a row trigger of the inserting command ----
CREATE TABLE t2 (k int);
CREATE INDEX t2_k ON t2 USING bloomfilter (k);
CREATE FUNCTION skip_seen() RETURNS trigger LANGUAGE plpgsql AS
$$DECLARE idx text := 'bloom_vis.t2_k';
BEGIN
  IF bloom_index_contains(idx::regclass, NEW.k) THEN RETURN NULL; END IF;
  RETURN NEW;
END$$;
CREATE TRIGGER skip_seen BEFORE INSERT ON t2 FOR EACH ROW EXECUTE FUNCTION skip_seen();
INSERT INTO t2 SELECT g % 100 FROM generate_series(1, 300) g;
SELECT count(*) AS rows, count(DISTINCT k) AS keys FROM t2;
-- and a plpgsql loop, one statement per key
TRUNCATE t2;
DROP TRIGGER skip_seen ON t2;
DO $$
DECLARE idx text := 'bloom_vis.t2_k';
BEGIN
  FOR i IN 1..300 LOOP
    IF NOT bloom_index_contains(idx::regclass, i % 100) THEN
      INSERT INTO t2 VALUES (i % 100);
    END IF;
  END LOOP;
END$$;
SELECT count(*) AS rows, count(DISTINCT k) AS keys FROM t2;

-- ---- 3. TRUNCATE in place (a table created in the same transaction) ----
CREATE FUNCTION seen3(int, idx text DEFAULT 'bloom_vis.t3_k') RETURNS bool LANGUAGE plpgsql AS
$$BEGIN RETURN bloom_index_contains(idx::regclass, $1); END$$;
BEGIN;
CREATE TABLE t3 (k int);
CREATE INDEX t3_k ON t3 USING bloomfilter (k);
INSERT INTO t3 SELECT generate_series(1, 100);
SELECT seen3(1);
SELECT pg_relation_filenode('t3_k') AS file \gset
ALTER INDEX t3_k SET (capacity = 100000);
TRUNCATE t3;
SELECT pg_relation_filenode('t3_k') = :file AS same_file;
INSERT INTO t3 SELECT generate_series(1, 100);
SELECT count(*) FILTER (WHERE NOT seen3(k)) AS false_negatives FROM t3;
-- and smaller again: the old directory named pages the file no longer has
ALTER INDEX t3_k SET (capacity = 10);
TRUNCATE t3;
INSERT INTO t3 SELECT generate_series(101, 200);
SELECT count(*) FILTER (WHERE NOT seen3(k)) AS false_negatives FROM t3;
COMMIT;

-- ---- 4. partitions attached and detached while a call site lives ----
CREATE TABLE pt (k int) PARTITION BY RANGE (k);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (100);
CREATE INDEX pt_k ON pt USING bloomfilter (k);
INSERT INTO pt SELECT generate_series(0, 99);
CREATE FUNCTION seen4(int, idx text DEFAULT 'bloom_vis.pt_k') RETURNS bool LANGUAGE plpgsql AS
$$BEGIN RETURN bloom_index_contains(idx::regclass, $1); END$$;
CREATE TABLE pt2 (k int);
INSERT INTO pt2 SELECT generate_series(100, 199);
BEGIN;
SELECT seen4(150) AS before_attach, EXISTS (SELECT FROM pt WHERE k = 150) AS exists_before;
ALTER TABLE pt ATTACH PARTITION pt2 FOR VALUES FROM (100) TO (200);
SELECT seen4(150) AS after_attach, EXISTS (SELECT FROM pt WHERE k = 150) AS exists_after;
SELECT count(*) FILTER (WHERE NOT seen4(k)) AS false_negatives FROM pt;
COMMIT;

-- ---- 5. privileges: the current user's, on every call ----
CREATE ROLE regress_bloom_vis_owner;
CREATE ROLE regress_bloom_vis_nobody;
CREATE ROLE regress_bloom_vis_hidden;
GRANT USAGE ON SCHEMA bloom_vis TO regress_bloom_vis_owner, regress_bloom_vis_nobody,
  regress_bloom_vis_hidden;
CREATE TABLE secret (k int, owner name);
CREATE INDEX secret_k ON secret USING bloomfilter (k);
INSERT INTO secret VALUES (1, 'regress_bloom_vis_owner'), (2, 'someone');
GRANT SELECT ON secret TO regress_bloom_vis_owner, regress_bloom_vis_hidden;
CREATE POLICY mine ON secret USING (owner = current_user);
ALTER TABLE secret ENABLE ROW LEVEL SECURITY;
-- one call site (the function's), asked by several users in one transaction
CREATE FUNCTION seen5(int, idx text DEFAULT 'bloom_vis.secret_k') RETURNS bool LANGUAGE plpgsql AS
$$BEGIN RETURN bloom_index_contains(idx::regclass, $1); END$$;
-- a SECURITY DEFINER frame: the owner of the table may read its keys
CREATE FUNCTION seen5_as_definer(int) RETURNS bool LANGUAGE plpgsql SECURITY DEFINER AS
$$BEGIN RETURN seen5($1); END$$;
GRANT EXECUTE ON FUNCTION seen5_as_definer(int) TO regress_bloom_vis_nobody;
BEGIN;
SET LOCAL ROLE regress_bloom_vis_nobody;
SELECT seen5_as_definer(2) AS as_definer;
SELECT seen5(2) AS as_nobody; -- no SELECT: refused, though the call site answered before
ROLLBACK;
BEGIN;
SELECT seen5(2) AS as_superuser;
SET LOCAL ROLE regress_bloom_vis_nobody;
SELECT seen5(2) AS after_set_role;
ROLLBACK;
BEGIN;
SELECT seen5(2) AS as_superuser;
SET LOCAL SESSION AUTHORIZATION regress_bloom_vis_hidden;
SELECT seen5(2) AS under_rls; -- row security hides key 2 from this role
ROLLBACK;
BEGIN;
SET LOCAL ROLE regress_bloom_vis_hidden;
SET LOCAL row_security = off; -- no BYPASSRLS: PostgreSQL's own refusal
SELECT seen5(2) AS row_security_off;
ROLLBACK;
-- row security off for the table: a role with SELECT reads the keys
ALTER TABLE secret DISABLE ROW LEVEL SECURITY;
BEGIN;
SET LOCAL ROLE regress_bloom_vis_hidden;
SELECT seen5(2) AS rls_disabled;
ROLLBACK;
-- a grant of the indexed column alone is enough; of another column, not
CREATE TABLE cols (k int, other int);
CREATE INDEX cols_k ON cols USING bloomfilter (k);
INSERT INTO cols VALUES (1, 1);
GRANT SELECT (other) ON cols TO regress_bloom_vis_nobody;
SET ROLE regress_bloom_vis_nobody;
SELECT bloom_index_contains('cols_k', 1) AS other_column_only;
SELECT layers FROM bloom_index_info('cols_k') AS other_column_only_info;
RESET ROLE;
GRANT SELECT (k) ON cols TO regress_bloom_vis_nobody;
SET ROLE regress_bloom_vis_nobody;
SELECT bloom_index_contains('cols_k', 1) AS indexed_column;
SELECT layers FROM bloom_index_info('cols_k');
RESET ROLE;
-- (who may not read takes no lock on the table: specs/index_privileges.spec)
CREATE TABLE locked (k int);
CREATE INDEX locked_k ON locked USING bloomfilter (k);
SET ROLE regress_bloom_vis_nobody;
SELECT bloom_index_contains('locked_k', 1);
SELECT bloom_index_info('locked_k');
SELECT bloom_index_filter('locked_k');
SELECT bloom_index_verify('locked_k');
RESET ROLE;

-- bloom_index_verify evaluates the index's expressions as the table's owner,
-- in a security-restricted operation, never as its caller (a superuser here)
GRANT CREATE ON SCHEMA bloom_vis TO regress_bloom_vis_owner;
SET ROLE regress_bloom_vis_owner;
CREATE TABLE owned (k int);
CREATE FUNCTION runs_as(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF current_user <> 'regress_bloom_vis_owner' THEN
    RAISE EXCEPTION 'run as %', current_user;
  END IF;
  RETURN $1;
END$$;
INSERT INTO owned SELECT generate_series(1, 10);
CREATE INDEX owned_k ON owned USING bloomfilter (runs_as(k));
RESET ROLE;
SELECT keys_missing, rows_checked FROM bloom_index_verify('owned_k');
DROP TABLE owned;
DROP FUNCTION runs_as(int);

-- ---- 6. memory ----
-- a call site that turns from one index to another frees what it held
CREATE TABLE ma (k int);
CREATE INDEX ma_k ON ma USING bloomfilter (k);
CREATE TABLE mb (k int);
CREATE INDEX mb_k ON mb USING bloomfilter (k);
INSERT INTO ma SELECT generate_series(1, 1000);
INSERT INTO mb SELECT generate_series(1, 1000);
CREATE FUNCTION alternate(n int) RETURNS bigint LANGUAGE plpgsql AS
$$DECLARE found bigint := 0;
BEGIN
  FOR i IN 1..n LOOP
    IF bloom_index_contains(CASE WHEN i % 2 = 0 THEN 'bloom_vis.ma_k' ELSE 'bloom_vis.mb_k' END::regclass, i)
    THEN found := found + 1; END IF;
  END LOOP;
  RETURN found;
END$$;
CREATE FUNCTION backend_bytes() RETURNS bigint LANGUAGE sql AS
$$SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts$$;
BEGIN;
SELECT alternate(20000) AS found;
SELECT backend_bytes() AS before \gset
SELECT alternate(200000) AS found;
SELECT backend_bytes() - :before < 1000000 AS flat;
COMMIT;
-- the copies of one call site together stay within the hash join's memory
CREATE TABLE parts (k int) PARTITION BY HASH (k);
SELECT format('CREATE TABLE parts_%s PARTITION OF parts FOR VALUES WITH (MODULUS 40, REMAINDER %s)', i, i)
  FROM generate_series(0, 39) i \gexec
CREATE INDEX parts_k ON parts USING bloomfilter (k) WITH (capacity = 5000);
INSERT INTO parts SELECT generate_series(1, 40000);
CREATE FUNCTION probe_parts(n int) RETURNS bigint LANGUAGE plpgsql AS
$$DECLARE found bigint := 0; idx text := 'bloom_vis.parts_k';
BEGIN
  FOR i IN 1..n LOOP
    IF bloom_index_contains(idx::regclass, i) THEN found := found + 1; END IF;
  END LOOP;
  RETURN found;
END$$;
CREATE FUNCTION call_site_bytes() RETURNS bigint LANGUAGE sql AS
$$SELECT coalesce(sum(total_bytes), 0)::bigint FROM pg_backend_memory_contexts
  WHERE name = 'bloom_index_contains'$$;
BEGIN;
SET LOCAL work_mem = '64kB';
SET LOCAL hash_mem_multiplier = 1;
SELECT probe_parts(40000) AS found;
SELECT call_site_bytes() BETWEEN 1 AND 200000 AS within_limit;
COMMIT;
-- (under the default limit every partition's filter is copied: the check can fail)
BEGIN;
SELECT probe_parts(40000) AS found;
SELECT call_site_bytes() > 300000 AS all_copied;
COMMIT;

-- ---- a hash that does not follow a nondeterministic collation ----
-- name's hash function hashes bytes while name's equality follows the
-- collation: a name probed against a text column under a case-insensitive
-- collation would hash 'ALICE' apart from the stored 'alice'.  Refused.
CREATE COLLATION vis_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE users_ci (name text COLLATE vis_ci);
CREATE INDEX users_ci_name ON users_ci USING bloomfilter (name);
INSERT INTO users_ci VALUES ('alice');
SELECT bloom_index_contains('users_ci_name', 'ALICE'::text) AS text_probe,
       EXISTS (SELECT FROM users_ci WHERE name = 'ALICE'::name COLLATE vis_ci) AS exists_name;
-- (1.12: a name takes bloom_index_contains(regclass, text), as a function
-- taking text casts it, and hashes as text: found)
SELECT bloom_index_contains('users_ci_name', 'ALICE'::name) AS name_probe;
-- (where a function takes text, a name is cast to it, and hashes as text)
SELECT bloom_agg(n COLLATE vis_ci) @> ('ALICE'::text COLLATE vis_ci) AS name_cast_to_text
  FROM (VALUES ('alice'::name)) v(n);

-- ---- an index collation other than its column's nondeterministic one (1.12) ----
-- Hashed under "C", 'alice' and 'ALICE' hash apart, though the column finds
-- them equal: the index would say "absent" of a key WHERE name = finds.
-- CREATE INDEX refuses it, as a column and as an expression; a
-- deterministic column under a nondeterministic index collation only adds
-- false positives, and is taken, as are the column's own collation and an
-- expression whose result has a collation of its own.
CREATE INDEX users_ci_c ON users_ci USING bloomfilter (name COLLATE "C");
CREATE INDEX users_ci_c_expr ON users_ci USING bloomfilter ((name COLLATE "C"));
CREATE INDEX users_ci_lower_c ON users_ci USING bloomfilter ((lower(name) COLLATE "C"));
CREATE INDEX users_ci_own ON users_ci USING bloomfilter (name COLLATE vis_ci);
CREATE INDEX users_ci_lower ON users_ci USING bloomfilter ((lower(name COLLATE "C")));
SELECT EXISTS (SELECT FROM users_ci WHERE name = 'ALICE') AS exists_alice,
       bloom_index_contains('users_ci_own', 'ALICE'::text) AS own_collation,
       bloom_index_contains('users_ci_lower', 'alice'::text) AS lower_c;
CREATE TABLE users_c (name text COLLATE "C");
CREATE INDEX users_c_ci ON users_c USING bloomfilter (name COLLATE vis_ci);
INSERT INTO users_c VALUES ('alice');
SELECT bloom_index_contains('users_c_ci', 'alice'::text) AS alice,
       bloom_index_contains('users_c_ci', 'ALICE'::text) AS alice_upper_false_positive;
-- a partitioned table: refused for each partition (an index made ON ONLY
-- the parent is not valid while its partitions have none)
CREATE TABLE users_ci_parted (name text COLLATE vis_ci) PARTITION BY LIST (name);
CREATE TABLE users_ci_parted_1 PARTITION OF users_ci_parted DEFAULT;
CREATE INDEX users_ci_parted_c ON users_ci_parted USING bloomfilter (name COLLATE "C");
CREATE INDEX users_ci_parted_c ON ONLY users_ci_parted USING bloomfilter (name COLLATE "C");
SELECT bloom_index_contains('users_ci_parted_c', 'ALICE'::text);
-- An index made so before 1.12 (made here by giving the column the
-- nondeterministic collation behind the index's back, as 1.11's CREATE INDEX
-- would have left it): every reader refuses it, bloom_index_verify too,
-- and a write to the table still works.
CREATE TABLE users_old (name text COLLATE "C");
CREATE INDEX users_old_c ON users_old USING bloomfilter (name COLLATE "C");
CREATE INDEX users_old_c_expr ON users_old USING bloomfilter ((name COLLATE "C"));
INSERT INTO users_old VALUES ('alice');
UPDATE pg_attribute SET attcollation = 'vis_ci'::regcollation
 WHERE attrelid = 'users_old'::regclass AND attname = 'name';
-- (a new session: no relcache entry of the index kept from before)
\c
SET client_min_messages = warning;
SET search_path = bloom_vis, public;
SELECT EXISTS (SELECT FROM users_old WHERE name = 'ALICE') AS exists_alice;
SELECT bloom_index_contains('users_old_c', 'ALICE'::text);
SELECT bloom_index_contains('users_old_c_expr', 'ALICE'::text);
SELECT * FROM bloom_index_verify('users_old_c');
SELECT bloom_index_filter('users_old_c_expr') IS NOT NULL;
INSERT INTO users_old VALUES ('bob');
SELECT count(*) FROM users_old;
DROP TABLE users_old, users_c, users_ci_parted;

-- ---- 8. an operator class amvalidate accepts is one CREATE INDEX takes ----
CREATE FUNCTION my_int4_hash(int4, int8) RETURNS int8 LANGUAGE sql IMMUTABLE
  AS $$SELECT hashint4extended($1, $2) # 1$$;
CREATE OPERATOR CLASS int4_other_hash FOR TYPE int4 USING bloomfilter AS
  FUNCTION 1 my_int4_hash(int4, int8);
SELECT amvalidate(oid) AS valid_other_hash FROM pg_opclass WHERE opcname = 'int4_other_hash';
-- (the SQLSTATE only: 17 names the function with its schema in a maintenance command)
\set VERBOSITY sqlstate
CREATE INDEX other_hash ON t1 USING bloomfilter (k int4_other_hash);
\set VERBOSITY default
CREATE OPERATOR CLASS int4_own_hash FOR TYPE int4 USING bloomfilter AS
  FUNCTION 1 hashint4extended(int4, int8);
SELECT amvalidate(oid) AS valid_own_hash FROM pg_opclass WHERE opcname = 'int4_own_hash';
CREATE INDEX own_hash ON t1 USING bloomfilter (k int4_own_hash);
DROP INDEX own_hash;

RESET client_min_messages;
SET client_min_messages = warning;
DROP SCHEMA bloom_vis CASCADE;
DROP ROLE regress_bloom_vis_owner, regress_bloom_vis_nobody, regress_bloom_vis_hidden;
