#!/usr/bin/env bash
# tools/cassert.sh: the pg_regress suite against a PostgreSQL 15 server built
# with --enable-cassert, so that PostgreSQL's own assertions check how the
# extension uses its APIs, the extension's Assert()s run, and the core's
# assert()s too (the Makefile keeps them for a cassert server).
#
# The server is built once from Debian's source of postgresql-15 (the
# upstream tarball, unpatched; 264 s on 2 cores here) and cached in
# $BLOOM_CASSERT_CACHE (default /var/cache/bloomfilter/pg15-cassert: the
# installation in install/, the built tree in src/postgresql-VERSION, the
# version in ready); later runs only rebuild the extension.  Run as root
# from the repository.  The server runs as postgres on a throwaway data
# folder and is stopped on every exit path.  Ends with "cassert: N passed,
# N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
top=$(pwd)
cache=${BLOOM_CASSERT_CACHE:-/var/cache/bloomfilter/pg15-cassert}
prefix=$cache/install
export DEBIAN_FRONTEND=noninteractive

install_missing bison flex libreadline-dev zlib1g-dev libicu-dev pkg-config make gcc perl curl

# ---- the server, built once ----
# From the upstream source of the host's own PostgreSQL 15 version, as
# Debian ships it (tools/pgsource.sh).  The configured and built tree stays
# in the cache: PostgreSQL's own regression suite runs from it
# (tests/pg_suite/pg_suite.sh, called by tools/run.sh after this script).
build_server() {
	local host version
	host=$(/usr/lib/postgresql/15/bin/postgres --version | sed -n 's/^postgres (PostgreSQL) \([0-9]*\.[0-9]*\).*/\1/p')
	rm -rf "$cache/src" "$prefix" "$cache/ready"
	version=$(bash tools/pgsource.sh "${host:-15.0}" "$cache/src")
	echo "== cassert: building PostgreSQL $version with --enable-cassert into $prefix"
	(cd "$cache/src/postgresql-$version" &&
		./configure --quiet --prefix="$prefix" --enable-cassert --enable-debug --without-llvm \
			--with-icu CFLAGS="-O2 -g" >"$cache/configure.log" 2>&1 &&
		make -s -j"$(nproc)" >"$cache/make.log" 2>&1 &&
		make -s install >>"$cache/make.log" 2>&1 &&
		make -s -C src/test/regress >>"$cache/make.log" 2>&1) || {
		tail -n 30 "$cache/make.log" "$cache/configure.log" 2>/dev/null
		echo "cassert: building the server failed"
		return 1
	}
	echo "$version" >"$cache/ready"
}

mkdir -p "$cache"
# (a cache from before the tree was kept has no suite to run)
if [ ! -f "$cache/ready" ] || [ ! -f "$cache/src/postgresql-$(cat "$cache/ready")/src/test/regress/regress.so" ]; then
	t0=$(date +%s)
	build_server
	echo "== cassert: server built in $(($(date +%s) - t0)) s"
fi
pg_config=$prefix/bin/pg_config
"$pg_config" --configure | grep -q -- --enable-cassert

# ---- the extension against it ----
make -s PG_CONFIG="$pg_config" clean >/dev/null
make -s -j"$(nproc)" PG_CONFIG="$pg_config" >/dev/null
make -s PG_CONFIG="$pg_config" install >/dev/null

# ---- a throwaway server ----
work=$(mktemp -d /tmp/bloom-cassert.XXXXXX)
chown postgres "$work"
chmod -R a+rX "$top"
port=54330
as_pg() { su postgres -s /bin/bash -c "$*"; }
stop() {
	as_pg "$prefix/bin/pg_ctl -D $work/data -m immediate stop >/dev/null 2>&1" || true
	rm -rf "$work"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
as_pg "$prefix/bin/initdb -D $work/data -A trust >/dev/null"
as_pg "$prefix/bin/pg_ctl -D $work/data -l $work/server.log -w \
	-o \"-p $port -k $work -c listen_addresses='' -c jit=off\" start >/dev/null"

log=$(mktemp)
rm -rf results regression.diffs regression.out output_iso
PGHOST=$work PGPORT=$port PGUSER=postgres make -s PG_CONFIG="$pg_config" installcheck >"$log" 2>&1 || true
cat "$log"
for diffs in regression.diffs output_iso/regression.diffs; do
	if [ -f "$diffs" ]; then cat "$diffs"; fi
done
if grep -q "TRAP:" "$work/server.log"; then
	echo "== assertion failures in the server log"
	grep -A3 "TRAP:" "$work/server.log"
fi
read -r ok bad <<<"$(regress_counts "$log")"
traps=$(grep -c "TRAP:" "$work/server.log" || true)
rm -f "$log"
[ "$ok" -gt 0 ] || bad=$((bad + 1))
bad=$((bad + traps))
echo "cassert: $ok passed, $bad failed"
[ "$bad" -eq 0 ]
