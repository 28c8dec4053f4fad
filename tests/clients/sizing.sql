-- tests/clients/sizing.sql: the sizes the server gives a filter built for
-- n values at rate fpp (bloom_agg(v, n, fpp, layout) and bloom_empty size
-- alike, and bloom_params: bf_size_for_layout), for the client libraries' writers, whose
-- create() must give the same m and k.  One JSON object per line on stdout:
-- {"n": N, "fpp": P, "layout": L, "m": M, "k": K}.
--
-- psql -X -q -At -f tests/clients/sizing.sql
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET extra_float_digits = 3;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
-- bloom_params gives the sizes without allocating the filters (some are
-- hundreds of megabytes); bloom_empty's are checked equal to them first,
-- up to 100,000 values.
CREATE TEMP VIEW sizing_cases AS
WITH ns(n) AS (
    -- small counts one by one, then 20 per decade up to 10^8
    SELECT g FROM generate_series(1, 40) g
    UNION SELECT round(10 ^ (g / 20.0))::bigint FROM generate_series(32, 160) g
    UNION VALUES (1000000::bigint), (10000000), (123456789)),
rates(fpp) AS (
    VALUES (0.999::float8), (0.9), (0.7), (0.5), (0.3), (0.1), (0.05), (0.01), (0.001), (1e-5), (1e-9), (0.0123))
SELECT ns.n, rates.fpp, l.lay, p.nbits, p.nhashes
FROM ns, rates, (VALUES ('classic'), ('blocked512')) l(lay),
     LATERAL bloom_params(n, fpp, lay) p
-- (a blocked512 search of 10^8 values at 10^-9 costs seconds: kept below)
WHERE l.lay = 'classic' OR ns.n * -ln(rates.fpp) < 1e9;
DO $$
DECLARE
    differ bigint;
BEGIN
    SELECT count(*) INTO differ
    FROM sizing_cases c, LATERAL bloom_info(bloom_empty(c.n, c.fpp, c.lay)) i
    WHERE c.n <= 100000 AND (i.nbits, i.nhashes) IS DISTINCT FROM (c.nbits, c.nhashes);
    IF differ > 0 THEN
        RAISE EXCEPTION 'bloom_empty and bloom_params size % cases apart', differ;
    END IF;
END
$$;
SELECT json_build_object('n', n, 'fpp', fpp, 'layout', lay, 'm', nbits, 'k', nhashes)::text
FROM sizing_cases
ORDER BY lay, n, fpp;
