# tests/fdw/compare.sh: what the postgres_fdw tests of shipped runtime
# filters share (runtime_push.sh, type_pairs.sh).  Source it.

# compare_sql QUERY: the SQL that, after QUERY's rows were kept in the temp
# tables r_on (filters on) and r_off (off), prints "same: true" if they are
# the same rows, "rows: N", QUERY's EXPLAIN VERBOSE (its Remote SQL) with
# filters on, and the rows the foreign scans returned with filters on and
# off ("remote rows on: N", "remote rows off: N"; EXPLAIN ANALYZE's counts,
# summed over the foreign scans).  It leaves filters off.
compare_sql() {
	local query=$1
	cat <<SQL
SET bloomfilter.runtime_filter = on;
SELECT 'same: ' || ((SELECT count(*) FROM r_on) = (SELECT count(*) FROM r_off)
       AND NOT EXISTS ((SELECT * FROM r_on EXCEPT ALL SELECT * FROM r_off)
                       UNION ALL (SELECT * FROM r_off EXCEPT ALL SELECT * FROM r_on)));
SELECT 'rows: ' || (SELECT count(*) FROM r_on);
EXPLAIN (VERBOSE, COSTS OFF) $query;
CREATE FUNCTION pg_temp.remote_rows(q text) RETURNS bigint LANGUAGE plpgsql AS \$\$
DECLARE plan json;
BEGIN
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF) ' || q INTO plan;
  RETURN (SELECT sum((n->>'Actual Rows')::numeric * (n->>'Actual Loops')::numeric)::bigint
            FROM jsonb_path_query(plan::jsonb, 'strict \$.**') n
           WHERE jsonb_typeof(n) = 'object' AND n->>'Node Type' = 'Foreign Scan');
END \$\$;
SELECT 'remote rows on: ' || pg_temp.remote_rows(\$q\$$query\$q\$);
SET bloomfilter.runtime_filter = off;
SELECT 'remote rows off: ' || pg_temp.remote_rows(\$q\$$query\$q\$);
SQL
}
