#!/usr/bin/env bash
# tests/dump/fingerprint.sh DB: md5 of the text and binary forms of every
# filter in DB's table "filters", and of table "counting" and view
# "typed_filters" if it has them.
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
if [ "$(psql -X -At -d "$db" -c "SELECT to_regclass('typed_filters') IS NOT NULL")" = t ]; then
	psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c \
		'SELECT md5(auto::text || sized::text || text_fpp::text || counting::text) FROM typed_filters'
fi
