-- tests/dump/filters.sql: tables holding every kind of filter, for the
-- dump/restore test and its fixtures (tests/dump/make_fixture.sh).
CREATE EXTENSION bloomfilter;
CREATE TABLE filters (id int PRIMARY KEY, f bloom);
CREATE TABLE counting (id int PRIMARY KEY, c counting_bloom);
INSERT INTO filters VALUES
  (1, bloom_empty(100)),
  (2, (SELECT bloom_agg(g, 100000, 0.01) FROM generate_series(1, 100000) g)),
  (3, (SELECT bloom_agg(g::text, 1000, 0.001, 'blocked') FROM generate_series(1, 1000) g)),
  (4, (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(1, 1000) g)
      & (SELECT bloom_agg(g, 1000, 0.01) FROM generate_series(500, 1500) g)),
  (5, bloom_add(bloom_empty_mk(77, 3, -5), 'x'::text)),
  (6, NULL),
  (7, (SELECT bloom_agg(g) FROM generate_series(1, 5000) g)),
  (8, bloom_add(bloom_add('v1 explicit m=0 k=0 scheme=1 seed=0 n=0 elem= hashes='::bloom, 1), 2)),
  (9, bloom_add('v1 explicit m=0 k=0 scheme=1 seed=0 n=0 target=0.001 elem= hashes='::bloom, 1)),
  -- built by the aggregates of one type (1.4; the polymorphic ones before)
  (10, (SELECT bloom_agg(md5(g::text)::uuid) FROM generate_series(1, 2000) g)),
  (11, (SELECT bloom_agg(date '2020-01-01' + g, 0.001) FROM generate_series(1, 3000) g)),
  (12, (SELECT bloom_agg(('v' || g)::varchar, 4000, 0.01, 'blocked') FROM generate_series(1, 4000) g)),
  (13, (SELECT bloom_agg(timestamptz '2020-01-01 UTC' + g * interval '1 s', 1000, 0.01)
          FROM generate_series(1, 1000) g)),
  -- window filters (1.12): by hand, and by the hour from rows
  (14, bloom_add(bloom_advance(bloom_add(bloom_window(100, 0.01, 3), 1), 2), 2)),
  (15, (SELECT bloom_window_agg('k' || g, timestamptz '2026-11-29 UTC' + g * interval '1 minute', 100, 0.01, 24, '1 hour')
          FROM generate_series(1, 1000) g));
INSERT INTO counting VALUES
  (1, (SELECT counting_bloom_agg(g % 300, 1000, 0.01) FROM generate_series(1, 5000) g)),
  (2, counting_bloom_empty(10)),
  (3, (SELECT counting_bloom_agg(g::int2, 1000, 0.01) FROM generate_series(1, 500) g));
-- a view calling the aggregates of one type: restored, it must resolve to
-- the same aggregates and compute the same filters
CREATE VIEW typed_filters AS
SELECT bloom_agg(k) AS auto, bloom_agg(k, 1000, 0.01) AS sized, bloom_agg(k::text, 0.001) AS text_fpp,
       counting_bloom_agg(k::numeric, 1000, 0.01) AS counting
  FROM generate_series(1::int8, 1000) k;
