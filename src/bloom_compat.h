/*
 * bloom_compat.h
 *	  Every difference between the PostgreSQL versions the extension builds
 *	  against, in one place.
 *
 * It includes postgres.h, and every header of the PostgreSQL layer starts
 * with it; no other file tests PG_VERSION_NUM.  The code is written for
 * PostgreSQL 15 to 18; 15, 17 and 18 are tested (tools/run.sh test).  16 is
 * covered by the same conditionals as 17 but no package of it is reachable
 * from the machines the suite runs on, so it is not tested.
 */
#ifndef BLOOM_COMPAT_H
#define BLOOM_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "bloomfilter requires PostgreSQL 15 or later"
#endif

/* 16 moved VARDATA, VARSIZE and the varattrib_* structs out of postgres.h. */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 18 replaced the pg_attribute_noreturn() suffix with a pg_noreturn prefix.
 * Earlier versions' suffix expands to an attribute (gcc, clang) or a
 * declspec (MSVC) that is also valid in front of a declaration, so the new
 * spelling serves every version.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

/*
 * 17 added infinite intervals: earlier versions' interval input rejects
 * 'infinity', which a remote server of 17 or later may send (remotekey.c).
 */
#if PG_VERSION_NUM >= 170000
#define BLOOM_READS_INFINITE_INTERVALS 1
#else
#define BLOOM_READS_INFINITE_INTERVALS 0
#endif

/* Join types: 16 added right anti joins, 18 right semi joins. */
#if PG_VERSION_NUM >= 160000
#define BLOOM_HAS_RIGHT_ANTI
#endif
#if PG_VERSION_NUM >= 180000
#define BLOOM_HAS_RIGHT_SEMI
#endif

/*
 * 18 counts disabled nodes in each plan node (EXPLAIN shows "Disabled" where
 * a node has more than its children); a node we put above child copies it.
 */
#if PG_VERSION_NUM >= 180000
#define bloom_copy_disabled_nodes(plan, child) ((plan)->disabled_nodes = (child)->disabled_nodes)
#else
#define bloom_copy_disabled_nodes(plan, child) ((void) 0)
#endif

/* 18 counts disabled nodes, also in add_path_precheck (runtime/paths/joinpaths.c). */
#if PG_VERSION_NUM >= 180000
#define bloom_add_path_precheck(rel, ws, pathkeys, required_outer)                       \
	add_path_precheck((rel), (ws)->disabled_nodes, (ws)->startup_cost, (ws)->total_cost, \
	                  (pathkeys), (required_outer))
#else
#define bloom_add_path_precheck(rel, ws, pathkeys, required_outer) \
	add_path_precheck((rel), (ws)->startup_cost, (ws)->total_cost, (pathkeys), (required_outer))
#endif
#if PG_VERSION_NUM >= 180000
#define bloom_add_partial_path_precheck(rel, ws, pathkeys) \
	add_partial_path_precheck((rel), (ws)->disabled_nodes, (ws)->total_cost, (pathkeys))
#else
#define bloom_add_partial_path_precheck(rel, ws, pathkeys) \
	add_partial_path_precheck((rel), (ws)->total_cost, (pathkeys))
#endif

/*
 * 16 let a custom scan choose its scan slot's kind (CustomScanState.slotOps,
 * set when the state is created); 15 always gives a virtual slot, which a
 * scan of a table must replace with the table's own kind (src/runtime/exec/scan.c).
 */
#if PG_VERSION_NUM >= 160000
#define bloom_custom_scan_set_slot_ops(css, ops) ((css)->slotOps = (ops))
#else
#define bloom_custom_scan_set_slot_ops(css, ops) ((void) (ops))
#endif

/* 16 renamed the phases of a Parallel Hash Join's build barrier (same numbers). */
#if PG_VERSION_NUM >= 160000
#define BLOOM_PHJ_BUILD_HASH_OUTER PHJ_BUILD_HASH_OUTER
#else
#define BLOOM_PHJ_BUILD_HASH_OUTER PHJ_BUILD_HASHING_OUTER
#endif

/*
 * 18 split EXPLAIN's API out of commands/explain.h: ExplainState into
 * explain_state.h, the ExplainProperty* functions into explain_format.h.
 * Files include them by these names (#include BLOOM_EXPLAIN_STATE_H).
 */
#if PG_VERSION_NUM >= 180000
#define BLOOM_EXPLAIN_STATE_H "commands/explain_state.h"
#define BLOOM_EXPLAIN_FORMAT_H "commands/explain_format.h"
#else
#define BLOOM_EXPLAIN_STATE_H "commands/explain.h"
#define BLOOM_EXPLAIN_FORMAT_H "commands/explain.h"
#endif

/*
 * An index scan's setup, a bitmap index scan's, and the walk over the
 * blocks of a bitmap: 18 added index_beginscan's and
 * index_beginscan_bitmap's instrumentation argument and made the
 * private iterator a type of its own, filling a result the caller owns.
 */
#include "access/genam.h"
#include "nodes/tidbitmap.h"

#if PG_VERSION_NUM >= 180000
#define bloom_index_beginscan(heap, index, snapshot, nkeys) \
	index_beginscan((heap), (index), (snapshot), NULL, (nkeys), 0)
#define bloom_index_beginscan_bitmap(index, snapshot, nkeys) \
	index_beginscan_bitmap((index), (snapshot), NULL, (nkeys))
typedef TBMPrivateIterator BloomBitmapIterator;
#define bloom_bitmap_begin(tbm) tbm_begin_private_iterate(tbm)
#define bloom_bitmap_end(it) tbm_end_private_iterate(it)
static inline bool
bloom_bitmap_next(BloomBitmapIterator *it, BlockNumber *block)
{
	TBMIterateResult result;

	if (!tbm_private_iterate(it, &result))
		return false;
	*block = result.blockno;
	return true;
}
#else
#define bloom_index_beginscan(heap, index, snapshot, nkeys) \
	index_beginscan((heap), (index), (snapshot), (nkeys), 0)
#define bloom_index_beginscan_bitmap(index, snapshot, nkeys) \
	index_beginscan_bitmap((index), (snapshot), (nkeys))
typedef TBMIterator BloomBitmapIterator;
#define bloom_bitmap_begin(tbm) tbm_begin_iterate(tbm)
#define bloom_bitmap_end(it) tbm_end_iterate(it)
static inline bool
bloom_bitmap_next(BloomBitmapIterator *it, BlockNumber *block)
{
	TBMIterateResult *result = tbm_iterate(it);

	if (result == NULL)
		return false;
	*block = result->blockno;
	return true;
}
#endif

/* 16 renamed the statistics' count of a table's live rows (bloom_index_info). */
#if PG_VERSION_NUM >= 160000
#define BLOOM_STAT_LIVE_TUPLES(entry) ((entry)->live_tuples)
#else
#define BLOOM_STAT_LIVE_TUPLES(entry) ((entry)->n_live_tuples)
#endif

/* 16 renamed a relation's file's identity (RelFileNode to RelFileLocator). */
#if PG_VERSION_NUM >= 160000
#define BLOOM_REL_FILENUMBER(rel) ((rel)->rd_locator.relNumber)
#define BLOOM_REL_FILE(rel) ((rel)->rd_locator)
#else
#define BLOOM_REL_FILENUMBER(rel) ((rel)->rd_node.relNode)
#define BLOOM_REL_FILE(rel) ((rel)->rd_node)
#endif

/* 16 made a buffer's tag a function's work, on a RelFileLocator (runtime/cost.c). */
#if PG_VERSION_NUM >= 160000
#define bloom_buffer_tag_init(tag, rel, block) \
	InitBufferTag((tag), &BLOOM_REL_FILE(rel), MAIN_FORKNUM, (block))
#else
#define bloom_buffer_tag_init(tag, rel, block) \
	INIT_BUFFERTAG(*(tag), BLOOM_REL_FILE(rel), MAIN_FORKNUM, (block))
#endif

/*
 * Code run as a table's owner (bloom_index_verify evaluates the index's
 * expressions): 17 also restricts the search_path of such code, as its
 * maintenance commands do.
 */
#if PG_VERSION_NUM >= 170000
#include "catalog/namespace.h"
#define BLOOM_RESTRICT_SEARCH_PATH() RestrictSearchPath()
#else
#define BLOOM_RESTRICT_SEARCH_PATH() ((void) 0)
#endif

/*
 * A rebuild of an index's filter (index/amrebuild.c) pauses as VACUUM does
 * (18 added whether it is ANALYZE's), and is for the table's owner (16 made
 * ownership checks one function for every kind of object).
 */
#if PG_VERSION_NUM >= 180000
#define BLOOM_VACUUM_DELAY_POINT() vacuum_delay_point(false)
#else
#define BLOOM_VACUUM_DELAY_POINT() vacuum_delay_point()
#endif
/*
 * A rebuild outside VACUUM (bloom_index_rebuild) throttled as a manual
 * VACUUM is, by vacuum_cost_delay and vacuum_cost_limit: 16 keeps the
 * active values apart from the settings (VacuumUpdateCosts copies them);
 * 15 reads the settings.  Begin saves the accounting's state and end puts
 * it back, so that a call inside a VACUUM or ANALYZE (an index expression
 * of theirs calling it) leaves theirs as it was; inside one whose pacing
 * is on, the call is paced by it.
 */
#include "commands/vacuum.h"
#include "miscadmin.h"

typedef struct BloomVacuumCosts
{
	bool active;
	int balance;
#if PG_VERSION_NUM >= 160000
	double delay;
	int limit;
#endif
} BloomVacuumCosts;

static inline void
bloom_vacuum_costs_begin(BloomVacuumCosts *saved)
{
	saved->active = VacuumCostActive;
	saved->balance = VacuumCostBalance;
#if PG_VERSION_NUM >= 160000
	saved->delay = vacuum_cost_delay;
	saved->limit = vacuum_cost_limit;
#endif
	if (saved->active)
		return;
#if PG_VERSION_NUM >= 160000
	VacuumUpdateCosts();
#else
	VacuumCostActive = (VacuumCostDelay > 0);
#endif
	VacuumCostBalance = 0;
}

static inline void
bloom_vacuum_costs_end(const BloomVacuumCosts *saved)
{
	/* inside a paced VACUUM nothing was changed: its balance goes on as the rebuild left it */
	if (saved->active)
		return;
	VacuumCostActive = saved->active;
	VacuumCostBalance = saved->balance;
#if PG_VERSION_NUM >= 160000
	vacuum_cost_delay = saved->delay;
	vacuum_cost_limit = saved->limit;
#endif
}
#if PG_VERSION_NUM >= 160000
#define BLOOM_OWNS_TABLE(relid) object_ownercheck(RelationRelationId, (relid), GetUserId())
#else
#define BLOOM_OWNS_TABLE(relid) pg_class_ownercheck((relid), GetUserId())
#endif

/*
 * The count of completed transactions that GetSnapshotData reuses a
 * snapshot by, and this backend's local transaction id: 17 renamed the
 * shared variables (ShmemVariableCache to TransamVariables) and put the
 * lxid into PGPROC's vxid.
 */
#include "access/transam.h"
#include "storage/proc.h"
#if PG_VERSION_NUM >= 170000
#define BLOOM_XACT_COMPLETIONS() (TransamVariables->xactCompletionCount)
#define BLOOM_MY_LXID() (MyProc->vxid.lxid)
#else
#define BLOOM_XACT_COMPLETIONS() (ShmemVariableCache->xactCompletionCount)
#define BLOOM_MY_LXID() (MyProc->lxid)
#endif

/*
 * nodeAppend.c keeps its ParallelAppendState (a Parallel Append's shared
 * state) to itself.  Its layout has been the same from 11 to 18 (read in
 * 15's, 17's and 18's sources); it is declared here for the versions it is
 * known in, where exec/appendskip.c marks subplans done in it.  A later
 * version leaves BLOOM_PARALLEL_APPEND_KNOWN undefined, and its Parallel
 * Appends unmarked, until its source has been read.
 */
#if PG_VERSION_NUM < 190000
#include "storage/lwlock.h"
#define BLOOM_PARALLEL_APPEND_KNOWN 1
typedef struct BloomParallelAppendState
{
	LWLock pa_lock;                          /* taken to choose a subplan */
	int pa_next_plan;                        /* the next subplan to hand out */
	bool pa_finished[FLEXIBLE_ARRAY_MEMBER]; /* done: never handed out again */
} BloomParallelAppendState;
#endif

/*
 * The subplans an Append's run-time partition pruning keeps, from its
 * PARAM_EXEC parameters: 18 added an argument, for the kept range table
 * indexes of its initial pruning.
 */
#if PG_VERSION_NUM >= 180000
#define BLOOM_EXEC_MATCHING_SUBPLANS(prune_state) \
	ExecFindMatchingSubPlans((prune_state), false, NULL)
#else
#define BLOOM_EXEC_MATCHING_SUBPLANS(prune_state) ExecFindMatchingSubPlans((prune_state), false)
#endif

#endif /* BLOOM_COMPAT_H */
