--
-- bloom_agg: building filters from columns, serially, grouped and in parallel.
--
SET extra_float_digits = 0;

-- No rows, or only NULLs: NULL, like sum().  NULLs among values are skipped.
SELECT bloom_agg(g) IS NULL AS no_rows FROM generate_series(1, 10) g WHERE false;
SELECT bloom_agg(NULL::int) IS NULL AS only_nulls FROM generate_series(1, 10);
SELECT (bloom_info(bloom_agg(CASE WHEN g % 2 = 0 THEN g END, 100, 0.01))).values_added
  FROM generate_series(1, 10) g;

-- Without hints: sized for the distinct values found, at 1 % (see bloom_auto).
SELECT nbits, nhashes FROM bloom_info((SELECT bloom_agg(g) FROM generate_series(1, 10) g));
SELECT (bloom_params(10)).nbits AS optimal_nbits;

-- The aggregate builds exactly what bloom_empty + bloom_add build.
SELECT bloom_agg(g, 100, 0.01)::text
       = bloom_add(bloom_add(bloom_add(bloom_empty(100, 0.01), 1), 2), 3)::text AS same
  FROM generate_series(1, 3) g;

-- Order of rows does not matter.
SELECT (SELECT bloom_agg(g, 1000, 0.01 ORDER BY g) FROM generate_series(1, 1000) g)::text
     = (SELECT bloom_agg(g, 1000, 0.01 ORDER BY g DESC) FROM generate_series(1, 1000) g)::text
       AS order_independent;

-- One filter per group; every value is found in its group's filter.
CREATE TABLE grouped AS
  SELECT g % 10 AS grp, bloom_agg(g, 1000, 0.01) AS f
    FROM generate_series(1, 10000) g GROUP BY g % 10;
SELECT count(*) AS groups, sum((bloom_info(f)).values_added) AS values_added FROM grouped;
SELECT count(*) AS false_negatives
  FROM generate_series(1, 10000) g JOIN grouped ON grp = g % 10
 WHERE NOT f @> g;

-- As a window function: a running filter, and a moving frame (recomputed
-- per row); earlier rows keep their own results.
SELECT g, (bloom_info(bloom_agg(g, 100, 0.01) OVER (ORDER BY g))).values_added AS running,
       (bloom_info(bloom_agg(g, 100, 0.01) OVER (ORDER BY g ROWS 1 PRECEDING))).values_added AS moving,
       bloom_agg(g, 100, 0.01) OVER (ORDER BY g ROWS 1 PRECEDING) @> 1 AS has_1
  FROM generate_series(1, 4) g;

-- Text values, and a text filter probed with varchar.
SELECT bloom_agg(w, 10, 0.01) @> 'deux'::varchar AS found, bloom_agg(w, 10, 0.01) @> 'quatre' AS other
  FROM (VALUES ('un'), ('deux'), ('trois')) v(w);

-- Hints must be valid and not NULL.
SELECT bloom_agg(g, 0, 0.01) FROM generate_series(1, 3) g;
SELECT bloom_agg(g, 10, 2.0) FROM generate_series(1, 3) g;
SELECT bloom_agg(g, NULL, 0.01) FROM generate_series(1, 3) g;
-- the transition and combine functions only run inside an aggregate
SELECT bloom_agg_trans(NULL::bloom, 1);
SELECT bloom_agg_combine(bloom_empty(10), bloom_empty(10));

-- Parallel build: the plan has a Partial Aggregate, workers run it, and the
-- result equals the serial build bit for bit.
CREATE TABLE big AS SELECT g AS k, md5(g::text) AS s, g % 4 AS grp FROM generate_series(1, 200000) g;
ANALYZE big;
CREATE FUNCTION workers_launched(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
        IF line ~ 'Workers Launched' THEN
            RETURN substring(line FROM 'Workers Launched: (\d+)')::int;
        END IF;
    END LOOP;
    RETURN 0;
END $$;

SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial AS
  SELECT bloom_agg(k, 200000, 0.01) AS fk, bloom_agg(s, 200000, 0.01) AS fs FROM big;
CREATE TABLE serial_groups AS
  SELECT grp, bloom_agg(k, 50000, 0.01) AS f FROM big GROUP BY grp;

SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
  SELECT bloom_agg(k, 200000, 0.01), bloom_agg(s, 200000, 0.01) FROM big;
SELECT workers_launched('SELECT bloom_agg(k, 200000, 0.01), bloom_agg(s, 200000, 0.01) FROM big') > 0
       AS parallel_workers_ran;
SELECT p.fk::text = serial.fk::text AS int_same, p.fs::text = serial.fs::text AS text_same,
       (bloom_info(p.fk)).values_added AS int_added
  FROM (SELECT bloom_agg(k, 200000, 0.01) AS fk, bloom_agg(s, 200000, 0.01) AS fs FROM big) p,
       serial;
-- grouped and parallel (partial hash aggregates, combined per group)
SET enable_sort = off;
EXPLAIN (COSTS OFF)
  SELECT grp, bloom_agg(k, 50000, 0.01) FROM big GROUP BY grp;
SELECT count(*) AS groups_equal_to_serial
  FROM (SELECT grp, bloom_agg(k, 50000, 0.01) AS f FROM big GROUP BY grp) p
  JOIN serial_groups s USING (grp)
 WHERE p.f::text = s.f::text;
RESET ALL;
