-- bench/index_rebuild_memory.sql: what a bloomfilter index's rebuild costs
-- when its filter is larger than VACUUM's work memory (1.12, issue 52).
-- The rebuild holds as many of the new filter's pages as
-- maintenance_work_mem takes and scans the table once for each part
-- (src/index/amrebuild.c).  A 2,000,000-row int8 table, its filter some
-- 520 pages: bloom_index_rebuild at 64MB (one scan), 2MB and 1MB (more),
-- in turn, :rounds rounds; the median time of each, its ratio to one
-- scan's, and the table's blocks each rebuild read (pg_stat_get_xact_*:
-- counts that do not vary with the machine's load).
--
--   psql -X -q -v rounds=5 -f bench/index_rebuild_memory.sql
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS bloomfilter;
DROP TABLE IF EXISTS rb_mem;
CREATE TABLE rb_mem (k int8) WITH (autovacuum_enabled = off);
INSERT INTO rb_mem SELECT g::int8 * 7919 FROM generate_series(1, 2000000) g;
CREATE INDEX rb_mem_k ON rb_mem USING bloomfilter (k);
VACUUM ANALYZE rb_mem;
SELECT capacity, size_bytes / 8192 AS index_pages,
       pg_relation_size('rb_mem') / 8192 AS table_pages
  FROM bloom_index_info('rb_mem_k');

CREATE TEMP TABLE rb_mem_runs (setting text, round int, ms float8, blocks bigint);
-- (a DO block sees no psql variable: the rounds go through a setting)
SET bench.rounds = :'rounds';
DO $$
DECLARE
    t0 timestamptz;
    b0 bigint;
    s text;
BEGIN
    FOR r IN 1 .. current_setting('bench.rounds')::int LOOP
        FOREACH s IN ARRAY ARRAY['64MB', '2MB', '1MB'] LOOP
            PERFORM set_config('maintenance_work_mem', s, true);
            b0 := pg_stat_get_xact_blocks_fetched('rb_mem'::regclass);
            t0 := clock_timestamp();
            IF NOT bloom_index_rebuild('rb_mem_k') THEN
                RAISE EXCEPTION 'not rebuilt at %', s;
            END IF;
            INSERT INTO rb_mem_runs VALUES (s, r, 1000 * extract(epoch FROM clock_timestamp() - t0),
                                           pg_stat_get_xact_blocks_fetched('rb_mem'::regclass) - b0);
        END LOOP;
    END LOOP;
END $$;

SELECT setting, count(*) AS rounds,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS median_ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) /
              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM rb_mem_runs WHERE setting = '64MB'))::numeric, 2)
           AS time_vs_one_scan,
       min(blocks) AS table_blocks_read
  FROM rb_mem_runs GROUP BY setting ORDER BY median_ms;
SELECT keys_missing FROM bloom_index_verify('rb_mem_k');
DROP TABLE rb_mem;
