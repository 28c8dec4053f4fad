/* bloomfilter--1.3--1.4.sql: aggregates of their own for the common key types */

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.4'" to load this file. \quit

-- bloom_agg and counting_bloom_agg take any type (anyelement).  Sharded
-- engines cannot push a polymorphic aggregate down to their workers: Citus
-- runs an aggregate on the workers only if the value's type is the type the
-- aggregate declares, and it calls the transition function with no
-- expression tree, so a polymorphic one cannot learn the value's type.
--
-- So each form of the two aggregates gets an overload for each type below,
-- with a transition function declared for that type (the C function reads
-- the type from its own pg_proc row when there is no expression tree).  The
-- C functions are those of the polymorphic forms: a value hashes to the same
-- bits whichever form takes it, and overload resolution picks these for
-- columns of these types (an unknown literal still resolves to text, and a
-- domain to its base type); every other type still takes the polymorphic
-- form.  The README's "Citus" section lists the types.  (pg_catalog.format:
-- the extension is trusted, so this runs as a superuser with the, maybe
-- the user's, extension schema on the search path.)
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['smallint', 'integer', 'bigint', 'text', 'varchar', 'bpchar', 'uuid',
                             'numeric', 'date', 'timestamp', 'timestamptz', 'bytea']
    LOOP
        EXECUTE pg_catalog.format($sql$
            -- bloom_agg(value): sized from the data
            CREATE FUNCTION bloom_agg_auto_trans(state bloom, value %1$s) RETURNS bloom
                AS 'MODULE_PATHNAME', 'bloom_agg_auto_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
            CREATE AGGREGATE bloom_agg(value %1$s) (
                SFUNC = bloom_agg_auto_trans,
                STYPE = bloom,
                COMBINEFUNC = bloom_agg_auto_combine,
                FINALFUNC = bloom_agg_finalize,
                PARALLEL = SAFE
            );

            -- bloom_agg(value, fpp): sized from the data for the rate fpp
            CREATE FUNCTION bloom_agg_auto_trans(state bloom, value %1$s, fpp float8) RETURNS bloom
                AS 'MODULE_PATHNAME', 'bloom_agg_auto_trans_fpp' LANGUAGE C IMMUTABLE PARALLEL SAFE;
            CREATE AGGREGATE bloom_agg(value %1$s, fpp float8) (
                SFUNC = bloom_agg_auto_trans,
                STYPE = bloom,
                COMBINEFUNC = bloom_agg_auto_combine,
                FINALFUNC = bloom_agg_finalize,
                PARALLEL = SAFE
            );

            -- bloom_agg(value, expected_n, fpp): sized by the hints
            CREATE FUNCTION bloom_agg_trans(state bloom, value %1$s, expected_n bigint, fpp float8)
                RETURNS bloom
                AS 'MODULE_PATHNAME', 'bloom_agg_trans_sized' LANGUAGE C IMMUTABLE PARALLEL SAFE;
            CREATE AGGREGATE bloom_agg(value %1$s, expected_n bigint, fpp float8) (
                SFUNC = bloom_agg_trans,
                STYPE = bloom,
                COMBINEFUNC = bloom_agg_combine,
                PARALLEL = SAFE
            );

            -- bloom_agg(value, expected_n, fpp, layout)
            CREATE FUNCTION bloom_agg_trans(state bloom, value %1$s, expected_n bigint, fpp float8,
                layout text) RETURNS bloom
                AS 'MODULE_PATHNAME', 'bloom_agg_trans_layout' LANGUAGE C IMMUTABLE PARALLEL SAFE;
            CREATE AGGREGATE bloom_agg(value %1$s, expected_n bigint, fpp float8, layout text) (
                SFUNC = bloom_agg_trans,
                STYPE = bloom,
                COMBINEFUNC = bloom_agg_combine,
                PARALLEL = SAFE
            );

            -- counting_bloom_agg(value) and counting_bloom_agg(value, expected_n, fpp)
            CREATE FUNCTION counting_bloom_agg_trans(state counting_bloom, value %1$s)
                RETURNS counting_bloom
                AS 'MODULE_PATHNAME', 'counting_bloom_agg_trans' LANGUAGE C IMMUTABLE PARALLEL SAFE;
            CREATE AGGREGATE counting_bloom_agg(value %1$s) (
                SFUNC = counting_bloom_agg_trans,
                STYPE = counting_bloom,
                COMBINEFUNC = counting_bloom_agg_combine,
                PARALLEL = SAFE
            );
            CREATE FUNCTION counting_bloom_agg_trans(state counting_bloom, value %1$s,
                expected_n bigint, fpp float8) RETURNS counting_bloom
                AS 'MODULE_PATHNAME', 'counting_bloom_agg_trans_sized'
                LANGUAGE C IMMUTABLE PARALLEL SAFE;
            CREATE AGGREGATE counting_bloom_agg(value %1$s, expected_n bigint, fpp float8) (
                SFUNC = counting_bloom_agg_trans,
                STYPE = counting_bloom,
                COMBINEFUNC = counting_bloom_agg_combine,
                PARALLEL = SAFE
            );
        $sql$, t);
    END LOOP;
END
$$;
