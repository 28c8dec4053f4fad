#!/usr/bin/env bash
# tests/citus/build.sh N: build Citus from the vendored source against
# PostgreSQL N once, cache the build, and install it into that server's
# folders (again on every run: a package upgrade may have removed it).
#
# The source is ../shared/vendor/citus-13.2.2.tar.gz beside the checkout
# (BLOOM_CITUS_TARBALL overrides it).  Exit status 3 when it is absent, so
# that the caller can count the Citus tests as skipped.  The build is kept in
# $BLOOM_CITUS_CACHE (default /var/cache/bloomfilter/citus)/pgN as a staged
# install (make install DESTDIR=...), keyed on the tarball's checksum and the
# server's version; building took 121 s here (2 cores).  Run as root.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tools/lib.sh

version=${1:?usage: $0 N}
tarball=${BLOOM_CITUS_TARBALL:-../shared/vendor/citus-13.2.2.tar.gz}
cache=${BLOOM_CITUS_CACHE:-/var/cache/bloomfilter/citus}/pg$version
pg_config=/usr/lib/postgresql/$version/bin/pg_config

if [ ! -f "$tarball" ]; then
	echo "citus: the vendored Citus source is absent ($tarball)"
	exit 3
fi
case "$version" in
15 | 16 | 17) ;;
*)
	echo "citus: Citus 13.2.2 supports PostgreSQL 15 to 17, not $version"
	exit 3
	;;
esac

# Citus's build dependencies (its README and ../shared/vendor/README.md).
# (libicu-dev: the server's headers include ICU's.)  tools/chroot.sh
# installs the same list into the chroots.
install_missing make gcc libc6-dev perl postgresql-server-dev-"$version" libicu-dev liblz4-dev \
	libzstd-dev libkrb5-dev libssl-dev libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev

key="$(sha256sum "$tarball" | cut -d' ' -f1) $("$pg_config" --version)"
if [ ! -f "$cache/ready" ] || [ "$(cat "$cache/ready")" != "$key" ]; then
	t0=$(date +%s)
	rm -rf "$cache"
	mkdir -p "$cache/src" "$cache/stage"
	tar -C "$cache/src" --strip-components=1 -xzf "$tarball"
	# PostgreSQL 15.20 exports have_createdb_privilege(), which Citus 13.2.2
	# also defines as a static inline for 15 and 16: rename Citus's copy.
	compat=$cache/src/src/include/pg_version_compat.h
	perl -0pi -e 's/\n(static inline bool\nhave_createdb_privilege\(void\))/\n#define have_createdb_privilege citus_compat_have_createdb_privilege\n$1/' \
		"$compat"
	grep -q '^#define have_createdb_privilege citus_compat_' "$compat" || {
		echo "citus: could not apply the have_createdb_privilege rename to $compat"
		exit 1
	}
	echo "== citus: building Citus 13.2.2 against $("$pg_config" --version) in $cache"
	if ! (cd "$cache/src" &&
		./configure --quiet PG_CONFIG="$pg_config" --without-libcurl >"$cache/configure.log" 2>&1 &&
		make -s -j"$(nproc)" >"$cache/make.log" 2>&1 &&
		make -s install DESTDIR="$cache/stage" >>"$cache/make.log" 2>&1); then
		tail -n 30 "$cache/configure.log" "$cache/make.log" 2>/dev/null || true
		echo "citus: building Citus failed (logs in $cache)"
		exit 1
	fi
	rm -rf "$cache/src"
	echo "$key" >"$cache/ready"
	echo "== citus: built in $(($(date +%s) - t0)) s"
fi
cp -a "$cache/stage/." /
echo "== citus: installed Citus 13.2.2 into $("$pg_config" --version)"
