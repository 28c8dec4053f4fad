/*
 * source.h
 *	  The index room's one door to the runtime filters' room: a hash join
 *	  whose inner side reads a whole table may take its runtime filter from
 *	  a bloomfilter index on the join key instead of building one
 *	  (src/runtime/plan/plan.c decides, exec/build.c takes it, exec/probe.c
 *	  probes it).
 *	  Nothing else of the index room is visible outside it:
 *	  tests/unit/check_rooms.sh lets the runtime room call only the
 *	  bloom_index_source_* functions, and only here (amsource.c).
 *
 * Why the index may stand in for the inner side: every row the join's
 * snapshot sees was inserted into the index before it was committed, and
 * the index forgets only keys of rows no snapshot sees (a rebuild, 1.12,
 * reads every tuple still in the table and takes every insert made while
 * it runs: amrebuild.c), so its filter holds every key of the table's
 * visible rows (and of some rows that are not: a false positive, never a
 * false negative), provided the index is valid and not newer than the
 * snapshot (indcheckxmin), covers the column itself (no expression, no
 * predicate), and hashes the probe's values as the join's operator equates
 * them (bloom_index_source_find).
 */
#ifndef BLOOM_INDEX_SOURCE_H
#define BLOOM_INDEX_SOURCE_H

#include "../bloom_compat.h"

#include "fmgr.h"

/*
 * Planner: a bloomfilter index of table (a plain table or a materialized
 * view, which the caller has locked) on column attno alone that may serve
 * as the filter of a join's outer keys of type probe_type, equal to the
 * column under the hash operator opno and collation: it is valid and usable
 * by this transaction's snapshot, has neither expression nor predicate,
 * declares a rate no higher than max_rate, and hashes a probe value as it
 * hashed every key equal to it (the same hash operator family, holding
 * opno, and the same deterministic collation rule).  InvalidOid if none;
 * *why then says why the last bloomfilter index looked at could not serve
 * (NULL if the table has none), and *transient is set if one may serve a
 * later transaction (too new for this one's snapshot: the plan is then
 * transient, as the planner makes it for any index).  Raises no error on a
 * damaged index.  The indexes looked at stay locked to the transaction's
 * end, as the planner's.
 */
extern Oid bloom_index_source_find(Oid table, AttrNumber attno, Oid opno, Oid probe_type,
                                   Oid collation, double max_rate, const char **why,
                                   bool *transient);

/* How a probe hashes its key for an index's filter: fn(value, seed) under collation. */
typedef struct BloomIndexProbeHash
{
	FmgrInfo fn;
	Oid collation;
} BloomIndexProbeHash;

/*
 * Executor: set up *hash (in the current memory context) for probe values
 * of probe_type equal under opno and collation (the join operator's and
 * its collation) to the indexed column.  False if the index cannot serve
 * now or no longer hashes them as the planner found (then the probe must
 * not probe).
 */
extern bool bloom_index_source_probe_hash(Oid index, Oid opno, Oid probe_type, Oid collation,
                                          BloomIndexProbeHash *hash);

/*
 * Executor: the index's filter now, a layered bloom value as
 * bloom_index_filter gives it, in the current memory context.  NULL if the
 * index cannot serve now (dropped, not valid, or too new for this
 * transaction's snapshot) or its bits take more than max_bytes.  The
 * caller's snapshot must be taken: a key committed before it is in the
 * value.
 */
extern bytea *bloom_index_source_filter(Oid index, Size max_bytes);

#endif /* BLOOM_INDEX_SOURCE_H */
