--
-- A catalogue of bad inputs: every malformed, truncated, oversized or
-- inconsistent text or binary value is an ERROR with a 22xxx (or 54000)
-- SQLSTATE and a message that says what is wrong.
--

-- try_text(t): what casting t to bloom gives, as "SQLSTATE: message".
CREATE FUNCTION try_text(t text) RETURNS text LANGUAGE sql
    AS $$ SELECT bloom_try(format('SELECT %L::bloom', t)) $$;

-- try_binary(b): what bloom_recv makes of the bytes b, through COPY BINARY
-- (a bytea written with COPY BINARY reads back as the same bytes).
CREATE TABLE recv_target (f bloom);
CREATE FUNCTION try_binary(b bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    path text := current_setting('data_directory') || '/bloom_badinput.bin';
BEGIN
    EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', b, path);
    EXECUTE format('COPY recv_target FROM %L (FORMAT binary)', path);
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- Text: a good value first, then one defect at a time.
SELECT left(t, 80) AS input, try_text(t) AS result FROM (VALUES
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  (''),
  ('garbage'),
  ('v1'),
  ('v2 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 blocked m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8 k=3 scheme=7 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=0 k=3 scheme=1 seed=0 n=0 elem= bits='),
  ('v1 classic m=8 k=0 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8 k=65 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g'),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5gAA'),
  ('v1 classic m=16 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g== '),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5h=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5!=='),
  ('v1 classic m=5 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=0 elem=pg_catalog.integer_ops bits=AA=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem= bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=a%zz bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=a%41 bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=a%09 bits=5g=='),
  -- (1.12: a key that is not text in the database's encoding)
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=a%FFb bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=a,b bits=5g=='),
  ('v1 classic m=08 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=-8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic  m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic k=3 m=8 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=18446744073709551616 n=2 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=9223372036854775808 elem=pg_catalog.integer_ops bits=5g=='),
  ('v1 classic m=8589934592 k=3 scheme=1 seed=0 n=0 elem= bits='),
  ('v1 classic m=99999999999999999999 k=3 scheme=1 seed=0 n=0 elem= bits='),
  ('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=' || repeat('x', 300) || ' bits=5g=='),
  ('v1 counting4 m=4 k=1 scheme=1 seed=0 n=1 elem=a.b counters=AQA='),
  ('v1 classic m=8 k=1 scheme=1 seed=0 n=1 bound=1 est=1 elem=a.b counters=AQA=')
) v(t);

-- Binary: the good value's bytes, then one defect at a time.
SELECT encode(bloom_send('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=a.b bits=5g=='), 'hex') AS good;
CREATE TABLE binary_cases AS SELECT * FROM (VALUES
  ('good',            '424c4f4d0101010003000300000000000000000008000000000000000200000000000000612e62e6'),
  ('empty',           ''),
  ('truncated header','424c4f4d0101010003000300'),
  ('bad magic',       '424c4f580101010003000300000000000000000008000000000000000200000000000000612e62e6'),
  ('version 2',       '424c4f4d0201010003000300000000000000000008000000000000000200000000000000612e62e6'),
  ('layout 10',       '424c4f4d010a010003000300000000000000000008000000000000000200000000000000612e62e6'),
  ('window, m = 8',   '424c4f4d0109010003000300000000000000000008000000000000000200000000000000612e62e6'),
  ('scheme 0',        '424c4f4d0101000003000300000000000000000008000000000000000200000000000000612e62e6'),
  ('unknown flag',    '424c4f4d0101010803000300000000000000000008000000000000000200000000000000612e62e6'),
  ('derived, no room','424c4f4d0101010103000300000000000000000008000000000000000200000000000000612e62e6'),
  ('k = 0',           '424c4f4d0101010000000300000000000000000008000000000000000200000000000000612e62e6'),
  ('k = 65',          '424c4f4d0101010041000300000000000000000008000000000000000200000000000000612e62e6'),
  ('m = 0',           '424c4f4d0101010003000300000000000000000000000000000000000200000000000000612e62e6'),
  ('m = 16',          '424c4f4d0101010003000300000000000000000010000000000000000200000000000000612e62e6'),
  ('m = 2^63',        '424c4f4d0101010003000300000000000000000000000000000000800200000000000000612e62e6'),
  ('trailing byte',   '424c4f4d0101010003000300000000000000000008000000000000000200000000000000612e62e600'),
  ('missing bits',    '424c4f4d0101010003000300000000000000000008000000000000000200000000000000612e62'),
  ('key length 200',  '424c4f4d010101000300c800000000000000000008000000000000000200000000000000612e62e6'),
  ('control in key',  '424c4f4d0101010003000300000000000000000008000000000000000200000000000000610a62e6'),
  ('key not text',    '424c4f4d0101010003000300000000000000000008000000000000000200000000000000ff2e62e6'),
  ('bit beyond m',    '424c4f4d0101010003000300000000000000000007000000000000000200000000000000612e62e6'),
  ('too many bits',   '424c4f4d0101010003000300000000000000000008000000000000000100000000000000612e62e6'),
  ('n = -1',          '424c4f4d010101000300030000000000000000000800000000000000ffffffffffffffff612e62e6')
) v(label, hex);
SELECT label, try_binary(decode(hex, 'hex')) AS result FROM binary_cases;

-- The same bytes cast from bytea (1.11: a parameter sent as bytea, any
-- driver): the same SQLSTATE and message as the binary input, every case.
CREATE FUNCTION try_bytea(b bytea) RETURNS text LANGUAGE sql
    AS $$ SELECT bloom_try(format('SELECT %L::bytea::bloom', b)) $$;
SELECT label, try_bytea(decode(hex, 'hex')) AS result FROM binary_cases
WHERE try_bytea(decode(hex, 'hex')) IS DISTINCT FROM try_binary(decode(hex, 'hex'));
SELECT count(*) AS cases, count(*) FILTER (WHERE try_bytea(decode(hex, 'hex')) LIKE '22P03: %') AS refused
FROM binary_cases;

-- (Parameters of functions out of range: see bloom_calc.)

-- Mismatched filters cannot be combined (inside the aggregate machinery).
CREATE TABLE parts (f bloom);
INSERT INTO parts VALUES (bloom_add(bloom_empty(100), 1)), (bloom_add(bloom_empty(1000), 2));
CREATE AGGREGATE union_test(bloom) (SFUNC = bloom_agg_combine, STYPE = bloom);
SELECT union_test(f) FROM parts;
DELETE FROM parts;
INSERT INTO parts VALUES (bloom_add(bloom_empty(100), 1)), (bloom_add(bloom_empty(100), 'one'));
SELECT union_test(f) FROM parts;
DELETE FROM parts;
INSERT INTO parts VALUES (bloom_add(bloom_empty(100), 1)), (bloom_empty(100)), (bloom_add(bloom_empty(100), 2));
SELECT (bloom_info(union_test(f))).values_added,
       union_test(f) @> 1 AND union_test(f) @> 2 AS both_found FROM parts;
