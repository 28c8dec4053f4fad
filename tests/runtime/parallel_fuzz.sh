#!/usr/bin/env bash
# tests/runtime/parallel_fuzz.sh [CASES]: random joins of a fact to one or
# two dimensions, each run under a random draw of parallel settings with
# runtime filters off and on, compared: the same rows (their count, and the
# rows as text, or a digest of it where long), or the same error (SQLSTATE
# and message) where the query itself fails with filters off.  Its target is the parallel BloomFilterScan
# (src/runtime/exec/scanshare.c), whose processes agree on how a table is
# read and share it out: a row read twice or never is a wrong answer.
#
# The data: a date dimension (2019-2022, and a NULL date); a plain fact of
# two years (2020-2021, 29,000 rows) in date order, BRIN-indexed on the date
# (pages_per_range = 4, about 100 ranges) and B-tree-indexed on its item (some
# NULL), then rows without a date; a fact of 24 monthly range partitions and
# a default one (NULL dates and 2019-12), in no order, a B-tree on the item
# in every partition; an item dimension of 2,000 sold items and 100 never
# sold in 40 groups, its key also as bigint (a join across integer types;
# one bigint key past any int).  Every 40 cases the facts change: rows
# added (the plain fact's at its end: block ranges unsummarized, or
# summarized wide), moved to other dates (other partitions) or items,
# deleted; committed, or left uncommitted to the queries that follow.  And
# all along a writer in another session adds rows at the facts' ends,
# deletes some of them, adds and rolls back more, summarizes the BRIN
# index's new ranges and vacuums: a table's length and its summaries change
# while a query's processes decide how to read it, and between the runs of
# a Gather.  Each query runs off, on and explained in one snapshot
# (REPEATABLE READ), in a transaction of its own but where changes were
# left uncommitted.
#
# A query joins a fact to the date dimension, the item one, or both, each
# by an inner join, a semi join (EXISTS, IN), an anti join (NOT EXISTS, NOT
# IN), a LEFT or FULL join, or a RIGHT JOIN whose preserved side is the
# dimension (the fact may then be the outer side of a Hash Right Join),
# sometimes on a second key (an expression); with random quals on the
# dimensions (a month, some days, a year, several years, IN lists, a day of
# every month, no row, every row, items by group), sometimes one on the
# fact.  Output: aggregates, groups, rows, the first rows in order, or two
# such joins under UNION ALL; sometimes an expression that divides by zero
# on some joined rows; sometimes the whole as a subquery evaluated for each
# row of a VALUES list of years, so that its Gather runs again, the keys
# mostly of that year (other keys at each run); sometimes the fact joined to
# a row that the leader alone is slow to read (it reaches the join after the
# workers' build), and the fact's scan slowed.  Settings:
# max_parallel_workers_per_gather 0, 1, 2 or 4, parallel_setup_cost and
# min_parallel_table_scan_size 0, parallel_tuple_cost 0 or 0.1,
# parallel_leader_participation on or off, sometimes max_parallel_workers =
# 0 (no worker starts), enable_parallel_hash on or off, work_mem 4MB or
# 64kB (hash joins of several batches), bloomfilter.runtime_filter_force
# and bloomfilter.runtime_filter_skip_costing on or off, sometimes
# debug_parallel_query (force_parallel_mode before 16) on, mostly no merge
# or nested loop join.  One case in two is steered toward a path in turn
# (block ranges, a B-tree, a Parallel Append, a Parallel Hash Join's shared
# filter, a Gather run again with other keys at each run and the leader
# late), with hash joins only and workers to start.
#
# Run against a server (as pg_virtualenv sets up).  PARALLEL_FUZZ_SEED fixes
# the draws (the seed is printed; which workers start, and when, and what
# the writer has done by then, are not fixed).  Ends with "parallel_fuzz: P
# passed, F failed": a check per query, and one for each path the fuzz
# claims to reach (EXPLAIN ANALYZE of the query with filters on): a Parallel
# BloomFilterScan that read block ranges, one that read through a B-tree,
# one that a worker read from, one under a Gather run again, partitions
# skipped under a Parallel Append, and a Parallel BloomFilterScan that
# skipped by a Parallel Hash Join's shared filter (a fuzz that never reaches
# the parallel paths proves nothing).
set -uo pipefail

cases=${1:-150}
seed=${PARALLEL_FUZZ_SEED:-$RANDOM}
db=bloom_parallel_fuzz
echo "parallel_fuzz: seed $seed, $cases queries (PARALLEL_FUZZ_SEED=$seed reproduces them)"

writing=$(mktemp)
writer=
finish() {
	# the writer stops after its current round
	rm -f "$writing"
	[ -n "$writer" ] && wait "$writer"
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1
}
trap finish EXIT
stopped() {
	echo "$1" | grep '^WARNING:  parallel_fuzz: case ' | tail -n 1 |
		sed 's/^WARNING:  parallel_fuzz: /parallel_fuzz: the last query run: /'
	echo "parallel_fuzz: FAILED: the run stopped"
	echo "parallel_fuzz: 0 passed, 1 failed"
	exit 1
}

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null

# the data, and the functions that draw and run the queries
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" 2>&1 <<'SQL'
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

-- one of a few choices
CREATE FUNCTION pick(VARIADIC a text[]) RETURNS text LANGUAGE sql AS $$
    SELECT a[1 + floor(random() * cardinality(a))::int]
$$;
CREATE FUNCTION rnd(lo int, hi int) RETURNS int LANGUAGE sql AS $$
    SELECT lo + floor(random() * (hi - lo + 1))::int
$$;
-- a year, mostly one of the facts'
CREATE FUNCTION year() RETURNS int LANGUAGE sql AS $$
    SELECT CASE WHEN random() < 0.8 THEN rnd(2020, 2021) ELSE pick('2019', '2022')::int END
$$;
-- a day of the dimension, mostly of the facts' two years
CREATE FUNCTION day() RETURNS text LANGUAGE sql AS $$
    SELECT quote_literal(CASE WHEN random() < 0.85 THEN date '2020-01-01' + rnd(0, 730)
                              ELSE date '2019-01-01' + rnd(0, 1460) END)
$$;

-- a random qual on the date dimension d (steered: a month, some days, a
-- few days in a row, two months of a year; per_run: in a subquery run once
-- for each year fuzz_v.x, mostly of that year, so that each run of its
-- Gather has keys of its own)
CREATE FUNCTION date_qual(steer bool, per_run bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    kind int := CASE WHEN steer THEN pick('0', '2', '5', '9')::int ELSE rnd(0, 10) END;
    l text;
BEGIN
    IF per_run AND random() < 0.7 THEN
        RETURN pick(format('d.y = (SELECT fuzz_v.x) AND d.m = %s', rnd(1, 12)),
                    format('d.m IN (%s, %s) AND d.y = (SELECT fuzz_v.x)', rnd(1, 12), rnd(1, 12)),
                    format('d.d IN (make_date((SELECT fuzz_v.x), %s, %s),'
                           ' make_date((SELECT fuzz_v.x), %s, %s))',
                           rnd(1, 12), rnd(1, 28), rnd(1, 12), rnd(1, 28)));
    END IF;
    CASE kind
    WHEN 0, 1 THEN RETURN format('d.y = %s AND d.m = %s', year(), rnd(1, 12));
    WHEN 2 THEN
        -- (steered: two days at least, which PostgreSQL does not carry over to the fact)
        l := day();
        FOR j IN 1 .. rnd(CASE WHEN steer THEN 1 ELSE 0 END, 3) LOOP l := l || ', ' || day(); END LOOP;
        RETURN 'd.d IN (' || l || ')';
    WHEN 3 THEN RETURN format('d.y = %s', year());
    WHEN 4 THEN RETURN pick(format('d.y IN (%s, %s)', year(), year()),
                            format('d.y BETWEEN 2019 AND %s', year()));
    WHEN 5 THEN RETURN format('d.d BETWEEN %1$s AND %1$s::date + %2$s', day(), rnd(0, 9));
    WHEN 6 THEN RETURN pick('d.y = 2050', 'd.d IS NULL', 'd.m = 13');
    WHEN 7 THEN RETURN pick('true', 'd.y > 0');
    WHEN 8 THEN RETURN format('d.dom = %s', rnd(1, 31));
    WHEN 9 THEN RETURN format('d.m IN (%s, %s) AND d.y = %s', rnd(1, 12), rnd(1, 12), year());
    ELSE RETURN format('d.d >= %s', day());
    END CASE;
END $$;

-- a random qual on the item dimension i (steered: a group, an IN list, a
-- stretch of items; per_run: as date_qual's)
CREATE FUNCTION item_qual(steer bool, per_run bool) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    kind int := CASE WHEN steer THEN pick('0', '3', '4')::int ELSE rnd(0, 8) END;
    l text;
    a int;
BEGIN
    IF per_run AND random() < 0.7 THEN
        RETURN pick('i.grp = (SELECT fuzz_v.x) % 40',
                    format('i.item IN (%s, (SELECT fuzz_v.x) - %s, (SELECT fuzz_v.x) - %s)',
                           rnd(1, 2100), rnd(20, 2000), rnd(20, 2000)));
    END IF;
    CASE kind
    WHEN 0, 1 THEN RETURN format('i.grp = %s', rnd(0, 39));
    WHEN 2 THEN RETURN format('i.grp IN (%s, %s)', rnd(0, 39), rnd(0, 39));
    WHEN 3 THEN
        l := rnd(1, 2100)::text;
        FOR j IN 1 .. rnd(0, 5) LOOP l := l || ', ' || rnd(1, 2100); END LOOP;
        RETURN 'i.item IN (' || l || ')';
    WHEN 4 THEN
        a := rnd(1, 2100);
        RETURN format('i.item BETWEEN %s AND %s', a, a + rnd(0, 60));
    WHEN 5 THEN RETURN pick('i.grp < 0', 'i.item IS NULL');
    WHEN 6 THEN RETURN pick('true', 'i.grp >= 0');
    WHEN 7 THEN RETURN pick('i.item > 2000', format('i.item < %s', rnd(1, 2100)));
    ELSE RETURN format('i.item %% 100 = %s', rnd(0, 99));
    END CASE;
END $$;

-- A random join of a fact (f) to one or two dimensions (d, i): the FROM
-- clause, the WHERE quals, and the dimensions whose columns may be shown.
-- Steered toward a path (NULL: not steered): ranges, the plain fact by
-- dates; btree, the plain fact by items; append, the partitioned fact by
-- dates; shared, either fact under a Parallel Hash Join, its dimension's
-- qual made costly for half of them (so that more processes take a share
-- of the build); rerun, the plain fact in a subquery run again with keys
-- of each run's own (query() and settings() say how); each by an inner or
-- a semi join, on selective quals.
-- per_run: quals whose keys change at each run of a subquery (date_qual);
-- late: the fact joined to a table of one row that the leader (only) is
-- slow to read (so that it reaches the join after the workers' build; read
-- again at each run where the keys change), and for rerun mostly the
-- fact's scan made slow (so that the workers are still reading then).
CREATE FUNCTION body(steer text, per_run bool, late bool, OUT from_ text, OUT quals text[], OUT shown text[])
LANGUAGE plpgsql AS $$
DECLARE
    dims text[] := string_to_array(CASE steer WHEN 'ranges' THEN pick('d', 'd', 'd', 'd,i')
                                              WHEN 'rerun' THEN pick('d', 'd', 'd', 'i')
                                              WHEN 'btree' THEN pick('i', 'i', 'i', 'i,d')
                                              WHEN 'append' THEN 'd'
                                              WHEN 'shared' THEN pick('d', 'd', 'i')
                                              ELSE pick('d', 'i', 'd,i', 'i,d') END, ',');
    costly bool := steer = 'shared' AND random() < 0.5;
    outer_join bool := false;
    x text;
    mode text;
    tab text;
    key text;
    dkey text;
    fkey text;
    q text;
BEGIN
    quals := '{}';
    shown := '{}';
    from_ := CASE WHEN steer = 'append' THEN 'pfact' WHEN steer IN ('ranges', 'btree', 'rerun') THEN 'fact'
                  ELSE pick('fact', 'fact', 'pfact') END || ' f';
    IF late THEN
        from_ := from_ || ' JOIN one ON one.a = f.v % 1 + 1 AND leader_late(one.a)'
                 || CASE WHEN per_run THEN ' AND one.a <> (SELECT fuzz_v.x)' ELSE '' END;
        -- (on the selective quals of rerun: elsewhere it reads too many rows)
        IF steer = 'rerun' AND random() < 0.7 THEN
            quals := quals || 'outer_slow(f.v)'::text;
        END IF;
    END IF;
    FOREACH x IN ARRAY dims LOOP
        IF x = 'd' THEN
            tab := 'dates d'; fkey := 'f.d'; dkey := 'd.d';
            q := date_qual(steer IS NOT NULL, per_run);
            IF costly THEN
                q := 'CASE WHEN length(repeat(d.d::text, 1000)) > 0 THEN ' || q || ' END';
            END IF;
        ELSE
            tab := 'items i'; fkey := 'f.item'; dkey := pick('i.item', 'i.item', 'i.item8');
            q := item_qual(steer IS NOT NULL, per_run);
            IF costly THEN
                q := 'CASE WHEN length(repeat(i.item::text, 1000)) > 0 THEN ' || q || ' END';
            END IF;
        END IF;
        key := fkey || ' = ' || dkey;
        -- sometimes a second key, an expression (a filter of two keys)
        IF x = 'd' AND steer IS NULL AND random() < 0.1 THEN
            key := key || ' AND d.m = f.item % 13';
        END IF;
        IF steer IS NOT NULL THEN
            mode := pick('join', 'join', 'exists', 'in');
        ELSE
            mode := pick('join', 'join', 'join', 'join', 'join', 'right', 'right', 'right', 'left',
                         'left', 'full', 'exists', 'exists', 'exists', 'in', 'in', 'not exists',
                         'not exists', 'not in');
        END IF;
        IF mode = 'join' THEN
            from_ := from_ || ' JOIN ' || tab || ' ON ' || key;
            quals := quals || q;
            shown := shown || x;
        ELSIF mode IN ('right', 'left', 'full') THEN
            -- right: the dimension preserved, the fact may be the outer side of a
            -- Hash Right Join; left, full: the fact's rows are all kept.  The
            -- dimension's qual in the ON clause, or in WHERE (which may make the
            -- join another)
            IF random() < 0.5 THEN
                from_ := from_ || ' ' || upper(mode) || ' JOIN ' || tab || ' ON ' || key || ' AND ' || q;
            ELSE
                from_ := from_ || ' ' || upper(mode) || ' JOIN ' || tab || ' ON ' || key;
                quals := quals || q;
            END IF;
            shown := shown || x;
            outer_join := outer_join OR mode <> 'left';
        ELSIF mode = 'exists' THEN
            quals := quals || ('EXISTS (SELECT 1 FROM ' || tab || ' WHERE ' || key || ' AND ' || q || ')');
        ELSIF mode = 'not exists' THEN
            quals := quals || ('NOT EXISTS (SELECT 1 FROM ' || tab || ' WHERE ' || key || ' AND ' || q
                               || ')');
        ELSIF mode = 'in' THEN
            quals := quals || (fkey || ' IN (SELECT ' || dkey || ' FROM ' || tab || ' WHERE ' || q || ')');
        ELSE
            quals := quals || (fkey || ' NOT IN (SELECT ' || dkey || ' FROM ' || tab || ' WHERE ' || q
                               || ')');
        END IF;
    END LOOP;
    -- a qual on the fact (not with a right or full join, which it would make another)
    IF NOT outer_join AND random() < 0.2 THEN
        quals := quals || pick('f.v % 3 = 0', format('f.item < %s', rnd(1, 2000)), format('f.d >= %s', day()),
                               'f.item IS NOT NULL');
    END IF;
END $$;

-- a random query: a join (or two under UNION ALL), some output
CREATE FUNCTION query(steer text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    b record;
    c record;
    q text;
    cols text;
    bad text;
    out_ text := pick('agg', 'agg', 'agg', 'group', 'rows', 'rows', 'rows', 'rows', 'limit', 'union');
    -- once for each row of a VALUES list (its Gather runs again), with keys
    -- of each run's own or not; the leader late or not
    rescan bool := steer = 'rerun' OR random() < (CASE WHEN steer IS NOT NULL THEN 0.3 ELSE 0.15 END);
    per_run bool := rescan AND (steer = 'rerun' OR random() < 0.6);
    late bool := random() < (CASE WHEN steer = 'rerun' THEN 0.7 WHEN rescan THEN 0.3
                                  WHEN steer = 'shared' THEN 0.25 ELSE 0.03 END);
BEGIN
    SELECT * INTO b FROM body(steer, per_run, late);
    IF out_ = 'union' THEN
        -- a Parallel Append of two joins
        SELECT * INTO c FROM body(steer, per_run, late AND random() < 0.5);
        q := 'SELECT ''a'' AS t, f.v, f.d, f.item FROM ' || b.from_
             || coalesce(' WHERE ' || array_to_string(nullif(b.quals, '{}'), ' AND '), '')
             || ' UNION ALL SELECT ''b'', f.v, f.d, f.item FROM ' || c.from_
             || coalesce(' WHERE ' || array_to_string(nullif(c.quals, '{}'), ' AND '), '');
    ELSE
        -- sometimes an expression that divides by zero on some joined rows
        IF random() < 0.12 THEN
            bad := CASE WHEN 'd' = ANY (b.shown) THEN 'f.v / (d.dom - 31)'
                        WHEN 'i' = ANY (b.shown) THEN 'f.v / (i.grp - 7)'
                        ELSE 'f.v / (f.item - 1000)' END;
        END IF;
        IF out_ = 'agg' THEN
            cols := 'count(*), count(f.v), sum(f.v), min(f.d), max(f.item)'
                    || CASE WHEN 'd' = ANY (b.shown) THEN ', count(d.d), count(DISTINCT d.m)' ELSE '' END
                    || CASE WHEN 'i' = ANY (b.shown) THEN ', count(i.item), sum(i.grp)' ELSE '' END
                    || coalesce(', sum(' || bad || ')', '');
        ELSIF out_ = 'group' THEN
            cols := CASE WHEN 'd' = ANY (b.shown) THEN 'd.y, d.m' ELSE 'f.item % 10' END
                    || ', count(*), sum(f.v), min(f.d)';
        ELSE
            cols := 'f.v, f.d, f.item'
                    || CASE WHEN 'd' = ANY (b.shown) THEN ', d.d, d.y' ELSE '' END
                    || CASE WHEN 'i' = ANY (b.shown) THEN ', i.item, i.grp' ELSE '' END
                    || coalesce(', ' || bad, '');
        END IF;
        q := 'SELECT ' || cols || ' FROM ' || b.from_
             || coalesce(' WHERE ' || array_to_string(nullif(b.quals, '{}'), ' AND '), '');
        IF out_ = 'group' THEN
            q := q || ' GROUP BY 1' || CASE WHEN 'd' = ANY (b.shown) THEN ', 2' ELSE '' END;
        ELSIF out_ = 'limit' THEN
            -- ordered by every column shown: the rows kept are the same whatever the plan
            q := q || ' ORDER BY ' || (SELECT string_agg(n::text, ', ')
                                         FROM generate_series(1, cardinality(string_to_array(cols, ', '))) n)
                   || ' LIMIT ' || rnd(1, 300);
        END IF;
    END IF;
    IF rescan THEN
        q := 'SELECT fuzz_v.x, (SELECT count(*) || '':'' || md5(coalesce(string_agg(fuzz_s::text, '';'''
             || ' ORDER BY fuzz_s::text), '''')) || '':'' || fuzz_v.x FROM (' || q || ') fuzz_s)'
             || ' FROM (VALUES ' || (SELECT string_agg('(' || y || ')', ', ' ORDER BY random())
                                       FROM unnest(ARRAY[2019, 2020, 2021, 2022, 2023]) y
                                      WHERE y IN (2020, 2021) OR random() < 0.5) || ') fuzz_v(x)';
    END IF;
    RETURN q;
END $$;

-- a random draw of settings, as name/value pairs (steered: hash joins only,
-- workers planned and free to start, no forced parallel mode, a Parallel
-- Hash only for shared; to a B-tree, filters forced; hash_only: hash joins
-- only, where a nested loop would read the leader's slow row once per row)
CREATE FUNCTION settings(steer text, hash_only bool) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
    join_methods text := CASE WHEN steer IS NOT NULL OR hash_only OR random() < 0.8 THEN 'off' ELSE 'on' END;
BEGIN
    RETURN ARRAY[
        'max_parallel_workers_per_gather',
        CASE WHEN steer IS NOT NULL THEN pick('1', '2', '2', '4')
             ELSE pick('0', '1', '1', '2', '2', '2', '4', '4') END,
        'parallel_setup_cost', '0',
        'parallel_tuple_cost', CASE WHEN steer = 'shared' THEN '0' ELSE pick('0', '0.1') END,
        'min_parallel_table_scan_size', '0',
        'parallel_leader_participation',
        CASE WHEN steer = 'shared' THEN pick('on', 'off') WHEN steer = 'rerun' THEN 'on'
             ELSE pick('on', 'on', 'off') END,
        'max_parallel_workers', CASE WHEN steer IS NULL AND random() < 0.15 THEN '0' ELSE '8' END,
        'enable_parallel_hash',
        CASE WHEN steer = 'shared' THEN 'on' WHEN steer = 'rerun' THEN pick('on', 'on', 'off')
             WHEN steer IS NOT NULL THEN 'off' ELSE pick('on', 'off', 'off') END,
        'enable_mergejoin', join_methods,
        'enable_nestloop', join_methods,
        -- (64kB: hash joins of several batches)
        'work_mem', pick('4MB', '4MB', '4MB', '64kB'),
        'bloomfilter.runtime_filter_force',
        CASE WHEN steer = 'btree' THEN 'on' WHEN steer IN ('shared', 'rerun') THEN pick('on', 'on', 'off')
             ELSE pick('on', 'off') END,
        -- (off: PostgreSQL's own plan, a Parallel Seq Scan of the fact, more often)
        'bloomfilter.runtime_filter_skip_costing',
        CASE WHEN steer IS NOT NULL THEN pick('on', 'off', 'off') ELSE pick('on', 'on', 'off') END,
        -- last: reset after each query
        CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'debug_parallel_query'
             ELSE 'force_parallel_mode' END,
        CASE WHEN steer IS NULL AND random() < 0.12 THEN 'on' ELSE 'off' END];
END $$;

CREATE FUNCTION apply(s text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR j IN 1 .. cardinality(s) BY 2 LOOP
        PERFORM set_config(s[j], s[j + 1], false);
    END LOOP;
END $$;

-- Changes to the facts, between rounds of queries: rows added (the plain
-- fact's go to new blocks at its end, in no date order: block ranges the
-- BRIN index has not summarized, or, summarized, wide; as wide as the first
-- rows, so that they do not fill the room those left in every block),
-- moved a few days (the block ranges' summaries widen a little) or to
-- other partitions or items, deleted.  What was done, said.
CREATE SEQUENCE new_v START 200000;
-- (the writer's, beside the queries: see below)
CREATE SEQUENCE writer_v START 1000000;
CREATE FUNCTION mutate() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    done text[] := '{}';
    r int := rnd(0, 49);
    n int;
BEGIN
    IF random() < 0.7 THEN
        n := rnd(1, 400);
        INSERT INTO fact
          SELECT CASE WHEN random() < 0.05 THEN NULL ELSE date '2020-01-01' + rnd(-40, 770) END,
                 rnd(1, 2000), nextval('new_v'), repeat('p', 60)
            FROM generate_series(1, n);
        done := done || format('%s rows added to fact', n);
    END IF;
    IF random() < 0.5 THEN
        UPDATE fact SET d = d + rnd(-3, 3) WHERE v % 50 = r AND v < 1000000;
        done := done || format('fact rows of v %% 50 = %s moved to other dates', r);
    END IF;
    IF random() < 0.3 THEN
        UPDATE fact SET item = rnd(1, 2100) WHERE v % 50 = (r + 7) % 50 AND v < 1000000;
        done := done || format('fact rows of v %% 50 = %s moved to other items', (r + 7) % 50);
    END IF;
    IF random() < 0.4 THEN
        DELETE FROM fact WHERE v % 40 = r % 40 AND v < 1000000;
        done := done || format('fact rows of v %% 40 = %s deleted', r % 40);
    END IF;
    IF random() < 0.3 THEN
        PERFORM brin_summarize_new_values('fact_d');
        done := done || 'new ranges of fact summarized'::text;
    END IF;
    IF random() < 0.7 THEN
        n := rnd(1, 400);
        INSERT INTO pfact
          SELECT CASE WHEN random() < 0.1 THEN NULL ELSE date '2020-01-01' + rnd(-60, 790) END,
                 rnd(1, 2000), nextval('new_v'), repeat('p', 60)
            FROM generate_series(1, n);
        done := done || format('%s rows added to pfact', n);
    END IF;
    IF random() < 0.5 THEN
        UPDATE pfact SET d = d + rnd(-40, 40) WHERE v % 50 = (r + 13) % 50 AND v < 1000000;
        done := done || format('pfact rows of v %% 50 = %s moved to other dates', (r + 13) % 50);
    END IF;
    IF random() < 0.4 THEN
        DELETE FROM pfact WHERE v % 40 = (r + 3) % 40 AND v < 1000000;
        done := done || format('pfact rows of v %% 40 = %s deleted', (r + 3) % 40);
    END IF;
    RETURN coalesce(array_to_string(nullif(done, '{}'), ', '), 'nothing');
END $$;

CREATE TABLE results (i int, steer text, q text, settings text, changes text, off_outcome text,
                      on_outcome text, ranges bool, btree bool, workers bool, rescanned bool,
                      append_skip bool, shared bool);
-- One case in two is steered toward a parallel path, in turn.  Each case is
-- a transaction of its own (a snapshot of its own: the writer's rows come
-- and go between cases), but every 40 cases the facts change, committed,
-- or left uncommitted to the next 40 cases (one transaction: their workers
-- see the changes).
CREATE PROCEDURE fuzz(cases int) LANGUAGE plpgsql AS $$
DECLARE
    q text;
    s text[];
    steer text;
    off_o text;
    on_o text;
    r record;
    changes text := 'none';
    uncommitted bool := false;
BEGIN
    FOR i IN 1 .. cases LOOP
        IF i % 40 = 0 THEN
            COMMIT;
            uncommitted := random() < 0.5;
            changes := changes || '; before case ' || i || ': ' || mutate()
                       || CASE WHEN uncommitted THEN ', left uncommitted' ELSE ', committed' END;
            changes := regexp_replace(changes, '^none; ', '');
        END IF;
        IF NOT uncommitted THEN
            COMMIT;
        END IF;
        steer := CASE WHEN i % 2 = 0
                      THEN (ARRAY['ranges', 'btree', 'append', 'shared', 'rerun'])[i / 2 % 5 + 1] END;
        q := query(steer);
        s := settings(steer, q LIKE '%leader_late%');
        -- (where the run stops, the last of these says which query it was on)
        RAISE WARNING 'parallel_fuzz: case %: %', i, q;
        PERFORM apply(s);
        PERFORM set_config('bloomfilter.runtime_filter', 'off', false);
        off_o := outcome(q);
        PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
        on_o := outcome(q);
        r := reached(q);
        PERFORM set_config(s[cardinality(s) - 1], 'off', false);
        INSERT INTO results
          SELECT i, steer, q, string_agg(format('SET %s = %s;', s[j], s[j + 1]), ' ' ORDER BY j), changes,
                 off_o, on_o, r.ranges, r.btree, r.workers, r.rescanned, r.append_skip, r.shared
            FROM generate_series(1, cardinality(s), 2) j;
    END LOOP;
END $$;
SQL
) || stopped "$out"

# Beside the queries, a writer adds rows at the facts' ends (in no date
# order), deletes some of its own, adds and rolls back more (blocks whose
# rows no query sees), summarizes the BRIN index's new ranges and vacuums:
# the tables' length and the index's summaries change while a query's
# processes decide and read, and between the runs of a Gather.  Its rows
# have v >= 1,000,000; mutate() changes only the others (no conflict).
# Each query runs off, on, and explained in one snapshot (REPEATABLE READ).
touch "$writing"
(
	while [ -e "$writing" ]; do
		n=$((RANDOM % 30 + 1))
		sql="INSERT INTO fact SELECT CASE WHEN random() < 0.05 THEN NULL
		       ELSE date '2020-01-01' + floor(random() * 780)::int - 20 END,
		       1 + floor(random() * 2000)::int, nextval('writer_v'), repeat('w', 60)
		  FROM generate_series(1, $n);
		INSERT INTO pfact SELECT CASE WHEN random() < 0.05 THEN NULL
		       ELSE date '2020-01-01' + floor(random() * 800)::int - 40 END,
		       1 + floor(random() * 2000)::int, nextval('writer_v'), repeat('w', 60)
		  FROM generate_series(1, $n);"
		case $((RANDOM % 10)) in
		0) sql="DELETE FROM fact WHERE v >= 1000000 AND v % 3 = $((RANDOM % 3))" ;;
		1) sql="BEGIN; INSERT INTO fact SELECT date '2021-06-01', 1, nextval('writer_v'), repeat('w', 60)
		          FROM generate_series(1, 300); ROLLBACK" ;;
		2 | 3) sql="$sql; SELECT brin_summarize_new_values('fact_d')" ;;
		4) sql="VACUUM fact" ;;
		esac
		psql -X -q -d "$db" -c "$sql" >/dev/null 2>&1
		sleep 0.1
	done
) &
writer=$!

out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -v seed="$seed" -v cases="$cases" 2>&1 <<'SQL'
SET client_min_messages = warning;
LOAD 'bloomfilter';
SET jit = off;
SET default_transaction_isolation = 'repeatable read';
SELECT set_config('fuzz.leader', pg_backend_pid()::text, false) \g /dev/null
-- (a run that takes this long has a query stuck: the last one is shown)
SET statement_timeout = '15min';
SELECT setseed((:seed % 32768) / 32768.0) \g /dev/null
CALL fuzz(:cases);
-- the failures: a query whose outcome with filters differs from without
SELECT 'parallel_fuzz: FAILED: case ' || i || ' (PARALLEL_FUZZ_SEED=' || :seed || ')'
       || E'\n  settings: ' || settings || E'\n  query:    ' || q
       || E'\n  off:      ' || off_outcome || E'\n  on:       ' || on_outcome
       || E'\n  changes to the facts before it: ' || changes
  FROM results WHERE on_outcome <> off_outcome ORDER BY i;
SELECT 'parallel_fuzz: ' || count(*) || ' queries: ' || count(*) FILTER (WHERE off_outcome LIKE 'ERROR%')
       || ' fail with filters off too; Parallel BloomFilterScans read block ranges in '
       || count(*) FILTER (WHERE ranges) || ', through a B-tree in ' || count(*) FILTER (WHERE btree)
       || ', a worker read in ' || count(*) FILTER (WHERE workers) || ', a Gather ran again over one in '
       || count(*) FILTER (WHERE rescanned) || ', a Parallel Hash Join''s shared filter skipped in '
       || count(*) FILTER (WHERE shared) || '; a Parallel Append skipped partitions in '
       || count(*) FILTER (WHERE append_skip)
  FROM results;
SELECT 'counts ' || count(*) FILTER (WHERE on_outcome = off_outcome)
       || ' ' || count(*) FILTER (WHERE on_outcome <> off_outcome)
       || ' ' || count(*) FILTER (WHERE ranges) || ' ' || count(*) FILTER (WHERE btree)
       || ' ' || count(*) FILTER (WHERE workers) || ' ' || count(*) FILTER (WHERE rescanned)
       || ' ' || count(*) FILTER (WHERE append_skip) || ' ' || count(*) FILTER (WHERE shared)
  FROM results;
SQL
)
status=$?
echo "$out" | grep -v '^counts ' | grep -v '^WARNING:  parallel_fuzz: case '
[ $status -eq 0 ] || stopped "$out"
read -r same different ranges btree workers rescanned append_skip shared \
	<<<"$(echo "$out" | sed -n 's/^counts //p')"
failed=${different:-0}
passed=${same:-0}
# a fuzz that never reaches the parallel paths proves nothing
check() {
	if [ "${1:-0}" -gt 0 ]; then
		passed=$((passed + 1))
	else
		echo "parallel_fuzz: FAILED: no query $2"
		failed=$((failed + 1))
	fi
}
check "$ranges" "had a Parallel BloomFilterScan read block ranges"
check "$btree" "had a Parallel BloomFilterScan read through a B-tree"
check "$workers" "had a worker read in a Parallel BloomFilterScan"
check "$rescanned" "ran a Gather again over a Parallel BloomFilterScan"
check "$append_skip" "skipped partitions under a Parallel Append"
check "$shared" "skipped by a Parallel Hash Join's shared filter"
echo "parallel_fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
