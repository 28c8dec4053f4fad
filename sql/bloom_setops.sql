--
-- Set algebra on bloom filters (1.1): union, intersection, equality, and the
-- estimates that must stay honest through them.  Background: [Kukhtina],
-- chapter 5.
--
SET extra_float_digits = 0;

-- The union of per-part filters built with the same parameters equals, bit
-- for bit, the filter of the whole.
CREATE TABLE quarters AS
  SELECT g % 4 AS part, bloom_agg(g, 40000, 0.01) AS f FROM generate_series(1, 40000) g GROUP BY 1;
CREATE TABLE whole AS SELECT bloom_agg(g, 40000, 0.01) AS f FROM generate_series(1, 40000) g;
SELECT (SELECT bloom_union_agg(f) FROM quarters) = whole.f AS union_agg_equals_whole,
       (SELECT bloom_union_agg(f) FROM quarters)::text = whole.f::text AS identical_text
  FROM whole;
SELECT (a.f | b.f | c.f | d.f) = whole.f AS operator_equals_whole,
       bloom_union(bloom_union(a.f, b.f), bloom_union(c.f, d.f)) = whole.f AS function_equals_whole,
       (a.f | b.f) = (b.f | a.f) AS commutative,
       a.f | a.f = a.f AS idempotent,
       (a.f | b.f) <> whole.f AS part_differs
  FROM quarters a, quarters b, quarters c, quarters d, whole
 WHERE a.part = 0 AND b.part = 1 AND c.part = 2 AND d.part = 3;
-- an empty filter (no element family yet) is the identity
SELECT bloom_union(bloom_empty(100), bloom_add(bloom_empty(100), 7)) = bloom_add(bloom_empty(100), 7) AS empty_left,
       bloom_union(bloom_add(bloom_empty(100), 7), bloom_empty(100)) = bloom_add(bloom_empty(100), 7) AS empty_right,
       bloom_empty(100) = bloom_empty(100) AS empty_equal;
-- equality ignores how many duplicates went in
SELECT bloom_add(bloom_add(bloom_empty(100), 7), 7) = bloom_add(bloom_empty(100), 7) AS duplicates_equal,
       bloom_add(bloom_empty(100), 7) = bloom_add(bloom_empty(100), 8) AS different_values,
       bloom_empty(100) = bloom_empty(101) AS different_sizes;
-- union in parallel equals union in series
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE many_parts AS
  SELECT g % 500 AS part, bloom_agg(g, 50000, 0.01) AS f FROM generate_series(1, 50000) g GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT bloom_union_agg(f) FROM many_parts;
SELECT bloom_union_agg(f) = (SELECT bloom_agg(g, 50000, 0.01) FROM generate_series(1, 50000) g) AS parallel_union_equals_whole
  FROM many_parts;
RESET ALL;
SET extra_float_digits = 0;

-- Theorem 1: the union's false-positive rate is at least each operand's.
SELECT u.estimated_fpp >= a.estimated_fpp AND u.estimated_fpp >= b.estimated_fpp AS theorem_1
  FROM quarters pa, quarters pb, bloom_info(pa.f | pb.f) u, bloom_info(pa.f) a, bloom_info(pb.f) b
 WHERE pa.part = 0 AND pb.part = 1;

-- Theorem 2: BF(A) & BF(B) = BF(A n B) with probability
-- (1 - 1/m)^(k^2 |A - B| |B - A|).  400 trials of |A| = |B| = 10 with 5 in
-- common, each with other values; m = 959 and k = 7 from the sizing hints.
CREATE TABLE trials AS
  SELECT t,
         (SELECT bloom_agg(t * 100 + v, 100, 0.01) FROM generate_series(1, 10) v) AS a,
         (SELECT bloom_agg(t * 100 + v, 100, 0.01) FROM generate_series(6, 15) v) AS b,
         (SELECT bloom_agg(t * 100 + v, 100, 0.01) FROM generate_series(6, 10) v) AS a_and_b
    FROM generate_series(1, 400) t;
SELECT nbits, nhashes, round(((1 - 1.0 / nbits) ^ (nhashes ^ 2 * 5 * 5))::numeric, 3) AS theorem_2
  FROM bloom_info((SELECT a FROM trials WHERE t = 1));
SELECT round(avg(((a & b) = a_and_b)::int), 3) AS measured,
       abs(avg(((a & b) = a_and_b)::int) - (1 - 1.0 / 959) ^ (49 * 25)) < 0.07 AS within_3_sigma
  FROM trials;

-- Intersection: no false negatives for the common values; |A n B| estimated
-- from |A|, |B| and the bits of the union; the rate reported is the bound
-- that holds for values of one set but not the other.
-- A = 1..50000, B = 40001..90000: 10000 in common, each filter sized for
-- its 50000 values at 1 %.
CREATE TABLE ab AS
  SELECT (SELECT bloom_agg(g, 50000, 0.01) FROM generate_series(1, 50000) g) AS a,
         (SELECT bloom_agg(g, 50000, 0.01) FROM generate_series(40001, 90000) g) AS b;
CREATE TABLE a_and_b AS SELECT a & b AS i FROM ab;
SELECT count(*) FILTER (WHERE NOT i @> g) AS false_negatives FROM a_and_b, generate_series(40001, 50000) g;
SELECT bloom_cardinality(a & b) AS est_common, bloom_cardinality(a & b) BETWEEN 9000 AND 11000 AS within_10pct,
       bloom_cardinality(a | b) AS est_union, bloom_cardinality(a | b) BETWEEN 81000 AND 99000 AS union_within_10pct,
       (bloom_info(a & b)).values_added AS values_added
  FROM ab;
-- values of A - B pass the intersection at about fill(B)^k, far above fill(A & B)^k
CREATE TABLE ab_info AS SELECT info.* FROM a_and_b, bloom_info(i) info;
CREATE TABLE ab_rates AS
  SELECT avg((i @> g)::int) FILTER (WHERE g <= 40000) AS a_minus_b,
         avg((i @> g)::int) FILTER (WHERE g > 100000) AS outside
    FROM a_and_b, (SELECT generate_series(1, 40000) UNION ALL SELECT generate_series(100001, 300000)) s(g);
SELECT round(a_minus_b, 4) AS measured_rate_a_minus_b,
       round(estimated_fpp::numeric, 4) AS reported_bound,
       round(((bits_set::float8 / nbits) ^ nhashes)::numeric, 6) AS naive_fill_rate,
       a_minus_b <= 1.15 * estimated_fpp AS bound_holds,
       a_minus_b > 2 * (bits_set::float8 / nbits) ^ nhashes AS naive_would_mislead
  FROM ab_info, ab_rates;
-- values in neither set pass at most at the same bound
SELECT outside <= estimated_fpp AS bound_holds_outside FROM ab_info, ab_rates;
-- the intersection is marked in its text form, which round-trips
SELECT (a & b)::text LIKE '% bound=% est=% elem=%' AS marked,
       (a & b)::text::bloom::text = (a & b)::text AS round_trip
  FROM ab;
-- bloom_intersect_agg, and intersection with an empty filter
SELECT (SELECT bloom_intersect_agg(f) FROM (VALUES (a), (b)) v(f)) = (a & b) AS agg_equals_operator
  FROM ab;
SELECT bloom_cardinality(bloom_intersect(bloom_add(bloom_empty(100), 1), bloom_empty(100))) AS with_empty;

-- Mismatched parameters are an error that names the difference.
SELECT what, bloom_try(format('SELECT %s', expr)) AS result FROM (VALUES
  ('m',       'bloom_add(bloom_empty(100), 1) | bloom_add(bloom_empty(1000), 1)'),
  ('k',       'bloom_add(bloom_empty_mk(1000, 3), 1) | bloom_add(bloom_empty_mk(1000, 4), 1)'),
  ('seed',    'bloom_add(bloom_empty_mk(1000, 3, 1), 1) & bloom_add(bloom_empty_mk(1000, 3, 2), 1)'),
  ('family',  'bloom_add(bloom_empty(100), 1) | bloom_add(bloom_empty(100), ''1''::text)'),
  ('several', 'bloom_intersect(bloom_add(bloom_empty_mk(64, 2, 5), 1), bloom_add(bloom_empty_mk(128, 3), 1))')
) v(what, expr);
