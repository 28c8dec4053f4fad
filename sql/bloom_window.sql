-- Window filters (1.12, issue 52): age-partitioned Bloom filters, whose
-- values fade after a window of generations.
SET extra_float_digits = 0;
SET TimeZone = 'UTC';
CREATE SCHEMA bloom_window;
SET search_path = bloom_window, public;

-- The shape: the smallest number of slices per value (hashes) that meets
-- the rate at the filter's fullest, slices of about twice the bits a slice
-- takes over its generations.
SELECT hashes, generations, slices, slice_bits, capacity, generation, generation_length,
       values_in_window, estimated_fpp
  FROM bloom_window_info(bloom_window(100000, 0.01, 10));
SELECT layout, nbits, nhashes, values_added, bits_set FROM bloom_info(bloom_window(1000));

-- Ten generations of 500 values: every value of the window found after
-- each advance, values never added found at about the rate, and values of
-- older generations fading.
CREATE TABLE gens AS SELECT g AS gen, (g * 100000 + i)::int8 AS v
  FROM generate_series(0, 24) g, generate_series(1, 500) i;
-- (one bloom_add at a time: the function every layout shares)
CREATE TABLE states (gen int PRIMARY KEY, f bloom);
CREATE FUNCTION add_generation(f bloom, g int) RETURNS bloom LANGUAGE plpgsql AS $$
DECLARE
    v int8;
BEGIN
    FOR v IN SELECT gens.v FROM gens WHERE gen = g LOOP
        f := bloom_add(f, v);
    END LOOP;
    RETURN f;
END $$;
DO $$
DECLARE
    f bloom := bloom_window(500, 0.01, 10);
BEGIN
    FOR g IN 0 .. 24 LOOP
        IF g > 0 THEN
            f := bloom_advance(f);
        END IF;
        f := add_generation(f, g);
        INSERT INTO states VALUES (g, f);
    END LOOP;
END $$;
-- no value of the window missing, at any generation
SELECT count(*) FILTER (WHERE NOT s.f @> v) AS false_negatives, count(*) AS probed
  FROM states s JOIN gens ON gens.gen BETWEEN s.gen - 9 AND s.gen;
-- values never added: at most the rate asked, once the filter is full
SELECT avg((f @> (10000000 + i)::int8)::int) <= 0.01 AS rate_met
  FROM states, generate_series(1, 50000) i WHERE gen = 24;
-- older values fade: about half found one generation past the window, then fewer
SELECT 24 - gens.gen AS age, round(avg((f @> v)::int), 1) AS found
  FROM states s, gens WHERE s.gen = 24 AND gens.gen BETWEEN 24 - 13 AND 24 - 10
 GROUP BY 1 ORDER BY 1;
SELECT values_in_window, round(estimated_fpp::numeric, 3) AS estimated_fpp
  FROM states, bloom_window_info(f) WHERE gen = 24;

-- advancing: by 0 nothing, by a negative number an error, past every slice all forgotten
SELECT bloom_advance(f, 0) = f AS unchanged FROM states WHERE gen = 24;
SELECT (bloom_info(bloom_advance(f, 100))).bits_set AS bits_left,
       (bloom_window_info(bloom_advance(f, 100))).values_in_window
  FROM states WHERE gen = 24;
SELECT bloom_advance(f, -1) FROM states WHERE gen = 24;
SELECT bloom_advance(bloom_window(10, 0.1, 2), 2147483647) IS NOT NULL AS far;

-- round trips: text, binary, and equality
SELECT f::text::bloom = f AS text_round_trip,
       f::bytea::bloom::bytea = f::bytea AS binary_round_trip,
       f::text::bloom::bytea = f::bytea AS same_bytes
  FROM states WHERE gen = 24;
SELECT left(bloom_add(bloom_window(10, 0.1, 2), 7)::text, 97) AS text_form;

-- union: the one behind advanced first; shapes and clocks must agree
SELECT bloom_union(a, b) @> 1::int8 AS has_1, bloom_union(a, b) @> 2::int8 AS has_2,
       (bloom_window_info(bloom_union(a, b))).generation,
       bloom_union(a, b) = bloom_union(b, a) AS commutes
  FROM (SELECT bloom_add(bloom_window(100, 0.01, 3), 1::int8) AS a,
               bloom_add(bloom_advance(bloom_window(100, 0.01, 3), 2), 2::int8) AS b) s;
SELECT bloom_union(bloom_window(100, 0.01, 3), bloom_window(100, 0.01, 4));
SELECT bloom_union(bloom_window(100, 0.01, 3), bloom_agg(g)) FROM generate_series(1, 3) g;
SELECT bloom_union(bloom_add(bloom_window(100, 0.01, 3), 1), bloom_add(bloom_window(100, 0.01, 3), 'x'::text));

-- generations that are times: one day each from 2000-01-01 UTC
SELECT generation, generation_length, generation_start
  FROM bloom_window_info(bloom_window(100, 0.01, 7, '1 day', '2026-11-29 10:00+00'));
SELECT generation FROM bloom_window_info(bloom_window(100, 0.01, 7, '1 hour', '1999-12-31 23:30+00'));
-- rows added at their times, in any order, give the bytes of adding them as time went
CREATE TABLE events AS
  SELECT i AS id, 'k' || (i % 500) AS k, '2026-11-01'::timestamptz + (i % 30) * interval '1 day' + (i % 24) * interval '1 hour' AS at
    FROM generate_series(1, 3000) i;
CREATE FUNCTION add_events(q text, capacity int DEFAULT 1000) RETURNS bloom LANGUAGE plpgsql AS $$
DECLARE
    f bloom := bloom_window(capacity, 0.01, 7, '1 day', '2026-11-01');
    r record;
BEGIN
    FOR r IN EXECUTE q LOOP
        f := bloom_add(f, r.k, r.at);
    END LOOP;
    RETURN f;
END $$;
SELECT add_events('SELECT k, at FROM events ORDER BY at, id') =
       add_events('SELECT k, at FROM events ORDER BY md5(id::text)') AS any_order,
       add_events('SELECT k, at FROM events ORDER BY at DESC') =
       add_events('SELECT k, at FROM events ORDER BY at') AS newest_first;
-- a key of the last 7 days (UTC days: generations count from 2000-01-01
-- 00:00 UTC) is found; the window ends at the newest row's day
SELECT count(*) FILTER (WHERE NOT f @> k) AS false_negatives, count(*) AS probed
  FROM (SELECT add_events('SELECT k, at FROM events') AS f) s, events
 WHERE at >= '2026-11-24 00:00+00';
SELECT generation_start, values_in_window
  FROM bloom_window_info(add_events('SELECT k, at FROM events'));
-- advancing to a time; a time before the filter's generation leaves it
SELECT (bloom_window_info(bloom_advance(f, '2026-12-25'::timestamptz))).generation_start,
       bloom_advance(f, '2026-01-01'::timestamptz) = f AS earlier_unchanged
  FROM (SELECT add_events('SELECT k, at FROM events') AS f) s;
-- a row older than every slice adds nothing; NULL values and times are ignored
SELECT bloom_add(f, 'old'::text, '2020-01-01') = f AS too_old,
       bloom_add(f, NULL::text, '2026-11-30') = f AS null_value,
       bloom_add(f, 'x'::text, NULL) = f AS null_time
  FROM (SELECT bloom_window(10, 0.1, 2, '1 day', '2026-11-29') AS f) s;

-- bloom_window_agg: each row in the generation its time falls in; the window
-- ends at the newest row's generation, or at window_end's (later rows left
-- out).  The same bytes as adding the rows as time went, serial or parallel.
SELECT bloom_window_agg(k, at, 1000, 0.01, 7, '1 day') = add_events('SELECT k, at FROM events') AS as_added
  FROM events;
-- distinct values, whose bits are each their own, in runs of a
-- generation, oldest or newest first, and in no order; a filter of 1,000
-- a generation (20 kB) takes each row as it comes, one of 10,000 (200 kB)
-- in batches of 256
CREATE TABLE distinct_events AS
  SELECT i AS id, 'd' || i AS k, '2026-11-01'::timestamptz + (i / 400) * interval '1 day' AS at
    FROM generate_series(1, 4000) i;
SELECT capacity, pg_column_size(f) > 128 * 1024 AS batched,
       a.runs = f AS runs, a.newest_first = f AS runs_newest_first, a.no_order = f AS no_order
  FROM (VALUES (1000), (10000)) c(capacity),
       LATERAL (SELECT add_events('SELECT k, at FROM distinct_events', capacity) AS f) s,
       LATERAL (SELECT bloom_window_agg(k, at, capacity, 0.01, 7, '1 day' ORDER BY at, id) AS runs,
                       bloom_window_agg(k, at, capacity, 0.01, 7, '1 day' ORDER BY at DESC, id) AS newest_first,
                       bloom_window_agg(k, at, capacity, 0.01, 7, '1 day' ORDER BY md5(k)) AS no_order
                  FROM distinct_events) a
 ORDER BY capacity;
SELECT generation_start, values_in_window
  FROM bloom_window_info((SELECT bloom_window_agg(k, at, 1000, 0.01, 7, '1 day', '2026-11-20') FROM events));
SELECT count(*) FILTER (WHERE NOT f @> k) AS false_negatives, count(*) AS probed,
       count(*) FILTER (WHERE f @> k) AS found
  FROM (SELECT bloom_window_agg(k, at, 1000, 0.01, 7, '1 day', '2026-11-20') AS f FROM events) s, events
 WHERE at >= '2026-11-14 00:00+00' AND at < '2026-11-21 00:00+00';
CREATE TABLE big_events AS
  SELECT i AS id, (i % 20000)::int8 AS k, '2026-10-01'::timestamptz + (i % 40) * interval '1 day' + (i % 1440) * interval '1 minute' AS at
    FROM generate_series(1, 100000) i;
ANALYZE big_events;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE serial AS
  SELECT bloom_window_agg(k, at, 5000, 0.01, 14, '1 day') AS f,
         bloom_window_agg(k, at, 5000, 0.01, 14, '1 day', '2026-10-20') AS f_end
    FROM big_events;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT bloom_window_agg(k, at, 5000, 0.01, 14, '1 day') FROM big_events;
SELECT p.f = s.f AS parallel_same, p.f_end = s.f_end AS parallel_same_end
  FROM (SELECT bloom_window_agg(k, at, 5000, 0.01, 14, '1 day') AS f,
               bloom_window_agg(k, at, 5000, 0.01, 14, '1 day', '2026-10-20') AS f_end
          FROM big_events) p, serial s;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET parallel_leader_participation;
-- grouped; no rows, NULL values and times
SELECT id % 3 AS grp, (bloom_window_info(bloom_window_agg(k, at, 100, 0.01, 3, '1 day'))).values_in_window
  FROM events GROUP BY 1 ORDER BY 1;
SELECT bloom_window_agg(k, at, 100, 0.01, 3, '1 day') IS NULL AS no_rows FROM events WHERE false;
SELECT (bloom_window_info(bloom_window_agg(v, t, 100, 0.01, 3, '1 day'))).values_in_window
  FROM (VALUES (1, '2026-11-01'::timestamptz), (NULL, '2026-11-01'), (2, NULL)) x(v, t);
SELECT bloom_window_agg(k, at, 100, 0.01, 3, NULL) FROM events;
SELECT bloom_window_agg(k, at, 100, 0.01, 3, '1 month') FROM events;

-- refusals
SELECT bloom_window(0, 0.01, 10);
SELECT bloom_window(10, 0, 10);
SELECT bloom_window(10, 1, 10);
SELECT bloom_window(10, 0.01, 0);
SELECT bloom_window(10, 0.01, 4097);
SELECT bloom_window(10, 1e-18, 4096);
SELECT bloom_window(100000000000, 0.01, 10);
SELECT bloom_window(10, 0.01, 3, '1 month', now());
SELECT bloom_window(10, 0.01, 3, '-1 day', now());
SELECT bloom_window(10, 0.01, 3, '1 day', 'infinity');
SELECT bloom_add(bloom_window(10, 0.01, 3), 1, now());
SELECT bloom_advance(bloom_window(10, 0.01, 3), now());
SELECT bloom_advance(bloom_agg(g)) FROM generate_series(1, 3) g;
SELECT bloom_window_info(bloom_agg(g)) FROM generate_series(1, 3) g;
SELECT bloom_intersect(bloom_window(10, 0.1, 2), bloom_window(10, 0.1, 2));
SELECT * FROM bloom_layers(bloom_window(10, 0.1, 2));
SELECT bloom_add(bloom_add(bloom_window(10, 0.1, 2), 1), 'x'::text);
-- (a review found these)
SELECT bloom_union(bloom_add(bloom_window(10, 0.1, 2), 1), 'v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes='::bloom);
SELECT bloom_union('v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes='::bloom, bloom_add(bloom_window(10, 0.1, 2), 1));
SELECT bloom_add(bloom_window(10, 0.1, 2), 1) = bloom_add(bloom_advance(bloom_window(10, 0.1, 2), 4), 1) AS other_generation,
       bloom_window(10, 0.1, 2) = bloom_window(10, 0.1, 2, '1 hour', '2020-01-01') AS other_clock,
       bloom_add(bloom_window(10, 0.1, 2), 1) = bloom_add(bloom_add(bloom_window(10, 0.1, 2), 1), 1) AS counts_aside;
-- n stops at 2^63-1, each generation's count on its own: such a value is still read
CREATE TABLE saturated AS WITH RECURSIVE r(i, f) AS (
    SELECT 0, bloom_add(bloom_advance(bloom_add(bloom_window(10, 0.1, 2), 1), 1), 2)
    UNION ALL SELECT i + 1, bloom_union(f, f) FROM r WHERE i < 62)
  SELECT f FROM r WHERE i = 62;
SELECT f::text::bloom = f AS read_back, (bloom_info(f)).values_added, f @> 1 AS has_1 FROM saturated;
SELECT bloom_window_agg(v, t, 100, 0.01, 3, '1 day', e)
  FROM (VALUES (1, '2026-11-01'::timestamptz, '2026-11-01'::timestamptz), (2, '2026-11-10', '2026-11-10')) x(v, t, e);
SELECT bloom_window_agg(v, t, c, 0.01, 3, '1 day')
  FROM (VALUES (1, '2026-11-01'::timestamptz, 100), (2, '2026-11-02', 200)) x(v, t, c);
SELECT bloom_window_agg(v, t, 100, 0.01, 3, '1 day', NULL) FROM (VALUES (1, '2026-11-01'::timestamptz)) x(v, t);
SELECT 'v1 window m=256 k=4 scheme=1 seed=7 n=0 elem= window=3:10:0:0 counts=0,0,0,0 bits=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='::bloom;
-- a window filter of a column's values is no runtime filter's, index's or plan's
SELECT bloom_contains(bloom_add(bloom_window(10, 0.1, 2), 1), 1) AS probe_ok;

RESET search_path;
DROP SCHEMA bloom_window CASCADE;
