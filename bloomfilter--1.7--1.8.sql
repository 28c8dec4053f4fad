-- bloomfilter 1.7 -> 1.8
--
-- 1.8 makes runtime join filters skip what they would throw away:
-- partitions whose bounds hold no built key, block ranges whose BRIN summary
-- holds none, and, through a B-tree led by the join key, every row but the
-- keys' where that costs less (src/runtime/skip.c, rangescan.c, keyscan.c).
-- All of it is in the library: no SQL object is added or changed, and the
-- stored format is the same.  This script only moves the version.

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.8'" to load this file. \quit
