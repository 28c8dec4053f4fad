-- bloomfilter 1.8 -> 1.9
--
-- 1.9 adds an index access method, bloomfilter: one Bloom filter over a
-- column that PostgreSQL keeps current on every INSERT, UPDATE and COPY
-- (src/index/bloomindex.h).  It answers no WHERE clause: it is read with
-- the functions below.
--
--   CREATE INDEX users_name_seen ON users USING bloomfilter (name)
--       WITH (false_positive_rate = 0.01);
--   SELECT bloom_index_contains('users_name_seen', 'alice'::text);

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.9'" to load this file. \quit

CREATE FUNCTION bloomfilter_index_handler(internal) RETURNS index_am_handler
    AS 'MODULE_PATHNAME', 'bloomfilter_index_handler' LANGUAGE C;

CREATE ACCESS METHOD bloomfilter TYPE INDEX HANDLER bloomfilter_index_handler;
COMMENT ON ACCESS METHOD bloomfilter IS
    'one Bloom filter over a column, kept current on every write; read with bloom_index_contains()';

-- Operator classes: no operator (the index answers no WHERE clause), and as
-- support function 1 the type's extended hash function, that of its default
-- hash operator class, so that the index hashes its keys as bloom_agg does.
-- Looked up here rather than named: PostgreSQL 18 gave bytea, date, bool
-- and timestamptz hash functions of their own, where 15 and 17 use those
-- of other types (hashvarlenaextended, hashint4extended, ...).  Every
-- operator and function named with its schema: the extension is trusted, so
-- this runs as a superuser with the (maybe the user's) extension schema on
-- the search path, where a better-matching = or format would be taken.
DO $$
DECLARE
    name text;
    fn regprocedure;
BEGIN
    FOREACH name IN ARRAY ARRAY['int2', 'int4', 'int8', 'text', 'varchar', 'bpchar', 'bytea', 'uuid',
                                'numeric', 'date', 'timestamp', 'timestamptz', 'time', 'interval',
                                'float4', 'float8', 'bool', 'oid', 'inet'] LOOP
        SELECT p.amproc::pg_catalog.regprocedure INTO fn
          FROM pg_catalog.pg_opclass c
          JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) c.opcmethod
                                 AND a.amname OPERATOR(pg_catalog.=) 'hash'::pg_catalog.name
          JOIN pg_catalog.pg_amproc p ON p.amprocfamily OPERATOR(pg_catalog.=) c.opcfamily
                                     AND p.amprocnum OPERATOR(pg_catalog.=) 2
                                     AND p.amproclefttype OPERATOR(pg_catalog.=) c.opcintype
                                     AND p.amprocrighttype OPERATOR(pg_catalog.=) c.opcintype
         WHERE c.opcdefault
           AND c.opcintype OPERATOR(pg_catalog.=)
               (CASE WHEN name OPERATOR(pg_catalog.=) 'varchar' THEN 'text' ELSE name END)::pg_catalog.regtype::pg_catalog.oid;
        IF fn IS NULL THEN
            RAISE EXCEPTION 'type % has no default hash operator class with an extended hash function', name;
        END IF;
        EXECUTE pg_catalog.format('CREATE OPERATOR CLASS %I DEFAULT FOR TYPE %s USING bloomfilter AS FUNCTION 1 %s',
                                  pg_catalog.concat(name, '_ops'), name::pg_catalog.regtype, fn);
    END LOOP;
END $$;

-- Reading the index.  STABLE: the index changes between statements.  Each
-- needs the right to read the indexed column (bloom_index_info excepted:
-- counts only).
CREATE FUNCTION bloom_index_contains(index regclass, value anyelement) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_index_contains' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_index_contains(regclass, anyelement) IS
    'whether the bloomfilter index may hold the value (false: certainly not)';

CREATE FUNCTION bloom_index_info(index regclass,
    OUT layers integer, OUT keys_added bigint, OUT capacity bigint, OUT size_bytes bigint,
    OUT bits_set bigint, OUT false_positive_rate double precision,
    OUT estimated_rate double precision, OUT live_rows double precision,
    OUT keys_per_live_row double precision)
    AS 'MODULE_PATHNAME', 'bloom_index_info' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_index_info(regclass) IS
    'a bloomfilter index''s layers, keys added, capacity, size, declared and estimated rates, and keys added per live row of its table';

CREATE FUNCTION bloom_index_filter(index regclass) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_index_filter' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION bloom_index_filter(regclass) IS
    'the bloomfilter index''s filter as a bloom value (layered: its layers, bit for bit), to probe, combine, store or ship';

CREATE FUNCTION bloom_index_verify(index regclass,
    OUT pages_checked bigint, OUT rows_checked bigint, OUT keys_missing bigint)
    AS 'MODULE_PATHNAME', 'bloom_index_verify' LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION bloom_index_verify(regclass) IS
    'checks every page of a bloomfilter index and that it holds the key of every row the snapshot sees';

-- The layers of a filter: a layered one's (a bloomfilter index's snapshot,
-- format layout 5), each a blocked512 filter of its own m and k; a classic
-- or blocked512 filter is one layer.
CREATE FUNCTION bloom_layers(filter bloom,
    OUT layer integer, OUT nbits bigint, OUT nhashes integer, OUT bits_set bigint,
    OUT fill_ratio double precision, OUT estimated_distinct double precision,
    OUT estimated_fpp double precision)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'bloom_layers' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
