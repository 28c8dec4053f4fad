/*
 * filter.h
 *	  The runtime filter room: the filter a build node fills and its probes
 *	  read (filter.c), the join keys hashed as the hash join hashes them
 *	  (keyhash.c), the build's key values kept for skipping (values.c), and
 *	  the one answer to "has the build changed since I last decided?"
 *	  (RuntimeBuildStamp).
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
#include "../../../core/bf_stretches.h"

#include "access/parallel.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"

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

/* The build's key values, or NULL if not kept (bloom_rf_filter_built first). */
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
 * values are whole: a private filter that is ready while the join's hash
 * table exists (a shared filter's values are one process's share: never).
 * Unlike bloom_rf_filter_usable, a filter too full to probe still has its
 * values.  *now is the build it is (filled when true).
 */
extern bool bloom_rf_filter_built(const RuntimeFilter *f, RuntimeBuildStamp *now);

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

/* Shared (Parallel Hash Join): whether it is, and its bytes. */
extern bool bloom_rf_filter_is_shared(const RuntimeFilter *f);
extern Size bloom_rf_filter_shared_size(const RuntimeFilter *f);
/* Set up the shared filter in mem (bloom_rf_filter_shared_size() bytes), empty (the leader). */
extern void bloom_rf_filter_shared_init(RuntimeFilter *f, void *mem);
/* Use the shared filter in mem (a worker, or the leader again at a rescan). */
extern void bloom_rf_filter_shared_attach(RuntimeFilter *f, void *mem);
/* Empty the shared filter again, for a rescan (the leader, workers not running). */
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

/* ---- the build's key values (values.c) ---- */

/*
 * Most distinct values kept per key: beyond them only the least and the
 * greatest are, and an integer key's stretches.  A hash partition's keys
 * are all needed; a range or list partition's bounds are also decided by
 * the stretches, or the least and greatest.
 */
#define BLOOM_RF_EXACT_MAX 1024
/*
 * Inner rows past which a B-tree read of the keys' rows is neither planned
 * nor priced: sixteen times the distinct keys a build keeps one by one.
 */
#define BLOOM_RF_BTREE_MAX_INNER_ROWS (16.0 * BLOOM_RF_EXACT_MAX)
/* Most stretches of consecutive values an integer key keeps past its distinct values. */
#define BLOOM_RF_STRETCHES_MAX 1024

/* One key's values: the join operator's right (inner) input type. */
typedef struct RuntimeKeyValues
{
	Oid type;
	int16 typlen;
	bool typbyval;
	Oid collation;  /* the join operator's */
	Oid family;     /* the B-tree family giving the order, or InvalidOid (nothing is kept) */
	FmgrInfo order; /* its comparison function (type, type) */
	bool any;       /* some value was added (min and max are set) */
	Datum min;
	Datum max;
	/* the distinct values, while there are no more than BLOOM_RF_EXACT_MAX */
	bool overflow; /* there were more (or no order): exact is gone */
	int nexact;
	Datum *exact;   /* sorted by order once finished */
	uint32 *hashes; /* each one's own hash (the join's hash function for the inner side),
	                 * beside its value once sorted */
	int *slots;     /* open addressing on the hashes: index + 1 into exact, 0 free */
	Size bytes;     /* bytes of the values copied */
	/*
	 * An integer key (int2, int4, int8, date, timestamp, timestamptz in its
	 * type's default order): past the distinct values, stretches of them
	 * (bf_stretches.h, as v ^ BF_STRETCH_SIGN) that cover every value
	 */
	bool integral;
	bool stretched;         /* the stretches hold the values (overflow, integral) */
	bf_stretches stretches; /* finished with the build */
	void *stretches_buffer; /* made at the first overflow */
} RuntimeKeyValues;

typedef struct RuntimeValues
{
	int nkeys;
	RuntimeKeyValues *keys;
	MemoryContext context;
	bool finished; /* the build is over: exact values are sorted */
} RuntimeValues;

/*
 * New, empty values of nkeys keys, in the current memory context: the join's
 * operators, collations and each key's B-tree family (InvalidOid: that key
 * keeps nothing); stretches: an integer key keeps stretches past its
 * distinct values.
 */
extern RuntimeValues *bloom_rf_values_create(int nkeys, List *operators, List *collations,
                                             List *families, bool stretches);

/* Forget every value (a new build). */
extern void bloom_rf_values_reset(RuntimeValues *v);

/* Add one inner row's keys (none NULL), with each one's own hash. */
extern void bloom_rf_values_add(RuntimeValues *v, const Datum *values, const uint32 *hashes);

/* The build is over: sort the distinct values. */
extern void bloom_rf_values_finish(RuntimeValues *v);

/*
 * Whether key i's values hold one that cmp(value, bound) places between
 * lower and upper: lower <= value, and value < upper (value <= upper if
 * upper_inclusive); a NULL bound pointer is unbounded.  cmp compares a value
 * of the key with a bound under collation; same_order says it orders values
 * as the key's own family does (then the search is a binary one).
 */
extern bool bloom_rf_values_between(const RuntimeValues *v, int i, FmgrInfo *cmp, Oid collation,
                                    bool same_order, const Datum *lower, const Datum *upper,
                                    bool upper_inclusive);

/*
 * Whether values sorted in cmp's order (values[0 .. n)) hold one that
 * cmp(value, bound) places between lower and upper, as
 * bloom_rf_values_between does: by binary search.
 */
extern bool bloom_rf_sorted_between(FmgrInfo *cmp, Oid collation, const Datum *values, int n,
                                    const Datum *lower, const Datum *upper, bool upper_inclusive);

/*
 * Whether values of type are integers that keep their order as int64
 * (int2, int4, int8, date, timestamp, timestamptz), and one such value as
 * an int64.
 */
extern bool bloom_rf_integer_type(Oid type);
extern int64 bloom_rf_integer_value(Oid type, Datum value);

/* Whether key i holds exactly its distinct values (none were dropped). */
extern bool bloom_rf_values_exact(const RuntimeValues *v, int i);

/*
 * Stretch j of a finished key that keeps stretches (k->stretched; there
 * are k->stretches.n): its least and greatest values, of the key's type.
 */
extern void bloom_rf_values_stretch(const RuntimeKeyValues *k, int j, Datum *lo, Datum *hi);

#endif /* BLOOM_RT_FILTER_H */
