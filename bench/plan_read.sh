#!/usr/bin/env bash
# bench/plan_read.sh [BASE]: what the plan-time read of a dimension's keys
# costs the planner now that it runs in a subtransaction, its quals in the
# executor's order (issue 49, src/runtime/paths/keyprobe.c), against BASE's
# library (default 9faba44, before), side by side on one server.
#
# Both libraries are built from clean checkouts (git worktrees, no
# assertions) for PostgreSQL 15; each session LOADs one of them by its path
# (the planner's hooks are all a plan needs; no SQL function of the
# extension is called), so both serve one server and one data set:
#   f   130,000 rows in 60 range partitions of 100 keys (the fact)
#   dc  6,000 rows, a B-tree on its key k, moy = k % 12 + 1
# and three queries, each a join of f to dc:
#   read      moy = 3: the statistics cannot place the keys; the planner
#             reads dc's 6,000 rows through the B-tree at plan time
#   no_read   k < 600: the statistics place the keys; nothing is read
#   fails     t1 <> t2 AND moy = 3 (t1, t2 of collations "C" and "POSIX"):
#             the read fails on its first row (this tree: rolled back, no
#             read; BASE: the query fails, so BASE has no time for it)
# Each round plans each query ROUNDS_PLANS times (200) in one session per
# library, the libraries alternating which goes first; 7 rounds; the
# planning time EXPLAIN (SUMMARY) reports, summed per round; medians, and
# this tree's over BASE's.  Writes bench/results/plan_read.txt.  Run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-9faba44}
plans=${ROUNDS_PLANS:-200}
rounds=7
bin=/usr/lib/postgresql/15/bin
work=$(mktemp -d /tmp/bloom-plan-read.XXXXXX)
chmod a+rx "$work"
cleanup() {
	git worktree remove --force "$work/base" 2>/dev/null || true
	git worktree remove --force "$work/head" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
out=bench/results/plan_read.txt
head=$(git rev-parse --short HEAD)
base=$(git rev-parse --short "$base")
for lib in base head; do
	rev=$base
	[ "$lib" = head ] && rev=$head
	git worktree add -f -q --detach "$work/$lib" "$rev"
	make -s -C "$work/$lib" PG_CONFIG="$bin/pg_config" -j2 >/dev/null
	cp "$work/$lib/bloomfilter.so" "$work/$lib.so"
	chmod a+r "$work/$lib.so"
done

run() {
	pg_virtualenv -v 15 -t -o jit=off -o max_parallel_workers_per_gather=0 bash -s <<SH
set -euo pipefail
sql() { psql -X -q -At -v ON_ERROR_STOP=1 "\$@"; }
sql <<'SQL'
CREATE TABLE f (k int, v int) PARTITION BY RANGE (k);
SELECT format('CREATE TABLE f_%s PARTITION OF f FOR VALUES FROM (%s) TO (%s)', i, i * 100, i * 100 + 100)
  FROM generate_series(0, 59) i \gexec
INSERT INTO f SELECT g % 6000, g FROM generate_series(1, 130000) g;
CREATE TABLE dc (k int, moy int, t1 text COLLATE "C", t2 text COLLATE "POSIX");
INSERT INTO dc SELECT g, g % 12 + 1, 'a', 'b' FROM generate_series(0, 5999) g;
CREATE INDEX ON dc (k);
VACUUM ANALYZE f, dc;
-- the planning time of q, summed over n plans
CREATE FUNCTION planning_ms(q text, n int) RETURNS numeric LANGUAGE plpgsql AS \$\$
DECLARE
    total numeric := 0;
    line text;
BEGIN
    FOR i IN 1 .. n LOOP
        FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, SUMMARY) ' || q LOOP
            IF line ~ '^Planning Time' THEN
                total := total + substring(line FROM '([0-9.]+) ms')::numeric;
            END IF;
        END LOOP;
    END LOOP;
    RETURN round(total, 1);
EXCEPTION WHEN OTHERS THEN
    RETURN NULL;
END \$\$;
SQL
declare -A q=(
	[read]="SELECT count(*) FROM f JOIN dc d ON f.k = d.k WHERE d.moy = 3"
	[no_read]="SELECT count(*) FROM f JOIN dc d ON f.k = d.k WHERE d.k < 600"
	[fails]="SELECT count(*) FROM f JOIN dc d ON f.k = d.k WHERE d.t1 <> d.t2 AND d.moy = 3"
)
# what each library plans (the read's skip, or not), once
for lib in base head; do
	for name in read no_read fails; do
		echo "plan \$lib \$name: \$(sql -c "LOAD '$work/\$lib.so'" -c "SET client_min_messages = error" \
			-c "EXPLAIN (COSTS OFF) \${q[\$name]}" 2>&1 | grep -o 'Planned Skip: .*\|ERROR: .*' | head -n 1)"
	done
done
for round in \$(seq 1 $rounds); do
	order="base head"
	[ \$((round % 2)) = 0 ] && order="head base"
	for lib in \$order; do
		for name in read no_read fails; do
			echo "time \$round \$lib \$name \$(sql -c "LOAD '$work/\$lib.so'" -c "SET client_min_messages = error" \
				-c "SELECT planning_ms('\${q[\$name]}', $plans)" | tail -n 1)"
		done
	done
done
SH
}

{
	echo "bench/plan_read.sh: $head against $base, PostgreSQL 15, $rounds rounds of $plans plans each, $(date -u +%F)"
	run 2>/dev/null | grep '^\(plan\|time\) ' | tee "$work/raw"
	echo
	echo "query     base ms/plan  head ms/plan  head/base   (medians of $rounds rounds)"
	for name in read no_read fails; do
		b=$(awk -v n="$name" '$1 == "time" && $3 == "base" && $4 == n && $5 != "" {print $5}' "$work/raw" | sort -n |
			awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print ""}')
		h=$(awk -v n="$name" '$1 == "time" && $3 == "head" && $4 == n && $5 != "" {print $5}' "$work/raw" | sort -n |
			awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print ""}')
		awk -v n="$name" -v b="$b" -v h="$h" -v p="$plans" 'BEGIN {
			printf "%-9s %12s  %12s  %9s\n", n, (b == "" ? "(fails)" : sprintf("%.3f", b / p)),
			       (h == "" ? "(fails)" : sprintf("%.3f", h / p)),
			       (b == "" || h == "" ? "-" : sprintf("%.3f", h / b)) }'
	done
} | tee "$out"
