#!/usr/bin/env bash
# tests/pg_suite/pg_suite.sh N [PREFIX TREE]
#
# PostgreSQL's own regression suite (src/test/regress, `make
# installcheck-parallel`) against a server with bloomfilter preloaded, run
# three times on fresh clusters: once with bloomfilter.runtime_filter = off,
# once with bloomfilter.runtime_filter_force = on, which puts a runtime
# filter on every hash join that can take one, whatever the cost model says
# (the join search's skip costing off: the same plans), and once with the
# settings' defaults and the skip costing on (plans may change).  It passes
# when
#   - every test's output is the same in both runs once the filters' own
#     EXPLAIN lines are taken out (strip_filters.pl); the tests whose text
#     differs only there are listed as "differs only in EXPLAIN";
#   - no ERROR appears in the forced run's outputs that the off run's lack;
#   - neither server log shows a crash, a PANIC or a failed assertion (TRAP);
#   - filters were really planned (the forced run's DEBUG1 lines are counted);
#   - the costed run's rows, errors and notices are the run without filters'
#     once plans are taken out (strip_plans.pl), the tests whose plans
#     changed are listed, and every join chosen for its skip got a filter
#     that can skip (no such DEBUG1 line).
#
# N: the major version.  By default the server is Debian's
# (/usr/lib/postgresql/N/bin) and the suite is built from the upstream source
# of the server's own version (tools/pgsource.sh; cached in
# $BLOOM_PG_SUITE_CACHE, default /var/cache/bloomfilter/pg_suite).  PREFIX
# and TREE: another server's installation prefix, and the configured and
# built source tree it came from (the cassert server, tools/cassert.sh).
# The extension must already be installed into that server.  Run as root
# from the repository; the servers run as postgres.  Ends with a line
# "pgsuiteN: P passed, F failed", counting one per check above.
# BLOOM_PG_SUITE_KEEP=1 keeps the work folder (both runs' results and
# server logs) in /tmp for a look after a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/lib.sh

version=${1:-}
[[ "$version" =~ ^[0-9]+$ ]] || {
	echo "usage: $0 N [PREFIX TREE]" >&2
	exit 2
}
name=pgsuite$version
bindir=/usr/lib/postgresql/$version/bin
tree=
if [ $# -ge 3 ]; then
	bindir=$2/bin
	tree=$3
	name=$name-cassert
fi
cache=${BLOOM_PG_SUITE_CACHE:-/var/cache/bloomfilter/pg_suite}
full=$("$bindir/postgres" --version | sed -n 's/^postgres (PostgreSQL) \([0-9]*\.[0-9]*\).*/\1/p')

# ---- the suite's tree: configured, src/test/regress built ----
if [ -z "$tree" ]; then
	mkdir -p "$cache"
	# keyed on the server's version: a minor update of the server fetches again
	got=$(cat "$cache/server-$full.ready" 2>/dev/null || true)
	tree=$cache/postgresql-$got
	if [ -z "$got" ] || [ ! -d "$tree" ]; then
		t0=$(date +%s)
		rm -rf "$cache"/postgresql-"$version".* "$cache"/server-"$version".*.ready
		got=$(bash tools/pgsource.sh "$full" "$cache")
		tree=$cache/postgresql-$got
		# only the suite is built: no optional library it would need
		if ! (cd "$tree" && ./configure --quiet --prefix=/usr/lib/postgresql/"$version" \
			--without-readline --without-zlib --without-icu --without-llvm >configure.log 2>&1 &&
			make -s -C src/test/regress -j"$(nproc)" >make.log 2>&1); then
			tail -n 20 "$tree/configure.log" "$tree/make.log" 2>/dev/null
			echo "$name: 0 passed, 1 failed"
			exit 1
		fi
		echo "$got" >"$cache/server-$full.ready"
		echo "== $name: PostgreSQL $got's src/test/regress built in $(($(date +%s) - t0)) s"
	fi
	[ "$got" = "$full" ] ||
		echo "== $name: the server is $full; its exact source is not in the mirror's pool, so the suite is $got's"
fi
regress=$tree/src/test/regress

work=$(mktemp -d /tmp/bloom-pgsuite.XXXXXX)
chown postgres "$work"
chown -R postgres "$regress"
port=$((54400 + version))
as_pg() { su postgres -s /bin/bash -c "$*"; }
stop_server() {
	as_pg "$bindir/pg_ctl -D $work/data -m immediate stop >/dev/null 2>&1" || true
}
cleanup() {
	stop_server
	[ -n "${BLOOM_PG_SUITE_KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run MODE SETTING: the suite on a fresh cluster with SETTING, results kept
# in $work/MODE.
run() {
	local mode=$1 setting=$2 t0
	t0=$(date +%s)
	rm -rf "$work/data"
	as_pg "$bindir/initdb -D $work/data -A trust --no-sync >/dev/null"
	cat >>"$work/data/postgresql.conf" <<CONF
shared_preload_libraries = 'bloomfilter'
$setting
fsync = off
log_min_messages = debug1
log_line_prefix = '%p '
CONF
	as_pg "$bindir/pg_ctl -D $work/data -l $work/$mode.log -w \
		-o \"-p $port -k $work -c listen_addresses=''\" start >/dev/null"
	rm -rf "$regress/results" "$regress/regression.diffs" "$regress/regression.out"
	as_pg "cd $regress && PGHOST=$work PGPORT=$port make -s installcheck-parallel bindir=$bindir" \
		>"$work/$mode.out" 2>&1 || true
	stop_server
	mkdir -p "$work/$mode"
	cp -r "$regress/results" "$work/$mode/results"
	cp "$regress/regression.diffs" "$work/$mode/" 2>/dev/null || true
	read -r ok bad <<<"$(regress_counts "$work/$mode.out")"
	echo "== $name: $mode: $ok tests match their expected output, $bad do not ($(($(date +%s) - t0)) s)"
}

echo "== $name: PostgreSQL's own regression suite, filters off and forced (server $full, $bindir)"
run off "bloomfilter.runtime_filter = off"
run forced "bloomfilter.runtime_filter_force = on
bloomfilter.runtime_filter_skip_costing = off"
run costed "bloomfilter.runtime_filter_skip_costing = on"

passed=0
failed=0
# check N WHAT: WHAT holds if N is 0.
check() {
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
		echo "$name: ok: $2"
	else
		failed=$((failed + 1))
		echo "$name: FAILED: $2"
	fi
}

# ---- 1. the same outputs outside EXPLAIN ----
same=0
explain_only=()
different=()
for f in "$work"/off/results/*.out; do
	t=$(basename "$f" .out)
	g=$work/forced/results/$t.out
	if [ ! -f "$g" ]; then
		different+=("$t")
		echo "---- $t: no output in the forced run"
		continue
	fi
	if cmp -s "$f" "$g"; then
		same=$((same + 1))
		continue
	fi
	perl tests/pg_suite/strip_filters.pl "$f" >"$work/off.stripped"
	perl tests/pg_suite/strip_filters.pl "$g" >"$work/forced.stripped"
	if cmp -s "$work/off.stripped" "$work/forced.stripped"; then
		explain_only+=("$t")
	else
		different+=("$t")
		echo "---- $t: differs outside the filters' EXPLAIN lines"
		diff -u "$work/off.stripped" "$work/forced.stripped" | head -n 60 || true
	fi
done
echo "== $name: $same tests print the same, ${#explain_only[@]} differ only in EXPLAIN: ${explain_only[*]:-none}"
check "${#different[@]}" "outputs the same outside EXPLAIN (${#different[@]} differ: ${different[*]:-none})"

# ---- 2. no error that the run without filters lacks ----
errors() { grep -h '^ERROR:' "$1"/results/*.out | sort; }
new_errors=$(comm -13 <(errors "$work/off") <(errors "$work/forced"))
[ -z "$new_errors" ] || echo "$new_errors" | head -n 20
check "$(echo -n "$new_errors" | grep -c . || true)" "no error that the run without filters lacks"
echo "== $name: tests failing against their expected output without filters (the server's own differences): $(regress_failed "$work/off.out" | tr '\n' ' ')"

# ---- 3. no crash ----
crashes=$(grep -hE 'TRAP:|PANIC:|terminated by signal|was terminated by exception' "$work/off.log" "$work/forced.log" || true)
[ -z "$crashes" ] || echo "$crashes" | head -n 20
check "$(echo -n "$crashes" | grep -c . || true)" "no crash, PANIC or assertion failure in the server logs"

# ---- 4. the filters were there ----
filters=$(grep -c 'bloomfilter: runtime filter [0-9]* for a hash join' "$work/forced.log" || true)
plans=$(grep -c 'bloomfilter: runtime filter 1 for a hash join' "$work/forced.log" || true)
echo "== $name: the forced run planned $filters runtime filters in $plans plans"
check "$([ "$plans" -gt 0 ] && echo 0 || echo 1)" "filters planned in the forced run ($plans plans)"

# ---- 5. the run whose join search prices the skips: the same rows ----
# (its plans may differ: plans are compared no further than "<plan>")
same=0
planned=()
different=()
for f in "$work"/off/results/*.out; do
	t=$(basename "$f" .out)
	g=$work/costed/results/$t.out
	if [ ! -f "$g" ]; then
		different+=("$t")
		continue
	fi
	perl tests/pg_suite/strip_filters.pl "$f" | perl tests/pg_suite/strip_plans.pl >"$work/off.plans"
	perl tests/pg_suite/strip_filters.pl "$g" | perl tests/pg_suite/strip_plans.pl >"$work/costed.plans"
	if cmp -s "$work/off.plans" "$work/costed.plans"; then
		perl tests/pg_suite/strip_filters.pl "$f" >"$work/off.stripped"
		perl tests/pg_suite/strip_filters.pl "$g" >"$work/costed.stripped"
		cmp -s "$work/off.stripped" "$work/costed.stripped" && same=$((same + 1)) || planned+=("$t")
	else
		different+=("$t")
		echo "---- $t: the costed run differs outside its plans"
		diff -u "$work/off.plans" "$work/costed.plans" | head -n 60 || true
	fi
done
offered=$(grep -c 'bloomfilter: offered a hash join skipping' "$work/costed.log" || true)
echo "== $name: costed run: $offered hash joins offered for their skips; plans changed in: ${planned[*]:-none}"
check "${#different[@]}" "the costed run's rows the same as without filters (${#different[@]} differ: ${different[*]:-none})"
new_errors=$(comm -13 <(errors "$work/off") <(errors "$work/costed"))
[ -z "$new_errors" ] || echo "$new_errors" | head -n 20
check "$(echo -n "$new_errors" | grep -c . || true)" "no error in the costed run that the run without filters lacks"
crashes=$(grep -hE 'TRAP:|PANIC:|terminated by signal|was terminated by exception' "$work/costed.log" || true)
check "$(echo -n "$crashes" | grep -c . || true)" "no crash, PANIC or assertion failure in the costed run's log"
# a join chosen for its skip always gets a filter that can skip
unskipped=$(grep -cE 'was chosen for what its keys were expected to skip' \
	"$work/costed.log" || true)
check "$unskipped" "every join chosen for its skip got a filter that can skip ($unskipped did not)"

echo "$name: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
