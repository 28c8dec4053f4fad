/*
 * bloom_runtime.h
 *	  Runtime Bloom filters inside PostgreSQL's hash joins: what the planner
 *	  side, the two executor nodes and the glue share.
 *
 * With bloomfilter.runtime_filter on, the planner hook (bloom_runtime_plan.c)
 * looks at every hash join of a finished plan.  Where a filter is expected to
 * pay (core/bf_runtime.h), it puts two custom scan nodes into the plan:
 *
 *	 Hash Join                           the join the filter serves
 *	   ->  BloomFilterProbe              drops outer rows whose keys the
 *	         ->  ... (outer side)        filter does not hold; as low in the
 *	                                     outer side as is correct
 *	   ->  Hash
 *	         ->  BloomFilterBuild        adds the key of every inner row
 *	               ->  ... (inner side)  as the Hash node reads them
 *
 * Both nodes pass their child's tuples through unchanged.  They hash the keys
 * with the join operators' own hash functions and collations (get_op_hash_
 * functions: the left one on the outer side, the right one on the inner
 * side), combined as the hash join combines them, so a row that the join
 * would match always passes: the filter has no false negatives.
 *
 * At executor start (bloom_runtime.c) each probe is given its build node's
 * filter and the build node its HashJoinState.  A probe filters only while
 * the filter is ready (it holds every inner row of the join's current scan)
 * and the join's hash table exists; otherwise, as for the outer rows a hash
 * join fetches before it builds its table, rows pass unfiltered.
 */
#ifndef BLOOM_RUNTIME_H
#define BLOOM_RUNTIME_H

#include "bloom_pg.h"

#include "access/parallel.h"
#include "executor/tuptable.h"
#include "portability/instr_time.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "nodes/plannodes.h"

/* bloomfilter.runtime_filter, and bloomfilter.runtime_filter_force (for tests) */
extern bool bloom_runtime_filter;
extern bool bloom_runtime_filter_force;

#define BLOOM_BUILD_NAME "BloomFilterBuild"
#define BLOOM_PROBE_NAME "BloomFilterProbe"

/*
 * The custom_private list of both nodes.  custom_exprs holds the keys:
 * expressions over the child's output (Vars with varno OUTER_VAR), one per
 * hash clause of the join, in the join's order.
 */
typedef enum RuntimePrivate
{
	RF_PRIVATE_ID,         /* Integer: the filter's number in the statement */
	RF_PRIVATE_OPERATORS,  /* OidList: the join's hash operators */
	RF_PRIVATE_COLLATIONS, /* OidList: their collations */
	RF_PRIVATE_OUTER_ROWS, /* Float: the planner's estimates, for EXPLAIN */
	RF_PRIVATE_INNER_ROWS, /* Float */
	RF_PRIVATE_PASS,       /* Float: the fraction of outer rows expected to match */
	RF_PRIVATE_SHARED,     /* Float: keys of a shared filter (Parallel Hash), else 0 */
	RF_PRIVATE_SAVED,      /* Float: what removing an outer row saves, in probes */
	RF_PRIVATE_COUNT
} RuntimePrivate;

/* The plan methods, registered in _PG_init (parallel workers find them by name). */
extern const CustomScanMethods bloom_build_plan_methods;
extern const CustomScanMethods bloom_probe_plan_methods;

/* ---- the filter (bloom_runtime_filter.c) ---- */

/*
 * The filter a build node owns and its probes read.  Until the build is
 * finished, keys are collected as 32-bit hashes, so that the filter can be
 * sized for the rows really read, not the planner's estimate; past the
 * largest filter's capacity they go straight into a filter of that size.
 *
 * Under a Parallel Hash Join every participant reads a share of the inner
 * side.  There the filter is shared: each participant adds its share to a
 * filter of its own of the planned shape (sized for twice the planner's
 * estimate of all inner rows) and, at the end of its share, ORs it into the
 * shared one, in the build node's shared memory, word by word with atomic
 * ORs.  The join's build barrier tells when every participant is done: the
 * probes use the shared filter only once it has passed the hashing of the
 * inner side, which is also when the join starts reading outer rows.
 */
typedef struct RuntimeFilter
{
	int id;
	struct HashJoinState *join; /* the join it serves; NULL if not wired */
	bool ready;                 /* this process's build is finished (its share, if shared) */
	bool useless;               /* too full to be worth probing */
	MemoryContext context;

	uint32 *pending; /* hashes of the current build, until it is finished */
	size_t npending;
	size_t pending_size;
	uint8 *bytes; /* the filter, once sized */
	bf_view view;

	/* shared (Parallel Hash Join) */
	double planned_keys; /* the shape of the shared filter; 0 if not shared */
	uint8 *shared;       /* its bytes, in shared memory, while attached */
	bf_view shared_view;
	bool checked; /* the shared filter's fill has been read */

	/* for EXPLAIN ANALYZE: the last build */
	uint64 keys;     /* keys added */
	uint64 builds;   /* builds started (rescans rebuild) */
	double build_ms; /* from the first inner row to the finished filter */
	double fill;     /* fraction of bits set */
	instr_time started;
	bool timing;
} RuntimeFilter;

/* An empty filter, in the current memory context. */
extern void bloom_rf_init(RuntimeFilter *f, int id);

/* Forget the keys, for a new build (a rescan that rebuilds the hash table). */
extern void bloom_rf_reset(RuntimeFilter *f);

/* Add the key hash of one inner row. */
extern void bloom_rf_add(RuntimeFilter *f, uint32 hash);

/* The inner side is read: size and fill the filter; it is then ready. */
extern void bloom_rf_finish(RuntimeFilter *f);

/*
 * Whether a probe may filter now: the filter holds every inner key of the
 * join's current scan and is worth probing.  A private filter: it is ready
 * and the join's hash table of the current scan exists (so the build that
 * made the filter is the one the join probes).  A shared one: the join's
 * build barrier has passed the hashing of the inner side.
 */
extern bool bloom_rf_usable(RuntimeFilter *f);

/* Whether a key hash may be in the filter (bloom_rf_usable() first). */
static inline bool
bloom_rf_may_contain(const RuntimeFilter *f, uint32 hash)
{
	return bf_contains_hash(f->shared ? &f->shared_view : &f->view, (uint64) hash);
}

/* Bytes of the shared filter of planned_keys keys. */
extern Size bloom_rf_shared_size(double planned_keys);

/* Set up the shared filter in mem (bloom_rf_shared_size() bytes), empty (the leader). */
extern void bloom_rf_shared_init(RuntimeFilter *f, void *mem);

/* Use the shared filter in mem (a worker). */
extern void bloom_rf_shared_attach(RuntimeFilter *f, void *mem);

/* Empty the shared filter again, for a rescan (the leader, workers not running). */
extern void bloom_rf_shared_reset(RuntimeFilter *f);

/* Forget the shared memory (it is about to be released). */
extern void bloom_rf_shared_detach(RuntimeFilter *f);

/* ---- the keys (bloom_runtime_keys.c) ---- */

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
 * Set up the keys of a runtime filter node: the key expressions (custom_exprs),
 * the hash function of each operator for the node's side (the left one for a
 * probe, which sees the join's outer side, the right one for a build), in
 * the current memory context.
 */
extern void bloom_rf_keys_init(RuntimeKeys *keys, CustomScanState *node, bool outer_side);

/*
 * The combined hash of the keys of the tuple in slot, as the hash join
 * combines its hash values.  Returns false if a key is NULL: the row cannot
 * match (the planner adds filters only for strict operators).
 */
extern bool bloom_rf_keys_hash(RuntimeKeys *keys, TupleTableSlot *slot, ExprContext *econtext,
                               uint32 *hash);

/* The keys deparsed for EXPLAIN, "a, b". */
extern char *bloom_rf_keys_explain(CustomScanState *node, List *ancestors, struct ExplainState *es);

/* ---- counts for EXPLAIN ANALYZE, across processes (bloom_runtime_parallel.c) ---- */

/* What one process's node did. */
typedef struct RuntimeCounts
{
	bool used; /* the process ran the node */
	/* probes */
	uint64 probed;  /* rows probed */
	uint64 removed; /* rows removed */
	uint64 skipped; /* rows passed unprobed (paused) */
	uint64 pauses;
	uint64 unready;     /* rows passed while the filter was not usable */
	double in_cache_kb; /* the join's hash table, if found in the CPU cache (not probed); else 0 */
	/* builds: the last build */
	uint64 keys;
	uint64 builds;
	uint64 bytes;
	int nhashes;
	double fill;
	double build_ms;
	bool ready;
	bool useless;
} RuntimeCounts;

/*
 * Under Gather a node of ours is marked parallel-aware, only so that the
 * executor gives it shared memory: each worker leaves its counts there at
 * shutdown, and the leader copies them out at its own shutdown (before
 * Gather's releases the memory) for EXPLAIN.
 */
typedef struct RuntimeParallel
{
	struct RuntimeShared *shared; /* the shared memory, while attached */
	RuntimeCounts *workers;       /* the leader's copy of the workers' counts */
	int nworkers;
} RuntimeParallel;

extern Size bloom_rf_parallel_size(ParallelContext *pcxt);
extern void bloom_rf_parallel_init(RuntimeParallel *par, ParallelContext *pcxt, void *coordinate);
extern void bloom_rf_parallel_attach(RuntimeParallel *par, void *coordinate);
/* The size of the counts a worker attached to (bloom_rf_parallel_size() of the leader's context). */
extern Size bloom_rf_parallel_attached_size(const RuntimeParallel *par);
/* At shutdown: a worker leaves its counts, the leader collects the workers'. */
extern void bloom_rf_parallel_shutdown(RuntimeParallel *par, const RuntimeCounts *mine);
/* The counts of every process, summed into *sum (which holds the leader's). */
extern void bloom_rf_parallel_sum(const RuntimeParallel *par, RuntimeCounts *sum);
/* The build counts to show: the leader's if it built, else the first worker's that did. */
extern const RuntimeCounts *bloom_rf_parallel_build(const RuntimeParallel *par,
                                                    const RuntimeCounts *mine);

/* ---- the nodes ---- */

/* bloom_runtime_build.c, bloom_runtime_probe.c: is this state one of ours? */
extern bool bloom_is_build_state(PlanState *ps);
extern bool bloom_is_probe_state(PlanState *ps);

/* The filter of a build node. */
extern RuntimeFilter *bloom_build_filter(PlanState *build);

/* Give a probe its filter if the filter's number is the probe's. */
extern void bloom_probe_attach(PlanState *probe, RuntimeFilter *filter);

/* ---- glue ---- */

/* The planner's part (bloom_runtime_plan.c): add filters to a finished plan. */
extern void bloom_rf_plan(PlannedStmt *stmt);

/* Define the setting, register the nodes, install the hooks (bloom_runtime.c). */
extern void bloom_runtime_init(void);

#endif /* BLOOM_RUNTIME_H */
