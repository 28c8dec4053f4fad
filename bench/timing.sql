-- bench/timing.sql: what the SQL benchmarks share (\ir timing.sql).
--
-- pg_temp.timed(q): run query q once, return its wall-clock time in ms and
-- its result as text (the benchmarks compare results across settings).
-- q's rows are read as one value: a query with several rows is wrapped in
-- an aggregate by the caller.
--
-- pg_temp.timed_on_off(case_name, q, reps): q timed reps times with
-- bloomfilter.runtime_filter off and on, alternating (off first in odd
-- runs, on first in even ones), each run a row (name, setting, ms, result)
-- of the caller's temporary table runs; the setting is left on.
CREATE FUNCTION pg_temp.timed(q text) RETURNS TABLE (ms float8, result text) LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE 'SELECT r::text FROM (' || q || ') r' INTO result;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    RETURN NEXT;
END $$;

CREATE FUNCTION pg_temp.timed_on_off(case_name text, q text, reps int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    s text;
BEGIN
    FOR rep IN 1..reps LOOP
        FOREACH s IN ARRAY CASE WHEN rep % 2 = 1 THEN ARRAY['off', 'on'] ELSE ARRAY['on', 'off'] END LOOP
            PERFORM set_config('bloomfilter.runtime_filter', s, false);
            INSERT INTO runs SELECT case_name, s, t.ms, t.result FROM pg_temp.timed(q) t;
        END LOOP;
    END LOOP;
    PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
END $$;
