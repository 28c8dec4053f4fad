#!/usr/bin/env bash
# tests/packages/upgrade.sh DEB VERSION: a package upgrade under a running
# server (tests/packages/installed.sh runs it in pg_virtualenv, with the
# previous release's package installed).  Stores filters with the installed
# version, installs DEB over it, and checks that the stored filters answer
# exactly as before, both before and after ALTER EXTENSION bloomfilter
# UPDATE, which must reach VERSION.  Prints what it checks; fails on any
# difference.
set -euo pipefail
deb=$1
target=$2
db=bloom_upgrade
q() { psql -X -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE $db"
q -q <<'SQL'
CREATE EXTENSION bloomfilter;
-- filters of every kind the previous release writes
CREATE TABLE stored (name text PRIMARY KEY, f bloom);
INSERT INTO stored
  SELECT 'classic', bloom_agg(g, 10000, 0.01) FROM generate_series(1, 10000) g
  UNION ALL SELECT 'blocked', bloom_agg(g::int8, 10000, 0.01, 'blocked') FROM generate_series(1, 10000) g
  UNION ALL SELECT 'sized from the data', bloom_agg('key ' || g) FROM generate_series(1, 5000) g;
CREATE TABLE stored_counting AS
  SELECT bloom_remove(counting_bloom_agg(g, 1000, 0.01), 7) AS f FROM generate_series(1, 1000) g;
-- what they answer (each probed with the type it was built from), and
-- their text, under the previous release
CREATE FUNCTION probe(name text, f bloom, g int) RETURNS bool LANGUAGE sql AS $$
  SELECT CASE name WHEN 'classic' THEN f @> g WHEN 'blocked' THEN f @> g::int8
                   ELSE f @> ('key ' || g) END
$$;
CREATE TABLE answers_before AS
  SELECT s.name, count(*) FILTER (WHERE probe(s.name, s.f, g)) AS present
    FROM stored s, generate_series(1, 20000) g GROUP BY s.name;
CREATE TABLE text_before AS SELECT name, f::text AS t FROM stored;
CREATE TABLE counting_before AS
  SELECT count(*) FILTER (WHERE bloom_count(f, g) > 0) AS present FROM stored_counting, generate_series(1, 2000) g;
SQL
before=$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")
echo "stored with bloomfilter $before; of 20,000 probes each, found: $(q -c "SELECT string_agg(name || ' ' || present, ', ' ORDER BY name) FROM answers_before")"

# compare LABEL: the stored filters answer as before, and print as before
compare() {
	local same
	same=$(q <<'SQL'
SELECT (SELECT count(*) FROM answers_before) = 3
   AND NOT EXISTS (
     SELECT s.name, count(*) FILTER (WHERE probe(s.name, s.f, g))
       FROM stored s, generate_series(1, 20000) g GROUP BY s.name
     EXCEPT SELECT name, present FROM answers_before)
   AND NOT EXISTS (SELECT name, f::text FROM stored EXCEPT SELECT name, t FROM text_before)
   AND (SELECT count(*) FILTER (WHERE bloom_count(f, g) > 0) FROM stored_counting, generate_series(1, 2000) g)
       = (SELECT present FROM counting_before)
   AND (SELECT f @> 10 AND NOT f @> 1000000 FROM stored WHERE name = 'classic');
SQL
	)
	echo "$1: the stored filters answer as before: $same"
	[ "$same" = t ]
}

dpkg -i "$deb" >/dev/null
echo "installed $(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) over it"
compare "new library, $before's SQL objects"
q -c "ALTER EXTENSION bloomfilter UPDATE"
after=$(q -c "SELECT extversion FROM pg_extension WHERE extname = 'bloomfilter'")
echo "ALTER EXTENSION bloomfilter UPDATE: $before -> $after"
[ "$after" = "$target" ]
compare "after the update"
# a function the update added answers too (1.7's remote probe)
[ "$(q -c "SELECT bloom_runtime_contains(NULL, 1)")" = t ]
psql -X -q -d postgres -c "DROP DATABASE $db"
