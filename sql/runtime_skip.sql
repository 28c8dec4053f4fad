--
-- Runtime filters that skip what they would throw away: a probe on the scan
-- of a partition never starts it when the partition's bounds can hold no
-- key of the join's build (src/runtime/skip/partitions.c); a Seq Scan of a
-- table with a BRIN index on the key reads only the block ranges that may
-- hold one (skip/brinranges.c); one with a B-tree led by the key reads only
-- the keys' rows through it, where that costs less (skip/btreekeys.c).
--
-- Every query runs with the setting on and off and the rows are compared;
-- rf_skip() also says, for each filter, how many partition scans it
-- skipped of those it was asked about, and how many scans of a relation
-- ran at all.  Filters are not forced: these tables are small, so probing
-- rows is not expected to pay, and the filters are placed to skip only
-- (their hash tables fit in the CPU cache).  Where the hash table is
-- expected to be larger, a scan that may skip also gets a probe above it,
-- for the rows it reads after all (the last cases).
--
LOAD 'bloomfilter';
CREATE SCHEMA runtime_skip;
SET search_path = runtime_skip, public;
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET jit = off;

-- Rows on and off, compared; each filter's "skipped N of M"; the scans that ran.
CREATE FUNCTION rf_skip(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    with_filters text[];
    without text[];
    plan jsonb;
    skipped text;
    ran bigint;
BEGIN
    PERFORM set_config('bloomfilter.runtime_filter', 'on', true);
    EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
       INTO with_filters;
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
    -- what each filter's builds skipped, and what each scan of block ranges read
    SELECT coalesce(string_agg(CASE WHEN n->>'Custom Plan Provider' = 'BloomFilterScan'
                      THEN format('filter %s read %s', n->>'Runtime Filter',
                                  coalesce(n->>'Heap Blocks Read' || ' blocks',
                                           (n->>'Read Through B-tree') || ' through the B-tree',
                                           'the whole table: ' || (n->>'Whole Table Read')))
                      ELSE format('filter %s skipped %s', n->>'Runtime Filter', n->>'Partition Scans Skipped') END,
                      ', ' ORDER BY ord) FILTER (WHERE n->>'Custom Plan Provider' = 'BloomFilterBuild' AND n ? 'Partition Scans Skipped'
                                                 OR n ? 'Heap Blocks Read' OR n ? 'Whole Table Read'
                                                 OR n ? 'Read Through B-tree'),
                    string_agg(format('filter %s skipped nothing', n->>'Runtime Filter'), ', ')
                      FILTER (WHERE n->>'Custom Plan Provider' = 'BloomFilterBuild')),
           -- the scans of a relation that read it: run, and not skipped whole
           (SELECT count(*) FROM jsonb_path_query(plan, 'strict $.**') AS s(m)
             WHERE jsonb_typeof(m) = 'object' AND m ? 'Relation Name'
               AND (m->>'Actual Loops')::bigint > 0
               AND coalesce(m->>'Partition Scans Skipped' !~ '^(\d+) of \1$', true))
      INTO skipped, ran
      FROM jsonb_path_query(plan, 'strict $.**') WITH ORDINALITY AS x(n, ord)
     WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' IN ('BloomFilterBuild', 'BloomFilterScan');
    PERFORM set_config('bloomfilter.runtime_filter', 'off', true);
    EXECUTE format('SELECT coalesce(array_agg(r::text ORDER BY r::text), ''{}'') FROM (%s) r', q)
       INTO without;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', true);
    RETURN format('%s rows, %s: %s; %s scans ran', cardinality(with_filters),
                  CASE WHEN with_filters = without THEN 'same' ELSE 'DIFFERENT' END,
                  coalesce(skipped, 'no filter'), ran);
END $$;

-- EXPLAIN ANALYZE's text, with row counts printed alike on every version;
-- without the join search's Planned Skip, whose estimates vary with the
-- statistics' sample (runtime_skip_plans.sql shows them)
CREATE FUNCTION explain_analyze(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || q LOOP
        CONTINUE WHEN line ~ 'Planned Skip:';
        RETURN NEXT regexp_replace(line, 'rows=(\d+)\.00 ', 'rows=\1 ');
    END LOOP;
END $$;

-- A fact of 3 years in 36 monthly range partitions and a default one (which
-- holds 2019); a date dimension of 200 years.
CREATE TABLE fact (d date, k int, region text, v int) PARTITION BY RANGE (d);
DO $$ BEGIN FOR m IN 0..35 LOOP
  EXECUTE format('CREATE TABLE fact_%s PARTITION OF fact FOR VALUES FROM (%L) TO (%L)', m,
                 date '2020-01-01' + make_interval(months => m),
                 date '2020-01-01' + make_interval(months => m + 1));
END LOOP; END $$;
CREATE TABLE fact_default PARTITION OF fact DEFAULT;
INSERT INTO fact
  SELECT date '2019-12-01' + (g % 1126), g % 1000, 'r' || (g % 20), g
    FROM generate_series(1, 11260) g;
CREATE TABLE dim AS
  SELECT d::date AS d, extract(year FROM d)::int AS y, extract(month FROM d)::int AS m
    FROM generate_series(date '1900-01-01', date '2099-12-31', '1 day') d;
INSERT INTO dim VALUES (NULL, 2021, 3);
-- 20 regions, 5 others, and NULL
CREATE TABLE regions AS SELECT 'r' || g AS region, g AS n FROM generate_series(0, 19) g
  UNION ALL SELECT 'x' || g, 100 + g FROM generate_series(0, 4) g
  UNION ALL SELECT NULL, -1;
ANALYZE fact, dim, regions;

-- One month: one partition scanned, the default too is skipped.
SELECT explain_analyze('SELECT count(*) FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3')
 LIMIT 19;
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS one_month;
-- one year (365 keys), a date before every partition (the default's), none at all
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021') AS one_year;
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2019 AND dim.m = 12') AS default_only;
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2050 AND dim.m = 1') AS past_every_bound;
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 13') AS no_key;
-- 912 keys, kept one by one: the 6 months of 2022 they miss are skipped too
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y BETWEEN 2020 AND 2022 AND (dim.m < 7 OR dim.y < 2022)') AS keys_kept;
-- 1,095: more distinct keys than are kept (1,024): their least and greatest
-- decide (2020's months are skipped; the default holds what is past 2022)
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y BETWEEN 2021 AND 2023') AS many_keys;
-- past 1,024 keys a date key keeps stretches of consecutive keys: one
-- month of every year (6,000 keys, 200 stretches) reads the fact's 3
-- Marches, and the default partition (the Marches before 2020)
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.m = 3') AS month_of_every_year;
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.m = 3 AND dim.y >= 2020') AS month_of_later_years;
-- the first day of every month: 2,400 stretches of one key, joined into
-- 1,024 across their narrowest gaps (Februaries first): none is lost
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE extract(day FROM dim.d) = 1') AS first_days;
-- (2,388 without 2021's: its 12 partitions, in the one wide gap, are skipped)
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE extract(day FROM dim.d) = 1 AND dim.y <> 2021') AS first_days_but_2021;
-- keys in one gap of two ranges: the first and last day of the fact's months
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.d IN (''2020-02-29'', ''2021-03-01'')') AS two_keys;

-- Join types whose unmatched outer rows are discarded: inner, semi, right
-- (and right semi, right anti where the version has them).
SELECT rf_skip('SELECT v FROM fact WHERE d IN (SELECT d FROM dim WHERE y = 2022 AND m = 5)') AS semi_in;
SELECT rf_skip('SELECT v FROM fact WHERE EXISTS (SELECT FROM dim WHERE dim.d = fact.d AND y = 2022 AND m = 5)') AS semi_exists;
SELECT rf_skip('SELECT dim.d, fact.v FROM (SELECT * FROM dim WHERE y = 2022 AND m = 5) dim LEFT JOIN fact USING (d)') AS right_join;
-- never the preserved side of left, full and anti joins
SELECT rf_skip('SELECT fact.v, dim.y FROM fact LEFT JOIN (SELECT * FROM dim WHERE y = 2022 AND m = 5) dim USING (d)') AS left_join;
SELECT rf_skip('SELECT fact.v, dim.y FROM fact FULL JOIN (SELECT * FROM dim WHERE y = 2022 AND m = 5) dim USING (d)') AS full_join;
SELECT rf_skip('SELECT v FROM fact WHERE NOT EXISTS (SELECT FROM dim WHERE dim.d = fact.d AND y = 2022 AND m = 5)') AS anti_join;

-- Keys that are not the partition key itself: an expression of it, another
-- column, a key the bounds do not order as the join does.
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim ON fact.d + 1 = dim.d WHERE dim.y = 2021 AND dim.m = 3') AS expression;
SELECT rf_skip('SELECT fact.v FROM fact JOIN (SELECT d, region FROM dim, regions WHERE y = 2021 AND m = 3 AND n = 5 OFFSET 0) x ON fact.d = x.d AND fact.region = x.region') AS two_keys_one_bound;
SELECT rf_skip('SELECT fact.v FROM fact JOIN (SELECT m FROM dim WHERE y = 2021 AND m = 3) dim ON fact.k = dim.m') AS other_column;

-- Rescans: a hash join under a nested loop, rebuilt for each outer row (a
-- month), decides again at each build.
SET enable_nestloop = on;
SELECT rf_skip('SELECT s.n FROM (VALUES (3), (8)) AS months(m), LATERAL (SELECT count(*) AS n FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = months.m OFFSET 0) s') AS rescanned;
SET enable_nestloop = off;

-- A generic plan: the dimension's filter is a parameter, the skip is decided at run time.
SET plan_cache_mode = force_generic_plan;
PREPARE month_rows(int, int) AS SELECT count(*) FROM fact JOIN dim USING (d) WHERE dim.y = $1 AND dim.m = $2;
SELECT line FROM explain_analyze('EXECUTE month_rows(2021, 3)') AS line WHERE line ~ 'Skipped';
EXECUTE month_rows(2021, 3);
EXECUTE month_rows(2022, 12);
SET bloomfilter.runtime_filter = off;
EXECUTE month_rows(2022, 12);
SET bloomfilter.runtime_filter = on;
DEALLOCATE month_rows;
RESET plan_cache_mode;

-- The parent has no statistics: the skip needs none.
CREATE TABLE fact_nostats (d date, v int) PARTITION BY RANGE (d);
CREATE TABLE fact_nostats_2020 PARTITION OF fact_nostats FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE fact_nostats_2021 PARTITION OF fact_nostats FOR VALUES FROM ('2021-01-01') TO ('2022-01-01');
INSERT INTO fact_nostats SELECT d, v FROM fact WHERE d >= '2020-01-01' AND d < '2022-01-01';
SELECT rf_skip('SELECT f.v FROM fact_nostats f JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS no_statistics;

-- List partitions: 20 regions, one NULL partition, a default one.
CREATE TABLE sales (region text, v int) PARTITION BY LIST (region);
DO $$ BEGIN FOR r IN 0..17 LOOP
  EXECUTE format('CREATE TABLE sales_r%s PARTITION OF sales FOR VALUES IN (%L)', r, 'r' || r);
END LOOP; END $$;
CREATE TABLE sales_r18_19 PARTITION OF sales FOR VALUES IN ('r18', 'r19');
CREATE TABLE sales_null PARTITION OF sales FOR VALUES IN (NULL);
CREATE TABLE sales_default PARTITION OF sales DEFAULT;
INSERT INTO sales SELECT region, v FROM fact;
INSERT INTO sales SELECT NULL, g FROM generate_series(1, 100) g;
INSERT INTO sales SELECT 'x' || (g % 5), g FROM generate_series(1, 100) g;
ANALYZE sales;
SELECT rf_skip('SELECT s.v FROM sales s JOIN regions USING (region) WHERE regions.n IN (3, 7)') AS list_two;
SELECT rf_skip('SELECT s.v FROM sales s JOIN regions USING (region) WHERE regions.n IN (18, 101)') AS list_shared_and_default;
SELECT rf_skip('SELECT s.v FROM sales s JOIN regions USING (region) WHERE regions.n < 0') AS list_null_key;
-- past 1,024 distinct keys, each listed value is probed in the Bloom filter
CREATE TABLE lst (k int, v int) PARTITION BY LIST (k);
CREATE TABLE lst_low PARTITION OF lst FOR VALUES IN (1, 2, 3, 4, 5);
CREATE TABLE lst_mid PARTITION OF lst FOR VALUES IN (5001, 5002, 5003, 5004, 5005);
CREATE TABLE lst_high PARTITION OF lst FOR VALUES IN (10001, 10002);
INSERT INTO lst SELECT k, g FROM generate_series(1, 300) g,
  unnest(ARRAY[1, 2, 3, 4, 5, 5001, 5002, 5003, 5004, 5005, 10001, 10002]) k;
CREATE TABLE lst_keys AS SELECT g AS k FROM generate_series(0, 1999) g UNION ALL SELECT 10001;
ANALYZE lst, lst_keys;
SELECT rf_skip('SELECT l.v FROM lst l JOIN lst_keys USING (k)') AS list_by_filter;
-- a nondeterministic collation the partitions do not follow: nothing skipped
CREATE COLLATION skip_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT rf_skip('SELECT s.v FROM sales s JOIN (SELECT upper(region) AS region FROM regions WHERE n IN (3, 7)) r ON s.region = r.region COLLATE skip_ci') AS list_other_collation;

-- A list partitioned under a case-insensitive collation, joined under "C":
-- the partition listing 'A' holds the 'a' rows; past 1,024 keys its value
-- 'A' is not probed in the filter (whose key is 'a'), or it would be skipped.
CREATE TABLE ci_list (w text COLLATE skip_ci, v int) PARTITION BY LIST (w);
CREATE TABLE ci_list_a PARTITION OF ci_list FOR VALUES IN ('A');
CREATE TABLE ci_list_b PARTITION OF ci_list FOR VALUES IN ('B');
CREATE TABLE ci_list_other PARTITION OF ci_list DEFAULT;
INSERT INTO ci_list SELECT CASE g % 3 WHEN 0 THEN 'a' WHEN 1 THEN 'b' ELSE 'x' || g END, g
  FROM generate_series(1, 3000) g;
CREATE TABLE ci_keys AS SELECT 'a' AS w UNION ALL SELECT 'y' || g FROM generate_series(1, 1500) g;
ANALYZE ci_list, ci_keys;
SELECT rf_skip('SELECT l.v FROM ci_list l JOIN ci_keys k ON l.w = k.w COLLATE "C"') AS list_ci_past_kept_keys;
SET bloomfilter.runtime_filter_force = on;
SELECT rf_skip('SELECT l.v FROM ci_list l JOIN ci_keys k ON l.w = k.w COLLATE "C"') AS list_ci_past_kept_keys_forced;
RESET bloomfilter.runtime_filter_force;

-- A range-partitioned table with only its default partition (no bounds at all).
CREATE TABLE only_default (d date, v int) PARTITION BY RANGE (d);
CREATE TABLE only_default_d PARTITION OF only_default DEFAULT;
INSERT INTO only_default SELECT d, v FROM fact;
ANALYZE only_default;
SELECT rf_skip('SELECT o.v FROM only_default o JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS range_default_alone;
SELECT rf_skip('SELECT o.v FROM only_default o JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 13') AS range_default_alone_no_key;

-- Hash partitions: 16, and 5 keys.
CREATE TABLE events (k int, v int) PARTITION BY HASH (k);
DO $$ BEGIN FOR r IN 0..15 LOOP
  EXECUTE format('CREATE TABLE events_%s PARTITION OF events FOR VALUES WITH (MODULUS 16, REMAINDER %s)', r, r);
END LOOP; END $$;
INSERT INTO events SELECT g % 1000, g FROM generate_series(1, 20000) g;
CREATE TABLE picks AS SELECT g::int8 AS k8, g AS k FROM generate_series(0, 999) g;
ANALYZE events, picks;
SELECT rf_skip('SELECT e.v FROM events e JOIN picks p USING (k) WHERE p.k IN (5, 17, 256, 511, 999)') AS hash_five;
-- cross-type keys through the family: an int8 dimension against the int4 partition key
SELECT rf_skip('SELECT e.v FROM events e JOIN picks p ON e.k = p.k8 WHERE p.k IN (5, 17, 256, 511, 999)') AS hash_int4_int8;
SELECT rf_skip('SELECT f.v FROM fact f JOIN picks p ON f.d = date ''2020-01-01'' + p.k WHERE p.k8 BETWEEN 400 AND 420') AS range_expression_inner;

-- Sub-partitions: years by range, then regions by list.
CREATE TABLE sub (d date, region text, v int) PARTITION BY RANGE (d);
CREATE TABLE sub_2020 PARTITION OF sub FOR VALUES FROM ('2020-01-01') TO ('2021-01-01') PARTITION BY LIST (region);
CREATE TABLE sub_2021 PARTITION OF sub FOR VALUES FROM ('2021-01-01') TO ('2022-01-01') PARTITION BY LIST (region);
CREATE TABLE sub_2020_a PARTITION OF sub_2020 FOR VALUES IN ('r1', 'r2');
CREATE TABLE sub_2020_b PARTITION OF sub_2020 DEFAULT;
CREATE TABLE sub_2021_a PARTITION OF sub_2021 FOR VALUES IN ('r1', 'r2');
CREATE TABLE sub_2021_b PARTITION OF sub_2021 DEFAULT;
INSERT INTO sub SELECT d, region, v FROM fact WHERE d >= '2020-01-01' AND d < '2022-01-01';
ANALYZE sub;
SELECT rf_skip('SELECT s.v FROM sub s JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS sub_by_date;
SELECT rf_skip('SELECT s.v FROM sub s JOIN regions USING (region) WHERE regions.n = 1') AS sub_by_region;
-- a partitioned partition named by the query: its parent's bounds count too
SELECT rf_skip('SELECT s.v FROM sub_2021 s JOIN dim USING (d) WHERE dim.y = 2020 AND dim.m = 3') AS sub_named_by_date;
SELECT rf_skip('SELECT s.v FROM sub_2021 s JOIN regions USING (region) WHERE regions.n = 7') AS sub_named_by_region;
SELECT rf_skip('SELECT s.v FROM sub s JOIN (SELECT d, region FROM dim, regions WHERE y = 2020 AND m = 6 AND regions.n = 2 OFFSET 0) x USING (d, region)') AS sub_by_both;

-- MergeAppend: partitions read in key order through their indexes (a
-- default partition keeps them from being an ordered Append).
CREATE TABLE ord (d date, v int) PARTITION BY RANGE (d);
CREATE TABLE ord_2020 PARTITION OF ord FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE ord_2021 PARTITION OF ord FOR VALUES FROM ('2021-01-01') TO ('2022-01-01');
CREATE TABLE ord_2022 PARTITION OF ord FOR VALUES FROM ('2022-01-01') TO ('2023-01-01');
CREATE TABLE ord_default PARTITION OF ord DEFAULT;
INSERT INTO ord SELECT d, v FROM fact WHERE d >= '2020-01-01' AND d < '2023-01-01';
CREATE INDEX ord_d ON ord (d);
ANALYZE ord;
SET enable_sort = off;
SET enable_seqscan = off;
SELECT rf_skip('SELECT o.d, o.v FROM (SELECT * FROM ord ORDER BY d OFFSET 0) o JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS merge_append;
SELECT line FROM explain_analyze('SELECT o.d, o.v FROM (SELECT * FROM ord ORDER BY d OFFSET 0) o JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS line
 WHERE line ~ 'Merge Append|Skipped';
RESET enable_sort;
RESET enable_seqscan;

-- A range key of two columns, joined on its first.
CREATE TABLE two (a int, b int, v int) PARTITION BY RANGE (a, b);
CREATE TABLE two_1 PARTITION OF two FOR VALUES FROM (0, 0) TO (10, 0);
CREATE TABLE two_2 PARTITION OF two FOR VALUES FROM (10, 0) TO (10, 500);
CREATE TABLE two_3 PARTITION OF two FOR VALUES FROM (10, 500) TO (20, 0);
INSERT INTO two SELECT g % 20, g % 1000, g FROM generate_series(1, 4000) g;
ANALYZE two;
SELECT rf_skip('SELECT t.v FROM two t JOIN picks p ON t.a = p.k WHERE p.k8 = 10') AS two_columns_boundary;
SELECT rf_skip('SELECT t.v FROM two t JOIN picks p ON t.a = p.k WHERE p.k8 = 3') AS two_columns_first;
SELECT rf_skip('SELECT t.v FROM two t JOIN picks p ON t.b = p.k WHERE p.k8 = 3') AS two_columns_second;

-- Block ranges: a table in date order with BRIN indexes on the date
-- (minmax) and on a scattered key (bloom), 4 blocks to a range.
CREATE TABLE log (d date, r int, v int, t text COLLATE "C");
INSERT INTO log SELECT date '2020-01-01' + g / 20, (g::int8 * 7919 % 5000)::int, g, 'k' || (g / 20)
  FROM generate_series(0, 21919) g;
CREATE INDEX log_d ON log USING brin (d) WITH (pages_per_range = 4);
CREATE INDEX log_r ON log USING brin (r int4_bloom_ops) WITH (pages_per_range = 4);
CREATE INDEX log_t ON log USING brin (t) WITH (pages_per_range = 4);
CREATE INDEX log_v ON log USING brin (v) WITH (pages_per_range = 4);
CREATE TABLE rs AS SELECT g AS r, g::int8 AS r8, g % 100 AS grp FROM generate_series(0, 4999) g;
CREATE TABLE tdays AS SELECT 'k' || (d - date '2020-01-01') AS t, y, m FROM dim WHERE d >= '2020-01-01' AND d < '2023-01-01';
ANALYZE log, rs, tdays;
SELECT explain_analyze('SELECT count(*) FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3')
 LIMIT 15;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS brin_one_month;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.d IN (''2020-01-05'', ''2022-12-30'')') AS brin_two_days;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2021') AS brin_one_year;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y IN (2020, 2021)') AS brin_most_ranges;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2050') AS brin_no_range;
-- past 1,024 keys: the ranges that meet [least, greatest]
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y BETWEEN 2022 AND 2024 AND dim.m > 9 OR dim.y = 2023') AS brin_many_keys;
-- or one test per stretch of a date key: a month of every year
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.m = 3') AS brin_month_of_every_year;
-- int8 keys (3,000 in 5 stretches) against the int4 column
CREATE TABLE v8s AS SELECT g::int8 AS v8 FROM generate_series(0, 21919) g WHERE g % 5000 < 600;
ANALYZE v8s;
SELECT rf_skip('SELECT log.v FROM log JOIN v8s ON log.v = v8s.v8 WHERE v8s.v8 IS NOT NULL') AS brin_int8_stretches;
-- a bloom summary, with each key's own test; keys that are everywhere
SELECT rf_skip('SELECT log.v FROM log JOIN rs USING (r) WHERE rs.r < 3') AS brin_bloom;
-- cross-type keys through the minmax family; not through the bloom one (no int4 = int8 there)
SELECT rf_skip('SELECT log.v FROM log JOIN rs ON log.v = rs.r8 WHERE rs.r < 3') AS brin_minmax_int8;
SELECT rf_skip('SELECT log.v FROM log JOIN rs ON log.r = rs.r8 WHERE rs.r < 3') AS brin_bloom_int8;
-- text under the index's collation, and under another deterministic one
SELECT rf_skip('SELECT log.v FROM log JOIN tdays USING (t) WHERE tdays.y = 2021 AND tdays.m = 3') AS brin_text;
SELECT rf_skip('SELECT log.v FROM log JOIN tdays ON log.t = tdays.t COLLATE "POSIX" WHERE tdays.y = 2021 AND tdays.m = 3') AS brin_text_posix;
-- ranges added after the index was built are not summarized: always read
-- (2,000 rows of 2019, then 10 of the month: found; skipped once summarized)
INSERT INTO log SELECT date '2019-06-01' + g % 30, 0, -g, 'late' FROM generate_series(1, 2000) g;
INSERT INTO log SELECT date '2021-03-15', 0, -g, 'late' FROM generate_series(1, 10) g;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS brin_unsummarized;
SELECT brin_summarize_new_values('log_d') > 0 AS summarized;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS brin_summarized;
-- a minmax-multi index, through its own consistent function
-- (filled as log was, not copied: a copy's layout differs between versions)
CREATE TABLE mlog (LIKE log);
INSERT INTO mlog SELECT date '2020-01-01' + g / 20, (g::int8 * 7919 % 5000)::int, g, 'k' || (g / 20)
  FROM generate_series(0, 21919) g;
CREATE INDEX mlog_d ON mlog USING brin (d date_minmax_multi_ops) WITH (pages_per_range = 4);
ANALYZE mlog;
SELECT rf_skip('SELECT m.v FROM mlog m JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS brin_minmax_multi;
-- a partial BRIN index summarizes only its rows: not used
CREATE TABLE plog AS SELECT * FROM log;
CREATE INDEX plog_d ON plog USING brin (d) WITH (pages_per_range = 4) WHERE v > 1000;
ANALYZE plog;
SELECT rf_skip('SELECT p.v FROM plog p JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS brin_partial_index;
-- a small table is read whole
CREATE TABLE small_log AS SELECT * FROM log WHERE v BETWEEN 0 AND 4999;
CREATE INDEX small_log_d ON small_log USING brin (d);
ANALYZE small_log;
SELECT rf_skip('SELECT s.v FROM small_log s JOIN dim USING (d) WHERE dim.y = 2020 AND dim.m = 1') AS brin_small;
-- rescans under a nested loop: each build decides again
SET enable_nestloop = on;
SELECT rf_skip('SELECT s.n FROM (VALUES (3), (8)) AS months(m), LATERAL (SELECT count(*) AS n FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = months.m OFFSET 0) s') AS brin_rescanned;
SET enable_nestloop = off;
-- rows changed by a join: the ranges read hold every row to change
BEGIN;
UPDATE log SET v = v + 1 FROM dim WHERE log.d = dim.d AND dim.y = 2021 AND dim.m = 3;
SELECT count(*) FROM log WHERE d BETWEEN '2021-03-01' AND '2021-03-31' AND v > 0;
ROLLBACK;

-- A B-tree led by the key: the keys' rows read through it where the cost
-- model says that costs less than the whole table (the table's order, the
-- keys' number, the rows the column's statistics give them).  blog is log
-- again, with a B-tree on the date; rlog the same rows in no order.
CREATE TABLE blog (d date, r int, v int, t text COLLATE "C");
INSERT INTO blog SELECT date '2020-01-01' + g / 20, (g::int8 * 7919 % 5000)::int, g, 'k' || (g / 20)
  FROM generate_series(0, 21919) g;
CREATE INDEX blog_d ON blog (d);
CREATE TABLE rlog AS SELECT * FROM blog ORDER BY (v::int8 * 7919) % 21920;
CREATE INDEX rlog_d ON rlog (d);
CREATE INDEX rlog_t ON rlog (t);
ANALYZE blog, rlog;
SELECT explain_analyze('SELECT count(*) FROM blog JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3')
 LIMIT 15;
-- in date order: a month's rows lie together; a year's 365 descents cost more
SELECT rf_skip('SELECT b.v FROM blog b JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS btree_one_month;
SELECT rf_skip('SELECT b.v FROM blog b JOIN dim USING (d) WHERE dim.y = 2021') AS btree_one_year;
SELECT rf_skip('SELECT b.v FROM blog b JOIN dim USING (d) WHERE dim.y = 2050') AS btree_no_row;
SELECT rf_skip('SELECT b.v FROM blog b JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 13') AS btree_no_key;
SELECT rf_skip('SELECT b.v FROM blog b JOIN dim USING (d) WHERE dim.y BETWEEN 2021 AND 2023') AS btree_many_keys;
-- in no order: a month's rows are on most pages; two days' are few.  These
-- tables were just written, and are in shared buffers: there the random
-- fetches cost next to nothing, and even the month's rows are read through
-- the B-tree (from disk they would not be: tests/unit/test_core.c)
SELECT rf_skip('SELECT b.v FROM rlog b JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS btree_unordered_month;
SELECT rf_skip('SELECT b.v FROM rlog b JOIN dim USING (d) WHERE dim.d IN (''2020-01-05'', ''2022-12-30'') OR dim.d IS NULL') AS btree_unordered_two_days;
-- join types: semi and right joins read by the index; the preserved side of a left or anti join never
SELECT rf_skip('SELECT v FROM rlog WHERE d IN (SELECT d FROM dim WHERE dim.d IN (''2020-01-05'', ''2022-12-30''))') AS btree_semi;
SELECT rf_skip('SELECT dim.d, b.v FROM (SELECT * FROM dim WHERE dim.d IN (''2020-01-05'', ''2022-12-30'')) dim LEFT JOIN rlog b USING (d)') AS btree_right_join;
SELECT rf_skip('SELECT b.v, dim.y FROM rlog b LEFT JOIN (SELECT * FROM dim WHERE dim.d IN (''2020-01-05'', ''2022-12-30'')) dim USING (d)') AS btree_left_join;
SELECT rf_skip('SELECT v FROM rlog b WHERE NOT EXISTS (SELECT FROM dim WHERE dim.d = b.d AND dim.d IN (''2020-01-05'', ''2022-12-30''))') AS btree_anti_join;
-- the column's most common values count: a key holding half the rows costs
-- more through the index than the whole table; a rare one does not
CREATE TABLE hot (k int, v int);
INSERT INTO hot SELECT CASE WHEN g % 2 = 0 THEN 7 ELSE g END, g FROM generate_series(1, 20000) g;
CREATE INDEX hot_k ON hot (k);
ANALYZE hot;
SELECT rf_skip('SELECT h.v FROM hot h JOIN picks p USING (k) WHERE p.k8 = 7') AS btree_common_key;
SELECT rf_skip('SELECT h.v FROM hot h JOIN picks p USING (k) WHERE p.k8 = 9') AS btree_rare_key;
-- cross-type keys through the family (int8 keys, an int4 column), a unique
-- index, and keys beyond int4's range that match nothing
SELECT rf_skip('SELECT h.v FROM hot h JOIN picks p ON h.k = p.k8 WHERE p.k < 40 AND p.k % 2 = 1 AND p.k <> 7') AS btree_int4_int8;
CREATE TABLE ids (id int PRIMARY KEY, v int);
INSERT INTO ids SELECT (g::int8 * 7919 % 20000)::int, g FROM generate_series(0, 19999) g;
CREATE TABLE wide AS SELECT g::int8 * 4294967296 + 5 AS k8 FROM generate_series(-2, 2) g;
ANALYZE ids, wide;
SELECT rf_skip('SELECT i.v FROM ids i JOIN picks p ON i.id = p.k WHERE p.k8 < 30 AND p.k8 % 3 = 0') AS btree_unique;
SELECT rf_skip('SELECT i.v FROM ids i JOIN wide w ON i.id = w.k8') AS btree_int8_out_of_range;
-- text: the index's collation, another deterministic one, the pattern family
SELECT rf_skip('SELECT b.v FROM rlog b JOIN tdays USING (t) WHERE tdays.y = 2021 AND tdays.m = 3 AND tdays.t LIKE ''%0''') AS btree_text;
SELECT rf_skip('SELECT b.v FROM rlog b JOIN tdays ON b.t = tdays.t COLLATE "POSIX" WHERE tdays.y = 2021 AND tdays.m = 3 AND tdays.t LIKE ''%0''') AS btree_text_posix;
CREATE TABLE plain (t text, v int);
INSERT INTO plain SELECT t, v FROM rlog;
CREATE INDEX plain_t ON plain (t text_pattern_ops);
ANALYZE plain;
SELECT rf_skip('SELECT p.v FROM plain p JOIN tdays USING (t) WHERE tdays.y = 2021 AND tdays.m = 3 AND tdays.t LIKE ''%0''') AS btree_pattern_ops;
-- indexes that cannot serve: partial, the key not leading, an expression
CREATE TABLE other_idx AS SELECT * FROM rlog;
CREATE INDEX other_idx_partial ON other_idx (d) WHERE v > 100;
CREATE INDEX other_idx_second ON other_idx (r, d);
CREATE INDEX other_idx_expr ON other_idx ((d + 1));
ANALYZE other_idx;
SELECT line FROM explain_analyze('SELECT o.v FROM other_idx o JOIN dim USING (d) WHERE dim.d IN (''2020-01-05'', ''2022-12-30'')') AS line
 WHERE line ~ 'Scan|Index';
-- a B-tree and a BRIN index: the B-tree where it costs less, else the BRIN ranges
CREATE INDEX log_d_btree ON log (d);
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS btree_then_brin_month;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2021') AS btree_then_brin_year;
DROP INDEX log_d_btree;
-- rescans under a nested loop: each build decides again (the planner's own
-- index scans off, or it would look up each month's days itself)
SET enable_nestloop = on;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT rf_skip('SELECT s.n FROM (VALUES (3), (8)) AS months(m), LATERAL (SELECT count(*) AS n FROM blog JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = months.m OFFSET 0) s') AS btree_rescanned;
SELECT line FROM explain_analyze('SELECT s.n FROM (VALUES (3), (8), (13)) AS months(m), LATERAL (SELECT count(*) AS n FROM blog JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = months.m OFFSET 0) s') AS line
 WHERE line ~ 'BloomFilterScan|B-tree';
RESET enable_indexscan;
RESET enable_bitmapscan;
SET enable_nestloop = off;
-- forced filters read through every B-tree that serves, whatever the cost
SET bloomfilter.runtime_filter_force = on;
SELECT rf_skip('SELECT b.v FROM rlog b JOIN dim USING (d) WHERE dim.y = 2021') AS btree_forced;
RESET bloomfilter.runtime_filter_force;
-- under SERIALIZABLE, a scan of block ranges locks the whole table as the
-- Seq Scan it replaces does (a write to a range not read still conflicts)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT line FROM explain_analyze('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS line
 WHERE line ~ 'BloomFilterScan|Heap Blocks';
SELECT locktype, relation::regclass FROM pg_locks
 WHERE mode = 'SIReadLock' AND relation = 'log'::regclass AND pid = pg_backend_pid();
COMMIT;
-- rows changed through the join: the rows read hold every row to change
BEGIN;
UPDATE rlog SET v = -v FROM dim WHERE rlog.d = dim.d AND dim.d IN ('2020-01-05', '2022-12-30');
SELECT count(*) AS negated FROM rlog WHERE v < 0;
DELETE FROM rlog USING dim WHERE rlog.d = dim.d AND dim.d IN ('2020-01-05', '2022-12-30');
SELECT count(*) AS left_of_two_days FROM rlog WHERE d IN ('2020-01-05', '2022-12-30');
ROLLBACK;

-- Rows changed or locked through the join: the partitions and ranges read
-- hold every row to change (counted inside a transaction rolled back).
BEGIN;
DELETE FROM fact USING dim WHERE fact.d = dim.d AND dim.y = 2021 AND dim.m = 3;
SELECT count(*) AS march_left FROM fact WHERE d BETWEEN '2021-03-01' AND '2021-03-31';
ROLLBACK;
BEGIN;
UPDATE fact SET v = -v FROM dim WHERE fact.d = dim.d AND dim.y = 2021 AND dim.m = 3;
SELECT count(*) AS march_negated FROM fact WHERE v < 0;
ROLLBACK;
BEGIN;
-- a partition key moved by the join: rows leave March for the default partition
UPDATE fact SET d = fact.d - 1000 FROM dim WHERE fact.d = dim.d AND dim.y = 2021 AND dim.m = 3;
SELECT count(*) AS moved FROM fact_default WHERE d < '2019-01-01';
ROLLBACK;
SELECT count(*) AS locked FROM (SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3 FOR UPDATE OF fact) l;

-- Forced filters probe rows too, and still skip.
SET bloomfilter.runtime_filter_force = on;
SELECT rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS forced;
SELECT rf_skip('SELECT s.v FROM sales s JOIN regions USING (region) WHERE regions.n IN (3, 7)') AS forced_list;
SELECT rf_skip('SELECT log.v FROM log JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS forced_brin;
RESET bloomfilter.runtime_filter_force;

-- A scan that may skip but reads after all still drops the rows the filter
-- rejects, where probing them may pay (a hash table expected to be larger
-- than the CPU cache): the probe above it judges the built hash table as
-- any probe does.  pf's parent was never analyzed, so the
-- planner expects every row to match and places the filter only to skip;
-- 40,000 keys (a hash table of some 2 MB, past what the CPU cache holds),
-- 2,000 of them in pf_0's bounds and the rest below every bound: pf_1 and
-- pf_2 are skipped, pf_0 is read whole (its B-tree is not used for an
-- inner side of 40,000 rows, far more keys than a B-tree read takes), and
-- its probe removes 98,000 of its 100,000 rows but for the filter's false
-- positives.
CREATE TABLE pf (k int, v int) PARTITION BY RANGE (k);
CREATE TABLE pf_0 PARTITION OF pf FOR VALUES FROM (0) TO (100000);
CREATE TABLE pf_1 PARTITION OF pf FOR VALUES FROM (100000) TO (200000);
CREATE TABLE pf_2 PARTITION OF pf FOR VALUES FROM (200000) TO (300000);
INSERT INTO pf SELECT g, g % 1000 FROM generate_series(0, 299999) g;
CREATE INDEX pf_0_k ON pf_0 (k);
ANALYZE pf_0, pf_1, pf_2;
CREATE TABLE pkeys AS SELECT g * 50 AS k FROM generate_series(0, 1999) g
  UNION ALL SELECT -g FROM generate_series(1, 38000) g;
ANALYZE pkeys;
SELECT explain_analyze('SELECT count(*) FROM pf JOIN pkeys USING (k)') AS line
 LIMIT 22;
SELECT rf_skip('SELECT pf.v FROM pf JOIN pkeys USING (k)') AS fallback_probed;
-- the same keys on a BRIN-ordered table that they span: every range is read, and probed
CREATE TABLE pbrin AS SELECT k, v FROM pf_0 ORDER BY k;
CREATE INDEX pbrin_k ON pbrin USING brin (k) WITH (pages_per_range = 8);
ANALYZE pbrin;
SELECT line FROM explain_analyze('SELECT count(*) FROM pbrin JOIN pkeys USING (k)') AS line
 WHERE line ~ 'Whole|Removed|Filter Use|Blocks';
SELECT rf_skip('SELECT pbrin.v FROM pbrin JOIN pkeys USING (k)') AS fallback_probed_brin;

-- Parallel Append under a join that runs in every process, each process
-- building its own hash table, or under a Parallel Hash Join, whose
-- processes merge every share of the keys (1.12; runtime_parallel.sql has
-- more).  A join above Gather cannot skip what other processes scan.  (How
-- many processes asked varies: "skipped some".)
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 1;
SET min_parallel_table_scan_size = 0;
SET enable_parallel_hash = off;
SELECT regexp_replace(rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3'),
                      'skipped \d+ of \d+; \d+ scans', 'skipped some; some scans') AS parallel_append;
SET enable_parallel_hash = on;
SET bloomfilter.runtime_filter_skip_costing = off;
SELECT regexp_replace(rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3'),
                      'skipped \d+ of \d+; \d+ scans', 'skipped some; some scans') AS parallel_hash;
-- with the skip costed (runtime_skip_plans.sql): a Parallel Hash or a
-- join of a serial hash table over the partitions, both of which skip
SET bloomfilter.runtime_filter_skip_costing = on;
SELECT regexp_replace(rf_skip('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3'),
                      'skipped \d+ of \d+; \d+ scans', 'skipped some; some scans') AS parallel_hash_costed;
-- A Parallel Append hands out no partition the keys exclude (1.12): each
-- process at the Append, before it picks a subplan, marks them done, as
-- PostgreSQL's run-time pruning marks what it prunes, so they are never
-- started ("never executed"), whichever process came first; the month's
-- partition is read; the rows are those without filters.  (Counted: the
-- fact's scans, BloomFilterScans or Index Only Scans.  With decided: how
-- many BloomFilterScans decided, where every scan's counts reach EXPLAIN.)
CREATE FUNCTION append_handouts(q text, decided bool DEFAULT false) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
    RETURN (SELECT format('%s: %s partitions never handed out, %s handed out (%s of them skipped)%s; %s',
                          CASE WHEN jsonb_path_exists(plan, 'strict $.** ? (@."Node Type" == "Append" && @."Parallel Aware" == true)')
                               THEN 'Parallel Append' ELSE 'NO PARALLEL APPEND' END,
                          count(*) FILTER (WHERE loops = 0), count(*) FILTER (WHERE loops > 0),
                          count(*) FILTER (WHERE loops > 0 AND skipped),
                          CASE WHEN decided THEN format('; %s decided', count(*) FILTER (WHERE skipped IS NOT NULL)) ELSE '' END,
                          -- (rows as with filters off, in the same settings)
                          split_part(rf_skip(q), ':', 1))
              FROM (SELECT (n->>'Actual Loops')::int AS loops,
                           split_part(n->>'Partition Scans Skipped', ' of ', 1)::int > 0 AS skipped
                      FROM jsonb_path_query(plan, 'strict $.**') AS x(n)
                     WHERE jsonb_typeof(n) = 'object' AND n->>'Relation Name' LIKE 'fact%'
                       AND (n->>'Custom Plan Provider' = 'BloomFilterScan' OR n->>'Node Type' = 'Index Only Scan')) s);
END $$;
SET bloomfilter.runtime_filter_force = on;
SELECT append_handouts('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3', true) AS shared_build;
-- run-time pruning keeps 2019-12 to 2020-05, which the keys exclude: the
-- month's partition, pruned, is neither handed out nor decided
SELECT append_handouts('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3 AND fact.d < (SELECT date ''2020-06-01'')', true) AS pruned_at_run_time;
-- each process building its own filter, of a month's dates (a small table
-- that each reads whole); the leader only gathering; no worker started
CREATE TABLE march AS SELECT d FROM dim WHERE y = 2021 AND m = 3;
ANALYZE march;
SET enable_parallel_hash = off;
SET parallel_tuple_cost = 0;
SELECT append_handouts('SELECT fact.v FROM fact JOIN march USING (d)') AS build_per_process;
SET parallel_leader_participation = off;
SELECT append_handouts('SELECT fact.v FROM fact JOIN march USING (d)') AS leader_not_participating;
RESET parallel_leader_participation;
SET max_parallel_workers = 0;
SELECT append_handouts('SELECT fact.v FROM fact JOIN march USING (d)') AS no_worker_started;
-- the Gather started again for each row of a subplan, alone and with
-- workers; then with other keys at each start (March, April, May of 2021:
-- three partitions read, each once)
SELECT append_handouts('SELECT x, (SELECT n FROM (SELECT count(*) AS n FROM fact JOIN march USING (d)) s WHERE n > x) FROM (VALUES (1), (2), (3)) v(x)') AS no_worker_gather_rescanned;
RESET max_parallel_workers;
SELECT append_handouts('SELECT x, (SELECT n FROM (SELECT count(*) AS n FROM fact JOIN march USING (d)) s WHERE n > x) FROM (VALUES (1), (2), (3)) v(x)') AS gather_rescanned;
SET enable_parallel_hash = on;
SELECT append_handouts('SELECT x, (SELECT count(*) FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = (SELECT x)) FROM (VALUES (3), (4), (5)) v(x)') AS gather_rescanned_other_keys;
-- subplans that one process reads whole (two partitions without parallel
-- workers) beside partial ones
ALTER TABLE fact_14 SET (parallel_workers = 0);
ALTER TABLE fact_20 SET (parallel_workers = 0);
SELECT append_handouts('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS non_partial_subplans;
ALTER TABLE fact_14 RESET (parallel_workers);
ALTER TABLE fact_20 RESET (parallel_workers);
-- a probe on each partition's Parallel Index Only Scan: the probe decides
CREATE INDEX fact_d_v ON fact (d, v);
VACUUM ANALYZE fact;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET min_parallel_index_scan_size = 0;
SELECT append_handouts('SELECT fact.v FROM fact JOIN dim USING (d) WHERE dim.y = 2021 AND dim.m = 3') AS probes_over_index_scans;
DROP INDEX fact_d_v;
RESET ALL;
