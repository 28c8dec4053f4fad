#!/usr/bin/env bash
# tests/packages/dist_install.sh DIR N: inside a fresh chroot
# (tests/packages/dist_test.sh), a bare "make && make install" of the
# unpacked PGXN zip /build/input/DIR, then CREATE EXTENSION on a throwaway
# cluster of PostgreSQL N.  Prints "dist_install: ok" at the end.
set -euo pipefail
dir=/build/input/$1
version=$2
export PATH=/usr/lib/postgresql/$version/bin:$PATH
! compgen -G "$(pg_config --pkglibdir)/bloomfilter*" >/dev/null
cd "$dir"
make -s -j2
make -s install
want=$(sed -n "s/^default_version = '\(.*\)'/\1/p" bloomfilter.control)
got=$(pg_virtualenv -v "$version" -t psql -X -At -v ON_ERROR_STOP=1 -c "CREATE EXTENSION bloomfilter" \
	-c "SELECT extversion || ' ' || (bloom_agg(g, 100, 0.01) @> 42) FROM pg_extension, generate_series(1, 100) g WHERE extname = 'bloomfilter' GROUP BY extversion" | grep -E '^[0-9.]+ (true|false)$' || true)
echo "CREATE EXTENSION bloomfilter: $got"
[ "$got" = "$want true" ]
echo "dist_install: ok ($(pg_config --version), bloomfilter $want from $(basename "$dir").zip)"
