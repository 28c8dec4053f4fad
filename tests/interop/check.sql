-- tests/interop/check.sql: other systems' filters, as their makers wrote them
-- (tests/interop/run.sh), read by bloom_import and probed in SQL: every key
-- answered as the maker answered; and for Spark and Guava, bloom_agg in their
-- formats gives the maker's bytes.  psql -v dir=DIR (the makers' files),
-- -v n=N -v fpp=FPP (what the makers were given).  Prints one line per case:
-- "case|keys|as_maker|same_bytes|stored_as_maker" (same_bytes empty where no bytes are
-- compared; stored_as_maker: the same keys probed in the filter stored out of line).
\set ON_ERROR_STOP 1
\set QUIET on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
-- each file's lines, in order (an array: a maker's answers line up with the keys)
CREATE FUNCTION pg_temp.lines(path text) RETURNS text[] LANGUAGE sql AS $$
  SELECT string_to_array(rtrim(pg_read_file(path), E'\n'), E'\n') $$;
CREATE TEMP TABLE keys AS
  SELECT kind, s AS set, pg_temp.lines(:'dir' || '/keys/' || kind || '_' || s || '.txt') AS ks
  FROM unnest(array['int', 'txt', 'SMALLINT', 'DATE', 'TIMESTAMP', 'TIMESTAMPTZ', 'FLOAT', 'UUID']) kind,
       unnest(array['in', 'out']) s;
-- the cases: a filter file, how to read it, the keys and the SQL type they are probed as
CREATE TEMP TABLE cases (name text, file text, format text, element_type text, kind text, probe text,
                         layout text);
INSERT INTO cases VALUES
  ('guava long', 'guava_long.bin', 'guava', 'bigint', 'int', 'k::bigint', 'guava'),
  ('guava integer', 'guava_integer.bin', 'guava', 'integer', 'int', 'k::integer', 'guava'),
  ('guava utf8', 'guava_utf8.bin', 'guava', 'text', 'txt', 'k', 'guava'),
  ('guava chars', 'guava_chars.bin', 'guava_chars', 'text', 'txt', 'k', 'guava_chars'),
  -- (byteArrayFunnel puts the bytes as stringFunnel(UTF_8) puts a string's UTF-8: Guava's utf8 filter is its bytea one)
  ('guava bytea', 'guava_utf8.bin', 'guava', 'bytea', 'txt', 'convert_to(k, ''UTF8'')', 'guava'),
  ('spark v1 long', 'spark_v1_long.bin', 'spark', 'bigint', 'int', 'k::bigint', 'spark_v1'),
  ('spark v1 string', 'spark_v1_string.bin', 'spark', 'text', 'txt', 'k', 'spark_v1'),
  ('spark v1 binary', 'spark_v1_binary.bin', 'spark', 'bytea', 'txt', 'convert_to(k, ''UTF8'')', 'spark_v1'),
  ('spark v2 long', 'spark_v2_long.bin', 'spark', 'bigint', 'int', 'k::bigint', 'spark'),
  ('spark v2 string', 'spark_v2_string.bin', 'spark', 'text', 'txt', 'k', 'spark'),
  ('spark v2 binary', 'spark_v2_binary.bin', 'spark', 'bytea', 'txt', 'convert_to(k, ''UTF8'')', 'spark'),
  ('duckdb BIGINT', 'duckdb_BIGINT.sbbf', 'parquet', 'bigint', 'int', 'k::bigint', NULL),
  ('duckdb INTEGER', 'duckdb_INTEGER.sbbf', 'parquet', 'integer', 'int', 'k::integer', NULL),
  ('duckdb DOUBLE', 'duckdb_DOUBLE.sbbf', 'parquet', 'float8', 'int', 'k::float8', NULL),
  ('duckdb VARCHAR', 'duckdb_VARCHAR.sbbf', 'parquet', 'text', 'txt', 'k', NULL),
  ('duckdb BLOB', 'duckdb_BLOB.sbbf', 'parquet', 'bytea', 'txt', 'convert_to(k, ''UTF8'')', NULL),
  ('duckdb SMALLINT', 'duckdb_SMALLINT.sbbf', 'parquet', 'smallint', 'SMALLINT', 'k::smallint', NULL),
  ('duckdb DATE', 'duckdb_DATE.sbbf', 'parquet', 'date', 'DATE', 'k::date', NULL),
  ('duckdb TIMESTAMP', 'duckdb_TIMESTAMP.sbbf', 'parquet', 'timestamp', 'TIMESTAMP', 'k::timestamp', NULL),
  ('duckdb TIMESTAMPTZ', 'duckdb_TIMESTAMPTZ.sbbf', 'parquet', 'timestamptz', 'TIMESTAMPTZ', 'k::timestamptz', NULL),
  ('duckdb FLOAT', 'duckdb_FLOAT.sbbf', 'parquet', 'real', 'FLOAT', 'k::real', NULL),
  ('duckdb UUID', 'duckdb_UUID.sbbf', 'parquet', 'uuid', 'UUID', 'k::uuid', NULL);
SELECT set_config('interop.dir', :'dir', false), set_config('interop.n', :'n', false),
       set_config('interop.fpp', :'fpp', false) \g /dev/null
CREATE TEMP TABLE results (name text, keys bigint, as_maker bigint, same_bytes boolean,
                           stored_as_maker bigint);
-- each filter also stored out of line, as a table keeps one: probed through the call site's
-- kept copy (for Spark's and Guava's, without a division), with <@
CREATE TEMP TABLE stored (name text, f bloom);
ALTER TABLE stored ALTER COLUMN f SET STORAGE EXTERNAL;
INSERT INTO stored SELECT name, bloom_import(pg_read_binary_file(:'dir' || '/' || file), format, element_type::regtype)
FROM cases;
DO $$
DECLARE
  c record;
  dir text := current_setting('interop.dir');
BEGIN
  FOR c IN SELECT * FROM cases ORDER BY name LOOP
    EXECUTE format($q$
      INSERT INTO results
      SELECT %L, count(*), count(*) FILTER (WHERE (f @> %s) = (a = '1')),
             CASE WHEN %L::text IS NULL THEN NULL
                  ELSE (SELECT bloom_export(bloom_agg(%s, %s, %s, %L), %L) = pg_read_binary_file(%L)
                        FROM keys, unnest(keys.ks) k WHERE kind = %L AND set = 'in') END,
             count(*) FILTER (WHERE (%s <@ (SELECT f FROM stored WHERE name = %L)) = (a = '1'))
      FROM (SELECT bloom_import(pg_read_binary_file(%L), %L, %L) AS f) i,
           keys, unnest(keys.ks, pg_temp.lines(%L || '.' || keys.set)) AS u(k, a)
      WHERE keys.kind = %L$q$,
      c.name, c.probe, c.layout, c.probe, current_setting('interop.n'), current_setting('interop.fpp'),
      c.layout, c.format, dir || '/' || c.file, c.kind, c.probe, c.name, dir || '/' || c.file, c.format,
      c.element_type, dir || '/' || c.file, c.kind);
  END LOOP;
END $$;
\pset format unaligned
\pset tuples_only on
SELECT name, keys, as_maker, coalesce(same_bytes::text, ''), stored_as_maker FROM results ORDER BY name;
