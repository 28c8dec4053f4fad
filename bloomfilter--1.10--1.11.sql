-- bloomfilter 1.10 -> 1.11
--
-- 1.11 makes every reader of a filter keep the one promise, no false
-- negatives, to whoever may read it (issue 39): the bloomfilter index's
-- readers see the caller's own inserts of the same command, TRUNCATE in
-- place and partitions attached meanwhile, check the current user's
-- privileges on every change and before any lock, and take SERIALIZABLE's
-- predicate locks; interrupted growth leaves no lost pages; runtime filters
-- are shipped to postgres_fdw only where the remote side hashes the value
-- the local join compares.  All of it is in the library; the stored format
-- is the same.
--
-- Casts between bytea and the filter types (issue 42): a filter an
-- application writes (the client libraries' toBytes / to_bytes) is sent as
-- an ordinary bytea query parameter, by any driver, and read with
-- $1::bytea::bloom, checked exactly as bloom_recv checks the binary form;
-- and bloom_index_refresh, which sends an index's filter only if it changed.

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.11'" to load this file. \quit

CREATE FUNCTION bloom_from_bytea(bytea) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_from_bytea(bytea) IS
    'a filter from its binary form (bloom_send''s bytes, a client library''s toBytes), checked as binary input is';
CREATE CAST (bytea AS bloom) WITH FUNCTION bloom_from_bytea(bytea);

CREATE FUNCTION counting_bloom_from_bytea(bytea) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'counting_bloom_from_bytea' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION counting_bloom_from_bytea(bytea) IS
    'a counting filter from its binary form (counting_bloom_send''s bytes), checked as binary input is';
CREATE CAST (bytea AS counting_bloom) WITH FUNCTION counting_bloom_from_bytea(bytea);

-- and back: f::bytea is bloom_send(f)
CREATE CAST (bloom AS bytea) WITH FUNCTION bloom_send(bloom);
CREATE CAST (counting_bloom AS bytea) WITH FUNCTION counting_bloom_send(counting_bloom);

-- A client's copy of an index's filter, kept current (issue 42): the filter
-- and a stamp of its bytes, or, when the caller's copy has that stamp, the
-- stamp alone (the filter NULL), in one round trip.  Not STRICT: known is
-- NULL on the first call.
CREATE FUNCTION bloom_index_refresh(index regclass, known bigint DEFAULT NULL,
    OUT stamp bigint, OUT filter bloom)
    AS 'MODULE_PATHNAME', 'bloom_index_refresh' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION bloom_index_refresh(regclass, bigint) IS
    'the bloomfilter index''s filter (as bloom_index_filter) and a stamp of it; the filter NULL if the stamp equals known';
