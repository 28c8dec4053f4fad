#!/usr/bin/env bash
# tools/pgsource.sh VERSION DEST: unpack the upstream source of PostgreSQL
# VERSION (e.g. 17.11), as Debian ships it (the orig tarball of the
# postgresql-MAJOR source package), into DEST/postgresql-VERSION.
#
# The tarball comes from the pool of the Debian mirror the host's apt uses.
# Where the pool lacks that exact minor version (an index can name a version
# whose files are gone: trixie's 17.12 gave 404 here), the nearest minor
# version of the same major one that the pool has is used instead, and the
# script says so on standard error.  Prints the version it unpacked.
set -euo pipefail

version=${1:-}
dest=${2:-}
[[ "$version" =~ ^([0-9]+)\.([0-9]+)$ ]] && [ -n "$dest" ] || {
	echo "usage: $0 VERSION DEST   (VERSION: major.minor, e.g. 17.11)" >&2
	exit 2
}
major=${BASH_REMATCH[1]}
minor=${BASH_REMATCH[2]}

# debian_mirror: the Debian mirror the host's apt uses
. "$(dirname "$0")/lib.sh"
mirror=$(debian_mirror)
pool=${mirror%/}/pool/main/p/postgresql-$major

# fetch V: download V's orig tarball into DEST; false if the pool lacks it
fetch() {
	local name=postgresql-${major}_$1.orig.tar.bz2
	if command -v curl >/dev/null; then
		curl -fsS -o "$dest/$name" "$pool/$name" 2>/dev/null
	else
		wget -q -O "$dest/$name" "$pool/$name"
	fi || {
		rm -f "$dest/$name"
		return 1
	}
}

mkdir -p "$dest"
# the exact version, then the nearest: one below, one above, two below, ...
candidates=("$minor")
for d in 1 2 3 4 5 6; do
	[ "$minor" -ge "$d" ] && candidates+=($((minor - d)))
	candidates+=($((minor + d)))
done
for c in "${candidates[@]}"; do
	if fetch "$major.$c"; then
		got=$major.$c
		[ "$c" = "$minor" ] ||
			echo "pgsource: the mirror's pool has no source of PostgreSQL $version; using $got, the nearest of $major.x it has" >&2
		rm -rf "$dest/postgresql-$got"
		tar -C "$dest" -xjf "$dest/postgresql-${major}_$got.orig.tar.bz2"
		rm -f "$dest/postgresql-${major}_$got.orig.tar.bz2"
		echo "$got"
		exit 0
	fi
done
echo "pgsource: no source of PostgreSQL $major.x near $version in $pool" >&2
exit 1
