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
#include "settings.h"
#include "exec/exec.h"
#include "paths/paths.h"
#include "plan/plan.h"

#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/paths.h"
#include "optimizer/planner.h"

static planner_hook_type previous_planner_hook;
static set_join_pathlist_hook_type previous_join_pathlist;
static ExecutorStart_hook_type previous_executor_start;

static PlannedStmt *runtime_planner(Query *parse, const char *query_string, int cursor_options,
                                    ParamListInfo bound_params);
static void runtime_executor_start(QueryDesc *query, int eflags);
static void runtime_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
                                  RelOptInfo *innerrel, JoinType jointype,
                                  JoinPathExtraData *extra);
static bool connect_joins(PlanState *ps, void *context);
static bool connect_probes(PlanState *ps, void *arg);

/* What connect_probes gives out: a build node's filter, and its remote parameter. */
typedef struct BuildWiring
{
	PlanState *build;
	RuntimeFilter *filter;
	int remote_param; /* or -1 */
} BuildWiring;

void
bloom_rf_module_init(void)
{
	bloom_rf_define_settings();
	bloom_rf_status_loaded();
	RegisterCustomScanMethods(&bloom_rf_build_plan_methods);
	RegisterCustomScanMethods(&bloom_rf_probe_plan_methods);
	RegisterCustomScanMethods(&bloom_rf_scan_plan_methods);
	RegisterCustomScanMethods(&bloom_rf_costed_plan_methods);

	previous_planner_hook = planner_hook;
	planner_hook = runtime_planner;
	previous_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = runtime_executor_start;
	/* (Citus sets this hook without calling the one before it: load bloomfilter after citus) */
	previous_join_pathlist = set_join_pathlist_hook;
	set_join_pathlist_hook = runtime_join_pathlist;
}

static void
runtime_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
                      RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	if (previous_join_pathlist)
		previous_join_pathlist(root, joinrel, outerrel, innerrel, jointype, extra);
	bloom_rf_paths_join(root, joinrel, outerrel, innerrel, jointype, extra);
}

static PlannedStmt *
runtime_planner(Query *parse, const char *query_string, int cursor_options,
                ParamListInfo bound_params)
{
	PlannedStmt *volatile stmt = NULL;
	List *probes = bloom_rf_key_probes_begin();

	/* the join search's keys read at plan time are this planning's alone */
	PG_TRY();
	{
		if (previous_planner_hook)
			stmt = previous_planner_hook(parse, query_string, cursor_options, bound_params);
		else
			stmt = standard_planner(parse, query_string, cursor_options, bound_params);
	}
	PG_FINALLY();
	{
		bloom_rf_key_probes_end(probes);
	}
	PG_END_TRY();
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
			BuildWiring wiring = {below, bloom_rf_build_filter(below),
			                      bloom_rf_build_remote_param(below)};

			bloom_rf_filter_set_join(wiring.filter, (HashJoinState *) ps);
			connect_probes(outerPlanState(ps), &wiring);
		}
	}
	return planstate_tree_walker(ps, connect_joins, context);
}

/*
 * Give the filter to its probes and scans in the join's outer side, and
 * tell its build the remote scans it was shipped into (ship/pushdown.c),
 * whose plans name its parameter: a rebuild must make them send their
 * queries again.  A Parallel Append over such probes and scans is armed to
 * hand out none that the build excludes (exec/appendskip.c).
 */
static bool
connect_probes(PlanState *ps, void *arg)
{
	BuildWiring *wiring = arg;

	if (ps == NULL)
		return false;
	if (bloom_rf_is_probe(ps))
		bloom_rf_probe_attach(ps, wiring->filter);
	if (bloom_rf_is_scan(ps))
		bloom_rf_scan_attach(ps, wiring->filter);
	if (IsA(ps, ForeignScanState) && wiring->remote_param >= 0 &&
	    bms_is_member(wiring->remote_param, ps->plan->allParam))
		bloom_rf_build_add_remote_scan(wiring->build, ps);
	if (planstate_tree_walker(ps, connect_probes, wiring))
		return true;
	/* (after its subplans have their filters) */
	if (IsA(ps, AppendState) && ps->plan->parallel_aware && bloom_rf_append_arm(ps))
		bloom_rf_build_add_append(wiring->build, ps);
	return false;
}
