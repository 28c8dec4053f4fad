#!/usr/bin/env bash
# tests/interop/check_version.sh VERSION DIR N FPP: the makers' filters in DIR
# (tests/interop/run.sh wrote them, with their keys and their answers)
# checked by tests/interop/check.sql on a throwaway cluster of VERSION: each
# case's line, and exit status 0 only if every key was answered as its
# maker answered and every byte comparison held.  Runs on the host or in a
# version's chroot (tools/chroot.sh), from the top folder.
set -uo pipefail
version=$1 dir=$2 n=$3 fpp=$4
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
# (the server reads the files: they must be readable by postgres)
chmod -R a+rX "$dir"
if ! pg_virtualenv -v "$version" -t psql -X -q -v dir="$dir" -v n="$n" -v fpp="$fpp" \
	-f tests/interop/check.sql >"$out" 2>"$err"; then
	cat "$out" "$err"
	echo "check.sql failed on $version"
	exit 1
fi
status=0
cases=0
# the cases' lines only ("name|keys|as_maker|same_bytes|stored_as_maker"); the
# rest (pg_virtualenv's, CREATE EXTENSION's advice) is not a case
while IFS='|' read -r name keys as_maker same stored; do
	[[ "$keys" =~ ^[0-9]+$ && "$as_maker" =~ ^[0-9]+$ ]] || continue
	cases=$((cases + 1))
	verdict=ok
	if [ "$keys" != "$((2 * n))" ] || [ "$as_maker" != "$keys" ] || [ "$same" = false ] ||
		[ "$stored" != "$keys" ]; then
		verdict=FAILED
		status=1
	fi
	bytes=""
	[ -n "$same" ] && bytes=", bloom_agg gives the same bytes as the maker: $same"
	echo "  $name: $as_maker of $keys keys answered as the maker ($stored stored out of line)$bytes ($verdict)"
done <"$out"
[ "$cases" -ge 22 ] || {
	cat "$out"
	echo "only $cases cases reported"
	status=1
}
exit "$status"
