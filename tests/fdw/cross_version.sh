#!/usr/bin/env bash
# tests/fdw/cross_version.sh: runtime filters shipped across major versions.
# A PostgreSQL 15 server on the host and a PostgreSQL 18 server in its chroot
# (tools/chroot.sh) share the loopback interface; each holds a remote table
# for the other, and each side runs the same hash join against the other's
# table through postgres_fdw (server option extensions 'bloomfilter'), with
# runtime filters forced, on and off:
#   15 -> 18: the filter built by 15 is read by 18's bloom_runtime_contains;
#   18 -> 15: the reverse.
# A case passes when the rows are the same on and off, the Remote SQL takes
# the filter, and the remote side sends fewer rows with it.  Run as root
# from the repository on the host, after `tools/run.sh` made the chroot of
# 18; ends with "fdw-15-18: N passed, N failed".
#   bash tests/fdw/cross_version.sh          the host's part (starts the rest)
#   bash tests/fdw/cross_version.sh inner    the chroot's part (run by the host's)
set -euo pipefail
cd "$(dirname "$0")/../.."
host_port=55715
chroot_port=55718
marks=/tmp/bloom-xv # in the chroot; on the host under the chroot's root

# setup_cluster BINDIR DIR PORT: a cluster of its own, trusting loopback,
# with the extension, a remote table `big` and a local key table `small`.
setup_cluster() {
	local bindir=$1 dir=$2 port=$3
	rm -rf "$dir" && mkdir -p "$dir" && chown postgres "$dir"
	su postgres -s /bin/bash -c "$bindir/initdb -D $dir/data -A trust --no-sync >/dev/null"
	echo "host all all 127.0.0.1/32 trust" >>"$dir/data/pg_hba.conf"
	su postgres -s /bin/bash -c "$bindir/pg_ctl -D $dir/data -l $dir/log -w -o \"-p $port -k $dir -c listen_addresses=127.0.0.1 -c jit=off -c max_parallel_workers_per_gather=0\" start >/dev/null"
	psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE TABLE big AS SELECT g::int8 AS k, 'row ' || g AS payload FROM generate_series(1, 200000) g;
CREATE TABLE small AS SELECT g * 20 AS k FROM generate_series(1, 10000) g;
ANALYZE big, small;
SQL
}

# probe_other NAME PORT OTHERPORT: on the server at PORT, join small with
# the other server's big through postgres_fdw; prints "fdw-15-18: NAME: ok|FAILED".
probe_other() {
	local name=$1 port=$2 other=$3 out
	out=$(psql -X -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres <<SQL 2>&1
CREATE SERVER other FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host '127.0.0.1', port '$other', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR postgres SERVER other OPTIONS (user 'postgres');
CREATE FOREIGN TABLE other_big (k int8, payload text) SERVER other OPTIONS (table_name 'big');
ANALYZE other_big;
LOAD 'bloomfilter';
SET bloomfilter.runtime_filter_force = on;
SELECT 'version ' || current_setting('server_version_num');
CREATE TEMP TABLE r_on AS SELECT b.k, b.payload FROM other_big b JOIN small s ON b.k = s.k;
SET bloomfilter.runtime_filter = off;
CREATE TEMP TABLE r_off AS SELECT b.k, b.payload FROM other_big b JOIN small s ON b.k = s.k;
SET bloomfilter.runtime_filter = on;
SELECT 'same: ' || ((SELECT count(*) FROM r_on) = (SELECT count(*) FROM r_off)
       AND NOT EXISTS ((SELECT * FROM r_on EXCEPT ALL SELECT * FROM r_off)
                       UNION ALL (SELECT * FROM r_off EXCEPT ALL SELECT * FROM r_on)));
EXPLAIN (VERBOSE, COSTS OFF) SELECT b.k, b.payload FROM other_big b JOIN small s ON b.k = s.k;
EXPLAIN (ANALYZE, TIMING OFF, SUMMARY OFF) SELECT b.k, b.payload FROM other_big b JOIN small s ON b.k = s.k;
SQL
	) || true
	local remote_rows
	remote_rows=$(sed -n 's/.*Foreign Scan on other_big.*actual rows=\([0-9]*\).*/\1/p' <<<"$out" | head -n 1)
	if grep -q '^same: true' <<<"$out" && grep -q 'Remote SQL: .*bloom_runtime_contains' <<<"$out" &&
		[ -n "$remote_rows" ] && [ "$remote_rows" -lt 200000 ]; then
		echo "fdw-15-18: $name: ok (the remote side sent $remote_rows of 200000 rows; $(grep '^version' <<<"$out"))"
	else
		echo "fdw-15-18: $name: FAILED"
		echo "$out"
	fi
}

if [ "${1:-}" = inner ]; then
	# ---- in the chroot of 18: serve, then probe the host's 15 ----
	bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
	make -s PG_CONFIG="$bindir/pg_config" install >/dev/null
	setup_cluster "$bindir" /tmp/bloom-xv18 "$chroot_port"
	mkdir -p "$marks" && touch "$marks/ready"
	for _ in $(seq 1 600); do
		[ -f "$marks/host_done" ] && break
		sleep 0.5
	done
	probe_other "18 -> 15" "$chroot_port" "$host_port"
	su postgres -s /bin/bash -c "$bindir/pg_ctl -D /tmp/bloom-xv18/data -m fast stop >/dev/null"
	exit 0
fi

# ---- on the host (15): start our server and the chroot's, probe 18 ----
root=$(ls -d "${BLOOM_CHROOT_CACHE:-/var/cache/bloomfilter/chroots}"/pg18-* 2>/dev/null | head -n 1)
[ -n "$root" ] || {
	echo "fdw-15-18: skipped (no chroot of 18)"
	exit 0
}
hostbin=/usr/lib/postgresql/15/bin
rm -rf "$root$marks"
setup_cluster "$hostbin" /tmp/bloom-xv15 "$host_port"
stop_host() { su postgres -s /bin/bash -c "$hostbin/pg_ctl -D /tmp/bloom-xv15/data -m fast stop >/dev/null 2>&1" || true; }
trap stop_host EXIT
inner_log=$(mktemp)
bash tools/chroot.sh run 18 bash tests/fdw/cross_version.sh inner >"$inner_log" 2>&1 &
inner=$!
for _ in $(seq 1 900); do
	[ -f "$root$marks/ready" ] && break
	kill -0 "$inner" 2>/dev/null || break
	sleep 1
done
results=()
if [ -f "$root$marks/ready" ]; then
	results+=("$(probe_other "15 -> 18" "$host_port" "$chroot_port")")
else
	results+=("fdw-15-18: 15 -> 18: FAILED (the chroot's server did not start)")
fi
mkdir -p "$root$marks" && touch "$root$marks/host_done"
wait "$inner" || true
results+=("$(grep -A 1000 '^fdw-15-18: 18 -> 15' "$inner_log" || echo "fdw-15-18: 18 -> 15: FAILED (no result)")")
printf '%s\n' "${results[@]}"
passed=$(printf '%s\n' "${results[@]}" | grep -c ': ok (' || true)
failed=$(printf '%s\n' "${results[@]}" | grep -c ': FAILED' || true)
if [ "$failed" -gt 0 ]; then
	echo "== the chroot's output"
	cat "$inner_log"
fi
rm -f "$inner_log"
echo "fdw-15-18: $passed passed, $failed failed"
