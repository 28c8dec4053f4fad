/*
 * runtime.h
 *	  Runtime Bloom filters inside PostgreSQL's hash joins: the room's one
 *	  header, for its files and for the module's _PG_init.
 *
 * With bloomfilter.runtime_filter on, the planner hook looks at every hash
 * join of a finished plan.  Where a filter is expected to pay (cost.c), it
 * puts two custom scan nodes into the plan:
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
 * A filter also decides what is not read at all (1.8): a probe right above
 * the scan of a partition never starts the scan when the partition's bounds
 * hold no key of the build (skip.c, from the build's key values, values.c),
 * and a Seq Scan of a table with a BRIN index on a key becomes a
 * BloomFilterScan that reads only the block ranges the index says may hold
 * one (rangescan.c), or, with a B-tree led by a key, only the keys' rows
 * through it where that costs less than the whole table (keyscan.c).
 * Where probing rows is not expected to pay but a scan can be skipped or
 * shipped, the filter is placed for that alone: its probes go only on
 * those scans and filter no rows (plan.c).
 *
 * At executor start (hooks.c) each probe is given its build node's filter
 * and the build node its HashJoinState.  A probe filters only while the
 * filter is usable (it holds every inner row of the join's current scan and
 * the join's hash table exists); otherwise, as for the outer rows a hash
 * join fetches before it builds its table, rows pass unfiltered.
 *
 * The files, by phase (ARCHITECTURE.md has the map):
 *	 settings.c   the two settings
 *	 hooks.c      the planner and executor-start hooks, node registration
 *	 plan.c       which hash joins get a filter, with the DEBUG1 reasons
 *	 cost.c       the cost model: every estimate it reads, one place
 *	 placement.c  where a filter's probes go
 *	 pushdown.c   filters shipped into postgres_fdw scans
 *	 remotekey.c  their keys hashed on the remote side as locally
 *	 skip.c       partitions whose bounds hold no built key: skipped
 *	 rangescan.c  BloomFilterScan: the block ranges a BRIN index gives
 *	 keyscan.c    its reading of the keys' rows through a B-tree
 *	 remote.c     the SQL functions the remote server runs for them
 *	 plantree.c   plan-tree helpers both planner files use
 *	 node.c       what the two executor nodes share
 *	 build.c      BloomFilterBuild
 *	 probe.c      BloomFilterProbe
 *	 filter.c     the filter: collected, sized, filled, shared, probed
 *	 keys.c       the join keys, hashed as the hash join hashes them
 *	 values.c     the build's key values: least, greatest, distinct while few
 *	 counts.c     the nodes' counts across parallel processes
 *
 * A hash join whose inner side reads a whole table with a bloomfilter
 * index on the key (1.9) takes its filter from the index instead of
 * building it (plan.c decides, filter.c takes it, probe.c probes it with
 * the index's hashing): see src/index/source.h.
 *
 * Every function the room exports is named bloom_rf_*; its types Runtime*.
 * From the rest of the PostgreSQL layer it uses only bloom_error.h and the
 * index room's door, src/index/source.h.
 */
#ifndef BLOOM_RUNTIME_H
#define BLOOM_RUNTIME_H

#include "../bloom_compat.h"
#include "../bloom_error.h"
#include "../index/source.h"
#include "../../core/bf_core.h"
#include "../../core/bf_runtime.h"

#include "access/parallel.h"
#include "access/skey.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "nodes/extensible.h"
#include "catalog/pg_type_d.h"
#include "nodes/plannodes.h"
#include "portability/instr_time.h"

/* ---- settings (settings.c) ---- */

/* bloomfilter.runtime_filter */
extern bool bloom_rf_enabled;
/* bloomfilter.runtime_filter_force (for tests) */
extern bool bloom_rf_forced;
/* bloomfilter.runtime_filter_ship_max: the largest filter sent to a remote server, in kB */
extern int bloom_rf_ship_max_kb;
/* bloomfilter.runtime_filter_max_size: the largest runtime filter, in kB */
extern int bloom_rf_max_size_kb;

/* bloomfilter.runtime_filter_max_size in bytes, as the core takes it (max_bytes). */
extern size_t bloom_rf_max_bytes(void);

/* Define the settings (from bloom_rf_module_init). */
extern void bloom_rf_define_settings(void);

/* ---- the module (hooks.c) ---- */

/* Define the settings, register the nodes, install the hooks (from _PG_init). */
extern void bloom_rf_module_init(void);

/* ---- the plan nodes ---- */

#define BLOOM_RF_BUILD_NAME "BloomFilterBuild"
#define BLOOM_RF_PROBE_NAME "BloomFilterProbe"
#define BLOOM_RF_SCAN_NAME "BloomFilterScan"

/*
 * The custom_private list of both nodes.  custom_exprs holds the keys:
 * expressions over the child's output (Vars with varno OUTER_VAR), one per
 * hash clause of the join, in the join's order.
 */
typedef enum RuntimePrivate
{
	RF_PRIVATE_ID,          /* Integer: the filter's number in the statement */
	RF_PRIVATE_OPERATORS,   /* OidList: the join's hash operators */
	RF_PRIVATE_COLLATIONS,  /* OidList: their collations */
	RF_PRIVATE_OUTER_ROWS,  /* Float: the planner's estimates, for EXPLAIN */
	RF_PRIVATE_INNER_ROWS,  /* Float */
	RF_PRIVATE_PASS,        /* Float: the fraction of outer rows expected to match */
	RF_PRIVATE_SHARED_KEYS, /* Float: keys a shared filter (Parallel Hash) is sized for, else 0 */
	RF_PRIVATE_SAVED,       /* Float: what removing an outer row saves, in probes */
	/* (the Floats are float8 Consts: no printing and parsing of numbers, bloom_rf_private_float) */
	RF_PRIVATE_REMOTE_PARAM, /* Integer: the PARAM_EXEC shipping it to remote scans, or -1 */
	RF_PRIVATE_PROBE_ROWS,   /* Integer: 1 if probes filter rows, 0 if they only skip scans */
	RF_PRIVATE_COLLECT,      /* Integer: 1 if the build keeps its key values (values.c) */
	RF_PRIVATE_FAMILIES,     /* OidList: each key's B-tree family (its order), or InvalidOid */
	RF_PRIVATE_SKIP_LINEAGE, /* OidList: a probe's scanned partition, then its ancestors, or NIL */
	RF_PRIVATE_SKIP_ATTNOS,  /* IntList: the keys' columns in that partition */
	RF_PRIVATE_SOURCE,       /* OidList: the bloomfilter index the filter is taken from, or NIL */
	RF_PRIVATE_SOURCE_KEY,   /* Integer: the key it holds (0-based), or -1 */
	RF_PRIVATE_NOT_SHIPPED,  /* String: why the postgres_fdw scan below a probe did not take
	                          * the filter (pushdown.c), or NIL */
	RF_PRIVATE_COUNT
} RuntimePrivate;

/* custom_private's Float n (a float8 Const). */
static inline double
bloom_rf_private_float(List *private, int n)
{
	Const *c = (Const *) list_nth(private, n);

	Assert(IsA(c, Const) && c->consttype == FLOAT8OID && !c->constisnull);
	return DatumGetFloat8(c->constvalue);
}

/* An IntList of column numbers (custom_private) as an array, in the current memory context. */
static inline AttrNumber *
bloom_rf_private_attnos(List *attnos)
{
	AttrNumber *out = palloc(Max(list_length(attnos), 1) * sizeof(AttrNumber));
	ListCell *lc;

	foreach (lc, attnos)
		out[foreach_current_index(lc)] = (AttrNumber) lfirst_int(lc);
	return out;
}

/* The plan methods (build.c, probe.c), registered in _PG_init: workers find them by name. */
extern const CustomScanMethods bloom_rf_build_plan_methods;
extern const CustomScanMethods bloom_rf_probe_plan_methods;
/* rangescan.c: the scan that reads only the block ranges a BRIN index gives */
extern const CustomScanMethods bloom_rf_scan_plan_methods;

/* ---- the planner's part: plan.c, cost.c, placement.c, plantree.c ---- */

/* Add filters to a finished plan (plan.c; from the planner hook). */
extern void bloom_rf_plan(PlannedStmt *stmt);

/* What the planner knows of one filter it adds. */
typedef struct RuntimePlanInfo
{
	int id;
	int nkeys;
	List *operators;  /* the join's hash operators (OidList) */
	List *collations; /* their collations (OidList) */
	Oid *families;    /* the hash operator family of each, or InvalidOid */
	Oid *orders;      /* the B-tree family of each (its order, for key values), or InvalidOid */
	bool stable;      /* the inner side gives the same rows at every scan */
	/* the cost model's figures (bloom_rf_cost_join) */
	double outer_rows;
	double inner_rows;
	double pass;        /* the fraction of outer rows expected to find a match */
	double table_bytes; /* the estimated size of the join's hash table */
	double saved;       /* what removing an outer row saves, in filter probes */
	double shared_keys; /* a Parallel Hash Join's shared filter is sized for these; else 0 */
	bool worthwhile;    /* the filter is expected to pay (or filters are forced) */
	/* shipping it into postgres_fdw scans (pushdown.c) */
	bool may_push;    /* the join does not read an outer row before its filter is built */
	int remote_param; /* the PARAM_EXEC carrying it, once a scan takes it; else -1 */
	int pushed;       /* scans it was pushed into */
	/* skipping scans by the build's key values (skip.c) */
	bool probe_rows; /* probes filter rows; false: a filter placed only to skip or ship */
	bool shared;     /* the build is a Parallel Hash Join's share: its values are partial */
	int skippable;   /* probes placed on scans of partitions that may be skipped */
	Oid last_parent; /* the partitioned table skip.c looked at last, and its answer */
	bool last_usable;
	int ranged; /* Seq Scans replaced by scans of block ranges (rangescan.c) */
	/* taken from a bloomfilter index rather than built (plan.c) */
	Oid source_index; /* the index, or InvalidOid */
	int source_key;   /* the key it holds (0-based), or -1 */
} RuntimePlanInfo;

/* Numbering of the new nodes and filters of one statement. */
typedef struct RuntimePlanContext
{
	PlannedStmt *stmt; /* the statement: its range table, its PARAM_EXEC types */
	int next_node_id;
	int next_filter_id;
	Index *parents; /* each range table entry's appendrel parent, or 0 (skip.c; NULL until asked) */
	List **lineages; /* each partitioned table's ancestry once worked out (skip.c), or NIL */
	int nparents;    /* entries of both */
} RuntimePlanContext;

/*
 * cost.c: fill info's cost figures for a filter on join (whose inner child
 * is the Hash node hash), and decide whether it is worthwhile.
 */
extern void bloom_rf_cost_join(const HashJoin *join, const Hash *hash, RuntimePlanInfo *info);

/* cost.c: the cost and rows of a node of ours (probe or build) over child. */
extern void bloom_rf_cost_node(Plan *node, const Plan *child, int nkeys, double pass, bool probe);

/*
 * cost.c: the price of a filter again, once its join's hash table is built
 * with table_bytes bytes: whether probing can pay at all, and if so what a
 * removed row saves (*saved).
 */
extern bool bloom_rf_cost_built_table(double table_bytes, double *saved);

/*
 * placement.c: put the probes of a filter into the outer side of its join,
 * whose top node is outer; keys are the join's outer keys.  Returns the node
 * that replaces outer.
 */
extern Plan *bloom_rf_place_probes(Plan *outer, List *keys, RuntimePlanInfo *info,
                                   RuntimePlanContext *ctx);

/*
 * pushdown.c: the remote query of scan, a foreign scan of one table whose
 * output columns cols are the keys, with the filter's test, or NULL if it
 * is not postgres_fdw's or its server or its keys do not allow it
 * (pushdown.c's header); then *why_not says why for a postgres_fdw scan,
 * for EXPLAIN (else NULL).  No side effect: callers may ask for several
 * scans before shipping to any.
 */
extern char *bloom_rf_remote_sql(ForeignScan *scan, const AttrNumber *cols,
                                 const RuntimePlanInfo *info, RuntimePlanContext *ctx,
                                 const char **why_not);

/*
 * remotekey.c: the remote SQL of a join key of a filter shipped into a
 * postgres_fdw scan: the local column var, col the remote column's SQL in
 * the filtering query, remote_type a scalar subquery of the remote
 * column's type's oid (read from the remote catalog), compared by the join
 * operator opno under
 * collation.  *hash is its 32-bit hash as the local probe computes it on
 * the value postgres_fdw makes of the remote value; *exact a condition
 * under which it is that (false for remote types whose value it does not
 * rebuild: then the row must pass).  Returns NULL, or why the key is not
 * shipped (remotekey.c's header).
 */
extern const char *bloom_rf_remote_key(const Var *var, const char *col, const char *remote_type,
                                       Oid opno, Oid collation, char **hash, char **exact);

/* pushdown.c: ship the filter into scan, whose remote query becomes sql (bloom_rf_remote_sql's). */
extern void bloom_rf_push_remote(ForeignScan *scan, char *sql, RuntimePlanInfo *info,
                                 RuntimePlanContext *ctx);

/*
 * pushdown.c: for a join whose filter was pushed, make sure the join does
 * not read an outer row (which opens the remote cursor) before its filter
 * is built.
 */
extern void bloom_rf_push_hold_outer(HashJoin *join, const Hash *hash);

/* placement.c: assert that every node of ours in the tree sits where it may. */
extern void bloom_rf_check_edges(Plan *plan);

/* plantree.c: call fn(child, arg) for every child plan of plan (read only). */
typedef void (*RuntimePlanWalker)(Plan *plan, void *arg);
extern void bloom_rf_walk_children(Plan *plan, RuntimePlanWalker fn, void *arg);

/* plantree.c: whether plan is one of our nodes (build or probe). */
extern bool bloom_rf_is_our_plan(const Plan *plan);

/*
 * plantree.c: whether a join type is one of the right joins (right, right
 * anti from 16, right semi from 18): its rows come from the inner side's
 * matches and unmatched inner rows, and outer rows that match nothing
 * are discarded.
 */
extern bool bloom_rf_is_right_join(JoinType jointype);

/*
 * plantree.c: whether expressions may be evaluated on other rows than the
 * plan evaluates them on: no volatile functions, no subqueries.
 */
extern bool bloom_rf_exprs_safe(List *exprs);

/*
 * plantree.c: whether a subtree returns the same rows at every scan (only
 * node types known to, with neither volatile functions nor subqueries).
 * Parameters are the caller's to check (allParam).
 */
extern bool bloom_rf_returns_same_rows(Plan *plan);

/*
 * plantree.c: a probe (or build) node over child, passing child's tuples
 * through, with keys over child's output (OUTER_VAR).
 */
extern Plan *bloom_rf_make_node(Plan *child, List *keys, const RuntimePlanInfo *info, bool probe,
                                RuntimePlanContext *ctx);

/*
 * plantree.c: like bloom_rf_make_node for a probe, on a scan of the
 * partition relid whose columns attnos (one per key) are the keys.
 */
extern Plan *bloom_rf_make_skipping_probe(Plan *child, List *keys, const RuntimePlanInfo *info,
                                          List *partition, const AttrNumber *attnos,
                                          RuntimePlanContext *ctx);

/*
 * rangescan.c: a BloomFilterScan to put in place of plan, the node a probe
 * would sit on (with neither volatile functions nor subqueries: the caller
 * checks), if plan is a (not parallel) Seq Scan of a table with a BRIN
 * index on one of the keys (cols: their columns in plan's output) that can
 * test it, or a B-tree index led by one, or of a partition that may be skipped (partition and attnos, as
 * bloom_rf_skip_target gives them; NIL if not); NULL if not.
 */
extern Plan *bloom_rf_range_target(Plan *plan, const AttrNumber *cols, const RuntimePlanInfo *info,
                                   RuntimePlanContext *ctx, List *partition,
                                   const AttrNumber *attnos);

/* ---- skipping scans (skip.c) ---- */

/*
 * planner: whether plan, the node a probe would sit on (with neither
 * volatile functions nor subqueries: the caller checks), scans a partition
 * whose bounds, at some level of its partitioned ancestors, are on one of
 * the keys (cols: the keys' columns in plan's output) in a way the build's
 * values can decide (skip.c's header); if so, *partition (the partition's
 * OID, then its ancestors', up to the root) and attnos (the keys' columns in
 * that partition, 0 for none) say where.
 */
extern bool bloom_rf_skip_target(Plan *plan, const AttrNumber *cols, RuntimePlanInfo *info,
                                 RuntimePlanContext *ctx, List **partition, AttrNumber *attnos);

/* ---- counts for EXPLAIN ANALYZE, across processes (counts.c) ---- */

/* What one process's node did. */
typedef struct RuntimeCounts
{
	/* probes */
	uint64 probed;      /* rows probed */
	uint64 removed;     /* rows removed */
	uint64 skipped;     /* rows passed unprobed (paused) */
	uint64 pauses;      /* times the switch paused */
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
	/* scans of partitions asked whether they may be skipped, and those skipped */
	uint64 scans_checked;
	uint64 scans_skipped;
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

/* Bytes of the counts for pcxt's workers. */
extern Size bloom_rf_counts_size(ParallelContext *pcxt);
/* Set up the counts in coordinate (the leader, at start and at a rescan). */
extern void bloom_rf_counts_init(RuntimeParallel *par, ParallelContext *pcxt, void *coordinate);
/* Use the counts in coordinate (a worker). */
extern void bloom_rf_counts_attach(RuntimeParallel *par, void *coordinate);
/* The size of the counts a worker attached to (bloom_rf_counts_size() of the leader's context). */
extern Size bloom_rf_counts_attached_size(const RuntimeParallel *par);
/* At shutdown: a worker leaves its counts, the leader collects the workers'. */
extern void bloom_rf_counts_shutdown(RuntimeParallel *par, const RuntimeCounts *mine);
/* The counts of every process, summed into *sum (which holds the leader's). */
extern void bloom_rf_counts_sum(const RuntimeParallel *par, RuntimeCounts *sum);
/* The build counts to show: the leader's if it built, else the first worker's that did. */
extern const RuntimeCounts *bloom_rf_counts_build(const RuntimeParallel *par,
                                                  const RuntimeCounts *mine);

/* ---- the filter (filter.c) ---- */

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
	List *operators;  /* the join's hash operators (OidList; the build node's plan's, read only) */
	List *collations; /* their collations (likewise) */

	size_t max_bytes; /* the largest this filter may be: the setting when it was made */
	uint32 *pending;  /* hashes of the current build, until it is finished */
	size_t npending;
	size_t pending_size;
	uint8 *bytes; /* the filter, once sized */
	bf_view view;

	/* shipped to postgres_fdw scans (pushdown.c) */
	int remote_param;   /* the PARAM_EXEC that carries it, or -1 */
	List *remote_scans; /* the scans' states (hooks.c), marked changed at a new build */

	/* shared (Parallel Hash Join) */
	double shared_keys; /* the shape of the shared filter; 0 if not shared */
	uint8 *shared;      /* its bytes, in shared memory, while attached */
	bf_view shared_view;
	bool checked; /* the shared filter's fill has been read */

	/*
	 * Taken from a bloomfilter index (source.h) rather than built: the build
	 * reads no key, and its finish takes the index's filter, a layered
	 * value (bytes is the bytea), whose probes hash key source_key as the
	 * index hashes (probe.c).  source_missing: the index could not serve
	 * at the last build (the filter is useless then).
	 */
	Oid source_index;
	int source_key;
	bool source_missing;

	/* the build's key values, for skipping scans (values.c); NULL if not kept */
	struct RuntimeValues *values;
	/* scans its probes asked about (all builds), and skipped: for EXPLAIN ANALYZE */
	uint64 scans_checked;
	uint64 scans_skipped;

	/* for EXPLAIN ANALYZE: the last build */
	uint64 keys;     /* keys added */
	uint64 builds;   /* builds started (rescans rebuild) */
	double build_ms; /* from the first inner row to the finished filter */
	double fill;     /* fraction of bits set */
	instr_time started;
	bool timing;
} RuntimeFilter;

/*
 * An empty filter, in the current memory context; shared_keys > 0 for a
 * shared one.  Its largest size is bloomfilter.runtime_filter_max_size now
 * (a parallel worker has its leader's settings, so both size it alike).
 */
extern void bloom_rf_filter_init(RuntimeFilter *f, int id, double shared_keys);

/* Forget the keys, for a new build (a rescan that rebuilds the hash table). */
extern void bloom_rf_filter_reset(RuntimeFilter *f);

/*
 * The filter comes from bloomfilter index (key: the join key it holds)
 * rather than from the inner rows (build_begin, before any build).
 */
extern void bloom_rf_filter_set_source(RuntimeFilter *f, Oid index, int key);

/* Add the key hash of one inner row. */
extern void bloom_rf_filter_add(RuntimeFilter *f, uint32 hash);

/*
 * The inner side is read: size and fill the filter, or take the index's
 * (source_index); it is then ready.
 */
extern void bloom_rf_filter_finish(RuntimeFilter *f);

/*
 * Whether a probe may filter now: the filter holds every inner key of the
 * join's current scan and is worth probing.  A private filter: it is ready
 * and the join's hash table of the current scan exists (so the build that
 * made the filter is the one the join probes).  A shared one: the join's
 * build barrier has passed the hashing of the inner side.
 */
extern bool bloom_rf_filter_usable(RuntimeFilter *f);

/*
 * Whether the build of the join's current scan is finished and its key
 * values (f->values) are whole: a private filter that is ready while the
 * join's hash table exists (a shared filter's values are one process's
 * share: never).  Unlike bloom_rf_filter_usable, a filter too full to probe
 * still has its values.
 */
extern bool bloom_rf_filter_built(RuntimeFilter *f);

/*
 * Whether a key may be in a filter taken from an index (bloom_rf_filter_usable()
 * first): its hash by the index's hashing (hash, bloom_index_source_probe_hash's)
 * with the filter's seed, computed in memory (the row's) that the caller
 * resets.
 */
static inline bool
bloom_rf_filter_may_contain_value(const RuntimeFilter *f, BloomIndexProbeHash *hash, Datum value,
                                  MemoryContext memory)
{
	MemoryContext old = MemoryContextSwitchTo(memory);
	uint64 h = DatumGetUInt64(
	    FunctionCall2Coll(&hash->fn, hash->collation, value, UInt64GetDatum(f->view.p.seed)));

	MemoryContextSwitchTo(old);
	Assert(OidIsValid(f->source_index) && f->shared == NULL);
	return bf_contains_hash(&f->view, h);
}

/* Whether a key hash may be in the filter (bloom_rf_filter_usable() first). */
static inline bool
bloom_rf_filter_may_contain(const RuntimeFilter *f, uint32 hash)
{
	return bf_contains_hash(f->shared ? &f->shared_view : &f->view, (uint64) hash);
}

/*
 * What EXPLAIN shows of this process's last build: its shape and fill (a
 * shared filter's as every participant left it), whether it is too full.
 * Fills the build fields of *counts.
 */
extern void bloom_rf_filter_describe(RuntimeFilter *f, RuntimeCounts *counts);

/*
 * The finished filter as a bytea (its serialized form) in the current
 * memory context, for a remote scan; NULL if it is not to be sent (shared,
 * useless, or larger than bloomfilter.runtime_filter_ship_max, by default
 * 4 MB: about 3.3 million keys).
 */
extern bytea *bloom_rf_filter_to_send(const RuntimeFilter *f);

/* Bytes of f's shared filter (f->shared_keys > 0). */
extern Size bloom_rf_filter_shared_size(const RuntimeFilter *f);

/* Set up the shared filter in mem (bloom_rf_filter_shared_size() bytes), empty (the leader). */
extern void bloom_rf_filter_shared_init(RuntimeFilter *f, void *mem);

/* Use the shared filter in mem (a worker, or the leader again at a rescan). */
extern void bloom_rf_filter_shared_attach(RuntimeFilter *f, void *mem);

/* Empty the shared filter again, for a rescan (the leader, workers not running). */
extern void bloom_rf_filter_shared_reset(RuntimeFilter *f);

/* Forget the shared memory (it is about to be released). */
extern void bloom_rf_filter_shared_detach(RuntimeFilter *f);

/* ---- the keys (keys.c) ---- */

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
 * Set up the keys of a node of ours: the key expressions (custom_exprs), the
 * hash function of each operator for the node's side (the left one for a
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

/* ---- the build's key values (values.c) ---- */

/*
 * Most distinct values kept per key: beyond them only the least and the
 * greatest are.  A hash partition's keys are all needed; a range or list
 * partition's bounds are also decided by the least and greatest.
 */
#define BLOOM_RF_EXACT_MAX 1024

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
	uint32 *hashes; /* each one's own hash (the join's hash function for the inner side) */
	int *slots;     /* open addressing on the hashes: index + 1 into exact, 0 free */
	Size bytes;     /* bytes of the values copied */
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
 * keeps nothing).
 */
extern RuntimeValues *bloom_rf_values_create(int nkeys, List *operators, List *collations,
                                             List *families);

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

/* Whether key i holds exactly its distinct values (none were dropped). */
extern bool bloom_rf_values_exact(const RuntimeValues *v, int i);

/*
 * cost.c, at run time: whether reading the rows of key values k (exact, at
 * least one) through B-tree index on column attno of heap costs less than
 * reading the whole table.  opno is the join operator (column against key),
 * under collation.  Fills *rows (expected), *by_index and *whole (costs).
 */
extern bool bloom_rf_cost_keys_by_index(Relation heap, Relation index, AttrNumber attno,
                                        const RuntimeKeyValues *k, Oid opno, Oid collation,
                                        double *rows, double *by_index, double *whole);

/* ---- reading the keys' rows through a B-tree (keyscan.c) ---- */

/* A BloomFilterScan's B-tree index and, once decided, its scan of the keys' rows. */
typedef struct RuntimeKeyScan
{
	Oid index_oid;         /* a B-tree whose leading column is a join key */
	MemoryContext context; /* the current decision's scan key and array of keys */
	bool have_key;         /* there is a key to look up */
	ScanKeyData key;       /* column = ANY(keys) */
	Relation index;        /* while scanning */
	struct IndexScanDescData *scan;
} RuntimeKeyScan;

typedef enum RuntimeKeyScanChoice
{
	KEYSCAN_READ,     /* read through the index (nothing, without have_key) */
	KEYSCAN_COSTLIER, /* reading the whole table costs less */
	KEYSCAN_TOO_MANY, /* more keys than are kept exactly */
} RuntimeKeyScanChoice;

/*
 * Whether the rows of k, the build's values of the index's key (the join
 * operator opno, under collation), are read through ks's index, which
 * costs less than reading heap; if so, ks's scan key is set.
 */
extern RuntimeKeyScanChoice bloom_rf_keyscan_decide(RuntimeKeyScan *ks, Relation heap,
                                                    const RuntimeKeyValues *k, Oid opno,
                                                    Oid collation);

/* Start the index scan of the decided keys (have_key), under snapshot. */
extern void bloom_rf_keyscan_begin(RuntimeKeyScan *ks, Relation heap, Snapshot snapshot);

/* End it, if started. */
extern void bloom_rf_keyscan_end(RuntimeKeyScan *ks);

/* The keys deparsed for EXPLAIN, "a, b". */
extern char *bloom_rf_keys_explain(CustomScanState *node, List *ancestors, struct ExplainState *es);

/* ---- the executor nodes: node.c, build.c, probe.c ---- */

/* What both nodes' states start with. */
typedef struct RuntimeNode
{
	CustomScanState css;
	RuntimeKeys keys;
	RuntimeParallel par;
	int filter_id;
} RuntimeNode;

/* node.c: a new state of size bytes (a RuntimeNode first) with these methods. */
extern Node *bloom_rf_node_create(Size size, const CustomExecMethods *methods);

/*
 * node.c: BeginCustomScan's common part: start the child, return its tuples
 * in its slots, set up the keys for the node's side, read the filter's id.
 */
extern void bloom_rf_node_begin(RuntimeNode *node, EState *estate, int eflags, bool outer_side);

/* node.c: EndCustomScan: end the child. */
extern void bloom_rf_node_end(CustomScanState *node);

/* node.c: rescan the child, unless its parameters changed (its next ExecProcNode does). */
extern void bloom_rf_node_rescan_child(CustomScanState *node);

/*
 * node.c: the counts' share of the node's shared memory (first, MAXALIGNed),
 * and the DSM methods of a node that shares nothing else.
 */
extern Size bloom_rf_node_dsm_size(CustomScanState *node, ParallelContext *pcxt);
extern void bloom_rf_node_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
extern void bloom_rf_node_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate);
/* node.c: the size of the counts' share a worker attached to (MAXALIGNed). */
extern Size bloom_rf_node_dsm_attached_size(CustomScanState *node);

/* build.c: whether a state is a build node's, and its filter. */
extern bool bloom_rf_is_build(PlanState *ps);
extern RuntimeFilter *bloom_rf_build_filter(PlanState *build);

/* rangescan.c: whether a state is a BloomFilterScan's; give it the filter if the numbers match. */
extern bool bloom_rf_is_range_scan(PlanState *ps);
extern void bloom_rf_range_scan_attach(PlanState *ps, RuntimeFilter *filter);

/* probe.c: whether a state is a probe's; give it the filter if the numbers match. */
extern bool bloom_rf_is_probe(PlanState *ps);
extern void bloom_rf_probe_attach(PlanState *probe, RuntimeFilter *filter);

/*
 * skip.c: the join's hash function for the outer side of a join on one key,
 * and its collation: a list partition's values are probed in the filter
 * with it.
 */
typedef struct RuntimeOuterHash
{
	FmgrInfo fn;
	Oid collation;
} RuntimeOuterHash;

/*
 * skip.c: whether a partition (partition: its OID, then its ancestors') may
 * hold a row whose keys (its columns attnos) the finished build holds
 * (bloom_rf_filter_built first): false when the bounds of some level of its
 * partitioned ancestors hold no built key.  outer, for a join on one key,
 * lets a list partition's values be probed in the Bloom filter; NULL
 * otherwise.  *scratch is the caller's memory context for what a decision
 * allocates (made at the first decision, under the current one; reset after
 * each), so that a join rebuilt many times does not grow its memory.
 */
extern bool bloom_rf_partition_may_hold(List *partition, const AttrNumber *attnos,
                                        RuntimeFilter *filter, RuntimeOuterHash *outer,
                                        List *operators, List *collations, MemoryContext *scratch);

#endif /* BLOOM_RUNTIME_H */
