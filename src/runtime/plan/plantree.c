/*
 * plantree.c
 *	  Plan-tree helpers that the planner room's files share: walking a
 *	  finished plan, telling our nodes apart, the checks on expressions and
 *	  subtrees, and making a build or probe node (what it is told, through
 *	  private.h).
 */
#include "plan.h"
#include "../private.h"
#include "../exec/exec.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"

void
bloom_rf_walk_children(Plan *plan, RuntimePlanWalker fn, void *arg)
{
	ListCell *lc;
	List *children = NIL;

	if (plan->lefttree)
		fn(plan->lefttree, arg);
	if (plan->righttree)
		fn(plan->righttree, arg);
	switch (nodeTag(plan))
	{
		case T_Append:
			children = ((Append *) plan)->appendplans;
			break;
		case T_MergeAppend:
			children = ((MergeAppend *) plan)->mergeplans;
			break;
		case T_BitmapAnd:
			children = ((BitmapAnd *) plan)->bitmapplans;
			break;
		case T_BitmapOr:
			children = ((BitmapOr *) plan)->bitmapplans;
			break;
		case T_CustomScan:
			children = ((CustomScan *) plan)->custom_plans;
			break;
		case T_SubqueryScan:
			fn(((SubqueryScan *) plan)->subplan, arg);
			break;
		default:
			break;
	}
	foreach (lc, children)
		fn(lfirst(lc), arg);
}

bool
bloom_rf_is_our_plan(const Plan *plan)
{
	return IsA(plan, CustomScan) &&
	       (((const CustomScan *) plan)->methods == &bloom_rf_build_plan_methods ||
	        ((const CustomScan *) plan)->methods == &bloom_rf_probe_plan_methods);
}

bool
bloom_rf_is_right_join(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_RIGHT:
#ifdef BLOOM_HAS_RIGHT_ANTI
		case JOIN_RIGHT_ANTI:
#endif
#ifdef BLOOM_HAS_RIGHT_SEMI
		case JOIN_RIGHT_SEMI:
#endif
			return true;
		default:
			return false;
	}
}

bool
bloom_rf_exprs_safe(List *exprs)
{
	ListCell *lc;

	/* the common case, a scan's target list of plain columns, needs no walk */
	foreach (lc, exprs)
	{
		Node *e = lfirst(lc);

		if (IsA(e, TargetEntry))
			e = (Node *) ((TargetEntry *) e)->expr;
		if (!IsA(e, Var))
			return !contain_volatile_functions((Node *) exprs) && !contain_subplans((Node *) exprs);
	}
	return true;
}

/* A walker: clears *arg (a bool) unless plan and its subtree return the same rows. */
static void
check_same_rows(Plan *plan, void *arg)
{
	bool *same = arg;

	if (!*same)
		return;
	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_BitmapIndexScan:
		case T_BitmapAnd:
		case T_BitmapOr:
		case T_TidScan:
		case T_TidRangeScan:
		case T_ValuesScan:
		case T_CteScan:
		case T_Sort:
		case T_IncrementalSort:
		case T_Material:
		case T_Memoize:
		case T_Hash:
		case T_Append:
		case T_MergeAppend:
		case T_SubqueryScan:
		case T_Gather:
			break;
		case T_CustomScan:
			if (!bloom_rf_is_our_plan(plan))
				*same = false;
			break;
		case T_Result:
			if (!bloom_rf_exprs_safe((List *) ((Result *) plan)->resconstantqual))
				*same = false;
			break;
		case T_HashJoin:
		case T_MergeJoin:
		case T_NestLoop:
			if (!bloom_rf_exprs_safe(((Join *) plan)->joinqual))
				*same = false;
			break;
		case T_FunctionScan:
			if (!bloom_rf_exprs_safe(((FunctionScan *) plan)->functions))
				*same = false;
			break;
		default:
			*same = false; /* Limit, Agg, Unique, WindowAgg, TABLESAMPLE, ... */
			break;
	}
	if (*same && (!bloom_rf_exprs_safe(plan->targetlist) || !bloom_rf_exprs_safe(plan->qual)))
		*same = false;
	if (*same)
		bloom_rf_walk_children(plan, check_same_rows, arg);
}

bool
bloom_rf_returns_same_rows(Plan *plan)
{
	bool same = true;

	check_same_rows(plan, &same);
	return same;
}

/* An OidList of n Oids. */
static List *
oid_list(const Oid *oids, int n)
{
	List *list = NIL;

	for (int i = 0; i < n; i++)
		list = lappend_oid(list, oids[i]);
	return list;
}

/*
 * A build or probe over child, passing child's tuples through, with keys
 * over child's output, told private (its custom_private).  The node's
 * target list is custom_scan_tlist's columns (INDEX_VAR), which are
 * child's output (OUTER_VAR, plan.lefttree being child, so EXPLAIN can
 * show them).
 */
static Plan *
make_node(Plan *child, List *keys, const RuntimePlanInfo *info, bool probe, List *private,
          RuntimePlanContext *ctx)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan *plan = &cscan->scan.plan;
	ListCell *lc;

	Assert(list_length(keys) == info->keys.nkeys);
	bloom_rf_cost_node(plan, child, info->keys.nkeys, info->probe_rows ? info->cost.pass : 1.0,
	                   probe);
	plan->plan_width = child->plan_width;
	plan->parallel_aware = false;
	plan->parallel_safe = child->parallel_safe;
	plan->async_capable = false;
	plan->plan_node_id = ctx->next_node_id++;
	plan->lefttree = child;
	plan->extParam = bms_copy(child->extParam);
	plan->allParam = bms_copy(child->allParam);
	bloom_copy_disabled_nodes(plan, child);
	foreach (lc, child->targetlist)
	{
		TargetEntry *tle = lfirst(lc);
		Node *e = (Node *) tle->expr;
		Var *outer =
		    makeVar(OUTER_VAR, tle->resno, exprType(e), exprTypmod(e), exprCollation(e), 0);
		Var *index =
		    makeVar(INDEX_VAR, tle->resno, exprType(e), exprTypmod(e), exprCollation(e), 0);

		cscan->custom_scan_tlist =
		    lappend(cscan->custom_scan_tlist,
		            makeTargetEntry((Expr *) outer, tle->resno, tle->resname, tle->resjunk));
		plan->targetlist = lappend(plan->targetlist, makeTargetEntry((Expr *) index, tle->resno,
		                                                             tle->resname, tle->resjunk));
	}
	cscan->scan.scanrelid = 0;
	cscan->flags = 0;
	cscan->custom_exprs = copyObject(keys);
	cscan->custom_private = private;
	cscan->methods = probe ? &bloom_rf_probe_plan_methods : &bloom_rf_build_plan_methods;
	return plan;
}

/* What both a build and a probe of info are told. */
static RuntimeNodeHead
node_head(const RuntimePlanInfo *info)
{
	RuntimeNodeHead head = {info->id, info->keys.operators, info->keys.collations};

	return head;
}

Plan *
bloom_rf_make_build(Plan *child, List *keys, const RuntimePlanInfo *info, RuntimePlanContext *ctx)
{
	RuntimeBuildPrivate p;

	p.head = node_head(info);
	p.outer_rows = info->cost.outer_rows;
	p.inner_rows = info->cost.inner_rows;
	p.pass = info->cost.pass;
	p.shared_keys = info->cost.shared_keys;
	p.remote_param = info->ship.remote_param;
	p.collect = info->skippable + info->ranged > 0;
	p.stretch = info->stretchable > 0;
	p.families = oid_list(info->keys.orders, info->keys.nkeys);
	p.source_index = info->source_index;
	p.source_key = info->source_key;
	p.planned = info->planned;
	return make_node(child, keys, info, false, bloom_rf_private_make_build(&p), ctx);
}

Plan *
bloom_rf_make_probe(Plan *child, List *keys, const RuntimePlanInfo *info, List *partition,
                    const AttrNumber *attnos, const char *not_shipped, RuntimePlanContext *ctx)
{
	RuntimeProbePrivate p;

	Assert(partition == NIL || list_length(partition) >= 2);
	p.head = node_head(info);
	p.saved = info->cost.saved;
	p.probe_rows = info->probe_rows || info->fallback;
	p.fallback = !info->probe_rows && info->fallback;
	p.skip_lineage = partition;
	p.skip_attnos = NIL;
	if (partition != NIL)
		for (int i = 0; i < info->keys.nkeys; i++)
			p.skip_attnos = lappend_int(p.skip_attnos, attnos[i]);
	p.not_shipped = not_shipped;
	return make_node(child, keys, info, true, bloom_rf_private_make_probe(&p), ctx);
}
