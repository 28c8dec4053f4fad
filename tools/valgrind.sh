#!/usr/bin/env bash
# tools/valgrind.sh: the pg_regress suite against a throwaway server running
# under valgrind (memcheck, --trace-children=yes), then a scan of valgrind's
# logs for invalid reads and writes, and for any error in a frame of the
# extension.  Slow (tens of minutes); a separate command, not part of
# tools/run.sh test.  Run as root from the repository, after tools/run.sh
# has installed the packages.  Ends with "valgrind: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
. tools/lib.sh
install_missing valgrind
bindir=$(/usr/lib/postgresql/15/bin/pg_config --bindir)
make -s PG_CFLAGS="-Wall -Wextra -Werror -Wno-unused-parameter -O1 -g" clean all install >/dev/null

work=$(mktemp -d /tmp/bloom-valgrind.XXXXXX)
chown postgres "$work"
port=54329
run_pg() { su postgres -s /bin/bash -c "$*"; }
run_pg "$bindir/initdb -D $work/data -A trust >/dev/null"
# max_parallel_workers_per_gather stays on: workers run under valgrind too.
# jit=off: loading the LLVM JIT provider trips valgrind in glibc's dynamic
# loader (strncmp in dl-load.c reading past a string's end, a known false
# positive), which would hide what matters here.
run_pg "valgrind --quiet --trace-children=yes --track-origins=no --num-callers=30 \
	--error-limit=no --log-file=$work/vg.%p.log \
	$bindir/postgres -D $work/data -p $port -k $work -c max_connections=20 -c jit=off \
	>$work/server.log 2>&1 &"
for _ in $(seq 1 120); do
	run_pg "$bindir/pg_isready -h $work -p $port -q" && break
	sleep 1
done
status=0
PGHOST=$work PGPORT=$port PGUSER=postgres make -s installcheck || status=$?
run_pg "$bindir/pg_ctl -D $work/data -m fast stop >/dev/null" || true
sleep 2

invalid=$(grep -l -E "Invalid (read|write)|Invalid free|Mismatched free" "$work"/vg.*.log 2>/dev/null | wc -l || true)
ours=$(grep -l -E "bloomfilter\.so" "$work"/vg.*.log 2>/dev/null | wc -l || true)
echo "valgrind logs: $(ls "$work"/vg.*.log | wc -l) processes; with invalid access: $invalid; mentioning bloomfilter.so: $ours"
if [ "$invalid" -gt 0 ] || [ "$ours" -gt 0 ]; then
	grep -h -B2 -A30 -E "Invalid (read|write)|bloomfilter\.so" "$work"/vg.*.log | head -200
fi
passed=0
failed=0
[ "$status" -eq 0 ] && passed=$((passed + 1)) || failed=$((failed + 1))
[ "$invalid" -eq 0 ] && [ "$ours" -eq 0 ] && passed=$((passed + 1)) || failed=$((failed + 1))
echo "logs kept in $work"
echo "valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
