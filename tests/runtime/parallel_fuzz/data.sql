-- tests/runtime/parallel_fuzz/data.sql: parallel_fuzz.sh's tables, and the
-- functions that run a query and say what it reached
-- (CREATE EXTENSION's advice on loading the library: not this test's)
SET client_min_messages = error;
CREATE EXTENSION bloomfilter;
SET client_min_messages = warning;

-- the date dimension: four years, and a NULL date
CREATE TABLE dates AS
  SELECT d::date AS d, extract(year FROM d)::int AS y, extract(month FROM d)::int AS m,
         extract(day FROM d)::int AS dom
    FROM generate_series(date '2019-01-01', date '2022-12-31', interval '1 day') d;
INSERT INTO dates VALUES (NULL, 2020, 1, 1);
-- the item dimension: items 1-2000 sold, 2001-2100 never; 40 groups; a NULL
-- item, and one whose bigint key is past any int
CREATE TABLE items AS SELECT g AS item, g::bigint AS item8, g % 40 AS grp FROM generate_series(1, 2100) g;
INSERT INTO items VALUES (NULL, NULL, 0), (NULL, 5000000000, 5);
-- the plain fact: 40 rows a day of 2020-2021 in date order, then 200 rows without a date
CREATE TABLE fact (d date, item int, v int, pad text) WITH (autovacuum_enabled = off);
INSERT INTO fact
  SELECT date '2020-01-01' + g / 40,
         CASE WHEN g % 97 = 0 THEN NULL ELSE 1 + (hashint4(g) & 2147483647) % 2000 END, g, repeat('p', 60)
    FROM generate_series(0, 731 * 40 - 1) g ORDER BY g;
INSERT INTO fact SELECT NULL, 1 + (hashint4(g) & 2147483647) % 2000, g, repeat('p', 60)
  FROM generate_series(100000, 100199) g;
CREATE INDEX fact_d ON fact USING brin (d) WITH (pages_per_range = 4);
CREATE INDEX fact_item ON fact (item);
-- the partitioned fact: 20 rows a day of 2020-2021 in no order; the default
-- partition holds NULL dates and 2019-12
CREATE TABLE pfact (d date, item int, v int, pad text) PARTITION BY RANGE (d);
DO $$ BEGIN FOR i IN 0..23 LOOP
  EXECUTE format('CREATE TABLE pfact_%s PARTITION OF pfact FOR VALUES FROM (%L) TO (%L)'
                 ' WITH (autovacuum_enabled = off)', i,
                 date '2020-01-01' + make_interval(months => i),
                 date '2020-01-01' + make_interval(months => i + 1));
END LOOP; END $$;
CREATE TABLE pfact_default PARTITION OF pfact DEFAULT WITH (autovacuum_enabled = off);
INSERT INTO pfact
  SELECT date '2020-01-01' + (hashint4(g + 7) & 2147483647) % 731,
         CASE WHEN g % 89 = 0 THEN NULL ELSE 1 + (hashint4(g + 3) & 2147483647) % 2000 END, g, repeat('p', 60)
    FROM generate_series(0, 731 * 20 - 1) g;
INSERT INTO pfact
  SELECT CASE WHEN g % 2 = 0 THEN NULL ELSE date '2019-12-01' + g % 31 END,
         1 + (hashint4(g) & 2147483647) % 2000, g, repeat('p', 60)
    FROM generate_series(100000, 100599) g;
CREATE INDEX pfact_item ON pfact (item);
-- a table of one row, read whole by every process; the leader (fuzz.leader)
-- is slow to read it: a function that says it is parallel safe, so that the
-- workers run it too (and are not slow)
CREATE TABLE one AS SELECT 1 AS a;
ALTER TABLE one SET (parallel_workers = 0);
CREATE FUNCTION leader_late(a int) RETURNS bool LANGUAGE plpgsql STABLE PARALLEL SAFE COST 1 AS $$
BEGIN
    IF pg_backend_pid()::text = current_setting('fuzz.leader', true) THEN
        PERFORM pg_sleep(0.02);
    END IF;
    RETURN true;
END $$;
-- a qual that makes a scan of the fact slow (so that the leader, late, still
-- finds block ranges or keys to claim)
CREATE FUNCTION outer_slow(v int) RETURNS bool LANGUAGE plpgsql STABLE PARALLEL SAFE COST 1 AS $$
BEGIN
    IF v % 400 = 0 THEN
        PERFORM pg_sleep(0.002);
    END IF;
    RETURN true;
END $$;
ANALYZE dates, items, fact, pfact, one;

-- what a query's rows are compared by: their count and the rows as text
-- (sorted), or the text's digest where it is long (the alias is no column's
-- name, or the column would be taken for the row)
CREATE FUNCTION digest(q text) RETURNS text LANGUAGE sql AS $$
    SELECT format('SELECT n || CASE WHEN length(t) <= 300 THEN %L || t ELSE %L || md5(t) END'
                  ' FROM (SELECT count(*) AS n,'
                  ' coalesce(string_agg(fuzz_r::text, %L ORDER BY fuzz_r::text), %L) AS t'
                  ' FROM (%s) fuzz_r) fuzz_d', ' rows: ', ' rows, digest ', ';', '', q)
$$;

-- one run's outcome: its rows' digest, or the error's SQLSTATE and message
CREATE FUNCTION outcome(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
BEGIN
    EXECUTE digest(q) INTO r;
    RETURN r;
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;

-- what a run (filters on) reached: EXPLAIN ANALYZE's Parallel BloomFilterScans
-- (of the query as outcome runs it)
CREATE FUNCTION reached(q text, OUT ranges bool, OUT btree bool, OUT workers bool, OUT rescanned bool,
                        OUT append_skip bool, OUT shared bool) LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    ranges := false; btree := false; workers := false; rescanned := false; append_skip := false;
    shared := false;
    BEGIN
        EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || digest(q)
           INTO plan;
    EXCEPTION WHEN OTHERS THEN
        RETURN;
    END;
    -- the Parallel BloomFilterScans that ran: by block ranges, by keys through a B-tree, by a worker too
    SELECT coalesce(bool_or(n ? 'Heap Blocks Read'), false),
           coalesce(bool_or(n ? 'Read Through B-tree'), false),
           coalesce(bool_or(jsonb_array_length(coalesce(n->'Runtime Filter Workers', '[]')) > 0), false)
      INTO ranges, btree, workers
      FROM jsonb_path_query(plan, 'strict $.**') AS x(n)
     WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'BloomFilterScan'
       AND (n->>'Parallel Aware')::bool AND (n->>'Actual Loops')::bigint > 0;
    -- a Gather run more than once over one
    rescanned := EXISTS (
        SELECT FROM jsonb_path_query(plan, 'strict $.**') AS g(n),
                    jsonb_path_query(g.n, 'strict $.**') AS s(m)
         WHERE jsonb_typeof(n) = 'object' AND n->>'Node Type' IN ('Gather', 'Gather Merge')
           AND (n->>'Actual Loops')::bigint > 1 AND jsonb_typeof(m) = 'object'
           AND m->>'Custom Plan Provider' = 'BloomFilterScan' AND (m->>'Parallel Aware')::bool
           AND (m->>'Actual Loops')::bigint > 0);
    -- partitions skipped under a Parallel Append
    append_skip := EXISTS (
        SELECT FROM jsonb_path_query(plan, 'strict $.**') AS a(n),
                    jsonb_path_query(a.n, 'strict $.**') AS s(m)
         WHERE jsonb_typeof(n) = 'object' AND n->>'Node Type' = 'Append' AND (n->>'Parallel Aware')::bool
           AND jsonb_typeof(m) = 'object' AND m->>'Partition Scans Skipped' ~ '^[1-9]');
    -- one that skipped by the filter a Parallel Hash Join's processes built together
    shared := EXISTS (
        SELECT FROM jsonb_path_query(plan, 'strict $.**') AS b(n),
                    jsonb_path_query(plan, 'strict $.**') AS s(m)
         WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'BloomFilterBuild'
           AND n ? 'Filter Shared' AND jsonb_typeof(m) = 'object'
           AND m->>'Custom Plan Provider' = 'BloomFilterScan' AND m->>'Runtime Filter' = n->>'Runtime Filter'
           AND (m->>'Parallel Aware')::bool
           AND (m ? 'Heap Blocks Read' OR m ? 'Read Through B-tree'
                OR m->>'Partition Scans Skipped' ~ '^[1-9]'));
END $$;

