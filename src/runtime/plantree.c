/*
 * plantree.c
 *	  Plan-tree helpers that the planner's two files (plan.c: which joins;
 *	  placement.c: where the probes go) share: walking a finished plan,
 *	  telling our nodes apart, the checks on expressions and subtrees, and
 *	  making a node of ours.
 */
#include "runtime.h"

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

/*
 * A Float for custom_private: a float8 Const, which the plan's copy to
 * parallel workers (as text) carries as its bytes, with no printing and
 * parsing of numbers (each node of ours has five; a plan over many
 * partitions has many nodes).
 */
static Node *
float_node(double value)
{
	return (Node *) makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8), Float8GetDatum(value),
	                          false, FLOAT8PASSBYVAL);
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
 * The node's target list is custom_scan_tlist's columns (INDEX_VAR), which
 * are child's output (OUTER_VAR, plan.lefttree being child, so EXPLAIN can
 * show them).  A probe on the scan of a partition that it may skip has
 * partition and attnos (skip.c), others NIL.
 */
static Plan *
make_node(Plan *child, List *keys, const RuntimePlanInfo *info, bool probe, List *partition,
          const AttrNumber *attnos, RuntimePlanContext *ctx)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan *plan = &cscan->scan.plan;
	List *skip_attnos = NIL;
	ListCell *lc;

	Assert(list_length(keys) == info->nkeys);
	bloom_rf_cost_node(plan, child, info->nkeys, info->probe_rows ? info->pass : 1.0, probe);
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
	if (partition != NIL)
		for (int i = 0; i < info->nkeys; i++)
			skip_attnos = lappend_int(skip_attnos, attnos[i]);
	cscan->scan.scanrelid = 0;
	cscan->flags = 0;
	cscan->custom_exprs = copyObject(keys);
	cscan->custom_private =
	    list_make5(makeInteger(info->id), list_copy(info->operators), list_copy(info->collations),
	               float_node(info->outer_rows), float_node(info->inner_rows));
	cscan->custom_private = lappend(cscan->custom_private, float_node(info->pass));
	cscan->custom_private = lappend(cscan->custom_private, float_node(info->shared_keys));
	cscan->custom_private = lappend(cscan->custom_private, float_node(info->saved));
	cscan->custom_private = lappend(cscan->custom_private, makeInteger(info->remote_param));
	cscan->custom_private = lappend(cscan->custom_private, makeInteger(info->probe_rows));
	cscan->custom_private =
	    lappend(cscan->custom_private, makeInteger(info->skippable + info->ranged > 0));
	cscan->custom_private = lappend(cscan->custom_private, oid_list(info->orders, info->nkeys));
	cscan->custom_private = lappend(cscan->custom_private, partition);
	cscan->custom_private = lappend(cscan->custom_private, skip_attnos);
	cscan->custom_private =
	    lappend(cscan->custom_private,
	            OidIsValid(info->source_index) ? list_make1_oid(info->source_index) : NIL);
	cscan->custom_private = lappend(cscan->custom_private, makeInteger(info->source_key));
	cscan->custom_private = lappend(cscan->custom_private, NIL); /* placement.c sets it */
	Assert(list_length(cscan->custom_private) == RF_PRIVATE_COUNT);
	cscan->methods = probe ? &bloom_rf_probe_plan_methods : &bloom_rf_build_plan_methods;
	return plan;
}

Plan *
bloom_rf_make_node(Plan *child, List *keys, const RuntimePlanInfo *info, bool probe,
                   RuntimePlanContext *ctx)
{
	return make_node(child, keys, info, probe, NIL, NULL, ctx);
}

Plan *
bloom_rf_make_skipping_probe(Plan *child, List *keys, const RuntimePlanInfo *info, List *partition,
                             const AttrNumber *attnos, RuntimePlanContext *ctx)
{
	Assert(list_length(partition) >= 2);
	return make_node(child, keys, info, true, partition, attnos, ctx);
}
