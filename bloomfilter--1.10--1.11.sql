-- bloomfilter 1.10 -> 1.11
--
-- 1.11 makes every reader of a filter keep the one promise, no false
-- negatives, to whoever may read it (issue 39): the bloomfilter index's
-- readers see the caller's own inserts of the same command, TRUNCATE in
-- place and partitions attached meanwhile, check the current user's
-- privileges on every change and before any lock, and take SERIALIZABLE's
-- predicate locks; interrupted growth leaves no lost pages; runtime filters
-- are shipped to postgres_fdw only where the remote side hashes the value
-- the local join compares.  All of it is in the library: no SQL object is
-- added or changed, and the stored format is the same.  This script only
-- moves the version.

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.11'" to load this file. \quit
