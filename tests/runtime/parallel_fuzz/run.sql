-- tests/runtime/parallel_fuzz/run.sql: parallel_fuzz.sh's loop (CALL fuzz(n))
-- and what it keeps of each query
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
