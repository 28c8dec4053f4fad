--
-- Plans that skip (issue 41): the join search prices what a hash join's
-- keys will let a partitioned outer side skip (src/runtime/paths/), so
-- that PostgreSQL picks the join orders that skip.  A star query joining a
-- fact to a date dimension filtered to a month and to an item dimension
-- filtered to a manager is planned item-first by PostgreSQL (every
-- partition read); with bloomfilter.runtime_filter_skip_costing on, the
-- date goes first and the fact's scans of other months are skipped.
--
-- plan_order(q) gives the plan's tables in the order its joins read them
-- (outer before inner) and the build's "Planned Skip"; same(q) compares
-- the rows with filters off, and says how many partition scans read.
--
LOAD 'bloomfilter';
CREATE SCHEMA runtime_skip_plans;
SET search_path = runtime_skip_plans, public;
SET max_parallel_workers_per_gather = 0;
SET jit = off;

-- the plan's relations, outer side first, and any Planned Skip
CREATE FUNCTION order_of(plan jsonb) RETURNS text LANGUAGE sql AS $$
    SELECT concat_ws(' ',
                     CASE WHEN plan ? 'Relation Name' AND plan->>'Node Type' <> 'Custom Scan'
                          THEN plan->>'Relation Name' END,
                     CASE WHEN plan->>'Custom Plan Provider' = 'BloomFilterScan'
                          THEN plan->>'Relation Name' END,
                     CASE WHEN plan ? 'Planned Skip' THEN '[' || (plan->>'Planned Skip') || ']' END,
                     (SELECT string_agg(order_of(c), ' ' ORDER BY i)
                        FROM jsonb_array_elements(plan->'Plans') WITH ORDINALITY AS x(c, i)))
$$;
CREATE FUNCTION order_of_query(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
    rels text[];
    out text := '';
    word text;
    seen text[] := '{}';
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO plan;
    -- each table once, in the order first met; partitions named by their table
    FOREACH word IN ARRAY regexp_split_to_array(order_of(plan->0->'Plan'), ' (?![^\[]*\])') LOOP
        word := regexp_replace(word, '_(\d+|default)$', '');
        IF word <> '' AND NOT word = ANY (seen) THEN
            seen := seen || word;
            out := out || CASE WHEN out = '' THEN '' ELSE ' ' END || word;
        END IF;
    END LOOP;
    RETURN out;
END $$;
CREATE FUNCTION plan_order(q text) RETURNS TABLE (costing text, tables text) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('bloomfilter.runtime_filter_skip_costing', 'off', true);
    costing := 'off'; tables := order_of_query(q); RETURN NEXT;
    PERFORM set_config('bloomfilter.runtime_filter_skip_costing', 'on', true);
    costing := 'on'; tables := order_of_query(q); RETURN NEXT;
END $$;
-- EXPLAIN's lines, without ANALYZE
CREATE FUNCTION explain_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        RETURN NEXT line;
    END LOOP;
END $$;
-- rows with the costing on against filters off; partition scans that read
CREATE FUNCTION same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    with_costing text[];
    without text[];
    plan jsonb;
    scans bigint;
BEGIN
    EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
       INTO with_costing;
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
    SELECT count(*) INTO scans FROM jsonb_path_query(plan, 'strict $.**') AS s(m)
     WHERE jsonb_typeof(m) = 'object' AND m->>'Relation Name' ~ '^[rhtmb]?sales'
       AND (m->>'Actual Loops')::bigint > 0
       AND coalesce(m->>'Partition Scans Skipped' !~ '^(\d+) of \1$', true);
    PERFORM set_config('bloomfilter.runtime_filter', 'off', true);
    EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
       INTO without;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', true);
    RETURN format('%s rows, %s; %s scans of sales read', cardinality(with_costing),
                  CASE WHEN with_costing = without THEN 'same' ELSE 'DIFFERENT' END, scans);
END $$;

-- A date dimension of 200 years in date order: its key and its year follow
-- the table's order (correlation 1), its month and weekday do not.
CREATE TABLE dates AS
  SELECT g AS dk, date '1900-01-01' + g AS d, extract(year FROM date '1900-01-01' + g)::int AS y,
         extract(month FROM date '1900-01-01' + g)::int AS m,
         extract(dow FROM date '1900-01-01' + g)::int AS dow
    FROM generate_series(0, 73048) g;
ALTER TABLE dates ADD PRIMARY KEY (dk);
CREATE TABLE items AS SELECT g AS ik, (g * 7919) % 50 AS manager FROM generate_series(1, 2000) g;
ALTER TABLE items ADD PRIMARY KEY (ik);
-- a fact of 3 years (2010 to 2012) in 36 monthly partitions and a default
CREATE TABLE sales (dk int, ik int, amount int) PARTITION BY RANGE (dk);
DO $$ BEGIN FOR m IN 0..35 LOOP
  EXECUTE format('CREATE TABLE sales_%s PARTITION OF sales FOR VALUES FROM (%s) TO (%s)', m,
                 (date '2010-01-01' + make_interval(months => m))::date - date '1900-01-01',
                 (date '2010-01-01' + make_interval(months => m + 1))::date - date '1900-01-01');
END LOOP; END $$;
CREATE TABLE sales_default PARTITION OF sales DEFAULT;
INSERT INTO sales
  SELECT (date '2010-01-01' - date '1900-01-01') + g % 1096, 1 + (g * 7907) % 2000, g % 100
    FROM generate_series(0, 199999) g;
CREATE INDEX ON sales (ik);
-- ANALYZE reads every row of a table no larger than 300 times the largest
-- statistics target of its columns: the statistics, and the estimates the
-- expected output shows, are the same at every run
ALTER TABLE dates ALTER dk SET STATISTICS 250, ALTER y SET STATISTICS 250;
VACUUM ANALYZE dates, items, sales;

-- a month and a manager: item-first without the costing, date-first with it
-- (the statistics bound the keys by the year's, widened; the dimension's
-- rows within the fact's bounds, read at plan time through its primary key,
-- say 2 of 37 partitions: March 2011's and the default)
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7');
SELECT same('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7') AS month_manager;
-- EXPLAIN shows why the plan changed, without ANALYZE: the build's Planned Skip
SELECT line FROM explain_lines('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7') AS line
 WHERE line ~ 'Planned Skip|Build Keys|Hash Cond';

-- The keys read at plan time also give the date join's rows (1.12):
-- PostgreSQL divides by the 73,049 dates whatever quals they have (85 rows
-- for the month's join), the 31 keys among the fact's 1,096 dates say
-- 5,657 (it has 5,673); the item's join above it then hashes rather than
-- probing the item's index once a row (Hash Cond above).  The join's
-- estimated rows with the costing off and on, and its rows:
CREATE FUNCTION join_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
    RETURN (SELECT (n->>'Plan Rows')::float8 FROM jsonb_path_query(plan, 'strict $.**') n
             WHERE jsonb_typeof(n) = 'object' AND n->>'Node Type' IN ('Hash Join', 'Nested Loop', 'Merge Join')
             LIMIT 1);
END $$;
SET bloomfilter.runtime_filter_skip_costing = off;
SELECT join_rows('SELECT count(*) FROM sales, dates WHERE sales.dk = dates.dk AND y = 2011 AND m = 3') AS postgres_estimate;
RESET bloomfilter.runtime_filter_skip_costing;
SELECT join_rows('SELECT count(*) FROM sales, dates WHERE sales.dk = dates.dk AND y = 2011 AND m = 3') AS from_the_keys;
SELECT count(*) AS actual FROM sales, dates WHERE sales.dk = dates.dk AND y = 2011 AND m = 3;
-- the same from the other side of the FROM list (PostgreSQL's paths made
-- before the hook take the rows too)
SELECT join_rows('SELECT count(*) FROM dates, sales WHERE sales.dk = dates.dk AND y = 2011 AND m = 3') AS from_the_keys_reversed;
-- a fact of one day a week (157 distinct days): the 31 keys among the
-- dimension's 1,096 days within its bounds, not among its own 157
CREATE TABLE wsales (dk int, amount int) PARTITION BY RANGE (dk);
CREATE TABLE wsales_2010 PARTITION OF wsales FOR VALUES FROM (40177) TO (40542);
CREATE TABLE wsales_2011 PARTITION OF wsales FOR VALUES FROM (40542) TO (40907);
CREATE TABLE wsales_2012 PARTITION OF wsales FOR VALUES FROM (40907) TO (41273);
INSERT INTO wsales SELECT dk, amount FROM sales, generate_series(1, 4) WHERE dk % 7 = 0;
ALTER TABLE wsales ALTER dk SET STATISTICS 1000;
VACUUM ANALYZE wsales;
SELECT join_rows('SELECT count(*) FROM wsales, dates WHERE wsales.dk = dates.dk AND y = 2011 AND m = 3') AS weekly_from_the_keys;
SELECT count(*) AS weekly_actual FROM wsales, dates WHERE wsales.dk = dates.dk AND y = 2011 AND m = 3;
-- a dimension whose key is not unique: PostgreSQL's estimate
CREATE TABLE twodates AS SELECT * FROM dates;
CREATE INDEX ON twodates (dk);
ALTER TABLE twodates ALTER dk SET STATISTICS 250, ALTER y SET STATISTICS 250;
VACUUM ANALYZE twodates;
SELECT join_rows('SELECT count(*) FROM sales, twodates WHERE sales.dk = twodates.dk AND y = 2011 AND m = 3') AS not_unique;
-- as a semi join; and not where the join has another qual (which would
-- leave fewer rows)
SELECT join_rows('SELECT count(*) FROM sales WHERE dk IN (SELECT dk FROM twodates WHERE y = 2011 AND m = 3)') AS semi_from_the_keys;
SELECT join_rows('SELECT count(*) FROM sales, dates WHERE sales.dk = dates.dk AND sales.amount < dates.dk AND y = 2011 AND m = 3') AS another_qual;

-- the same where the dimension's keys cannot be read at plan time (no
-- index on its key): the statistics' bounds, trusted half, still pay for
-- the date first here
CREATE TABLE ndates AS SELECT * FROM dates;
ALTER TABLE ndates ALTER dk SET STATISTICS 250, ALTER y SET STATISTICS 250;
VACUUM ANALYZE ndates;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, ndates, items
  WHERE sales.dk = ndates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7');
SELECT same('SELECT count(*), sum(amount) FROM sales, ndates, items
  WHERE sales.dk = ndates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7') AS month_manager_statistics;
-- (and its join's rows are PostgreSQL's)
SELECT join_rows('SELECT count(*) FROM sales, ndates WHERE sales.dk = ndates.dk AND y = 2011 AND m = 3') AS keys_not_read;

-- the same written as semi joins
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales
  WHERE dk IN (SELECT dk FROM dates WHERE y = 2011 AND m = 3)
    AND ik IN (SELECT ik FROM items WHERE manager = 7)');
SELECT same('SELECT count(*), sum(amount) FROM sales
  WHERE dk IN (SELECT dk FROM dates WHERE y = 2011 AND m = 3)
    AND ik IN (SELECT ik FROM items WHERE manager = 7)') AS semi_joins;
-- bounds from a qual on the key itself
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND dates.dk BETWEEN 40000 AND 40030 AND manager = 7');
SELECT same('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND dates.dk BETWEEN 40000 AND 40030 AND manager = 7') AS key_bounds;
-- GEQO takes the same paths
SET geqo_threshold = 2;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7');
RESET geqo_threshold;
-- a generic plan: no Const, no bounds: the 31 keys expected may be in 31
-- of the 37 partitions, which does not pay for the date first
PREPARE month_manager(int, int, int) AS SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = $1 AND m = $2 AND manager = $3;
SET plan_cache_mode = force_generic_plan;
SELECT order_of_query('EXECUTE month_manager(2011, 3, 7)') AS generic;
EXECUTE month_manager(2011, 3, 7);
SET bloomfilter.runtime_filter = off;
EXECUTE month_manager(2011, 3, 7);
RESET bloomfilter.runtime_filter;
RESET plan_cache_mode;
DEALLOCATE month_manager;

-- with parallel workers: each process hashes the dates (no Parallel Hash,
-- whose processes would hold a share of the keys each) and skips the
-- partitions it would scan (bounds on the key itself: an estimate from the
-- statistics is trusted half, which does not pay for the date first here)
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 10;
SET parallel_tuple_cost = 0.001;
SET min_parallel_table_scan_size = 0;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND dates.dk BETWEEN 40000 AND 40030 AND manager = 7');
SELECT same('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND dates.dk BETWEEN 40000 AND 40030 AND manager = 7') AS parallel;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- Where nothing is to be skipped, or the skip cannot be counted on, the
-- plans are PostgreSQL's:
-- a weekday of every week (no bounds: more keys than partitions)
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND dow = 1 AND manager = 7');
-- the date dimension unfiltered
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND manager = 7');
-- a left join keeps every fact row
SELECT * FROM plan_order('SELECT count(d.m), sum(amount) FROM sales JOIN items USING (ik)
  LEFT JOIN (SELECT * FROM dates WHERE y = 2011 AND m = 3) d USING (dk) WHERE manager = 7');
-- a volatile qual on the fact: its scans are never skipped
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7
    AND amount < 100 + random()');
-- a sampled fact (its scans are never skipped)
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales TABLESAMPLE SYSTEM (50) REPEATABLE (7),
  dates, items WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7');
-- keys out of order within a stretch the statistics cannot see: 2010 to
-- 2012's keys permuted among themselves (the correlation stays 1): March 2011
-- maps to one partition while its keys lie in most; an estimate from the
-- statistics is trusted half, and the plan stays PostgreSQL's
CREATE TABLE pdates AS
  SELECT CASE WHEN g BETWEEN 40177 AND 41272 THEN 40177 + ((g - 40177) * 331) % 1096 ELSE g END AS dk,
         date '1900-01-01' + g AS d, extract(year FROM date '1900-01-01' + g)::int AS y,
         extract(month FROM date '1900-01-01' + g)::int AS m
    FROM generate_series(0, 73048) g ORDER BY g;
ALTER TABLE pdates ADD PRIMARY KEY (dk);
ALTER TABLE pdates ALTER dk SET STATISTICS 250, ALTER y SET STATISTICS 250;
VACUUM ANALYZE pdates;
SELECT attname, round(correlation::numeric, 3) AS correlation FROM pg_stats
 WHERE schemaname = 'runtime_skip_plans' AND tablename = 'pdates' AND attname IN ('dk', 'y') ORDER BY 1;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, pdates, items
  WHERE sales.dk = pdates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7');
SELECT same('SELECT count(*), sum(amount) FROM sales, pdates, items
  WHERE sales.dk = pdates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7') AS keys_out_of_order;
-- hash joins not allowed
SET enable_hashjoin = off;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7');
RESET enable_hashjoin;
-- an order the query fixes (join_collapse_limit = 1, item first)
SET join_collapse_limit = 1;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales JOIN items USING (ik)
  JOIN dates USING (dk) WHERE y = 2011 AND m = 3 AND manager = 7');
RESET join_collapse_limit;
-- runtime filters off: no costing either
SET bloomfilter.runtime_filter = off;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND y = 2011 AND m = 3 AND manager = 7');
RESET bloomfilter.runtime_filter;

-- The keys read at plan time (keyprobe.c): a month of every year spreads
-- the keys over 200 years, which the statistics bound by the first March
-- and the last.  The dimension's rows within the fact's bounds (3 years,
-- read through its primary key) say the keys meet 3 of 36 partitions
-- (msales: the fact without a default partition; with one, sales, the
-- default counts as read, 4 of 37: the keys beyond the others' bounds are
-- not read).
CREATE TABLE msales (dk int, ik int, amount int) PARTITION BY RANGE (dk);
DO $$ BEGIN FOR m IN 0..35 LOOP
  EXECUTE format('CREATE TABLE msales_%s PARTITION OF msales FOR VALUES FROM (%s) TO (%s)', m,
                 (date '2010-01-01' + make_interval(months => m))::date - date '1900-01-01',
                 (date '2010-01-01' + make_interval(months => m + 1))::date - date '1900-01-01');
END LOOP; END $$;
INSERT INTO msales SELECT * FROM sales;
CREATE INDEX ON msales (ik);
VACUUM ANALYZE msales;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND m = 3 AND manager = 7');
SELECT same('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND m = 3 AND manager = 7') AS month_of_every_year;
SELECT line FROM explain_lines('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND m = 3 AND manager = 7') AS line
 WHERE line ~ 'Planned Skip';
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND m = 3 AND manager = 7');
SELECT same('SELECT count(*), sum(amount) FROM sales, dates, items
  WHERE sales.dk = dates.dk AND sales.ik = items.ik AND m = 3 AND manager = 7') AS with_default;
-- two months of every year, as IN
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND m IN (3, 9) AND manager = 7');
-- keys in every partition (a weekday of every week): PostgreSQL's plan
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND dow = 1 AND manager = 7');
-- quals not run at plan time: a function that is not leakproof (it may
-- fail on rows the query never reads), a generic plan's parameter, a
-- SERIALIZABLE transaction (reading would take predicate locks), a
-- row-level security policy: PostgreSQL's plans
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND to_char(d, ''MM'') = ''03'' AND manager = 7');
-- (nor a call that is not leakproof where no column is read: in a branch
-- the executor never reaches here, it would fail)
SET runtime_skip_plans.zero = '0';
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND m = 3 AND manager = 7
    AND (dates.dk >= 0 OR 1 / current_setting(''runtime_skip_plans.zero'')::int > 0)');
SELECT same('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND m = 3 AND manager = 7
    AND (dates.dk >= 0 OR 1 / current_setting(''runtime_skip_plans.zero'')::int > 0)') AS unreached_branch;
-- (1.12) a qual that fails on rows the executor never brings to it: the read
-- runs the quals in the executor's order (cheapest first, ties as written),
-- and an error inside it means "not read", never a failed query.  texteq is
-- leakproof, yet raises when no collation can be determined (t1 <> t2: "C"
-- against "POSIX"); the executor reaches it only on rows with moy = 3 and
-- x2 <> 3, of which there are none.  60 partitions of 100 keys.
CREATE TABLE f (k int, v int) PARTITION BY RANGE (k);
DO $$ BEGIN FOR i IN 0..59 LOOP
  EXECUTE format('CREATE TABLE f_%s PARTITION OF f FOR VALUES FROM (%s) TO (%s)', i, i * 100, i * 100 + 100);
END LOOP; END $$;
INSERT INTO f SELECT g % 6000, g FROM generate_series(1, 130000) g;
CREATE TABLE dc (k int, moy int, x2 int, t1 text COLLATE "C", t2 text COLLATE "POSIX")
  WITH (autovacuum_enabled = off);
INSERT INTO dc SELECT g, g % 12 + 1, CASE WHEN g % 12 + 1 = 3 THEN 3 ELSE g % 7 END, 'a', 'b'
  FROM generate_series(0, 5999) g;
CREATE INDEX ON dc (k);
VACUUM ANALYZE f, dc;
SELECT same('SELECT count(*) FROM f JOIN dc d ON f.k = d.k
  WHERE (d.t1 <> d.t2 OR d.x2 > -1) AND d.moy = 3 AND d.x2 <> 3') AS fails_unreached_written_first;
SELECT * FROM plan_order('SELECT count(*) FROM f JOIN dc d ON f.k = d.k
  WHERE (d.t1 <> d.t2 OR d.x2 > -1) AND d.moy = 3 AND d.x2 <> 3');
-- the same where the executor reads dc through an index on moy, whose 500
-- rows of March the statistics still count but which no row matches now,
-- and the failing qual costs what moy = 3 costs and is written first: the
-- read runs it first on the rows within the fact's bounds, fails, and
-- reads nothing; PostgreSQL's plan, the same rows
CREATE INDEX ON dc (moy);
UPDATE dc SET moy = 4 WHERE moy = 3;
SELECT same('SELECT count(*) FROM f JOIN dc d ON f.k = d.k
  WHERE d.t1 <> d.t2 AND d.moy = 3') AS fails_in_the_read;
SELECT * FROM plan_order('SELECT count(*) FROM f JOIN dc d ON f.k = d.k
  WHERE d.t1 <> d.t2 AND d.moy = 3');
-- a descending B-tree gives the keys in the other order: not read through
CREATE TABLE ddates AS SELECT dk, m, dow FROM dates;
CREATE INDEX ON ddates (dk DESC);
ANALYZE ddates;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, ddates, items
  WHERE msales.dk = ddates.dk AND msales.ik = items.ik AND dow = 1 AND manager = 7');
PREPARE moy(int) AS SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND m = $1 AND manager = 7;
SET plan_cache_mode = force_generic_plan;
SELECT order_of_query('EXECUTE moy(3)') AS generic;
SET plan_cache_mode = force_custom_plan;
SELECT order_of_query('EXECUTE moy(3)') AS custom;
RESET plan_cache_mode;
DEALLOCATE moy;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT order_of_query('SELECT count(*), sum(amount) FROM msales, dates, items
  WHERE msales.dk = dates.dk AND msales.ik = items.ik AND m = 3 AND manager = 7') AS serializable;
COMMIT;
CREATE TABLE sdates AS SELECT * FROM dates;
ALTER TABLE sdates ADD PRIMARY KEY (dk);
VACUUM ANALYZE sdates;
ALTER TABLE sdates ENABLE ROW LEVEL SECURITY;
CREATE POLICY sdates_all ON sdates USING (y > 1950);
CREATE ROLE regress_skip_plans_reader;
GRANT USAGE ON SCHEMA runtime_skip_plans TO regress_skip_plans_reader;
GRANT SELECT ON msales, sdates, items TO regress_skip_plans_reader;
CREATE TABLE mdates AS SELECT * FROM dates;
ALTER TABLE mdates ADD PRIMARY KEY (dk);
VACUUM ANALYZE mdates;
ALTER TABLE mdates ENABLE ROW LEVEL SECURITY;
CREATE POLICY mdates_march ON mdates USING (m = 3);
GRANT SELECT ON mdates TO regress_skip_plans_reader;
SET ROLE regress_skip_plans_reader;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, sdates, items
  WHERE msales.dk = sdates.dk AND msales.ik = items.ik AND m = 3 AND manager = 7');
-- a policy alone (mdates: March), with no qual of the query's own on the table
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, mdates, items
  WHERE msales.dk = mdates.dk AND msales.ik = items.ik AND manager = 7');
RESET ROLE;
-- (its owner is not subject to the policy: the keys are read)
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM msales, sdates, items
  WHERE msales.dk = sdates.dk AND msales.ik = items.ik AND m = 3 AND manager = 7');

-- A plain table (1.11): the fact in date order, with a BRIN index on its
-- date key (4 blocks to a range) and a B-tree on its item key.  The join
-- search prices its Seq Scan read by BRIN ranges (the keys' stretches'
-- share of its rows, and a range a stretch) or through the B-tree (the
-- run time's own model, the keys counted by the statistics: trusted half).
CREATE TABLE bsales AS SELECT * FROM sales ORDER BY dk, ik;
CREATE INDEX bsales_dk ON bsales USING brin (dk) WITH (pages_per_range = 4);
CREATE INDEX bsales_ik ON bsales (ik);
-- (every row in the statistics' sample: the same estimates at every run)
ALTER TABLE bsales ALTER dk SET STATISTICS 700, ALTER ik SET STATISTICS 700;
VACUUM ANALYZE bsales;
-- a month of every year: the keys read at plan time (the fact's histogram
-- bounds them), 3 stretches; date first, through the block ranges (the
-- table's size, in blocks, differs between versions: not shown)
SELECT costing, regexp_replace(tables, ' of \d+ blocks', ' of the table''s blocks') AS tables
  FROM plan_order('SELECT count(*), sum(amount) FROM bsales, dates, items
  WHERE bsales.dk = dates.dk AND bsales.ik = items.ik AND m = 3 AND manager = 7');
SELECT regexp_replace(line, ' of \d+ blocks', ' of the table''s blocks') AS line
  FROM explain_lines('SELECT count(*), sum(amount) FROM bsales, dates, items
  WHERE bsales.dk = dates.dk AND bsales.ik = items.ik AND m = 3 AND manager = 7') AS line
 WHERE line ~ 'Planned Skip';
SELECT same('SELECT count(*), sum(amount) FROM bsales, dates, items
  WHERE bsales.dk = dates.dk AND bsales.ik = items.ik AND m = 3 AND manager = 7') AS brin_month_of_every_year;
-- keys everywhere (a weekday): no date first; the manager's items are
-- joined first, as PostgreSQL does, priced by their rows through the B-tree
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM bsales, dates, items
  WHERE bsales.dk = dates.dk AND bsales.ik = items.ik AND dow = 1 AND manager = 7');
SELECT same('SELECT count(*), sum(amount) FROM bsales, dates, items
  WHERE bsales.dk = dates.dk AND bsales.ik = items.ik AND dow = 1 AND manager = 7') AS btree_keys;
-- a BRIN index on a column out of the table's order: PostgreSQL's plan
CREATE TABLE rbsales AS SELECT * FROM bsales ORDER BY (ik * 7919 + dk) % 10007;
CREATE INDEX ON rbsales USING brin (dk) WITH (pages_per_range = 4);
ALTER TABLE rbsales ALTER dk SET STATISTICS 700;
VACUUM ANALYZE rbsales;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM rbsales, dates, items
  WHERE rbsales.dk = dates.dk AND rbsales.ik = items.ik AND m = 3 AND manager = 7');

-- List partitions: regions listed two to a partition, a dimension bounded on its key
CREATE TABLE regions AS SELECT g AS rk, 'r' || g AS name FROM generate_series(0, 39) g;
CREATE TABLE rsales (rk int, ik int, amount int) PARTITION BY LIST (rk);
DO $$ BEGIN FOR r IN 0..19 LOOP
  EXECUTE format('CREATE TABLE rsales_%s PARTITION OF rsales FOR VALUES IN (%s, %s)', r, 2 * r, 2 * r + 1);
END LOOP; END $$;
INSERT INTO rsales SELECT g % 40, 1 + (g * 7907) % 2000, g % 100 FROM generate_series(0, 199999) g;
CREATE INDEX ON rsales (ik);
VACUUM ANALYZE regions, rsales;
SELECT * FROM plan_order('SELECT count(*), sum(amount) FROM rsales, regions, items
  WHERE rsales.rk = regions.rk AND rsales.ik = items.ik AND regions.rk BETWEEN 6 AND 7 AND manager = 7');
SELECT regexp_replace(same('SELECT count(*), sum(amount) FROM rsales, regions, items
  WHERE rsales.rk = regions.rk AND rsales.ik = items.ik AND regions.rk BETWEEN 6 AND 7 AND manager = 7'),
  'scans of sales', 'scans of rsales') AS list_partitions;

-- Text keys, and ranges from MINVALUE and to MAXVALUE (bounds that hold no
-- value): bounds on the key below and above every partition
CREATE TABLE tsales (k text COLLATE "C", amount int) PARTITION BY RANGE (k);
CREATE TABLE tsales_lo PARTITION OF tsales FOR VALUES FROM (MINVALUE) TO ('d');
CREATE TABLE tsales_mid PARTITION OF tsales FOR VALUES FROM ('d') TO ('m');
CREATE TABLE tsales_mid2 PARTITION OF tsales FOR VALUES FROM ('m') TO ('t');
CREATE TABLE tsales_hi PARTITION OF tsales FOR VALUES FROM ('t') TO (MAXVALUE);
INSERT INTO tsales SELECT chr(97 + g % 26) || g, g % 100 FROM generate_series(1, 100000) g;
CREATE TABLE tkeys (k text COLLATE "C" PRIMARY KEY, x int);
INSERT INTO tkeys SELECT chr(97 + g % 26) || g, g % 100 FROM generate_series(1, 5000) g;
ANALYZE tsales, tkeys;
SELECT regexp_replace(same('SELECT count(*), sum(amount) FROM tsales s JOIN tkeys t USING (k)
  WHERE t.k >= ''p'' AND t.x = 3'), 'scans of sales', 'scans of tsales') AS text_from;
SELECT regexp_replace(same('SELECT count(*), sum(amount) FROM tsales s JOIN tkeys t USING (k)
  WHERE t.k <= ''e'' AND t.x = 3'), 'scans of sales', 'scans of tsales') AS text_to;
SELECT line FROM explain_lines('SELECT count(*), sum(amount) FROM tsales s JOIN tkeys t USING (k)
  WHERE t.k >= ''p'' AND t.x = 3') AS line WHERE line ~ 'Planned Skip';

-- Hash partitions: 3 keys hash to at most 3 of 16 partitions
CREATE TABLE hsales (ik int, amount int) PARTITION BY HASH (ik);
DO $$ BEGIN FOR r IN 0..15 LOOP
  EXECUTE format('CREATE TABLE hsales_%s PARTITION OF hsales FOR VALUES WITH (MODULUS 16, REMAINDER %s)', r, r);
END LOOP; END $$;
INSERT INTO hsales SELECT 1 + (g * 7907) % 2000, g % 100 FROM generate_series(0, 199999) g;
VACUUM ANALYZE hsales;
SELECT line FROM explain_lines('SELECT count(*), sum(amount) FROM hsales, items
  WHERE hsales.ik = items.ik AND items.ik BETWEEN 10 AND 12') AS line
 WHERE line ~ 'Planned Skip|Hash Join';
SELECT regexp_replace(same('SELECT count(*), sum(amount) FROM hsales, items
  WHERE hsales.ik = items.ik AND items.ik BETWEEN 10 AND 12'),
  'scans of sales', 'scans of hsales') AS hash_partitions;

RESET ALL;
DROP SCHEMA runtime_skip_plans CASCADE;
DROP ROLE regress_skip_plans_reader;
