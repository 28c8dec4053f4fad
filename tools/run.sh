#!/usr/bin/env bash
# tools/run.sh demo|test
#
# On a fresh Debian (bookworm) machine, as root: install what is missing,
# build and install the extension, then
#   demo  run the bloom-join demo (demo/bloom_join.sql) on a throwaway cluster;
#   test  run the whole test suite: the core's C unit tests (three builds,
#         one under ASan+UBSan), a minute of libFuzzer on each of the core's
#         parsers, the formatting check, the pg_regress suite (make
#         installcheck), a pg_dump/pg_restore round trip, cancellation of
#         work on a 500 MB filter, postgres_fdw pushdown and a pgbench load
#         test, each on a throwaway cluster.
# The test run ends with a line "total: N passed, N failed".
set -euo pipefail

mode=${1:-}
case "$mode" in
demo | test) ;;
*)
	echo "usage: $0 demo|test" >&2
	exit 2
	;;
esac

cd "$(dirname "$0")/.."

# ---- packages ----
packages=(make gcc libc6-dev postgresql-15 postgresql-server-dev-15 postgresql-contrib)
[ "$mode" = test ] && packages+=(wamerican-huge clang-format clang libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "== installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---- build and install ----
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
echo "== building with $("$PG_CONFIG" --version)"
make -s PG_CONFIG="$PG_CONFIG" clean >/dev/null
make -s PG_CONFIG="$PG_CONFIG"
make -s PG_CONFIG="$PG_CONFIG" install >/dev/null

# pg_virtualenv -t: a throwaway cluster in a temporary folder; as root it runs
# the server as the postgres user.  The repository must be readable by it.
chmod -R a+rX . 2>/dev/null || true

if [ "$mode" = demo ]; then
	exec pg_virtualenv -t psql -X -q -v ON_ERROR_STOP=1 -f demo/bloom_join.sql
fi

# ---- tests ----
passed=0
failed=0

echo "== C unit tests of the core"
unit_log=$(mktemp)
if make -s PG_CONFIG="$PG_CONFIG" unitcheck 2>&1 | tee "$unit_log"; then :; fi
while read -r p f; do
	passed=$((passed + p))
	failed=$((failed + f))
done < <(sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$unit_log")
if ! grep -q '^unit: ' "$unit_log"; then
	echo "unit tests did not run"
	failed=$((failed + 1))
fi

echo "== libFuzzer targets of the core's parsers (${FUZZ_SECONDS:-60} s each)"
for t in text binary; do
	if make -s PG_CONFIG="$PG_CONFIG" fuzzcheck FUZZ_TARGETS="fuzz/fuzz_$t" \
		FUZZ_SECONDS="${FUZZ_SECONDS:-60}" >"/tmp/fuzz_$t.$$" 2>&1 &&
		grep -q "^Done [0-9]* runs" "/tmp/fuzz_$t.$$"; then
		echo "fuzz_$t: ok ($(grep -o '^Done [0-9]* runs' "/tmp/fuzz_$t.$$"))"
		passed=$((passed + 1))
	else
		cat "/tmp/fuzz_$t.$$"
		echo "fuzz_$t: FAILED"
		failed=$((failed + 1))
	fi
	rm -f "/tmp/fuzz_$t.$$"
done

echo "== formatting (clang-format, .clang-format)"
if clang-format --dry-run -Werror bloomfilter.c src/*.c src/*.h core/*.c core/*.h tests/unit/*.c fuzz/*.c; then
	echo "format: ok"
	passed=$((passed + 1))
else
	echo "format: FAILED (run: clang-format -i bloomfilter.c src/*.[ch] core/*.[ch] tests/unit/*.c fuzz/*.c)"
	failed=$((failed + 1))
fi

echo "== pg_regress (make installcheck) on a throwaway cluster"
regress_log=$(mktemp)
rm -rf results regression.diffs regression.out
if pg_virtualenv -t make -s PG_CONFIG="$PG_CONFIG" installcheck >"$regress_log" 2>&1; then :; fi
cat "$regress_log"
ok=$(grep -cE '\.\.\. ok' "$regress_log" || true)
bad=$(grep -cE '\.\.\. FAILED' "$regress_log" || true)
passed=$((passed + ok))
failed=$((failed + bad))
if [ "$ok" -eq 0 ] && [ "$bad" -eq 0 ]; then
	echo "pg_regress ran no test"
	failed=$((failed + 1))
fi
if [ -f regression.diffs ]; then
	echo "== regression.diffs"
	cat regression.diffs
fi

# cluster_test TITLE NAME SCRIPT [ARGS]: run SCRIPT on a throwaway cluster;
# it passes if it prints a line "NAME: ok".
cluster_test() {
	local title=$1 name=$2 log
	shift 2
	echo "== $title, on a throwaway cluster"
	log=$(mktemp)
	if pg_virtualenv -t bash "$@" 2>&1 | grep -v NOTICE | tee "$log" && grep -q "^$name: ok" "$log"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	rm -f "$log"
}
cluster_test "pg_dump / pg_restore round trip" dump_restore tests/dump/dump_restore.sh
cluster_test "interrupts: a 500 MB filter under statement_timeout" interrupts \
	tests/interrupts/cancel_500mb.sh
cluster_test "postgres_fdw: probes pushed to the remote side" fdw tests/fdw/pushdown.sh
cluster_test "load: pgbench, 8 clients, ${LOAD_SECONDS:-60} s" load tests/load/load_test.sh \
	"${LOAD_SECONDS:-60}"

rm -f "$unit_log" "$regress_log"
echo "total: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
