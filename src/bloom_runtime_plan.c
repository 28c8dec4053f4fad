/*
 * bloom_runtime_plan.c
 *	  The planner's part of runtime filters: which hash joins get one, and
 *	  where its probes go.  It works on the finished plan (the planner hook
 *	  calls it after standard_planner), whose expressions already refer to
 *	  child nodes' outputs (OUTER_VAR, INNER_VAR, INDEX_VAR).
 *
 * Which joins.  A hash join whose type discards the outer rows that match
 * nothing (inner, semi, right, right semi, right anti), whose hash
 * operators are strict and whose keys are neither volatile nor subqueries,
 * and where bf_rf_worthwhile() says the filter pays, from the planner's
 * estimates: outer rows, inner rows, the size of the hash table, and the
 * fraction of outer rows that find a match (join rows / outer rows for
 * inner, semi and right joins; for right semi and anti joins, whose rows
 * are inner rows, inner rows / outer rows, a guess the probe's adaptive
 * switch corrects).  DEBUG1 says why a join gets none.
 *
 * Where the probes go.  As far down the outer side as the keys can be
 * followed as plain columns, through nodes where dropping the rows that
 * cannot match drops exactly the output rows that cannot match and changes
 * no other:
 *	 - Result (projection), our own nodes, a subquery scan;
 *	 - a join, into the side the keys come from, if that side's unmatched
 *	   rows are discarded or kept alone (inner joins: either side; left,
 *	   semi and anti joins: the outer side; right joins: the inner side),
 *	   never into the nullable side, and never into a merge join's inner
 *	   side (it needs mark and restore);
 *	 - Append and MergeAppend, into every child (partitions, UNION ALL);
 *	 - Agg, Group and Unique whose grouping columns include every key, with
 *	   an equality at least as strict as the join's (same hash family, and a
 *	   collation that is the join's or deterministic), so a group's rows are
 *	   all kept or all dropped; no grouping sets;
 *	 - Sort, Incremental Sort, Material, Memoize and Hash, which keep rows
 *	   across rescans, only when the filter is the same at every scan of the
 *	   join (its inner side has no parameters and only deterministic nodes):
 *	   otherwise rows dropped by one scan's filter could be reused by a later
 *	   scan whose filter would keep them.
 * Never through Limit, WindowAgg, ProjectSet, LockRows, SetOp, Gather (other
 * processes), a CTE, or a node with volatile functions or subqueries in its
 * target list or quals (dropping rows would change how often they run).
 * Keys that are expressions are computed by a probe right on the join's
 * outer child, on exactly the rows the join would compute them on.
 */
#include "bloom_runtime.h"

#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_amop.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/catcache.h"
#include "utils/syscache.h"

/*
 * Bytes of a hash table entry besides the tuple's data: the HashJoinTuple
 * and MinimalTuple headers and the bucket pointer, about as the planner
 * counts them.
 */
#define HASH_ROW_OVERHEAD 48.0

/* Numbering of the new nodes and filters of one statement. */
typedef struct PlanContext
{
	int next_node_id;
	int next_filter_id;
} PlanContext;

/* What placing a filter's probes needs. */
typedef struct FilterInfo
{
	int id;
	int nkeys;
	List *operators;  /* the join's hash operators (OidList) */
	List *collations; /* their collations (OidList) */
	Oid *families;    /* the hash operator family of each, or InvalidOid */
	double outer_rows;
	double inner_rows;
	double pass;
	double shared_keys; /* a Parallel Hash Join's shared filter is sized for these */
	double table_bytes; /* the estimated size of the join's hash table */
	double saved;       /* what removing an outer row saves, in filter probes */
	bool stable;        /* the inner side gives the same rows at every scan */
} FilterInfo;

/* Which child of a node the keys lead to. */
typedef enum Side
{
	SIDE_OUTER,
	SIDE_INNER,
	SIDE_SUBQUERY
} Side;

typedef Plan *(*PlanMutator)(Plan *plan, void *arg);

static void mutate_children(Plan *plan, PlanMutator fn, void *arg);
static Plan *find_max_id(Plan *plan, void *arg);
static Plan *add_filters(Plan *plan, void *arg);
static Plan *mark_under_gather(Plan *plan, void *arg);
static void try_filter(HashJoin *join, PlanContext *ctx);
static bool filterable_join(JoinType jointype);
static double estimate_pass(JoinType jointype, double outer, double inner, double join);
static bool exprs_safe(List *exprs);
static bool inner_is_stable(Plan *plan);
static Oid hash_family(Oid opno);
static Plan *place_probes(Plan *plan, List *keys, FilterInfo *info, PlanContext *ctx);
static Plan *place_columns(Plan *plan, const AttrNumber *cols, FilterInfo *info, PlanContext *ctx,
                           bool may_stop);
static bool accepts_probe(Plan *parent, Plan *child);
#ifdef USE_ASSERT_CHECKING
static Plan *check_edges(Plan *plan, void *arg);
#endif
static Plan **passable_child(Plan *plan, const AttrNumber *cols, AttrNumber *child_cols,
                             FilterInfo *info);
static bool map_columns(Plan *plan, const AttrNumber *cols, int ncols, Side *side,
                        AttrNumber *child_cols);
static bool join_passes(JoinType jointype, Side side);
static bool grouping_keeps_keys(int ncols, const AttrNumber *grp_cols, const Oid *grp_ops,
                                const Oid *grp_colls, const AttrNumber *cols, FilterInfo *info);
static bool is_runtime_node(Plan *plan);
static Plan *make_node(Plan *child, List *keys, FilterInfo *info, bool probe, PlanContext *ctx);

void
bloom_rf_plan(PlannedStmt *stmt)
{
	PlanContext ctx = {0, 1};
	ListCell *lc;

	/* new nodes need plan_node_ids unique in the statement (parallel query) */
	find_max_id(stmt->planTree, &ctx);
	foreach (lc, stmt->subplans)
		if (lfirst(lc) != NULL)
			find_max_id(lfirst(lc), &ctx);
	ctx.next_node_id++;

	stmt->planTree = add_filters(stmt->planTree, &ctx);
	foreach (lc, stmt->subplans)
		if (lfirst(lc) != NULL)
			lfirst(lc) = add_filters(lfirst(lc), &ctx);
	if (ctx.next_filter_id > 1)
	{
		mark_under_gather(stmt->planTree, NULL);
		foreach (lc, stmt->subplans)
			if (lfirst(lc) != NULL)
				mark_under_gather(lfirst(lc), NULL);
#ifdef USE_ASSERT_CHECKING
		check_edges(stmt->planTree, NULL);
		foreach (lc, stmt->subplans)
			if (lfirst(lc) != NULL)
				check_edges(lfirst(lc), NULL);
#endif
	}
}

#ifdef USE_ASSERT_CHECKING
/*
 * Assert that every node of ours sits where it may: a build right under a
 * Hash node, a probe on an edge accepts_probe() allows.  arg is plan's
 * parent, NULL at the top of a tree.
 */
static Plan *
check_edges(Plan *plan, void *arg)
{
	Plan *parent = arg;

	if (is_runtime_node(plan))
	{
		Assert(parent != NULL);
		if (((CustomScan *) plan)->methods == &bloom_build_plan_methods)
			Assert(IsA(parent, Hash));
		else
			Assert(accepts_probe(parent, plan));
	}
	mutate_children(plan, check_edges, plan);
	return plan;
}
#endif

/* Apply fn to every child plan of plan, replacing each with fn's result. */
static void
mutate_children(Plan *plan, PlanMutator fn, void *arg)
{
	ListCell *lc;
	List *children = NIL;

	if (plan->lefttree)
		plan->lefttree = fn(plan->lefttree, arg);
	if (plan->righttree)
		plan->righttree = fn(plan->righttree, arg);
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
			((SubqueryScan *) plan)->subplan = fn(((SubqueryScan *) plan)->subplan, arg);
			break;
		default:
			break;
	}
	foreach (lc, children)
		lfirst(lc) = fn(lfirst(lc), arg);
}

static Plan *
find_max_id(Plan *plan, void *arg)
{
	PlanContext *ctx = arg;

	ctx->next_node_id = Max(ctx->next_node_id, plan->plan_node_id);
	mutate_children(plan, find_max_id, arg);
	return plan;
}

/*
 * Our nodes under Gather are marked parallel-aware: that is what gives them
 * the shared memory in which workers leave their counts (bloom_runtime.h).
 * arg is non-NULL below a Gather.
 */
static Plan *
mark_under_gather(Plan *plan, void *arg)
{
	static int below;

	if (arg != NULL && is_runtime_node(plan))
		plan->parallel_aware = true;
	if (IsA(plan, Gather) || IsA(plan, GatherMerge))
		arg = &below;
	mutate_children(plan, mark_under_gather, arg);
	return plan;
}

/* Bottom up, so that a join's probes can pass through those of the joins below it. */
static Plan *
add_filters(Plan *plan, void *arg)
{
	mutate_children(plan, add_filters, arg);
	if (IsA(plan, HashJoin))
		try_filter((HashJoin *) plan, arg);
	return plan;
}

static void
try_filter(HashJoin *join, PlanContext *ctx)
{
	Hash *hash = (Hash *) innerPlan(join);
	Plan *outer = outerPlan(join);
	JoinType jointype = join->join.jointype;
	FilterInfo info = {0};
	const char *why = NULL;
	ListCell *lc;
	int i = 0;

	if (hash == NULL || !IsA(hash, Hash) || outer == NULL)
		return; /* not a plan the core planner makes */

	info.outer_rows = outer->plan_rows;
	info.inner_rows = hash->plan.plan_rows;
	info.pass =
	    estimate_pass(jointype, info.outer_rows, info.inner_rows, join->join.plan.plan_rows);
	info.nkeys = list_length(join->hashkeys);
	/* the hash table: every inner row (of every process, if shared), with its header */
	info.table_bytes = (hash->plan.parallel_aware ? hash->rows_total : info.inner_rows) *
	                   (MAXALIGN(hash->plan.plan_width) + HASH_ROW_OVERHEAD);
	/* forced (tests): the switch pauses only what would not pay beyond the cache */
	info.saved = bloom_runtime_filter_force ? BF_RF_SAVED_PER_REMOVED
	                                        : bf_rf_saved_per_removed(info.table_bytes);
	if (!filterable_join(jointype))
		why = "its type keeps outer rows that match nothing";
	else if (info.nkeys == 0 || list_length(hash->hashkeys) != info.nkeys ||
	         list_length(join->hashoperators) != info.nkeys)
		why = "its keys are not as expected";
	else if (!exprs_safe(join->hashkeys) || !exprs_safe(hash->hashkeys))
		why = "a key is volatile or holds a subquery";
	else if (!bloom_runtime_filter_force &&
	         !bf_rf_worthwhile(info.outer_rows, info.inner_rows, info.table_bytes, info.pass))
		why = "a filter is not expected to pay";
	foreach (lc, join->hashoperators)
		if (why == NULL && !op_strict(lfirst_oid(lc)))
			why = "an operator is not strict";
	if (why != NULL)
	{
		elog(DEBUG1,
		     "bloomfilter: no runtime filter for a hash join (estimated %.0f outer rows, "
		     "%.0f inner rows in %.0f kB, %.1f%% of outer rows matching): %s",
		     info.outer_rows, info.inner_rows, info.table_bytes / 1024, 100.0 * info.pass, why);
		return;
	}

	info.id = ctx->next_filter_id++;
	info.operators = join->hashoperators;
	info.collations = join->hashcollations;
	info.families = palloc(info.nkeys * sizeof(Oid));
	foreach (lc, join->hashoperators)
		info.families[i++] = hash_family(lfirst_oid(lc));
	info.stable = bms_is_empty(hash->plan.allParam) && inner_is_stable(hash->plan.lefttree);
	/* a shared filter is sized before the build, for twice the estimate of all inner rows */
	if (hash->plan.parallel_aware)
		info.shared_keys = Max(2.0 * hash->rows_total, 1024.0);
	elog(DEBUG1,
	     "bloomfilter: runtime filter %d for a hash join (estimated %.0f outer rows, %.0f inner "
	     "rows in %.0f kB, %.1f%% of outer rows matching)%s",
	     info.id, info.outer_rows, info.inner_rows, info.table_bytes / 1024, 100.0 * info.pass,
	     bloom_runtime_filter_force ? ", forced" : "");

	outerPlan(join) = place_probes(outer, join->hashkeys, &info, ctx);
	hash->plan.lefttree = make_node(hash->plan.lefttree, hash->hashkeys, &info, false, ctx);
}

/* Join types whose unmatched outer rows are discarded. */
static bool
filterable_join(JoinType jointype)
{
	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_SEMI:
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

/* The fraction of outer rows expected to find a match (see the header). */
static double
estimate_pass(JoinType jointype, double outer, double inner, double join)
{
	if (outer <= 0)
		return 1.0;
	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_SEMI:
		case JOIN_RIGHT:
			return Min(1.0, join / outer);
		default:
			return Min(1.0, inner / outer);
	}
}

/* Expressions that may be evaluated on other rows than the plan evaluates them on. */
static bool
exprs_safe(List *exprs)
{
	return !contain_volatile_functions((Node *) exprs) && !contain_subplans((Node *) exprs);
}

/*
 * Whether a subtree returns the same rows at every scan: only node types
 * known to, with neither volatile functions nor subqueries.  Parameters are
 * checked by the caller (allParam).
 */
static Plan *
check_stable(Plan *plan, void *arg)
{
	bool *stable = arg;

	if (!*stable)
		return plan;
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
		case T_CustomScan:
			break;
		case T_Result:
			if (!exprs_safe((List *) ((Result *) plan)->resconstantqual))
				*stable = false;
			break;
		case T_HashJoin:
		case T_MergeJoin:
		case T_NestLoop:
			if (!exprs_safe(((Join *) plan)->joinqual))
				*stable = false;
			break;
		case T_FunctionScan:
			if (!exprs_safe(((FunctionScan *) plan)->functions))
				*stable = false;
			break;
		default:
			*stable = false; /* Limit, Agg, Unique, WindowAgg, TABLESAMPLE, ... */
			break;
	}
	if (IsA(plan, CustomScan) && !is_runtime_node(plan))
		*stable = false;
	if (*stable && (!exprs_safe(plan->targetlist) || !exprs_safe(plan->qual)))
		*stable = false;
	if (*stable)
		mutate_children(plan, check_stable, arg);
	return plan;
}

static bool
inner_is_stable(Plan *plan)
{
	bool stable = true;

	check_stable(plan, &stable);
	return stable;
}

/* The hash operator family an equality operator belongs to, or InvalidOid. */
static Oid
hash_family(Oid opno)
{
	CatCList *list = SearchSysCacheList1(AMOPOPID, ObjectIdGetDatum(opno));
	Oid family = InvalidOid;

	for (int i = 0; i < list->n_members; i++)
	{
		Form_pg_amop amop = (Form_pg_amop) GETSTRUCT(&list->members[i]->tuple);

		if (amop->amopmethod == HASH_AM_OID && amop->amopstrategy == HTEqualStrategyNumber)
		{
			family = amop->amopfamily;
			break;
		}
	}
	ReleaseSysCacheList(list);
	return family;
}

/*
 * Put the probes of a filter into the outer side of its join, whose top node
 * is plan; keys are the join's outer keys, over plan's output.  Returns the
 * node that replaces plan.
 */
static Plan *
place_probes(Plan *plan, List *keys, FilterInfo *info, PlanContext *ctx)
{
	AttrNumber *cols = palloc(info->nkeys * sizeof(AttrNumber));
	ListCell *lc;
	int i = 0;

	foreach (lc, keys)
	{
		Expr *key = lfirst(lc);

		while (IsA(key, RelabelType))
			key = ((RelabelType *) key)->arg;
		if (!IsA(key, Var) || ((Var *) key)->varno != OUTER_VAR || ((Var *) key)->varattno <= 0)
			return make_node(plan, keys, info, true, ctx); /* an expression: right here */
		cols[i++] = ((Var *) key)->varattno;
	}
	return place_columns(plan, cols, info, ctx, true);
}

/*
 * Put the probes as far below plan as they can go, the keys being the
 * columns cols of plan's output.  Returns the node that replaces plan.
 */
static Plan *
place_columns(Plan *plan, const AttrNumber *cols, FilterInfo *info, PlanContext *ctx, bool may_stop)
{
	AttrNumber *child_cols = palloc(info->nkeys * sizeof(AttrNumber));
	Plan **child;
	List *keys = NIL;

	if (IsA(plan, Append) || IsA(plan, MergeAppend))
	{
		List *children =
		    IsA(plan, Append) ? ((Append *) plan)->appendplans : ((MergeAppend *) plan)->mergeplans;
		bool any_async = false;
		Side side;
		ListCell *lc;

		foreach (lc, children)
			any_async |= ((Plan *) lfirst(lc))->async_capable;
		/* async children must stay the Append's direct children */
		if (children != NIL && !any_async &&
		    map_columns(plan, cols, info->nkeys, &side, child_cols) && side == SIDE_OUTER &&
		    exprs_safe(plan->qual))
		{
			foreach (lc, children)
				lfirst(lc) = place_columns(lfirst(lc), child_cols, info, ctx, true);
			return plan;
		}
	}
	else if ((child = passable_child(plan, cols, child_cols, info)) != NULL)
	{
		Plan *placed = place_columns(*child, child_cols, info, ctx, accepts_probe(plan, *child));

		if (placed != NULL)
		{
			*child = placed;
			return plan;
		}
	}

	/* the probe goes right above plan, if plan's parent reads it as any child */
	if (!may_stop)
		return NULL;
	for (int i = 0; i < info->nkeys; i++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, cols[i]);
		Node *e = (Node *) tle->expr;

		keys = lappend(
		    keys, makeVar(OUTER_VAR, cols[i], exprType(e), exprTypmod(e), exprCollation(e), 0));
	}
	return make_node(plan, keys, info, true, ctx);
}

/*
 * The child of plan that the probes may go into, with the keys' columns in
 * that child's output, or NULL if they must stay above plan (see the header).
 */
static Plan **
passable_child(Plan *plan, const AttrNumber *cols, AttrNumber *child_cols, FilterInfo *info)
{
	Side side;

	if (!map_columns(plan, cols, info->nkeys, &side, child_cols))
		return NULL;
	if (!exprs_safe(plan->targetlist) || !exprs_safe(plan->qual))
		return NULL;
	switch (nodeTag(plan))
	{
		case T_Result:
			if (!exprs_safe((List *) ((Result *) plan)->resconstantqual))
				return NULL;
			return &plan->lefttree;
		case T_CustomScan:
			return is_runtime_node(plan) ? &plan->lefttree : NULL;
		case T_SubqueryScan:
			return &((SubqueryScan *) plan)->subplan;
		case T_Hash:
			/* an intermediate join's inner side: its keys run on fewer rows */
			if (!exprs_safe(((Hash *) plan)->hashkeys))
				return NULL;
			/* FALLTHROUGH */
		case T_Sort:
		case T_IncrementalSort:
		case T_Material:
		case T_Memoize:
			return info->stable ? &plan->lefttree : NULL;
		case T_HashJoin:
		case T_MergeJoin:
		case T_NestLoop:
		{
			Join *join = (Join *) plan;

			if (!exprs_safe(join->joinqual) || !join_passes(join->jointype, side))
				return NULL;
			if (IsA(plan, HashJoin) && !exprs_safe(((HashJoin *) plan)->hashclauses))
				return NULL;
			if (IsA(plan, MergeJoin) &&
			    (side == SIDE_INNER || !exprs_safe(((MergeJoin *) plan)->mergeclauses)))
				return NULL;
			return side == SIDE_OUTER ? &plan->lefttree : &plan->righttree;
		}
		case T_Agg:
		{
			Agg *agg = (Agg *) plan;

			if ((agg->aggstrategy != AGG_SORTED && agg->aggstrategy != AGG_HASHED) ||
			    agg->groupingSets != NIL || agg->chain != NIL)
				return NULL;
			/* a hashed Agg keeps its groups across rescans */
			if (agg->aggstrategy == AGG_HASHED && !info->stable)
				return NULL;
			if (!grouping_keeps_keys(agg->numCols, agg->grpColIdx, agg->grpOperators,
			                         agg->grpCollations, child_cols, info))
				return NULL;
			return &plan->lefttree;
		}
		case T_Group:
		{
			Group *group = (Group *) plan;

			if (!grouping_keeps_keys(group->numCols, group->grpColIdx, group->grpOperators,
			                         group->grpCollations, child_cols, info))
				return NULL;
			return &plan->lefttree;
		}
		case T_Unique:
		{
			Unique *unique = (Unique *) plan;

			if (!grouping_keeps_keys(unique->numCols, unique->uniqColIdx, unique->uniqOperators,
			                         unique->uniqCollations, child_cols, info))
				return NULL;
			return &plan->lefttree;
		}
		default:
			return NULL;
	}
}

/*
 * Whether a probe may sit between parent and child, one of parent's
 * children.  The executor must read that child only through ExecProcNode,
 * must not look at the child's node type or state, and must not mark and
 * restore it; parameters must reach the child through chgParam, which the
 * probe's rescan passes on.  Every edge not named here is kept free of
 * probes, among them:
 *	 - Hash Join -> Hash: ExecHashJoin reads the Hash node's state (its hash
 *	   table) and MultiExecProcNode runs it;
 *	 - Merge Join -> inner side: marked and restored;
 *	 - Bitmap Heap Scan -> bitmap nodes, BitmapAnd/BitmapOr -> theirs: read
 *	   with MultiExecProcNode;
 *	 - Append -> an async child: Append talks to it by its own protocol;
 *	 - Gather, Gather Merge: the child runs in other processes;
 *	 - RecursiveUnion, ModifyTable, LockRows, Limit, SetOp, WindowAgg and
 *	   any node not listed: never descended into (passable_child).
 */
static bool
accepts_probe(Plan *parent, Plan *child)
{
	switch (nodeTag(parent))
	{
		case T_HashJoin:
		case T_MergeJoin:
			return child == outerPlan(parent);
		case T_NestLoop:
			return true;
		case T_Append:
		case T_MergeAppend:
			return !child->async_capable;
		case T_Result:
		case T_SubqueryScan:
		case T_Sort:
		case T_IncrementalSort:
		case T_Material:
		case T_Memoize:
		case T_Hash:
		case T_Agg:
		case T_Group:
		case T_Unique:
			return true;
		case T_CustomScan:
			return is_runtime_node(parent);
		default:
			return false;
	}
}

/*
 * Follow the columns cols of plan's output to one child: all must be plain
 * column references of the same child.  Fills *side and child_cols.
 */
static bool
map_columns(Plan *plan, const AttrNumber *cols, int ncols, Side *side, AttrNumber *child_cols)
{
	for (int i = 0; i < ncols; i++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, cols[i]);
		Expr *e = tle ? tle->expr : NULL;
		Var *var;
		Side s;

		while (e && IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (e == NULL || !IsA(e, Var) || ((Var *) e)->varlevelsup != 0)
			return false;
		var = (Var *) e;
		if (IsA(plan, SubqueryScan))
		{
			if (var->varno != (int) ((Scan *) plan)->scanrelid)
				return false;
			s = SIDE_SUBQUERY;
		}
		else if (is_runtime_node(plan) && var->varno == INDEX_VAR)
		{
			/* ours: INDEX_VAR i is custom_scan_tlist i, which is OUTER_VAR i */
			s = SIDE_OUTER;
		}
		else if (var->varno == OUTER_VAR)
			s = SIDE_OUTER;
		else if (var->varno == INNER_VAR)
			s = SIDE_INNER;
		else
			return false;
		if (var->varattno <= 0 || (i > 0 && s != *side))
			return false;
		*side = s;
		child_cols[i] = var->varattno;
	}
	return true;
}

/* Whether dropping rows of the join's side changes nothing but the rows they make. */
static bool
join_passes(JoinType jointype, Side side)
{
	switch (jointype)
	{
		case JOIN_INNER:
			return true;
		case JOIN_LEFT:
		case JOIN_SEMI:
		case JOIN_ANTI:
			return side == SIDE_OUTER;
		case JOIN_RIGHT:
#ifdef BLOOM_HAS_RIGHT_ANTI
		case JOIN_RIGHT_ANTI:
#endif
#ifdef BLOOM_HAS_RIGHT_SEMI
		case JOIN_RIGHT_SEMI:
#endif
			return side == SIDE_INNER;
		default:
			return false;
	}
}

/*
 * Whether every key column is a grouping column whose equality implies the
 * join's, so that the rows of one group all pass the filter or all fail it.
 */
static bool
grouping_keeps_keys(int ncols, const AttrNumber *grp_cols, const Oid *grp_ops, const Oid *grp_colls,
                    const AttrNumber *cols, FilterInfo *info)
{
	for (int k = 0; k < info->nkeys; k++)
	{
		int j;
		Oid collation;

		for (j = 0; j < ncols; j++)
			if (grp_cols[j] == cols[k])
				break;
		if (j == ncols || !OidIsValid(info->families[k]) ||
		    !op_in_opfamily(grp_ops[j], info->families[k]))
			return false;
		collation = grp_colls[j];
		if (OidIsValid(collation) && collation != list_nth_oid(info->collations, k) &&
		    !get_collation_isdeterministic(collation))
			return false;
	}
	return true;
}

static bool
is_runtime_node(Plan *plan)
{
	return IsA(plan, CustomScan) && (((CustomScan *) plan)->methods == &bloom_build_plan_methods ||
	                                 ((CustomScan *) plan)->methods == &bloom_probe_plan_methods);
}

/*
 * A Float node for custom_private.  Always with a decimal point: the plan is
 * copied to parallel workers as text, and a token without one reads back as
 * an Integer.
 */
static Node *
float_node(double value)
{
	return (Node *) makeFloat(psprintf("%.6f", value));
}

/*
 * A probe (or build) node over child, passing child's tuples through: its
 * target list is custom_scan_tlist's columns (INDEX_VAR), which are child's
 * output (OUTER_VAR, plan.lefttree being child, so EXPLAIN can show them).
 */
static Plan *
make_node(Plan *child, List *keys, FilterInfo *info, bool probe, PlanContext *ctx)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan *plan = &cscan->scan.plan;
	ListCell *lc;

	plan->startup_cost = child->startup_cost;
	plan->total_cost =
	    child->total_cost + child->plan_rows * cpu_operator_cost * (list_length(keys) + 1);
	plan->plan_rows = probe ? clamp_row_est(child->plan_rows * info->pass) : child->plan_rows;
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
	cscan->custom_private =
	    list_make5(makeInteger(info->id), list_copy(info->operators), list_copy(info->collations),
	               float_node(info->outer_rows), float_node(info->inner_rows));
	cscan->custom_private = lappend(cscan->custom_private, float_node(info->pass));
	cscan->custom_private = lappend(cscan->custom_private, float_node(info->shared_keys));
	cscan->custom_private = lappend(cscan->custom_private, float_node(info->saved));
	cscan->methods = probe ? &bloom_probe_plan_methods : &bloom_build_plan_methods;
	return plan;
}
