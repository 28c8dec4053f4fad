-- bloomfilter 1.9 -> 1.10
--
-- 1.10 adds the client libraries (clients/js, clients/python), which read
-- the binary and text forms of a bloom value and probe it where the
-- application runs, bit for bit as bloom_contains does.  Nothing in the
-- server changes: no SQL object is added or changed, and the stored format
-- is the same.  This script only moves the version.

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.10'" to load this file. \quit
