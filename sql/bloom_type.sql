--
-- The bloom type: text form, binary form, round trips, storage.
--
CREATE EXTENSION bloomfilter;

-- Used by the later tests: run a statement, report "ok" or "SQLSTATE: message".
CREATE FUNCTION bloom_try(statement text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE statement;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- [Torao], example 1 (k = 3, m = 8): after adding x1 with bits {2,6,1} and
-- x2 with bits {2,5,7} the bits are z = (0,1,1,0,0,1,1,1): byte 0xE6, which
-- is "5g==" in base64.  The text form shows m, k and the layout readably.
SELECT 'v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='::bloom AS z2;
SELECT layout, nbits, nhashes, values_added, bits_set, fill_ratio,
       estimated_fpp = (5/8.0)^3 AS fpp_is_fill_cubed, element_family
  FROM bloom_info('v1 classic m=8 k=3 scheme=1 seed=0 n=2 elem=pg_catalog.integer_ops bits=5g=='::bloom);

-- Text round trip is exact, for empty, small and larger filters.
CREATE TABLE filters (id int PRIMARY KEY, f bloom);
INSERT INTO filters VALUES
  (1, bloom_empty_mk(8, 3)),
  (2, bloom_add(bloom_add(bloom_empty_mk(8, 3), 1), 2)),
  (3, (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 1000) g)),
  (4, (SELECT bloom_agg(md5(g::text), 100000, 0.001) FROM generate_series(1, 100000) g)),
  (5, bloom_add(bloom_empty_mk(77, 2, -1), 'x'::text)),
  (6, (SELECT bloom_agg(g::numeric / 7, 50, 0.2) FROM generate_series(1, 50) g));
SELECT id, f::text::bloom::text = f::text AS text_round_trip FROM filters ORDER BY id;
SELECT f FROM filters WHERE id IN (1, 2, 5) ORDER BY id;

-- The text form is compact: at most 1.45x the binary size.
SELECT id, pg_column_size(f) AS binary_bytes, octet_length(f::text) AS text_bytes,
       octet_length(f::text) <= 1.45 * (bloom_info(f)).bytes AS within_1_45
  FROM filters WHERE id IN (3, 4, 6) ORDER BY id;

-- Binary round trip through COPY BINARY (bloom_send / bloom_recv).
SELECT current_setting('data_directory') || '/bloom_type_filters.bin' AS binfile \gset
COPY filters TO :'binfile' (FORMAT binary);
CREATE TABLE filters_back (LIKE filters);
COPY filters_back FROM :'binfile' (FORMAT binary);
SELECT a.id, a.f::text = b.f::text AS binary_round_trip,
       bloom_send(a.f) = bloom_send(b.f) AS same_bytes
  FROM filters a JOIN filters_back b USING (id) ORDER BY id;

-- The binary form is the on-disk format: magic "BLOM", version 1, layout 1,
-- scheme 1, flags 0, k = 3 (LE), element key length 0, seed 0, m = 8 (LE),
-- 0 values, no key, one byte of bits.
SELECT encode(bloom_send(bloom_empty_mk(8, 3)), 'hex');

-- A stored filter large enough to be TOASTed reads back whole.
SELECT id, (bloom_info(f)).bytes > 2000 AS toasted_size, bloom_contains(f, md5('77'))
  FROM filters WHERE id = 4;

-- Seeds are unsigned 64-bit in the text form, bigint (two's complement) in SQL.
SELECT (bloom_info(f)).seed, f::text LIKE '%seed=18446744073709551615 %' AS text_unsigned
  FROM filters WHERE id = 5;
