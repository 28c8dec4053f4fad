-- bloomfilter 1.11 -> 1.12
--
-- 1.12: trust and first contact (issue 49).

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.12'" to load this file. \quit
