/*
 * exec.h
 *	  The executor room: the custom scan nodes of runtime filters.
 *
 *	 node.c    what the build and the probe share: start, end, rescan, DSM
 *	 build.c   BloomFilterBuild, under the Hash node: fills the filter
 *	 probe.c   BloomFilterProbe, on the outer side: drops rows, skips a partition
 *	 scan.c    BloomFilterScan, in place of a Seq Scan: skips partitions,
 *	           block ranges, or reads the keys' rows through a B-tree
 *	 scanshare.c  ... in place of a Parallel Seq Scan: what its processes
 *	           share (how they read, what each claims, their counts)
 *	 counts.c  the nodes' counts across parallel processes, for EXPLAIN
 *	 appendskip.c  a Parallel Append hands out no subplan the build excludes
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
#include "../skip/skip.h"

#include "access/relscan.h"
#include "nodes/extensible.h"

struct ExplainState;

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

/* ---- a BloomFilterScan's counts, and what a parallel one shares (scanshare.c) ---- */

/* How one scan of a BloomFilterScan read, counted for EXPLAIN. */
typedef enum RuntimeScanOutcome
{
	OUT_BY_RANGES,   /* runs of blocks read */
	OUT_NOT_BUILT,   /* the whole table: the filter was not built (or keeps no values) */
	OUT_BRIN_WHOLE,  /* the whole table: as the BRIN room says (brin_why) */
	OUT_BTREE_WHOLE, /* the whole table: as the B-tree room says (btree_why), no BRIN index */
	OUT_NO_INDEX,    /* the whole table: a partition's scan not skipped, no index */
	OUT_SKIPPED,     /* nothing read: the partition was skipped */
	OUT_BY_BTREE,    /* the keys' rows read through the B-tree */
	OUTCOMES
} RuntimeScanOutcome;

/* What one process's BloomFilterScan did, over every scan (EXPLAIN ANALYZE). */
typedef struct RuntimeScanCounts
{
	uint64 scans;
	uint64 outcomes[OUTCOMES];
	uint64 brin_whole[BRIN_CHOICES];     /* OUT_BRIN_WHOLE's, by reason */
	uint64 btree_whole[KEYSCAN_CHOICES]; /* OUT_BTREE_WHOLE's, by reason */
	uint64 blocks_read;                  /* blocks of the runs (or ranges claimed) read */
	uint64 blocks;                       /* blocks of the table (or of the ranges claimed) */
	uint64 btree_keys;         /* keys looked up in the B-tree by the last scan through it */
	uint64 partitions_checked; /* whether the partition may be skipped: asked, and skipped */
	uint64 partitions_skipped;
	uint64 claims;   /* block ranges or buckets of keys this process claimed (parallel) */
	uint64 followed; /* parallel scans read as another process decided, not as this one */
} RuntimeScanCounts;

/*
 * How the processes of a parallel BloomFilterScan read the table, as the
 * first of them to start decided (scanshare.c's header).
 */
typedef enum RuntimeScanKind
{
	SCAN_KIND_UNDECIDED,
	SCAN_KIND_WHOLE,  /* PostgreSQL's parallel heap scan */
	SCAN_KIND_RANGES, /* block ranges claimed one by one, each read or not by its claimer */
	SCAN_KIND_KEYS,   /* buckets of keys claimed one by one, looked up in the B-tree */
} RuntimeScanKind;

typedef struct RuntimeScanShared RuntimeScanShared;

/*
 * What a BloomFilterScan reads with, for its current scan: alone (scan.c),
 * or as its share of a parallel scan's (shared; scanshare.c).
 */
typedef struct RuntimeScanReader
{
	TableScanDesc scan;       /* the heap scan (whole, or by TID ranges), or NULL */
	bool by_ranges;           /* scan reads runs of blocks (ranges claimed), else the whole table */
	RuntimeBlockRuns runs;    /* this process's runs (skip/brinranges.c) */
	int run;                  /* the run being read (a parallel scan: the one walked to) */
	RuntimeKeyScan btree;     /* index_oid InvalidOid: no B-tree (skip/btreekeys.c) */
	RuntimeScanCounts counts; /* this process's, over every scan */
	/* a parallel scan's: shared is NULL if it runs alone */
	RuntimeScanShared *shared;
	RuntimeScanKind kind;   /* as agreed, for the current scan */
	bool read_all;          /* SCAN_KIND_RANGES: every range claimed is read */
	BlockNumber par_blocks; /* SCAN_KIND_RANGES: the decider's table length */
	BlockNumber per_range;  /* and blocks per range */
	uint32 nranges;
	uint32 nbuckets; /* SCAN_KIND_KEYS */
} RuntimeScanReader;

/* Bytes of the shared state for pcxt's workers, with rel's parallel heap scan under snapshot. */
extern Size bloom_rf_scanshare_size(Relation rel, Snapshot snapshot, ParallelContext *pcxt);
/* Set it up in coordinate (the leader, at executor start), undecided. */
extern RuntimeScanShared *bloom_rf_scanshare_init(void *coordinate, Relation rel, Snapshot snapshot,
                                                  ParallelContext *pcxt);
/* Undecided again, for a rescan of Gather (the leader, workers not running). */
extern void bloom_rf_scanshare_reinit(RuntimeScanShared *sh, Relation rel);
/* The leader's state, to a worker. */
extern RuntimeScanShared *bloom_rf_scanshare_attach(void *coordinate);

/*
 * Start this process's share of a parallel scan of rel (rd->shared set)
 * that it decided to read as why says (not skipped: that claims nothing),
 * with rd->runs for OUT_BY_RANGES and rd->btree for OUT_BY_BTREE; k: the
 * build's values of the B-tree's key, or NULL.  rd->scan, or rd->btree's
 * scan, is left started if this process has something to read.
 */
extern void bloom_rf_scanshare_start(RuntimeScanReader *rd, Relation rel, Snapshot snapshot,
                                     RuntimeScanOutcome why, const RuntimeKeyValues *k);
/* SCAN_KIND_RANGES: the next range this process claims and reads, [*from, *to]; false if none. */
extern bool bloom_rf_scanshare_next_range(RuntimeScanReader *rd, ItemPointer from, ItemPointer to);
/* SCAN_KIND_KEYS: the next bucket of k this process claims, set as the B-tree's key; false if none. */
extern bool bloom_rf_scanshare_next_bucket(RuntimeScanReader *rd, const RuntimeKeyValues *k);

/* Add one process's (or run's) counts to *sum (counts.c). */
extern void bloom_rf_scan_counts_add(RuntimeScanCounts *sum, const RuntimeScanCounts *c);

/*
 * EXPLAIN ANALYZE of a BloomFilterScan (counts.c): what every process read,
 * summed, and under VERBOSE each worker's part (the leader's is the rest),
 * as PostgreSQL shows its nodes' per-worker figures.
 */
struct RuntimeScanPrivate;
extern void bloom_rf_scan_counts_explain(const struct RuntimeScanPrivate *plan,
                                         const RuntimeScanCounts *leader,
                                         const RuntimeScanCounts *workers, int nworkers,
                                         struct ExplainState *es);

/*
 * At shutdown: a worker adds its counts to its slot (a rescan of Gather
 * starts new workers: the slots sum every run's); the leader copies the
 * slots into *workers (palloc'd in the current memory, *nworkers of them).
 */
extern void bloom_rf_scanshare_counts(RuntimeScanShared *sh, const RuntimeScanCounts *mine,
                                      RuntimeScanCounts **workers, int *nworkers);

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

/*
 * A Parallel Append armed for this build's filter (bloom_rf_append_arm):
 * armed again when the Gather above starts again (the build's shared
 * memory is set up again then).
 */
extern void bloom_rf_build_add_append(PlanState *build, PlanState *append);

/* Whether a state is a probe's; give it the filter if the numbers match. */
extern bool bloom_rf_is_probe(PlanState *ps);
extern void bloom_rf_probe_attach(PlanState *probe, RuntimeFilter *filter);

/* Whether a state is a BloomFilterScan's; give it the filter if the numbers match. */
extern bool bloom_rf_is_scan(PlanState *ps);
extern void bloom_rf_scan_attach(PlanState *ps, RuntimeFilter *filter);

/*
 * Whether the partition a probe (ps, a probe's state) or a BloomFilterScan
 * (a scan's) reads can hold no key of its filter's current build: what the
 * node itself decides before its first row, once per build; false until
 * the build is finished, and for a node that skips no partition.
 */
extern bool bloom_rf_probe_excludes(PlanState *ps);
extern bool bloom_rf_scan_excludes(PlanState *ps);

/*
 * A Parallel Append (ps, parallel-aware) on a join's outer side whose
 * subplans are such nodes: at its first row in this process, the subplans
 * its build's keys exclude are marked done for every process
 * (appendskip.c).  Called at executor start (hooks.c), after the nodes
 * below have their filters, and when its Gather starts again (the build's
 * ReInitializeDSM).  False if it is not armed: none of its subplans is
 * such a node, or the version's Parallel Append is not known.
 */
extern bool bloom_rf_append_arm(PlanState *ps);

#endif /* BLOOM_RT_EXEC_H */
