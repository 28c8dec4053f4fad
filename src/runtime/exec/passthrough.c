/*
 * passthrough.c
 *	  BloomFilterCosted: the plan of the join search's marker path
 *	  (paths/marker.c), a hash join's outer side priced at what its build's
 *	  keys were expected to let it skip.
 *
 * The planner hook's pass over the finished plan takes every such node out
 * (plan/plan.c) and gives its join a filter that skips.  This executor
 * runs only where that pass did not: a planner hook of another module that
 * calls standard_planner without calling ours.  It returns its child's
 * rows as its own (its target list is its child's, through
 * custom_scan_tlist), copied into its scan slot, so that its projection
 * reads a slot of the kind it was built for.  Nothing is skipped then, and
 * every answer is the same.
 */
#include "exec.h"

#include "executor/executor.h"
#include "executor/tuptable.h"

static Node *costed_create(CustomScan *cscan);
static void costed_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *costed_exec(CustomScanState *node);
static void costed_end(CustomScanState *node);
static void costed_rescan(CustomScanState *node);

const CustomScanMethods bloom_rf_costed_plan_methods = {
    .CustomName = BLOOM_RF_COSTED_NAME,
    .CreateCustomScanState = costed_create,
};

static const CustomExecMethods costed_exec_methods = {
    .CustomName = BLOOM_RF_COSTED_NAME,
    .BeginCustomScan = costed_begin,
    .ExecCustomScan = costed_exec,
    .EndCustomScan = costed_end,
    .ReScanCustomScan = costed_rescan,
};

static Node *
costed_create(CustomScan *cscan)
{
	CustomScanState *css = makeNode(CustomScanState);

	Assert(list_length(cscan->custom_plans) == 1);
	css->methods = &costed_exec_methods;
	return (Node *) css;
}

static void
costed_begin(CustomScanState *node, EState *estate, int eflags)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	node->custom_ps = list_make1(ExecInitNode(linitial(cscan->custom_plans), estate, eflags));
}

static TupleTableSlot *
costed_exec(CustomScanState *node)
{
	TupleTableSlot *slot = ExecProcNode(linitial(node->custom_ps));
	TupleTableSlot *scan = node->ss.ss_ScanTupleSlot;

	if (TupIsNull(slot))
		return NULL;
	ExecCopySlot(scan, slot);
	if (node->ss.ps.ps_ProjInfo == NULL)
		return scan;
	ResetExprContext(node->ss.ps.ps_ExprContext);
	node->ss.ps.ps_ExprContext->ecxt_scantuple = scan;
	return ExecProject(node->ss.ps.ps_ProjInfo);
}

static void
costed_end(CustomScanState *node)
{
	ExecEndNode(linitial(node->custom_ps));
}

static void
costed_rescan(CustomScanState *node)
{
	PlanState *child = linitial(node->custom_ps);

	/* as Append passes its parameters' changes to its children */
	if (node->ss.ps.chgParam != NULL)
		UpdateChangedParamSet(child, node->ss.ps.chgParam);
	/* a child whose parameters changed is rescanned by its next ExecProcNode */
	if (child->chgParam == NULL)
		ExecReScan(child);
}
