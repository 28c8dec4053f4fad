--
-- counting_bloom (1.1): 4-bit counters, so that values can be removed.
-- Background: [BF-zh] (4 bits suffice) and [Kukhtina], chapter 6.
--
SET extra_float_digits = 0;

-- Same sizing as bloom, a counter for every bit.
SELECT nbits, nhashes, layout, bytes FROM bloom_info(counting_bloom_empty(1000));
SELECT nbits, nhashes FROM bloom_info(bloom_empty(1000));

-- Add, probe, count, remove ([Kukhtina], chapter 6).
CREATE TABLE cf AS SELECT bloom_add(bloom_add(bloom_add(counting_bloom_empty(100), 'A'), 'B'), 'B') AS f;
SELECT f @> 'A' AS has_a, f @> 'B' AS has_b, f @> 'C' AS has_c,
       bloom_count(f, 'A') AS count_a, bloom_count(f, 'B') AS count_b, bloom_count(f, 'C') AS count_c,
       (bloom_info(f)).values_added
  FROM cf;
SELECT bloom_remove(f, 'A') @> 'A' AS a_after_remove, bloom_remove(f, 'A') @> 'B' AS b_after_remove,
       bloom_count(bloom_remove(f, 'B'), 'B') AS b_once_removed,
       (bloom_info(bloom_remove(f, 'A'))).values_added
  FROM cf;
-- removing what was added restores the filter exactly
SELECT bloom_remove(bloom_add(f, 'D'), 'D')::text = f::text AS restored FROM cf;
-- a value whose counters are zero was never added: an error
SELECT bloom_remove(f, 'C') FROM cf;
SELECT bloom_remove(bloom_remove(bloom_remove(f, 'B'), 'B'), 'B') FROM cf;
SELECT bloom_remove(counting_bloom_empty(10), 1);
-- NULLs: ignored when adding or removing, NULL when probing
SELECT bloom_remove(f, NULL::text)::text = f::text AS remove_null, bloom_count(f, NULL::text) IS NULL AS count_null,
       bloom_add(f, NULL::text)::text = f::text AS add_null FROM cf;
-- type families as for bloom
SELECT bloom_add(counting_bloom_empty(10), 1) @> 1::int8 AS int8_probe;
SELECT bloom_remove(bloom_add(counting_bloom_empty(10), 1), 'x');

-- No false negatives after deleting half of 200k values; the deleted values
-- are mostly gone.  bloom_subtract removes, in bulk, every value of another
-- counting filter.
CREATE TABLE c_all AS SELECT counting_bloom_agg(g, 200000, 0.01) AS f FROM generate_series(1, 200000) g;
CREATE TABLE c_even AS SELECT counting_bloom_agg(g, 200000, 0.01) AS f FROM generate_series(2, 200000, 2) g;
CREATE TABLE c_odd AS SELECT c_all.f - c_even.f AS f FROM c_all, c_even;
SELECT count(*) FILTER (WHERE NOT f @> g) AS false_negatives FROM c_odd, generate_series(1, 200000, 2) g;
SELECT round(avg((f @> g)::int), 4) AS deleted_still_present,
       avg((f @> g)::int) < 0.01 AS mostly_gone
  FROM c_odd, generate_series(2, 200000, 2) g;
SELECT (bloom_info(f)).values_added FROM c_odd;
-- the bulk form equals removing one by one (on a smaller filter)
CREATE FUNCTION remove_each(f counting_bloom, lo int, hi int) RETURNS counting_bloom
    LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN lo..hi LOOP
        f := bloom_remove(f, i);
    END LOOP;
    RETURN f;
END $$;
SELECT remove_each((SELECT counting_bloom_agg(g, 1000, 0.01) FROM generate_series(1, 1000) g), 1, 400)::text
     = ((SELECT counting_bloom_agg(g, 1000, 0.01) FROM generate_series(1, 1000) g)
        - (SELECT counting_bloom_agg(g, 1000, 0.01) FROM generate_series(1, 400) g))::text AS bulk_equals_each;
-- subtracting values that are not there is an error
SELECT (SELECT counting_bloom_agg(g, 1000, 0.01) FROM generate_series(1, 10) g)
     - (SELECT counting_bloom_agg(g, 1000, 0.01) FROM generate_series(5, 15) g);

-- Saturation ([BF-zh]: 4 bits, rare overflow): a value added 40 times
-- and removed 40 times leaves every other value present.
CREATE FUNCTION add_remove(f counting_bloom, v int, times int) RETURNS counting_bloom
    LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1..times LOOP
        f := bloom_add(f, v);
    END LOOP;
    FOR i IN 1..times LOOP
        f := bloom_remove(f, v);
    END LOOP;
    RETURN f;
END $$;
CREATE TABLE sat AS SELECT counting_bloom_agg(g, 200, 0.01) AS f FROM generate_series(1, 200) g;
SELECT bloom_count(add_remove(f, 1000, 40), 1000) AS count_after,
       (SELECT count(*) FROM generate_series(1, 200) g WHERE NOT add_remove(f, 1000, 40) @> g) AS others_missing
  FROM sat;
SELECT bloom_count(f, 1000) AS before FROM sat;

-- Union adds counters (saturating at 15).
SELECT bloom_count(f | f, 'B') AS b_doubled, bloom_count(bloom_union(f, f), 'A') AS a_doubled FROM cf;
SELECT bloom_count(bloom_union_agg(f), 'B') AS b_20_times_saturates
  FROM cf, generate_series(1, 10);
SELECT bloom_add(counting_bloom_empty(100), 1) | bloom_add(counting_bloom_empty(1000), 1);

-- counting_bloom::bloom answers every probe alike, and equals the bloom
-- filter of the same values.
CREATE TABLE c_1k AS SELECT counting_bloom_agg(g, 1000, 0.01) AS c, bloom_agg(g, 1000, 0.01) AS b
  FROM generate_series(1, 1000) g;
SELECT c::bloom = b AS cast_equals_bloom FROM c_1k;
SELECT count(*) FILTER (WHERE (c @> g) <> (c::bloom @> g)) AS disagreements
  FROM c_1k, generate_series(1, 20000) g;
SELECT (bloom_info(bloom(counting_bloom_empty(10)))).element_family IS NULL AS empty_cast;

-- Aggregates: parallel equals serial.
CREATE TABLE cbig AS SELECT g AS k FROM generate_series(1, 100000) g;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE c_serial AS SELECT counting_bloom_agg(k, 100000, 0.01) AS f FROM cbig;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT counting_bloom_agg(k, 100000, 0.01) FROM cbig;
SELECT counting_bloom_agg(k, 100000, 0.01)::text = (SELECT f::text FROM c_serial) AS parallel_equals_serial FROM cbig;
RESET ALL;
SET extra_float_digits = 0;
SELECT counting_bloom_agg(NULL::int) IS NULL AS only_nulls;
SELECT nbits FROM bloom_info((SELECT counting_bloom_agg(g) FROM generate_series(1, 10) g));

-- Text and binary forms round-trip; the text form names the layout.
SELECT left(f::text, 70) FROM cf;
SELECT f::text::counting_bloom::text = f::text AS text_round_trip FROM cf;
SELECT current_setting('data_directory') || '/bloom_counting.bin' AS binfile \gset
COPY c_1k (c) TO :'binfile' (FORMAT binary);
CREATE TABLE c_back (c counting_bloom);
COPY c_back FROM :'binfile' (FORMAT binary);
SELECT c_back.c::text = c_1k.c::text AS binary_round_trip FROM c_back, c_1k;
-- bad inputs
SELECT t AS input, bloom_try(format('SELECT %L::counting_bloom', t)) AS result FROM (VALUES
  ('v1 counting4 m=4 k=1 scheme=1 seed=0 n=1 elem=a.b counters=AQA='),
  ('v1 classic m=8 k=1 scheme=1 seed=0 n=1 elem=a.b bits=AQ=='),
  ('v1 counting4 m=3 k=1 scheme=1 seed=0 n=1 elem=a.b counters=AfA='),
  ('v1 counting4 m=4 k=1 scheme=1 seed=0 n=1 elem= counters=AQA='),
  ('v1 counting4 m=4 k=1 scheme=1 seed=0 n=1 elem=a.b counters=AQ=='),
  ('v1 counting4 m=4 k=1 scheme=1 seed=0 n=1 bound=1 est=1 elem=a.b counters=AQA='),
  ('v1 counting4 m=4294967296 k=1 scheme=1 seed=0 n=0 elem= counters=')
) v(t);

-- bloom_info and bloom_cardinality
SELECT layout, nbits, nhashes, values_added, bits_set, round(estimated_distinct) AS est_distinct,
       round(estimated_fpp::numeric, 4) AS est_fpp, element_family
  FROM c_1k, bloom_info(c);
SELECT bloom_cardinality(c) FROM c_1k;
