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
# (tests/runtime/parallel_fuzz/: data.sql, draw.sql, run.sql)
sqldir=$(dirname "$0")/parallel_fuzz
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -f "$sqldir/data.sql" -f "$sqldir/draw.sql" \
	-f "$sqldir/run.sql" 2>&1) || stopped "$out"

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
