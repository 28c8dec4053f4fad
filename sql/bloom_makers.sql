-- Other systems' filters (1.12): Apache Spark's, Guava's and Parquet's,
-- read by bloom_import and probed in SQL exactly as their makers probe
-- them, written back by bloom_export in their bytes.  The filters and the
-- makers' answers are tests/unit/makers/'s (made by Spark's own classes and
-- by Guava: make_vectors.sh), and apache/parquet-testing's
-- bloom_filter.xxhash.bin (written by parquet-mr).
\getenv abs_srcdir PG_ABS_SRCDIR
\set QUIET on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
RESET client_min_messages;

-- a maker's file: its first line "maker type n fpp filter-hex", then "key answer" lines
CREATE TEMP TABLE maker_lines (name text, n int GENERATED ALWAYS AS IDENTITY, line text);
CREATE FUNCTION pg_temp.load_maker(name text, path text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('COPY maker_lines (line) FROM %L', path);
  UPDATE maker_lines SET name = load_maker.name WHERE maker_lines.name IS NULL;
END $$;
SELECT pg_temp.load_maker(f, :'abs_srcdir' || '/tests/unit/makers/' || f || '.txt')
FROM unnest(array['spark-v1-long', 'spark-v1-string', 'spark-v2-long', 'spark-v2-string',
                  'spark-v2seed-long', 'guava-long', 'guava-integer', 'guava-utf8', 'guava-chars']) f;
CREATE TEMP TABLE maker_filters AS
  SELECT name, decode(split_part(line, ' ', 5), 'hex') AS bytes,
         split_part(line, ' ', 3)::bigint AS expected_n, split_part(line, ' ', 4)::float8 AS fpp,
         n AS first_line
  FROM (SELECT DISTINCT ON (name) name, line, n FROM maker_lines ORDER BY name, n) headers;
CREATE TEMP TABLE maker_keys AS
  SELECT name, n, split_part(line, ' ', 1) AS key, split_part(line, ' ', 2) = '1' AS maker
  FROM maker_lines l
  WHERE n > (SELECT min(n) FROM maker_lines m WHERE m.name = l.name);
-- a text key is "x" and its bytes' hex (UTF-8; guava-chars: UTF-16LE, read here
-- when it has no surrogate or NUL; the unit tests read every one)
CREATE FUNCTION pg_temp.utf16le(b bytea) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN bool_or(u = 0 OR u BETWEEN 55296 AND 57343) THEN NULL
              ELSE coalesce(string_agg(chr(CASE WHEN u = 0 OR u BETWEEN 55296 AND 57343 THEN 63 ELSE u END),
                                       '' ORDER BY i), '') END
  FROM (SELECT i, get_byte(b, 2 * i) + 256 * get_byte(b, 2 * i + 1) AS u
        FROM generate_series(0, length(b) / 2 - 1) i) units $$;

-- every key answered as its maker answered, and the filter written back byte for byte
SELECT name, format, element_type, count(*) AS keys,
       count(*) FILTER (WHERE answer = maker) AS as_maker,
       bool_and(bloom_export(f, format) = bytes) AS same_bytes
FROM (
  SELECT k.name, 'spark' AS format, 'bigint' AS element_type, k.maker, f.bytes,
         bloom_import(f.bytes, 'spark', 'bigint') AS f,
         bloom_import(f.bytes, 'spark', 'bigint') @> k.key::bigint AS answer
  FROM maker_keys k JOIN maker_filters f USING (name) WHERE name LIKE 'spark-%-long'
  UNION ALL
  SELECT k.name, 'spark', 'text', k.maker, f.bytes, bloom_import(f.bytes, 'spark', 'text'),
         bloom_import(f.bytes, 'spark', 'text') @> convert_from(decode(substr(k.key, 2), 'hex'), 'UTF8')
  FROM maker_keys k JOIN maker_filters f USING (name) WHERE name LIKE 'spark-%-string'
  UNION ALL
  SELECT k.name, 'spark', 'bytea', k.maker, f.bytes, bloom_import(f.bytes, 'spark', 'bytea'),
         bloom_import(f.bytes, 'spark', 'bytea') @> decode(substr(k.key, 2), 'hex')
  FROM maker_keys k JOIN maker_filters f USING (name) WHERE name LIKE 'spark-%-string'
  UNION ALL
  SELECT k.name, 'guava', 'bigint', k.maker, f.bytes, bloom_import(f.bytes, 'guava', 'bigint'),
         bloom_import(f.bytes, 'guava', 'bigint') @> k.key::bigint
  FROM maker_keys k JOIN maker_filters f USING (name) WHERE name = 'guava-long'
  UNION ALL
  SELECT k.name, 'guava', 'integer', k.maker, f.bytes, bloom_import(f.bytes, 'guava', 'integer'),
         bloom_import(f.bytes, 'guava', 'integer') @> k.key::integer
  FROM maker_keys k JOIN maker_filters f USING (name) WHERE name = 'guava-integer'
  UNION ALL
  SELECT k.name, 'guava', 'text', k.maker, f.bytes, bloom_import(f.bytes, 'guava', 'text'),
         bloom_import(f.bytes, 'guava', 'text') @> convert_from(decode(substr(k.key, 2), 'hex'), 'UTF8')
  FROM maker_keys k JOIN maker_filters f USING (name) WHERE name = 'guava-utf8'
  UNION ALL
  SELECT k.name, 'guava_chars', 'text', k.maker, f.bytes, bloom_import(f.bytes, 'guava_chars', 'text'),
         bloom_import(f.bytes, 'guava_chars', 'text') @> pg_temp.utf16le(decode(substr(k.key, 2), 'hex'))
  FROM maker_keys k JOIN maker_filters f USING (name)
  WHERE name = 'guava-chars' AND pg_temp.utf16le(decode(substr(k.key, 2), 'hex')) IS NOT NULL
) t
GROUP BY name, format, element_type ORDER BY name, element_type;

-- built here in the makers' formats: the first n keys, sized as the maker sizes a
-- filter for n and fpp, give the maker's bytes
SELECT name, layout, bloom_export(f, format) = bytes AS same_bytes,
       (bloom_info(f)).values_added, bloom_import(bytes, format, element_type) = f AS equals_import
FROM (
  SELECT name, 'spark' AS layout, 'spark' AS format, 'bigint'::regtype AS element_type, bytes,
         bloom_agg(key::bigint, expected_n, fpp, 'spark') AS f
  FROM maker_keys k JOIN maker_filters f USING (name)
  WHERE name = 'spark-v2-long' AND k.n <= f.first_line + f.expected_n GROUP BY name, bytes
  UNION ALL
  SELECT name, 'spark_v1', 'spark', 'bigint', bytes, bloom_agg(key::bigint, expected_n, fpp, 'spark_v1')
  FROM maker_keys k JOIN maker_filters f USING (name)
  WHERE name = 'spark-v1-long' AND k.n <= f.first_line + f.expected_n GROUP BY name, bytes
  UNION ALL
  SELECT name, 'spark', 'spark', 'text', bytes,
         bloom_agg(convert_from(decode(substr(key, 2), 'hex'), 'UTF8'), expected_n, fpp, 'spark')
  FROM maker_keys k JOIN maker_filters f USING (name)
  WHERE name = 'spark-v2-string' AND k.n <= f.first_line + f.expected_n GROUP BY name, bytes
  UNION ALL
  SELECT name, 'guava', 'guava', 'integer', bytes, bloom_agg(key::integer, expected_n, fpp, 'guava')
  FROM maker_keys k JOIN maker_filters f USING (name)
  WHERE name = 'guava-integer' AND k.n <= f.first_line + f.expected_n GROUP BY name, bytes
  UNION ALL
  SELECT name, 'guava', 'guava', 'bigint', bytes, bloom_agg(key::bigint, expected_n, fpp, 'guava')
  FROM maker_keys k JOIN maker_filters f USING (name)
  WHERE name = 'guava-long' AND k.n <= f.first_line + f.expected_n GROUP BY name, bytes
  UNION ALL
  SELECT name, 'guava', 'guava', 'text', bytes,
         bloom_agg(convert_from(decode(substr(key, 2), 'hex'), 'UTF8'), expected_n, fpp, 'guava')
  FROM maker_keys k JOIN maker_filters f USING (name)
  WHERE name = 'guava-utf8' AND k.n <= f.first_line + f.expected_n GROUP BY name, bytes
) t ORDER BY name;
-- and what parquet-mr wrote: a 1024-byte filter of four strings (n = 1000 at 1 % sizes one of 2048
-- bytes, as parquet-java sizes it; the file's 1024 are a size it was given)
SELECT length(bloom_export(bloom_agg(v, 1000, 0.01, 'parquet'), 'parquet_bitset')) AS parquet_bytes_1000,
       length(bloom_export(bloom_agg(v, 100, 0.01, 'parquet'), 'parquet_bitset')) AS parquet_bytes_100,
       (bloom_info(bloom_agg(v, 100, 0.01, 'parquet'))).values_added
FROM unnest(array['hello', 'parquet', 'bloom', 'filter']) v;

-- a parallel build (partial states combined) gives the serial one's bytes
CREATE TABLE many AS SELECT g, 'k' || g AS t FROM generate_series(1, 60000) g;
ANALYZE many;
CREATE TABLE serial_built AS
  SELECT bloom_agg(g, 60000, 0.01, 'parquet') AS p, bloom_agg(t, 60000, 0.01, 'spark') AS s,
         bloom_agg(g::bigint, 60000, 0.01, 'guava') AS gu FROM many;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT bloom_agg(g, 60000, 0.01, 'parquet') FROM many;
-- (workers did start: else the leader alone would build, and no state be combined)
CREATE FUNCTION pg_temp.workers_launched(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
  RETURN (SELECT sum((p -> 'Workers Launched')::text::int)
          FROM json_array_elements(plan) j, LATERAL jsonb_path_query(j.value::jsonb, 'strict $.**') p
          WHERE jsonb_typeof(p) = 'object' AND p ? 'Workers Launched')::int;
END $$;
SELECT pg_temp.workers_launched('SELECT bloom_agg(g, 60000, 0.01, ''parquet'') FROM many') > 0 AS workers_started;
SELECT bloom_agg(g, 60000, 0.01, 'parquet') = (SELECT p FROM serial_built) AS parquet_same,
       bloom_agg(t, 60000, 0.01, 'spark') = (SELECT s FROM serial_built) AS spark_same,
       bloom_agg(g::bigint, 60000, 0.01, 'guava') = (SELECT gu FROM serial_built) AS guava_same,
       (bloom_info(bloom_agg(g, 60000, 0.01, 'parquet'))).values_added
FROM many;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
-- stored filters (out of line, kept per call site: probed without a division) answer as the
-- same filters in memory (probed with one), for @> and <@, keys added and others
SELECT count(*) FILTER (WHERE (SELECT s FROM serial_built) @> t) AS spark_stored_found,
       count(*) FILTER (WHERE g::bigint <@ (SELECT gu FROM serial_built)) AS guava_stored_found,
       count(*) FILTER (WHERE ((SELECT s FROM serial_built) @> ('x' || g))
                             <> ((SELECT s::text::bloom FROM serial_built) @> ('x' || g))) AS spark_differ,
       count(*) FILTER (WHERE ((g + 100000)::bigint <@ (SELECT gu FROM serial_built))
                             <> ((SELECT gu::text::bloom FROM serial_built) @> (g + 100000)::bigint))
         AS guava_differ
FROM many;
DROP TABLE serial_built, many;

-- Parquet: the filter parquet-mr wrote for "hello", "parquet", "bloom", "filter"
SELECT pg_read_binary_file(:'abs_srcdir' || '/tests/unit/makers/parquet-testing-bloom_filter.xxhash.bin') AS pq \gset
SELECT bloom_import(:'pq', 'parquet', 'text') AS p \gset
SELECT v, :'p'::bloom @> v AS maybe
FROM unnest(array['hello', 'parquet', 'bloom', 'filter', '', 'a', 'abc', 'NOT_EXISTS']) v;
SELECT bloom_export(:'p', 'parquet') = :'pq'::bytea AS same_file,
       length(bloom_export(:'p', 'parquet_bitset')) AS bitset_bytes,
       bloom_import(substring(:'pq'::bytea FROM 17), 'parquet', 'text') = :'p'::bloom AS bare_read,
       bloom_import(substring(:'pq'::bytea FROM 17), 'parquet_bitset', 'varchar') = :'p'::bloom AS bitset_read;
SELECT layout, nbits, nhashes, values_added, bits_set, element_family, seed, hash_scheme
FROM bloom_info(:'p'::bloom);
-- the text and binary forms round-trip; the text names the layout and an unknown count
SELECT left(:'p'::bloom::text, 70) AS text_form,
       (:'p'::bloom::text)::bloom = :'p'::bloom AS text_round_trip,
       (:'p'::bloom::bytea)::bloom = :'p'::bloom AS binary_round_trip;

-- values of each type as their makers encode them, added here and found
CREATE TEMP TABLE typed AS
SELECT i, i::smallint AS i2, i AS i4, i::bigint * 1000000007 AS i8, date '2024-02-29' + i AS d,
       timestamp '2024-02-29 12:00' + i * interval '1 minute' AS ts,
       timestamptz '2024-02-29 12:00+00' + i * interval '1 second' AS tstz,
       i / 4.0::real AS f4, i / 3.0::float8 AS f8, 'k' || i AS t, ('\x' || lpad(to_hex(i), 6, '0'))::bytea AS b,
       ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid AS u
FROM generate_series(1, 200) i;
-- an empty Parquet filter of 1024 bytes (its header and the zeros), one per type
SELECT ('\x15801' || '01c1c00001c1c00001c1c000000' || repeat('00', 1024))::bytea AS empty_pq \gset
SELECT count(*) FILTER (WHERE ok) AS found, count(*) AS total
FROM (
  SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'integer'), i4) @> i4) AS ok FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'smallint'), i2) @> i4) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'bigint'), i8) @> i8) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'date'), d) @> d) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'timestamp'), ts) @> ts) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'timestamptz'), tstz) @> tstz) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'real'), f4) @> f4) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'float8'), f8) @> f8) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'text'), t) @> t) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'bytea'), b) @> b) FROM typed
  UNION ALL SELECT bool_and(bloom_add(bloom_import(:'empty_pq', 'parquet', 'uuid'), u) @> u) FROM typed
) t;

-- a filter of many values, stored and probed from a table, against the values themselves
CREATE TEMP TABLE stored (f bloom);
INSERT INTO stored
SELECT bloom_import(('\x15808002' || '1c1c00001c1c00001c1c000000' || repeat('00', 16384))::bytea,
                    'parquet', 'bigint');
CREATE FUNCTION pg_temp.add_all(f bloom, vals bigint[]) RETURNS bloom LANGUAGE plpgsql AS $$
DECLARE v bigint;
BEGIN
  FOREACH v IN ARRAY vals LOOP f := bloom_add(f, v); END LOOP;
  RETURN f;
END $$;
UPDATE stored SET f = pg_temp.add_all(f, array(SELECT g * 7 FROM generate_series(1, 2000) g));
SELECT count(*) FILTER (WHERE s.f @> g * 7) AS added_found,
       count(*) FILTER (WHERE s.f @> g * 7 + 1) AS others_maybe
FROM stored s, generate_series(1, 2000) g;
SELECT values_added IS NULL AS count_unknown, bits_set > 0 AS has_bits FROM stored, bloom_info(f);

-- conversions: an integer in a long's encoding, exactly; past an int's range, absent
SELECT bloom_add(bloom_import(:'empty_pq', 'parquet', 'bigint'), 42::bigint) @> 42::smallint AS widened,
       bloom_add(bloom_import(:'empty_pq', 'parquet', 'integer'), 7) @> 4294967303::bigint AS past_int,
       bloom_add(bloom_import(:'empty_pq', 'parquet', 'real'), 0.5::real) @> 0.5::float8 AS float_exact,
       bloom_add(bloom_import(:'empty_pq', 'parquet', 'real'), 0.5::real) @> 0.1::float8 AS no_such_float,
       bloom_add(bloom_import(:'empty_pq', 'parquet', 'float8'), '-0'::float8) @> 0::float8 AS zero_is_zero;

-- every NaN is one NaN: the one added is found by a NaN of another sign
SELECT bloom_add(bloom_import(:'empty_pq', 'parquet', 'float8'), 'NaN'::float8) @> ('Infinity'::float8 * 0) AS nan_is_nan,
       bloom_add(bloom_import(:'empty_pq', 'parquet', 'real'), ('Infinity'::real * 0)) @> 'NaN'::real AS nan_is_nan4;
-- the rate bloom_info gives a Parquet filter: its blocks' (the spec's formula), not a classic one's
SELECT bloom_agg(g, 800, 0.01, 'parquet') AS f800 FROM generate_series(1, 800) g \gset
SELECT round((bloom_info(:'f800'::bloom)).estimated_fpp::numeric, 3) AS parquet_fpp,
       round(avg((:'f800'::bloom @> g)::int)::numeric, 3) AS measured
FROM generate_series(1000001, 1200000) g;

-- union of two of one shape and key; a count unknown stays unknown
SELECT (bloom_info(bloom_union(bloom_add(bloom_import(:'empty_pq', 'parquet', 'text'), 'x'),
                               bloom_add(bloom_import(:'empty_pq', 'parquet', 'text'), 'y')))).values_added,
       bloom_union(bloom_add(bloom_import(:'empty_pq', 'parquet', 'text'), 'x'),
                   bloom_add(bloom_import(:'empty_pq', 'parquet', 'text'), 'y')) @> 'y'::text AS y;

-- a union with a filter of the same shape and key
SELECT bloom_union(:'p', bloom_import(:'empty_pq', 'parquet', 'text')) = :'p'::bloom AS union_with_empty;

-- refusals, each with its SQLSTATE
\set VERBOSITY sqlstate
-- another key, our own filter, an AND, layers: 22023
SELECT bloom_union(:'p', bloom_import(:'pq', 'parquet', 'bytea'));
SELECT bloom_union(:'p', bloom_agg(x)) FROM generate_series(1, 3) x;
SELECT bloom_intersect(:'p', :'p');
SELECT bloom_layers(:'p'::bloom);
-- a type the key does not take: 42804; a value its maker's encoding cannot hold: 22003
SELECT bloom_contains(:'p'::bloom, 5);
SELECT bloom_add(:'p'::bloom, 5);
SELECT bloom_add(bloom_import(:'empty_pq', 'parquet', 'date'), 'infinity'::date);
-- export in another maker's format, or of our own filter; unknown formats and types: 22023
SELECT bloom_export(:'p', 'spark');
SELECT bloom_export(bloom_agg(x), 'spark') FROM generate_series(1, 3) x;
SELECT bloom_import(:'pq', 'orc', 'text');
SELECT bloom_import(:'pq', 'spark', 'uuid');
SELECT bloom_import(:'pq', 'guava_chars', 'bytea');
-- bytes the makers' readers refuse: 22P03 (truncated; Spark version 3; Guava strategy 0,
-- k = 0, a word count that is not the length; Parquet truncated, another algorithm,
-- a bitset of 48 bytes)
SELECT bloom_import('\x00', 'spark', 'bigint');
SELECT bloom_import('\x00000003000000010000000000000001', 'spark', 'bigint');
SELECT bloom_import('\x0001000000010000000000000000', 'guava', 'bigint');
SELECT bloom_import('\x0100000000010000000000000000', 'guava', 'bigint');
SELECT bloom_import('\x010100000002ffffffffffffffff', 'guava', 'bigint');
SELECT bloom_import(substring(:'pq'::bytea FROM 1 FOR 1039), 'parquet', 'text');
SELECT bloom_import(overlay(:'pq'::bytea PLACING '\x2c' FROM 4), 'parquet', 'text');
SELECT bloom_import(substring(:'pq'::bytea FROM 17 FOR 48), 'parquet_bitset', 'text');
-- a file's header with bytes too many or too few, even a multiple of 32 long: 22P03, not bits
SELECT bloom_import(:'pq'::bytea || '\x00000000000000000000000000000000'::bytea, 'parquet', 'text');
SELECT bloom_import(substring(:'pq'::bytea FROM 1 FOR 1024), 'parquet', 'text');
-- an element type that is no type: 42704
SELECT bloom_import(:'pq', 'parquet', 0);
-- text forms: an unknown key, an unknown count on our own layout, more bits than k per value: 22P02
SELECT 'v1 parquet m=256 k=8 scheme=5 seed=0 n=unknown elem=parquet%3Aint16 bits=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='::bloom;
SELECT 'v1 classic m=8 k=1 scheme=1 seed=0 n=unknown elem= bits=AA=='::bloom;
SELECT 'v1 parquet m=256 k=8 scheme=5 seed=0 n=1 elem=parquet%3Aint4 bits=////////////////////////////////////////////AAA='::bloom;
\set VERBOSITY default
-- the messages say what to do
SELECT bloom_layers(:'p'::bloom);
SELECT bloom_export(bloom_agg(x), 'parquet') FROM generate_series(1, 3) x;
SELECT bloom_import(:'pq'::bytea || '\x00'::bytea, 'parquet', 'text');
SELECT bloom_contains(:'p'::bloom, 5);
SELECT bloom_import('\x00000003000000010000000000000001', 'spark', 'bigint');

-- a query probing a constant filter of another maker plans and answers (no estimate from its bits)
SELECT count(*) AS probed_rows FROM typed WHERE bloom_import(:'pq', 'parquet', 'text') @> t;
