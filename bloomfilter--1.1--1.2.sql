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
