#!/usr/bin/env bash
# tests/clients/make_vectors.sh N OUT: the client libraries' test vectors
# (tests/clients/vectors.sql), made by PostgreSQL N on a throwaway cluster,
# into OUT/vectors-N.jsonl, and its window filters' (tests/clients/windows.sql)
# into OUT/windows-N.jsonl.  Run as root where the extension is installed
# for N (tools/suite.sh installed it: on the host, or in N's chroot, whose
# output is /build/output).  ADDED and ABSENT: values per type (2,000 and
# 100,000).
set -euo pipefail
version=$1
out=$2
mkdir -p "$out"
chmod a+rwx "$out"
chmod -R a+rX . 2>/dev/null || true
PG_CONFIG=/usr/lib/postgresql/$version/bin/pg_config
# the extension as this tree builds it (the suite's install, or a fresh one)
if [ ! -f "$("$PG_CONFIG" --sharedir)/extension/bloomfilter.control" ]; then
	make -s PG_CONFIG="$PG_CONFIG" >/dev/null && make -s PG_CONFIG="$PG_CONFIG" install >/dev/null
fi
file=$out/vectors-$version.jsonl
# (1.12) and the window filters: cases the clients replay (tests/clients/windows.sql)
windows=$out/windows-$version.jsonl
# one throwaway cluster for both (pg_virtualenv says what it creates and
# drops on stdout too: the vectors are the JSON lines)
pg_virtualenv -v "$version" -t bash -c '
	psql -X -q -At -v ON_ERROR_STOP=1 -v added="$1" -v absent="$2" -f tests/clients/vectors.sql >"$3.raw" &&
	psql -X -q -At -v ON_ERROR_STOP=1 -f tests/clients/windows.sql >"$4.raw"' \
	make_vectors "${ADDED:-2000}" "${ABSENT:-100000}" "$file" "$windows"
grep '^{' "$file.raw" >"$file"
rm -f "$file.raw"
[ "$(wc -l <"$file")" -eq 14 ] || { echo "vectors-$version: expected 14 types"; exit 1; }
echo "vectors-$version: $(wc -l <"$file") types, $(($(wc -c <"$file") / 1024)) kB"
grep '^{' "$windows.raw" >"$windows"
rm -f "$windows.raw"
[ "$(wc -l <"$windows")" -eq 10 ] || { echo "windows-$version: expected 10 cases"; exit 1; }
echo "windows-$version: $(wc -l <"$windows") cases"
