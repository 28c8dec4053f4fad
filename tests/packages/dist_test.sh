#!/usr/bin/env bash
# tests/packages/dist_test.sh [N]: the PGXN release zip (make dist), as PGXN
# and a user get it (run as root on the host, in a checkout; N: the
# PostgreSQL version to build it for, default 15).
#
#   1. make dist builds bloomfilter-<version>.zip of HEAD, and
#      tools/pgxn_check.pl finds it right: META.json against PGXN's spec 1.0.0,
#      and the zip against the tree;
#   2. the checker is not blind: a zip whose META.json says another version
#      than its directory, its name and the control file is refused;
#   3. in a fresh copy of N's chroot (the extension never built there), a
#      bare "make && make install" in the unpacked zip builds and installs it,
#      and CREATE EXTENSION bloomfilter gives the control file's version,
#      whose functions answer.
#
# Ends with "dist: P passed, F failed".
set -uo pipefail
version=${1:-15}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
name=dist
. tests/packages/steps.sh

# make dist in a clean clone of HEAD, so that no build product of the
# checkout can reach the zip
builds() {
	git clone -q "$top" "$work/clone" &&
		make -s -C "$work/clone" dist PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config &&
		zip=$(ls "$work"/clone/bloomfilter-*.zip) && cp "$zip" "$work/"
}

refuses_a_wrong_zip() {
	local bad=$work/bad name out
	name=$(basename "$zip" .zip)
	mkdir -p "$bad" && (cd "$bad" && unzip -q "$zip") || return 1
	sed -i 's/^   "version": "[^"]*",$/   "version": "9.9.9",/' "$bad/$name/META.json"
	(cd "$bad" && zip -q -r "$bad/$name.zip" "$name") || return 1
	out=$(cd "$work/clone" && perl tools/pgxn_check.pl "$bad/$name.zip") && return 1
	echo "$out" | grep -q "sit under $name/, not bloomfilter-9.9.9/" &&
		echo "$out" | grep -q "is named $name.zip, not bloomfilter-9.9.9.zip"
}

zip=
step "make dist, checked against PGXN's META.json spec and the tree" builds
step "the checker refuses a zip whose META.json version disagrees" refuses_a_wrong_zip
if [ -n "$zip" ]; then
	mkdir -p "$work/input" && (cd "$work/input" && unzip -q "$zip")
	log=$work/chroot.log
	BLOOM_CHROOT_INPUT=$work/input bash tools/chroot.sh fresh "$version" \
		bash tests/packages/dist_install.sh "$(basename "$zip" .zip)" "$version" 2>&1 | tee "$log"
	step "make && make install from the unpacked zip, then CREATE EXTENSION, on $version" \
		grep -q "^dist_install: ok" "$log"
else
	step "make && make install from the unpacked zip" false
fi
steps_end
