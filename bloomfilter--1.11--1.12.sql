-- bloomfilter 1.11 -> 1.12
--
-- 1.12: trust and first contact (issue 49).  In the library: a bloomfilter
-- index never hashes under a collation that loses keys of its column's
-- nondeterministic one (CREATE INDEX refuses it, readers refuse an index
-- made so before); the plan-time read of a dimension's keys never fails a
-- query; element keys are checked as text of the database's encoding.
-- Here: whether runtime filters are active in a session, the advice CREATE
-- EXTENSION gives where the library is not preloaded, and
-- bloom_index_contains for text and untyped literals; bloom_import and
-- bloom_export.  The stored format gains layouts 6 to 8 (other makers'
-- filters) and flag bit 2; every value 1.11 wrote reads as before.

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.12'" to load this file. \quit

CREATE FUNCTION bloom_index_contains(index regclass, value text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_index_contains_text' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_index_contains(regclass, text) IS
    'whether the bloomfilter index may hold the value, given as text (an untyped literal): hashed as text where the column''s type hashes as text, else read as the column''s type';

-- (PARALLEL RESTRICTED: it describes the session that calls it, the leader)
CREATE FUNCTION bloom_runtime_status(OUT active boolean, OUT loaded text,
    OUT every_session boolean, OUT reason text)
    AS 'MODULE_PATHNAME', 'bloom_runtime_status' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_runtime_status() IS
    'whether runtime filters are active in this session, how the library was loaded, whether new sessions load it at their start, and why';

CREATE FUNCTION bloom_runtime_check() RETURNS void
    AS 'MODULE_PATHNAME', 'bloom_runtime_check' LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_runtime_check() IS
    'a WARNING saying how to load the library in every session, where new sessions would not load it at their start';

-- Other systems' filters: Apache Spark's (BloomFilter.writeTo, versions 1
-- and 2), Guava's (MURMUR128_MITZ_64) and Parquet's split block filters,
-- kept in their makers' bytes (layouts spark, guava, parquet) and probed as
-- their makers probe them.
CREATE FUNCTION bloom_import(data bytea, format text, element_type regtype) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_import' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_import(bytea, text, regtype) IS
    'a filter another system wrote (format spark, guava, guava_chars, parquet or parquet_bitset), probed with values of element_type as that system probes them';

CREATE FUNCTION bloom_export(filter bloom, format text) RETURNS bytea
    AS 'MODULE_PATHNAME', 'bloom_export' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_export(bloom, text) IS
    'another system''s filter in that system''s bytes, which its own reader reads back';

-- Window filters (issue 52): age-partitioned Bloom filters, whose values
-- fade after a window of generations (layout window).  bloom_add, @>,
-- bloom_contains, bloom_union, bloom_info and the type's input and output
-- take them; every other function refuses them.
CREATE FUNCTION bloom_window(capacity bigint, false_positive_rate float8 DEFAULT 0.01,
    generations int DEFAULT 10) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_window_new' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_window(bigint, float8, int) IS
    'an empty window filter: every value added in its current generation or the generations - 1 before it is found, at the rate asked for capacity values a generation; bloom_advance moves it on';

CREATE FUNCTION bloom_window(capacity bigint, false_positive_rate float8, generations int,
    generation_length interval, at timestamptz) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_window_new_clocked' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_window(bigint, float8, int, interval, timestamptz) IS
    'an empty window filter whose generations are times, generation_length each from 2000-01-01 00:00 UTC, its current generation the one holding at';

CREATE FUNCTION bloom_advance(filter bloom, generations int DEFAULT 1) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_window_advance' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_advance(bloom, int) IS
    'the window filter generations later: its oldest generations forgotten';

CREATE FUNCTION bloom_advance(filter bloom, now timestamptz) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_window_advance_to' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_advance(bloom, timestamptz) IS
    'a window filter whose generations are times, advanced to the generation holding now';

-- (not STRICT: a NULL value is ignored, as bloom_add(filter, value) ignores it)
CREATE FUNCTION bloom_add(filter bloom, value anyelement, at timestamptz) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_window_add_at' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_add(bloom, anyelement, timestamptz) IS
    'a window filter whose generations are times, with the value added in the generation holding at (advanced to it if later)';

CREATE FUNCTION bloom_window_info(filter bloom, OUT hashes int, OUT generations int,
    OUT slices int, OUT slice_bits bigint, OUT capacity bigint, OUT generation bigint,
    OUT generation_length interval, OUT generation_start timestamptz,
    OUT values_in_window bigint, OUT estimated_fpp float8)
    AS 'MODULE_PATHNAME', 'bloom_window_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_window_info(bloom) IS
    'a window filter''s shape and clock, the values added within its window, and the rate of false positives its slices give now';

-- (the state is the filter, changed in place; partial states join by bloom_union)
CREATE FUNCTION bloom_window_agg_trans(state bloom, value anyelement, at timestamptz,
    capacity bigint, false_positive_rate float8, generations int, generation_length interval)
    RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_window_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_window_agg_trans(state bloom, value anyelement, at timestamptz,
    capacity bigint, false_positive_rate float8, generations int, generation_length interval,
    window_end timestamptz)
    RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_window_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE bloom_window_agg(value anyelement, at timestamptz, capacity bigint,
    false_positive_rate float8, generations int, generation_length interval) (
    SFUNC = bloom_window_agg_trans,
    STYPE = bloom,
    COMBINEFUNC = bloom_agg_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_window_agg(anyelement, timestamptz, bigint, float8, int, interval) IS
    'a window filter of the values, each added in the generation its time falls in (generation_length each from 2000-01-01 00:00 UTC), the window ending at the newest row''s generation';
CREATE AGGREGATE bloom_window_agg(value anyelement, at timestamptz, capacity bigint,
    false_positive_rate float8, generations int, generation_length interval,
    window_end timestamptz) (
    SFUNC = bloom_window_agg_trans,
    STYPE = bloom,
    COMBINEFUNC = bloom_agg_combine,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE bloom_window_agg(anyelement, timestamptz, bigint, float8, int, interval, timestamptz) IS
    'a window filter of the values, each added in the generation its time falls in, the window ending at the generation holding window_end (later rows left out)';

-- Issue 52, part 1: the bloomfilter index forgets deleted keys.  VACUUM
-- rebuilds its filter online (reloptions rebuild_factor, default 1.2, and
-- rebuild_rate_factor, default 2.0); bloom_index_rebuild rebuilds now, for
-- the table's owner; bloom_index_info tells when and why it last did.
-- VOLATILE: it changes the index.  PARALLEL UNSAFE: it writes.
CREATE FUNCTION bloom_index_rebuild(index regclass) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_index_rebuild' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION bloom_index_rebuild(regclass) IS
    'rebuild a bloomfilter index''s filter from its table''s rows now, inserts going on, so that deleted rows'' keys leave it (false: the last rebuild''s pages are still held by older transactions; try again later)';

-- three more columns: a function's result type cannot change in place, so
-- it is dropped and made again.  Objects of the user's that use it (a view,
-- a function with a SQL body, a rule, a default) would make the DROP fail
-- with a hint to use CASCADE, which ALTER EXTENSION cannot take: name them,
-- and say what to do.  Every operator and function is named with its
-- schema: the extension is trusted, so this runs as a superuser with the
-- (maybe the user's) extension schema on the search path.
DO $$
DECLARE
    info pg_catalog.oid := 'bloom_index_info(regclass)'::pg_catalog.regprocedure;
    users text;
BEGIN
    SELECT pg_catalog.string_agg(DISTINCT
               CASE WHEN r.rulename OPERATOR(pg_catalog.=) '_RETURN'::pg_catalog.name
                    THEN pg_catalog.pg_describe_object('pg_catalog.pg_class'::pg_catalog.regclass, r.ev_class, 0)
                    ELSE pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid) END, ', ')
      INTO users
      FROM pg_catalog.pg_depend d
      LEFT JOIN pg_catalog.pg_rewrite r
        ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass::pg_catalog.oid
       AND r.oid OPERATOR(pg_catalog.=) d.objid
     WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass::pg_catalog.oid
       AND d.refobjid OPERATOR(pg_catalog.=) info
       AND d.deptype OPERATOR(pg_catalog.=) 'n'::pg_catalog."char";
    IF users IS NOT NULL THEN
        RAISE EXCEPTION 'cannot update bloomfilter to 1.12 while other objects use bloom_index_info(regclass): %', users
            USING ERRCODE = 'dependent_objects_still_exist',
                  DETAIL = '1.12 adds three columns to its result (last_rebuilt, last_rebuild_reason, rebuilds), and a function''s result type changes only by dropping the function.',
                  HINT = 'Save their definitions (pg_get_viewdef, pg_get_functiondef, pg_get_ruledef), drop them, run ALTER EXTENSION bloomfilter UPDATE again, then make them again.';
    END IF;
END
$$;
DROP FUNCTION bloom_index_info(regclass);
CREATE FUNCTION bloom_index_info(index regclass,
    OUT layers integer, OUT keys_added bigint, OUT capacity bigint, OUT size_bytes bigint,
    OUT bits_set bigint, OUT false_positive_rate double precision,
    OUT estimated_rate double precision, OUT live_rows double precision,
    OUT keys_per_live_row double precision, OUT last_rebuilt timestamptz,
    OUT last_rebuild_reason text, OUT rebuilds bigint)
    AS 'MODULE_PATHNAME', 'bloom_index_info' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_index_info(regclass) IS
    'a bloomfilter index''s layers, keys added, capacity, size, declared and estimated rates, keys added per live row of its table, and when and why (keys, rate or manual) VACUUM or bloom_index_rebuild last rebuilt its filter, and how often';

-- said once, by CREATE EXTENSION and ALTER EXTENSION UPDATE
SELECT bloom_runtime_check();
