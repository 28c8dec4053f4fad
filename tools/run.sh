#!/usr/bin/env bash
# tools/run.sh demo|test [--pg VERSIONS]
#
# On a fresh Debian (bookworm) machine, as root: install what is missing,
# build and install the extension, then
#   demo  run the bloom-join demo (demo/bloom_join.sql) on a throwaway
#         cluster of one PostgreSQL version (default 15);
#   test  the checks of the core that no server version changes (a minute of
#         libFuzzer on each of its parsers, the formatting check), then the
#         whole suite against each PostgreSQL version (tools/suite.sh: C unit
#         tests, make installcheck, dump/restore, interrupts, postgres_fdw,
#         pgbench load), by default 15, 17 and 18, and after each version
#         the Citus cluster test (tests/citus/citus_test.sh: Citus 13.2.2,
#         built from ../shared/vendor once and cached; skipped, and counted
#         so, where that source is absent or Citus does not support the
#         version, as 18), PostgreSQL's own regression suite with runtime
#         filters off and forced (tests/pg_suite/pg_suite.sh; on 15, the
#         host's version, against the cassert server), and the Debian
#         package postgresql-N-bloomfilter built, checked by lintian and
#         tested as installed (tests/packages/package_test.sh); then the
#         client libraries (tests/clients), other systems' filters against
#         their makers (tests/interop: Guava, Spark's classes, DuckDB, from
#         ../shared/interop) and the PGXN zip (make dist,
#         tests/packages/dist_test.sh).
#
# 15 is the host's (Debian bookworm).  17 (Debian trixie) and 18 (Debian
# forky) run in minimal debootstrap chroots that tools/chroot.sh builds on
# first use (a few minutes each) and caches in /var/cache/bloomfilter; the
# packages of every version, 15's too (in a bookworm chroot), are built and
# installed in chroots, never on the host.
#
# With 15 in the run, the pg_regress suite also runs against a PostgreSQL 15
# built with --enable-cassert (tools/cassert.sh; built once, about 5 minutes,
# and cached), and so does PostgreSQL's own suite, from that server's tree.
#
# Choosing versions: --pg 17,18 (or BLOOM_PG_VERSIONS="17 18").  Other knobs:
# FUZZ_SECONDS (60; 0 skips fuzzing), LOAD_SECONDS (30 on 15, 15 on the
# others), PLAN_FUZZ_CASES (200, 100) and PARALLEL_FUZZ_CASES (80, 40),
# BLOOM_CASSERT=0 (skips the cassert run).
#
# The test run prints each version's counts, then ends with a line
# "total: N passed, N failed" (", N skipped" when something was skipped).
set -euo pipefail

host_version=15
supported="15 17 18"

usage() {
	echo "usage: $0 demo|test [--pg VERSIONS]   (VERSIONS: a comma-separated subset of: ${supported// /,})" >&2
	exit 2
}

mode=${1:-}
case "$mode" in
demo | test) shift ;;
*) usage ;;
esac

if [ "$mode" = demo ]; then
	versions=${BLOOM_PG_VERSIONS:-$host_version}
else
	versions=${BLOOM_PG_VERSIONS:-$supported}
fi
while [ $# -gt 0 ]; do
	case "$1" in
	--pg)
		[ $# -ge 2 ] || usage
		versions=${2//,/ }
		shift 2
		;;
	--pg=*)
		versions=${1#--pg=}
		versions=${versions//,/ }
		shift
		;;
	*) usage ;;
	esac
done
for v in $versions; do
	[[ " $supported " == *" $v "* ]] || {
		echo "PostgreSQL $v is not one this suite runs on (${supported// /, });" \
			"no Debian suite reachable here carries 16" >&2
		exit 2
	}
done
if [ "$mode" = demo ] && [ "$(echo "$versions" | wc -w)" -ne 1 ]; then
	echo "demo: name one version, e.g. --pg 18" >&2
	exit 2
fi

cd "$(dirname "$0")/.."
. tools/lib.sh

# ---- host packages ----
# The host's PostgreSQL is always installed: the Makefile needs a pg_config
# even for the core-only targets (fuzzing).
packages=(make gcc libc6-dev postgresql-$host_version postgresql-server-dev-$host_version
	postgresql-contrib)
# (the package tests use chroots for every version, and zip and unzip)
[ "$mode" = test ] && packages+=(wamerican-huge clang-format clang libclang-rt-14-dev debootstrap zip unzip git)
# (lld: wasm-ld, which links the JavaScript library's WebAssembly, clients/js/wasm)
[ "$mode" = test ] && packages+=(lld)
# the client libraries' tests (tests/clients): Debian's Python, its venv and
# build (the packages: tools/package.sh clients; python3-wheel-whl: the
# wheels pip builds a checkout or an sdist with, offline; psycopg 3: the
# Python examples' driver; node-postgres, the JavaScript examples', comes
# from npm's registry, pinned, in tests/clients/examples.sh)
[ "$mode" = test ] && packages+=(python3 python3-venv python3-build python3-setuptools python3-wheel python3-pip
	python3-wheel-whl python3-psycopg)
# ... Node (npm: Debian's, unless the node installed brings its own),
# esbuild (the JavaScript package's CommonJS entry, clients/js/cjs), tsc (its
# types, checked in the installed package) and Chromium
if [ "$mode" = test ]; then
	packages+=(nodejs esbuild node-typescript chromium)
	command -v npm >/dev/null || packages+=(npm)
fi
# other systems' filters against their makers (tests/interop): a JDK for
# Spark's classes and Guava, Guava itself, and XXH64 for the Parquet spec's
# reader (DuckDB comes from npm's registry, pinned by ../shared/interop)
[ "$mode" = test ] && packages+=(openjdk-17-jdk-headless libguava-java python3-xxhash)
for v in $versions; do
	[ "$v" = "$host_version" ] || {
		packages+=(debootstrap)
		break
	}
done
install_missing "${packages[@]}"

# on_version_run N CMD ...: CMD on the host, or in N's chroot.
on_version_run() {
	local v=$1
	shift
	if [ "$v" = "$host_version" ]; then
		"$@"
	else
		bash tools/chroot.sh run "$v" "$@"
	fi
}

# on_version MODE N: tools/suite.sh MODE N, on the host or in N's chroot.
# The pgbench load and the two random plan fuzzers run half as long on the
# versions other than the host's, which run every other test whole (their
# draws differ on each run anyway; LOAD_SECONDS, PLAN_FUZZ_CASES and
# PARALLEL_FUZZ_CASES, when set, apply to every version).
on_version() {
	if [ "$2" = "$host_version" ]; then
		bash tools/suite.sh "$1" "$2"
	else
		on_version_run "$2" env LOAD_SECONDS="${LOAD_SECONDS:-15}" \
			PLAN_FUZZ_CASES="${PLAN_FUZZ_CASES:-100}" PARALLEL_FUZZ_CASES="${PARALLEL_FUZZ_CASES:-40}" \
			bash tools/suite.sh "$1" "$2"
	fi
}

if [ "$mode" = demo ]; then
	on_version demo "$versions"
	exit
fi

# ---- tests ----
passed=0
failed=0
skipped=0
summary=()
started=$(date +%s)

# count LINE T0: add the counts of a line "NAME: P passed, F failed" to the
# totals, and the line with the seconds since T0 to the summary.
count() {
	local p f
	read -r p f <<<"$(echo "$1" | sed 's/^[^:]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/')"
	passed=$((passed + p))
	failed=$((failed + f))
	summary+=("$1 ($(($(date +%s) - $2)) s)")
}

# run_part NAME T0 CMD ...: run CMD, showing its output, and add the counts
# of its line "NAME: P passed, F failed" to the totals (one failure if it
# printed none: it did not finish), or count it as skipped if it printed
# "NAME: skipped (why)".  T0: when the part started, for the summary.
run_part() {
	local name=$1 t0=$2 log line
	shift 2
	log=$(mktemp)
	"$@" 2>&1 | tee "$log" || true
	if line=$(grep -E "^$name: skipped" "$log"); then
		skipped=$((skipped + 1))
		summary+=("$line")
	else
		grep -qE "^$name: [0-9]+ passed, [0-9]+ failed$" "$log" || echo "$name: did not finish"
		count "$(counts_line "$name" "$log")" "$t0"
	fi
	rm -f "$log"
}

# Make (or check) the chroots in the background while the host works: on a
# new machine that takes a few minutes each, mostly waiting for downloads.
# (the host's version has one too, for its package tests)
declare -A prep_pid prep_log
for v in $versions; do
	prep_log[$v]=$(mktemp)
	bash tools/chroot.sh prepare "$v" >"${prep_log[$v]}" 2>&1 &
	prep_pid[$v]=$!
done
stop_preparing() {
	local v
	for v in "${!prep_pid[@]}"; do
		kill -TERM "${prep_pid[$v]}" 2>/dev/null || true
		wait "${prep_pid[$v]}" 2>/dev/null || true
		rm -f "${prep_log[$v]}"
	done
}
trap stop_preparing EXIT
# chroot_ready N: wait for N's chroot (once), show how it was made; false if
# it could not be.
declare -A prep_ok
chroot_ready() {
	local v=$1
	if [ -n "${prep_pid[$v]:-}" ]; then
		prep_ok[$v]=1
		wait "${prep_pid[$v]}" || prep_ok[$v]=0
		unset "prep_pid[$v]"
		cat "${prep_log[$v]}"
		rm -f "${prep_log[$v]}"
	fi
	[ "${prep_ok[$v]:-1}" = 1 ]
}

# ---- the core, once: fuzzing and formatting do not depend on the server ----
HOST_PG_CONFIG=/usr/lib/postgresql/$host_version/bin/pg_config
fuzz_seconds=${FUZZ_SECONDS:-60}
fuzz_targets=(text binary makers)
if [ "$fuzz_seconds" = 0 ]; then
	echo "== libFuzzer: skipped (FUZZ_SECONDS=0)"
	skipped=$((skipped + ${#fuzz_targets[@]}))
else
	echo "== libFuzzer targets of the core's parsers ($fuzz_seconds s each, side by side)"
	# (built first, one at a time; then run together: each is time-boxed)
	make -s PG_CONFIG="$HOST_PG_CONFIG" "${fuzz_targets[@]/#/fuzz/fuzz_}" >/dev/null 2>&1 || true
	declare -A fuzz_log=() fuzz_pid=()
	for t in "${fuzz_targets[@]}"; do
		fuzz_log[$t]=$(mktemp)
		make -s PG_CONFIG="$HOST_PG_CONFIG" fuzzcheck FUZZ_TARGETS="fuzz/fuzz_$t" \
			FUZZ_SECONDS="$fuzz_seconds" >"${fuzz_log[$t]}" 2>&1 &
		fuzz_pid[$t]=$!
	done
	for t in "${fuzz_targets[@]}"; do
		log=${fuzz_log[$t]}
		if wait "${fuzz_pid[$t]}" && grep -q "^Done [0-9]* runs" "$log"; then
			echo "fuzz_$t: ok ($(grep -o '^Done [0-9]* runs' "$log"))"
			passed=$((passed + 1))
		else
			cat "$log"
			echo "fuzz_$t: FAILED"
			failed=$((failed + 1))
		fi
		rm -f "$log"
	done
fi

echo "== formatting (clang-format, .clang-format)"
if clang-format --dry-run -Werror bloomfilter.c src/*.c src/*.h src/runtime/*.c src/runtime/*.h src/runtime/*/*.c src/runtime/*/*.h src/index/*.c src/index/*.h core/*.c core/*.h tests/unit/*.c fuzz/*.c clients/js/wasm/*.c clients/js/wasm/include/*.h; then
	echo "format: ok"
	passed=$((passed + 1))
else
	echo "format: FAILED (run: clang-format -i bloomfilter.c src/*.[ch] src/runtime/*.[ch] src/runtime/*/*.[ch] src/index/*.[ch] core/*.[ch] tests/unit/*.c fuzz/*.c clients/js/wasm/*.c clients/js/wasm/include/*.h)"
	failed=$((failed + 1))
fi
echo "== the tree's shape (tests/unit/check_structure.sh) and its Markdown links (check_links.sh)"
for check in tests/unit/check_structure.sh tests/unit/check_links.sh; do
	if bash "$check"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
core_line="core: $passed passed, $failed failed"
[ "$skipped" -eq 0 ] || core_line+=", $skipped skipped"
summary+=("$core_line")

# ---- the suite, per server version ----
for v in $versions; do
	echo
	echo "======== PostgreSQL $v ========"
	t0=$(date +%s)
	# (the host's version needs its chroot only for its packages, below)
	if [ "$v" != "$host_version" ] && ! chroot_ready "$v"; then
		echo "PostgreSQL $v: its chroot could not be made (see above)"
		count "pg$v: 0 passed, 1 failed" "$t0"
		count "citus$v: 0 passed, 1 failed" "$t0"
		count "packages$v: 0 passed, 1 failed" "$t0"
		continue
	fi
	run_part "pg$v" "$t0" on_version test "$v"

	# ---- Citus: the aggregates and probes on a coordinator and two workers ----
	echo
	echo "======== Citus on PostgreSQL $v ========"
	run_part "citus$v" "$(date +%s)" on_version_run "$v" bash tests/citus/citus_test.sh "$v"

	# ---- PostgreSQL's own regression suite, filters off and forced ----
	# (on the host's version it runs on the cassert server, below)
	if [ "$v" != "$host_version" ]; then
		echo
		echo "======== PostgreSQL $v's own regression suite with runtime filters forced ========"
		run_part "pgsuite$v" "$(date +%s)" on_version_run "$v" bash tests/pg_suite/pg_suite.sh "$v"
	fi

	# ---- the Debian package: built, lintian, installed, upgraded, removed ----
	echo
	echo "======== the Debian package postgresql-$v-bloomfilter ========"
	if chroot_ready "$v"; then
		run_part "packages$v" "$(date +%s)" bash tests/packages/package_test.sh "$v"
	else
		echo "PostgreSQL $v: its chroot could not be made (see above)"
		count "packages$v: 0 passed, 1 failed" "$(date +%s)"
	fi
done

# ---- the client libraries, against every version's vectors ----
echo
echo "======== the client libraries (clients/), against the servers' answers ========"
run_part clients "$(date +%s)" env HOST_VERSION="$host_version" bash tests/clients/run.sh "$versions"

# ---- other systems' filters, against their makers (Guava, Spark, DuckDB) ----
echo
echo "======== other systems' filters against their makers (tests/interop) ========"
run_part interop "$(date +%s)" env HOST_VERSION="$host_version" bash tests/interop/run.sh "$versions"

# ---- the PGXN zip: make dist, checked, built and installed from it ----
if [[ " $versions " == *" $host_version "* ]]; then
	echo
	echo "======== the PGXN release zip (make dist) ========"
	run_part dist "$(date +%s)" bash tests/packages/dist_test.sh "$host_version"
fi

# ---- runtime filters shipped between major versions (postgres_fdw) ----
if [[ " $versions " == *" $host_version "* && " $versions " == *" 18 "* ]]; then
	echo
	echo "======== runtime filters shipped between PostgreSQL $host_version and 18 (postgres_fdw) ========"
	run_part fdw-15-18 "$(date +%s)" bash tests/fdw/cross_version.sh
fi

# ---- PostgreSQL's own assertions: make installcheck on a cassert server ----
if [[ " $versions " == *" $host_version "* ]]; then
	echo
	echo "======== PostgreSQL $host_version with --enable-cassert ========"
	if [ "${BLOOM_CASSERT:-1}" = 0 ]; then
		echo "cassert: skipped (BLOOM_CASSERT=0)"
		skipped=$((skipped + 1))
		summary+=("cassert: skipped")
	else
		run_part cassert "$(date +%s)" bash tools/cassert.sh
		echo
		echo "======== PostgreSQL $host_version's own regression suite with runtime filters forced, cassert ========"
		cassert_cache=${BLOOM_CASSERT_CACHE:-/var/cache/bloomfilter/pg15-cassert}
		run_part "pgsuite$host_version-cassert" "$(date +%s)" bash tests/pg_suite/pg_suite.sh "$host_version" \
			"$cassert_cache/install" "$cassert_cache/src/postgresql-$(cat "$cassert_cache/ready" 2>/dev/null)"
		# the cassert build replaced the objects: leave a plain build behind
		make -s PG_CONFIG="$HOST_PG_CONFIG" clean >/dev/null
	fi
fi

echo
echo "======== summary ($(($(date +%s) - started)) s) ========"
printf '%s\n' "${summary[@]}"
if [ "$skipped" -gt 0 ]; then
	echo "total: $passed passed, $failed failed, $skipped skipped"
else
	echo "total: $passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
