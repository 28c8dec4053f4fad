/*
 * bloom_runtime_build.c
 *	  BloomFilterBuild: the node under a hash join's Hash node that adds the
 *	  join key of every inner row to the runtime filter as the Hash node
 *	  reads it.
 *
 * It passes its child's tuples through unchanged.  When the child is
 * exhausted the filter is finished (sized for the rows read, filled) and
 * ready.  The Hash node reads its child to the end in every case (a
 * multi-batch join writes later batches to files, but reads them all), so
 * the filter holds every inner row's key, whatever the number of batches.
 * A rescan that rebuilds the hash table rescans this node, which empties the
 * filter; a rescan that keeps the table does not, and the filter stays.
 */
#include "bloom_runtime.h"

#include "executor/executor.h"
#include "miscadmin.h"

#include BLOOM_EXPLAIN_STATE_H
#include BLOOM_EXPLAIN_FORMAT_H

typedef struct BuildState
{
	CustomScanState css;
	RuntimeKeys keys;
	RuntimeFilter filter;
	double outer_rows; /* the planner's estimates, for EXPLAIN */
	double inner_rows;
	double pass;
	RuntimeParallel par;
} BuildState;

static Node *build_create(CustomScan *cscan);
static void build_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *build_exec(CustomScanState *node);
static void build_end(CustomScanState *node);
static void build_rescan(CustomScanState *node);
static void build_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static Size build_dsm_size(CustomScanState *node, ParallelContext *pcxt);
static void build_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void build_dsm_reinit(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void build_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate);
static void build_shutdown(CustomScanState *node);
static void build_counts(BuildState *state, RuntimeCounts *counts);

const CustomScanMethods bloom_build_plan_methods = {
    .CustomName = BLOOM_BUILD_NAME,
    .CreateCustomScanState = build_create,
};

static const CustomExecMethods build_exec_methods = {
    .CustomName = BLOOM_BUILD_NAME,
    .BeginCustomScan = build_begin,
    .ExecCustomScan = build_exec,
    .EndCustomScan = build_end,
    .ReScanCustomScan = build_rescan,
    .EstimateDSMCustomScan = build_dsm_size,
    .InitializeDSMCustomScan = build_dsm_init,
    .ReInitializeDSMCustomScan = build_dsm_reinit,
    .InitializeWorkerCustomScan = build_dsm_attach,
    .ShutdownCustomScan = build_shutdown,
    .ExplainCustomScan = build_explain,
};

bool
bloom_is_build_state(PlanState *ps)
{
	return IsA(ps, CustomScanState) && ((CustomScanState *) ps)->methods == &build_exec_methods;
}

RuntimeFilter *
bloom_build_filter(PlanState *build)
{
	Assert(bloom_is_build_state(build));
	return &((BuildState *) build)->filter;
}

static Node *
build_create(CustomScan *cscan)
{
	BuildState *state = palloc0(sizeof(BuildState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &build_exec_methods;
	return (Node *) state;
}

static void
build_begin(CustomScanState *node, EState *estate, int eflags)
{
	BuildState *state = (BuildState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List *private = cscan->custom_private;

	/* the child, and our result: its tuples, in its slots */
	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate, eflags);
	node->ss.ps.resultops = ExecGetResultSlotOps(outerPlanState(node), &node->ss.ps.resultopsfixed);
	node->ss.ps.resultopsset = true;

	bloom_rf_keys_init(&state->keys, node, false);
	bloom_rf_init(&state->filter, intVal(list_nth(private, RF_PRIVATE_ID)));
	state->outer_rows = floatVal(list_nth(private, RF_PRIVATE_OUTER_ROWS));
	state->inner_rows = floatVal(list_nth(private, RF_PRIVATE_INNER_ROWS));
	state->pass = floatVal(list_nth(private, RF_PRIVATE_PASS));
	state->filter.planned_keys = floatVal(list_nth(private, RF_PRIVATE_SHARED));
}

static TupleTableSlot *
build_exec(CustomScanState *node)
{
	BuildState *state = (BuildState *) node;
	TupleTableSlot *slot = ExecProcNode(outerPlanState(node));
	uint32 hash;

	if (TupIsNull(slot))
	{
		if (!state->filter.ready)
			bloom_rf_finish(&state->filter);
		return slot;
	}
	/* a row with a NULL key matches nothing: the operators are strict */
	if (!state->filter.ready &&
	    bloom_rf_keys_hash(&state->keys, slot, node->ss.ps.ps_ExprContext, &hash))
		bloom_rf_add(&state->filter, hash);
	return slot;
}

static void
build_end(CustomScanState *node)
{
	ExecEndNode(outerPlanState(node));
}

static void
build_rescan(CustomScanState *node)
{
	BuildState *state = (BuildState *) node;

	bloom_rf_reset(&state->filter);
	/* a child whose parameters changed is rescanned by its next ExecProcNode */
	if (outerPlanState(node)->chgParam == NULL)
		ExecReScan(outerPlanState(node));
}

/*
 * The shared memory: the counts (bloom_runtime_parallel.c), then, under a
 * Parallel Hash Join, the shared filter.
 */
static Size
counts_size(ParallelContext *pcxt)
{
	return MAXALIGN(bloom_rf_parallel_size(pcxt));
}

static Size
build_dsm_size(CustomScanState *node, ParallelContext *pcxt)
{
	RuntimeFilter *f = &((BuildState *) node)->filter;

	if (f->planned_keys > 0)
		return add_size(counts_size(pcxt), bloom_rf_shared_size(f->planned_keys));
	return counts_size(pcxt);
}

static void
build_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	BuildState *state = (BuildState *) node;

	bloom_rf_parallel_init(&state->par, pcxt, coordinate);
	if (state->filter.planned_keys > 0)
		bloom_rf_shared_init(&state->filter, (char *) coordinate + counts_size(pcxt));
}

static void
build_dsm_reinit(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	BuildState *state = (BuildState *) node;

	bloom_rf_parallel_init(&state->par, pcxt, coordinate);
	if (state->filter.planned_keys > 0)
	{
		bloom_rf_shared_attach(&state->filter, (char *) coordinate + counts_size(pcxt));
		bloom_rf_shared_reset(&state->filter);
	}
}

static void
build_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	BuildState *state = (BuildState *) node;
	RuntimeFilter *f = &state->filter;

	bloom_rf_parallel_attach(&state->par, coordinate);
	if (f->planned_keys > 0)
	{
		/* the counts' size depends on the number of workers, which the leader wrote */
		Size offset = MAXALIGN(bloom_rf_parallel_attached_size(&state->par));

		bloom_rf_shared_attach(f, (char *) coordinate + offset);
	}
}

static void
build_shutdown(CustomScanState *node)
{
	BuildState *state = (BuildState *) node;
	RuntimeCounts mine;

	build_counts(state, &mine);
	bloom_rf_parallel_shutdown(&state->par, &mine);
	if (state->filter.shared)
		bloom_rf_shared_detach(&state->filter);
}

/* This process's counts; under a Parallel Hash Join, the shared filter's shape and fill. */
static void
build_counts(BuildState *state, RuntimeCounts *counts)
{
	RuntimeFilter *f = &state->filter;
	const bf_view *view = f->shared ? &f->shared_view : &f->view;

	memset(counts, 0, sizeof(*counts));
	counts->used = true;
	counts->keys = f->keys;
	counts->builds = f->builds;
	counts->ready = f->ready;
	if (f->shared && f->builds > 0)
	{
		uint64 occupied = bf_occupied(view, 0, view->nbytes);

		counts->ready = true;
		counts->fill = (double) occupied / (double) view->p.ncells;
		counts->useless =
		    bf_current_fpp(view->p.ncells, view->p.nhashes, occupied) > BF_RF_MAX_USEFUL_FPP;
	}
	else if (f->ready)
	{
		counts->fill = f->fill;
		counts->useless = f->useless;
	}
	if (counts->ready)
	{
		counts->bytes = view->nbytes;
		counts->nhashes = view->p.nhashes;
		counts->build_ms = f->build_ms;
	}
}

static void
build_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	BuildState *state = (BuildState *) node;
	RuntimeCounts mine, all;
	const RuntimeCounts *shown;

	ExplainPropertyInteger("Runtime Filter", NULL, state->filter.id, es);
	ExplainPropertyText("Build Keys", bloom_rf_keys_explain(node, ancestors, es), es);
	if (es->verbose)
	{
		ExplainPropertyFloat("Planned Outer Rows", NULL, state->outer_rows, 0, es);
		ExplainPropertyFloat("Planned Inner Rows", NULL, state->inner_rows, 0, es);
		ExplainPropertyFloat("Planned Pass Fraction", NULL, state->pass, 3, es);
	}
	if (!es->analyze)
		return;
	build_counts(state, &mine);
	all = mine;
	bloom_rf_parallel_sum(&state->par, &all);
	shown = bloom_rf_parallel_build(&state->par, &mine);
	if (all.builds == 0)
		return;
	/* a shared filter holds every process's keys */
	ExplainPropertyUInteger("Filter Keys", NULL,
	                        state->filter.planned_keys > 0 ? all.keys : shown->keys, es);
	if (state->filter.planned_keys > 0)
		ExplainPropertyText("Filter Shared", "by the processes of the Parallel Hash Join", es);
	if (shown->ready)
	{
		ExplainPropertyUInteger("Filter Size", "kB", (shown->bytes + 1023) / 1024, es);
		ExplainPropertyInteger("Filter Hashes", NULL, shown->nhashes, es);
		ExplainPropertyText("Filter Fill", psprintf("%.1f%%", 100.0 * shown->fill), es);
		if (shown->useless)
			ExplainPropertyText("Filter Disabled", "too full to remove rows", es);
	}
	if (all.builds > 1)
		ExplainPropertyUInteger("Filter Builds", NULL, all.builds, es);
	if (es->timing && shown->ready)
		ExplainPropertyFloat("Build Time", "ms", shown->build_ms, 3, es);
}
