-- bench/semijoin.sql: the prefiltered semi-join against the plain hash
-- semi-join, for 10k, 1M and 10M build keys at 1 %, 10 % and 50 % match
-- rates, int8 and text keys; 10,000,000 probe rows; one process, JIT off,
-- work_mem large enough for every hash table.
--
-- Build keys are 1..B; a matching probe row carries a key in 1..10000 (so it
-- matches every build size), the others a negative key.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET max_parallel_workers_per_gather = 0;
SET work_mem = '2GB';
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

DROP TABLE IF EXISTS probe_1, probe_10, probe_50, build_10k, build_1m, build_10m, sj_filters;
CREATE TABLE probe_1 AS
  SELECT k, k::text AS t FROM (
    SELECT CASE WHEN (g * 2654435761 % 1000003) < 10000 THEN 1 + g % 10000 ELSE -g END::int8 AS k
      FROM generate_series(1, 10000000) g) s;
CREATE TABLE probe_10 AS
  SELECT k, k::text AS t FROM (
    SELECT CASE WHEN (g * 2654435761 % 1000003) < 100000 THEN 1 + g % 10000 ELSE -g END::int8 AS k
      FROM generate_series(1, 10000000) g) s;
CREATE TABLE probe_50 AS
  SELECT k, k::text AS t FROM (
    SELECT CASE WHEN (g * 2654435761 % 1000003) < 500000 THEN 1 + g % 10000 ELSE -g END::int8 AS k
      FROM generate_series(1, 10000000) g) s;
CREATE TABLE build_10k AS SELECT g::int8 AS k, g::text AS t FROM generate_series(1, 10000) g;
CREATE TABLE build_1m AS SELECT g::int8 AS k, g::text AS t FROM generate_series(1, 1000000) g;
CREATE TABLE build_10m AS SELECT g::int8 AS k, g::text AS t FROM generate_series(1, 10000000) g;
VACUUM ANALYZE probe_1, probe_10, probe_50, build_10k, build_1m, build_10m;

CREATE TABLE sj_filters (build text, keytype text, f bloom);
INSERT INTO sj_filters
  SELECT b, 'int8', (SELECT bloom_agg(k, (SELECT count(*) FROM build_10k), 0.01) FROM build_10k) FROM (VALUES ('10k')) v(b);
INSERT INTO sj_filters SELECT '1m', 'int8', bloom_agg(k, 1000000, 0.01) FROM build_1m;
INSERT INTO sj_filters SELECT '10m', 'int8', bloom_agg(k, 10000000, 0.01) FROM build_10m;
INSERT INTO sj_filters SELECT '10k', 'text', bloom_agg(t, 10000, 0.01) FROM build_10k;
INSERT INTO sj_filters SELECT '1m', 'text', bloom_agg(t, 1000000, 0.01) FROM build_1m;
INSERT INTO sj_filters SELECT '10m', 'text', bloom_agg(t, 10000000, 0.01) FROM build_10m;

CREATE TEMP TABLE sj (build text, match text, keytype text, plan text, ms float8, result bigint);
DO $$
DECLARE
    b text;
    m text;
    ty text;
    col text;
    t0 timestamptz;
    n bigint;
BEGIN
    FOREACH b IN ARRAY ARRAY['10k', '1m', '10m'] LOOP
        FOREACH m IN ARRAY ARRAY['1', '10', '50'] LOOP
            FOREACH ty IN ARRAY ARRAY['int8', 'text'] LOOP
                col := CASE ty WHEN 'int8' THEN 'k' ELSE 't' END;
                FOR rep IN 1..2 LOOP
                    t0 := clock_timestamp();
                    EXECUTE format('SELECT count(*) FROM probe_%s WHERE %I IN (SELECT %I FROM build_%s)', m, col, col, b) INTO n;
                    INSERT INTO sj VALUES (b, m, ty, 'plain', extract(epoch FROM clock_timestamp() - t0) * 1000, n);
                    t0 := clock_timestamp();
                    EXECUTE format('SELECT count(*) FROM probe_%s WHERE (SELECT f FROM sj_filters WHERE build = %L AND keytype = %L) @> %I AND %I IN (SELECT %I FROM build_%s)',
                                   m, b, ty, col, col, col, b) INTO n;
                    INSERT INTO sj VALUES (b, m, ty, 'prefiltered', extract(epoch FROM clock_timestamp() - t0) * 1000, n);
                END LOOP;
            END LOOP;
        END LOOP;
    END LOOP;
END $$;

\echo '== every run'
SELECT build, match, keytype, plan, round(ms) AS ms, result FROM sj;
\echo '== best of 2 (ms); speedup = plain / prefiltered'
WITH best AS (
  SELECT build, match, keytype, plan, min(ms) AS ms, min(result) AS result FROM sj GROUP BY 1, 2, 3, 4)
SELECT p.build AS build_keys, p.match || ' %' AS match_rate, p.keytype,
       round(p.ms) AS plain_ms, round(f.ms) AS prefiltered_ms,
       round((p.ms / f.ms)::numeric, 2) AS speedup,
       p.result = f.result AS same_result
  FROM best p JOIN best f USING (build, match, keytype)
 WHERE p.plan = 'plain' AND f.plan = 'prefiltered'
 ORDER BY array_position(ARRAY['10k', '1m', '10m'], p.build), p.match::int, p.keytype;
