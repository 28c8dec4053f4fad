-- bench/timing.sql: what the SQL benchmarks share (\ir timing.sql).
--
-- pg_temp.timed(q): run query q once, return its wall-clock time in ms and
-- its result as text (the benchmarks compare results across settings).
-- q's rows are read as one value: a query with several rows is wrapped in
-- an aggregate by the caller.
CREATE FUNCTION pg_temp.timed(q text) RETURNS TABLE (ms float8, result text) LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE 'SELECT r::text FROM (' || q || ') r' INTO result;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    RETURN NEXT;
END $$;
