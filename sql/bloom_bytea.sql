--
-- Casts between bytea and the filter types (1.11): a filter sent as an
-- ordinary bytea parameter ($1::bytea::bloom), as an application that wrote
-- it with a client library sends it, from any driver.  Every layout round
-- trips; what the binary input refuses, the cast refuses alike (the whole
-- catalogue is in bloom_badinput); each type takes only its own layouts.
--
CREATE TABLE bytea_filters (name text, f bloom);
INSERT INTO bytea_filters
SELECT 'classic', bloom_agg(g, 100, 0.01, 'classic') FROM generate_series(1, 100) g
UNION ALL SELECT 'blocked512', bloom_agg(g, 100, 0.01, 'blocked512') FROM generate_series(1, 100) g
UNION ALL SELECT 'derived', bloom_agg(g, 200, 0.01) FILTER (WHERE g <= 150) & bloom_agg(g, 200, 0.01) FILTER (WHERE g > 50)
          FROM generate_series(1, 200) g
UNION ALL SELECT 'explicit', bloom_add(bloom_add('v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes='::bloom, 1), 2)
UNION ALL SELECT 'empty', bloom_empty(100, 0.01);
-- the bytes are bloom_send's, both ways; the value comes back equal
SELECT name, bloom_send(f) = f::bytea AS send_is_cast,
       (f::bytea::bloom)::text = f::text AS round_trip,
       bloom_info(f::bytea::bloom) = bloom_info(f) AS same_info
FROM bytea_filters ORDER BY name;
SELECT c::bytea = counting_bloom_send(c) AS send_is_cast,
       (c::bytea::counting_bloom)::text = c::text AS round_trip
FROM (SELECT counting_bloom_agg(g, 100, 0.01) AS c FROM generate_series(1, 100) g) x;
SELECT NULL::bytea::bloom IS NULL AS null_bloom, NULL::bytea::counting_bloom IS NULL AS null_counting;

-- each type its own layouts, with the binary input's SQLSTATE and message
SELECT bloom_try($$SELECT counting_bloom_send(counting_bloom_agg(g, 10, 0.01))::bloom FROM generate_series(1, 3) g$$) AS counting_as_bloom;
SELECT bloom_try($$SELECT bloom_send(bloom_agg(g, 10, 0.01))::counting_bloom FROM generate_series(1, 3) g$$) AS bloom_as_counting;
SELECT bloom_try($$SELECT '\x'::bytea::bloom$$) AS empty_bytea,
       bloom_try($$SELECT '\x424c4f4d'::bytea::counting_bloom$$) AS truncated;
-- bits the bits' check sees: the first data byte (after the 36-byte header
-- and the 22-byte key) all set, more than k n = 1 bits
SELECT bloom_try(format('SELECT %L::bytea::bloom',
       overlay(bloom_send(bloom_add(bloom_empty_mk(64, 1), 1)) placing '\xff'::bytea from 36 + 22 + 1))) AS too_many_bits;

-- A parameter: the application's filter as bytea, probed per row, as the
-- semi-join "WHERE $1::bytea::bloom @> id" does (through a prepared
-- statement's parameter, as a driver sends it)
CREATE TABLE bytea_facts AS SELECT g AS id, g % 7 AS grp FROM generate_series(1, 10000) g;
PREPARE probe_keys(bytea) AS
    SELECT count(*) AS candidates, count(*) FILTER (WHERE id % 10 = 0) AS held
    FROM bytea_facts WHERE $1::bloom @> id;
SELECT bloom_send(bloom_agg(g, 1000, 0.001)) AS keys FROM generate_series(10, 10000, 10) g \gset
EXECUTE probe_keys(:'keys');
-- no key lost against EXISTS on the same data
SELECT count(*) AS lost FROM bytea_facts f
WHERE EXISTS (SELECT FROM generate_series(10, 10000, 10) g WHERE g = f.id)
  AND NOT (:'keys'::bytea::bloom @> f.id);
DEALLOCATE probe_keys;

-- Under a generic plan (a driver's prepared statement, after five runs),
-- $1::bytea::bloom is not folded: the cast, which checks the whole filter,
-- runs on every row.  (SELECT $1::bytea::bloom) runs it once per execution.
-- Counted by the statistics of function calls, in one transaction.
SET plan_cache_mode = force_generic_plan;
SET track_functions = 'all';
PREPARE per_row(bytea) AS SELECT count(*) FROM bytea_facts WHERE $1::bloom @> id;
PREPARE once(bytea) AS SELECT count(*) FROM bytea_facts WHERE (SELECT $1::bloom) @> id;
BEGIN;
EXECUTE per_row(:'keys');
SELECT calls AS per_row_calls FROM pg_stat_xact_user_functions WHERE funcname = 'bloom_from_bytea';
EXECUTE once(:'keys');
SELECT calls - 10000 AS once_calls FROM pg_stat_xact_user_functions WHERE funcname = 'bloom_from_bytea';
COMMIT;
DEALLOCATE per_row;
DEALLOCATE once;
RESET track_functions;
RESET plan_cache_mode;

-- the casts are explicit only: a bytea is not taken for a filter unasked
SELECT bloom_try($$SELECT bloom_contains('\x00'::bytea, 1)$$) AS implicit;
SELECT castcontext, castsource::regtype, casttarget::regtype FROM pg_cast
WHERE castsource IN ('bloom'::regtype, 'counting_bloom'::regtype, 'bytea'::regtype)
  AND casttarget IN ('bloom'::regtype, 'counting_bloom'::regtype, 'bytea'::regtype)
ORDER BY 2, 3;
DROP TABLE bytea_filters, bytea_facts;
