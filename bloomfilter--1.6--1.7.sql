-- bloomfilter 1.6 -> 1.7
--
-- 1.7 ships runtime join filters into postgres_fdw scans whose server lists
-- bloomfilter in its "extensions" option.  The remote server runs these two
-- functions in the WHERE clause of the query it is sent; they take the
-- filter as a bytea parameter and the key's 32-bit hash as the hash join
-- computes it (src/runtime/pushdown.c).  The remote server needs 1.7 too.

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.7'" to load this file. \quit

-- Whether a key whose join hash is `hash` may be in the runtime filter:
-- true for a NULL filter (none was sent), false for a NULL hash (a NULL key).
CREATE FUNCTION bloom_runtime_contains(filter bytea, hash integer) RETURNS boolean
  AS 'MODULE_PATHNAME', 'bloom_runtime_contains'
  LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The join hash of keys (.., b) from that of (..) and b's own.
CREATE FUNCTION bloom_runtime_combine(a integer, b integer) RETURNS integer
  AS 'MODULE_PATHNAME', 'bloom_runtime_combine'
  LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
