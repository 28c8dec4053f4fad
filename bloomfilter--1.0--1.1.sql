/* bloomfilter--1.0--1.1.sql: set algebra on bloom, and the counting_bloom type */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.1'" to load this file. \quit

-- ---------------------------------------------------------------------
-- Set algebra on bloom.  Filters combine only if m, k, layout, hash scheme,
-- seed and element family agree (22023 otherwise).  Inside an aggregate the
-- state is updated in place.
-- ---------------------------------------------------------------------

-- The filter of the union: the bits ORed.
CREATE FUNCTION bloom_union(a bloom, b bloom) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- A filter of the intersection: the bits ANDed (see bloom_info for its rate).
CREATE FUNCTION bloom_intersect(a bloom, b bloom) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_intersect' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR | (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_union, COMMUTATOR = |);
CREATE OPERATOR & (LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_intersect, COMMUTATOR = &);

CREATE AGGREGATE bloom_union_agg(bloom) (
    SFUNC = bloom_union,
    STYPE = bloom,
    COMBINEFUNC = bloom_union,
    PARALLEL = SAFE
);
CREATE AGGREGATE bloom_intersect_agg(bloom) (
    SFUNC = bloom_intersect,
    STYPE = bloom,
    COMBINEFUNC = bloom_intersect,
    PARALLEL = SAFE
);

-- Equal: same parameters, same element family, same bits.
CREATE FUNCTION bloom_eq(a bloom, b bloom) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_ne(a bloom, b bloom) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR = (
    LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR <> (
    LEFTARG = bloom, RIGHTARG = bloom, FUNCTION = bloom_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);

-- ---------------------------------------------------------------------
-- counting_bloom: 4-bit counters in place of bits, so values can be removed.
-- Same format (layout "counting4"), same validation; the functions it shares
-- with bloom run the same C code, which dispatches on the layout.
-- ---------------------------------------------------------------------

CREATE TYPE counting_bloom;

CREATE FUNCTION counting_bloom_in(cstring) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'counting_bloom_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION counting_bloom_out(counting_bloom) RETURNS cstring
    AS 'MODULE_PATHNAME', 'bloom_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION counting_bloom_recv(internal) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'counting_bloom_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION counting_bloom_send(counting_bloom) RETURNS bytea
    AS 'MODULE_PATHNAME', 'bloom_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE counting_bloom (
    INPUT = counting_bloom_in,
    OUTPUT = counting_bloom_out,
    RECEIVE = counting_bloom_recv,
    SEND = counting_bloom_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT = int4,
    STORAGE = extended
);

COMMENT ON TYPE counting_bloom IS 'Counting Bloom filter: m 4-bit counters, k per value; supports removal';

-- An empty counting filter sized for expected_n distinct values at rate fpp.
CREATE FUNCTION counting_bloom_empty(expected_n bigint, fpp float8 DEFAULT 0.01) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'counting_bloom_empty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Add: increment the value's counters (a NULL value changes nothing).
CREATE FUNCTION bloom_add(filter counting_bloom, value text) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_add(filter counting_bloom, value anyelement) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'bloom_add' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Remove: decrement the value's counters; an error if one is already zero.
CREATE FUNCTION bloom_remove(filter counting_bloom, value text) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'bloom_remove' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_remove(filter counting_bloom, value anyelement) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'bloom_remove' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION bloom_contains(filter counting_bloom, value text) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contains(filter counting_bloom, value anyelement) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(value text, filter counting_bloom) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_contained(value anyelement, filter counting_bloom) RETURNS boolean
    AS 'MODULE_PATHNAME', 'bloom_contained' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @> (
    LEFTARG = counting_bloom, RIGHTARG = text, FUNCTION = bloom_contains, COMMUTATOR = <@
);
CREATE OPERATOR @> (
    LEFTARG = counting_bloom, RIGHTARG = anyelement, FUNCTION = bloom_contains, COMMUTATOR = <@
);
CREATE OPERATOR <@ (
    LEFTARG = text, RIGHTARG = counting_bloom, FUNCTION = bloom_contained, COMMUTATOR = @>
);
CREATE OPERATOR <@ (
    LEFTARG = anyelement, RIGHTARG = counting_bloom, FUNCTION = bloom_contained, COMMUTATOR = @>
);

-- The smallest of the value's counters: an upper bound on how often it was added.
CREATE FUNCTION bloom_count(filter counting_bloom, value text) RETURNS integer
    AS 'MODULE_PATHNAME', 'bloom_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_count(filter counting_bloom, value anyelement) RETURNS integer
    AS 'MODULE_PATHNAME', 'bloom_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Union: the counters add up (saturating at 15).
CREATE FUNCTION bloom_union(a counting_bloom, b counting_bloom) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'bloom_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR | (
    LEFTARG = counting_bloom, RIGHTARG = counting_bloom, FUNCTION = bloom_union, COMMUTATOR = |
);
CREATE AGGREGATE bloom_union_agg(counting_bloom) (
    SFUNC = bloom_union,
    STYPE = counting_bloom,
    COMBINEFUNC = bloom_union,
    PARALLEL = SAFE
);

-- Aggregates, as bloom_agg: the state is a counting_bloom, combined by union.
CREATE FUNCTION counting_bloom_agg_trans(state counting_bloom, value anyelement)
    RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'counting_bloom_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION counting_bloom_agg_trans(state counting_bloom, value anyelement,
    expected_n bigint, fpp float8) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'counting_bloom_agg_trans_sized' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION counting_bloom_agg_combine(a counting_bloom, b counting_bloom)
    RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_combine' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE AGGREGATE counting_bloom_agg(value anyelement) (
    SFUNC = counting_bloom_agg_trans,
    STYPE = counting_bloom,
    COMBINEFUNC = counting_bloom_agg_combine,
    PARALLEL = SAFE
);
CREATE AGGREGATE counting_bloom_agg(value anyelement, expected_n bigint, fpp float8) (
    SFUNC = counting_bloom_agg_trans,
    STYPE = counting_bloom,
    COMBINEFUNC = counting_bloom_agg_combine,
    PARALLEL = SAFE
);

-- Inspecting: the same columns as for bloom; bits_set counts non-zero counters.
CREATE FUNCTION bloom_info(filter counting_bloom,
    OUT layout text, OUT nbits bigint, OUT nhashes integer, OUT bytes integer,
    OUT values_added bigint, OUT bits_set bigint, OUT fill_ratio float8,
    OUT estimated_distinct float8, OUT estimated_fpp float8,
    OUT element_family text, OUT seed bigint, OUT hash_scheme integer)
    AS 'MODULE_PATHNAME', 'bloom_info' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_cardinality(filter counting_bloom) RETURNS float8
    AS 'MODULE_PATHNAME', 'bloom_cardinality' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- counting_bloom::bloom: a bit for every non-zero counter.
CREATE FUNCTION bloom(filter counting_bloom) RETURNS bloom
    AS 'MODULE_PATHNAME', 'counting_bloom_to_bloom' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (counting_bloom AS bloom) WITH FUNCTION bloom(counting_bloom);

-- Remove from a every value added to b (bulk bloom_remove): a - b.
CREATE FUNCTION bloom_subtract(a counting_bloom, b counting_bloom) RETURNS counting_bloom
    AS 'MODULE_PATHNAME', 'bloom_subtract' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OPERATOR - (LEFTARG = counting_bloom, RIGHTARG = counting_bloom, FUNCTION = bloom_subtract);
