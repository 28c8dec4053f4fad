--
-- bloom_empty, bloom_empty_mk, bloom_add, bloom_contains, the operators,
-- bloom_info, bloom_cardinality; element families and SQL equality.
--
SET extra_float_digits = 0;

-- bloom_empty sizes from n and a rate (default 1 %); bloom_empty_mk is exact.
SELECT nbits, nhashes, values_added, element_family IS NULL AS untyped
  FROM bloom_info(bloom_empty(1000));
SELECT nbits, nhashes FROM bloom_info(bloom_empty(500, 0.03));
SELECT nbits, nhashes, seed FROM bloom_info(bloom_empty_mk(30000, 3, 42));

-- bloom_add returns a new filter; the input is unchanged.  NULL values are
-- ignored; a NULL filter stays NULL.
CREATE TABLE t (f bloom);
INSERT INTO t VALUES (bloom_empty(100));
SELECT bloom_add(f, 42) @> 42 AS added, f @> 42 AS original_unchanged FROM t;
SELECT (bloom_info(bloom_add(f, NULL::int))).values_added AS after_null FROM t;
SELECT bloom_add(NULL::bloom, 1) IS NULL AS null_filter;
SELECT bloom_contains(bloom_add(f, 1), NULL::int) IS NULL AS probe_null FROM t;
SELECT bloom_contains(NULL::bloom, 1) IS NULL AS null_filter_probe;

-- An empty filter contains nothing, whatever the type.
SELECT bloom_contains(bloom_empty(10), 1), bloom_contains(bloom_empty(10), 'a'),
       bloom_empty(10) @> now();

-- An untyped literal works as text, for the functions and the operators.
SELECT bloom_contains(bloom_add(bloom_empty(10), 'abc'), 'abc') AS fn,
       bloom_add(bloom_empty(10), 'abc') @> 'abc' AS op,
       'abc' <@ bloom_add(bloom_empty(10), 'abc') AS commutator,
       bloom_add(bloom_empty(10), 'abc') @> 'abd' AS other;

-- int2, int4 and int8 share one hash family: built from int4, probed with
-- int8 or int2.
WITH f AS (SELECT bloom_agg(g::int4, 1000, 0.001) AS b FROM generate_series(1, 1000) g)
SELECT count(*) FILTER (WHERE b @> g::int8) AS int8_hits,
       count(*) FILTER (WHERE b @> g::int2) AS int2_hits,
       count(*) FILTER (WHERE g::int4 <@ b) AS int4_hits
  FROM f, generate_series(1, 1000) g;
SELECT (bloom_info(bloom_add(bloom_empty(10), 1::int2))).element_family;

-- numeric follows numeric equality: 1.0 = 1.00 = 1.
SELECT bloom_add(bloom_empty(10), 1.0::numeric) @> 1.00::numeric AS "1.00",
       bloom_add(bloom_empty(10), 1.0::numeric) @> 1::numeric AS "1",
       bloom_add(bloom_empty(10), 1.50::numeric) @> 1.5::numeric AS "1.5";
-- float4 and float8 share float_ops; -0 = 0.
SELECT bloom_add(bloom_empty(10), 0.5::float4) @> 0.5::float8 AS float48,
       bloom_add(bloom_empty(10), 0::float8) @> '-0'::float8 AS minus_zero;
-- varchar hashes as text.
SELECT bloom_add(bloom_empty(10), 'héllo'::varchar) @> 'héllo'::text AS varchar_text;

-- A nondeterministic collation: values equal under it are found, and the
-- filter records the collation.
CREATE COLLATION case_insensitive (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT bloom_add(bloom_empty(10), 'Hello' COLLATE case_insensitive) @> ('HELLO' COLLATE case_insensitive) AS ci_found;
SELECT (bloom_info(bloom_add(bloom_empty(10), 'Hello' COLLATE case_insensitive))).element_family;
-- probing it without the collation is refused, not silently "false"
SELECT bloom_add(bloom_empty(10), 'Hello' COLLATE case_insensitive) @> 'Hello'::text;
-- deterministic collations hash alike and share the plain key
SELECT bloom_add(bloom_empty(10), 'Hello' COLLATE "C") @> ('Hello' COLLATE "POSIX") AS c_posix;

-- Probing or adding a value of another type family is an error.
SELECT bloom_add(bloom_empty(10), 1) @> 'one'::text;
SELECT bloom_add(bloom_add(bloom_empty(10), 1), 1.5::numeric);
SELECT bloom_add(bloom_empty(10), 1) @> 1::numeric;
-- a type without hash support
SELECT bloom_add(bloom_empty(10), point(1, 2));

-- Other families: uuid, date, bytea, arrays, composite types.
CREATE TYPE pair AS (a int, b text);
SELECT bloom_add(bloom_empty(10), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)
       @> 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid AS uuid,
       bloom_add(bloom_empty(10), date '2026-11-22') @> date '2026-11-22' AS date,
       bloom_add(bloom_empty(10), '\x0102'::bytea) @> '\x0102'::bytea AS bytea,
       bloom_add(bloom_empty(10), ARRAY[1, 2]) @> ARRAY[1, 2] AS array,
       bloom_add(bloom_empty(10), ROW(1, 'a')::pair) @> ROW(1, 'a')::pair AS composite,
       bloom_add(bloom_empty(10), ROW(1, 'a')::pair) @> ROW(1, 'b')::pair AS other_composite;
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
SELECT bloom_add(bloom_empty(10), 'ok'::mood) @> 'ok'::mood AS enum,
       bloom_add(bloom_empty(10), 'ok'::mood) @> 'sad'::mood AS other_enum,
       bloom_add(bloom_empty(10), int4range(1, 5)) @> int4range(1, 4, '[]') AS range,
       bloom_add(bloom_empty(10), now()::timestamptz) @> now()::timestamptz AS timestamptz;
-- an anonymous record has no hash function of its own
SELECT bloom_add(bloom_empty(10), ROW(1, 'a'::text));

-- bloom_info and bloom_cardinality
WITH f AS (SELECT bloom_agg(g, 10000, 0.01) AS b FROM generate_series(1, 10000) g)
SELECT i.layout, i.nbits, i.nhashes, i.bytes = pg_column_size(b) AS bytes_is_size,
       i.values_added, i.bits_set, round(i.fill_ratio::numeric, 4) AS fill,
       round(i.estimated_distinct) AS est_distinct, round(i.estimated_fpp::numeric, 5) AS est_fpp,
       i.element_family, i.seed, i.hash_scheme,
       bloom_cardinality(b) AS cardinality
  FROM f, bloom_info(b) i;
-- duplicates count as added values but not as distinct ones; the estimate
-- never exceeds the values added (a saturated filter tells no more)
WITH f AS (SELECT bloom_agg(g % 100, 1000, 0.01) AS b FROM generate_series(1, 5000) g)
SELECT (bloom_info(b)).values_added, bloom_cardinality(b) FROM f;
SELECT bloom_cardinality(bloom_empty(100)) AS empty,
       bloom_cardinality('v1 classic m=8 k=1 scheme=1 seed=0 n=8 elem=pg_catalog.integer_ops bits=/w=='::bloom) AS saturated;
