-- bench/fpr.sql: the false-positive rate measured against the formulas as k
-- and n vary.  [BF-ja]'s experiment: m = 30,000 bits, n = 7,000 values,
-- k = 1..10 (the best k is 3); the same for the blocked layout (m = 30,208,
-- 59 blocks); then n = 1,000..15,000 at m = 30,000, k = 3.  200,000 probes of
-- values never added, for each point.  Output: whitespace-separated columns
-- for gnuplot (bench/fpr.gp).
\set ON_ERROR_STOP on
\pset footer off
\pset tuples_only on
\pset format unaligned
\pset fieldsep ' '
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
-- a filter of exactly m bits and k hashes holding 1..n: the union of one-value filters
CREATE TEMP TABLE by_k AS
  SELECT l.layout, k, bloom_union_agg(bloom_add(bloom_empty_mk(l.m, k, 0, l.layout), v)) AS f
    FROM (VALUES ('classic', 30000), ('blocked', 30208)) l(layout, m),
         generate_series(1, 10) k, generate_series(1, 7000) v
   GROUP BY l.layout, k;
CREATE TEMP TABLE by_n AS
  SELECT n, bloom_union_agg(bloom_add(bloom_empty_mk(30000, 3), v)) AS f
    FROM generate_series(1000, 15000, 1000) n, generate_series(1, 15000) v
   WHERE v <= n
   GROUP BY n;
\echo '# k measured_classic formula_classic measured_blocked formula_blocked'
SELECT c.k, c.measured, bloom_fpp(7000, 30000, c.k), b.measured, bloom_fpp(7000, 30208, c.k, 'blocked')
  FROM (SELECT k, avg((f @> g)::int) AS measured FROM by_k, generate_series(100001, 300000) g
         WHERE layout = 'classic' GROUP BY k) c
  JOIN (SELECT k, avg((f @> g)::int) AS measured FROM by_k, generate_series(100001, 300000) g
         WHERE layout = 'blocked' GROUP BY k) b USING (k)
 ORDER BY c.k;
\echo
\echo
\echo '# n measured formula (m = 30000, k = 3)'
SELECT n, avg((f @> g)::int), bloom_fpp(n, 30000, 3)
  FROM by_n, generate_series(100001, 300000) g GROUP BY n ORDER BY n;
