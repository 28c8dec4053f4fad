-- tests/clients/vectors.sql: test vectors for the client libraries, made by
-- the server itself (issue 30).  For every type a client hashes, a list of
-- values (the first :added of them added to every filter but classic_wide,
-- which holds the first :added of the others; edge values among both), and
-- for every layout the server writes a filter
-- of those values, in the binary form (hex of bloom_send) and the text form,
-- with the server's answer (bloom_contains) for every value: the clients
-- must give exactly these answers.  One JSON object per line on stdout.
--
-- psql -X -q -At -v added=2000 -v absent=100000 [-v only=TYPE] -f tests/clients/vectors.sql
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET timezone = 'UTC';
SET datestyle = 'ISO, YMD';
SET extra_float_digits = 3;
SET intervalstyle = 'postgres';
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP SCHEMA IF EXISTS vectors CASCADE;
CREATE SCHEMA vectors;
SET search_path = vectors, public;

-- The values of each type: ord 1 .. :added are added, the rest are not.
-- Each type's generator gives distinct values (after the type's equality).
CREATE TABLE spec (ty text PRIMARY KEY, added text, absent text, edges_added text, edges_absent text);
INSERT INTO spec VALUES
  ('int2', 'SELECT (g * 3)::int2 FROM generate_series(1, %1$s) g',
           'SELECT g::int2 FROM generate_series(-32768, 32767) g WHERE g %% 3 <> 0 OR g <= 0 OR g > 3 * %1$s LIMIT %2$s',
           'VALUES (32767::int2), ((-32768)::int2)', 'VALUES (0::int2)'),
  ('int4', 'SELECT (g * 7)::int4 FROM generate_series(1, %1$s) g',
           'SELECT (g * 7 + 1)::int4 FROM generate_series(1, %2$s) g',
           'VALUES (2147483647), ((-2147483648)::int4)', 'VALUES (0), (-1), (2147483646)'),
  ('int8', 'SELECT g::int8 * 1000003 FROM generate_series(1, %1$s) g',
           'SELECT g::int8 * 1000003 + 17 FROM generate_series(1, %2$s) g',
           'VALUES (9223372036854775807), ((-9223372036854775808)::int8)', 'VALUES (0::int8), (-1::int8), (4294967296::int8), (-4294967296::int8)'),
  ('text', $$SELECT 'user' || g FROM generate_series(1, %1$s) g$$,
           $$SELECT 'user' || (g + 10000000) FROM generate_series(1, %2$s) g$$,
           $$VALUES (''), ('é'), ('日本語のテキスト'), ('😀 emoji'), (repeat('x', 1000)), ('a'), ('ab'), ('abc'), ('abcd'), ('abcde'), ('abcdefghijk'), ('abcdefghijkl'), ('abcdefghijklm')$$,
           $$VALUES ('E'), ('e'), ('ÉÉ'), (repeat('x', 999)), ('abcdefghij'), ('user'), (' user1')$$),
  ('varchar', $$SELECT ('name-' || g)::varchar FROM generate_series(1, %1$s) g$$,
              $$SELECT ('name-' || (g + 10000000))::varchar FROM generate_series(1, %2$s) g$$,
              $$VALUES (''::varchar), ('ü'::varchar)$$, $$VALUES ('u'::varchar)$$),
  ('bytea', $$SELECT decode(md5(g::text), 'hex') FROM generate_series(1, %1$s) g$$,
            $$SELECT decode(md5((g + 10000000)::text) || repeat('ab', g %% 13), 'hex') FROM generate_series(1, %2$s) g$$,
            $$VALUES (''::bytea), ('\x00'::bytea), ('\xff00ff'::bytea)$$, $$VALUES ('\x0000'::bytea), ('\x01'::bytea)$$),
  ('uuid', $$SELECT md5('u' || g)::uuid FROM generate_series(1, %1$s) g$$,
           $$SELECT md5('v' || g)::uuid FROM generate_series(1, %2$s) g$$,
           $$VALUES ('00000000-0000-0000-0000-000000000000'::uuid), ('ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)$$,
           $$VALUES ('00000000-0000-0000-0000-000000000001'::uuid)$$),
  ('numeric', 'SELECT (g * 1.5)::numeric FROM generate_series(1, %1$s) g',
              'SELECT (g * 1.5 + 0.25)::numeric FROM generate_series(1, %2$s) g',
              $$VALUES ('NaN'::numeric), ('Infinity'::numeric), ('0'::numeric), ('1e100'::numeric), ('1e-100'::numeric), (('1' || repeat('7', 999))::numeric), ('-12345.6789'::numeric), ('0.0001'::numeric), ('10000'::numeric)$$,
              $$VALUES ('-Infinity'::numeric), ('1e-99'::numeric), (('1' || repeat('7', 998))::numeric), ('-12345.67891'::numeric), ('0.001'::numeric), ('100000'::numeric)$$),
  ('float4', 'SELECT (g * 0.5)::float4 FROM generate_series(1, %1$s) g',
             'SELECT (g * 0.5 + 0.1)::float4 FROM generate_series(1, %2$s) g',
             $$VALUES ('NaN'::float4), ('Infinity'::float4), ('0'::float4), ('1e-45'::float4), ('3.4028235e38'::float4)$$,
             $$VALUES ('-Infinity'::float4), ('1e-44'::float4), ('-1'::float4)$$),
  ('float8', 'SELECT g * 0.25 FROM generate_series(1, %1$s) g',
             'SELECT g * 0.25 + 0.1 FROM generate_series(1, %2$s) g',
             $$VALUES ('NaN'::float8), ('-Infinity'::float8), ('-0'::float8), ('5e-324'::float8), ('1.7976931348623157e308'::float8)$$,
             $$VALUES ('Infinity'::float8), ('1e-323'::float8), ('-1'::float8)$$),
  ('date', $$SELECT '2000-01-01'::date + g * 3 FROM generate_series(1, %1$s) g$$,
           $$SELECT '1900-01-01'::date + g FROM generate_series(1, %2$s) g WHERE ('1900-01-01'::date + g - '2000-01-01'::date) %% 3 <> 0$$,
           $$VALUES ('infinity'::date), ('0001-01-01'::date), ('9999-12-31'::date), ('4713-01-01 BC'::date)$$,
           $$VALUES ('-infinity'::date), ('5874897-12-31'::date), ('2000-01-01'::date)$$),
  ('timestamp', $$SELECT '2000-01-01'::timestamp + g * interval '1 hour 1 microsecond' FROM generate_series(1, %1$s) g$$,
                $$SELECT '1999-06-01'::timestamp + g * interval '17 minutes 3 microseconds' FROM generate_series(1, %2$s) g$$,
                $$VALUES ('infinity'::timestamp), ('0001-01-01 00:00:00'::timestamp), ('9999-12-31 23:59:59.999999'::timestamp)$$,
                $$VALUES ('-infinity'::timestamp), ('4713-01-01 00:00:00 BC'::timestamp), ('294276-12-31 23:59:59.999999'::timestamp)$$),
  ('timestamptz', $$SELECT '2000-01-01 00:00:00+00'::timestamptz + g * interval '1 hour 1 microsecond' FROM generate_series(1, %1$s) g$$,
                  $$SELECT '1999-06-01 00:00:00+00'::timestamptz + g * interval '17 minutes 3 microseconds' FROM generate_series(1, %2$s) g$$,
                  $$VALUES ('infinity'::timestamptz), ('1970-01-01 00:00:00+00'::timestamptz)$$,
                  $$VALUES ('-infinity'::timestamptz), ('2000-01-01 00:00:00+00'::timestamptz)$$),
  ('bool', 'SELECT true FROM generate_series(1, 1) g', 'SELECT false FROM generate_series(1, 1) g', 'SELECT true WHERE false', 'SELECT true WHERE false');

-- fold_add(start, v): start with every v added, one bloom_add at a time
-- (for filters no aggregate makes: a seed of one's own, an explicit set).
CREATE FUNCTION fold_step(s bloom, start bloom, v anyelement) RETURNS bloom LANGUAGE sql
    AS 'SELECT bloom_add(coalesce(s, start), v)';
CREATE AGGREGATE fold_add(bloom, anyelement) (sfunc = fold_step, stype = bloom);

CREATE FUNCTION one_type(t text, n_added int, n_absent int) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
    s spec;
    tbl text := 'v_' || t;
    filters json[] := '{}';
    f record;
    values_json json;
    nadded int;
    answers text;
BEGIN
    SELECT * INTO s FROM spec WHERE ty = t;
    -- the values: added ones first (the generator's, then the edges), then the absent ones
    EXECUTE format('CREATE TABLE %I AS
        SELECT row_number() OVER () AS ord, v, added FROM (
          SELECT v, true AS added FROM (%s) a(v)
          UNION ALL SELECT v, true FROM (%s) b(v)
          UNION ALL SELECT v, false FROM (%s) c(v)
          UNION ALL SELECT v, false FROM (%s) d(v)) x',
        tbl, format(s.added, n_added, n_absent), s.edges_added, format(s.absent, n_added, n_absent),
        s.edges_absent);
    EXECUTE format('SELECT count(*) FILTER (WHERE added) FROM %I', tbl) INTO nadded;
        -- the layered filter: a bloomfilter index of the added values and every
    -- other absent one, built on a hundredth of them so that it grows layers
    EXECUTE format('CREATE TABLE %1$I AS SELECT v FROM %2$I WHERE added AND ord %% 100 = 0', tbl || '_ix', tbl);
    EXECUTE format('CREATE INDEX ON %I USING bloomfilter (v) WITH (capacity = 100)', tbl || '_ix');
    EXECUTE format('INSERT INTO %1$I SELECT v FROM %2$I WHERE (added AND ord %% 100 <> 0) OR (NOT added AND ord %% 2 = 0) ORDER BY ord', tbl || '_ix', tbl);
    EXECUTE format('CREATE TEMP TABLE made AS
        SELECT ''classic'' AS name, (SELECT bloom_agg(v, %2$s, 0.01, ''classic'') FROM %1$I WHERE added) AS f
        UNION ALL SELECT ''blocked512'', (SELECT bloom_agg(v, %2$s, 0.01, ''blocked512'') FROM %1$I WHERE added)
        UNION ALL SELECT ''auto'', (SELECT bloom_agg(v) FROM %1$I WHERE added)
        UNION ALL SELECT ''derived'', (SELECT bloom_agg(v, %2$s * 2, 0.01, ''classic'') FROM %1$I WHERE added OR ord %% 50 = 0)
                                   & (SELECT bloom_agg(v, %2$s * 2, 0.01, ''classic'') FROM %1$I WHERE added OR ord %% 50 = 1)
        UNION ALL SELECT ''derived_blocked'', (SELECT bloom_agg(v, %2$s * 2, 0.01, ''blocked512'') FROM %1$I WHERE added OR ord %% 50 = 0)
                                   & (SELECT bloom_agg(v, %2$s * 2, 0.01, ''blocked512'') FROM %1$I WHERE added OR ord %% 50 = 1)
        UNION ALL SELECT ''explicit'', (SELECT fold_add(''v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes=''::bloom, v) FROM %1$I WHERE added)
        UNION ALL SELECT ''explicit_target'', (SELECT fold_add(''v1 explicit m=0 k=0 scheme=1 seed=0 n=0 target=0.001 elem= hashes=''::bloom, v) FROM %1$I WHERE added)
        UNION ALL SELECT ''seed_all_ones'', (SELECT fold_add(bloom_empty_mk(%2$s * 10, 7, -1, ''classic''), v) FROM %1$I WHERE added)
        UNION ALL SELECT ''seed_blocked'', (SELECT fold_add(bloom_empty_mk(%2$s * 10 / 512 * 512 + 512, 6, 81985529216486895, ''blocked512''), v) FROM %1$I WHERE added)
        UNION ALL SELECT ''blocked_k12'', (SELECT fold_add(bloom_empty_mk(%2$s * 20 / 512 * 512 + 512, 12, 0, ''blocked512''), v) FROM %1$I WHERE added)
        UNION ALL SELECT ''layered'', bloom_index_filter(%4$L::regclass)
        UNION ALL SELECT ''empty'', bloom_empty(100, 0.01)',
        tbl, nadded, NULL, (SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = (tbl || '_ix')::regclass));
    -- what the clients' writers must match: a derived filter that takes an
    -- add, and its union with a classic filter of the same size (the first
    -- nadded absent values)
    EXECUTE format('INSERT INTO made
        SELECT ''classic_wide'', (SELECT bloom_agg(v, %2$s * 2, 0.01, ''classic'')
                                  FROM (SELECT v FROM %1$I WHERE NOT added ORDER BY ord LIMIT %2$s) w)
        UNION ALL SELECT ''derived_added'',
            bloom_add(f, (SELECT v FROM %1$I WHERE NOT added ORDER BY ord LIMIT 1)) FROM made WHERE name = ''derived''',
        tbl, nadded);
    INSERT INTO made SELECT 'derived_union', d.f | w.f FROM made d, made w WHERE d.name = 'derived' AND w.name = 'classic_wide';
    FOR f IN SELECT * FROM made LOOP
        EXECUTE format('SELECT string_agg(CASE WHEN bloom_contains($1, v) THEN ''1'' ELSE ''0'' END, '''' ORDER BY ord) FROM %I', tbl)
           USING f.f INTO answers;
        filters := filters || json_build_object(
            'name', f.name,
            'hex', encode(bloom_send(f.f), 'hex'),
            'text', f.f::text,
            'info', (SELECT row_to_json(i) FROM bloom_info(f.f) i),
            'answers', answers);
    END LOOP;
    -- counting4 (its own type)
    EXECUTE format('SELECT json_build_object(''name'', ''counting4'', ''hex'', encode(counting_bloom_send(c), ''hex''), ''text'', c::text,
                      ''answers'', (SELECT string_agg(CASE WHEN bloom_contains(c, v) THEN ''1'' ELSE ''0'' END, '''' ORDER BY ord) FROM %1$I))
                      FROM (SELECT counting_bloom_agg(v, %2$s, 0.01) AS c FROM %1$I WHERE added) x', tbl, nadded)
       INTO values_json;
    filters := filters || values_json;
    DROP TABLE made;
    -- a value's text form; bytea as hex without the \x
    EXECUTE format('SELECT json_agg(%2$s ORDER BY ord) FROM %1$I', tbl,
                   CASE WHEN t = 'bytea' THEN 'encode(v, ''hex'')' ELSE 'v::text' END)
       INTO values_json;
    RETURN json_build_object('type', t, 'added', nadded, 'values', values_json, 'filters', to_json(filters));
END $$;

\if :{?only}
\else
\set only ''
\endif
SELECT one_type(ty, :added, :absent)::text FROM spec WHERE :'only' = '' OR ty = :'only' ORDER BY ty;
