/* bloomfilter--1.2--1.3.sql: bloom_agg(value) sizes its filter for the values it saw */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.3'" to load this file. \quit

-- bloom_agg(value) without hints used to size for 1,000,000 values.  Now its
-- state is the exact set of the values' hashes (an "explicit" bloom value,
-- format layout 4), and the final function builds the smallest classic
-- filter meeting 1 % for the distinct count found.  Past
-- bloomfilter.agg_explicit_limit distinct values (33.5 million) the state is
-- a 1 GB filter that the final function folds to the right size.
CREATE FUNCTION bloom_agg_auto_trans(state bloom, value anyelement) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_auto_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION bloom_agg_auto_combine(a bloom, b bloom) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_auto_combine' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The final function, callable on partial states gathered by a sharded
-- engine: an explicit filter becomes a classic filter sized for its count,
-- a wide state is folded, any other filter is returned unchanged.
CREATE FUNCTION bloom_agg_finalize(state bloom) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_finalize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE bloom_agg(value anyelement) (
    SFUNC = bloom_agg_auto_trans,
    STYPE = bloom,
    COMBINEFUNC = bloom_agg_auto_combine,
    FINALFUNC = bloom_agg_finalize,
    PARALLEL = SAFE
);

-- bloom_agg(value, fpp): sized from the data, as bloom_agg(value), for the
-- false-positive rate fpp (that of the first row; 0.000000001 to 1) instead
-- of 1 %.  The partial state carries the rate (format flag "target").
CREATE FUNCTION bloom_agg_auto_trans(state bloom, value anyelement, fpp float8) RETURNS bloom
    AS 'MODULE_PATHNAME', 'bloom_agg_auto_trans_fpp' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE bloom_agg(value anyelement, fpp float8) (
    SFUNC = bloom_agg_auto_trans,
    STYPE = bloom,
    COMBINEFUNC = bloom_agg_auto_combine,
    FINALFUNC = bloom_agg_finalize,
    PARALLEL = SAFE
);
