-- bloomfilter 1.4 -> 1.5
--
-- 1.5 adds runtime Bloom filters inside PostgreSQL's hash joins: the planner
-- hook, the executor nodes BloomFilterBuild and BloomFilterProbe, and the
-- setting bloomfilter.runtime_filter all live in the shared library, which
-- PostgreSQL loads with this version's functions (or through
-- shared_preload_libraries, session_preload_libraries or LOAD).  No SQL
-- object changes.

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.5'" to load this file. \quit
