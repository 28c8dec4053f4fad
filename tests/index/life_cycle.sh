#!/usr/bin/env bash
# tests/index/life_cycle.sh: a bloomfilter index through what a server goes
# through, on servers of its own (a primary and a streaming standby, each
# running as postgres on a data folder under /tmp, on loopback):
#   - crash: four clients insert keys in single-row transactions while the
#     index grows by layers and a checkpoint passes, then every process of
#     the server is killed (SIGKILL); after recovery every row the table
#     holds (every committed one) has its key in the index, and every page
#     is whole (bloom_index_verify);
#   - standby: a standby made from a base backup replays inserts that grow
#     the index, and answers every key as the primary does, its filter
#     (bloom_index_filter) the same bytes;
#   - an unlogged table's index after the crash is empty, and takes keys
#     again, into a first layer of the size it was built with;
#   - pg_dump / pg_restore: the index is rebuilt in the restored database,
#     with its options, and holds the keys;
#   - pages an interrupted growth left past the last layer are reused by
#     the next layer;
#   - a rebuild of the filter (1.12) killed mid-scan with the server, inserts
#     going on: after recovery every key is there, and VACUUM frees the
#     rebuild's layer and rebuilds; a rebuild with vacuum_cost_delay set
#     pauses as VACUUM does, and a cancel there leaves the filter whole; a
#     standby replays a rebuild to the primary's bytes;
#   - an index written by 1.9 to 1.11 (a version 1 metapage, made here by
#     hand) is read, written and rebuilt;
#   - a filter that could not grow (its metapage says so, by hand) takes
#     every key in its last layer, and VACUUM rebuilds it for its rate;
#   - a damaged page, or a metapage naming pages past the end of the file,
#     is reported as index corruption (XX002), and the server stays up.
# Run as root with the extension installed into PostgreSQL N:
#   bash tests/index/life_cycle.sh N
# Ends with "life_cycle: P passed, F failed".
set -uo pipefail

version=${1:-15}
bin=/usr/lib/postgresql/$version/bin
port=${BLOOM_LIFE_PORT:-56300}
work=$(mktemp -d /tmp/bloom-life.XXXXXX)
chown postgres "$work"
passed=0
failed=0

as_pg() { su postgres -s /bin/bash -c "$*"; }

stop_all() {
	local d
	for d in primary standby; do
		[ -d "$work/$d" ] && as_pg "$bin/pg_ctl -D $work/$d -m immediate stop >/dev/null 2>&1"
	done
	if [ "$failed" -gt 0 ]; then
		tail -n 20 "$work"/*.log 2>/dev/null
	fi
	rm -rf "$work"
}
trap stop_all EXIT

# sql NODE [DB]: psql on the primary (0) or the standby (1), SQL from standard input.
sql() {
	PGHOST=$work PGPORT=$((port + $1)) PGUSER=postgres psql -X -q -At -v ON_ERROR_STOP=1 -d "${2:-postgres}"
}

check() {
	local what=$1 expected=$2 got=$3
	if [ "$got" = "$expected" ]; then
		echo "life_cycle: ok: $what"
		passed=$((passed + 1))
	else
		echo "life_cycle: FAILED: $what: expected '$expected', got '$got'"
		failed=$((failed + 1))
	fi
}

start() {
	local node=$1
	as_pg "$bin/pg_ctl -D $work/$node -l $work/$node.log -w -t 120 start >/dev/null"
}

# wait_until NODE QUERY TRIES: until QUERY answers t on NODE, half a second
# between tries, TRIES at most
wait_until() {
	for _ in $(seq 1 "$3"); do
		[ "$(sql "$1" <<<"$2")" = t ] && return
		sleep 0.5
	done
}

# crash_primary: every process of the primary killed (SIGKILL), its clients
# (background jobs) reaped, then the primary started again, once no process
# of the old one holds its shared memory
crash_primary() {
	local pm procs alive p
	pm=$(head -n 1 "$work/primary/postmaster.pid")
	procs="$pm $(pgrep -P "$pm" | tr '\n' ' ')"
	# shellcheck disable=SC2086
	kill -9 $procs
	wait 2>/dev/null
	for _ in $(seq 1 100); do
		alive=0
		for p in $procs; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ "$alive" = 0 ] && break
		sleep 0.1
	done
	start primary
}

# ---- the primary ----
# no data checksums (18 turns them on by default): the damaged page must reach
# the index's own checks, not the buffer manager's
nochecksums=
[ "$version" -ge 18 ] && nochecksums=--no-data-checksums
as_pg "$bin/initdb -D $work/primary -A trust $nochecksums >/dev/null"
cat >>"$work/primary/postgresql.conf" <<CONF
port = $port
unix_socket_directories = '$work'
listen_addresses = ''
full_page_writes = on
max_wal_senders = 4
CONF
start primary
sql 0 <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE seen (k int8, who int);
CREATE INDEX seen_k ON seen USING bloomfilter (k) WITH (capacity = 2000, false_positive_rate = 0.01);
CREATE UNLOGGED TABLE scratch (k text);
INSERT INTO scratch SELECT 'k' || g FROM generate_series(1, 50000) g;
CREATE INDEX scratch_k ON scratch USING bloomfilter (k);
SQL
scratch_capacity=$(sql 0 <<<"SELECT capacity FROM bloom_index_info('scratch_k');")

# ---- crash during concurrent inserts ----
for c in 1 2 3 4; do
	(
		i=0
		while :; do
			i=$((i + 1))
			echo "INSERT INTO seen VALUES ($((c * 10000000 + i)), $c);"
		done | sql 0 >/dev/null 2>&1
	) &
done
# until the index has grown a layer (a minute at most: a loaded machine inserts slowly)
wait_until 0 "SELECT layers > 1 FROM bloom_index_info('seen_k');" 120
sql 0 <<<"CHECKPOINT;"
sleep 3
crash_primary
rows=$(sql 0 <<<"SELECT count(*) FROM seen;")
echo "life_cycle: $rows rows committed before the crash"
check "rows were inserted before the crash" t "$([ "$rows" -gt 1000 ] && echo t || echo f)"
check "the index grew by layers meanwhile" t "$(sql 0 <<<"SELECT layers > 1 FROM bloom_index_info('seen_k');")"
check "after recovery every committed key is found, every page whole" "0|$rows" \
	"$(sql 0 <<<"SELECT keys_missing, rows_checked FROM bloom_index_verify('seen_k');")"
check "after recovery keys never inserted are mostly absent" t \
	"$(sql 0 <<<"SELECT count(*) FILTER (WHERE bloom_index_contains('seen_k', g::int8)) < 2000 FROM generate_series(1, 100000) g;")"
check "an unlogged table's index is empty after the crash" "0|0|f" \
	"$(sql 0 <<<"SELECT (SELECT count(*) FROM scratch), layers, bloom_index_contains('scratch_k', 'k1'::text) FROM bloom_index_info('scratch_k');")"
sql 0 <<<"INSERT INTO scratch SELECT 'k' || g FROM generate_series(1, 100) g;"
check "... and takes keys again" "0|1|t" \
	"$(sql 0 <<<"SELECT (bloom_index_verify('scratch_k')).keys_missing, layers, bloom_index_contains('scratch_k', 'k1'::text) FROM bloom_index_info('scratch_k');")"
check "... into a first layer of the size it was built with ($scratch_capacity keys), not one key's" \
	"$scratch_capacity" "$(sql 0 <<<"SELECT capacity FROM bloom_index_info('scratch_k');")"

# ---- a rebuild killed with the server, mid-scan ----
# (the expression sleeps a millisecond a row: the scan takes some seconds)
sql 0 <<'SQL'
CREATE FUNCTION slow_key(int8) RETURNS int8 LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM pg_sleep(0.001); RETURN $1; END$$;
CREATE TABLE slow (k int8) WITH (autovacuum_enabled = off);
INSERT INTO slow SELECT generate_series(1, 4000);
CREATE INDEX slow_k ON slow USING bloomfilter (slow_key(k));
DELETE FROM slow WHERE k <= 2000;
CHECKPOINT;
SQL
(sql 0 <<<"SELECT bloom_index_rebuild('slow_k');" >/dev/null 2>&1) &
(
	i=0
	while :; do
		i=$((i + 1))
		echo "INSERT INTO slow VALUES ($((100000 + i)));"
	done | sql 0 >/dev/null 2>&1
) &
sleep 2
check "the rebuild was scanning when the server was killed" 1 \
	"$(sql 0 <<<"SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%bloom_index_rebuild%' AND pid <> pg_backend_pid();")"
crash_primary
check "after recovery the filter is the one before the rebuild, with every key" "0|0" \
	"$(sql 0 <<<"SELECT (SELECT rebuilds FROM bloom_index_info('slow_k')), keys_missing FROM bloom_index_verify('slow_k');")"
sql 0 <<<"INSERT INTO slow SELECT generate_series(200001, 200100);"
sql 0 <<<"VACUUM slow;"
check "VACUUM then rebuilds it: every key there, the deleted ones gone" "1|0|t" \
	"$(sql 0 <<<"SELECT (SELECT rebuilds FROM bloom_index_info('slow_k')), (SELECT keys_missing FROM bloom_index_verify('slow_k')),
	   (SELECT count(*) FILTER (WHERE bloom_index_contains('slow_k', g::int8)) < 100 FROM generate_series(1, 2000) g);")"

# ---- a rebuild paced as a manual VACUUM is, then cancelled ----
# (vacuum_cost_limit 1: each pause, every 1,024 rows, is the longest,
# 4 x vacuum_cost_delay; the scan of 300,000 rows would take minutes)
sql 0 <<'SQL'
CREATE TABLE paced (k int8) WITH (autovacuum_enabled = off);
INSERT INTO paced SELECT generate_series(1, 300000);
CREATE INDEX paced_k ON paced USING bloomfilter (k);
DELETE FROM paced WHERE k <= 100000;
SQL
(sql 0 <<<"SET vacuum_cost_delay = '100ms'; SET vacuum_cost_limit = 1; SELECT bloom_index_rebuild('paced_k');" >/dev/null 2>&1) &
paced="SELECT pid FROM pg_stat_activity WHERE wait_event = 'VacuumDelay' AND query LIKE '%bloom_index_rebuild(''paced_k'')%'"
wait_until 0 "SELECT EXISTS ($paced);" 60
check "a rebuild with vacuum_cost_delay set pauses in VacuumDelay, as VACUUM does" t "$(sql 0 <<<"SELECT EXISTS ($paced);")"
check "... and is cancelled there" t "$(sql 0 <<<"SELECT bool_and(pg_cancel_backend(pid)) FROM ($paced) p;")"
wait_until 0 "SELECT NOT EXISTS ($paced);" 60
check "cancelled, it leaves the filter as it was, with every key" "0|0|0|200001" \
	"$(sql 0 <<<"INSERT INTO paced VALUES (900001);
	   SELECT (SELECT rebuilds FROM bloom_index_info('paced_k')), keys_missing,
	          (SELECT count(*) FILTER (WHERE NOT bloom_index_contains('paced_k', k)) FROM paced), (SELECT count(*) FROM paced)
	     FROM bloom_index_verify('paced_k');")"
check "... and rebuilt unpaced (vacuum_cost_delay 0, the default), the deleted keys go" "t|1|0|t" \
	"$(sql 0 <<<"SELECT bloom_index_rebuild('paced_k'), (SELECT rebuilds FROM bloom_index_info('paced_k')),
	          (SELECT keys_missing FROM bloom_index_verify('paced_k')),
	          (SELECT count(*) FILTER (WHERE bloom_index_contains('paced_k', g::int8)) < 5000 FROM generate_series(1, 100000) g);")"

# ---- a call site's copy of the filter, and another session's commit ----
# one statement probes many keys (its call site copies the filter), then,
# after another session commits a new key, probes that key at the same call
# site: a completed transaction makes it read the pages again
(sleep 2 && sql 0 <<<"INSERT INTO seen VALUES (777777777777, 9);") &
seen_late=$(sql 0 2>&1 <<'SQL' | sed -n 's/.*late key: \([tf]\).*/\1/p'
DO $$
DECLARE
    held bool;
    k int8;
BEGIN
    FOR i IN 1..4000 LOOP
        k := CASE WHEN i = 4000 THEN 777777777777 ELSE -i END;
        IF i = 4000 THEN
            PERFORM pg_sleep(4);
        END IF;
        held := bloom_index_contains('seen_k', k);
    END LOOP;
    RAISE NOTICE 'late key: %', held;
END $$;
SQL
)
wait
check "a key another session commits is found by a call site that had copied the filter" t "$seen_late"

# ---- a streaming standby ----
as_pg "$bin/pg_basebackup -h $work -p $port -U postgres -D $work/standby -R -X stream -c fast >/dev/null"
cat >>"$work/standby/postgresql.conf" <<CONF
port = $((port + 1))
hot_standby = on
CONF
start standby
sql 0 <<<"INSERT INTO seen SELECT g, 0 FROM generate_series(100000001, 100100000) g;"
lsn=$(sql 0 <<<"SELECT pg_current_wal_lsn();")
wait_until 1 "SELECT pg_last_wal_replay_lsn() >= '$lsn';" 120
check "the standby replayed the inserts" t "$(sql 1 <<<"SELECT pg_last_wal_replay_lsn() >= '$lsn';")"
probe="SELECT count(*) FILTER (WHERE bloom_index_contains('seen_k', g::int8)) FROM generate_series(99950001, 100150000) g;"
check "the standby answers every key as the primary does" "$(sql 0 <<<"$probe")" "$(sql 1 <<<"$probe")"
filter="SELECT md5(bloom_send(bloom_index_filter('seen_k'))::text);"
check "the standby's filter is the primary's, byte for byte" "$(sql 0 <<<"$filter")" "$(sql 1 <<<"$filter")"
check "the standby's index holds every key its table holds" 0 \
	"$(sql 1 <<<"SELECT keys_missing FROM bloom_index_verify('seen_k');")"
check "the standby's layers are the primary's" "$(sql 0 <<<"SELECT layers FROM bloom_index_info('seen_k');")" \
	"$(sql 1 <<<"SELECT layers FROM bloom_index_info('seen_k');")"
# a rebuild on the primary (VACUUM, after deletes): the standby replays it
# (autovacuum off: no rebuild of its own may follow the LSN waited for; the
# deleting session sends its counts before it answers, pg_stat_force_next_flush:
# VACUUM counts the deletes from the statistics, and a session ending sends
# them only as its process ends, which may be after the next session's VACUUM)
sql 0 <<<"ALTER TABLE seen SET (autovacuum_enabled = off);"
rebuilds_before=$(sql 0 <<<"SELECT rebuilds FROM bloom_index_info('seen_k');")
sql 0 <<<"DELETE FROM seen WHERE k BETWEEN 100000001 AND 100080000; SELECT pg_stat_force_next_flush();" >/dev/null
sql 0 <<<"VACUUM seen;"
check "this VACUUM rebuilt the primary's filter" t \
	"$(sql 0 <<<"SELECT rebuilds > $rebuilds_before FROM bloom_index_info('seen_k');")"
# (the insert position: VACUUM assigns no transaction id, so its records wait
# in WAL buffers for the WAL writer, and pg_current_wal_lsn, the write
# position, may be before them: on 17 and 18 the standby was then waited for
# up to a point before the rebuild)
lsn=$(sql 0 <<<"SELECT pg_current_wal_insert_lsn();")
# (two minutes at most: a loaded machine replays slowly)
wait_until 1 "SELECT pg_last_wal_replay_lsn() >= '$lsn';" 240
check "the standby replayed the rebuild" t "$(sql 1 <<<"SELECT pg_last_wal_replay_lsn() >= '$lsn';")"
echo "life_cycle: primary's index: $(sql 0 <<<"SELECT layers, rebuilds, last_rebuilt FROM bloom_index_info('seen_k');"); standby's: $(sql 1 <<<"SELECT layers, rebuilds, last_rebuilt FROM bloom_index_info('seen_k');")"
check "the standby's rebuilt filter is the primary's, byte for byte" "$(sql 0 <<<"$filter")" "$(sql 1 <<<"$filter")"
check "... and answers every key as the primary does" "$(sql 0 <<<"$probe")" "$(sql 1 <<<"$probe")"
check "... and holds every key its table holds" 0 \
	"$(sql 1 <<<"SELECT keys_missing FROM bloom_index_verify('seen_k');")"
as_pg "$bin/pg_ctl -D $work/standby -m fast stop >/dev/null"

# ---- pg_dump / pg_restore ----
sql 0 <<<"CREATE DATABASE restored;"
as_pg "$bin/pg_dump -h $work -p $port -Fc -f $work/dump postgres"
as_pg "$bin/pg_restore -h $work -p $port -d restored $work/dump"
check "the restored index has its options" "{capacity=2000,false_positive_rate=0.01}" \
	"$(sql 0 restored <<<"SELECT reloptions FROM pg_class WHERE relname = 'seen_k';")"
check "the restored index holds every key" 0 \
	"$(sql 0 restored <<<"SELECT keys_missing FROM bloom_index_verify('seen_k');")"

# ---- pages an interrupted growth left: reused by the next layer ----
# Pages past the last layer's, as a cancel or an error during a new layer
# leaves them (appended here by hand, the server stopped): the next layer
# is written over them, so the index ends where a twin that never had them
# ends, with the same layers.
sql 0 <<'SQL'
CREATE TABLE grow (k int8);
CREATE INDEX grow_k ON grow USING bloomfilter (k) WITH (capacity = 1000);
CREATE TABLE grow_twin (k int8);
CREATE INDEX grow_twin_k ON grow_twin USING bloomfilter (k) WITH (capacity = 1000);
CHECKPOINT;
SQL
grow_file=$(sql 0 <<<"SELECT current_setting('data_directory') || '/' || pg_relation_filepath('grow_k');")
as_pg "$bin/pg_ctl -D $work/primary -m fast stop >/dev/null"
head -c $((8192 * 3)) /dev/zero >>"$grow_file"
start primary
check "three pages no layer names" 3 \
	"$(sql 0 <<<"SELECT pg_relation_size('grow_k') / 8192 - pg_relation_size('grow_twin_k') / 8192;")"
sql 0 <<<"INSERT INTO grow SELECT generate_series(1, 30000); INSERT INTO grow_twin SELECT generate_series(1, 30000);"
check "the index grew by layers over them" t "$(sql 0 <<<"SELECT layers > 2 FROM bloom_index_info('grow_k');")"
check "... and ends where its twin does, with the same layers" "0|t" \
	"$(sql 0 <<<"SELECT pg_relation_size('grow_k') - pg_relation_size('grow_twin_k'), (SELECT layers FROM bloom_index_info('grow_k')) = (SELECT layers FROM bloom_index_info('grow_twin_k'));")"
check "... and holds every key" "0|30000" \
	"$(sql 0 <<<"SELECT keys_missing, rows_checked FROM bloom_index_verify('grow_k');")"

# ---- an index of 1.9 to 1.11: a version 1 metapage ----
# made by hand from a new one (the server stopped): version 1, its contents
# ending after the layers (pd_lower 24 + 1,984), the rest zero, as those
# releases wrote it
sql 0 <<'SQL'
CREATE TABLE old (k int8) WITH (autovacuum_enabled = off);
INSERT INTO old SELECT generate_series(1, 30000);
CREATE INDEX old_k ON old USING bloomfilter (k);
CHECKPOINT;
SQL
old_file=$(sql 0 <<<"SELECT current_setting('data_directory') || '/' || pg_relation_filepath('old_k');")
as_pg "$bin/pg_ctl -D $work/primary -m fast stop >/dev/null"
printf '\xd8\x07' | dd of="$old_file" bs=1 seek=12 count=2 conv=notrunc status=none
printf '\x01\x00\x00\x00' | dd of="$old_file" bs=1 seek=28 count=4 conv=notrunc status=none
dd if=/dev/zero of="$old_file" bs=1 seek=2008 count=2000 conv=notrunc status=none
start primary
check "a version 1 index is read: every key, every page" "0|30000" \
	"$(sql 0 <<<"SELECT keys_missing, rows_checked FROM bloom_index_verify('old_k');")"
sql 0 <<<"DELETE FROM old WHERE k <= 15000; INSERT INTO old SELECT generate_series(100001, 120000); SELECT pg_stat_force_next_flush();" >/dev/null
check "... takes keys, growing a layer" "t|0" \
	"$(sql 0 <<<"SELECT layers > 1, (SELECT keys_missing FROM bloom_index_verify('old_k')) FROM bloom_index_info('old_k');")"
sql 0 <<<"VACUUM old;"
check "... and VACUUM rebuilds it: every key, the deleted ones gone" "1|1|0|t" \
	"$(sql 0 <<<"SELECT layers, rebuilds, (SELECT keys_missing FROM bloom_index_verify('old_k')),
	   (SELECT count(*) FILTER (WHERE bloom_index_contains('old_k', g::int8)) < 300 FROM generate_series(1, 15000) g)
	   FROM bloom_index_info('old_k');")"

# ---- the rate trigger: a filter that could not grow ----
# When no layer can be added (40 layers, or the next too fine to be met:
# BLOOM_INDEX_CANNOT_GROW, offset 80 of the metapage, set here by hand, the
# server stopped), the last layer takes every key past its capacity and its
# rate climbs: VACUUM rebuilds for the rate (rebuild_rate_factor), with no
# key deleted, and the rebuilt filter can grow again.
sql 0 <<'SQL'
CREATE TABLE full_up (k int8) WITH (autovacuum_enabled = off);
INSERT INTO full_up SELECT generate_series(1, 5000);
CREATE INDEX full_up_k ON full_up USING bloomfilter (k) WITH (rebuild_factor = 0);
CHECKPOINT;
SQL
full_file=$(sql 0 <<<"SELECT current_setting('data_directory') || '/' || pg_relation_filepath('full_up_k');")
as_pg "$bin/pg_ctl -D $work/primary -m fast stop >/dev/null"
printf '\x01' | dd of="$full_file" bs=1 seek=80 count=1 conv=notrunc status=none
start primary
sql 0 <<<"INSERT INTO full_up SELECT generate_series(5001, 50000);"
sql 0 <<<"VACUUM full_up;"
check "a filter that could not grow takes every key in one layer; VACUUM rebuilds it for its rate" \
	"1|1|rate|0" \
	"$(sql 0 <<<"SELECT layers, rebuilds, last_rebuild_reason, (SELECT keys_missing FROM bloom_index_verify('full_up_k'))
	   FROM bloom_index_info('full_up_k');")"
check "... and the rebuilt filter grows again: a second layer, every key" "t|0" \
	"$(sql 0 <<<"INSERT INTO full_up SELECT generate_series(100001, 200000);
	   SELECT layers > 1, (SELECT keys_missing FROM bloom_index_verify('full_up_k')) FROM bloom_index_info('full_up_k');")"

# ---- damaged pages ----
# a data page whose special space is not the index's (its header still valid,
# so that the buffer manager reads it): the index's own check reports it.
# (REINDEX first: after the rebuild above, blocks 1 and 2 are no layer's.)
sql 0 <<<"REINDEX INDEX seen_k;"
file=$(sql 0 <<<"SELECT current_setting('data_directory') || '/' || pg_relation_filepath('seen_k');")
sql 0 <<<"CHECKPOINT;"
as_pg "$bin/pg_ctl -D $work/primary -m fast stop >/dev/null"
printf '\x00\x00' | dd of="$file" bs=1 seek=$((8192 * 1 + 8190)) count=2 conv=notrunc status=none
start primary
err=$(sql 0 2>&1 <<<"SELECT count(*) FROM seen WHERE bloom_index_contains('seen_k', k);" | tr -d '\n')
check "a page not of the index is an index corruption error" t \
	"$([[ "$err" == *'bloomfilter index "seen_k" is corrupt at block 1'* ]] && echo t || echo f)"
err=$(sql 0 2>&1 <<<"\\set VERBOSITY verbose
SELECT * FROM bloom_index_verify('seen_k');" | tr -d '\n')
check "bloom_index_verify reports it with SQLSTATE XX002" t "$([[ "$err" == *XX002* ]] && echo t || echo f)"
err=$(sql 0 2>&1 <<<"INSERT INTO seen VALUES (1, 1);" | tr -d '\n')
check "an insert meeting it fails cleanly" t "$([[ "$err" == *corrupt* || -z "$err" ]] && echo t || echo f)"
# a page of noise: the buffer manager or the index refuses it, the server stays up
sql 0 <<<"CHECKPOINT;"
as_pg "$bin/pg_ctl -D $work/primary -m fast stop >/dev/null"
dd if=/dev/urandom of="$file" bs=8192 seek=2 count=1 conv=notrunc status=none
start primary
err=$(sql 0 2>&1 <<<"\\set VERBOSITY verbose
SELECT count(*) FROM seen WHERE bloom_index_contains('seen_k', k);" | tr -d '\n')
check "a page of noise is an error (XX001 or XX002)" t "$([[ "$err" == *XX001* || "$err" == *XX002* ]] && echo t || echo f)"
check "the server is still up" 1 "$(sql 0 <<<"SELECT 1;")"
sql 0 <<<"REINDEX INDEX seen_k;"
check "REINDEX repairs it" 0 "$(sql 0 <<<"SELECT keys_missing FROM bloom_index_verify('seen_k');")"
# a metapage that names pages past the end of the file (the file cut short)
file=$(sql 0 <<<"SELECT current_setting('data_directory') || '/' || pg_relation_filepath('seen_k');")
sql 0 <<<"CHECKPOINT;"
as_pg "$bin/pg_ctl -D $work/primary -m fast stop >/dev/null"
truncate -s -8192 "$file"
start primary
err=$(sql 0 2>&1 <<<"\\set VERBOSITY verbose
SELECT bloom_index_contains('seen_k', 1::int8);" | tr -d '\n')
check "a layer past the end of the file is index corruption (XX002), not a file error" t \
	"$([[ "$err" == *XX002* && "$err" == *'past the end of the index'* ]] && echo t || echo f)"
err=$(sql 0 2>&1 <<<"\\set VERBOSITY verbose
INSERT INTO seen VALUES (1, 1);" | tr -d '\n')
check "... for an insert too" t "$([[ "$err" == *XX002* ]] && echo t || echo f)"
sql 0 <<<"REINDEX INDEX seen_k;"
check "REINDEX repairs that too" 0 "$(sql 0 <<<"SELECT keys_missing FROM bloom_index_verify('seen_k');")"

echo "life_cycle: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
