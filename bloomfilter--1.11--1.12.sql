-- bloomfilter 1.11 -> 1.12
--
-- 1.12: trust and first contact (issue 49).  In the library: a bloomfilter
-- index never hashes under a collation that loses keys of its column's
-- nondeterministic one (CREATE INDEX refuses it, readers refuse an index
-- made so before); the plan-time read of a dimension's keys never fails a
-- query; element keys are checked as text of the database's encoding.
-- Here: whether runtime filters are active in a session, the advice CREATE
-- EXTENSION gives where the library is not preloaded, and
-- bloom_index_contains for text and untyped literals.  The stored format is
-- the same.

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

-- said once, by CREATE EXTENSION and ALTER EXTENSION UPDATE
SELECT bloom_runtime_check();
