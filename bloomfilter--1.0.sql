/* bloomfilter--1.0.sql: the bloom type, building, probing and sizing */

\echo Use "CREATE EXTENSION bloomfilter" to load this file. \quit

-- ---------------------------------------------------------------------
-- The type.  A varlena in the format documented in core/bf_core.h and the
-- README; text form "v1 classic m=... k=... ... bits=<base64>".
-- ---------------------------------------------------------------------

CREATE TYPE bloom;

CREATE FUNCTION bloom_in(cstring) RETURNS bloom
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_out(bloom) RETURNS cstring
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_recv(internal) RETURNS bloom
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_send(bloom) RETURNS bytea
    AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE bloom (
    INPUT = bloom_in,
    OUTPUT = bloom_out,
    RECEIVE = bloom_recv,
    SEND = bloom_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);

COMMENT ON TYPE bloom IS 'Bloom filter: m bits, k hash positions per value; no false negatives';

-- ---------------------------------------------------------------------
-- Creating, adding, probing
-- ---------------------------------------------------------------------

-- An empty filter sized for expected_n distinct values at rate fpp.
CREATE FUNCTION bloom_empty(expected_n bigint, fpp float8 DEFAULT 0.01) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- An empty filter of exactly nbits bits and nhashes hashes.
CREATE FUNCTION bloom_empty_mk(nbits bigint, nhashes integer, seed bigint DEFAULT 0) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_empty_mk' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- A copy of the filter with the value added; a NULL value changes nothing.
CREATE FUNCTION bloom_add(filter bloom, value text) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_add(filter bloom, value anyelement) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- false: never added.  true: probably added (at the filter's rate).
CREATE FUNCTION bloom_contains(filter bloom, value text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contains(filter bloom, value anyelement) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The same, value first, for the commutator operator <@.
CREATE FUNCTION bloom_contained(value text, filter bloom) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(value anyelement, filter bloom) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- filter @> value, value <@ filter
CREATE OPERATOR @> (
    LEFTARG = bloom, RIGHTARG = text, FUNCTION = bloom_contains, COMMUTATOR = <@
);
CREATE OPERATOR @> (
    LEFTARG = bloom, RIGHTARG = anyelement, FUNCTION = bloom_contains, COMMUTATOR = <@
);
CREATE OPERATOR <@ (
    LEFTARG = text, RIGHTARG = bloom, FUNCTION = bloom_contained, COMMUTATOR = @>
);
CREATE OPERATOR <@ (
    LEFTARG = anyelement, RIGHTARG = bloom, FUNCTION = bloom_contained, COMMUTATOR = @>
);

-- ---------------------------------------------------------------------
-- Aggregates.  The state is a bloom value (not internal), updated in place;
-- the combine function ORs partial states, so parallel and distributed
-- builds give the serial result.
-- ---------------------------------------------------------------------

CREATE FUNCTION bloom_agg_trans(state bloom, value anyelement) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_agg_trans(state bloom, value anyelement, expected_n bigint, fpp float8)
    RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_trans_sized' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_agg_combine(a bloom, b bloom) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_combine' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- bloom_agg(value): sized for 1,000,000 distinct values at 1 %.
CREATE AGGREGATE bloom_agg(value anyelement) (
    SFUNC = bloom_agg_trans,
    STYPE = bloom,
    COMBINEFUNC = bloom_agg_combine,
    PARALLEL = SAFE
);

-- bloom_agg(value, expected_n, fpp): sized by the hints.
CREATE AGGREGATE bloom_agg(value anyelement, expected_n bigint, fpp float8) (
    SFUNC = bloom_agg_trans,
    STYPE = bloom,
    COMBINEFUNC = bloom_agg_combine,
    PARALLEL = SAFE
);

-- ---------------------------------------------------------------------
-- Inspecting
-- ---------------------------------------------------------------------

CREATE FUNCTION bloom_info(filter bloom,
    OUT layout text, OUT nbits bigint, OUT nhashes integer, OUT bytes integer,
    OUT values_added bigint, OUT bits_set bigint, OUT fill_ratio float8,
    OUT estimated_distinct float8, OUT estimated_fpp float8,
    OUT element_family text, OUT seed bigint, OUT hash_scheme integer)
    AS 'MODULE_PATHNAME', 'bloom_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_cardinality(filter bloom) RETURNS float8
    AS 'MODULE_PATHNAME', 'bloom_cardinality' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------
-- Sizing calculator
-- ---------------------------------------------------------------------

CREATE FUNCTION bloom_params(expected_n bigint, fpp float8 DEFAULT 0.01,
    OUT nbits bigint, OUT nhashes integer, OUT bytes bigint, OUT fpp float8)
    AS 'MODULE_PATHNAME', 'bloom_params' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_optimal(n bigint, nbits bigint, OUT nhashes integer, OUT fpp float8)
    AS 'MODULE_PATHNAME', 'bloom_optimal' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_fpp(n bigint, nbits bigint, nhashes integer) RETURNS float8
    AS 'MODULE_PATHNAME', 'bloom_fpp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
