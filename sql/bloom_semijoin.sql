--
-- The bloom join: build a filter on the small side, prefilter the large side.
-- A stored filter is TOASTed; reached through an InitPlan it is detoasted
-- once per query, and a call site that sees several stored filters never
-- answers from the wrong one.
--
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;

CREATE TABLE small AS SELECT g * 7 AS k FROM generate_series(1, 20000) g;
CREATE TABLE large AS SELECT g AS k, 'row ' || g AS payload FROM generate_series(1, 300000) g;
CREATE TABLE join_filters (name text PRIMARY KEY, f bloom);
INSERT INTO join_filters SELECT 'small', bloom_agg(k, 20000, 0.01) FROM small;

-- the filter lives out of line, in the TOAST table
SELECT pg_column_size(f) AS bytes,
       pg_relation_size((SELECT reltoastrelid FROM pg_class WHERE relname = 'join_filters')) > 0 AS toasted
  FROM join_filters;

-- The prefilter keeps every row the semi-join keeps, plus about 1 % of the others.
SELECT count(*) AS plain_semijoin FROM large WHERE k IN (SELECT k FROM small);
SELECT count(*) AS prefiltered_semijoin
  FROM large
 WHERE bloom_contains((SELECT f FROM join_filters WHERE name = 'small'), k)
   AND k IN (SELECT k FROM small);
SELECT count(*) AS passed_prefilter,
       round((count(*) - 20000) / (300000 - 20000.0), 4) AS false_positive_rate
  FROM large WHERE (SELECT f FROM join_filters WHERE name = 'small') @> k;
-- the plan: the filter is an InitPlan, probed per row of the large side
EXPLAIN (COSTS OFF)
SELECT count(*) FROM large WHERE (SELECT f FROM join_filters WHERE name = 'small') @> k;

-- Two stored filters probed alternately from one call site (a SubPlan runs
-- per probe row over both): each answer matches the one its own filter gives
-- when probed alone.
INSERT INTO join_filters
  SELECT 'even', bloom_agg(g, 20000, 0.01) FROM generate_series(2, 40000, 2) g;
INSERT INTO join_filters
  SELECT 'odd', bloom_agg(g, 20000, 0.01) FROM generate_series(1, 40000, 2) g;
CREATE TABLE probes AS SELECT g AS k FROM generate_series(1, 3000) g;
CREATE TABLE alone AS
  SELECT k, (SELECT f FROM join_filters WHERE name = 'even') @> k AS in_even,
            (SELECT f FROM join_filters WHERE name = 'odd') @> k AS in_odd
    FROM probes;
SELECT count(*) AS probes,
       count(*) FILTER (WHERE alternating = ARRAY[in_even, in_odd]) AS same_answer,
       count(*) FILTER (WHERE k % 2 = 0 AND in_even OR k % 2 = 1 AND in_odd) AS found_in_own
  FROM alone,
       LATERAL (SELECT array_agg(f @> alone.k ORDER BY name) AS alternating
                  FROM join_filters WHERE name IN ('even', 'odd')) a;
