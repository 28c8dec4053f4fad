#!/usr/bin/env bash
# tests/packages/package_test.sh N: the Debian package of PostgreSQL N, built
# and tested as installed (run as root on the host; the test command runs it
# for 15, 17 and 18).
#
#   1. tools/package.sh builds postgresql-N-bloomfilter from this tree in N's
#      chroot and runs lintian (no error allowed; warnings reported), and
#      builds the previous release's package (1.5.0, from its commit, with
#      this tree's debian/) to upgrade from; that one is cached in
#      $BLOOM_PACKAGE_CACHE (default /var/cache/bloomfilter/packages), keyed
#      by the packaging files;
#   2. tests/packages/installed.sh installs, tests (autopkgtest), upgrades
#      and removes them in a fresh copy of the chroot where the extension was
#      never built (tools/chroot.sh fresh).
#
# Ends with "packagesN: P passed, F failed".
set -uo pipefail
version=$1
name=packages$version
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
# The previous release: the last commit of 1.5 (the next one makes 1.6).
previous_commit=58659d03fb592ee2ed1bfc8375116544532a3d23
previous_version=1.5.0-1
cache_root=${BLOOM_PACKAGE_CACHE:-/var/cache/bloomfilter/packages}
key=$(cat debian/control.in debian/rules debian/pgversions debian/copyright debian/README.Debian \
	tools/package.sh | sha1sum | cut -c1-12)
cache=$cache_root/pg$version-$previous_version-$key
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. tests/packages/steps.sh

mkdir -p "$work/input" "$work/built" "$work/debs"
if [ -f "$cache/ready" ]; then
	echo "== $name: the $previous_version package, cached: $cache"
elif git cat-file -e "$previous_commit^{commit}" 2>/dev/null; then
	git archive "$previous_commit" >"$work/input/previous.tar"
	echo "$previous_version" >"$work/input/previous.version"
else
	echo "$name: commit $previous_commit ($previous_version) is not in this clone"
fi

build() {
	BLOOM_CHROOT_INPUT=$work/input BLOOM_CHROOT_OUTPUT=$work/built \
		bash tools/chroot.sh run "$version" bash tools/package.sh --inside "$version"
}
echo "== $name: building"
step "build and lintian" build
echo "$name: lintian: $(grep -c '^W: ' "$work/built/lintian-$version.txt" 2>/dev/null || true) warnings"
if [ -d "$work/built/previous" ]; then
	mkdir -p "$cache.new"
	cp "$work"/built/previous/*.deb "$cache.new/"
	touch "$cache.new/ready"
	rm -rf "$cache"
	mv "$cache.new" "$cache"
fi

if [ "$failed" = 0 ]; then
	cp "$work"/built/*.deb "$work/debs/"
	mkdir -p "$work/debs/previous"
	cp "$cache"/*.deb "$work/debs/previous/" 2>/dev/null || true
	log=$work/installed.log
	BLOOM_CHROOT_INPUT=$work/debs bash tools/chroot.sh fresh "$version" \
		bash tests/packages/installed.sh "$version" 2>&1 | tee "$log"
	line=$(grep -E "^installed$version: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		read -r ok bad <<<"$(echo "$line" | sed 's/^[^:]*: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/')"
		passed=$((passed + ok))
		failed=$((failed + bad))
	else
		echo "$name: the installed package's test did not finish"
		failed=$((failed + 1))
	fi
fi
steps_end
