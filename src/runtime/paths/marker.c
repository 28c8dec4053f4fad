/*
 * marker.c
 *	  The marker path: a hash join's outer side as the join search prices
 *	  it, reading only what the build's keys are expected to leave.
 *
 * A CustomPath over the outer rel's own path, which it plans unchanged
 * (create_customscan_plan plans it with its exact target list, which is
 * the marker's: one pathtarget).  Its plan is exec/'s BloomFilterCosted
 * node, whose target list is its child's through custom_scan_tlist; the
 * planner room's pass over the finished plan takes it out
 * (bloom_rf_marker_take) and gives the join a filter that skips.  Only the
 * join's cost counts the skip; the child keeps PostgreSQL's costs.
 */
#include "paths.h"
#include "../exec/exec.h"
#include "../../bloom_compat.h"

#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/pathnode.h"

static Plan *marker_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
                         List *clauses, List *custom_plans);

static const CustomPathMethods marker_path_methods = {
    .CustomName = BLOOM_RF_COSTED_NAME,
    .PlanCustomPath = marker_plan,
};

Path *
bloom_rf_marker_path(RelOptInfo *outerrel, Path *outer, const RuntimePlannedSkip *planned)
{
	CustomPath *cpath = makeNode(CustomPath);

	Assert(outer->parent == outerrel && outer->param_info == NULL);
	Assert(planned->kind != PLANNED_NONE && planned->cost <= outer->total_cost);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = outerrel;
	cpath->path.pathtarget = outer->pathtarget;
	cpath->path.param_info = NULL;
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = outer->parallel_safe;
	cpath->path.parallel_workers = outer->parallel_workers;
	cpath->path.rows = planned->rows;
	cpath->path.startup_cost = Min(outer->startup_cost, planned->cost);
	cpath->path.total_cost = planned->cost;
	cpath->path.pathkeys = NIL;
	bloom_copy_disabled_nodes(&cpath->path, outer);
	cpath->flags = 0;
	cpath->custom_paths = list_make1(outer);
	cpath->custom_private = bloom_rf_private_make_planned(planned);
	cpath->methods = &marker_path_methods;
	return &cpath->path;
}

/*
 * The marker's plan: its child's rows as they are.  The rel's quals are
 * the child's (clauses are left alone); the target list is the child's
 * (one pathtarget), which custom_scan_tlist says.
 */
static Plan *
marker_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist, List *clauses,
            List *custom_plans)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan *child = linitial(custom_plans);

	(void) root;
	(void) rel;
	(void) clauses;
	Assert(list_length(custom_plans) == 1);
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	cscan->custom_exprs = NIL;
	cscan->custom_private = best_path->custom_private;
	cscan->custom_scan_tlist = copyObject(child->targetlist);
	cscan->methods = &bloom_rf_costed_plan_methods;
	return &cscan->scan.plan;
}

bool
bloom_rf_is_marker(const Plan *plan)
{
	return plan != NULL && IsA(plan, CustomScan) &&
	       ((const CustomScan *) plan)->methods == &bloom_rf_costed_plan_methods;
}

/* Var(INDEX_VAR, i), the marker's output column i read from its scan tuple, as OUTER_VAR i. */
static Node *
index_to_outer(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var) && ((Var *) node)->varno == INDEX_VAR)
	{
		Var *var = copyObject((Var *) node);

		var->varno = OUTER_VAR;
		return (Node *) var;
	}
	return expression_tree_mutator(node, index_to_outer, context);
}

Plan *
bloom_rf_marker_take(Plan *plan, RuntimePlannedSkip *planned)
{
	CustomScan *cscan = (CustomScan *) plan;
	Plan *child;
	ListCell *lc;
	bool identity;
	Result *result;

	if (!bloom_rf_is_marker(plan))
		return NULL;
	child = linitial(cscan->custom_plans);
	bloom_rf_private_read_planned(cscan->custom_private, planned);
	/*
	 * After setrefs the marker's columns read its scan tuple (INDEX_VAR),
	 * which is its child's output column for column (custom_scan_tlist):
	 * where they are the child's columns in order, the child replaces it.
	 */
	identity = list_length(plan->targetlist) == list_length(child->targetlist) && plan->qual == NIL;
	foreach (lc, plan->targetlist)
	{
		Var *var = (Var *) ((TargetEntry *) lfirst(lc))->expr;

		if (!identity)
			break;
		identity = IsA(var, Var) && var->varno == INDEX_VAR &&
		           var->varattno == foreach_current_index(lc) + 1;
	}
	if (identity)
		return child;
	/* otherwise a projection of the child's output to the marker's */
	result = makeNode(Result);
	result->plan = cscan->scan.plan;
	result->plan.type = T_Result;
	result->plan.targetlist = (List *) index_to_outer((Node *) plan->targetlist, NULL);
	result->plan.qual = (List *) index_to_outer((Node *) plan->qual, NULL);
	result->plan.lefttree = child;
	result->plan.righttree = NULL;
	result->resconstantqual = NULL;
	return &result->plan;
}
