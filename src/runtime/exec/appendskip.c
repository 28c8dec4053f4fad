/*
 * appendskip.c
 *	  A Parallel Append over partitions that a build may skip: the subplans
 *	  the build's keys exclude are marked done in the Append's shared state
 *	  before this process picks its first subplan, so that no process is
 *	  handed one.
 *
 * Each scan of a partition (a probe on it, or a BloomFilterScan) decides
 * for itself, once per build, whether the build leaves it nothing (probe.c,
 * scan.c).  Under a Parallel Append that decision was taken again by every
 * process handed the subplan, and a partial subplan (a Parallel Seq Scan's)
 * is handed to every process in turn: each started it, decided, and found
 * nothing.  PostgreSQL's own run-time pruning marks the subplans it prunes
 * as finished in the Append's shared state (nodeAppend.c,
 * mark_invalid_subplans_as_finished), and a subplan marked so is never
 * handed out; this marks the subplans the build excludes the same way.
 *
 * The Append's ExecProcNode is interposed at executor start (hooks.c, in
 * the leader and in each worker), and again in the leader when its Gather
 * starts again (the build's ReInitializeDSM, build.c).  At the Append's
 * first row in a process, before the process picks a subplan, it asks
 * each subplan not yet finished whether the build excludes it, marks those
 * that are under the Append's lock, and gives the Append back its own
 * ExecProcNode.  A process that comes after another has marked asks only
 * the subplans left, whose scans remember the answer for this build.  Only
 * the subplans that run-time partition pruning keeps are asked (it prunes
 * at the first pick, after this, by the same parameters).
 *
 * The Append's shared state is nodeAppend.c's own; its layout is declared
 * in bloom_compat.h for the versions it is known in, and that version gate
 * is what guards it: the leader also checks the size it gave the state
 * (pstate_len), which a worker does not know.  Giving the Append back its
 * own ExecProcNode at the first row would drop another module's wrapper
 * put on after this one's (none is known to do so).
 *
 * Marking is only ever an optimization: a subplan that is handed out
 * decides for itself, as before.  A mark is never stale: a Parallel Append
 * runs once per start of its Gather, whose rescans clear the marks
 * (ExecAppendReInitializeDSM) and start new workers, and a subplan is
 * marked only for the build its scan reads, once that build is finished
 * (the join builds before it reads its outer side: plan.c; a process that
 * finds the build unfinished at its first row marks nothing).
 */
#include "exec.h"

#include "executor/execPartition.h"
#include "executor/executor.h"
#include "miscadmin.h"

#ifdef BLOOM_PARALLEL_APPEND_KNOWN

/* The Append's own ExecProcNode (nodeAppend.c's ExecAppend), seen at the first arming. */
static ExecProcNodeMtd append_exec_own;

static TupleTableSlot *append_first_row(PlanState *ps);
static void mark_excluded(AppendState *append, BloomParallelAppendState *shared);
static bool excluded(PlanState *subplan);
static bool has_skipping_subplan(AppendState *append);

bool
bloom_rf_append_arm(PlanState *ps)
{
	AppendState *append = castNode(AppendState, ps);

	Assert(ps->plan->parallel_aware);
	if (ps->ExecProcNodeReal == append_first_row)
		return true;
	if (!has_skipping_subplan(append))
		return false;
	/* (another module's function in its place: leave it alone) */
	if (append_exec_own == NULL)
		append_exec_own = ps->ExecProcNodeReal;
	else if (ps->ExecProcNodeReal != append_exec_own)
		return false;
	ExecSetExecProcNode(ps, append_first_row);
	return true;
}

/* Whether some subplan of the Append is a node of ours that may skip its partition. */
static bool
has_skipping_subplan(AppendState *append)
{
	for (int i = 0; i < append->as_nplans; i++)
	{
		PlanState *sub = append->appendplans[i];

		if (sub != NULL && (bloom_rf_is_probe(sub) || bloom_rf_is_scan(sub)))
			return true;
	}
	return false;
}

/*
 * Whether the build excludes subplan: a probe or a BloomFilterScan whose
 * partition it excludes, or a probe (of another join's filter) right above
 * such a node.
 */
static bool
excluded(PlanState *subplan)
{
	for (PlanState *ps = subplan; ps != NULL; ps = outerPlanState(ps))
	{
		if (bloom_rf_is_scan(ps))
			return bloom_rf_scan_excludes(ps);
		if (!bloom_rf_is_probe(ps))
			return false;
		if (bloom_rf_probe_excludes(ps))
			return true;
	}
	return false;
}

/*
 * The Append's first row in this process: mark the subplans the build
 * excludes done (the header), then go on as the Append, from now on
 * without this.
 */
static TupleTableSlot *
append_first_row(PlanState *ps)
{
	AppendState *append = castNode(AppendState, ps);
	BloomParallelAppendState *shared = (BloomParallelAppendState *) append->as_pstate;

	ExecSetExecProcNode(ps, append_exec_own);
	/*
	 * (NULL: run without parallel mode, nothing shared.  The leader knows
	 * the size it gave the state, pstate_len; a worker does not: 0)
	 */
	if (shared != NULL &&
	    (append->pstate_len == 0 ||
	     append->pstate_len == add_size(offsetof(BloomParallelAppendState, pa_finished),
	                                    sizeof(bool) * append->as_nplans)))
		mark_excluded(append, shared);
	return append_exec_own(ps);
}

/*
 * Mark done in shared the subplans of append not done yet that the build
 * excludes.  Decided without the Append's lock, which holds interrupts off
 * and every other process at the Append: a decision may wait (for a lock
 * on a partitioned table, for the shared build's filter) and must stay
 * cancelable.  Processes that come at once may each decide the same
 * subplans, alike; each marks before it picks one, so none is handed out.
 */
static void
mark_excluded(AppendState *append, BloomParallelAppendState *shared)
{
	int nplans = append->as_nplans;
	bool *done = palloc(sizeof(bool) * nplans);
	PartitionPruneState *pruning = append->as_prune_state;
	bool pruned = pruning != NULL && pruning->do_exec_prune;
	/* (pruning at run time: only the subplans it will keep are asked) */
	Bitmapset *kept = pruned ? BLOOM_EXEC_MATCHING_SUBPLANS(pruning) : NULL;
	Bitmapset *marks = NULL;
	int i;

	/* what is done already: PostgreSQL's marks, another process's */
	LWLockAcquire(&shared->pa_lock, LW_SHARED);
	memcpy(done, shared->pa_finished, sizeof(bool) * nplans);
	LWLockRelease(&shared->pa_lock);
	for (i = 0; i < nplans; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (!done[i] && (!pruned || bms_is_member(i, kept)) && excluded(append->appendplans[i]))
			marks = bms_add_member(marks, i);
	}
	if (marks != NULL)
	{
		LWLockAcquire(&shared->pa_lock, LW_EXCLUSIVE);
		for (i = -1; (i = bms_next_member(marks, i)) >= 0;)
			shared->pa_finished[i] = true;
		LWLockRelease(&shared->pa_lock);
	}
	bms_free(marks);
	bms_free(kept);
	pfree(done);
}

#else /* the version's Parallel Append is not known (bloom_compat.h) */

bool
bloom_rf_append_arm(PlanState *ps)
{
	(void) ps;
	return false;
}

#endif
