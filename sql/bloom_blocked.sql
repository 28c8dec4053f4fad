--
-- The cache-blocked layout (1.2): all k bits of a value in one 512-bit block.
--
SET extra_float_digits = 0;

-- Sized by its own formula: a few more bits per value than classic at the
-- same rate, a multiple of 512 bits.
SELECT layout, p.nbits, p.nhashes, round(p.nbits / 1e6, 2) AS bits_per_value, p.fpp <= 0.01 AS meets
  FROM (VALUES ('classic'), ('blocked')) v(layout), bloom_params(1000000, 0.01, layout) p;
SELECT layout, p.nbits, p.nhashes, round(p.nbits / 1e6, 2) AS bits_per_value
  FROM (VALUES ('classic'), ('blocked')) v(layout), bloom_params(1000000, 0.001, layout) p;
SELECT bloom_params(1000, 0.01, 'classic') = bloom_params(1000, 0.01) AS classic_is_default;
-- the classic sizing would miss the target in blocks
SELECT round(bloom_fpp(1000000, 9593344, 7, 'blocked')::numeric, 5) AS blocked_at_classic_m,
       round(bloom_fpp(1000000, 9593344, 7, 'classic')::numeric, 5) AS classic_at_classic_m;
SELECT * FROM bloom_optimal(7000, 30208, 'blocked');

-- No false negatives over 100k values; the measured rate within 15 % of 1 %.
CREATE TABLE f_blocked AS SELECT bloom_agg(g::int8, 100000, 0.01, 'blocked') AS f FROM generate_series(1, 100000) g;
SELECT layout, nbits, nhashes, values_added FROM f_blocked, bloom_info(f);
SELECT count(*) FILTER (WHERE NOT f @> g::int8) AS false_negatives FROM f_blocked, generate_series(1, 100000) g;
WITH measured AS (
  SELECT avg((f @> g::int8)::int) AS rate FROM f_blocked, generate_series(100001, 1100000) g)
SELECT rate BETWEEN 0.0085 AND 0.0115 AS within_15pct_of_1pct,
       abs(rate - (bloom_info(f)).estimated_fpp) < 0.0015 AS info_agrees
  FROM measured, f_blocked;

-- Text and binary forms, bloom_empty and bloom_empty_mk, set algebra.
SELECT bloom_empty_mk(1024, 3, 0, 'blocked')::text LIKE 'v1 blocked512 m=1024 k=3 %' AS text_form,
       f::text::bloom::text = f::text AS round_trip
  FROM f_blocked;
SELECT nbits, nhashes, layout FROM bloom_info(bloom_empty(1000, 0.01, 'blocked'));
SELECT (SELECT bloom_union_agg(f) FROM (SELECT bloom_agg(g, 40000, 0.01, 'blocked') AS f
                                          FROM generate_series(1, 40000) g GROUP BY g % 4) parts)
     = (SELECT bloom_agg(g, 40000, 0.01, 'blocked') FROM generate_series(1, 40000) g) AS union_of_parts;
SELECT bloom_try($$SELECT bloom_agg(g, 1000, 0.01, 'blocked') | bloom_agg(g, 1000, 0.01) FROM generate_series(1, 10) g$$) AS mixed_layouts;
SELECT bloom_try($$SELECT bloom_empty_mk(1000, 3, 0, 'blocked')$$) AS not_multiple_of_512,
       bloom_try($$SELECT bloom_empty(10, 0.01, 'weird')$$) AS unknown_layout,
       bloom_try($$SELECT 'v1 blocked512 m=1000 k=3 scheme=1 seed=0 n=0 elem= bits='::bloom$$) AS bad_text;
SELECT bloom_try(format('SELECT %L::counting_bloom',
                        'v1 blocked512 m=512 k=3 scheme=1 seed=0 n=0 elem= bits=' || repeat('A', 86) || '==')) AS wrong_type;
