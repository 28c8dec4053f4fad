#!/usr/bin/env bash
# bench/index.sh: the bloomfilter index (1.9) against a B-tree on the same
# column, the issue's figures (issue 29).  A server of its own (PostgreSQL 15,
# shared_buffers 1GB, JIT off, synchronous_commit on as by default), tables
# of 1,000,000 random int8 keys:
#   inserts   20,000 single-row inserts (pgbench, one client, each its own
#             transaction) into the table with a bloomfilter index, with a
#             B-tree, with none; WAL per insert (pg_current_wal_lsn), the
#             index's share being the difference from the table with none,
#             in a pass just after a checkpoint (the first change of each page
#             logs it whole) and in a second pass in the same checkpoint
#             cycle, with the
#             bloomfilter index's layers before and after (a new layer logs
#             its pages whole: a cost paid once per layer); time per insert,
#             the three tables alternating, medians of 3 runs
#   size      the index of 1,000,000 keys at 1% against bloom_agg(k, 1000000,
#             0.01) and the B-tree
#   absent    300,000 keys none of which the table holds, looked up one by
#             one, of two sets (below every key the table holds, the
#             B-tree's best case; spread over the keys' range), after a
#             VACUUM ANALYZE and with autovacuum off, each by one process
#             (no parallel workers, whose fresh processes would copy the
#             filter anew each query): bloom_index_contains (at the default work_mem, where the
#             call site copies the filter, as it fits in hash_mem; and at
#             work_mem 1MB, where each call reads pages) against EXISTS
#             through the B-tree (a nested loop of index scans: hash and
#             merge joins off, as a lookup per key is what an application
#             does); each in a session of its own, run 5 times there: a new
#             backend's first, its second, and three more (steady, as a
#             pooled connection runs it); alternating, 3 rounds, medians;
#             what writing 5 MB of fresh memory costs this machine
#             (bench/first_touch.c: a new backend's copy does, and its next
#             query's too, as glibc's heap grows); and the instructions each costs
#             per key (valgrind's callgrind on a single-user backend, the
#             query's executor run over the 300,000 keys: counts, not
#             seconds, the same on a loaded machine)
#   grown     an index built on 10,000 keys, then 1,000,000 more added (100x):
#             the false-positive rate measured on 1,000,000 absent keys, and
#             its keys all found (bloom_index_verify)
#   clients   8 clients inserting single rows for 30 s each into each table
#             (pgbench -c 8 -j 2), alternating, 2 runs: throughput
# Run as root; writes bench/results/index.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
version=15
bin=/usr/lib/postgresql/$version/bin
make -s PG_CONFIG="$bin/pg_config" install >/dev/null
port=56500
work=$(mktemp -d /tmp/bloom-index-bench.XXXXXX)
chown postgres "$work"
as_pg() { su postgres -s /bin/bash -c "$*"; }
cleanup() {
	as_pg "$bin/pg_ctl -D $work/data -m immediate stop >/dev/null 2>&1" || true
	rm -rf "$work"
}
trap cleanup EXIT
as_pg "$bin/initdb -D $work/data -A trust >/dev/null"
cat >>"$work/data/postgresql.conf" <<CONF
port = $port
unix_socket_directories = '$work'
listen_addresses = ''
shared_buffers = 1GB
jit = off
max_wal_size = 8GB
checkpoint_timeout = 30min
CONF
as_pg "$bin/pg_ctl -D $work/data -l $work/log -w start >/dev/null"
export PGHOST=$work PGPORT=$port PGUSER=postgres PGDATABASE=postgres
sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

sql <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE keys AS SELECT (random() * 4e18)::int8 AS k FROM generate_series(1, 1000000);
CREATE TABLE t_bloom AS SELECT k FROM keys;
CREATE TABLE t_btree AS SELECT k FROM keys;
CREATE TABLE t_none AS SELECT k FROM keys;
CREATE TABLE t_room AS SELECT k FROM keys;
CREATE INDEX t_bloom_k ON t_bloom USING bloomfilter (k);
CREATE INDEX t_room_k ON t_room USING bloomfilter (k) WITH (capacity = 2000000);
CREATE INDEX t_btree_k ON t_btree (k);
VACUUM ANALYZE t_bloom, t_btree, t_none, t_room;
SQL
echo 'INSERT INTO :t VALUES ((random() * 4e18)::int8);' >"$work/insert.sql"
chmod a+r "$work/insert.sql"

{
	echo "== bench/index.sh: bloomfilter index against a B-tree, PostgreSQL $($bin/postgres --version | awk '{print $3}'), commit $(git rev-parse --short HEAD)"
	echo
	echo "== inserts: 20,000 single-row inserts into a 1,000,000-row table, one client"
	echo "   wal_bytes per insert: the table's with that index; index_wal: minus the table's with none"
	echo "   layers of the bloomfilter index before: $(sql <<<"SELECT layers FROM bloom_index_info('t_bloom_k');")"
	for phase in after_checkpoint same_cycle; do
		declare -A wal=()
		# one checkpoint before the first pass: every table's first change of
		# each page after it logs the page whole; the second pass changes pages
		# already logged since
		[ "$phase" = after_checkpoint ] && sql <<<"CHECKPOINT;"
		for t in t_none t_btree t_bloom t_room; do
			before=$(sql <<<"SELECT pg_current_wal_lsn();")
			"$bin/pgbench" -n -f "$work/insert.sql" -D t="$t" -t 20000 -c 1 >/dev/null 2>&1
			wal[$t]=$(sql <<<"SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$before') / 20000.0, 1);")
		done
		echo "   $phase: none ${wal[t_none]} B, btree ${wal[t_btree]} B (index $(echo "${wal[t_btree]} - ${wal[t_none]}" | bc) B), bloomfilter ${wal[t_bloom]} B (index $(echo "${wal[t_bloom]} - ${wal[t_none]}" | bc) B; layers after: $(sql <<<"SELECT layers FROM bloom_index_info('t_bloom_k');")), bloomfilter with room (capacity 2,000,000) ${wal[t_room]} B (index $(echo "${wal[t_room]} - ${wal[t_none]}" | bc) B; layers after: $(sql <<<"SELECT layers FROM bloom_index_info('t_room_k');"))"
	done
	echo "   time per insert, ms (pgbench latency average, 20,000 inserts, alternating, medians of 3):"
	declare -A lat=()
	for run in 1 2 3; do
		for t in t_none t_btree t_bloom; do
			l=$("$bin/pgbench" -n -f "$work/insert.sql" -D t="$t" -t 20000 -c 1 2>/dev/null |
				sed -n 's/^latency average = \([0-9.]*\) ms/\1/p')
			lat[$t]="${lat[$t]:-} $l"
		done
	done
	for t in t_none t_btree t_bloom; do
		echo "     $t: $(echo "${lat[$t]}" | tr ' ' '\n' | grep . | median) (runs:${lat[$t]})"
	done
	bt=$(echo "${lat[t_btree]}" | tr ' ' '\n' | grep . | median)
	bl=$(echo "${lat[t_bloom]}" | tr ' ' '\n' | grep . | median)
	echo "     bloomfilter / btree: $(echo "scale=3; $bl / $bt" | bc)"
	echo

	echo "== size: 1,000,000 int8 keys at 1%"
	sql -P footer=off <<'SQL'
\pset format aligned
\pset tuples_only off
CREATE TABLE sized AS SELECT k FROM keys;
CREATE INDEX sized_bloom ON sized USING bloomfilter (k);
CREATE INDEX sized_btree ON sized (k);
SELECT pg_relation_size('sized_bloom') AS bloomfilter_index, pg_column_size(bloom_agg(k, 1000000, 0.01)) AS bloom_agg,
       round(pg_relation_size('sized_bloom')::numeric / pg_column_size(bloom_agg(k, 1000000, 0.01)), 3) AS index_over_agg,
       pg_relation_size('sized_btree') AS btree_index,
       round(pg_relation_size('sized_btree')::numeric / pg_relation_size('sized_bloom'), 1) AS btree_over_index
  FROM keys;
SELECT layers, capacity, keys_added, round(estimated_rate::numeric, 5) AS estimated_rate FROM bloom_index_info('sized_bloom');
DROP TABLE sized;
SQL
	echo

	echo "== absent: 300,000 keys the table does not hold, looked up one by one; ms, alternating, medians"
	# two sets of absent keys: 'below', every one smaller than every key the
	# table holds (each lookup in the B-tree goes down to its first leaf: its
	# best case, all in the CPU's cache), and 'spread', random over the
	# keys' range (each lookup goes down to a leaf of its own, as an
	# application's unknown IDs do)
	sql <<'SQL'
CREATE TABLE absent_below AS SELECT -(g::int8) AS k FROM generate_series(1, 300000) g;
CREATE TABLE absent_spread AS
  SELECT k FROM (SELECT (random() * 4e18)::int8 AS k FROM generate_series(1, 310000)) r
   WHERE NOT EXISTS (SELECT 1 FROM keys WHERE keys.k = r.k) LIMIT 300000;
VACUUM ANALYZE absent_below, absent_spread, t_bloom, t_btree, t_none, t_room, keys;
ALTER SYSTEM SET autovacuum = off;
SQL
	sql <<<"SELECT pg_reload_conf();" >/dev/null
	# autovacuum's transactions end the copy's key (a transaction completed)
	# and take a core: none runs during the timings
	for _ in $(seq 1 120); do
		[ "$(sql <<<"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker';")" = 0 ] && break
		sleep 1
	done
	echo "   the index: $(sql <<<"SELECT pg_size_pretty(pg_relation_size('t_bloom_k')) || ', ' || layers || ' layers' FROM bloom_index_info('t_bloom_k');"); autovacuum off, no worker running"
	# each way in a session of its own, 3 rounds alternating; in each session
	# the query 5 times: the first is a new backend's, the second that
	# backend's next, the last three a pooled connection's (steady)
	declare -A setup=(
		[copy]="SET max_parallel_workers_per_gather = 0;"
		[pages]="SET max_parallel_workers_per_gather = 0; SET work_mem = '1MB';"
		[btree]="SET enable_hashjoin = off; SET enable_mergejoin = off; SET max_parallel_workers_per_gather = 0;"
		[scan]="SET max_parallel_workers_per_gather = 0;")
	med() { echo "$1" | tr ' ' '\n' | grep . | median; }
	label() {
		case $1 in
		copy) echo "bloom_index_contains, the call site copies the filter (work_mem 4MB: the index fits in hash_mem, 8MB)" ;;
		pages) echo "bloom_index_contains, pages read per call (work_mem 1MB: hash_mem 2MB, below the index's size)" ;;
		btree) echo "EXISTS through the B-tree (nested loop of index scans)" ;;
		scan) echo "the scan of the keys alone (WHERE k = 0: a qual per row, no lookup)" ;;
		esac
	}
	for set in below spread; do
		probe="SELECT count(*) FROM absent_$set a WHERE bloom_index_contains('t_bloom_k', a.k);"
		exists="SELECT count(*) FROM absent_$set a WHERE EXISTS (SELECT 1 FROM t_btree b WHERE b.k = a.k);"
		declare -A query=([copy]="$probe" [pages]="$probe" [btree]="$exists"
			[scan]="SELECT count(*) FROM absent_$set a WHERE a.k = 0;")
		declare -A first=() second=() steady=() f=() s=() w=()
		for run in 1 2 3; do
			for way in copy pages btree scan; do
				times=$(sql <<<"${setup[$way]}
\\timing on
${query[$way]}
${query[$way]}
${query[$way]}
${query[$way]}
${query[$way]}" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
				first[$way]="${first[$way]:-} $(echo "$times" | sed -n 1p)"
				second[$way]="${second[$way]:-} $(echo "$times" | sed -n 2p)"
				steady[$way]="${steady[$way]:-} $(echo "$times" | tail -3 | tr '\n' ' ')"
			done
		done
		for way in copy pages btree scan; do
			f[$way]=$(med "${first[$way]}")
			s[$way]=$(med "${second[$way]}")
			w[$way]=$(med "${steady[$way]}")
		done
		echo "   -- absent keys $set:"
		for way in copy pages btree scan; do
			echo "   $(label $way): steady ${w[$way]} ms (runs:${steady[$way]}); a new backend's first ${f[$way]} ms (runs:${first[$way]}), its second ${s[$way]} ms (runs:${second[$way]})"
		done
		for at in steady first second; do
			case $at in steady) b=${w[btree]} c=${w[copy]} p=${w[pages]} ;; first) b=${f[btree]} c=${f[copy]} p=${f[pages]} ;; second) b=${s[btree]} c=${s[copy]} p=${s[pages]} ;; esac
			echo "   speedup over EXISTS, $at: $(echo "scale=2; $b / $c" | bc)x with the copy, $(echo "scale=2; $b / $p" | bc)x reading pages"
		done
	done
	if gcc -O2 -o "$work/first_touch" bench/first_touch.c 2>/dev/null; then
		echo "   this machine writing 5 MB of fresh memory, ms (first touch, second): $("$work/first_touch" 5) (a new backend's copy writes that much anew)"
	fi
	echo "   plan of the EXISTS:"
	sql <<<"SET enable_hashjoin = off; SET enable_mergejoin = off; SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) $exists" | sed 's/^/     /'
	sql <<<"ALTER SYSTEM RESET autovacuum; SELECT pg_reload_conf();" >/dev/null
	echo

	echo "== grown: built on 10,000 keys (declared rate 1%), then 1,000,000 more (100x)"
	sql -P footer=off <<'SQL'
\pset format aligned
\pset tuples_only off
CREATE TABLE grown (k int8);
INSERT INTO grown SELECT g FROM generate_series(1, 10000) g;
CREATE INDEX grown_k ON grown USING bloomfilter (k);
SELECT 'built' AS at, layers, capacity FROM bloom_index_info('grown_k');
INSERT INTO grown SELECT g FROM generate_series(10001, 1010000) g;
SELECT 'grown' AS at, layers, capacity, keys_added, round(estimated_rate::numeric, 5) AS estimated_rate,
       pg_relation_size('grown_k') AS bytes FROM bloom_index_info('grown_k');
SELECT count(*) FILTER (WHERE bloom_index_contains('grown_k', g::int8)) AS false_positives,
       round(count(*) FILTER (WHERE bloom_index_contains('grown_k', g::int8))::numeric / count(*), 5) AS measured_rate
  FROM generate_series(2000001, 3000000) g;
SELECT keys_missing AS false_negatives, rows_checked FROM bloom_index_verify('grown_k');
SQL
	echo

	echo "== clients: 8 clients inserting single rows, 30 s per table, alternating, 2 runs; transactions per second"
	declare -A tps=()
	for run in 1 2; do
		for t in t_btree t_bloom; do
			v=$("$bin/pgbench" -n -f "$work/insert.sql" -D t="$t" -c 8 -j 2 -T 30 2>/dev/null |
				sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
			tps[$t]="${tps[$t]:-} $v"
		done
	done
	echo "   btree:${tps[t_btree]}"
	echo "   bloomfilter:${tps[t_bloom]}"
	t1=$(echo "${tps[t_btree]}" | tr ' ' '\n' | grep . | awk '{s+=$1} END {print s/NR}')
	t2=$(echo "${tps[t_bloom]}" | tr ' ' '\n' | grep . | awk '{s+=$1} END {print s/NR}')
	echo "   bloomfilter / btree (means): $(echo "scale=3; $t2 / $t1" | bc)"
	sql -P footer=off <<'SQL'
\pset format aligned
\pset tuples_only off
SELECT layers, keys_added, (bloom_index_verify('t_bloom_k')).keys_missing FROM bloom_index_info('t_bloom_k');
SQL
	echo

	if command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null; then
		echo "== absent, instructions per key (callgrind, single-user backend, ExecutorRun / 300,000; the index has grown since the timings: $(sql <<<"SELECT layers FROM bloom_index_info('t_bloom_k');") layers now)"
		as_pg "$bin/pg_ctl -D $work/data -w stop >/dev/null"
		for set in below spread; do
			declare -A instr=()
			for way in copy pages btree; do
				if [ "$way" = btree ]; then
					q="SELECT count(*) FROM absent_$set a WHERE EXISTS (SELECT 1 FROM t_btree b WHERE b.k = a.k);"
				else
					q="SELECT count(*) FROM absent_$set a WHERE bloom_index_contains('t_bloom_k', a.k);"
				fi
				printf '%s\n%s\n' "${setup[$way]}" "$q" >"$work/$way.sql"
				chmod a+r "$work/$way.sql"
				as_pg "valgrind --tool=callgrind --callgrind-out-file=$work/cg.$way $bin/postgres --single -D $work/data postgres <$work/$way.sql >/dev/null 2>&1"
				instr[$way]=$(callgrind_annotate --inclusive=yes "$work/cg.$way" 2>/dev/null |
					awk '/ExecutorRun \[/ && !done {gsub(",", "", $1); print int($1 / 300000); done = 1}')
			done
			echo "   absent keys $set: bloom_index_contains with the copy ${instr[copy]}, reading pages ${instr[pages]}; EXISTS through the B-tree ${instr[btree]}; EXISTS / copy $(echo "scale=2; ${instr[btree]} / ${instr[copy]}" | bc)x, EXISTS / pages $(echo "scale=2; ${instr[btree]} / ${instr[pages]}" | bc)x"
		done
		as_pg "$bin/pg_ctl -D $work/data -l $work/log -w start >/dev/null"
	fi
} 2>&1 | tee bench/results/index.txt
