--
-- The sizing calculator, against the formulas and worked examples of the
-- literature (References in ARCHITECTURE.md).
--
SET extra_float_digits = 0;

-- Guava's create(500, 0.03) ([Torao]): the classic optimum m = -n ln p /
-- (ln 2)^2 is 3649.2 bits and k = 5.  With k rounded to an integer, 3649 bits
-- would give 3.01 %; we round m up to the smallest size that meets 3 %.
SELECT round((-500 * ln(0.03) / ln(2)^2)::numeric, 1) AS m_real;
SELECT * FROM bloom_params(500, 0.03);
SELECT bloom_fpp(500, 3649, 5) > 0.03 AS m3649_misses_target;

-- 1 % costs 9.59 bits per value, 0.1 % 14.4 (k = 7 and 10).
SELECT expected_n, p.* , round(p.nbits::numeric / expected_n, 2) AS bits_per_value
  FROM (VALUES (1000), (1000000)) v(expected_n), bloom_params(expected_n) p;
SELECT nbits, nhashes, round(nbits / 1000000.0, 2) AS bits_per_value
  FROM bloom_params(1000000, 0.001);
-- the default rate is 1 %
SELECT bloom_params(1000) = bloom_params(1000, 0.01) AS default_one_percent;

-- [BF-ja]: m = 30000, n = 7000 -> k_opt = (m/n) ln 2 ~ 2.97, so k = 3.
SELECT * FROM bloom_optimal(7000, 30000);
SELECT k, round(bloom_fpp(7000, 30000, k)::numeric, 4) AS fpp
  FROM generate_series(1, 6) k;

-- [BF-zh]: with m = 10n, 4 hashes give about 1.2 %, 5 hashes about 0.9 %.
SELECT round(bloom_fpp(1000, 10000, 4)::numeric, 4) AS k4,
       round(bloom_fpp(1000, 10000, 5)::numeric, 4) AS k5;

-- [Torao]: at the optimal k the rate is ~0.6185^(m/n); m/n = -2.08 ln P,
-- i.e. 1.44n bits for P = 0.5 ([Torao] rounds to 1.5n) and 6.2n for 0.05.
SELECT round(fpp::numeric, 4) AS fpp_at_m_10n, round(0.6185 ^ 10, 4) AS approx
  FROM bloom_optimal(1000, 10000);
SELECT round(nbits / 1000.0, 1) AS bits_per_value_50pct FROM bloom_params(1000, 0.5);
SELECT round(nbits / 1000.0, 1) AS bits_per_value_5pct FROM bloom_params(1000, 0.05);

-- [neo-nanikaka]: k ~= 0.7 m/n.
SELECT nhashes FROM bloom_optimal(100, 1000);

-- Exact form vs the e^(-kn/m) approximation: equal for large m, apart for tiny m.
SELECT round(bloom_fpp(1000, 100000, 7)::numeric, 8) = round(((1 - exp(-7 * 1000 / 100000.0)) ^ 7)::numeric, 8) AS large_m_agrees,
       round(bloom_fpp(2, 8, 3)::numeric, 4) AS exact_m8, round(((1 - exp(-6 / 8.0)) ^ 3)::numeric, 4) AS approx_m8;
SELECT bloom_fpp(0, 100, 3) AS no_values, bloom_fpp(100, 1, 1) AS one_bit;

-- bloom_empty uses exactly what bloom_params computes.
SELECT (bloom_info(bloom_empty(12345, 0.002))).nbits = (bloom_params(12345, 0.002)).nbits AS same_m,
       (bloom_info(bloom_empty(12345, 0.002))).nhashes = (bloom_params(12345, 0.002)).nhashes AS same_k;

-- Out of range: 22023, with what is allowed; too large: 54000.
SELECT statement, bloom_try(statement) AS result FROM (VALUES
  ('SELECT bloom_params(0, 0.01)'),
  ('SELECT bloom_params(-5, 0.01)'),
  ('SELECT bloom_params(100, 0)'),
  ('SELECT bloom_params(100, 1)'),
  ('SELECT bloom_params(100, ''NaN'')'),
  ('SELECT bloom_params(100, ''-Infinity'')'),
  ('SELECT bloom_empty(100, 1.5)'),
  ('SELECT bloom_empty(0)'),
  ('SELECT bloom_empty_mk(0, 3)'),
  ('SELECT bloom_empty_mk(-8, 3)'),
  ('SELECT bloom_empty_mk(8, 0)'),
  ('SELECT bloom_empty_mk(8, 65)'),
  ('SELECT bloom_optimal(0, 100)'),
  ('SELECT bloom_optimal(10, 0)'),
  ('SELECT bloom_fpp(-1, 100, 3)'),
  ('SELECT bloom_fpp(10, 0, 3)'),
  ('SELECT bloom_fpp(10, 100, 0)'),
  ('SELECT bloom_params(10000000000, 1e-10)'),
  ('SELECT bloom_empty(100000000000, 0.000001)'),
  ('SELECT bloom_empty_mk(9000000000, 3)')
) v(statement);
-- the largest filter that fits is accepted by the calculator
SELECT nbits <= 8589932200 AS fits FROM bloom_params(895000000, 0.01);
