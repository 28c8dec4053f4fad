-- bloomfilter 1.5 -> 1.6
--
-- 1.6 makes runtime join filters safe to leave on: probes are kept off every
-- plan edge the executor reads other than through ExecProcNode (1.5 could
-- put one between a Hash Join and its Hash node), the probe's adaptive
-- switch judges on the whole scan and keeps sampling while paused, and a
-- probe prices its filter again once the hash table is built.  All of it is
-- in the shared library.  No SQL object changes.

\echo Use "ALTER EXTENSION bloomfilter UPDATE TO '1.6'" to load this file. \quit
