/*
 * hooks.c
 *	  Runtime filters' glue: the node registration, the planner hook that
 *	  adds filters, and the executor-start hook that connects each filter's
 *	  nodes.
 *
 * The executor initializes a hash join's outer side before its Hash node,
 * and gives plan nodes no pointer to their parents, so a probe cannot find
 * its filter while it is being initialized.  Once the whole tree exists
 * (after standard_ExecutorStart) one walk finds every hash join whose Hash
 * node reads a build node, gives the filter the join's state, and gives
 * the filter to the probes of the same number in the join's outer side.
 * Parallel workers start their part of the plan through ExecutorStart too.
 * A probe nobody connected (a plan tree started another way, as for an
 * EvalPlanQual recheck) passes every row.
 */
#include "runtime.h"

#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"

static planner_hook_type previous_planner_hook;
static ExecutorStart_hook_type previous_executor_start;

static PlannedStmt *runtime_planner(Query *parse, const char *query_string, int cursor_options,
                                    ParamListInfo bound_params);
static void runtime_executor_start(QueryDesc *query, int eflags);
static bool connect_joins(PlanState *ps, void *context);
static bool connect_probes(PlanState *ps, void *filter);

void
bloom_rf_module_init(void)
{
	bloom_rf_define_settings();
	RegisterCustomScanMethods(&bloom_rf_build_plan_methods);
	RegisterCustomScanMethods(&bloom_rf_probe_plan_methods);
	RegisterCustomScanMethods(&bloom_rf_scan_plan_methods);

	previous_planner_hook = planner_hook;
	planner_hook = runtime_planner;
	previous_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = runtime_executor_start;
}

static PlannedStmt *
runtime_planner(Query *parse, const char *query_string, int cursor_options,
                ParamListInfo bound_params)
{
	PlannedStmt *stmt;

	if (previous_planner_hook)
		stmt = previous_planner_hook(parse, query_string, cursor_options, bound_params);
	else
		stmt = standard_planner(parse, query_string, cursor_options, bound_params);
	if (bloom_rf_enabled && stmt->commandType != CMD_UTILITY)
		bloom_rf_plan(stmt);
	return stmt;
}

static void
runtime_executor_start(QueryDesc *query, int eflags)
{
	ListCell *lc;
	MemoryContext old;

	if (previous_executor_start)
		previous_executor_start(query, eflags);
	else
		standard_ExecutorStart(query, eflags);

	/* the main tree and every subplan's (initplans, subplans, CTEs); what
	 * the filters keep lives as long as the query */
	old = MemoryContextSwitchTo(query->estate->es_query_cxt);
	if (query->planstate)
		connect_joins(query->planstate, NULL);
	foreach (lc, query->estate->es_subplanstates)
		if (lfirst(lc) != NULL)
			connect_joins(lfirst(lc), NULL);
	MemoryContextSwitchTo(old);
}

/* For each hash join with a build node, connect the filter to the join and its probes. */
static bool
connect_joins(PlanState *ps, void *context)
{
	if (IsA(ps, HashJoinState))
	{
		PlanState *hash = innerPlanState(ps);
		PlanState *below = hash ? outerPlanState(hash) : NULL;

		if (below != NULL && bloom_rf_is_build(below))
		{
			RuntimeFilter *filter = bloom_rf_build_filter(below);

			filter->join = (HashJoinState *) ps;
			connect_probes(outerPlanState(ps), filter);
		}
	}
	return planstate_tree_walker(ps, connect_joins, context);
}

/*
 * Give the filter to its probes in the join's outer side, and tell it the
 * remote scans it was shipped into (pushdown.c), whose plans name its
 * parameter: a rebuild must make them send their queries again.
 */
static bool
connect_probes(PlanState *ps, void *arg)
{
	RuntimeFilter *filter = arg;

	if (ps == NULL)
		return false;
	if (bloom_rf_is_probe(ps))
		bloom_rf_probe_attach(ps, filter);
	if (bloom_rf_is_range_scan(ps))
		bloom_rf_range_scan_attach(ps, filter);
	if (IsA(ps, ForeignScanState) && filter->remote_param >= 0 &&
	    bms_is_member(filter->remote_param, ps->plan->allParam))
		filter->remote_scans = lappend(filter->remote_scans, ps);
	return planstate_tree_walker(ps, connect_probes, filter);
}
