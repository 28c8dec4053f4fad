#!/usr/bin/env bash
# bench/index_retention.sh: a bloomfilter index under a retention policy
# (issue 52, part 1's figures): DAYS (120) simulated days of a RETAIN-day
# (30) retention, each day KEYS (20,000) new keys inserted, the day RETAIN
# days old deleted, and VACUUM run; every EVERY (10) days, measured:
#   - deleted_maybe: of the keys deleted more than RETAIN days ago (inserted
#     more than 2 RETAIN days ago), the fraction bloom_index_contains still
#     answers "maybe" for (the index forgets nothing today: all of them);
#   - absent_maybe: the same for keys never inserted (the rate);
#   - size: the index's, against a fresh index of the same table's rows
#     (built beside it, then dropped), and its layers;
#   - rebuilds: how many times VACUUM rebuilt the filter so far (1.12);
#   - vacuum_ms: the day's VACUUM.
# At the end, the VACUUMs' time on days that rebuilt against days that did
# not: what the rebuilds cost.  Counts are the point (bloom_index_contains'
# answers and pg_relation_size do not vary with the machine's load).
#   PGHOST=... PGPORT=... PGUSER=... bash bench/index_retention.sh [DB]
# (DB: bench_retention by default, made and dropped.)
set -euo pipefail
db=${1:-bench_retention}
days=${DAYS:-120}
retain=${RETAIN:-30}
keys=${KEYS:-20000}
every=${EVERY:-10}
rate=${RATE:-0.01}
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
q -c "SET client_min_messages = warning; CREATE EXTENSION bloomfilter" 2>/dev/null
q <<SQL
CREATE TABLE events (day int, k int8) WITH (autovacuum_enabled = false);
-- sized for the window's keys, as a user would (the table is empty when it is built)
CREATE INDEX events_k ON events USING bloomfilter (k)
  WITH (false_positive_rate = $rate, capacity = $((retain * keys)));
SQL
echo "== $days days of $keys keys a day, a $retain-day retention, the index at $rate, VACUUM daily"
printf '%5s %14s %13s %12s %12s %7s %9s %9s\n' day deleted_maybe absent_maybe index_kB fresh_kB layers rebuilds vacuum_ms
rebuilds_before=0
plain_ms=0
plain_days=0
rebuild_ms=0
rebuild_days=0
for ((d = 1; d <= days; d++)); do
	q -c "INSERT INTO events SELECT $d, $d::int8 * 1000000 + g FROM generate_series(1, $keys) g" \
		-c "DELETE FROM events WHERE day = $((d - retain))"
	t0=$(date +%s%N)
	q -c "VACUUM events"
	vacuum_ms=$((($(date +%s%N) - t0) / 1000000))
	rebuilds=$(q -c "SELECT rebuilds FROM bloom_index_info('events_k')" 2>/dev/null || echo 0)
	if [ "$rebuilds" != "$rebuilds_before" ]; then
		rebuild_ms=$((rebuild_ms + vacuum_ms))
		rebuild_days=$((rebuild_days + 1))
	else
		plain_ms=$((plain_ms + vacuum_ms))
		plain_days=$((plain_days + 1))
	fi
	rebuilds_before=$rebuilds
	if ((d % every == 0)); then
		old=$((d - 2 * retain))
		q <<SQL | tr '|' ' ' | xargs printf '%5s %14s %13s %12s %12s %7s %9s %9s\n'
SET client_min_messages = warning;
CREATE INDEX events_k_fresh ON events USING bloomfilter (k) WITH (false_positive_rate = $rate);
SELECT $d,
       CASE WHEN $old >= 1 THEN
         (SELECT round(avg(bloom_index_contains('events_k', dd::int8 * 1000000 + g)::int), 4)
            FROM generate_series(1, $old) dd, generate_series(1, $keys, 20) g)::text
       ELSE '-' END,
       (SELECT round(avg(bloom_index_contains('events_k', -g::int8)::int), 4) FROM generate_series(1, 100000) g),
       pg_relation_size('events_k') / 1024,
       pg_relation_size('events_k_fresh') / 1024,
       (SELECT layers FROM bloom_index_info('events_k')),
       $rebuilds,
       $vacuum_ms;
DROP INDEX events_k_fresh;
SQL
	fi
done
q -c "SELECT 'keys now in the table: ' || count(*) FROM events"
echo "VACUUM: $plain_days days without a rebuild, $plain_ms ms in all; $rebuild_days days with one, $rebuild_ms ms in all"
if [ "$plain_days" -gt 0 ] && [ "$rebuild_days" -gt 0 ]; then
	awk -v p="$plain_ms" -v pd="$plain_days" -v r="$rebuild_ms" -v rd="$rebuild_days" 'BEGIN {
		printf "VACUUM: %.1f ms a day without a rebuild, %.1f ms with one; the rebuilds add %.0f%% to the %d days\047 VACUUM time\n",
			p / pd, r / rd, 100 * (r - rd * p / pd) / (p + rd * p / pd), pd + rd }'
fi
psql -X -q -d postgres -c "DROP DATABASE $db"
