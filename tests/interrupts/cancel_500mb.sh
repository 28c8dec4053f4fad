#!/usr/bin/env bash
# tests/interrupts/cancel_500mb.sh: building, probing, counting and printing
# a 500 MB filter, building without hints, and finishing a set of hashes
# through the 1 GB stage (the limit lowered) stop soon after
# statement_timeout fires (300 ms), not when
# the work is done.  Each statement must fail with 57014 within 3 s (they
# run for seconds to minutes otherwise).  Run against a server (as
# pg_virtualenv sets up).  Prints "interrupts: ok" or fails.
set -euo pipefail
db=bloom_interrupts
psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$db" -c "CREATE EXTENSION bloomfilter" \
	-c "CREATE TABLE big500 AS SELECT bloom_add(bloom_empty_mk(4000000000, 3), 1) AS f" \
	-c "CREATE AGGREGATE partial_bloom(anyelement) (SFUNC = bloom_agg_auto_trans, STYPE = bloom)" \
	-c "CREATE TABLE set2000 AS SELECT partial_bloom(g) AS f FROM generate_series(1, 2000) g"
statements=(
	"SELECT count(*) FROM generate_series(1, 100000000) g WHERE (SELECT f FROM big500) @> g"
	"SELECT bloom_agg(g, 400000000, 0.01) IS NULL FROM generate_series(1, 400000000) g"
	"SELECT bloom_cardinality(f) + bloom_cardinality(f) + bloom_cardinality(f) FROM big500"
	"SELECT length(f::text) + length(f::text) FROM big500"
	"SELECT bloom_union(f, f) = f FROM big500"
	"SELECT bloom_empty_mk(8589000000, 3) = bloom_empty_mk(8589000000, 3)"
	"SELECT bloom_agg(g) IS NULL FROM (SELECT generate_series(1, 400000000) g) s"
	"SET bloomfilter.agg_explicit_limit = 1000; SELECT bloom_agg_finalize(f) IS NULL FROM set2000"
)
failed=0
for sql in "${statements[@]}"; do
	start=$(date +%s%N)
	out=$(psql -X -q -d "$db" -v VERBOSITY=sqlstate -c "SET statement_timeout = '300ms'" -c "$sql" 2>&1 || true)
	ms=$((($(date +%s%N) - start) / 1000000))
	if echo "$out" | grep -q "57014" && [ "$ms" -lt 3000 ]; then
		echo "cancelled after $ms ms: $sql"
	else
		echo "NOT cancelled in time ($ms ms, $out): $sql"
		failed=1
	fi
done
psql -X -q -d postgres -c "DROP DATABASE $db"
[ "$failed" -eq 0 ] && echo "interrupts: ok" || { echo "interrupts: FAILED"; exit 1; }
