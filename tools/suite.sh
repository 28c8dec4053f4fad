#!/usr/bin/env bash
# tools/suite.sh demo|test N: build and install the extension against
# PostgreSQL N installed on this machine (the host, or a chroot made by
# tools/chroot.sh), then
#   demo  run the bloom-join demo (demo/bloom_join.sql) on a throwaway cluster;
#   test  run everything that depends on the server version: the core's
#         layering (tests/unit/check_layers.sh), the rooms of the PostgreSQL
#         layer (tests/unit/check_rooms.sh), its C unit tests (three
#         builds, one under ASan+UBSan, with this machine's compiler), the
#         pg_regress suite (make installcheck), a pg_dump/pg_restore round
#         trip with the earlier releases' dumps, cancellation of work on a
#         500 MB filter, postgres_fdw pushdown (probes written by hand, and
#         runtime filters shipped into remote scans), the plan-time read of
#         keys under random quals that may fail (tests/runtime), the
#         index's randomized check-then-insert harness and a pgbench load test, each
#         on a throwaway cluster (pg_virtualenv; servers run as postgres).
# The test ends with a line "pgN: N passed, N failed".  tools/run.sh calls
# this; it installs nothing itself.
set -euo pipefail

mode=${1:-}
version=${2:-}
case "$mode" in
demo | test) ;;
*)
	echo "usage: $0 demo|test N" >&2
	exit 2
	;;
esac
[[ "$version" =~ ^[0-9]+$ ]] || {
	echo "usage: $0 demo|test N" >&2
	exit 2
}
cd "$(dirname "$0")/.."
. tools/lib.sh

PG_CONFIG=/usr/lib/postgresql/$version/bin/pg_config
if [ ! -x "$PG_CONFIG" ]; then
	echo "PostgreSQL $version is not installed here ($PG_CONFIG)" >&2
	exit 1
fi

# ---- build and install (-Werror on our files, see the Makefile) ----
echo "== building with $("$PG_CONFIG" --version), $(${CC:-cc} --version | head -n 1)"
make -s PG_CONFIG="$PG_CONFIG" clean >/dev/null
# ASSERTS=1: the core's assert()s stay in (see the Makefile)
if ! make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" ASSERTS=1 ||
	! make -s PG_CONFIG="$PG_CONFIG" ASSERTS=1 install >/dev/null; then
	echo "pg$version: build failed"
	[ "$mode" = demo ] && exit 1
	echo "pg$version: 0 passed, 1 failed"
	exit 1
fi

# pg_virtualenv -t: a throwaway cluster in a temporary folder; as root it runs
# the server as the postgres user.  The repository must be readable by it.
chmod -R a+rX . 2>/dev/null || true

if [ "$mode" = demo ]; then
	exec pg_virtualenv -v "$version" -t psql -X -q -v ON_ERROR_STOP=1 -f demo/bloom_join.sql
fi

passed=0
failed=0

echo "== layering of the core, read from the objects just built"
if bash tests/unit/check_layers.sh; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi

echo "== the PostgreSQL layer's rooms: no circles, runtime filters behind their header"
if bash tests/unit/check_rooms.sh; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi

echo "== C unit tests of the core"
unit_log=$(mktemp)
unit_start=$SECONDS
# (the binaries built on every core; they then run one after another)
make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" unitcheck 2>&1 | tee "$unit_log" || true
echo "== unitcheck took $((SECONDS - unit_start)) s"
while read -r p f; do
	passed=$((passed + p))
	failed=$((failed + f))
done < <(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$unit_log")
if ! grep -q '^unit: ' "$unit_log"; then
	echo "unit tests did not run"
	failed=$((failed + 1))
fi
rm -f "$unit_log"

echo "== pg_regress and pg_isolation_regress (make installcheck: sql/, specs/) on a throwaway cluster"
regress_log=$(mktemp)
rm -rf results regression.diffs regression.out output_iso
regress_start=$SECONDS
pg_virtualenv -v "$version" -t make -s PG_CONFIG="$PG_CONFIG" installcheck >"$regress_log" 2>&1 || true
cat "$regress_log"
echo "== installcheck took $((SECONDS - regress_start)) s"
read -r ok bad <<<"$(regress_counts "$regress_log")"
passed=$((passed + ok))
failed=$((failed + bad))
if [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ]; then
	echo "pg_regress ran no test"
	failed=$((failed + 1))
fi
for diffs in regression.diffs output_iso/regression.diffs; do
	if [ -f "$diffs" ]; then
		echo "== $diffs"
		cat "$diffs"
	fi
done
rm -f "$regress_log"

# cluster_test TITLE NAME SCRIPT [ARGS]: run SCRIPT on a throwaway cluster.
# A script that counts its cases ends with "NAME: P passed, F failed", which
# is added to the totals (no case at all is a failure); any other passes if
# it finishes and prints a line "NAME: ok".
cluster_test() {
	local title=$1 name=$2 log ran=1 ok bad start=$SECONDS
	shift 2
	echo "== $title, on a throwaway cluster"
	log=$(mktemp)
	pg_virtualenv -v "$version" -t bash "$@" 2>&1 | grep -v NOTICE | tee "$log" || ran=0
	echo "== $name took $((SECONDS - start)) s"
	if grep -qE "^$name: [0-9]+ passed, [0-9]+ failed$" "$log"; then
		read -r ok bad <<<"$(counts_line "$name" "$log" |
			sed 's/^[^:]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/')"
		passed=$((passed + ok))
		failed=$((failed + bad))
		if [ $((ok + bad)) -eq 0 ]; then
			echo "$name: ran no case"
			failed=$((failed + 1))
		fi
	elif [ "$ran" = 1 ] && grep -q "^$name: ok" "$log"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	rm -f "$log"
}
cluster_test "the docs' SQL examples, run and compared with their pages" docs tests/docs/run_docs.sh
cluster_test "pg_dump / pg_restore round trip" dump_restore tests/dump/dump_restore.sh
cluster_test "interrupts: a 500 MB filter under statement_timeout" interrupts \
	tests/interrupts/cancel_500mb.sh
cluster_test "postgres_fdw: probes pushed to the remote side" fdw tests/fdw/pushdown.sh
cluster_test "postgres_fdw: runtime filters shipped into remote scans" fdw_push \
	tests/fdw/runtime_push.sh
cluster_test "postgres_fdw: shipped filters over every pair of local and remote types" type_pairs \
	tests/fdw/type_pairs.sh
cluster_test "postgres_fdw: shipped filters under an UPDATE's recheck of rows others changed" recheck \
	tests/fdw/recheck.sh
cluster_test "runtime filters: the plan-time read of keys under random quals that may fail, against filters off" \
	plan_fuzz tests/runtime/plan_time_fuzz.sh "${PLAN_FUZZ_CASES:-200}"
cluster_test "runtime filters in parallel plans: random joins under random parallel settings, against filters off" \
	parallel_fuzz tests/runtime/parallel_fuzz.sh "${PARALLEL_FUZZ_CASES:-80}"
cluster_test "bloomfilter index: randomized check-then-insert harness against EXISTS" harness \
	tests/index/harness.sh "${HARNESS_ROUNDS:-24}" "${HARNESS_KEYS:-3000}"
cluster_test "load: pgbench, 8 clients, ${LOAD_SECONDS:-30} s" load tests/load/load_test.sh \
	"${LOAD_SECONDS:-30}"

# own_servers_test TITLE NAME SCRIPT [ARGS]: a script that starts servers of
# its own (a primary and a standby, killed and restarted), ending with
# "NAME: P passed, F failed".
own_servers_test() {
	local title=$1 name=$2 log ok bad start=$SECONDS
	shift 2
	echo "== $title, on servers of its own"
	log=$(mktemp)
	bash "$@" 2>&1 | grep -v NOTICE | tee "$log" || true
	echo "== $name took $((SECONDS - start)) s"
	if grep -qE "^$name: [0-9]+ passed, [0-9]+ failed$" "$log"; then
		read -r ok bad <<<"$(counts_line "$name" "$log" |
			sed 's/^[^:]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/')"
		passed=$((passed + ok))
		failed=$((failed + bad))
		[ $((ok + bad)) -gt 0 ] || failed=$((failed + 1))
	else
		failed=$((failed + 1))
	fi
	rm -f "$log"
}
own_servers_test "bloomfilter index: crash, standby, dump, damaged pages" life_cycle \
	tests/index/life_cycle.sh "$version"

echo "pg$version: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
