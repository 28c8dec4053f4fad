/*
 * bloom_runtime.c
 *	  Runtime filters' glue: the setting, the node registration, the planner
 *	  hook that adds filters, and the executor-start hook that connects each
 *	  filter's nodes.
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
#include "bloom_runtime.h"

#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/planner.h"
#include "utils/guc.h"

bool bloom_runtime_filter = true;
bool bloom_runtime_filter_force = false;

static planner_hook_type previous_planner_hook;
static ExecutorStart_hook_type previous_executor_start;

static PlannedStmt *runtime_planner(Query *parse, const char *query_string, int cursor_options,
                                    ParamListInfo bound_params);
static void runtime_executor_start(QueryDesc *query, int eflags);
static bool connect_joins(PlanState *ps, void *context);
static bool connect_probes(PlanState *ps, void *filter);

void
bloom_runtime_init(void)
{
	DefineCustomBoolVariable(
	    "bloomfilter.runtime_filter",
	    "Adds Bloom filters built from hash joins' inner sides to their outer sides.",
	    "Where the planner's estimates say a filter pays, the join keys of the inner side "
	    "are collected in a Bloom filter while the hash table is built, and outer rows "
	    "whose keys it does not hold are dropped as low in the plan as is correct.",
	    &bloom_runtime_filter, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable(
	    "bloomfilter.runtime_filter_force",
	    "Adds a runtime filter to every hash join that can take one, whatever the estimates.",
	    "For testing: the filters' correctness does not depend on the cost model, and this "
	    "puts them into plans the model would leave alone.  Their probes pause only where "
	    "they remove less than a quarter of the rows.",
	    &bloom_runtime_filter_force, false, PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);

	RegisterCustomScanMethods(&bloom_build_plan_methods);
	RegisterCustomScanMethods(&bloom_probe_plan_methods);

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
	if (bloom_runtime_filter && stmt->commandType != CMD_UTILITY)
		bloom_rf_plan(stmt);
	return stmt;
}

static void
runtime_executor_start(QueryDesc *query, int eflags)
{
	ListCell *lc;

	if (previous_executor_start)
		previous_executor_start(query, eflags);
	else
		standard_ExecutorStart(query, eflags);

	/* the main tree and every subplan's (initplans, subplans, CTEs) */
	if (query->planstate)
		connect_joins(query->planstate, NULL);
	foreach (lc, query->estate->es_subplanstates)
		if (lfirst(lc) != NULL)
			connect_joins(lfirst(lc), NULL);
}

/* For each hash join with a build node, connect the filter to the join and its probes. */
static bool
connect_joins(PlanState *ps, void *context)
{
	if (IsA(ps, HashJoinState))
	{
		PlanState *hash = innerPlanState(ps);
		PlanState *below = hash ? outerPlanState(hash) : NULL;

		if (below != NULL && bloom_is_build_state(below))
		{
			RuntimeFilter *filter = bloom_build_filter(below);

			filter->join = (HashJoinState *) ps;
			connect_probes(outerPlanState(ps), filter);
		}
	}
	return planstate_tree_walker(ps, connect_joins, context);
}

static bool
connect_probes(PlanState *ps, void *filter)
{
	if (ps == NULL)
		return false;
	if (bloom_is_probe_state(ps))
		bloom_probe_attach(ps, filter);
	return planstate_tree_walker(ps, connect_probes, filter);
}
