--
-- No false negatives over 100k values of several types, and a measured
-- false-positive rate within 15 % of the target.
--
SET extra_float_digits = 0;

-- int8: 100k keys in, the same 100k found; 1M other keys give the rate.
CREATE TABLE f_int AS SELECT bloom_agg(g::int8, 100000, 0.01) AS f FROM generate_series(1, 100000) g;
SELECT count(*) FILTER (WHERE NOT f @> g::int8) AS false_negatives
  FROM f_int, generate_series(1, 100000) g;
SELECT round(avg((f @> g::int8)::int), 4) AS fp_rate,
       avg((f @> g::int8)::int) BETWEEN 0.0085 AND 0.0115 AS within_15pct_of_1pct
  FROM f_int, generate_series(100001, 1100000) g;
-- int4 keys probe the int8 filter too
SELECT count(*) FILTER (WHERE NOT f @> g::int4) AS false_negatives_int4
  FROM f_int, generate_series(1, 100000) g;

-- text with non-ASCII characters (Japanese, Chinese, Russian, accents)
CREATE TABLE words AS
  SELECT g, 'ブルーム-布隆-Блум-' || g || '-é' AS w FROM generate_series(1, 200000) g;
CREATE TABLE f_text AS SELECT bloom_agg(w, 100000, 0.01) AS f FROM words WHERE g <= 100000;
SELECT count(*) FILTER (WHERE NOT f @> w) AS false_negatives FROM f_text, words WHERE g <= 100000;
SELECT avg((f @> w)::int) BETWEEN 0.0085 AND 0.0115 AS within_15pct_of_1pct
  FROM f_text, words WHERE g > 100000;
-- an unaccented spelling is another string: not found
SELECT f @> 'ブルーム-布隆-Блум-1-é' AS same, f @> 'ブルーム-布隆-Блум-1-e' AS unaccented FROM f_text;

-- uuid at 0.1 %
CREATE TABLE f_uuid AS SELECT bloom_agg(md5(g::text)::uuid, 100000, 0.001) AS f
  FROM generate_series(1, 100000) g;
SELECT count(*) FILTER (WHERE NOT f @> md5(g::text)::uuid) AS false_negatives
  FROM f_uuid, generate_series(1, 100000) g;
SELECT avg((f @> md5(g::text)::uuid)::int) BETWEEN 0.00085 AND 0.00115 AS within_15pct_of_0_1pct
  FROM f_uuid, generate_series(100001, 1100000) g;

-- numeric, where 1.0 = 1.00: built from scale 2, probed at scale 5 and as int
CREATE TABLE f_num AS SELECT bloom_agg(g / 100.0, 100000, 0.01) AS f
  FROM generate_series(1, 100000) g;
SELECT count(*) FILTER (WHERE NOT f @> round(g / 100.0, 5)) AS false_negatives_scale5,
       count(*) FILTER (WHERE g % 100 = 0 AND NOT f @> (g / 100)::numeric) AS false_negatives_int
  FROM f_num, generate_series(1, 100000) g;

-- A real word list (wamerican-huge): even lines in, odd lines probe.
CREATE TABLE dict (n serial, word text);
\copy dict (word) FROM '/usr/share/dict/american-english-huge'
SELECT count(*) > 300000 AS big_list, count(*) FILTER (WHERE word ~ '[^\x01-\x7f]') > 100 AS has_non_ascii FROM dict;
CREATE TABLE f_dict AS SELECT bloom_agg(word, (SELECT count(*) / 2 FROM dict), 0.01) AS f
  FROM dict WHERE n % 2 = 0;
SELECT count(*) FILTER (WHERE n % 2 = 0 AND NOT f @> word) AS false_negatives,
       avg((f @> word)::int) FILTER (WHERE n % 2 = 1
            AND word NOT IN (SELECT word FROM dict WHERE n % 2 = 0))
         BETWEEN 0.0085 AND 0.0115 AS within_15pct_of_1pct
  FROM f_dict, dict;
