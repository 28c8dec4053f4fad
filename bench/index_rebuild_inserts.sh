#!/usr/bin/env bash
# bench/index_rebuild_inserts.sh: inserts into a table with a bloomfilter
# index while its filter is rebuilt (issue 52, part 1's second figure),
# against the same inserts while nothing else runs, side by side in one run:
# ROUNDS (3) rounds of five phases of SECONDS (10) each, in turn,
#   quiet:   pgbench inserts single-row transactions (CLIENTS clients, 1);
#   pending: the same, with a rebuild's layer marked and left (a rebuild
#            cancelled mid-scan by a statement_timeout of 200 ms): every
#            insert writes both filters, and no scan takes a core: the
#            protocol's own cost to an insert;
#   rebuild: the same, while another session rebuilds the filter again and
#            again (bloom_index_rebuild: mark, scan of ROWS rows, merge,
#            switch), so that every insert of the phase meets a rebuild;
#   paced:   the same, the rebuilds paced as autovacuum's are by default
#            (vacuum_cost_delay 2 ms, vacuum_cost_limit 200);
#   scan:    the same, while another session reads the table again and
#            again (SELECT count(*) in one process, no rebuild): what any
#            process as busy as a rebuild costs the inserts, the control of
#            the rebuild phases;
# at PostgreSQL's default settings (synchronous_commit on).  Prints each
# phase's transactions per second, the medians' ratios to quiet, the
# rebuilds done, and the keys of the table the filter calls absent (must
# be 0).
#   PGHOST=... PGPORT=... PGUSER=... bash bench/index_rebuild_inserts.sh [DB]
set -euo pipefail
db=${1:-bench_rebuild_inserts}
rows=${ROWS:-2000000}
rounds=${ROUNDS:-3}
seconds=${SECONDS_EACH:-10}
clients=${CLIENTS:-1}
pgbench=${PGBENCH:-$(dirname "$(command -v psql)")/pgbench}
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
work=$(mktemp -d)
trap 'jobs -p | xargs -r kill 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
q -c "SET client_min_messages = warning; CREATE EXTENSION bloomfilter" 2>/dev/null
q <<SQL
CREATE TABLE t (k int8) WITH (autovacuum_enabled = false);
INSERT INTO t SELECT g FROM generate_series(1, $rows) g;
CREATE INDEX t_k ON t USING bloomfilter (k);
VACUUM ANALYZE t;
SQL
echo "INSERT INTO t VALUES (($rows + 1 + random() * 1e12)::int8);" >"$work/insert.sql"

# tps of SECONDS of inserts
inserts() {
	"$pgbench" -n -c "$clients" -T "$seconds" -f "$work/insert.sql" "$db" 2>/dev/null |
		sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -n 1
}

# busy_loop SQL...: run the statements again and again, each time in a new
# session, until $work/stop appears (then it ends after the one under way)
busy_loop() {
	local args=()
	for stmt in "$@"; do args+=(-c "$stmt"); done
	while [ ! -e "$work/stop" ]; do
		q "${args[@]}" >/dev/null
	done
}

# beside SQL...: the inserts' tps while busy_loop runs the statements
beside() {
	local pid tps
	rm -f "$work/stop"
	busy_loop "$@" &
	pid=$!
	sleep 0.2 # the first one under way
	tps=$(inserts)
	touch "$work/stop"
	wait "$pid"
	echo "$tps"
}

echo "== $rows rows; $rounds rounds of $seconds s a phase; $clients client(s); pgbench single-row inserts"
printf '%6s %12s %12s %12s %12s %12s\n' round quiet_tps pending_tps rebuild_tps paced_tps scan_tps
quiet=()
pend=()
busy=()
paced=()
scan=()
start_rebuilds=$(q -c "SELECT rebuilds FROM bloom_index_info('t_k')")
for r in $(seq 1 "$rounds"); do
	a=$(inserts)
	q -c "SET statement_timeout = '200ms'" -c "SELECT bloom_index_rebuild('t_k')" >/dev/null 2>&1 || true
	p=$(inserts)
	q -c "VACUUM t" # frees the layer left
	b=$(beside "SELECT bloom_index_rebuild('t_k')")
	c=$(beside "SET vacuum_cost_delay = '2ms'" "SET vacuum_cost_limit = 200" "SELECT bloom_index_rebuild('t_k')")
	d=$(beside "SET max_parallel_workers_per_gather = 0" "SELECT count(*) FROM t")
	printf '%6s %12s %12s %12s %12s %12s\n' "$r" "$a" "$p" "$b" "$c" "$d"
	quiet+=("$a")
	pend+=("$p")
	busy+=("$b")
	paced+=("$c")
	scan+=("$d")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
mq=$(median "${quiet[@]}")
mp=$(median "${pend[@]}")
mb=$(median "${busy[@]}")
mc=$(median "${paced[@]}")
md=$(median "${scan[@]}")
echo "median tps: quiet $mq; a rebuild's layer pending $mp: ratio $(ratio "$mq" "$mp"); beside rebuilds $mb: ratio $(ratio "$mq" "$mb"); beside paced rebuilds $mc: ratio $(ratio "$mq" "$mc"); beside table scans $md: ratio $(ratio "$mq" "$md")"
echo "rebuilds done: $(($(q -c "SELECT rebuilds FROM bloom_index_info('t_k')") - start_rebuilds))"
echo "keys of the table the filter calls absent: $(q -c "SELECT count(*) FROM t WHERE NOT bloom_index_contains('t_k', k)")"
psql -X -q -d postgres -c "DROP DATABASE $db"
