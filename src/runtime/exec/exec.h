/*
 * exec.h
 *	  The executor room: the custom scan nodes of runtime filters.
 *
 *	 node.c    what the build and the probe share: start, end, rescan, DSM
 *	 build.c   BloomFilterBuild, under the Hash node: fills the filter
 *	 probe.c   BloomFilterProbe, on the outer side: drops rows, skips a partition
 *	 scan.c    BloomFilterScan, in place of a Seq Scan: skips partitions,
 *	           block ranges, or reads the keys' rows through a B-tree
 *	 counts.c  the nodes' counts across parallel processes, for EXPLAIN
 *	 passthrough.c  BloomFilterCosted, the plan of the join search's marker
 *	           path (paths/), run only if the planner's pass left it in
 *
 * The planner room makes the plan nodes (their methods are here, found by
 * name by parallel workers) and what they are told (private.h); the
 * module's executor-start hook (hooks.c) gives each probe and scan its
 * build's filter.  Above the filter and skip rooms; it never calls the
 * planner room.
 */
#ifndef BLOOM_RT_EXEC_H
#define BLOOM_RT_EXEC_H

#include "../filter/filter.h"

#include "nodes/extensible.h"

#define BLOOM_RF_BUILD_NAME "BloomFilterBuild"
#define BLOOM_RF_PROBE_NAME "BloomFilterProbe"
#define BLOOM_RF_SCAN_NAME "BloomFilterScan"
#define BLOOM_RF_COSTED_NAME "BloomFilterCosted"

/* The plan methods, registered in _PG_init: workers find them by name. */
extern const CustomScanMethods bloom_rf_build_plan_methods;
extern const CustomScanMethods bloom_rf_probe_plan_methods;
extern const CustomScanMethods bloom_rf_scan_plan_methods;
extern const CustomScanMethods bloom_rf_costed_plan_methods;

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
	/* builds: the last build (the filter's facts) */
	RuntimeFilterFacts build;
	/* scans of partitions asked whether they may be skipped, and those skipped (probes) */
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

/* ---- what the build and the probe share (node.c) ---- */

/* What both nodes' states start with. */
typedef struct RuntimeNode
{
	CustomScanState css;
	RuntimeKeys keys;
	RuntimeParallel par;
	int filter_id;
} RuntimeNode;

/* A new state of size bytes (a RuntimeNode first) with these methods. */
extern Node *bloom_rf_node_create(Size size, const CustomExecMethods *methods);

/*
 * BeginCustomScan's common part: start the child, return its tuples in its
 * slots, set up the keys for the node's side, read the filter's id.
 */
extern void bloom_rf_node_begin(RuntimeNode *node, EState *estate, int eflags, bool outer_side);

/* EndCustomScan: end the child. */
extern void bloom_rf_node_end(CustomScanState *node);

/* Rescan the child, unless its parameters changed (its next ExecProcNode does). */
extern void bloom_rf_node_rescan_child(CustomScanState *node);

/*
 * The counts' share of the node's shared memory (first, MAXALIGNed), and
 * the DSM methods of a node that shares nothing else.
 */
extern Size bloom_rf_node_dsm_size(CustomScanState *node, ParallelContext *pcxt);
extern void bloom_rf_node_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
extern void bloom_rf_node_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate);
/* The size of the counts' share a worker attached to (MAXALIGNed). */
extern Size bloom_rf_node_dsm_attached_size(CustomScanState *node);

/* ---- wiring at executor start (hooks.c) ---- */

/* Whether a state is a build node's, and its filter. */
extern bool bloom_rf_is_build(PlanState *ps);
extern RuntimeFilter *bloom_rf_build_filter(PlanState *build);

/*
 * A build's remote parameter (the PARAM_EXEC shipping its filter into
 * postgres_fdw scans), or -1; and a remote scan whose plan reads it: a
 * rebuild makes it send its query again.
 */
extern int bloom_rf_build_remote_param(PlanState *build);
extern void bloom_rf_build_add_remote_scan(PlanState *build, PlanState *scan);

/* Whether a state is a probe's; give it the filter if the numbers match. */
extern bool bloom_rf_is_probe(PlanState *ps);
extern void bloom_rf_probe_attach(PlanState *probe, RuntimeFilter *filter);

/* Whether a state is a BloomFilterScan's; give it the filter if the numbers match. */
extern bool bloom_rf_is_scan(PlanState *ps);
extern void bloom_rf_scan_attach(PlanState *ps, RuntimeFilter *filter);

#endif /* BLOOM_RT_EXEC_H */
