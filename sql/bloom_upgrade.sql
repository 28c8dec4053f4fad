--
-- ALTER EXTENSION bloomfilter UPDATE from 1.0 to 1.1 to 1.2 to 1.3, with stored
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

-- a fresh installation of the default version has the same objects
DROP TABLE kept;
DROP EXTENSION bloomfilter;
CREATE EXTENSION bloomfilter;
SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter';
SELECT count(*) AS differences FROM (
  (SELECT object FROM ext_objects WHERE version = '1.3' EXCEPT SELECT * FROM ext_objects_now())
  UNION ALL
  (SELECT * FROM ext_objects_now() EXCEPT SELECT object FROM ext_objects WHERE version = '1.3')) d;
