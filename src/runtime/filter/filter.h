/*
 * filter.h
 *	  The runtime filter room: the filter a build node fills and its probes
 *	  read (filter.c; its shape, shape.c), its shared build under a Parallel
 *	  Hash Join (shared.c), the join keys hashed as the hash join hashes
 *	  them (keyhash.c), and the one answer to "has the build changed since I
 *	  last decided?" (RuntimeBuildStamp).  The build's key values, kept for
 *	  skipping, are the values room's (values/values.h, below this one).
 *
 * A filter is opaque: its owner (the build node) and its readers (probes,
 * scans, the skip room) go through the functions below.  Its hot path, the
 * probe of one row, is a view (bf_view) that bloom_rf_filter_usable hands
 * out, probed inline.
 *
 * Above the core (core/bf_core.h, core/bf_runtime.h) and the settings; the
 * skip, ship, plan and exec rooms build on it.
 */
#ifndef BLOOM_RT_FILTER_H
#define BLOOM_RT_FILTER_H

#include "../../bloom_compat.h"
#include "../../index/source.h"
#include "../../../core/bf_core.h"
#include "../values/values.h"

#include "access/parallel.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/dsa.h"

struct ExplainState;

/* ---- the join's keys, as the planner knows them ---- */

/* How the keys of one hash join compare: what every room's planner part reads. */
typedef struct RuntimeJoinKeys
{
	int nkeys;
	List *operators;  /* the join's hash operators (OidList) */
	List *collations; /* their collations (OidList) */
	Oid *families;    /* the hash operator family of each, or InvalidOid */
	Oid *orders;      /* the B-tree family of each (its order, for key values), or InvalidOid */
} RuntimeJoinKeys;

/* ---- which build a decision was taken for ---- */

/*
 * A build of the filter, with the join's hash table it was made for: a
 * rescan that rebuilds the table makes a new build; a Parallel Hash Join's
 * participant that arrives after the build has built nothing, but probes a
 * table of its own to decide for.  table NULL: no build seen.
 */
typedef struct RuntimeBuildStamp
{
	uint64 build;
	const struct HashJoinTableData *table;
} RuntimeBuildStamp;

/*
 * Whether the build now (bloom_rf_filter_usable's or _built's) is another
 * than the one last decided for (*seen); if so, *seen becomes it.  The one
 * test of "has the build changed?" of the probes, the scans and the skip
 * room.
 */
static inline bool
bloom_rf_stamp_renew(RuntimeBuildStamp *seen, const RuntimeBuildStamp *now)
{
	if (seen->build == now->build && seen->table == now->table)
		return false;
	*seen = *now;
	return true;
}

/* Forget the build decided for: the next is new (a rescan). */
static inline void
bloom_rf_stamp_forget(RuntimeBuildStamp *seen)
{
	seen->table = NULL;
}

/* ---- the filter (filter.c) ---- */

/*
 * The filter a build node owns and its probes read.  Until the build is
 * finished, keys are collected as 32-bit hashes, so that the filter can be
 * sized for the rows really read; under a Parallel Hash Join it is shared
 * (filter.c's header).  Opaque.
 */
typedef struct RuntimeFilter RuntimeFilter;

/* What EXPLAIN shows of this process's last build (bloom_rf_filter_describe). */
typedef struct RuntimeFilterFacts
{
	uint64 keys;
	uint64 builds;
	uint64 bytes;
	int nhashes;
	double fill;
	double build_ms;
	bool ready;
	bool useless;
	bool source_missing; /* taken from an index that could not serve */
	/* scans its probes asked about (all builds), and skipped */
	uint64 scans_checked;
	uint64 scans_skipped;
} RuntimeFilterFacts;

/*
 * A new, empty filter numbered id, in the current memory context, for a
 * join with these hash operators and collations (kept, not copied: the
 * plan's); shared_keys > 0 for a shared one.  Its largest size is
 * bloomfilter.runtime_filter_max_size now (a parallel worker has its
 * leader's settings, so both size it alike).
 */
extern RuntimeFilter *bloom_rf_filter_create(int id, double shared_keys, List *operators,
                                             List *collations);

/* Its number in the statement, its operators and collations. */
extern int bloom_rf_filter_id(const RuntimeFilter *f);
extern List *bloom_rf_filter_operators(const RuntimeFilter *f);
extern List *bloom_rf_filter_collations(const RuntimeFilter *f);

/* The join it serves (hooks.c, at executor start). */
extern void bloom_rf_filter_set_join(RuntimeFilter *f, struct HashJoinState *join);

/*
 * The filter keeps the build's key values (values.c), each key ordered by
 * its B-tree family (families, an OidList; InvalidOid: that key keeps
 * nothing).  Not for a shared filter, whose values would be one share.
 * Returns them, for the build to add each inner row's keys to
 * (bloom_rf_values_add); the filter finishes and resets them.  stretches:
 * an integer key keeps stretches past its distinct values (a scan tests
 * ranges of keys: their cost is paid only where they may be used).
 */
extern struct RuntimeValues *bloom_rf_filter_keep_values(RuntimeFilter *f, List *families,
                                                         bool stretches);

/*
 * The build's key values, or NULL if not kept (bloom_rf_filter_built
 * first: a shared build's are NULL until it has merged them).
 */
extern const struct RuntimeValues *bloom_rf_filter_values(const RuntimeFilter *f);

/*
 * The filter comes from bloomfilter index (key: the join key it holds)
 * rather than from the inner rows (before any build).
 */
extern void bloom_rf_filter_set_source(RuntimeFilter *f, Oid index, int key);

/* The index the filter is taken from, or InvalidOid; *key the key it holds. */
extern Oid bloom_rf_filter_source(const RuntimeFilter *f, int *key);

/* Forget the keys, for a new build (a rescan that rebuilds the hash table). */
extern void bloom_rf_filter_reset(RuntimeFilter *f);

/* Add the key hash of one inner row. */
extern void bloom_rf_filter_add(RuntimeFilter *f, uint32 hash);

/*
 * The inner side is read: size and fill the filter, or take the index's;
 * it is then ready.
 */
extern void bloom_rf_filter_finish(RuntimeFilter *f);

/* Whether this process's build (or share) is finished. */
extern bool bloom_rf_filter_ready(const RuntimeFilter *f);

/*
 * The filter's bits if a probe may filter now, else NULL: the filter holds
 * every inner key of the join's current scan and is worth probing.  A
 * private filter: it is ready and the join's hash table of the current
 * scan exists (so the build that made the filter is the one the join
 * probes).  A shared one: the join's build barrier has passed the hashing
 * of the inner side.  *now is the build it is (filled when not NULL).
 */
extern const bf_view *bloom_rf_filter_usable(RuntimeFilter *f, RuntimeBuildStamp *now);

/*
 * Whether the build of the join's current scan is finished and its key
 * values (bloom_rf_filter_values) are whole: a private filter that is ready
 * while the join's hash table exists; a shared one once the join's build
 * barrier has passed the inner side (every share's values are then merged
 * into this process's, the same in each).  Unlike bloom_rf_filter_usable,
 * a filter too full to probe still has its values.  *now is the build it is
 * (filled when true).  Call it before reading the values.
 */
extern bool bloom_rf_filter_built(RuntimeFilter *f, RuntimeBuildStamp *now);

/* Count a scan one of its probes asked about (and skipped), for the build's EXPLAIN. */
extern void bloom_rf_filter_note_scan(RuntimeFilter *f, bool skipped);

/* What EXPLAIN shows of this process's last build: its shape and fill. */
extern void bloom_rf_filter_describe(const RuntimeFilter *f, RuntimeFilterFacts *facts);

/*
 * The finished filter as a bytea (its serialized form) in the current
 * memory context, for a remote scan; NULL if it is not to be sent (shared,
 * useless, or larger than bloomfilter.runtime_filter_ship_max, by default
 * 4 MB: about 3.3 million keys).
 */
extern bytea *bloom_rf_filter_to_send(const RuntimeFilter *f);

/* Shared (Parallel Hash Join): whether it is, and the bytes of its state in the build's DSM. */
extern bool bloom_rf_filter_is_shared(const RuntimeFilter *f);
extern Size bloom_rf_filter_shared_size(const RuntimeFilter *f);
/* Set up the shared state in mem, empty, the shares to go to area (the leader). */
extern void bloom_rf_filter_shared_init(RuntimeFilter *f, void *mem, dsa_area *area);
/* Use the shared state in mem (a worker): area is the query's. */
extern void bloom_rf_filter_shared_attach(RuntimeFilter *f, void *mem, dsa_area *area);
/* Empty the shared state again, for a rescan (the leader, workers not running). */
extern void bloom_rf_filter_shared_reset(RuntimeFilter *f);
/* Forget the shared memory, if attached (it is about to be released). */
extern void bloom_rf_filter_shared_detach(RuntimeFilter *f);

/* Whether a key hash may be in a usable filter's bits (bloom_rf_filter_usable's). */
static inline bool
bloom_rf_view_may_contain(const bf_view *view, uint32 hash)
{
	return bf_contains_hash(view, (uint64) hash);
}

/*
 * Whether a key may be in a usable filter taken from an index: its hash by
 * the index's hashing (hash, bloom_index_source_probe_hash's) with the
 * filter's seed, computed in memory (the row's) that the caller resets.
 */
static inline bool
bloom_rf_view_may_contain_value(const bf_view *view, BloomIndexProbeHash *hash, Datum value,
                                MemoryContext memory)
{
	MemoryContext old = MemoryContextSwitchTo(memory);
	uint64 h = DatumGetUInt64(
	    FunctionCall2Coll(&hash->fn, hash->collation, value, UInt64GetDatum(view->p.seed)));

	MemoryContextSwitchTo(old);
	return bf_contains_hash(view, h);
}

/* ---- the keys (keyhash.c) ---- */

/* How to compute the combined key hash of a tuple. */
typedef struct RuntimeKeys
{
	int nkeys;
	bool has_exprs;     /* some key is not a plain column */
	AttrNumber *attnos; /* the column, or 0 for an expression */
	ExprState **exprs;  /* the expression where attnos[i] is 0 */
	FmgrInfo *hash_fns; /* the operator's hash function for this side */
	Oid *collations;    /* the operator's collation */
} RuntimeKeys;

/*
 * Set up the keys of a build or probe node: the key expressions
 * (custom_exprs), the hash function of each operator for the node's side
 * (the left one for a probe, which sees the join's outer side, the right
 * one for a build), in the current memory context.
 */
extern void bloom_rf_keys_init(RuntimeKeys *keys, CustomScanState *node, bool outer_side);

/*
 * The combined hash of the keys of the tuple in slot, as the hash join
 * combines its hash values.  Returns false if a key is NULL: the row cannot
 * match (the planner adds filters only for strict operators).
 */
extern bool bloom_rf_keys_hash(RuntimeKeys *keys, TupleTableSlot *slot, ExprContext *econtext,
                               uint32 *hash);

/*
 * Key i's value in the tuple in slot (valid until the next call, which
 * resets econtext's row memory); false if it is NULL.
 */
extern bool bloom_rf_keys_value(RuntimeKeys *keys, TupleTableSlot *slot, ExprContext *econtext,
                                int i, Datum *value);

/*
 * The same, also giving each key's value (valid until the next call) and
 * its own hash, for the build's key values.
 */
extern bool bloom_rf_keys_hash_values(RuntimeKeys *keys, TupleTableSlot *slot,
                                      ExprContext *econtext, uint32 *hash, Datum *values,
                                      uint32 *hashes);

/* The keys deparsed for EXPLAIN, "a, b". */
extern char *bloom_rf_keys_explain(CustomScanState *node, List *ancestors, struct ExplainState *es);

/* ---- a Parallel Hash Join's shared build (shared.c, for filter.c) ---- */

/* The build node's shared memory for it (opaque; its size below). */
typedef struct RuntimeSharedBuild RuntimeSharedBuild;

extern Size bloom_rf_shared_build_size(void);
/* Empty, at executor start (the leader). */
extern void bloom_rf_shared_build_init(RuntimeSharedBuild *sb);
/* Empty again, its shares and filter freed from area (the leader, a rescan of Gather). */
extern void bloom_rf_shared_build_reinit(RuntimeSharedBuild *sb, dsa_area *area);

/*
 * Publish one participant's share into area: its nhashes key hashes, or
 * its filter of the largest size (filter, filter_bytes bytes), the keys it
 * added, and its finished values (or NULL).
 */
extern void bloom_rf_shared_build_publish(RuntimeSharedBuild *sb, dsa_area *area,
                                          const uint32 *hashes, size_t nhashes, const uint8 *filter,
                                          size_t filter_bytes, uint64 keys,
                                          const RuntimeValues *values);

/*
 * The filter of every share (once each is published), made by the first
 * process to ask, for which the others wait: its bytes (*size of them) in
 * area.  max_bytes: the largest filter.
 */
extern const uint8 *bloom_rf_shared_build_get(RuntimeSharedBuild *sb, dsa_area *area,
                                              size_t max_bytes, Size *size);

/* Every share's values added into into (once each is published), which is then finished. */
extern RuntimeValues *bloom_rf_shared_build_values(RuntimeSharedBuild *sb, dsa_area *area,
                                                   RuntimeValues *into);

/*
 * The shared build's number, one more at each run of the Gather: a process
 * that reaches the join after the build has built nothing, and its hash
 * table may come back at the same address (RuntimeBuildStamp).
 */
extern uint64 bloom_rf_shared_build_generation(RuntimeSharedBuild *sb);

/* ---- the filter's shape (shape.c), for filter.c and shared.c ---- */

/* The parameters and bytes of a runtime filter for nkeys keys, at most max_bytes. */
extern void bloom_rf_filter_shape(double nkeys, size_t max_bytes, bf_params *p, size_t *size);
/* Add n key hashes to a filter's view. */
extern void bloom_rf_filter_add_hashes(bf_view *view, const uint32 *hashes, size_t n);

#endif /* BLOOM_RT_FILTER_H */
