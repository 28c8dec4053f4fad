#!/usr/bin/env bash
# tests/fdw/type_pairs.sh: runtime filters shipped into postgres_fdw scans
# where the foreign table's column type is not the remote column's (issue
# 39; src/runtime/pushdown.c).  The join compares what postgres_fdw makes of
# the remote value (its text, read by the local type's input function with
# the local typmod, in the local session); a filter shipped to the remote
# side must hash exactly that, or let the row pass.
#
# Loopback: the "remote" databases are in the same cluster, one UTF8 (as
# the local one) and one LATIN1.  For each pair of local and remote types,
# a remote table of a few thousand values (odd ones first: 1.25, padding,
# infinity, ...) and a local table of the keys postgres_fdw fetched from
# its first rows; filters are forced (bloomfilter.runtime_filter_force).
# Each case checks that the join gives the same rows with runtime filters
# on and off, that neither run fails, and one of:
#   filters     the Remote SQL takes the filter and the remote side sends
#               fewer rows than without it;
#   inert       the Remote SQL takes the filter but the remote side lets
#               every row pass (a remote type whose value it does not
#               rebuild exactly, or another encoding): as many rows as off;
#   refused:R   the filter is not in the Remote SQL, and EXPLAIN says why:
#               "Not Shipped: ...R...".
# Run against a server (as pg_virtualenv sets up).  Prints a line per case,
# then "type_pairs: N passed, N failed".  With REMOTE_PGHOST and
# REMOTE_PGPORT, the remote databases are on that server (another major
# version, trusting the connection; bloomfilter installed), as
# postgres.
set -euo pipefail
. "$(dirname "$0")/compare.sh"
local_db=bloom_types_local
remote_db=bloom_types_remote
latin_db=bloom_types_latin1
remote_host=${REMOTE_PGHOST:-localhost}
remote_port=${REMOTE_PGPORT:-${PGPORT:-5432}}
remote_psql() {
	if [ -n "${REMOTE_PGPORT:-}" ]; then
		psql -h "$remote_host" -p "$remote_port" -U postgres "$@"
	else
		psql "$@"
	fi
}
drop_all() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $local_db" 2>/dev/null
	remote_psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $remote_db" \
		-c "DROP DATABASE IF EXISTS $latin_db" 2>/dev/null
}
drop_all
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $local_db" 2>/dev/null
remote_psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $remote_db" \
	-c "CREATE DATABASE $latin_db ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" \
	2>/dev/null
trap 'drop_all || true' EXIT

remote_sql="CREATE EXTENSION bloomfilter;"
latin_sql="CREATE EXTENSION bloomfilter;"
local_sql=""

# pair NAME LOCAL_TYPE REMOTE_TYPE VALUES [LOCAL_KEYS [SETTINGS [DB]]]: a remote
# table r_NAME (k REMOTE_TYPE) of VALUES (a query whose first column is cast
# to REMOTE_TYPE, kept in order), a foreign table f_NAME (k LOCAL_TYPE) over
# it, and l_NAME, the local keys: LOCAL_KEYS, a clause on f_NAME's rows
# (the first 100 of them by default), fetched under SETTINGS.  DB: latin1
# for the LATIN1 database.
pair() {
	local name=$1 ltype=$2 rtype=$3 values=$4 keys=${5:-LIMIT 100} settings=${6:-} db=${7:-}
	local create="CREATE TABLE r_$name AS SELECT v::$rtype AS k FROM ($values) AS s(v);"
	if [ "$db" = latin1 ]; then
		latin_sql+=$'\n'"$create"
		local_sql+=$'\n'"CREATE FOREIGN TABLE f_$name (k $ltype) SERVER latin1 OPTIONS (table_name 'r_$name');"
	else
		remote_sql+=$'\n'"$create"
		local_sql+=$'\n'"CREATE FOREIGN TABLE f_$name (k $ltype) SERVER shard OPTIONS (table_name 'r_$name');"
	fi
	local_sql+=$'\n'"BEGIN; $settings CREATE TABLE l_$name AS SELECT k FROM f_$name $keys; COMMIT;"
	local_sql+=$'\n'"ANALYZE f_$name, l_$name;"
}

ints="SELECT * FROM (VALUES (0), (-1), (NULL), (2147483647)) v UNION ALL SELECT g FROM generate_series(1, 3000) g"
nums="SELECT * FROM (VALUES (1.25), (1.35), (-0.05), (-1.25), ('NaN')) v UNION ALL SELECT g * 0.05 FROM generate_series(1, 3000) g"
floats="SELECT * FROM (VALUES (0.1::float8 + 0.2::float8), ('-0'), ('NaN'), ('Infinity'), ('1e-300'), ('1e300')) v
  UNION ALL SELECT g * 0.1::float8 FROM generate_series(1, 3000) g"
small_floats="SELECT * FROM (VALUES (0.1::float8 + 0.2::float8), ('-0'), ('NaN'), (123.456789)) v
  UNION ALL SELECT g * 0.1::float8 FROM generate_series(1, 3000) g"
stamps="SELECT * FROM (VALUES ('2020-01-01 10:00:00.7'), ('2020-01-01 10:00:00.5'), ('1999-12-31 23:59:59.5'),
  ('0044-03-15 12:00:00.5 BC'), ('infinity'), ('-infinity')) v
  UNION ALL SELECT (TIMESTAMP '2020-03-08 00:00:00' + g * interval '17 minutes 0.3 seconds')::text
  FROM generate_series(1, 3000) g"
stamptzs="SELECT * FROM (VALUES ('2020-01-01 10:00:00.7+00'), ('2020-03-08 07:30:00.5+00'), ('2020-11-01 05:30:00+00'),
  ('0044-03-15 12:00:00.5+00 BC'), ('infinity'), ('-infinity')) v
  UNION ALL SELECT (TIMESTAMPTZ '2020-03-08 00:00:00+00' + g * interval '17 minutes 0.3 seconds')::text
  FROM generate_series(1, 3000) g"
dates="SELECT * FROM (VALUES ('2020-01-01'), ('infinity'), ('-infinity'), ('0044-03-15 BC'), ('2000-01-01')) v
  UNION ALL SELECT (DATE '1990-01-01' + g)::text FROM generate_series(1, 3000) g"
words="SELECT * FROM (VALUES ('ab  '), ('é'), ('€uro'), ('x '), (''), (NULL)) v
  UNION ALL SELECT 'w' || g FROM generate_series(1, 3000) g"
pairs_of_letters="SELECT * FROM (VALUES ('ab  '), ('c '), ('é')) v
  UNION ALL SELECT chr(97 + g / 26 % 26) || chr(97 + g % 26) FROM generate_series(1, 3000) g"
short_words="SELECT * FROM (VALUES ('ab'), ('ab  '), ('é'), (' x')) v
  UNION ALL SELECT 'w' || (g % 1000) FROM generate_series(1, 3000) g"
latin_words="SELECT * FROM (VALUES ('é'), ('über'), ('ab  ')) v UNION ALL SELECT 'w' || g FROM generate_series(1, 3000) g"
bools="SELECT * FROM (VALUES (true), (NULL)) v UNION ALL SELECT g % 3 = 0 FROM generate_series(1, 3000) g"
inets="SELECT * FROM (VALUES ('192.168.0.1'), ('10.0.0.0/8'), ('::1'), ('192.168.0.1/24')) v
  UNION ALL SELECT '10.1.' || (g / 256) || '.' || (g % 256) FROM generate_series(1, 3000) g"
cidrs="SELECT * FROM (VALUES ('10.0.0.0/8'), ('192.168.0.0/24'), ('::1/128')) v
  UNION ALL SELECT '10.' || (g / 256) || '.' || (g % 256) || '.0/24' FROM generate_series(1, 3000) g"

# ---- numbers ----
pair int8_int8 int8 int8 "$ints"
pair int4_int8 int4 int8 "$ints"
pair int8_int4 int8 int4 "$ints"
pair int2_int4 int2 int4 "SELECT * FROM (VALUES (0), (-1), (NULL)) v UNION ALL SELECT g FROM generate_series(1, 3000) g"
pair int4_int2 int4 int2 "SELECT * FROM (VALUES (0), (-1), (NULL)) v UNION ALL SELECT g FROM generate_series(1, 3000) g"
pair int8_numeric int8 numeric "$ints"
pair numeric_numeric numeric numeric "$nums"
pair numeric61_numeric "numeric(6,1)" numeric "$nums"
pair numeric_int8 numeric int8 "$ints"
pair numeric_float8 numeric float8 "$floats"
pair numeric102_float8 "numeric(10,2)" float8 "$small_floats"
pair numeric_float4 numeric float4 "$small_floats"
pair float8_float8 float8 float8 "$floats"
pair float8_float4 float8 float4 "$small_floats"
pair float4_float4 float4 float4 "$small_floats"
pair float8_numeric float8 numeric "$nums"
pair float8_int4 float8 int4 "$ints"
# ---- times ----
pair ts_ts timestamp timestamp "$stamps"
pair ts0_ts6 "timestamp(0)" "timestamp(6)" "$stamps"
pair ts3_ts "timestamp(3)" timestamp "$stamps"
pair ts_tstz timestamp timestamptz "$stamptzs" "LIMIT 100" "SET LOCAL TimeZone = 'America/New_York';"
pair tstz_ts_ny timestamptz timestamp "$stamps" "LIMIT 100" "SET LOCAL TimeZone = 'America/New_York';"
pair tstz_ts_utc timestamptz timestamp "$stamps"
pair tstz_tstz_ny timestamptz timestamptz "$stamptzs" "LIMIT 100" "SET LOCAL TimeZone = 'America/New_York';"
pair tstz_tstz_kolkata timestamptz timestamptz "$stamptzs" "LIMIT 100" "SET LOCAL TimeZone = 'Asia/Kolkata';"
pair tstz0_tstz_kolkata "timestamptz(0)" timestamptz "$stamptzs" "LIMIT 100" "SET LOCAL TimeZone = 'Asia/Kolkata';"
pair date_date date date "$dates"
pair date_date_dmy date date "$dates" "LIMIT 100" "SET LOCAL DateStyle = 'SQL, DMY';"
pair date_ts date timestamp "SELECT * FROM (VALUES ('2020-01-01 10:00:00.7'), ('infinity'), ('0044-03-15 12:00:00.5 BC')) v
  UNION ALL SELECT (TIMESTAMP '2000-01-01' + g * interval '1 day 17 minutes 0.3 seconds')::text FROM generate_series(1, 3000) g"
pair date_tstz_kolkata date timestamptz "SELECT * FROM (VALUES ('2020-01-01 23:00:00.7+00'), ('infinity')) v
  UNION ALL SELECT (TIMESTAMPTZ '2000-01-01 00:00:00+00' + g * interval '1 day 17 minutes 0.3 seconds')::text
  FROM generate_series(1, 3000) g" "LIMIT 100" "SET LOCAL TimeZone = 'Asia/Kolkata';"
pair time0_time "time(0)" time "SELECT * FROM (VALUES ('10:00:00.7'), ('23:59:59.7')) v
  UNION ALL SELECT (time '00:00' + g * interval '17.3 seconds')::text FROM generate_series(1, 3000) g"
pair timetz_timetz timetz timetz "SELECT * FROM (VALUES ('10:00:00.7+05:30'), ('23:59:59-08')) v
  UNION ALL SELECT (time '00:00' + g * interval '17 seconds')::text || '+02' FROM generate_series(1, 3000) g" \
	"LIMIT 100" "SET LOCAL TimeZone = 'America/New_York';"
pair interval_interval interval interval "SELECT * FROM (VALUES ('-1 day 02:03:04.5'), ('1 mon -3 days')) v
  UNION ALL SELECT (g * interval '1 hour 17 seconds')::text FROM generate_series(1, 3000) g" \
	"LIMIT 100" "SET LOCAL IntervalStyle = 'sql_standard';"
pair interval0_interval "interval(0)" interval "SELECT (g * interval '1 hour 0.5 seconds')::text FROM generate_series(1, 3000) g"
# ---- strings (the remote database's encoding is the local one's) ----
pair text_text text text "$words"
pair varchar2_text "varchar(2)" text "$pairs_of_letters"
pair text_char4 text "char(4)" "$short_words"
pair char4_text "char(4)" text "$short_words"
pair varchar_char4 varchar "char(4)" "$short_words"
pair char2_varchar "char(2)" "varchar(5)" "$pairs_of_letters"
pair text_bool text bool "$bools" "WHERE k = 't' LIMIT 3"
pair bool_bool bool bool "$bools" "WHERE k LIMIT 3"
pair text_inet text inet "$inets"
pair inet_inet inet inet "$inets"
pair inet_cidr inet cidr "$cidrs"
pair cidr_cidr cidr cidr "$cidrs"
pair text_int8 text int8 "$ints"
pair text_float8 text float8 "$floats"
pair text_tstz_kolkata text timestamptz "$stamptzs" "LIMIT 100" "SET LOCAL TimeZone = 'Asia/Kolkata';"
pair text_icu "text COLLATE \"und-x-icu\"" text "$words"
pair text_nocase "text COLLATE nocase" text "$words"
# ---- other types ----
pair uuid_uuid uuid uuid "SELECT md5(g::text) FROM generate_series(1, 3000) g"
pair bytea_bytea bytea bytea "SELECT decode(md5(g::text), 'hex') FROM generate_series(1, 3000) g"
pair macaddr_macaddr macaddr macaddr "SELECT '08:00:2b:01:' || lpad(to_hex(g / 256), 2, '0') || ':' || lpad(to_hex(g % 256), 2, '0')
  FROM generate_series(1, 3000) g"
pair array_array "int4[]" "int4[]" "SELECT ARRAY[g, g + 1] FROM generate_series(1, 3000) g"
pair domain_int4 int4_domain int4 "$ints"
# ---- a remote database in LATIN1 ----
pair latin_text_text text text "$latin_words" "LIMIT 100" "" latin1
pair latin_int8_int8 int8 int8 "$ints" "LIMIT 100" "" latin1

# ---- rows the unfiltered query never converts must not fail the filtered one ----
# A remote WHERE (pushed down) leaves out values the local types cannot
# read (f_unread), or a LIMIT stops the join before it fetches them
# (f_late: they are last, after the five rows whose keys l_late holds; the
# remote side, filtering, reads past them to fill a batch).
remote_sql+="
-- kts: a timestamp(0) rounds 294276-12-31 23:59:59.9 up to a value whose text
-- its own input rejects
CREATE TABLE r_unread (k8 int8, kt text, kn numeric, kts timestamp(0), keep bool);
INSERT INTO r_unread SELECT g, lpad(to_hex(g), 3, '0'), g * 0.05,
  TIMESTAMP '2020-01-01' + g * interval '1.5 s', true FROM generate_series(1, 3000) g;
INSERT INTO r_unread VALUES (9000000000, 'much too long', 12345678.9, '294276-12-31 23:59:59.9', false);"
local_sql+="
CREATE FOREIGN TABLE f_unread (k8 int4, kt varchar(3), kn numeric(4,1), kts timestamp(0), keep bool)
  SERVER shard OPTIONS (table_name 'r_unread');
CREATE TABLE l_unread AS SELECT * FROM f_unread WHERE keep LIMIT 100;
CREATE TABLE l_late AS SELECT * FROM f_unread WHERE keep AND k8 > 2995;
ANALYZE l_unread, l_late;"
# ---- two keys ----
remote_sql+="
CREATE TABLE r_two AS SELECT g::int8 AS a, 'w' || g AS b, TIMESTAMP '2020-01-01' + g * interval '1 s' AS c
  FROM generate_series(1, 3000) g;"
local_sql+="
CREATE FOREIGN TABLE f_two (a int8, b text, c timestamptz) SERVER shard OPTIONS (table_name 'r_two');
CREATE TABLE l_two AS SELECT * FROM f_two LIMIT 100;
ANALYZE f_two, l_two;
CREATE FOREIGN TABLE f_plain (k int8) SERVER plain OPTIONS (table_name 'r_int8_int8');
ANALYZE f_plain;"

# ---- what a hostile review of the shipping found (issue 39) ----
# a composite remote column with NULL fields, read as text ("(1,)" is no NULL)
remote_sql+="
CREATE TYPE pair AS (a int, b text);
CREATE TABLE r_composite AS SELECT v::pair AS k FROM (VALUES ('(1,)'), ('(,)'), ('(2,x)')) s(v)
  UNION ALL SELECT ROW(g, 'w' || g)::pair FROM generate_series(1, 3000) g;"
local_sql+="
CREATE FOREIGN TABLE f_composite (k text) SERVER shard OPTIONS (table_name 'r_composite');
CREATE TABLE l_composite AS SELECT k FROM f_composite LIMIT 100;
ANALYZE f_composite, l_composite;"
# a remote view whose key is a cast that fails on rows the query's own WHERE
# leaves out, that WHERE costlier than the filter; a UNION ALL arm whose key
# is a constant the local int4 cannot hold, on a row the WHERE leaves out
remote_sql+="
CREATE TABLE events (id int, kind text, payload jsonb);
INSERT INTO events SELECT g, 'order', jsonb_build_object('customer', g) FROM generate_series(1, 3000) g;
INSERT INTO events SELECT 3000 + g, 'note', jsonb_build_object('customer', 'n/a') FROM generate_series(1, 50) g;
CREATE VIEW r_view AS SELECT id, kind, (payload->>'customer')::int8 AS k FROM events;
CREATE TABLE cur AS SELECT g AS id, g::int8 AS k FROM generate_series(1, 3000) g;
CREATE TABLE archive AS SELECT 999999 AS id;
CREATE VIEW r_union AS SELECT id, k FROM cur UNION ALL SELECT id, 9223372036854775807 FROM archive;"
local_sql+="
CREATE FOREIGN TABLE f_view (id int, kind text, k int8) SERVER shard OPTIONS (table_name 'r_view');
CREATE TABLE l_view AS SELECT g * 7 AS k FROM generate_series(1, 100) g;
CREATE FOREIGN TABLE f_union (id int, k int4) SERVER shard OPTIONS (table_name 'r_union');
ANALYZE l_view;"
# two local columns reading one remote column (the scan's SQL names it twice)
local_sql+="
CREATE FOREIGN TABLE f_twice (k int8, k_text text OPTIONS (column_name 'k')) SERVER shard
  OPTIONS (table_name 'r_int8_int8');"

remote_psql -X -q -v ON_ERROR_STOP=1 -d "$remote_db" <<<"$remote_sql"
remote_psql -X -q -v ON_ERROR_STOP=1 -d "$latin_db" <<<"$latin_sql"
psql -X -q -v ON_ERROR_STOP=1 -v pw="${PGPASSWORD:-}" -v port="$remote_port" -v host="$remote_host" \
	-v remote="$remote_db" -v latin="$latin_db" -d "$local_db" <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'host', port :'port', dbname :'remote', extensions 'bloomfilter');
CREATE SERVER latin1 FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'host', port :'port', dbname :'latin', extensions 'bloomfilter');
CREATE SERVER plain FOREIGN DATA WRAPPER postgres_fdw
  OPTIONS (host :'host', port :'port', dbname :'remote');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard OPTIONS (user 'postgres', password :'pw');
CREATE USER MAPPING FOR CURRENT_USER SERVER latin1 OPTIONS (user 'postgres', password :'pw');
CREATE USER MAPPING FOR CURRENT_USER SERVER plain OPTIONS (user 'postgres', password :'pw');
CREATE COLLATION nocase (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE DOMAIN int4_domain AS int4;
$local_sql
SQL

passed=0
failed=0
# check NAME EXPECT [QUERY [SETTINGS]]: EXPECT is filters, inert or
# refused:REASON (the header); QUERY, one text column, defaults to the join
# of f_NAME with l_NAME.  Prints the rows, and the foreign scans' rows on
# and off.
check() {
	local name=$1 expect=$2
	local query=${3:-"SELECT f.k::text FROM f_$name f JOIN l_$name l ON f.k = l.k"} settings=${4:-} out
	out=$(psql -X -At -v ON_ERROR_STOP=1 -d "$local_db" <<SQL 2>&1
LOAD 'bloomfilter';
SET bloomfilter.runtime_filter_force = on;
SET max_parallel_workers_per_gather = 0;
SET enable_nestloop = off;
SET enable_mergejoin = off;
$settings
SET bloomfilter.runtime_filter = off;
CREATE TEMP TABLE r_off AS $query;
SET bloomfilter.runtime_filter = on;
CREATE TEMP TABLE r_on AS $query;
$(compare_sql "$query")
SQL
	) || true
	local same shipped on off why ok=0
	same=$(grep -c '^same: true' <<<"$out" || true)
	shipped=$(grep -c 'Remote SQL: .*bloom_runtime_contains' <<<"$out" || true)
	why=$(sed -n 's/^ *Not Shipped: //p' <<<"$out" | head -n 1)
	on=$(sed -n 's/^remote rows on: //p' <<<"$out")
	off=$(sed -n 's/^remote rows off: //p' <<<"$out")
	case "$expect" in
	filters) [ "$shipped" -ge 1 ] && [ -n "$on" ] && [ "$on" -lt "${off:-0}" ] && ok=1 ;;
	inert) [ "$shipped" -ge 1 ] && [ -n "$on" ] && [ "$on" = "$off" ] && ok=1 ;;
	refused:*) [ "$shipped" = 0 ] && [ -n "$on" ] && [[ "$why" == *"${expect#refused:}"* ]] && ok=1 ;;
	esac
	# no run may fail: an error shows in the output
	if grep -q 'ERROR' <<<"$out"; then
		ok=0
	fi
	if [ "$same" = 1 ] && [ "$ok" = 1 ]; then
		echo "type_pairs: $name: ok, $expect ($(sed -n 's/^rows: //p' <<<"$out") rows; the remote side sent $on rows on, $off off${why:+; not shipped: $why})"
		passed=$((passed + 1))
	else
		echo "type_pairs: $name: FAILED (expected: $expect)"
		echo "$out"
		failed=$((failed + 1))
	fi
}

check int8_int8 filters
check int4_int8 inert
check int8_int4 filters
check int2_int4 inert
check int4_int2 filters
check int8_numeric inert
check numeric_numeric filters
check numeric61_numeric filters
check numeric_int8 filters
check numeric_float8 filters
check numeric102_float8 filters
check numeric_float4 filters
check float8_float8 filters
check float8_float4 filters
check float4_float4 filters
check float8_numeric inert
check float8_int4 filters
check ts_ts filters
check ts0_ts6 filters
check ts3_ts filters
check ts_tstz filters "" "SET TimeZone = 'America/New_York';"
check tstz_ts_ny inert "" "SET TimeZone = 'America/New_York';"
check tstz_ts_utc inert "" "SET TimeZone = 'UTC';"
check tstz_tstz_ny filters "" "SET TimeZone = 'America/New_York';"
check tstz_tstz_kolkata filters "" "SET TimeZone = 'Asia/Kolkata';"
check tstz0_tstz_kolkata filters "" "SET TimeZone = 'Asia/Kolkata';"
check date_date filters
check date_date_dmy filters "" "SET DateStyle = 'SQL, DMY';"
check date_ts filters
check date_tstz_kolkata filters "" "SET TimeZone = 'Asia/Kolkata';"
check time0_time filters
check timetz_timetz filters "" "SET TimeZone = 'America/New_York';"
check interval_interval filters "" "SET IntervalStyle = 'sql_standard';"
check interval0_interval "refused:shipped only without a typmod"
check text_text filters
check varchar2_text filters
check text_char4 filters
check char4_text filters
check varchar_char4 filters
check char2_varchar filters
check text_bool filters
check bool_bool filters
check text_inet filters
check inet_inet filters
check inet_cidr filters
check cidr_cidr filters
check text_int8 filters
check text_float8 filters
check text_tstz_kolkata filters "" "SET TimeZone = 'Asia/Kolkata';"
check text_icu filters
check text_nocase "refused:nondeterministic collation"
check uuid_uuid filters
check bytea_bytea filters
check macaddr_macaddr "refused:macaddr is not a type"
check array_array "refused:integer[] is not a type"
check domain_int4 "refused:int4_domain is not a type"
check latin_text_text inert
check latin_int8_int8 filters
# an int4 column over int8 is not filtered (its rows pass); the others drop
# the values the local input rejects
for k in k8 kt kn kts; do
	expect=filters
	[ "$k" = k8 ] && expect=inert
	check "unread_$k" $expect \
		"SELECT f.$k::text FROM f_unread f JOIN l_unread l ON f.$k = l.$k WHERE f.keep"
	check "late_$k" $expect \
		"SELECT count(*)::text FROM (SELECT f.$k FROM f_unread f JOIN l_late l ON f.$k = l.$k LIMIT 5) x"
done
check two_keys filters "SELECT f.a::text FROM f_two f JOIN l_two l ON f.a = l.a AND f.b = l.b"
check two_keys_one_inert inert "SELECT f.a::text FROM f_two f JOIN l_two l ON f.a = l.a AND f.c = l.c"
check plain_server "refused:does not list bloomfilter" \
	"SELECT f.k::text FROM f_plain f JOIN l_int8_int8 l ON f.k = l.k"
check composite filters
check view_costly_where filters \
	"SELECT f.id::text FROM f_view f JOIN l_view l ON f.k = l.k WHERE to_tsvector('simple', f.kind) @@ 'order'::tsquery"
check view_long_or filters \
	"SELECT f.id::text FROM f_view f JOIN l_view l ON f.k = l.k
	 WHERE f.kind = 'order' OR f.kind = 'a1' OR f.kind = 'a2' OR f.kind = 'a3' OR f.kind = 'a4' OR f.kind = 'a5'
	    OR f.kind = 'a6' OR f.kind = 'a7' OR f.kind = 'a8' OR f.kind = 'a9' OR f.kind = 'b1' OR f.kind = 'b2'"
check union_constant inert \
	"SELECT f.id::text FROM f_union f JOIN l_int4_int8 l ON f.k = l.k WHERE f.id < 500000"
check twice_named "refused:another column of the foreign table reads remote column" \
	"SELECT f.k::text FROM f_twice f JOIN l_int8_int8 l ON f.k = l.k"
# two joins on one foreign scan: both filters go into its remote query
check two_filters filters \
	"SELECT f.a::text FROM f_two f JOIN l_two l ON f.a = l.a JOIN l_two m ON f.b = m.b"

echo "type_pairs: $passed passed, $failed failed"
[ "$failed" = 0 ]
