-- bench/tpch.sql: runtime join filters on a TPC-H-like schema generated in
-- SQL (scale factor 0.2: 1.2M lineitems, 300k orders), every query with
-- bloomfilter.runtime_filter off and on, 3 runs each alternating, medians
-- compared; one process and two workers, JIT off.
--
-- The data follow TPC-H's shapes (keys, cardinalities, value domains,
-- date ranges, the customers without orders) with PostgreSQL's random(),
-- not dbgen's exact distributions, so the results are not TPC-H results.
-- The queries are TPC-H's, with the specification's validation parameters;
-- those whose plans use no hash join at this scale, or need minutes (Q17,
-- Q20's correlated subqueries), are left out.
\set ON_ERROR_STOP on
\pset footer off
SET jit = off;
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
LOAD 'bloomfilter';
SELECT setseed(0.42);

DROP TABLE IF EXISTS region, nation, supplier, customer, part, partsupp, orders, lineitem;
CREATE TABLE region AS
  SELECT r AS r_regionkey, (ARRAY['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'])[r + 1] AS r_name
    FROM generate_series(0, 4) r;
CREATE TABLE nation AS
  SELECT n AS n_nationkey,
         (ARRAY['ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT', 'ETHIOPIA', 'FRANCE', 'GERMANY',
                'INDIA', 'INDONESIA', 'IRAN', 'IRAQ', 'JAPAN', 'JORDAN', 'KENYA', 'MOROCCO',
                'MOZAMBIQUE', 'PERU', 'CHINA', 'ROMANIA', 'SAUDI ARABIA', 'VIETNAM', 'RUSSIA',
                'UNITED KINGDOM', 'UNITED STATES'])[n + 1] AS n_name,
         (ARRAY[0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1])[n + 1] AS n_regionkey
    FROM generate_series(0, 24) n;
CREATE TABLE supplier AS
  SELECT s AS s_suppkey, 'Supplier#' || lpad(s::text, 9, '0') AS s_name,
         (random() * 24)::int AS s_nationkey, round((random() * 10999 - 999)::numeric, 2) AS s_acctbal,
         CASE WHEN random() < 0.005 THEN 'Customer Complaints' ELSE 'ok' END AS s_comment
    FROM generate_series(1, 2000) s;
CREATE TABLE customer AS
  SELECT c AS c_custkey, 'Customer#' || lpad(c::text, 9, '0') AS c_name,
         (random() * 24)::int AS c_nationkey, round((random() * 10999 - 999)::numeric, 2) AS c_acctbal,
         (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'])[1 + (random() * 4)::int] AS c_mktsegment,
         lpad((10 + (random() * 24)::int)::text, 2, '0') || '-' || (100 + (random() * 899)::int) AS c_phone
    FROM generate_series(1, 30000) c;
CREATE TABLE part AS
  SELECT p AS p_partkey,
         (ARRAY['almond', 'antique', 'aquamarine', 'azure', 'beige', 'bisque', 'black', 'blush', 'blue',
                'brown', 'burlywood', 'chartreuse', 'chocolate', 'coral', 'cornflower', 'cream', 'cyan',
                'dark', 'deep', 'dim', 'dodger', 'drab', 'firebrick', 'floral', 'forest', 'frosted',
                'gainsboro', 'ghost', 'goldenrod', 'green', 'grey', 'honeydew', 'hot', 'indian', 'ivory',
                'khaki', 'lace', 'lavender', 'lawn', 'lemon', 'light', 'lime', 'linen', 'magenta',
                'maroon', 'medium', 'metallic', 'midnight', 'mint', 'misty', 'moccasin', 'navajo',
                'navy', 'olive', 'orange', 'orchid', 'pale', 'papaya', 'peach', 'peru', 'pink', 'plum',
                'powder', 'puff', 'purple', 'red', 'rose', 'rosy', 'royal', 'saddle', 'salmon', 'sandy',
                'seashell', 'sienna', 'sky', 'slate', 'smoke', 'snow', 'spring', 'steel', 'tan',
                'thistle', 'tomato', 'turquoise', 'violet', 'wheat', 'white', 'yellow'])[1 + (random() * 91)::int]
           || ' ' || (ARRAY['green', 'red', 'blue', 'white', 'black', 'forest', 'ivory', 'navy'])[1 + (random() * 7)::int] AS p_name,
         'Brand#' || (1 + (random() * 4)::int) || (1 + (random() * 4)::int) AS p_brand,
         (ARRAY['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'])[1 + (random() * 5)::int] || ' ' ||
         (ARRAY['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'])[1 + (random() * 4)::int] || ' ' ||
         (ARRAY['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'])[1 + (random() * 4)::int] AS p_type,
         1 + (random() * 49)::int AS p_size,
         (ARRAY['SM', 'LG', 'MED', 'JUMBO', 'WRAP'])[1 + (random() * 4)::int] || ' ' ||
         (ARRAY['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'])[1 + (random() * 7)::int] AS p_container,
         round((900 + (p / 10) % 20001 + 100 * (p % 1000)) / 100.0, 2) AS p_retailprice
    FROM generate_series(1, 40000) p;
CREATE TABLE partsupp AS
  SELECT p AS ps_partkey, 1 + (p + i * (2000 / 4 + (p - 1) / 2000)) % 2000 AS ps_suppkey,
         (random() * 9999)::int + 1 AS ps_availqty, round((1 + random() * 999)::numeric, 2) AS ps_supplycost
    FROM generate_series(1, 40000) p, generate_series(0, 3) i;
-- a third of the customers (keys divisible by 3) have no orders, as in TPC-H
CREATE TABLE orders AS
  SELECT o AS o_orderkey, CASE WHEN c0 % 3 = 0 THEN c0 - 1 ELSE c0 END AS o_custkey, d AS o_orderdate,
         (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[1 + (random() * 4)::int] AS o_orderpriority,
         0::numeric AS o_totalprice, CASE WHEN d < date '1995-06-17' THEN 'F' ELSE 'O' END AS o_orderstatus,
         0 AS o_shippriority
    FROM (SELECT o, 1 + (random() * 29999)::int AS c0, date '1992-01-01' + (random() * 2405)::int AS d
            FROM generate_series(1, 300000) o) s;
CREATE TABLE lineitem AS
  SELECT o_orderkey AS l_orderkey, l AS l_linenumber, pk AS l_partkey,
         1 + (pk + (l % 4) * (2000 / 4 + (pk - 1) / 2000)) % 2000 AS l_suppkey,
         q AS l_quantity, round(q * (900 + (pk / 10) % 20001 + 100 * (pk % 1000)) / 100.0, 2) AS l_extendedprice,
         round((random() * 10)::int / 100.0, 2) AS l_discount, round((random() * 8)::int / 100.0, 2) AS l_tax,
         CASE WHEN ship > date '1995-06-17' THEN 'N' WHEN random() < 0.5 THEN 'R' ELSE 'A' END AS l_returnflag,
         CASE WHEN ship > date '1995-06-17' THEN 'O' ELSE 'F' END AS l_linestatus,
         ship AS l_shipdate, o_orderdate + 30 + (random() * 60)::int AS l_commitdate,
         ship + 1 + (random() * 29)::int AS l_receiptdate,
         (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[1 + (random() * 3)::int] AS l_shipinstruct,
         (ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])[1 + (random() * 6)::int] AS l_shipmode
    FROM orders,
         LATERAL generate_series(1, 1 + (random() * 6)::int + (o_orderkey * 0)) l,
         LATERAL (SELECT 1 + (random() * 39999)::int + (l * 0) AS pk, 1 + (random() * 49)::int + (l * 0) AS q,
                         o_orderdate + 1 + (random() * 120)::int + (l * 0) AS ship) v;
UPDATE orders SET o_totalprice = t.total
  FROM (SELECT l_orderkey, sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)) AS total
          FROM lineitem GROUP BY l_orderkey) t
 WHERE o_orderkey = t.l_orderkey;
VACUUM ANALYZE region, nation, supplier, customer, part, partsupp, orders, lineitem;
SELECT (SELECT count(*) FROM lineitem) AS lineitems, (SELECT count(*) FROM orders) AS orders,
       (SELECT count(DISTINCT o_custkey) FROM orders) AS customers_with_orders;

CREATE TEMP TABLE tpch (q text, sql text);
INSERT INTO tpch VALUES
('Q2', $q$SELECT s_acctbal, s_name, n_name, p_partkey FROM part, supplier, partsupp, nation, region
 WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND p_size = 15 AND p_type LIKE '%BRASS'
   AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey AND r_name = 'EUROPE'
   AND ps_supplycost = (SELECT min(ps_supplycost) FROM partsupp, supplier, nation, region
                         WHERE p_partkey = ps_partkey AND s_suppkey = ps_suppkey AND s_nationkey = n_nationkey
                           AND n_regionkey = r_regionkey AND r_name = 'EUROPE')
 ORDER BY s_acctbal DESC, n_name, s_name, p_partkey LIMIT 100$q$),
('Q3', $q$SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
  FROM customer, orders, lineitem
 WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
   AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
 GROUP BY l_orderkey, o_orderdate, o_shippriority ORDER BY revenue DESC, o_orderdate LIMIT 10$q$),
('Q4', $q$SELECT o_orderpriority, count(*) FROM orders
 WHERE o_orderdate >= date '1993-07-01' AND o_orderdate < date '1993-10-01'
   AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
 GROUP BY o_orderpriority ORDER BY o_orderpriority$q$),
('Q5', $q$SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
  FROM customer, orders, lineitem, supplier, nation, region
 WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
   AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
   AND r_name = 'ASIA' AND o_orderdate >= date '1994-01-01' AND o_orderdate < date '1995-01-01'
 GROUP BY n_name ORDER BY revenue DESC$q$),
('Q7', $q$SELECT supp_nation, cust_nation, l_year, sum(volume) AS revenue FROM (
   SELECT n1.n_name AS supp_nation, n2.n_name AS cust_nation, extract(year FROM l_shipdate) AS l_year,
          l_extendedprice * (1 - l_discount) AS volume
     FROM supplier, lineitem, orders, customer, nation n1, nation n2
    WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey AND c_custkey = o_custkey
      AND s_nationkey = n1.n_nationkey AND c_nationkey = n2.n_nationkey
      AND ((n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE'))
      AND l_shipdate BETWEEN date '1995-01-01' AND date '1996-12-31') AS shipping
 GROUP BY supp_nation, cust_nation, l_year ORDER BY supp_nation, cust_nation, l_year$q$),
('Q8', $q$SELECT o_year, sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) / sum(volume) AS mkt_share FROM (
   SELECT extract(year FROM o_orderdate) AS o_year, l_extendedprice * (1 - l_discount) AS volume, n2.n_name AS nation
     FROM part, supplier, lineitem, orders, customer, nation n1, nation n2, region
    WHERE p_partkey = l_partkey AND s_suppkey = l_suppkey AND l_orderkey = o_orderkey AND o_custkey = c_custkey
      AND c_nationkey = n1.n_nationkey AND n1.n_regionkey = r_regionkey AND r_name = 'AMERICA'
      AND s_nationkey = n2.n_nationkey AND o_orderdate BETWEEN date '1995-01-01' AND date '1996-12-31'
      AND p_type = 'ECONOMY ANODIZED STEEL') AS all_nations
 GROUP BY o_year ORDER BY o_year$q$),
('Q9', $q$SELECT nation, o_year, sum(amount) AS sum_profit FROM (
   SELECT n_name AS nation, extract(year FROM o_orderdate) AS o_year,
          l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity AS amount
     FROM part, supplier, lineitem, partsupp, orders, nation
    WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey AND p_partkey = l_partkey
      AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey AND p_name LIKE '%green%') AS profit
 GROUP BY nation, o_year ORDER BY nation, o_year DESC$q$),
('Q10', $q$SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue, c_acctbal, n_name
  FROM customer, orders, lineitem, nation
 WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND o_orderdate >= date '1993-10-01'
   AND o_orderdate < date '1994-01-01' AND l_returnflag = 'R' AND c_nationkey = n_nationkey
 GROUP BY c_custkey, c_name, c_acctbal, n_name ORDER BY revenue DESC, c_custkey LIMIT 20$q$),
('Q11', $q$SELECT ps_partkey, sum(ps_supplycost * ps_availqty) AS value FROM partsupp, supplier, nation
 WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY'
 GROUP BY ps_partkey HAVING sum(ps_supplycost * ps_availqty) > (
   SELECT sum(ps_supplycost * ps_availqty) * 0.0005 FROM partsupp, supplier, nation
    WHERE ps_suppkey = s_suppkey AND s_nationkey = n_nationkey AND n_name = 'GERMANY')
 ORDER BY value DESC, ps_partkey$q$),
('Q12', $q$SELECT l_shipmode, sum(CASE WHEN o_orderpriority IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS high,
       sum(CASE WHEN o_orderpriority NOT IN ('1-URGENT', '2-HIGH') THEN 1 ELSE 0 END) AS low
  FROM orders, lineitem
 WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate
   AND l_shipdate < l_commitdate AND l_receiptdate >= date '1994-01-01' AND l_receiptdate < date '1995-01-01'
 GROUP BY l_shipmode ORDER BY l_shipmode$q$),
('Q13', $q$SELECT c_count, count(*) AS custdist FROM (
   SELECT c_custkey, count(o_orderkey) AS c_count FROM customer LEFT OUTER JOIN orders
       ON c_custkey = o_custkey AND o_orderpriority NOT LIKE '%URGENT%' GROUP BY c_custkey) AS c_orders
 GROUP BY c_count ORDER BY custdist DESC, c_count DESC$q$),
('Q14', $q$SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
  FROM lineitem, part
 WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01' AND l_shipdate < date '1995-10-01'$q$),
('Q16', $q$SELECT p_brand, p_type, p_size, count(DISTINCT ps_suppkey) AS supplier_cnt FROM partsupp, part
 WHERE p_partkey = ps_partkey AND p_brand <> 'Brand#45' AND p_type NOT LIKE 'MEDIUM POLISHED%'
   AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
   AND ps_suppkey NOT IN (SELECT s_suppkey FROM supplier WHERE s_comment LIKE '%Customer%Complaints%')
 GROUP BY p_brand, p_type, p_size ORDER BY supplier_cnt DESC, p_brand, p_type, p_size$q$),
('Q18', $q$SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
  FROM customer, orders, lineitem
 WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 300)
   AND c_custkey = o_custkey AND o_orderkey = l_orderkey
 GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice ORDER BY o_totalprice DESC, o_orderdate LIMIT 100$q$),
('Q19', $q$SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem, part
 WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12' AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
        AND l_quantity >= 1 AND l_quantity <= 11 AND p_size BETWEEN 1 AND 5
        AND l_shipmode IN ('AIR', 'REG AIR') AND l_shipinstruct = 'DELIVER IN PERSON')
    OR (p_partkey = l_partkey AND p_brand = 'Brand#23' AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
        AND l_quantity >= 10 AND l_quantity <= 20 AND p_size BETWEEN 1 AND 10
        AND l_shipmode IN ('AIR', 'REG AIR') AND l_shipinstruct = 'DELIVER IN PERSON')
    OR (p_partkey = l_partkey AND p_brand = 'Brand#34' AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
        AND l_quantity >= 20 AND l_quantity <= 30 AND p_size BETWEEN 1 AND 15
        AND l_shipmode IN ('AIR', 'REG AIR') AND l_shipinstruct = 'DELIVER IN PERSON')$q$),
('Q21', $q$SELECT s_name, count(*) AS numwait FROM supplier, lineitem l1, orders, nation
 WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
   AND l1.l_receiptdate > l1.l_commitdate
   AND EXISTS (SELECT * FROM lineitem l2 WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
   AND NOT EXISTS (SELECT * FROM lineitem l3 WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                     AND l3.l_receiptdate > l3.l_commitdate)
   AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
 GROUP BY s_name ORDER BY numwait DESC, s_name LIMIT 100$q$);

CREATE TEMP TABLE tpch_runs (q text, workers int, setting text, ms float8, result text);
CREATE FUNCTION tpch_time(sql text) RETURNS TABLE (ms float8, result text) LANGUAGE plpgsql AS $$
DECLARE
    t0 timestamptz := clock_timestamp();
BEGIN
    EXECUTE 'SELECT md5(string_agg(r::text, ''|'')) FROM (' || sql || ') r' INTO result;
    ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    RETURN NEXT;
END $$;
-- how many runtime filters each query's plan gets
CREATE FUNCTION tpch_filters(sql text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    line text;
    n int := 0;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP
        IF line ~ 'BloomFilterBuild' THEN
            n := n + 1;
        END IF;
    END LOOP;
    RETURN n;
END $$;

CREATE TEMP TABLE tpch_plans (q text, workers int, filters int);
DO $$
DECLARE
    t record;
    s text;
    w int;
BEGIN
    FOREACH w IN ARRAY ARRAY[0, 2] LOOP
        PERFORM set_config('max_parallel_workers_per_gather', w::text, false);
        FOR t IN SELECT * FROM tpch LOOP
            PERFORM set_config('bloomfilter.runtime_filter', 'on', false);
            INSERT INTO tpch_plans VALUES (t.q, w, tpch_filters(t.sql));
            FOR rep IN 1..3 LOOP
                FOREACH s IN ARRAY ARRAY['off', 'on'] LOOP
                    PERFORM set_config('bloomfilter.runtime_filter', s, false);
                    INSERT INTO tpch_runs SELECT t.q, w, s, x.ms, x.result FROM tpch_time(t.sql) x;
                END LOOP;
            END LOOP;
        END LOOP;
    END LOOP;
END $$;

\echo '== medians of 3 (ms); speedup = off / on; filters = runtime filters in the plan'
WITH med AS (
  SELECT q, workers, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms,
         min(result) AS result, count(DISTINCT result) AS results
    FROM tpch_runs GROUP BY 1, 2, 3)
SELECT f.q, f.workers, p.filters, round(f.ms) AS off_ms, round(n.ms) AS on_ms,
       round((f.ms / n.ms)::numeric, 2) AS speedup,
       f.result = n.result AND f.results = 1 AND n.results = 1 AS same_result
  FROM med f JOIN med n USING (q, workers) JOIN tpch_plans p USING (q, workers)
 WHERE f.setting = 'off' AND n.setting = 'on'
 ORDER BY f.workers, substring(f.q FROM 2)::int;

\echo '== all queries, and those whose plan has a filter (the others run the same plan on and off: their ratios show the noise)'
WITH med AS (
  SELECT q, workers, setting, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
    FROM tpch_runs GROUP BY 1, 2, 3),
pairs AS (
  SELECT f.q, f.workers, p.filters > 0 AS filtered, f.ms AS off_ms, n.ms AS on_ms
    FROM med f JOIN med n USING (q, workers) JOIN tpch_plans p USING (q, workers)
   WHERE f.setting = 'off' AND n.setting = 'on')
SELECT workers, CASE WHEN g THEN 'with a filter' ELSE 'all' END AS queries, count(*) AS n,
       round(sum(off_ms)) AS off_ms, round(sum(on_ms)) AS on_ms,
       round((sum(off_ms) / sum(on_ms))::numeric, 2) AS total_speedup,
       round(exp(avg(ln(off_ms / on_ms)))::numeric, 2) AS geomean_speedup
  FROM pairs, (VALUES (false), (true)) v(g)
 WHERE filtered OR NOT g
 GROUP BY workers, g ORDER BY workers, g;
