--
-- Planner support (1.2): with a constant filter the row estimate of a probe
-- comes from the filter, the column's statistics and the false-positive
-- rate; with a filter known only at run time it is the default 1/3.
--
-- The plans below are about these estimates: runtime join filters
-- (runtime_filter.sql) would add nodes to them.
SET bloomfilter.runtime_filter = off;
CREATE TABLE est AS SELECT g AS k, g % 100 AS small_k FROM generate_series(1, 100000) g;
ANALYZE est;

-- estimated and actual rows of the scan of est in a query
CREATE FUNCTION rows_of(query text, OUT estimated bigint, OUT actual bigint) LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) ' || query LOOP
        IF line ~ 'Seq Scan on est' THEN
            estimated := substring(line FROM 'rows=(\d+) width')::bigint;
            actual := substring(line FROM 'actual rows=(\d+)')::bigint;
            RETURN;
        END IF;
    END LOOP;
END $$;

-- A filter of 1,000 of the 100,000 keys at 1 %: about 1,000 + 1 % of 99,000 rows.
SELECT bloom_agg(k, 1000, 0.01)::text AS f1000 FROM generate_series(1, 1000) k \gset
SELECT form, r.estimated, r.actual, r.estimated BETWEEN 0.8 * r.actual AND 1.25 * r.actual AS close
  FROM (VALUES
    ('function',   format('SELECT * FROM est WHERE bloom_contains(%L::bloom, k)', :'f1000')),
    ('@>',         format('SELECT * FROM est WHERE %L::bloom @> k', :'f1000')),
    ('<@',         format('SELECT * FROM est WHERE k <@ %L::bloom', :'f1000')),
    ('contained',  format('SELECT * FROM est WHERE bloom_contained(k, %L::bloom)', :'f1000')),
    ('int8 probe', format('SELECT * FROM est WHERE %L::bloom @> k::int8', :'f1000'))
  ) q(form, query), rows_of(query) r;

-- A column with few values: its most common values are probed in the filter.
SELECT bloom_agg(v, 10, 0.01)::text AS f10 FROM generate_series(1, 10) v \gset
-- (ANALYZE samples rows at random: only the closeness is stable)
SELECT r.actual, r.estimated BETWEEN 0.8 * r.actual AND 1.25 * r.actual AS close
  FROM rows_of(format('SELECT * FROM est WHERE %L::bloom @> small_k', :'f10')) r;

-- A counting filter, and an empty one.
SELECT r.estimated, r.actual, r.estimated BETWEEN 0.8 * r.actual AND 1.25 * r.actual AS close
  FROM rows_of(format('SELECT * FROM est WHERE %L::counting_bloom @> k',
                      (SELECT counting_bloom_agg(k, 1000, 0.01)::text FROM generate_series(1, 1000) k))) r;
SELECT r.estimated AS empty_filter_estimate, r.actual
  FROM rows_of('SELECT * FROM est WHERE bloom_empty(100) @> k') r;

-- A filter known only at run time (an InitPlan): the default, 1/3 of the rows.
CREATE TABLE plan_filters AS SELECT :'f1000'::bloom AS f;
SELECT r.estimated AS runtime_filter_estimate, r.actual
  FROM rows_of('SELECT * FROM est WHERE (SELECT f FROM plan_filters) @> k') r;

-- The estimate decides the plan: the hash table is built on the side the
-- planner believes smaller (est: 2,000 rows with the constant filter, 33,333
-- with the run-time one; dim: 10,000).
CREATE TABLE dim AS SELECT g AS k, 'name ' || g AS name FROM generate_series(1, 10000) g;
ANALYZE dim;
CREATE FUNCTION plan_of(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        RETURN NEXT left(line, 60);
    END LOOP;
END $$;
SELECT plan_of(format('SELECT * FROM est JOIN dim USING (k) WHERE %L::bloom @> est.k', :'f1000'));
SELECT plan_of('SELECT * FROM est JOIN dim USING (k) WHERE (SELECT f FROM plan_filters) @> est.k');
