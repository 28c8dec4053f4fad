#!/usr/bin/env bash
# tests/runtime/plan_time_fuzz.sh [CASES]: random quals on a dimension whose
# keys the planner reads at plan time (src/runtime/paths/keyprobe.c), each
# query run with runtime filters off, on, and forced, compared: the same
# rows, or the same error where the query itself fails with filters off.
#
# The quals are leakproof (the only kind the read runs) and some of them
# fail: texteq and text_lt raise "could not determine which collation to
# use" on two columns of different collations ("C" and "POSIX"), on every
# row they are run on.  The data is made so that the executor runs them on
# some queries' rows and never on others': rows of moy = 3 have x2 = 3, no
# row has moy = 13, and in half the rounds the statistics still count rows
# that an UPDATE since moved (the executor reads the rows through an index
# on moy, the read through the key's B-tree).  A read that runs a failing
# qual on rows the executor never reaches must leave the keys unread, never
# fail the query (the read's order is the executor's, and the read runs in
# a subtransaction).  The queries join a fact of 60 range partitions of 100
# keys (130,000 rows) to the dimension (6,000 rows, a B-tree on its key), as
# an inner join or a semi join.
#
# Run against a server (as pg_virtualenv sets up).  PLAN_FUZZ_SEED fixes the
# draws (the seed is printed).  Ends with "plan_fuzz: P passed, F failed":
# a check per query, and one that some queries planned a skip from keys
# read at plan time (a fuzz whose reads never happen proves nothing).
set -uo pipefail

cases=${1:-300}
seed=${PLAN_FUZZ_SEED:-$RANDOM}
db=bloom_plan_fuzz
echo "plan_fuzz: seed $seed, $cases queries (PLAN_FUZZ_SEED=$seed reproduces them)"

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
trap 'psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT

out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -v seed="$seed" -v cases="$cases" 2>&1 <<'SQL'
-- (CREATE EXTENSION's advice on loading the library: not this test's)
SET client_min_messages = error;
CREATE EXTENSION bloomfilter;
SET client_min_messages = warning;
LOAD 'bloomfilter';
CREATE TABLE f (k int, v int) PARTITION BY RANGE (k);
DO $$ BEGIN FOR i IN 0..59 LOOP
  EXECUTE format('CREATE TABLE f_%s PARTITION OF f FOR VALUES FROM (%s) TO (%s)', i, i * 100, i * 100 + 100);
END LOOP; END $$;
INSERT INTO f SELECT g % 6000, g FROM generate_series(1, 130000) g;
CREATE TABLE dc (k int, moy int, x2 int, t1 text COLLATE "C", t2 text COLLATE "POSIX")
  WITH (autovacuum_enabled = off);
CREATE INDEX ON dc (k);
CREATE INDEX ON dc (moy);
ANALYZE f;

-- one draw's outcome: the rows (as text), or the error's SQLSTATE and message
CREATE FUNCTION outcome(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
BEGIN
    EXECUTE format('SELECT coalesce(string_agg(x::text, %L ORDER BY x::text), %L) FROM (%s) x',
                   ';', '', q) INTO r;
    RETURN r;
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;

-- a random leakproof qual on d, of depth at most depth
CREATE FUNCTION qual(depth int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    pick int := floor(random() * (CASE WHEN depth > 0 THEN 14 ELSE 10 END))::int;
    n int := floor(random() * 14)::int;
BEGIN
    RETURN CASE pick
        WHEN 0 THEN 'd.moy = ' || n
        WHEN 1 THEN 'd.moy IN (' || n || ', ' || floor(random() * 14)::int || ')'
        WHEN 2 THEN 'd.x2 <> ' || floor(random() * 8)::int
        WHEN 3 THEN 'd.x2 > ' || (floor(random() * 9)::int - 1)
        WHEN 4 THEN 'd.t1 <> d.t2'
        WHEN 5 THEN 'd.t1 < d.t2'
        WHEN 6 THEN 'd.t1 = ''a'''
        WHEN 7 THEN 'd.k < ' || floor(random() * 7000)::int
        WHEN 8 THEN 'd.x2 IS NOT NULL'
        WHEN 9 THEN 'd.moy = 3'
        WHEN 10 THEN '(' || qual(depth - 1) || ' OR ' || qual(depth - 1) || ')'
        WHEN 11 THEN 'NOT (' || qual(depth - 1) || ')'
        WHEN 12 THEN '(CASE WHEN ' || qual(depth - 1) || ' THEN ' || qual(depth - 1)
                     || ' ELSE ' || qual(depth - 1) || ' END)'
        ELSE '(' || qual(depth - 1) || ' AND ' || qual(depth - 1) || ')'
    END;
END $$;

-- the dimension drawn anew: rows of moy = 3 have x2 = 3; with stale, the
-- statistics are taken before an UPDATE moves rows out of some months
CREATE FUNCTION refill(stale bool) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE dc;
    INSERT INTO dc SELECT g, g % 12 + 1,
                          CASE WHEN g % 12 + 1 = 3 THEN 3 ELSE floor(random() * 8)::int END, 'a', 'b'
      FROM generate_series(0, 5999) g;
    ANALYZE dc;
    IF stale THEN
        UPDATE dc SET moy = 13 WHERE moy IN (floor(random() * 12)::int + 1, floor(random() * 12)::int + 1);
    END IF;
END $$;

-- whether q's plan (filters on) has a skip the join search planned
CREATE FUNCTION planned_skip(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line ~ 'Planned Skip' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
EXCEPTION WHEN OTHERS THEN
    RETURN false;
END $$;

CREATE TABLE results (i int, q text, off_outcome text, on_outcome text, forced_outcome text,
                      skip bool);
SELECT setseed((:seed % 32768) / 32768.0);
SET fuzz.cases = :cases;
DO $$
DECLARE
    q text;
    w text;
    off_o text;
    on_o text;
    forced_o text;
    skip bool;
BEGIN
    FOR i IN 1 .. current_setting('fuzz.cases')::int LOOP
        IF i % 25 = 1 THEN
            PERFORM refill(random() < 0.5);
        END IF;
        w := qual(2);
        FOR j IN 1 .. floor(random() * 3)::int LOOP
            w := w || ' AND ' || qual(2);
        END LOOP;
        IF random() < 0.7 THEN
            q := 'SELECT count(*), sum(f.v) FROM f JOIN dc d ON f.k = d.k WHERE ' || w;
        ELSE
            q := 'SELECT count(*), sum(f.v) FROM f WHERE f.k IN (SELECT d.k FROM dc d WHERE ' || w || ')';
        END IF;
        PERFORM set_config('bloomfilter.runtime_filter', 'off', false);
        off_o := outcome(q);
        PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
        on_o := outcome(q);
        skip := planned_skip(q);
        PERFORM set_config('bloomfilter.runtime_filter_force', 'on', false);
        forced_o := outcome(q);
        PERFORM set_config('bloomfilter.runtime_filter_force', 'off', false);
        INSERT INTO results VALUES (i, q, off_o, on_o, forced_o, skip);
    END LOOP;
END $$;
-- the failures: a query whose outcome with filters differs from without
SELECT 'plan_fuzz: FAILED: ' || q || E'\n  off:    ' || off_outcome || E'\n  on:     ' || on_outcome
       || E'\n  forced: ' || forced_outcome
  FROM results WHERE on_outcome <> off_outcome OR forced_outcome <> off_outcome ORDER BY i;
SELECT 'plan_fuzz: ' || count(*) || ' queries: ' || count(*) FILTER (WHERE off_outcome LIKE 'ERROR%')
       || ' fail with filters off too, ' || count(*) FILTER (WHERE skip) || ' planned a skip'
  FROM results;
SELECT 'counts ' || count(*) FILTER (WHERE on_outcome = off_outcome AND forced_outcome = off_outcome)
       || ' ' || count(*) FILTER (WHERE on_outcome <> off_outcome OR forced_outcome <> off_outcome)
       || ' ' || count(*) FILTER (WHERE skip)
  FROM results;
SQL
)
status=$?
echo "$out" | grep -v '^counts '
if [ $status -ne 0 ]; then
	echo "plan_fuzz: FAILED: the run stopped"
	echo "plan_fuzz: 0 passed, 1 failed"
	exit 1
fi
read -r same different skipped <<<"$(echo "$out" | sed -n 's/^counts //p')"
failed=$different
passed=$same
# a fuzz whose reads never happen proves nothing
if [ "${skipped:-0}" -gt 0 ]; then
	passed=$((passed + 1))
else
	echo "plan_fuzz: FAILED: no query planned a skip"
	failed=$((failed + 1))
fi
echo "plan_fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
