#!/usr/bin/env bash
# tests/dump/fingerprint.sh DB: md5 of the text and binary forms of every
# filter in DB's table "filters", and of table "counting" if it has one.
set -euo pipefail
db=$1
psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c '
SELECT md5(string_agg(coalesce(f::text, $$NULL$$), $$|$$ ORDER BY id))
    || md5(string_agg(encode(bloom_send(f), $$hex$$), $$|$$ ORDER BY id))
  FROM filters'
if [ "$(psql -X -At -d "$db" -c "SELECT to_regclass('counting') IS NOT NULL")" = t ]; then
	psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c \
		'SELECT md5(string_agg(c::text, $$|$$ ORDER BY id)) FROM counting'
fi
