--
-- bloom_agg(value) without sizing hints: while it runs the state is the
-- exact set of the values' hashes (an "explicit" bloom value); the final
-- function builds the smallest filter that meets 1 % for the distinct count
-- found.  See src/bloom_auto.c.
--
SET extra_float_digits = 0;

-- Sized as bloom_params() sizes for the distinct count (the optimum at 1 %),
-- whatever the number of rows: every value appears three times.
SELECT n, nbits, nbits = (bloom_params(n)).nbits AS optimal_m,
       nhashes = (bloom_params(n)).nhashes AS optimal_k, values_added
  FROM (VALUES (1), (10), (1000), (200000)) v(n),
       LATERAL bloom_info((SELECT bloom_agg(g % n) FROM generate_series(1, 3 * n) g))
 ORDER BY n;

-- Bit for bit the filter that hints of the right size build.
SELECT (SELECT bloom_agg(g) FROM generate_series(1, 1000) g)
     = (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 1000) g) AS same_as_hinted;

-- No false negatives; the rate on values outside is the target.
CREATE TABLE auto_f AS SELECT bloom_agg(g) AS f FROM generate_series(1, 200000) g;
SELECT count(*) FILTER (WHERE NOT f @> g) AS false_negatives
  FROM auto_f, generate_series(1, 200000) g;
SELECT avg((f @> g)::int) BETWEEN 0.009 AND 0.011 AS rate_near_1_percent
  FROM auto_f, generate_series(200001, 400000) g;

-- Text values.
SELECT nbits = (bloom_params(5000)).nbits AS optimal_m,
       f @> md5('17') AS found, f @> 'absent' AS absent
  FROM (SELECT bloom_agg(md5(g::text)) AS f FROM generate_series(1, 5000) g) a,
       LATERAL bloom_info(f);

-- No rows, only NULLs: NULL.  NULLs among values are skipped.
SELECT bloom_agg(g) IS NULL AS no_rows FROM generate_series(1, 10) g WHERE false;
SELECT bloom_agg(NULL::int) IS NULL AS only_nulls FROM generate_series(1, 10);
SELECT values_added, nbits = (bloom_params(5)).nbits AS sized_for_5
  FROM bloom_info((SELECT bloom_agg(CASE WHEN g % 2 = 0 THEN g END) FROM generate_series(1, 10) g));

-- Many small groups: each filter is sized for its own group, and the hash
-- aggregate holds small sets, not filters sized for a guess (2,000 filters
-- of 1,000,000 values would take 2.4 GB).
-- The first number the pattern captures in the query's EXPLAIN ANALYZE.
CREATE FUNCTION explain_number(query text, pattern text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
        IF line ~ pattern THEN
            RETURN substring(line FROM pattern)::int;
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
SET work_mem = '256MB';
SET enable_sort = off;
SELECT count(*) AS groups,
       count(*) FILTER (WHERE (bloom_info(f)).nbits = (bloom_params(100)).nbits) AS sized_for_100
  FROM (SELECT g % 2000 AS grp, bloom_agg(g) AS f FROM generate_series(1, 200000) g GROUP BY 1) s;
SELECT explain_number('SELECT g % 2000, bloom_agg(g) FROM generate_series(1, 200000) g GROUP BY 1',
                      'Batches: 1 +Memory Usage: (\d+)kB') < 20000 AS under_20_mb;
RESET work_mem;
RESET enable_sort;

-- A hash aggregate that spills to disk (many batches) builds the same
-- filters, with and without hints; so do grouping sets.
CREATE TABLE auto_spill AS SELECT g % 5000 AS grp, g AS v FROM generate_series(1, 300000) g;
ANALYZE auto_spill;
SET enable_sort = off;
CREATE TABLE auto_spill_ref AS
  SELECT grp, bloom_agg(v) AS a, bloom_agg(v, 100, 0.01) AS h FROM auto_spill GROUP BY grp;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT explain_number('SELECT grp, bloom_agg(v), bloom_agg(v, 100, 0.01) FROM auto_spill GROUP BY grp',
                      'Batches: (\d+)') > 1 AS spilled;
SELECT count(*) AS groups_equal
  FROM (SELECT grp, bloom_agg(v) AS a, bloom_agg(v, 100, 0.01) AS h FROM auto_spill GROUP BY grp) s
  JOIN auto_spill_ref r USING (grp)
 WHERE s.a = r.a AND s.h = r.h;
RESET work_mem;
RESET hash_mem_multiplier;
RESET enable_sort;
SELECT count(*) AS rows, count(*) FILTER (WHERE grp IS NULL) AS total_rows,
       bool_and((bloom_info(a)).nbits = (bloom_params(CASE WHEN grp IS NULL THEN 300000 ELSE 60 END)).nbits)
       AS all_optimal
  FROM (SELECT grp, bloom_agg(v) AS a FROM auto_spill GROUP BY ROLLUP (grp)) s;
DROP TABLE auto_spill, auto_spill_ref;

-- As a running window aggregate, each row's filter is sized for the rows so far.
SELECT g, (bloom_info(bloom_agg(g) OVER (ORDER BY g))).nbits = (bloom_params(g)).nbits AS sized
  FROM generate_series(1, 4) g;

-- Parallel: workers ship their sets as bloom values, the leader merges them;
-- the result equals the serial build bit for bit, grouped or not.
CREATE TABLE auto_big AS SELECT g % 150000 AS k, g % 3 AS grp FROM generate_series(1, 300000) g;
ANALYZE auto_big;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE auto_serial AS SELECT bloom_agg(k) AS f FROM auto_big;
CREATE TABLE auto_serial_groups AS SELECT grp, bloom_agg(k) AS f FROM auto_big GROUP BY grp;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT workers_launched('SELECT bloom_agg(k) FROM auto_big') > 0 AS parallel_workers_ran;
SELECT p.f = s.f AS same_as_serial, (bloom_info(p.f)).nbits = (bloom_params(150000)).nbits AS optimal
  FROM (SELECT bloom_agg(k) AS f FROM auto_big) p, auto_serial s;
SET enable_sort = off;
SELECT count(*) AS groups_equal_to_serial
  FROM (SELECT grp, bloom_agg(k) AS f FROM auto_big GROUP BY grp) p
  JOIN auto_serial_groups s USING (grp)
 WHERE p.f = s.f;
RESET ALL;

-- bloom_agg(value, fpp): the same for another rate; bit for bit the hinted
-- filter of the right size.
SELECT n, nbits = (bloom_params(n, 0.001)).nbits AS optimal_m, nhashes,
       f = (SELECT bloom_agg(g, n, 0.001) FROM generate_series(1, n) g) AS same_as_hinted
  FROM (VALUES (1), (1000), (100000)) v(n),
       LATERAL (SELECT bloom_agg(g, 0.001) AS f FROM generate_series(1, n) g) a,
       LATERAL bloom_info(f)
 ORDER BY n;
SELECT avg((f @> g)::int) BETWEEN 0.0007 AND 0.0013 AS rate_near_0_1_percent
  FROM (SELECT bloom_agg(g, 0.001) AS f FROM generate_series(1, 100000) g) a,
       generate_series(100001, 300000) g;
SELECT bloom_try('SELECT bloom_agg(g, 0) FROM generate_series(1, 3) g') AS zero,
       bloom_try('SELECT bloom_agg(g, 1000) FROM generate_series(1, 3) g') AS a_count,
       bloom_try('SELECT bloom_agg(g, NULL::float8) FROM generate_series(1, 3) g') AS null_rate;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE auto_serial_fpp AS SELECT bloom_agg(k, 0.0001) AS f FROM auto_big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT workers_launched('SELECT bloom_agg(k, 0.0001) FROM auto_big') > 0 AS parallel_workers_ran;
SELECT p.f = s.f AS same_as_serial,
       (bloom_info(p.f)).nbits = (bloom_params(150000, 0.0001)).nbits AS optimal
  FROM (SELECT bloom_agg(k, 0.0001) AS f FROM auto_big) p, auto_serial_fpp s;
RESET ALL;

-- Past bloomfilter.agg_explicit_limit distinct values the state becomes a
-- 1 GB filter, folded at the end: within 1.2x of the optimum, the rate met,
-- and the same bits whether the switch happened in a serial scan or only
-- when the leader merged the workers' sets (each below the limit).
SET bloomfilter.agg_explicit_limit = 4000;
CREATE TABLE auto_wide AS SELECT g AS k FROM generate_series(1, 6000) g;
ANALYZE auto_wide;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE auto_wide_serial AS SELECT bloom_agg(k) AS f FROM auto_wide;
SELECT nbits::float8 / (bloom_params(6000)).nbits BETWEEN 1 AND 1.2 AS within_1_2x,
       estimated_fpp <= 0.01 AS rate_met, values_added
  FROM auto_wide_serial, LATERAL bloom_info(f);
SELECT count(*) FILTER (WHERE NOT f @> g) AS false_negatives
  FROM auto_wide_serial, generate_series(1, 6000) g;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT workers_launched('SELECT bloom_agg(k) FROM auto_wide') > 0 AS parallel_workers_ran;
SELECT p.f = s.f AS same_as_serial
  FROM (SELECT bloom_agg(k) AS f FROM auto_wide) p, auto_wide_serial s;
-- and with a rate: the 1 GB stage has k = 10 for 0.1 %
SET max_parallel_workers_per_gather = 0;
SELECT nbits::float8 / (bloom_params(6000, 0.001)).nbits BETWEEN 1 AND 1.2 AS within_1_2x,
       nhashes, estimated_fpp <= 0.001 AS rate_met
  FROM (SELECT bloom_agg(k, 0.001) AS f FROM auto_wide) a, LATERAL bloom_info(f);
RESET ALL;
SELECT bloom_try('SET bloomfilter.agg_explicit_limit = 0') AS limit_0;

-- The partial state is an ordinary bloom value (a sharded engine ships it
-- as one).  An aggregate without the final function shows it.
CREATE AGGREGATE partial_bloom(anyelement) (SFUNC = bloom_agg_auto_trans, STYPE = bloom);
CREATE TABLE auto_parts AS
  SELECT 1 AS id, partial_bloom(g) AS f FROM generate_series(1, 1000) g
  UNION ALL SELECT 2, partial_bloom(g) FROM generate_series(500, 1500) g
  UNION ALL SELECT 3, partial_bloom(g) FROM (VALUES (1), (2), (3), (3)) v(g);
SELECT left(f::text, 76) AS text_form FROM auto_parts WHERE id = 3;
SELECT id, f::text::bloom = f AS text_round_trip FROM auto_parts ORDER BY id;
SELECT layout, nbits, nhashes, values_added, bits_set, fill_ratio, estimated_distinct,
       estimated_fpp, element_family
  FROM auto_parts, LATERAL bloom_info(f) WHERE id = 3;
SELECT bloom_cardinality(f) FROM auto_parts WHERE id = 1;
-- membership is exact
SELECT count(*) FILTER (WHERE f @> g) AS members_found,
       count(*) FILTER (WHERE f @> (g + 1000)) AS outsiders_found
  FROM auto_parts, generate_series(1, 1000) g WHERE id = 1;
-- the final function makes the filter bloom_agg would have made
SELECT bloom_agg_finalize(f) = (SELECT bloom_agg(g) FROM generate_series(1, 1000) g) AS finalized
  FROM auto_parts WHERE id = 1;
SELECT bloom_agg_finalize(bloom_union_agg(f)) = (SELECT bloom_agg(g) FROM generate_series(1, 1500) g)
       AS union_of_parts
  FROM auto_parts WHERE id < 3;
-- a partial state of bloom_agg(value, fpp) carries its rate
CREATE AGGREGATE partial_bloom(anyelement, float8) (SFUNC = bloom_agg_auto_trans, STYPE = bloom);
SELECT partial_bloom(g, 0.0001)::text AS with_target FROM generate_series(1, 2) g;
SELECT bloom_agg_finalize(partial_bloom(g, 0.0001)) = bloom_agg(g, 2, 0.0001) AS finalized_at_rate,
       bloom_agg_finalize(partial_bloom(g, 0.0001) | partial_bloom(g + 1, 0.0001))
         = (SELECT bloom_agg(h, 3, 0.0001) FROM generate_series(1, 3) h) AS union_keeps_rate,
       (partial_bloom(g, 0.0001) & partial_bloom(g + 1, 0.0001))::text LIKE '% target=0.0001 %'
         AS intersection_keeps_rate,
       bloom_add(partial_bloom(g, 0.0001), 7)::text LIKE '% target=0.0001 %' AS add_keeps_rate
  FROM generate_series(1, 2) g;
SELECT bloom_try($$SELECT partial_bloom(g, 0.0001) | partial_bloom(g, 0.01) FROM generate_series(1, 2) g$$)
       AS different_rates;
SELECT bloom_add('v1 explicit m=0 k=0 scheme=1 seed=0 n=0 target=0.001 elem= hashes='::bloom, 1)::text
       LIKE 'v1 explicit m=1 k=0 scheme=1 seed=0 n=1 target=0.001 elem=pg_catalog.integer_ops %'
       AS empty_set_takes_a_value;
DROP AGGREGATE partial_bloom(anyelement, float8);
-- any other filter is returned unchanged
SELECT bloom_agg_finalize(f) = f AS classic_unchanged
  FROM (SELECT bloom_agg(g, 100, 0.01) AS f FROM generate_series(1, 10) g) c;
SELECT nbits = (bloom_params(1)).nbits AS empty_set_sized_for_1, values_added, element_family
  FROM bloom_info(bloom_agg_finalize('v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes='));
-- a set of another seed's hashes is not a partial state of bloom_agg: unchanged
SELECT bloom_agg_finalize(x)::text = x::text AS other_seed_unchanged
  FROM (VALUES ('v1 explicit m=1 k=0 scheme=1 seed=5 n=1 elem=a.b hashes=AQAAAAAAAAA='::bloom)) v(x);

-- A set combines with a bit filter: the union is the bit filter of both, the
-- intersection the set's values the filter may hold.
SELECT bloom_agg_finalize(a.f | b.f) = (SELECT bloom_agg(g) FROM generate_series(1, 1500) g)
       AS set_union_set,
       (a.f | c.f) = (SELECT bloom_agg(g, 1500, 0.01) FROM generate_series(1, 1500) g)
       AS set_union_filter,
       (c.f | a.f) = (SELECT bloom_agg(g, 1500, 0.01) FROM generate_series(1, 1500) g)
       AS filter_union_set,
       (a.f & b.f) = (SELECT partial_bloom(g) FROM generate_series(500, 1000) g) AS set_and_set
  FROM auto_parts a, auto_parts b,
       (SELECT bloom_agg(g, 1500, 0.01) AS f FROM generate_series(500, 1500) g) c
 WHERE a.id = 1 AND b.id = 2;
SELECT (bloom_info(x)).layout, bloom_cardinality(x) BETWEEN 501 AND 520 AS about_501,
       (SELECT count(*) FROM generate_series(500, 1000) g WHERE NOT x @> g) AS false_negatives
  FROM (SELECT a.f & c.f AS x
          FROM auto_parts a, (SELECT bloom_agg(g, 1500, 0.01) AS f FROM generate_series(500, 1500) g) c
         WHERE a.id = 1) i;
-- adding to a set
SELECT (bloom_info(bloom_add(f, 4))).nbits AS new_value, (bloom_info(bloom_add(f, 3))).nbits AS known,
       (bloom_info(bloom_add(f, 3))).values_added, bloom_add(f, 4) @> 4 AS found
  FROM auto_parts WHERE id = 3;
-- mismatches
SELECT bloom_try($$SELECT partial_bloom(g) | 'v1 explicit m=0 k=0 scheme=1 seed=1 n=0 elem= hashes='::bloom FROM generate_series(1, 3) g$$) AS other_seed;
SELECT bloom_try($$SELECT bloom_agg_finalize(partial_bloom(g) | (SELECT partial_bloom(t) FROM (VALUES ('a'::text)) v(t))) FROM generate_series(1, 3) g$$) AS other_family;
SELECT bloom_try($$SELECT f @> 'x'::text FROM auto_parts WHERE id = 3$$) AS probe_other_family;
SELECT bloom_try('SELECT bloom_agg_auto_trans(NULL::bloom, 1)') AS outside_aggregate;
SELECT bloom_try('SELECT bloom_agg_auto_combine(''v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes='', ''v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes='')') AS combine_outside;

-- Bad explicit values are rejected like any bad input.
SELECT v AS input, bloom_try(format('SELECT %L::bloom', v)) AS result FROM (VALUES
  ('v1 explicit m=2 k=0 scheme=1 seed=0 n=2 elem=a.b hashes=AgAAAAAAAAABAAAAAAAAAA=='),
  ('v1 explicit m=2 k=0 scheme=1 seed=0 n=2 elem=a.b hashes=AQAAAAAAAAABAAAAAAAAAA=='),
  ('v1 explicit m=2 k=0 scheme=1 seed=0 n=1 elem=a.b hashes=AQAAAAAAAAACAAAAAAAAAA=='),
  ('v1 explicit m=1 k=7 scheme=1 seed=0 n=1 elem=a.b hashes=AQAAAAAAAAA='),
  ('v1 explicit m=1 k=0 scheme=1 seed=0 n=1 bound=1 est=1 elem=a.b hashes=AQAAAAAAAAA='),
  ('v1 explicit m=1 k=0 scheme=1 seed=0 n=1 elem=a.b bits=AQAAAAAAAAA='),
  ('v1 explicit m=200000000 k=0 scheme=1 seed=0 n=1 elem=a.b hashes='),
  ('v1 explicit m=1 k=0 scheme=1 seed=0 n=1 target=0.010 elem=a.b hashes=AQAAAAAAAAA='),
  ('v1 explicit m=1 k=0 scheme=1 seed=0 n=1 target=1 elem=a.b hashes=AQAAAAAAAAA='),
  ('v1 classic m=8 k=1 scheme=1 seed=0 n=1 bound=1 est=1 target=0.5 elem=a.b bits=AQ==')
) t(v);
SELECT bloom_try($$SELECT 'v1 explicit m=1 k=0 scheme=1 seed=0 n=1 elem=a.b hashes=AQAAAAAAAAA='::counting_bloom$$)
       AS not_counting;

DROP AGGREGATE partial_bloom(anyelement);
DROP TABLE auto_f, auto_big, auto_serial, auto_serial_groups, auto_serial_fpp, auto_wide, auto_wide_serial, auto_parts;
DROP FUNCTION explain_number(text, text);
