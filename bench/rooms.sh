#!/usr/bin/env bash
# bench/rooms.sh [BASE]: the runtime filters of this tree's library against
# BASE's (by default 9b81781, the 1.10 release), side by side on one server
# (issue 40: splitting src/runtime/ into sub-rooms must change no speed).
#
# Both libraries are built from clean checkouts (git worktrees, no
# assertions) for PostgreSQL 15 and swapped into the server's libdir, the
# server restarted at each swap; the SQL objects are this tree's (1.11 adds
# none, so either library serves them).  On one data set (a 4,000,000-row
# probe side):
#   semijoin     4,000,000 probe rows IN 400,000 build keys, 10 % matching:
#                the probe filters rows
#   small        the same rows IN 4,000 keys: a hash table in the CPU cache
#                (the cost model plans no filter: the planner's part alone)
#   misled       a build side the planner underestimates, every row matching
#                (at this size no filter is planned either)
#   parallel     semijoin with 2 workers: a Parallel Hash Join's shared filter
#   partitions   a 16-partition fact table joined to keys in 2 partitions
#                (partition scans skipped)
#   brin         a table in key order with a BRIN index, keys in 2 % of its
#                range (block ranges read)
#   btree        a table with a B-tree, 200 keys (their rows read through it;
#                nested loops and merge joins off, as a nested loop wins here)
#   index        the build side read whole with a bloomfilter index on the
#                key (the filter taken from the index)
# each query's time, the libraries alternating, 7 rounds (BASE first in odd
# rounds, this tree's first in even ones), medians, and this tree's over
# BASE's; every answer compared between the two.  Then the instructions of
# each query's ExecutorRun (valgrind's callgrind, a single-user backend: one
# process, no workers; counts, not seconds, the same on a loaded machine),
# per probe-side row, on a data set a tenth the size, the dynamic linker
# binding every symbol at load (LD_BIND_NOW: a function's first call is
# bound once a backend, which would count here as part of the rows).
# Last, the benchmarks of the runtime filters (ROOMS_SQL, by default
# bench/runtime.sql, skip.sql and index_runtime.sql), each run once under
# each library, the order alternating from one to the next, on the same
# server; their outputs in bench/results/rooms/NAME-{base,head}.txt, and
# their summary tables side by side.  ROOMS_SQL= skips them.
# Run as root; writes bench/results/rooms.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-9b81781}
version=15
bin=/usr/lib/postgresql/$version/bin
libdir=$("$bin/pg_config" --pkglibdir)
port=56600
work=$(mktemp -d /tmp/bloom-rooms-bench.XXXXXX)
chown postgres "$work"
as_pg() { su postgres -s /bin/bash -c "$*"; }
cleanup() {
	as_pg "$bin/pg_ctl -D $work/data -m immediate stop >/dev/null 2>&1" || true
	[ -f "$work/lib.head.so" ] && cp "$work/lib.head.so" "$libdir/bloomfilter.so"
	git worktree remove --force "$work/base" 2>/dev/null || true
	git worktree remove --force "$work/head" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# ---- the two libraries, and this tree's SQL objects ----
head=$(git rev-parse --short HEAD)
base=$(git rev-parse --short "$base")
for lib in base head; do
	rev=$base
	[ "$lib" = head ] && rev=$head
	git worktree add -f -q --detach "$work/$lib" "$rev"
	make -s -C "$work/$lib" PG_CONFIG="$bin/pg_config" -j2 >/dev/null
	cp "$work/$lib/bloomfilter.so" "$work/lib.$lib.so"
done
make -s -C "$work/head" PG_CONFIG="$bin/pg_config" install >/dev/null
use() { cp "$work/lib.$1.so" "$libdir/bloomfilter.so"; }

as_pg "$bin/initdb -D $work/data -A trust >/dev/null"
cat >>"$work/data/postgresql.conf" <<CONF
port = $port
unix_socket_directories = '$work'
listen_addresses = 'localhost'
shared_buffers = 2GB
jit = off
work_mem = 512MB
shared_preload_libraries = 'bloomfilter'
autovacuum = off
max_wal_size = 8GB
CONF
start() { as_pg "$bin/pg_ctl -D $work/data -l $work/log -w start >/dev/null"; }
stop() { as_pg "$bin/pg_ctl -D $work/data -w stop >/dev/null"; }
# (PGPASSWORD: skip.sql's loopback user mapping names one; the server trusts)
export PGHOST=$work PGPORT=$port PGUSER=postgres PGDATABASE=postgres PGPASSWORD=unused
sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# ---- the data: scale 10 for the timings, 1 for the counts ----
use head
start
sql -c "CREATE EXTENSION bloomfilter;"
for scale in 10 1; do
	sql <<SQL
CREATE TABLE r${scale}_probe AS
  SELECT CASE WHEN (g * 2654435761 % 1000003) < 100000 THEN 1 + g % ($scale * 40000) ELSE -g END::int8 AS k, g AS payload
    FROM generate_series(1, $scale * 400000) g;
CREATE TABLE r${scale}_build AS SELECT g::int8 AS k FROM generate_series(1, $scale * 40000) g;
CREATE TABLE r${scale}_build_small AS SELECT g::int8 * 100 AS k FROM generate_series(1, $scale * 400) g;
CREATE TABLE r${scale}_guess AS SELECT g::int8 AS k, g % 100 AS region FROM generate_series(1, $scale * 40000) g;
CREATE TABLE r${scale}_fact (k int8, payload int) PARTITION BY RANGE (k);
SELECT format('CREATE TABLE r${scale}_fact_%s PARTITION OF r${scale}_fact FOR VALUES FROM (%s) TO (%s)',
              p, p * $scale * 25000, (p + 1) * $scale * 25000)
  FROM generate_series(0, 15) p \gexec
INSERT INTO r${scale}_fact SELECT g % ($scale * 400000), g FROM generate_series(1, $scale * 400000) g;
CREATE TABLE r${scale}_keys2 AS SELECT (g * 97) % ($scale * 50000) AS k FROM generate_series(1, $scale * 2000) g;
CREATE TABLE r${scale}_ordered AS SELECT g::int8 AS k, g AS payload FROM generate_series(1, $scale * 400000) g;
CREATE INDEX ON r${scale}_ordered USING brin (k) WITH (pages_per_range = 16);
CREATE TABLE r${scale}_narrow AS SELECT ($scale * 200000 + g)::int8 AS k FROM generate_series(1, $scale * 8000) g;
CREATE TABLE r${scale}_indexed AS SELECT g::int8 AS k, g AS payload FROM generate_series(1, $scale * 400000) g;
CREATE INDEX ON r${scale}_indexed (k);
CREATE TABLE r${scale}_few AS SELECT (g * 1999)::int8 AS k FROM generate_series(1, 200) g;
CREATE TABLE r${scale}_build_ix AS SELECT g::int8 AS k FROM generate_series(1, $scale * 40000) g;
CREATE INDEX ON r${scale}_build_ix USING bloomfilter (k);
VACUUM ANALYZE;
SQL
done

query() {
	local s=$1
	case $2 in
	semijoin | parallel) echo "SELECT count(*) FROM r${s}_probe WHERE k IN (SELECT k FROM r${s}_build)" ;;
	small) echo "SELECT count(*) FROM r${s}_probe WHERE k IN (SELECT k FROM r${s}_build_small)" ;;
	misled) echo "SELECT count(*), sum(p.payload) FROM r${s}_probe p JOIN r${s}_guess g ON p.k = g.k WHERE (g.region < 1000) = (g.k > 0)" ;;
	partitions) echo "SELECT count(*), sum(f.payload) FROM r${s}_fact f JOIN r${s}_keys2 k ON f.k = k.k" ;;
	brin) echo "SELECT count(*), sum(o.payload) FROM r${s}_ordered o JOIN r${s}_narrow n ON o.k = n.k" ;;
	btree) echo "SELECT count(*), sum(i.payload) FROM r${s}_indexed i JOIN r${s}_few f ON i.k = f.k" ;;
	index) echo "SELECT count(*) FROM r${s}_probe WHERE k IN (SELECT k FROM r${s}_build_ix)" ;;
	esac
}
settings() {
	case $1 in
	parallel) echo "SET max_parallel_workers_per_gather = 2;" ;;
	# a hash join, whose outer Seq Scan becomes a BloomFilterScan (a nested loop would win here)
	btree) echo "SET max_parallel_workers_per_gather = 0; SET enable_nestloop = off; SET enable_mergejoin = off;" ;;
	*) echo "SET max_parallel_workers_per_gather = 0;" ;;
	esac
}
# the probe side's rows of every query, for the counts
rows_of() { echo $(($1 * 400000)); }
names="semijoin small misled parallel partitions brin btree index"

{
	echo "== bench/rooms.sh: runtime filters, the library of $head (this tree) against $base's, PostgreSQL $($bin/postgres --version | awk '{print $3}'), $(date -u +%Y-%m-%d)"
	echo
	echo "== the plans (this tree's library), EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF): the nodes of ours each query uses"
	for name in $names; do
		printf '%s\n%s\n' "$(settings "$name")" "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) $(query 10 "$name");" >"$work/plan.sql"
		echo "   $name: $(sql -f "$work/plan.sql" | grep -o 'BloomFilter[A-Za-z]*\|Partition Scans Skipped: [0-9 of]*\|Heap Blocks Read: [0-9 of]*\|Read Through B-tree: [0-9a-z ]*\|Filter Source: [a-z_0-9 ]*\|Filter Disabled: [a-z (),.0-9]*\|Pauses: [0-9]*' | sort | uniq -c | awk '{$1=$1; print}' | paste -sd ';' -)"
	done
	echo
	echo "== time, ms: medians of 7 rounds, the libraries alternating (each a restarted server, the library preloaded); answers compared"
	declare -A ms=() answer=()
	for round in 1 2 3 4 5 6 7; do
		order="base head"
		[ $((round % 2)) = 0 ] && order="head base"
		for lib in $order; do
			stop
			use "$lib"
			start
			for name in $names; do
				printf '%s\n\\timing on\n%s;\n' "$(settings "$name")" "$(query 10 "$name")" >"$work/q.sql"
				out=$(sql -f "$work/q.sql")
				ms[$lib.$name]+="$(grep -o 'Time: [0-9.]*' <<<"$out" | tail -1 | awk '{print $2}') "
				a=$(grep -v '^Time:\|^Timing\|^SET' <<<"$out" | tr '\n' ' ')
				if [ -n "${answer[$name]:-}" ] && [ "${answer[$name]}" != "$a" ]; then
					echo "   $name: ANSWERS DIFFER: ${answer[$name]} against $a ($lib, round $round)"
				fi
				answer[$name]=$a
			done
		done
	done
	printf '   %-11s %10s %10s %10s   %s\n' query "$base" "$head" "ratio" "answer"
	for name in $names; do
		b=$(tr ' ' '\n' <<<"${ms[base.$name]}" | grep . | median)
		h=$(tr ' ' '\n' <<<"${ms[head.$name]}" | grep . | median)
		printf '   %-11s %10.1f %10.1f %10.3f   %s\n' "$name" "$b" "$h" "$(echo "scale=4; $h / $b" | bc)" "${answer[$name]}"
	done
	echo "   (ratio: $head's over $base's; every round's times: base ${ms[base.semijoin]}/ head ${ms[head.semijoin]}for semijoin)"
	echo
	if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
		echo "== instructions per probe-side row (callgrind, single-user backend, ExecutorRun / the probe side's rows; scale 1: 400,000 rows)"
		stop
		printf '   %-11s %10s %10s %10s\n' query "$base" "$head" "ratio"
		for name in $names; do
			[ "$name" = parallel ] && continue # one process: no workers in a single-user backend
			printf "LOAD 'bloomfilter';\nSET jit = off;\nSET work_mem = '512MB';\n%s\n%s;\n" "$(settings "$name")" "$(query 1 "$name")" >"$work/$name.sql"
			chmod a+r "$work/$name.sql"
			declare -A instr=()
			for lib in base head; do
				use "$lib"
				# (symbols bound at load: a first call's lazy binding is once a backend, not per row)
				as_pg "LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file=$work/cg.$lib $bin/postgres --single -D $work/data postgres <$work/$name.sql >/dev/null 2>&1"
				instr[$lib]=$(callgrind_annotate --inclusive=yes "$work/cg.$lib" 2>/dev/null |
					awk -v rows="$(rows_of 1 "$name")" '/ExecutorRun \[/ && !done {gsub(",", "", $1); printf "%.1f", $1 / rows; done = 1}')
			done
			printf '   %-11s %10s %10s %10.4f\n' "$name" "${instr[base]}" "${instr[head]}" "$(echo "scale=5; ${instr[head]} / ${instr[base]}" | bc)"
		done
		start
	fi
	mkdir -p bench/results/rooms
	first=base
	for name in ${ROOMS_SQL-runtime skip index_runtime}; do
		order="$first head"
		[ "$first" = head ] && order="head base"
		for lib in $order; do
			stop
			use "$lib"
			start
			# a database of its own: the files expect a fresh cluster, as bench/run.sh gives them
			sql -c "CREATE DATABASE rooms_${name}_$lib;"
			PGDATABASE=rooms_${name}_$lib psql -X -q -v ON_ERROR_STOP=1 -f "bench/$name.sql" \
				>"bench/results/rooms/$name-$lib.txt" 2>&1 ||
				echo "   bench/$name.sql under $lib: FAILED (bench/results/rooms/$name-$lib.txt)"
			sql -c "DROP DATABASE rooms_${name}_$lib;"
		done
		[ "$first" = base ] && first=head || first=base
		echo
		echo "== bench/$name.sql once under each library ($order), its summary tables (bench/results/rooms/$name-*.txt)"
		for lib in base head; do
			echo "   -- ${!lib}"
			awk '/^== / {title = $0} /speedup|on_over_off|on_ms/ && !p {p = 1; print "   " title} p && /^$/ {p = 0} p {print "   " $0}' \
				"bench/results/rooms/$name-$lib.txt"
		done
	done
} 2>&1 | tee bench/results/rooms.txt
