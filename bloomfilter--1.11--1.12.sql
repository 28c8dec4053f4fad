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

-- said once, by CREATE EXTENSION and ALTER EXTENSION UPDATE
SELECT bloom_runtime_check();
