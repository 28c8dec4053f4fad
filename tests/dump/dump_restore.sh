#!/usr/bin/env bash
# tests/dump/dump_restore.sh: pg_dump / pg_restore of tables holding every
# kind of filter round-trips bit for bit.  Run against a server (as
# pg_virtualenv sets up); prints "dump_restore: ok" or fails.
set -euo pipefail
src=bloom_dump_src
dst=bloom_dump_dst
dump=$(mktemp)
trap 'rm -f "$dump"' EXIT

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $src" -c "DROP DATABASE IF EXISTS $dst" \
	-c "CREATE DATABASE $src" -c "CREATE DATABASE $dst"
psql -X -q -v ON_ERROR_STOP=1 -d "$src" <<'SQL'
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (id int PRIMARY KEY, f bloom);
CREATE TABLE counting (id int PRIMARY KEY, c counting_bloom);
INSERT INTO filters VALUES
  (1, bloom_empty(100)),
  (2, (SELECT bloom_agg(g, 100000, 0.01) FROM generate_series(1, 100000) g)),
  (3, (SELECT bloom_agg(g::text, 1000, 0.001, 'blocked') FROM generate_series(1, 1000) g)),
  (4, (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 1000) g)
      & (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(500, 1500) g)),
  (5, bloom_add(bloom_empty_mk(77, 3, -5), 'x'::text)),
  (6, NULL),
  (7, (SELECT bloom_agg(g) FROM generate_series(1, 5000) g)),
  (8, bloom_add(bloom_add('v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes='::bloom, 1), 2)),
  (9, bloom_add('v1 explicit m=0 k=0 scheme=1 seed=0 n=0 target=0.001 elem= hashes='::bloom, 1));
INSERT INTO counting VALUES
  (1, (SELECT counting_bloom_agg(g % 300, 1000, 0.01) FROM generate_series(1, 5000) g)),
  (2, counting_bloom_empty(10));
SQL
pg_dump -Fc -d "$src" -f "$dump"
pg_restore -d "$dst" "$dump"

fingerprint='SELECT md5(string_agg(coalesce(f::text, $$NULL$$), $$|$$ ORDER BY id))
                 || md5(string_agg(encode(bloom_send(f), $$hex$$), $$|$$ ORDER BY id))
               FROM filters'
counting='SELECT md5(string_agg(c::text, $$|$$ ORDER BY id)) FROM counting'
a=$(psql -X -At -d "$src" -c "$fingerprint")$(psql -X -At -d "$src" -c "$counting")
b=$(psql -X -At -d "$dst" -c "$fingerprint")$(psql -X -At -d "$dst" -c "$counting")
psql -X -q -d postgres -c "DROP DATABASE $src" -c "DROP DATABASE $dst"
if [ "$a" != "$b" ] || [ -z "$a" ]; then
	echo "dump_restore: FAILED (source $a, restored $b)"
	exit 1
fi
echo "dump_restore: ok ($a)"
