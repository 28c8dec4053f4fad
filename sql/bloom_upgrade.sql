--
-- ALTER EXTENSION bloomfilter UPDATE from 1.0 to 1.1 to 1.2 to 1.3 to 1.4 to 1.5 to 1.6 to 1.7 to 1.8 to 1.9 to 1.10 to 1.11 to 1.12, with stored
-- data.  (Runs last: it drops the extension the other tests use.)
--
SET client_min_messages = warning;
DROP EXTENSION bloomfilter CASCADE;
RESET client_min_messages;

-- the objects that belong to the extension now
CREATE FUNCTION ext_objects_now() RETURNS SETOF text LANGUAGE sql AS $$
  SELECT pg_describe_object(classid, objid, 0)
    FROM pg_depend
   WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
     AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'bloomfilter')
$$;

CREATE EXTENSION bloomfilter VERSION '1.0';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
CREATE TABLE ext_objects AS SELECT '1.0'::text AS version, o AS object FROM ext_objects_now() o;

-- filters stored under 1.0
CREATE TABLE kept (id int, f bloom);
INSERT INTO kept SELECT 1, bloom_agg(g, 1000, 0.01) FROM generate_series(1, 1000) g;
INSERT INTO kept SELECT 2, bloom_agg(g, 1000, 0.01) FROM generate_series(1001, 2000) g;
SELECT bloom_try('SELECT counting_bloom_empty(10)') AS before_update;

ALTER EXTENSION bloomfilter UPDATE TO '1.1';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.1', o FROM ext_objects_now() o;

-- what the update added, and that it removed nothing
SELECT object FROM ext_objects WHERE version = '1.1'
EXCEPT SELECT object FROM ext_objects WHERE version = '1.0'
ORDER BY 1;
SELECT count(*) AS removed FROM (
  SELECT object FROM ext_objects WHERE version = '1.0'
  EXCEPT SELECT object FROM ext_objects WHERE version = '1.1') r;

-- the stored 1.0 filters work with 1.1's functions, unchanged
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS union_of_stored
  FROM kept;
SELECT id, f @> 500 AS has_500, f @> 1500 AS has_1500, bloom_cardinality(f) FROM kept ORDER BY id;
SELECT bloom_count(bloom_add(counting_bloom_empty(10), 'x'), 'x') AS counting_works;

-- 1.1 -> 1.2 adds the planner support
ALTER EXTENSION bloomfilter UPDATE TO '1.2';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.2', o FROM ext_objects_now() o;
SELECT object FROM ext_objects WHERE version = '1.2'
EXCEPT SELECT object FROM ext_objects WHERE version = '1.1'
ORDER BY 1;
SELECT count(*) AS functions_with_support FROM pg_proc
 WHERE prosupport = 'bloom_contains_support'::regproc;
SELECT count(*) AS operators_with_estimator FROM pg_operator
 WHERE oprrest = 'bloom_contains_restrict'::regproc;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work
  FROM kept;

-- 1.2 -> 1.3: bloom_agg(value) sizes for the distinct count it finds
SELECT (bloom_info(bloom_agg(g))).nbits AS nbits_12 FROM generate_series(1, 1000) g;
ALTER EXTENSION bloomfilter UPDATE TO '1.3';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.3', o FROM ext_objects_now() o;
SELECT object FROM ext_objects WHERE version = '1.3'
EXCEPT SELECT object FROM ext_objects WHERE version = '1.2'
ORDER BY 1;
SELECT (bloom_info(bloom_agg(g))).nbits AS nbits_13, (bloom_params(1000)).nbits AS optimal
  FROM generate_series(1, 1000) g;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_13
  FROM kept;

-- 1.3 -> 1.4: bloom_agg and counting_bloom_agg get overloads of their own
-- for the common key types (so that Citus can run them on its workers).
-- The same calls before and after the update, over columns of those types
-- and of others: every call still resolves, to the overload listed, and
-- gives the same filter, bit for bit.
CREATE TYPE upgrade_mood AS ENUM ('sad', 'ok', 'happy');
CREATE DOMAIN big_id AS int8;
CREATE TABLE typed AS
SELECT i::int2 AS c_int2, i AS c_int4, i::int8 * 3 AS c_int8, 'k' || i AS c_text,
       ('v' || i)::varchar(10) AS c_varchar, ('c' || i)::char(6) AS c_bpchar,
       md5(i::text)::uuid AS c_uuid, i / 3.0 AS c_numeric, date '2020-01-01' + i AS c_date,
       timestamp '2020-01-01' + i * interval '1 hour' AS c_timestamp,
       timestamptz '2020-01-01 UTC' + i * interval '1 minute' AS c_timestamptz,
       i::text::bytea AS c_bytea, i::big_id AS c_domain,
       (ARRAY['sad', 'ok', 'happy'])[i % 3 + 1]::upgrade_mood AS c_enum, ARRAY[i, i + 1] AS c_array,
       ('n' || i)::name AS c_name, i::oid AS c_oid, jsonb_build_object('i', i) AS c_jsonb,
       i::float8 AS c_float8
  FROM generate_series(1, 500) i;
CREATE TABLE agg_calls (call text PRIMARY KEY);
INSERT INTO agg_calls
SELECT format(form, arg)
  FROM (SELECT attname::text FROM pg_attribute
         WHERE attrelid = 'typed'::regclass AND attnum > 0
        UNION ALL SELECT '''an unknown literal''') a(arg),
       unnest(ARRAY['bloom_agg(%s)', 'bloom_agg(%s, 0.001)', 'bloom_agg(%s, 1000, 0.01)',
                    'bloom_agg(%s, 1000, 0.01, ''blocked'')', 'counting_bloom_agg(%s)',
                    'counting_bloom_agg(%s, 1000, 0.01)']) form;
-- each call's filter (its md5: counting_bloom_agg(value) is sized for a
-- million values), or its error
CREATE FUNCTION agg_results() RETURNS TABLE (call text, result text) LANGUAGE plpgsql AS $$
BEGIN
  FOR call IN SELECT c.call FROM agg_calls c ORDER BY 1 LOOP
    BEGIN
      EXECUTE format('SELECT md5(%s::text) FROM typed', call) INTO result;
    EXCEPTION WHEN OTHERS THEN
      result := 'ERROR: ' || SQLERRM;
    END;
    RETURN NEXT;
  END LOOP;
END
$$;
-- the aggregate a call resolves to, read from a view's dependencies
CREATE FUNCTION resolves_to(call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  agg text;
BEGIN
  EXECUTE format('CREATE TEMP VIEW resolved AS SELECT %s FROM typed', call);
  SELECT p.oid::regprocedure::text INTO agg
    FROM pg_depend d JOIN pg_rewrite r ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
         JOIN pg_proc p ON d.refclassid = 'pg_proc'::regclass AND d.refobjid = p.oid
   WHERE r.ev_class = 'resolved'::regclass AND p.proname IN ('bloom_agg', 'counting_bloom_agg');
  DROP VIEW resolved;
  RETURN agg;
END
$$;
CREATE TABLE results_13 AS SELECT * FROM agg_results();
ALTER EXTENSION bloomfilter UPDATE TO '1.4';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.4', o FROM ext_objects_now() o;
SELECT count(*) AS new_objects,
       count(*) FILTER (WHERE object ~ '^function (counting_)?bloom_agg\(') AS aggregates,
       string_agg(DISTINCT substring(object FROM '^function bloom_agg\(([^,)]+)\)$'), ', ')
         AS types
  FROM (SELECT object FROM ext_objects WHERE version = '1.4'
        EXCEPT SELECT object FROM ext_objects WHERE version = '1.3') o;
SELECT count(*) AS calls, count(*) FILTER (WHERE a.result = b.result) AS same_result,
       count(*) FILTER (WHERE b.result LIKE 'ERROR%') AS errors_13,
       count(*) FILTER (WHERE a.result LIKE 'ERROR%') AS errors_14
  FROM results_13 b JOIN agg_results() a USING (call);
-- what changed: an unknown literal now resolves (to text)
SELECT call, b.result AS result_13, a.result LIKE 'ERROR%' AS error_14
  FROM results_13 b JOIN agg_results() a USING (call)
 WHERE a.result <> b.result ORDER BY 1;
SELECT call, resolves_to(call) FROM agg_calls WHERE call LIKE 'bloom_agg(%, 0.001)' ORDER BY 1;
SELECT count(*) AS calls_of_a_form, count(DISTINCT resolves_to(call)) AS overloads
  FROM agg_calls WHERE call LIKE 'counting_bloom_agg(%, 1000, 0.01)';
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_14
  FROM kept;
DROP TABLE typed, agg_calls, results_13;
DROP FUNCTION agg_results(), resolves_to(text);
DROP TYPE upgrade_mood;
DROP DOMAIN big_id;

-- 1.4 -> 1.5: runtime join filters live in the library (the setting
-- bloomfilter.runtime_filter); the update adds and changes no SQL object
ALTER EXTENSION bloomfilter UPDATE TO '1.5';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.5', o FROM ext_objects_now() o;
SELECT count(*) AS changed_objects FROM (
  (SELECT object FROM ext_objects WHERE version = '1.5' EXCEPT SELECT object FROM ext_objects WHERE version = '1.4')
  UNION ALL
  (SELECT object FROM ext_objects WHERE version = '1.4' EXCEPT SELECT object FROM ext_objects WHERE version = '1.5')) d;

-- 1.5 -> 1.6: safer runtime filters, all in the library; no SQL object
-- changes, and the stored filters read as before
ALTER EXTENSION bloomfilter UPDATE TO '1.6';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.6', o FROM ext_objects_now() o;
SELECT count(*) AS changed_objects FROM (
  (SELECT object FROM ext_objects WHERE version = '1.6' EXCEPT SELECT object FROM ext_objects WHERE version = '1.5')
  UNION ALL
  (SELECT object FROM ext_objects WHERE version = '1.5' EXCEPT SELECT object FROM ext_objects WHERE version = '1.6')) d;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_16
  FROM kept;

-- 1.6 -> 1.7: the two functions a remote server runs for runtime filters
-- shipped into postgres_fdw scans; the stored filters read as before
ALTER EXTENSION bloomfilter UPDATE TO '1.7';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.7', o FROM ext_objects_now() o;
(SELECT 'added: ' || object FROM ext_objects WHERE version = '1.7' EXCEPT SELECT 'added: ' || object FROM ext_objects WHERE version = '1.6')
UNION ALL
(SELECT 'removed: ' || object FROM ext_objects WHERE version = '1.6' EXCEPT SELECT 'removed: ' || object FROM ext_objects WHERE version = '1.7')
ORDER BY 1;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_17
  FROM kept;

-- 1.7 -> 1.8: runtime filters that skip partitions and block ranges, all in
-- the library: no SQL object added or removed; the stored filters read as before
ALTER EXTENSION bloomfilter UPDATE TO '1.8';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.8', o FROM ext_objects_now() o;
SELECT count(*) AS changed FROM (
  (SELECT object FROM ext_objects WHERE version = '1.8' EXCEPT SELECT object FROM ext_objects WHERE version = '1.7')
  UNION ALL
  (SELECT object FROM ext_objects WHERE version = '1.7' EXCEPT SELECT object FROM ext_objects WHERE version = '1.8')) d;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_18
  FROM kept;

-- 1.8 -> 1.9: the bloomfilter index access method, its operator classes and
-- the functions that read it; nothing removed; the stored filters read as before
ALTER EXTENSION bloomfilter UPDATE TO '1.9';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.9', o FROM ext_objects_now() o;
(SELECT 'added: ' || object FROM ext_objects WHERE version = '1.9' EXCEPT SELECT 'added: ' || object FROM ext_objects WHERE version = '1.8')
UNION ALL
(SELECT 'removed: ' || object FROM ext_objects WHERE version = '1.8' EXCEPT SELECT 'removed: ' || object FROM ext_objects WHERE version = '1.9')
ORDER BY 1;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_19
  FROM kept;
-- an index made after the update holds its table's keys
CREATE TABLE keys_19 AS SELECT g AS k FROM generate_series(1, 1000) g;
CREATE INDEX keys_19_k ON keys_19 USING bloomfilter (k);
SELECT keys_missing, rows_checked FROM bloom_index_verify('keys_19_k');
DROP TABLE keys_19;

-- 1.9 -> 1.10: the client libraries, outside the server: no SQL object added
-- or removed; the stored filters, and an index made under 1.9, read as before
CREATE TABLE keys_110 AS SELECT g AS k FROM generate_series(1, 1000) g;
CREATE INDEX keys_110_k ON keys_110 USING bloomfilter (k);
ALTER EXTENSION bloomfilter UPDATE TO '1.10';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.10', o FROM ext_objects_now() o;
SELECT count(*) AS changed FROM (
  (SELECT object FROM ext_objects WHERE version = '1.10' EXCEPT SELECT object FROM ext_objects WHERE version = '1.9')
  UNION ALL
  (SELECT object FROM ext_objects WHERE version = '1.9' EXCEPT SELECT object FROM ext_objects WHERE version = '1.10')) d;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_110
  FROM kept;
INSERT INTO keys_110 SELECT g FROM generate_series(1001, 1100) g;
SELECT keys_missing, rows_checked FROM bloom_index_verify('keys_110_k');
DROP TABLE keys_110;

-- 1.10 -> 1.11: readers that keep the promise (issue 39), all in the library,
-- and the casts between bytea and the filter types (issue 42): those, and
-- nothing else, added; an index made under 1.10 takes keys and answers its
-- own statement's inserts
CREATE TABLE keys_111 AS SELECT g AS k FROM generate_series(1, 1000) g;
CREATE INDEX keys_111_k ON keys_111 USING bloomfilter (k);
ALTER EXTENSION bloomfilter UPDATE TO '1.11';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.11', o FROM ext_objects_now() o;
SELECT 'added' AS change, object FROM
  (SELECT object FROM ext_objects WHERE version = '1.11' EXCEPT SELECT object FROM ext_objects WHERE version = '1.10') a
UNION ALL
SELECT 'removed', object FROM
  (SELECT object FROM ext_objects WHERE version = '1.10' EXCEPT SELECT object FROM ext_objects WHERE version = '1.11') r
ORDER BY 1, 2;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_111
  FROM kept;
CREATE FUNCTION seen_111(int, idx text DEFAULT 'keys_111_k') RETURNS bool LANGUAGE plpgsql AS
  $$BEGIN RETURN bloom_index_contains(idx::regclass, $1); END$$;
INSERT INTO keys_111 SELECT 2000 + g % 50 FROM generate_series(1, 200) g WHERE NOT seen_111(2000 + g % 50);
SELECT count(*) - count(DISTINCT k) AS duplicates FROM keys_111;
SELECT keys_missing, rows_checked FROM bloom_index_verify('keys_111_k');
DROP TABLE keys_111;
DROP FUNCTION seen_111(int, text);

-- 1.11 -> 1.12: trust and first contact (issue 49): bloom_index_contains for
-- text and untyped literals, bloom_runtime_status and bloom_runtime_check
-- added, nothing removed; the update says (WARNING) how to load the library
-- in every session; an index made under 1.11 answers the new form
CREATE TABLE keys_112 (k int);
CREATE INDEX keys_112_k ON keys_112 USING bloomfilter (k);
INSERT INTO keys_112 SELECT g FROM generate_series(1, 100) g;
-- bloom_index_info gains three columns (issue 52): it is dropped and made
-- again, so a view of the user's over it stops the update, which names the
-- view and says what to do (2BP01), and leaves 1.11 as it was
CREATE VIEW keys_112_info AS SELECT layers FROM bloom_index_info('keys_112_k');
\set SHOW_CONTEXT never
ALTER EXTENSION bloomfilter UPDATE TO '1.12';
\echo :LAST_ERROR_SQLSTATE
\set SHOW_CONTEXT errors
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SELECT layers FROM keys_112_info;
DROP VIEW keys_112_info;
ALTER EXTENSION bloomfilter UPDATE TO '1.12';
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
INSERT INTO ext_objects SELECT '1.12', o FROM ext_objects_now() o;
SELECT 'added' AS change, object FROM
  (SELECT object FROM ext_objects WHERE version = '1.12' EXCEPT SELECT object FROM ext_objects WHERE version = '1.11') a
UNION ALL
SELECT 'removed', object FROM
  (SELECT object FROM ext_objects WHERE version = '1.11' EXCEPT SELECT object FROM ext_objects WHERE version = '1.12') r
ORDER BY 1, 2;
SELECT bloom_index_contains('keys_112_k', '42') AS untyped_42, bloom_index_contains('keys_112_k', '420') AS untyped_420;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 2000) g)
       AS stored_still_work_112
  FROM kept;
DROP TABLE keys_112;

-- a fresh installation of the default version has the same objects
DROP TABLE kept;
DROP EXTENSION bloomfilter;
CREATE EXTENSION bloomfilter;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SELECT count(*) AS differences FROM (
  (SELECT object FROM ext_objects WHERE version = '1.12' EXCEPT SELECT * FROM ext_objects_now())
  UNION ALL
  (SELECT * FROM ext_objects_now() EXCEPT SELECT object FROM ext_objects WHERE version = '1.12')) d;

-- The extension is trusted: a user with CREATE on the database installs and
-- updates it, its scripts running as a superuser with the extension's schema,
-- which may be the user's, on the search path.  Operators and functions there
-- that match the scripts' own calls better than pg_catalog's (= of oid and
-- regtype or regclass, format of these arguments) must never be called: the
-- scripts name pg_catalog's.  Each here fails if it is.
DROP EXTENSION bloomfilter;
CREATE ROLE regress_bloom_installer;
GRANT CREATE ON DATABASE contrib_regression TO regress_bloom_installer;
SET ROLE regress_bloom_installer;
CREATE SCHEMA installer;
CREATE FUNCTION installer.taken(variadic args text[]) RETURNS boolean LANGUAGE plpgsql AS
  $$BEGIN RAISE EXCEPTION 'a script called the user''s function, as %', current_user; END$$;
CREATE FUNCTION installer.eq_oid_regtype(oid, regtype) RETURNS boolean LANGUAGE sql AS
  $$SELECT installer.taken('=(oid, regtype)')$$;
CREATE OPERATOR installer.= (LEFTARG = oid, RIGHTARG = regtype, FUNCTION = installer.eq_oid_regtype);
CREATE FUNCTION installer.eq_oid_regclass(oid, regclass) RETURNS boolean LANGUAGE sql AS
  $$SELECT installer.taken('=(oid, regclass)')$$;
CREATE OPERATOR installer.= (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = installer.eq_oid_regclass);
CREATE FUNCTION installer.format(text, text) RETURNS text LANGUAGE sql AS
  $$SELECT installer.taken('format(text, text)')::text$$;
CREATE FUNCTION installer.format(text, text, regtype, regprocedure) RETURNS text LANGUAGE sql AS
  $$SELECT installer.taken('format(text, text, regtype, regprocedure)')::text$$;
CREATE FUNCTION installer.format(text, regclass) RETURNS text LANGUAGE sql AS
  $$SELECT installer.taken('format(text, regclass)')::text$$;
-- (1.0 to 1.11: the scripts of 1.4 and 1.9 query the catalogs)
CREATE EXTENSION bloomfilter SCHEMA installer VERSION '1.11';
-- (a view over bloom_index_info: 1.12's check finds it, and refuses)
CREATE TABLE installer.t (k int);
CREATE INDEX t_k ON installer.t USING bloomfilter (k);
CREATE VIEW installer.t_info AS SELECT layers FROM installer.bloom_index_info('installer.t_k');
\set SHOW_CONTEXT never
ALTER EXTENSION bloomfilter UPDATE TO '1.12';
\set SHOW_CONTEXT errors
DROP VIEW installer.t_info;
ALTER EXTENSION bloomfilter UPDATE TO '1.12';
SELECT extversion, (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS installer_is_superuser
  FROM pg_extension WHERE extname = 'bloomfilter';
RESET ROLE;
DROP SCHEMA installer CASCADE;
REVOKE CREATE ON DATABASE contrib_regression FROM regress_bloom_installer;
DROP ROLE regress_bloom_installer;
CREATE EXTENSION bloomfilter;
