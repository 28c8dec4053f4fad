#!/usr/bin/env bash
# tests/fdw/type_pairs_xv.sh LOCAL REMOTE: tests/fdw/type_pairs.sh across
# major versions, each in its chroot (tools/chroot.sh): a server of
# PostgreSQL REMOTE holds the remote databases, and type_pairs.sh runs on a
# throwaway cluster of PostgreSQL LOCAL against it (REMOTE_PGHOST,
# REMOTE_PGPORT).  The two must differ (each chroot is locked while in use).
# This is where the hash functions' names differ (18 has hashdate, hashbool,
# hashbytea and timestamptz_hash where 15 and 17 hash those types with
# hashint4, hashchar, hashvarlena and timestamp_hash): the remote side must
# hash as the local probe does.  Run as root from the repository, after the
# chroots exist; ends with "type_pairs: N passed, N failed".
#   bash tests/fdw/type_pairs_xv.sh 15 18
set -uo pipefail
cd "$(dirname "$0")/../.."
local_v=${1:?usage: $0 LOCAL REMOTE}
remote_v=${2:?usage: $0 LOCAL REMOTE}
[ "$local_v" != "$remote_v" ] || {
	echo "$0: LOCAL and REMOTE must differ" >&2
	exit 2
}
remote_port=557$remote_v
cache=${BLOOM_CHROOT_CACHE:-/var/cache/bloomfilter/chroots}
root=$(ls -d "$cache"/pg"$remote_v"-* 2>/dev/null | grep -v pristine | head -n 1)
[ -n "$root" ] || {
	echo "type_pairs: no chroot of $remote_v"
	echo "type_pairs: 0 passed, 1 failed"
	exit 1
}
marks=/tmp/bloom-types-xv
rm -rf "${root:?}$marks"
remote_log=$(mktemp)
# the remote server, in its chroot, until the local part is done
bash tools/chroot.sh run "$remote_v" bash -c '
bindir=/usr/lib/postgresql/'"$remote_v"'/bin
make -s with_llvm=no >/dev/null 2>&1 && make -s with_llvm=no install >/dev/null || exit 1
rm -rf /tmp/bloom-types-data && mkdir -p /tmp/bloom-types-data '"$marks"'
chown postgres /tmp/bloom-types-data
su postgres -s /bin/bash -c "$bindir/initdb -D /tmp/bloom-types-data/data -A trust --no-sync >/dev/null"
echo "host all all 127.0.0.1/32 trust" >>/tmp/bloom-types-data/data/pg_hba.conf
su postgres -s /bin/bash -c "$bindir/pg_ctl -D /tmp/bloom-types-data/data -l /tmp/bloom-types-data/log -w \
  -o \"-p '"$remote_port"' -k /tmp/bloom-types-data -c listen_addresses=127.0.0.1\" start >/dev/null"
touch '"$marks"'/ready
for _ in $(seq 1 2400); do [ -f '"$marks"'/done ] && break; sleep 0.5; done
su postgres -s /bin/bash -c "$bindir/pg_ctl -D /tmp/bloom-types-data/data -m fast stop >/dev/null"
' >"$remote_log" 2>&1 &
server=$!
for _ in $(seq 1 900); do
	[ -f "$root$marks/ready" ] && break
	kill -0 "$server" 2>/dev/null || break
	sleep 1
done
if [ -f "$root$marks/ready" ]; then
	bash tools/chroot.sh run "$local_v" bash -c "make -s with_llvm=no >/dev/null 2>&1 && make -s with_llvm=no install >/dev/null &&
		REMOTE_PGHOST=127.0.0.1 REMOTE_PGPORT=$remote_port PGPORT=556$local_v \
		pg_virtualenv -v $local_v -t bash tests/fdw/type_pairs.sh" 2>&1 | grep -v NOTICE
else
	echo "type_pairs: the server of $remote_v did not start"
	cat "$remote_log"
	echo "type_pairs: 0 passed, 1 failed"
fi
mkdir -p "$root$marks" && touch "$root$marks/done"
wait "$server" || true
rm -f "$remote_log"
