-- bench/skip_plans_data.sql: the TPC-DS-shaped data of bench/skip_plans.sql
-- (\ir skip_plans_data.sql), made here, deterministic (setseed, then
-- random() in a fixed row order; arithmetic elsewhere).  Issue 41's shapes:
--
--   date_dim          200 years, 1900-01-01 .. 2099-12-31 (73,049 rows),
--                     d_date_sk sequential in date order (TPC-DS's numbering:
--                     2415021 is 1900-01-01), d_year, d_moy, d_qoy, d_dom,
--                     d_dow; B-tree primary key on d_date_sk
--   item              18,000 items; i_manager_id 1..100, i_brand_id 1..1000,
--                     i_category one of 10, each drawn at random (not
--                     correlated with i_item_sk); i_item_id unique
--   store             100 stores in 10 states (drawn at random)
--   store_sales       5 years, 1998-01-01 .. 2002-12-31: 1,643 rows a day
--                     (3,000,118), tickets of 10 lines (one store, one day),
--                     items drawn at random; plus 30,000 rows with no sale
--                     date (TPC-DS leaves some keys NULL: here only the date,
--                     which is what the default partition is for).
--                     RANGE-partitioned by month on ss_sold_date_sk: 60
--                     monthly partitions (about 50,000 rows each) and a
--                     default one (the NULL dates), 61 in all; a B-tree on
--                     (ss_item_sk, ss_ticket_number), so one per partition
--   store_sales_brin  the same rows in one table, in date order (NULL dates
--                     last), a BRIN index on ss_sold_date_sk (128 pages a
--                     range) and the same B-tree
DROP TABLE IF EXISTS date_dim, item, store, store_sales, store_sales_brin CASCADE;

CREATE TABLE date_dim AS
  SELECT (d::date - date '1900-01-01') + 2415021 AS d_date_sk,
         d::date AS d_date,
         extract(year FROM d)::int AS d_year,
         extract(month FROM d)::int AS d_moy,
         extract(quarter FROM d)::int AS d_qoy,
         extract(day FROM d)::int AS d_dom,
         extract(dow FROM d)::int AS d_dow
    FROM generate_series(date '1900-01-01', date '2099-12-31', interval '1 day') d;
ALTER TABLE date_dim ADD PRIMARY KEY (d_date_sk);

-- The draws: one seed, then each table's rows in the order generate_series
-- gives them, so every run (and every machine on 15 and later, whose
-- random() is the same generator) makes the same rows.
SELECT setseed(0.41) \g /dev/null

CREATE TABLE item AS
  SELECT g AS i_item_sk,
         ('AAAAAAAA' || lpad(upper(to_hex(g)), 8, '0'))::char(16) AS i_item_id,
         1 + floor(random() * 100)::int AS i_manager_id,
         1 + floor(random() * 1000)::int AS i_brand_id,
         (ARRAY['Books', 'Children', 'Electronics', 'Home', 'Jewelry', 'Men', 'Music', 'Shoes',
                'Sports', 'Women'])[1 + floor(random() * 10)::int] AS i_category
    FROM generate_series(1, 18000) g;
ALTER TABLE item ADD PRIMARY KEY (i_item_sk);

CREATE TABLE store AS
  SELECT g AS s_store_sk,
         'store ' || g AS s_store_name,
         (ARRAY['AL', 'GA', 'IN', 'KY', 'MI', 'MN', 'NC', 'OH', 'TN', 'TX'])[1 + floor(random() * 10)::int] AS s_state
    FROM generate_series(1, 100) g;
ALTER TABLE store ADD PRIMARY KEY (s_store_sk);

-- The fact: 60 monthly partitions, bounds in date keys, and a default one.
CREATE TABLE store_sales (
    ss_sold_date_sk int,
    ss_item_sk int NOT NULL,
    ss_store_sk int,
    ss_ticket_number bigint NOT NULL,
    ss_quantity int,
    ss_sales_price numeric(7, 2)
) PARTITION BY RANGE (ss_sold_date_sk);
DO $$
DECLARE
    m date;
BEGIN
    FOR i IN 0..59 LOOP
        m := date '1998-01-01' + make_interval(months => i);
        EXECUTE format('CREATE TABLE store_sales_p%s PARTITION OF store_sales FOR VALUES FROM (%s) TO (%s)',
                       to_char(m, 'YYYYMM'), (m - date '1900-01-01') + 2415021,
                       ((m + interval '1 month')::date - date '1900-01-01') + 2415021);
    END LOOP;
END $$;
CREATE TABLE store_sales_pdefault PARTITION OF store_sales DEFAULT;

-- 1,643 rows a day for the 1,826 days (row g's day is g / 1,643), ticket
-- g / 10 (its store from the ticket's hash), then the undated rows.
INSERT INTO store_sales
  SELECT (date '1998-01-01' - date '1900-01-01') + 2415021 + g / 1643,
         1 + floor(random() * 18000)::int,
         1 + (hashint8(g / 10) & 2147483647) % 100,
         1 + g / 10,
         1 + floor(random() * 100)::int,
         round((random() * 200)::numeric, 2)
    FROM generate_series(0, 1826 * 1643 - 1) g;
INSERT INTO store_sales
  SELECT NULL, 1 + floor(random() * 18000)::int, 1 + (hashint8(g) & 2147483647) % 100,
         1 + g, 1 + floor(random() * 100)::int, round((random() * 200)::numeric, 2)
    FROM generate_series(1826 * 1643 / 10 + 1, 1826 * 1643 / 10 + 30000) g;
CREATE INDEX store_sales_item_ticket ON store_sales (ss_item_sk, ss_ticket_number);

-- The same rows unpartitioned, in date order.
CREATE TABLE store_sales_brin AS
  SELECT * FROM store_sales ORDER BY ss_sold_date_sk NULLS LAST, ss_ticket_number, ss_item_sk;
CREATE INDEX store_sales_brin_date ON store_sales_brin USING brin (ss_sold_date_sk);
CREATE INDEX store_sales_brin_item_ticket ON store_sales_brin (ss_item_sk, ss_ticket_number);

VACUUM ANALYZE date_dim, item, store, store_sales, store_sales_brin;
