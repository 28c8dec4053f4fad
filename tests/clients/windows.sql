-- tests/clients/windows.sql: window filters (1.12) for the client libraries'
-- tests: one JSON object per line on stdout, each a case the clients replay
-- and compare byte for byte:
--   {"case", "type", "capacity", "fpp", "generations", "interval" (microseconds,
--    0 for generations advanced by hand), "at" (the creation time, ISO 8601
--    UTC, or null), "ops": [["add", value] | ["add_at", value, time] |
--    ["advance", n] | ["advance_to", time]], "hex" and "text" (the filter
--    after the ops), "union_ops", "union_hex" (another filter built so, and
--    the union of both, where given), "probes" (values' text forms) and
--    "answers" ("0"/"1" per probe: bloom_contains of the final filter)}
--
-- psql -X -q -At -f tests/clients/windows.sql
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET TimeZone = 'UTC';
SET extra_float_digits = 3;
CREATE EXTENSION IF NOT EXISTS bloomfilter;

-- a filter made as the case says, then its ops applied in order
CREATE FUNCTION pg_temp.replay(typ text, capacity bigint, fpp float8, generations int,
                               interval_us bigint, at timestamptz, ops jsonb) RETURNS bloom
LANGUAGE plpgsql AS $$
DECLARE
    f bloom;
    op jsonb;
BEGIN
    IF interval_us = 0 THEN
        f := bloom_window(capacity, fpp, generations);
    ELSE
        f := bloom_window(capacity, fpp, generations, make_interval(secs => interval_us / 1e6), at);
    END IF;
    FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
        CASE op->>0
            WHEN 'add' THEN
                EXECUTE format('SELECT bloom_add($1, $2::%s)', typ) INTO f USING f, op->>1;
            WHEN 'add_at' THEN
                EXECUTE format('SELECT bloom_add($1, $2::%s, $3::timestamptz)', typ) INTO f
                    USING f, op->>1, op->>2;
            WHEN 'advance' THEN
                f := bloom_advance(f, (op->>1)::int);
            WHEN 'advance_to' THEN
                f := bloom_advance(f, (op->>1)::timestamptz);
        END CASE;
    END LOOP;
    RETURN f;
END $$;

-- the answers of the final filter for the probes
CREATE FUNCTION pg_temp.answers(f bloom, typ text, probes jsonb) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    out text;
BEGIN
    EXECUTE format('SELECT string_agg(CASE WHEN $1 @> p.value::%s THEN ''1'' ELSE ''0'' END, '''' ORDER BY p.n)
                      FROM jsonb_array_elements_text($2) WITH ORDINALITY p(value, n)', typ)
        INTO out USING f, probes;
    RETURN coalesce(out, '');
END $$;

CREATE TEMP TABLE cases (name text, typ text, capacity bigint, fpp float8, generations int,
                         interval_us bigint, at timestamptz, ops jsonb, union_ops jsonb, probes jsonb);

-- int8 by hand: 8 generations of 150 values, advanced by 1 and by 3, probed
-- over every value added and as many never added
INSERT INTO cases
SELECT 'int8 by hand', 'int8', 200, 0.01, 5, 0, NULL,
       (SELECT jsonb_agg(op ORDER BY g, o)
          FROM (SELECT g, 0 AS o, jsonb_build_array('advance', CASE WHEN g = 4 THEN 3 ELSE 1 END) AS op
                  FROM generate_series(1, 7) g
                UNION ALL
                SELECT g, i, jsonb_build_array('add', (g * 1000 + i)::text)
                  FROM generate_series(0, 7) g, generate_series(1, 150) i) s),
       NULL,
       (SELECT jsonb_agg(v::text) FROM generate_series(0, 10200) v WHERE v % 1000 <= 160);

-- text in hours, 24 of them: rows of 36 hours in an order of their own (some
-- newer than the filter, some older than every slice), then moved on
INSERT INTO cases
SELECT 'text by the hour', 'text', 50, 0.001, 24, 3600000000, '2026-11-28 00:00+00',
       (SELECT jsonb_agg(op ORDER BY o)
          FROM (SELECT md5(i::text) AS o,
                       jsonb_build_array('add_at', 'req-' || i,
                                         to_char('2026-11-28 00:00+00'::timestamptz + i * interval '7 minutes',
                                                 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) AS op
                  FROM generate_series(1, 300) i) s)
         || jsonb_build_array(jsonb_build_array('advance_to', '2026-11-29T20:30:00Z')),
       NULL,
       (SELECT jsonb_agg('req-' || i) FROM generate_series(1, 400) i);

-- uuid, float8, numeric, timestamptz, bytea: one generation each of values, advanced twice
INSERT INTO cases
WITH vals AS (
    SELECT t, i, CASE t
                   WHEN 'uuid' THEN md5(i::text)::uuid::text
                   WHEN 'float8' THEN (i * 0.37)::float8::text
                   WHEN 'numeric' THEN (i * 1.5)::numeric(10, 2)::text
                   WHEN 'timestamptz' THEN to_char('2026-01-01 00:00+00'::timestamptz + i * interval '1 hour 1 second',
                                                   'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                   ELSE '\x' || md5(i::text)
                 END AS v
      FROM (VALUES ('uuid'), ('float8'), ('numeric'), ('timestamptz'), ('bytea')) ty(t), generate_series(1, 120) i)
SELECT 'a type: ' || ty.t, ty.t, 100, 0.01, 3, 0, NULL,
       (SELECT jsonb_agg(op ORDER BY o)
          FROM (SELECT i AS o, jsonb_build_array('add', v) AS op FROM vals WHERE vals.t = ty.t AND i <= 40
                UNION ALL SELECT 41, '["advance", 1]'::jsonb
                UNION ALL SELECT 41 + i, jsonb_build_array('add', v) FROM vals WHERE vals.t = ty.t AND i > 40 AND i <= 80
                UNION ALL SELECT 200, '["advance", 1]'::jsonb) s),
       NULL,
       (SELECT jsonb_agg(v ORDER BY i) FROM vals WHERE vals.t = ty.t)
  FROM (VALUES ('uuid'), ('float8'), ('numeric'), ('timestamptz'), ('bytea')) ty(t);

-- before 2000 (negative generations), in days; and an empty filter moved far on
INSERT INTO cases VALUES
  ('int4 before 2000', 'int4', 20, 0.05, 2, 86400000000, '1999-12-30 12:00+00',
   '[["add_at", "1", "1999-12-29T01:00:00Z"], ["add_at", "2", "1999-12-30T23:59:59Z"],
     ["add_at", "3", "1999-12-31T00:00:00Z"], ["advance_to", "2000-01-01T00:00:00Z"], ["add", "4"]]',
   NULL, '["1", "2", "3", "4", "5"]'),
  ('empty, moved on', 'int8', 10, 0.1, 2, 0, NULL, '[["advance", 1000000]]', NULL, '["1"]');

-- a union: the same shape, one filter behind the other
INSERT INTO cases
SELECT 'union', 'int8', 100, 0.01, 4, 0, NULL,
       (SELECT jsonb_agg(jsonb_build_array('add', i::text)) FROM generate_series(1, 60) i),
       '[["advance", 2]]'::jsonb
         || (SELECT jsonb_agg(jsonb_build_array('add', (i + 1000)::text)) FROM generate_series(1, 60) i),
       (SELECT jsonb_agg(v::text) FROM generate_series(1, 2000) v);

SELECT json_build_object(
         'case', name, 'type', typ, 'capacity', capacity, 'fpp', fpp, 'generations', generations,
         'interval', interval_us,
         'at', to_char(at, 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 'ops', ops,
         'hex', encode(f::bytea, 'hex'), 'text', f::text,
         'union_ops', union_ops,
         'union_hex', CASE WHEN union_ops IS NOT NULL
                           THEN encode(bloom_union(f, pg_temp.replay(typ, capacity, fpp, generations, interval_us, at, union_ops))::bytea, 'hex') END,
         'probes', probes, 'answers', pg_temp.answers(f, typ, probes))::text
  FROM cases, LATERAL pg_temp.replay(typ, capacity, fpp, generations, interval_us, at, ops) f
 ORDER BY name;
