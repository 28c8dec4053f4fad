/*
 * bloom_runtime_probe.c
 *	  BloomFilterProbe: the node on a hash join's outer side that drops the
 *	  rows whose join keys the runtime filter does not hold.
 *
 * It passes the other rows through unchanged, in its child's slots.  Until
 * its filter is usable (bloom_rf_usable: built from every inner row of the
 * join's current scan, and the join's hash table exists) every row passes:
 * that covers the outer rows a hash join fetches before it builds its table,
 * and a rescan that is rebuilding it.  A row with a NULL key is dropped once
 * the filter is usable: the join operators are strict, so it matches
 * nothing.  A filter that removes too few rows pauses (core/bf_runtime.h).
 */
#include "bloom_runtime.h"

#include "executor/executor.h"
#include "miscadmin.h"

#include BLOOM_EXPLAIN_STATE_H
#include BLOOM_EXPLAIN_FORMAT_H

typedef struct ProbeState
{
	CustomScanState css;
	RuntimeKeys keys;
	int filter_id;
	RuntimeFilter *filter; /* the build node's, given at executor start */
	bf_rf_switch sw;
	uint64 unready; /* rows passed while the filter was not usable (not ready, or disabled) */
	RuntimeParallel par;
} ProbeState;

static Node *probe_create(CustomScan *cscan);
static void probe_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *probe_exec(CustomScanState *node);
static void probe_end(CustomScanState *node);
static void probe_rescan(CustomScanState *node);
static void probe_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static Size probe_dsm_size(CustomScanState *node, ParallelContext *pcxt);
static void probe_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void probe_dsm_reinit(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void probe_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate);
static void probe_shutdown(CustomScanState *node);
static void probe_counts(ProbeState *state, RuntimeCounts *counts);

const CustomScanMethods bloom_probe_plan_methods = {
    .CustomName = BLOOM_PROBE_NAME,
    .CreateCustomScanState = probe_create,
};

static const CustomExecMethods probe_exec_methods = {
    .CustomName = BLOOM_PROBE_NAME,
    .BeginCustomScan = probe_begin,
    .ExecCustomScan = probe_exec,
    .EndCustomScan = probe_end,
    .ReScanCustomScan = probe_rescan,
    .EstimateDSMCustomScan = probe_dsm_size,
    .InitializeDSMCustomScan = probe_dsm_init,
    .ReInitializeDSMCustomScan = probe_dsm_reinit,
    .InitializeWorkerCustomScan = probe_dsm_attach,
    .ShutdownCustomScan = probe_shutdown,
    .ExplainCustomScan = probe_explain,
};

bool
bloom_is_probe_state(PlanState *ps)
{
	return IsA(ps, CustomScanState) && ((CustomScanState *) ps)->methods == &probe_exec_methods;
}

void
bloom_probe_attach(PlanState *probe, RuntimeFilter *filter)
{
	ProbeState *state = (ProbeState *) probe;

	Assert(bloom_is_probe_state(probe));
	if (state->filter_id == filter->id)
		state->filter = filter;
}

static Node *
probe_create(CustomScan *cscan)
{
	ProbeState *state = palloc0(sizeof(ProbeState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &probe_exec_methods;
	return (Node *) state;
}

static void
probe_begin(CustomScanState *node, EState *estate, int eflags)
{
	ProbeState *state = (ProbeState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	outerPlanState(node) = ExecInitNode(outerPlan(cscan), estate, eflags);
	node->ss.ps.resultops = ExecGetResultSlotOps(outerPlanState(node), &node->ss.ps.resultopsfixed);
	node->ss.ps.resultopsset = true;

	bloom_rf_keys_init(&state->keys, node, true);
	state->filter_id = intVal(list_nth(cscan->custom_private, RF_PRIVATE_ID));
	bf_rf_switch_init(&state->sw,
	                  Max(1.0, floatVal(list_nth(cscan->custom_private, RF_PRIVATE_SAVED))));
}

static TupleTableSlot *
probe_exec(CustomScanState *node)
{
	ProbeState *state = (ProbeState *) node;
	PlanState *child = outerPlanState(node);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);
		uint32 hash;
		bool keep;

		if (TupIsNull(slot))
			return slot;
		if (state->filter == NULL || !bloom_rf_usable(state->filter))
		{
			state->unready++;
			return slot;
		}
		if (!bf_rf_switch_probing(&state->sw))
			return slot;
		keep = bloom_rf_keys_hash(&state->keys, slot, econtext, &hash) &&
		       bloom_rf_may_contain(state->filter, hash);
		bf_rf_switch_record(&state->sw, !keep);
		if (keep)
			return slot;
		CHECK_FOR_INTERRUPTS();
	}
}

static void
probe_end(CustomScanState *node)
{
	ExecEndNode(outerPlanState(node));
}

static void
probe_rescan(CustomScanState *node)
{
	if (outerPlanState(node)->chgParam == NULL)
		ExecReScan(outerPlanState(node));
}

static Size
probe_dsm_size(CustomScanState *node, ParallelContext *pcxt)
{
	return bloom_rf_parallel_size(pcxt);
}

static void
probe_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	bloom_rf_parallel_init(&((ProbeState *) node)->par, pcxt, coordinate);
}

static void
probe_dsm_reinit(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	bloom_rf_parallel_init(&((ProbeState *) node)->par, pcxt, coordinate);
}

static void
probe_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	bloom_rf_parallel_attach(&((ProbeState *) node)->par, coordinate);
}

static void
probe_shutdown(CustomScanState *node)
{
	ProbeState *state = (ProbeState *) node;
	RuntimeCounts mine;

	probe_counts(state, &mine);
	bloom_rf_parallel_shutdown(&state->par, &mine);
}

/* This process's counts. */
static void
probe_counts(ProbeState *state, RuntimeCounts *counts)
{
	memset(counts, 0, sizeof(*counts));
	counts->used = true;
	counts->probed = state->sw.probed;
	counts->removed = state->sw.removed;
	counts->skipped = state->sw.skipped;
	counts->pauses = state->sw.pauses;
	counts->unready = state->unready;
}

static void
probe_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ProbeState *state = (ProbeState *) node;
	RuntimeCounts all;

	ExplainPropertyInteger("Runtime Filter", NULL, state->filter_id, es);
	ExplainPropertyText("Probe Keys", bloom_rf_keys_explain(node, ancestors, es), es);
	if (!es->analyze)
		return;
	probe_counts(state, &all);
	bloom_rf_parallel_sum(&state->par, &all);
	ExplainPropertyUInteger("Rows Removed by Runtime Filter", NULL, all.removed, es);
	if (es->verbose || all.skipped > 0)
	{
		ExplainPropertyUInteger("Rows Probed", NULL, all.probed, es);
		ExplainPropertyUInteger("Rows Passed Without Filter", NULL, all.unready, es);
		ExplainPropertyUInteger("Rows Passed Unprobed", NULL, all.skipped, es);
		ExplainPropertyUInteger("Pauses", NULL, all.pauses, es);
	}
}
