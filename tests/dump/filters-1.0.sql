-- tests/dump/filters-1.0.sql: filters as extension version 1.0 makes them,
-- for the fixture of a 1.0 dump (tests/dump/make_fixture.sh).
CREATE EXTENSION bloomfilter VERSION '1.0';
CREATE TABLE filters (id int PRIMARY KEY, f bloom);
INSERT INTO filters VALUES
  (1, bloom_empty(100)),
  (2, (SELECT bloom_agg(g, 100000, 0.01) FROM generate_series(1, 100000) g)),
  (3, (SELECT bloom_agg(g::text, 1000, 0.001) FROM generate_series(1, 1000) g)),
  (4, bloom_add(bloom_empty_mk(77, 3, -5), 'x'::text)),
  (5, NULL);
