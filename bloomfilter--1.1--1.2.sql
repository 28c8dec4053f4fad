/* bloomfilter--1.1--1.2.sql: planner support for the probes */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.2'" to load this file. \quit

-- Selectivity and cost of bloom_contains / bloom_contained: with a constant
-- filter, estimated from the filter, the column's statistics and the
-- filter's false-positive rate; otherwise PostgreSQL's default (1/3).
CREATE FUNCTION bloom_contains_support(internal) RETURNS internal
    AS 'MODULE_PATHNAME', 'bloom_contains_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

ALTER FUNCTION bloom_contains(bloom, text) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contains(bloom, anyelement) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contained(text, bloom) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contained(anyelement, bloom) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contains(counting_bloom, text) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contains(counting_bloom, anyelement) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contained(text, counting_bloom) SUPPORT bloom_contains_support;
ALTER FUNCTION bloom_contained(anyelement, counting_bloom) SUPPORT bloom_contains_support;

-- The same estimate for the operators @> and <@.
CREATE FUNCTION bloom_contains_restrict(internal, oid, internal, integer) RETURNS float8
    AS 'MODULE_PATHNAME', 'bloom_contains_restrict' LANGUAGE C STABLE STRICT PARALLEL SAFE;

ALTER OPERATOR @> (bloom, text) SET (RESTRICT = bloom_contains_restrict);
ALTER OPERATOR @> (bloom, anyelement) SET (RESTRICT = bloom_contains_restrict);
ALTER OPERATOR <@ (text, bloom) SET (RESTRICT = bloom_contains_restrict);
ALTER OPERATOR <@ (anyelement, bloom) SET (RESTRICT = bloom_contains_restrict);
ALTER OPERATOR @> (counting_bloom, text) SET (RESTRICT = bloom_contains_restrict);
ALTER OPERATOR @> (counting_bloom, anyelement) SET (RESTRICT = bloom_contains_restrict);
ALTER OPERATOR <@ (text, counting_bloom) SET (RESTRICT = bloom_contains_restrict);
ALTER OPERATOR <@ (anyelement, counting_bloom) SET (RESTRICT = bloom_contains_restrict);

-- ---------------------------------------------------------------------
-- The cache-blocked layout: all k bits of a value in one 512-bit block (one
-- cache line), sized by its own formula.  Select it by name: "blocked"
-- (or "blocked512"); "classic" is the default.
-- ---------------------------------------------------------------------

CREATE FUNCTION bloom_empty(expected_n bigint, fpp float8, layout text) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_empty_layout' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_empty_mk(nbits bigint, nhashes integer, seed bigint, layout text)
    RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_empty_mk' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION bloom_agg_trans(state bloom, value anyelement, expected_n bigint, fpp float8,
    layout text) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_trans_layout' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE bloom_agg(value anyelement, expected_n bigint, fpp float8, layout text) (
    SFUNC = bloom_agg_trans,
    STYPE = bloom,
    COMBINEFUNC = bloom_agg_combine,
    PARALLEL = SAFE
);

CREATE FUNCTION bloom_params(expected_n bigint, fpp float8, layout text,
    OUT nbits bigint, OUT nhashes integer, OUT bytes bigint, OUT fpp float8)
    AS 'MODULE_PATHNAME', 'bloom_params' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_optimal(n bigint, nbits bigint, layout text, OUT nhashes integer, OUT fpp float8)
    AS 'MODULE_PATHNAME', 'bloom_optimal' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION bloom_fpp(n bigint, nbits bigint, nhashes integer, layout text) RETURNS float8
    AS 'MODULE_PATHNAME', 'bloom_fpp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
