-- tests/runtime/parallel_fuzz/draw.sql: parallel_fuzz.sh's random queries,
-- settings and changes to the facts

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

