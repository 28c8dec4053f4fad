--
-- Runtime filters on right anti joins (PostgreSQL 16 and later) and right
-- semi joins (18 and later), whose outer rows that match nothing are
-- discarded; earlier versions plan these queries as anti and semi joins
-- with small on the outer side, which get no filter.  Expected outputs: 15
-- (runtime_filter_right.out), 16 and 17 (_1), 18 (_2).
--
LOAD 'bloomfilter';
SET search_path = runtime, public;
SET bloomfilter.runtime_filter_force = on;
SET max_parallel_workers_per_gather = 0;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT rf_check('SELECT v FROM small WHERE NOT EXISTS (SELECT FROM big WHERE big.k = small.k)') AS anti_small;
SELECT rf_check('SELECT v FROM small WHERE EXISTS (SELECT FROM big WHERE big.k = small.k)') AS semi_small;
