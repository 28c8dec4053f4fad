#!/usr/bin/env bash
# tests/index/harness.sh: a randomized check-then-insert harness for the
# bloomfilter index: "insert the key if the filter says it is absent", done
# every way a filter is read while it is written, each compared with EXISTS
# on the same data.  Any key that EXISTS sees and the filter calls absent
# fails the run.
#
# Each round draws a way, an order of keys and a table (plain or
# partitioned), and inserts a batch of keys, with duplicates, only where the
# filter says absent:
#   function  a volatile function in the INSERT's WHERE (its fresh snapshot
#             sees the INSERT's earlier rows under one command id);
#   trigger   a BEFORE INSERT row trigger that drops a row whose key is seen;
#   loop      a plpgsql loop, one INSERT per key, in one transaction whose
#             call sites live across a REINDEX or a TRUNCATE in place (the
#             second in the transaction) between its two halves;
#   serial    two SERIALIZABLE sessions at once over the same keys, a
#             transaction per key (one failing with 40001 is not retried),
#             asking the filter alone: EXISTS would take the table's
#             predicate lock itself;
# every other check also asks EXISTS first, and logs a key EXISTS sees that
# the filter calls absent (a false negative).  Meanwhile another session
# commits keys of its own, and adds some of the batch's keys in transactions
# it rolls back (their bits set by a transaction the checks cannot see, so
# that the harness's own add of such a key sets none), and a third rebuilds
# the table's filter again and again (1.12: bloom_index_rebuild, VACUUM,
# and rebuilds cancelled by a statement_timeout of a few milliseconds,
# mid-scan or mid-merge), so that every way reads and writes while a
# rebuild's layer is filled and switched in.  The indexes start
# small (capacity 500), so layers grow during the rounds.  Between rounds,
# one of: TRUNCATE (in place, in the transaction that truncates twice),
# REINDEX, REINDEX CONCURRENTLY, a partition detached, a large insert
# cancelled by its statement_timeout (maybe while a layer is written), or
# nothing; and, on the partitioned table, a partition is attached from
# another session while a loop runs.
# Then three rounds of text keys under a nondeterministic collation (the
# collation case; below).  After each round: no duplicate key (a duplicate is a false negative of the
# check that let it in), no false negative logged, no key of the table that
# bloom_index_contains calls absent, and most keys never inserted absent (a
# filter that says "maybe" to everything would pass the rest).
#
# Run against a server (as pg_virtualenv sets up):
#   bash tests/index/harness.sh [ROUNDS [KEYS]]     (default 24 rounds of 3000 keys)
# HARNESS_SEED fixes the draws (the seed is printed); HARNESS_WAYS picks
# among the ways (default "function trigger loop serial").  Ends with
# "harness: P passed, F failed", a check per round and per final check.
set -uo pipefail

rounds=${1:-24}
nkeys=${2:-3000}
seed=${HARNESS_SEED:-$RANDOM}
RANDOM=$seed
db=bloom_harness
passed=0
failed=0
echo "harness: seed $seed, $rounds rounds of $nkeys keys (HARNESS_SEED=$seed reproduces the draws)"

q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }

check() {
	local what=$1 expected=$2 got=$3
	if [ "$got" = "$expected" ]; then
		passed=$((passed + 1))
	else
		echo "harness: FAILED: $what: expected '$expected', got '$got'"
		failed=$((failed + 1))
	fi
}

work=$(mktemp -d)
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
trap 'jobs -p | xargs -r kill 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1' EXIT

q <<'SQL'
CREATE EXTENSION bloomfilter;
-- the plain table and the partitioned one (three partitions by range of k,
-- a fourth attached and detached between rounds)
CREATE TABLE plain (k int8);
CREATE INDEX plain_k ON plain USING bloomfilter (k) WITH (capacity = 500);
CREATE TABLE parted (k int8) PARTITION BY RANGE (k);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (MINVALUE) TO (3000000);
CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (3000000) TO (6000000);
CREATE TABLE parted_3 PARTITION OF parted FOR VALUES FROM (6000000) TO (9000000);
CREATE INDEX parted_k ON parted USING bloomfilter (k) WITH (capacity = 500);
-- (holds keys of its own, which batches ask about while it is attached)
CREATE TABLE parted_4 (k int8);
INSERT INTO parted_4 SELECT 9000000 + g FROM generate_series(1, 300) g;
-- false negatives seen by a check: EXISTS saw the key, the filter did not
CREATE TABLE false_negatives (tbl text, k int8, way text);
-- the keys of a round, in its order
CREATE TABLE batch (i int, k int8);

-- seen(tbl, k, way): whether tbl may hold k, by the filter of its index; a
-- key EXISTS sees that the filter calls absent is logged.  The index is
-- named through a variable, so the call site lives as long as the
-- function's expression does (a constant would tie it to the index's plan).
-- With ask_exists false, the filter alone is asked: EXISTS takes SERIALIZABLE's
-- predicate lock on the table itself, which would hide a reader that took none.
CREATE FUNCTION seen(tbl text, k int8, way text, ask_exists bool DEFAULT true) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
  idx text := tbl || '_k';
  present bool := false;
  held bool;
BEGIN
  IF ask_exists THEN
    EXECUTE format('SELECT EXISTS (SELECT FROM %I WHERE k = $1)', tbl) INTO present USING k;
  END IF;
  held := bloom_index_contains(idx::regclass, k);
  IF present AND NOT held THEN
    INSERT INTO false_negatives VALUES (tbl, k, way);
  END IF;
  RETURN held;
END$$;

-- the trigger: a row whose key the filter holds is not inserted (its
-- argument: the table whose index to ask, a partition's being its parent's)
CREATE FUNCTION drop_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF seen(TG_ARGV[0], NEW.k, 'trigger') THEN RETURN NULL; END IF;
  RETURN NEW;
END$$;

-- the loop: one INSERT per key, in the batch's order; before the first of
-- parted_4's keys it waits for advisory lock 7, which the session that
-- attaches parted_4 holds until it has
CREATE FUNCTION insert_loop(tbl text, lo int, hi int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r record;
  waited bool := false;
BEGIN
  FOR r IN SELECT k FROM batch WHERE i BETWEEN lo AND hi ORDER BY i LOOP
    IF r.k > 9000000 AND NOT waited THEN
      PERFORM pg_advisory_lock(7);
      PERFORM pg_advisory_unlock(7);
      waited := true;
    END IF;
    IF NOT seen(tbl, r.k, 'loop') THEN
      EXECUTE format('INSERT INTO %I VALUES ($1)', tbl) USING r.k;
    END IF;
  END LOOP;
END$$;
SQL

# batch_sql KEYS ORDER BASE EXTRA: the SQL of a batch of KEYS keys (KEYS at
# most 4,999) in ORDER random, sorted or runs: a third from BASE up, each
# asked about three times or more; a third from earlier rounds' ranges (below
# BASE: some held, some never inserted); a third new (BASE + 5000 up); with
# EXTRA 1, also parted_4's keys, last
batch_sql() {
	local n=$1 order=$2 base=$3 extra=$4 by
	case "$order" in
	random) by="md5(g::text)" ;;
	sorted) by="g" ;;
	runs) by="(g / 50) % 7, g" ;;
	esac
	echo "TRUNCATE batch;
INSERT INTO batch SELECT row_number() OVER (ORDER BY $by), k FROM (
  SELECT g, CASE WHEN g % 3 = 0 THEN $base + g % ($n / 10 + 1)
                 WHEN g % 3 = 1 THEN (g * 7919) % $base
                 ELSE $base + 5000 + g END AS k
  FROM generate_series(1, $n) g
  UNION ALL SELECT $n + g, 9000000 + g FROM generate_series(1, 300 * $extra) g) s;"
}

# the other session, until stopped: in turn commits a key of its own (from
# 8,500,000 up: none of the batches'), and adds five of the batch's keys in
# a transaction it holds open for a moment and rolls back (their bits are set
# then, by a transaction the harness's session cannot see: its own add of
# such a key later sets no bit)
writer() {
	local tbl=$1 i=0
	while :; do
		i=$((i + 1))
		if [ $((i % 2)) = 0 ]; then
			q -c "INSERT INTO $tbl VALUES ($((8500000 + RANDOM % 400000)))" >/dev/null 2>&1 || true
		else
			q -c "BEGIN; INSERT INTO $tbl SELECT k FROM batch WHERE k < 9000000 ORDER BY random() LIMIT 5;
			      SELECT pg_sleep(0.05); ROLLBACK;" >/dev/null 2>&1 || true
		fi
		sleep 0.02
	done
}

# the third session, until stopped: rebuilds of tbl's filter, some cancelled
rebuilder() {
	local tbl=$1
	while :; do
		case $((RANDOM % 3)) in
		0) q -c "SELECT bloom_index_rebuild('${tbl}_k')" ;;
		1) q -c "VACUUM $tbl" ;;
		2) q -c "SET statement_timeout = '$((RANDOM % 20 + 1))ms'" -c "SELECT bloom_index_rebuild('${tbl}_k')" ;;
		esac >>"$work/rebuilt" 2>>"$work/rebuild_errors"
		sleep 0.05
	done
}

most_layers=0
for round in $(seq 1 "$rounds"); do
	read -r -a ways <<<"${HARNESS_WAYS:-function trigger loop serial}"
	way=${ways[$((RANDOM % ${#ways[@]}))]}
	orders=(random sorted runs)
	order=${orders[$((RANDOM % 3))]}
	tbl=plain
	[ $((RANDOM % 2)) = 0 ] && tbl=parted
	base=$((round * 10000))
	attached=$(q -c "SELECT count(*) FROM pg_inherits WHERE inhrelid = 'parted_4'::regclass")
	attach_now=0
	[ "$tbl" = parted ] && [ "$way" = loop ] && [ "$attached" = 0 ] && attach_now=1
	extra=0
	[ "$tbl" = plain ] || [ "$attached" = 1 ] || [ "$attach_now" = 1 ] && extra=1
	q -c "$(batch_sql "$nkeys" "$order" "$base" "$extra")" >/dev/null

	errors=$work/errors_$round
	[ "$way" = trigger ] &&
		q -c "CREATE TRIGGER drop_seen BEFORE INSERT ON $tbl FOR EACH ROW EXECUTE FUNCTION drop_seen('$tbl')"
	writer "$tbl" &
	wpid=$!
	rebuilder "$tbl" &
	rpid=$!
	case "$way" in
	function)
		# (the check above the sort, so that it runs row by row with the inserts)
		q -c "INSERT INTO $tbl SELECT k FROM (SELECT k FROM batch ORDER BY i OFFSET 0) b
		      WHERE NOT seen('$tbl', k, 'function')" >/dev/null 2>>"$errors"
		;;
	trigger)
		q -c "INSERT INTO $tbl SELECT k FROM batch ORDER BY i" >/dev/null 2>>"$errors"
		;;
	loop)
		apid=""
		if [ "$attach_now" = 1 ]; then
			# a partition attached by another session while the loop runs; the
			# batch asks about its keys last
			q -c "SELECT pg_advisory_lock(7)" -c "SELECT pg_sleep(0.2)" \
				-c "ALTER TABLE parted ATTACH PARTITION parted_4 FOR VALUES FROM (9000000) TO (MAXVALUE)" \
				-c "SELECT pg_advisory_unlock(7)" >/dev/null 2>>"$errors" &
			apid=$!
			for _ in $(seq 1 100); do
				[ "$(q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7 AND granted")" = 1 ] && break
				sleep 0.01
			done
		fi
		# in one transaction, the loop's call sites living on: the first half,
		# maybe REINDEX (a new file) or TRUNCATE twice (the second in place),
		# then the rest (none of that beside an ATTACH, which it would block)
		half=$((nkeys / 2))
		mid=""
		if [ -z "$apid" ]; then
			case $((RANDOM % 3)) in
			0) [ "$tbl" = plain ] && mid="REINDEX INDEX plain_k;" ;;
			1) mid="TRUNCATE $tbl; INSERT INTO $tbl VALUES (1); TRUNCATE $tbl;" ;;
			esac
		fi
		[ -z "$mid" ] || echo "round $round: mid-loop: $mid"
		q -c "BEGIN; SELECT insert_loop('$tbl', -1000000, $half); $mid
		      SELECT insert_loop('$tbl', $half + 1, 1000000); COMMIT;" >/dev/null 2>>"$errors"
		[ -z "$apid" ] || wait "$apid"
		;;
	serial)
		# two sessions ask about the same keys in the same order, each key
		# checked and inserted in a SERIALIZABLE transaction of its own (one
		# that fails with 40001 is not retried: the check is about keys
		# inserted twice, not about every key)
		for s in 0 1; do
			q -c "SELECT k FROM batch ORDER BY i LIMIT 1000" | while read -r k; do
				echo "BEGIN ISOLATION LEVEL SERIALIZABLE;"
				echo "DO \$\$BEGIN IF NOT seen('$tbl', $k, 'serial', false) THEN INSERT INTO $tbl VALUES ($k); END IF; END\$\$;"
				echo "COMMIT;"
			done >"$work/serial_$s.sql"
		done
		psql -X -q -d "$db" -f "$work/serial_0.sql" >/dev/null 2>>"$errors" &
		s0=$!
		psql -X -q -d "$db" -f "$work/serial_1.sql" >/dev/null 2>>"$errors"
		wait "$s0"
		;;
	esac
	kill "$wpid" "$rpid" 2>/dev/null
	wait "$wpid" "$rpid" 2>/dev/null
	[ "$way" = trigger ] && q -c "DROP TRIGGER drop_seen ON $tbl"

	# the work itself ran: SERIALIZABLE's 40001, a deadlock of the ATTACH with
	# the loop's inserts, and what follows them in a script are expected
	check "round $round ($way, $order, $tbl): no other error" "" \
		"$(grep '^\(psql:[^ ]* \)\?ERROR:' "$errors" 2>/dev/null |
			grep -v -e 'could not serialize access' -e 'deadlock detected' \
				-e 'current transaction is aborted' | head -n 3)"

	check "round $round ($way, $order, $tbl): no key inserted twice" 0 \
		"$(q -c "SELECT count(*) - count(DISTINCT k) FROM $tbl WHERE k NOT BETWEEN 8500000 AND 8999999")"
	q -c "SELECT 'harness: round $round: key ' || k || ' held ' || count(*) || ' times' FROM $tbl
	      WHERE k NOT BETWEEN 8500000 AND 8999999 GROUP BY k HAVING count(*) > 1 LIMIT 5"
	check "round $round ($way, $order, $tbl): no false negative seen by a check" 0 \
		"$(q -c "SELECT count(*) FROM false_negatives")"
	check "round $round ($way, $order, $tbl): every key of the table in its filter" 0 \
		"$(q -c "SELECT count(*) FROM $tbl WHERE NOT bloom_index_contains('${tbl}_k', k)")"
	# (and the filter is no filter that says "maybe" to everything: keys never
	# inserted are mostly absent)
	check "round $round ($way, $order, $tbl): keys never inserted mostly absent" t \
		"$(q -c "SELECT count(*) FILTER (WHERE bloom_index_contains('${tbl}_k', -g::int8)) < 500 FROM generate_series(1, 2000) g")"
	q -c "TRUNCATE false_negatives" >/dev/null
	layers=$(q -c "SELECT layers FROM bloom_index_info('plain_k')")
	[ "$layers" -gt "$most_layers" ] && most_layers=$layers

	# between rounds
	case $((RANDOM % 7)) in
	0) q -c "BEGIN; TRUNCATE $tbl; INSERT INTO $tbl VALUES (1); TRUNCATE $tbl; COMMIT;" >/dev/null ;;
	1) q -c "REINDEX INDEX ${tbl}_k" >/dev/null ;;
	2) q -c "REINDEX INDEX CONCURRENTLY ${tbl}_k" >/dev/null 2>&1 || q -c "REINDEX INDEX ${tbl}_k" >/dev/null ;;
	3) q -c "SELECT count(*) FROM pg_inherits WHERE inhrelid = 'parted_4'::regclass" | grep -q 1 &&
		q -c "ALTER TABLE parted DETACH PARTITION parted_4" >/dev/null ;;
	4) # a large insert cancelled by its timeout, maybe while a layer is written
		q -c "SET statement_timeout = '30ms'" \
			-c "INSERT INTO $tbl SELECT 7000000 + g FROM generate_series(1, 300000) g" >/dev/null 2>&1 ;;
	*) ;;
	esac
done

# Where no drawn round grew a layer (a first layer takes some 7,000 keys
# whatever the capacity asked, and the draws' REINDEX and TRUNCATE between
# rounds may keep the index below that: seed 18003), one more round grows
# it, by the function way, so that readers are always checked on a layered
# index.  Its keys (from 20,000,000) are none of the batches'.
if [ "$most_layers" -le 1 ]; then
	echo "round $((rounds + 1)): no drawn round grew a layer: 20,000 keys more into plain, by the function way"
	q -c "TRUNCATE false_negatives" \
		-c "INSERT INTO plain SELECT k FROM (SELECT 20000000 + g AS k FROM generate_series(1, 20000) g OFFSET 0) b
		    WHERE NOT seen('plain', k, 'function')" >/dev/null
	check "round $((rounds + 1)) (function, growth, plain): no false negative seen by a check" 0 \
		"$(q -c "SELECT count(*) FROM false_negatives")"
	check "round $((rounds + 1)) (function, growth, plain): every key of the table in its filter" 0 \
		"$(q -c "SELECT count(*) FROM plain WHERE NOT bloom_index_contains('plain_k', k)")"
	most_layers=$(q -c "SELECT layers FROM bloom_index_info('plain_k')")
fi

# The collation case (1.12): a text column under a case-insensitive
# collation.  An index hashing under "C" would call 'ALICE' absent where
# WHERE name = 'ALICE' finds 'alice': CREATE INDEX refuses it, as a column
# and as an expression.  The column's own indexes, a column and an
# expression ((name || '')), take keys drawn in random case from a small
# pool, inserted only where the filter says absent; EXISTS under the
# column's collation is asked first, and no key may be held twice under it.
q <<'SQL'
CREATE COLLATION harness_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE names (name text COLLATE harness_ci);
CREATE INDEX names_k ON names USING bloomfilter (name) WITH (capacity = 500);
CREATE INDEX names_e ON names USING bloomfilter ((name || '')) WITH (capacity = 500);
CREATE TABLE names_false_negatives (name text, idx text);
CREATE FUNCTION name_seen(k text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE
  present bool := EXISTS (SELECT FROM names WHERE name = k);
  by_column bool := bloom_index_contains('names_k'::regclass, k);
  by_expression bool := bloom_index_contains('names_e'::regclass, k);
BEGIN
  IF present AND NOT by_column THEN INSERT INTO names_false_negatives VALUES (k, 'names_k'); END IF;
  IF present AND NOT by_expression THEN INSERT INTO names_false_negatives VALUES (k, 'names_e'); END IF;
  RETURN by_column AND by_expression;
END$$;
SQL
for expr in 'name COLLATE "C"' '(name COLLATE "C")'; do
	check "collation: CREATE INDEX ... ($expr) on a case-insensitive column refused" 42P21 \
		"$(psql -X -q -At -d "$db" -c "\set VERBOSITY sqlstate" \
			-c "CREATE INDEX names_c ON names USING bloomfilter ($expr)" 2>&1 | sed 's/^ERROR: *//')"
done
for round in 1 2 3; do
	q -c "INSERT INTO names SELECT k FROM (SELECT CASE WHEN random() < 0.5 THEN upper(w) ELSE w END AS k
	        FROM (SELECT 'name' || (random() * $((nkeys / 3)))::int AS w FROM generate_series(1, $nkeys)) s
	        OFFSET 0) b WHERE NOT name_seen(k)" >/dev/null
	check "collation round $round: no key held twice under the column's collation" 0 \
		"$(q -c "SELECT count(*) - count(DISTINCT name) FROM names")"
	check "collation round $round: no false negative seen by a check" 0 \
		"$(q -c "SELECT count(*) FROM names_false_negatives")"
	check "collation round $round: every key, in either case, in both filters" 0 \
		"$(q -c "SELECT count(*) FROM names WHERE NOT (bloom_index_contains('names_k', upper(name))
		         AND bloom_index_contains('names_e', lower(name)))")"
done

# the rebuilds ran, and failed only as they may: cancelled by their timeout,
# or a deadlock with a loop's REINDEX or TRUNCATE (which the detector breaks)
# (counted from bloom_index_rebuild's answers: REINDEX and TRUNCATE between
# rounds start the index's own count again)
check "rebuilds ran during the rounds" t "$([ "$(grep -c '^t$' "$work/rebuilt" 2>/dev/null)" -gt 0 ] && echo t || echo f)"
echo "harness: $(grep -c '^t$' "$work/rebuilt" 2>/dev/null) rebuilds by bloom_index_rebuild, besides VACUUM's"
check "rebuilds failed only by their timeout or a deadlock" "" \
	"$(grep 'ERROR:' "$work/rebuild_errors" 2>/dev/null |
		grep -v -e 'canceling statement due to statement timeout' -e 'deadlock detected' | head -n 3)"
echo "harness: $(grep -c 'statement timeout' "$work/rebuild_errors" 2>/dev/null) rebuilds cancelled by their timeout"

# a last look: every key of both tables in its filter, the layers grown
check "the plain table's index grew layers in some round" t "$([ "$most_layers" -gt 1 ] && echo t || echo f)"
check "bloom_index_verify on the plain table" 0 "$(q -c "SELECT keys_missing FROM bloom_index_verify('plain_k')")"
check "bloom_index_verify on the partitioned table" 0 "$(q -c "SELECT keys_missing FROM bloom_index_verify('parted_k')")"
echo "harness: $(q -c "SELECT count(*) FROM plain") + $(q -c "SELECT count(*) FROM parted") rows at the end"
echo "harness: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
