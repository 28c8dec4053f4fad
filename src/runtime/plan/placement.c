/*
 * placement.c
 *	  Where a runtime filter's probes go in its join's outer side.
 *
 * As far down the outer side as the keys can be
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
 *
 * Where a probe stops on the scan of a partition that its bounds may let
 * it skip, the probe carries the partition (skip/partitions.c); a Seq Scan
 * of such a partition, or of a table with a BRIN index on a key or a
 * B-tree led by one, is replaced by a BloomFilterScan, which skips by
 * itself (scantarget.c, exec/scan.c).  A filter placed
 * only to skip or ship (info->probe_rows false) changes such scans alone,
 * and nothing elsewhere; but a scan that may be skipped may also be read
 * after all (whole, or by BRIN ranges), and then the probe above it drops
 * the rows the filter rejects, as any probe would (it judges the real hash
 * table and pauses where it does not pay: exec/probe.c), unless the hash
 * table is expected to fit in the CPU cache (info->fallback false).
 */
#include "plan.h"
#include "../exec/exec.h"

#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

/* Which child of a node the keys lead to. */
typedef enum Side
{
	SIDE_OUTER,
	SIDE_INNER,
	SIDE_SUBQUERY
} Side;

static Plan *place_columns(Plan *plan, const AttrNumber *cols, RuntimePlanInfo *info,
                           RuntimePlanContext *ctx, bool may_stop);
static bool accepts_probe(Plan *parent, Plan *child);
static Plan **passable_child(Plan *plan, const AttrNumber *cols, AttrNumber *child_cols,
                             RuntimePlanInfo *info);
static bool map_columns(Plan *plan, const AttrNumber *cols, int ncols, Side *side,
                        AttrNumber *child_cols);
static bool join_passes(JoinType jointype, Side side);
static bool grouping_keeps_keys(int ncols, const AttrNumber *grp_cols, const Oid *grp_ops,
                                const Oid *grp_colls, const AttrNumber *cols,
                                RuntimePlanInfo *info);

/* keys are over plan's output (OUTER_VAR of the join). */
Plan *
bloom_rf_place_probes(Plan *plan, List *keys, RuntimePlanInfo *info, RuntimePlanContext *ctx)
{
	AttrNumber *cols = palloc(info->keys.nkeys * sizeof(AttrNumber));
	ListCell *lc;
	int i = 0;

	foreach (lc, keys)
	{
		Expr *key = lfirst(lc);

		while (IsA(key, RelabelType))
			key = ((RelabelType *) key)->arg;
		if (!IsA(key, Var) || ((Var *) key)->varno != OUTER_VAR || ((Var *) key)->varattno <= 0)
		{
			/* an expression: right here (nothing to skip by it) */
			return info->probe_rows ? bloom_rf_make_probe(plan, keys, info, NIL, NULL, NULL, ctx)
			                        : plan;
		}
		cols[i++] = ((Var *) key)->varattno;
	}
	return place_columns(plan, cols, info, ctx, true);
}

/*
 * Put the probes as far below plan as they can go, the keys being the
 * columns cols of plan's output.  Returns the node that replaces plan.
 */
static Plan *
place_columns(Plan *plan, const AttrNumber *cols, RuntimePlanInfo *info, RuntimePlanContext *ctx,
              bool may_stop)
{
	AttrNumber *child_cols = palloc(info->keys.nkeys * sizeof(AttrNumber));
	AttrNumber *attnos = palloc(info->keys.nkeys * sizeof(AttrNumber));
	Plan **child;
	List *keys = NIL;
	char *sql;
	const char *why_not = NULL;
	List *partition = NIL;
	bool safe, skip;
	Plan *ranged = NULL;
	bool by_brin = false;

	if (IsA(plan, Append) || IsA(plan, MergeAppend))
	{
		List *children =
		    IsA(plan, Append) ? ((Append *) plan)->appendplans : ((MergeAppend *) plan)->mergeplans;
		char **remote = palloc0(list_length(children) * sizeof(char *));
		bool async_ok = true;
		Side side;
		ListCell *lc;

		if (children != NIL && map_columns(plan, cols, info->keys.nkeys, &side, child_cols) &&
		    side == SIDE_OUTER && bloom_rf_exprs_safe(plan->qual))
		{
			/*
			 * An async child must stay the Append's direct child (Append
			 * talks to it by its own protocol): no probe goes on it, but a
			 * postgres_fdw scan may take the filter into its remote query.
			 */
			foreach (lc, children)
			{
				Plan *c = lfirst(lc);
				const char *why = NULL;

				if (c->async_capable && (!IsA(c, ForeignScan) ||
				                         (remote[foreach_current_index(lc)] = bloom_rf_remote_sql(
				                              (ForeignScan *) c, child_cols, &info->keys,
				                              &info->ship, ctx->stmt, &why)) == NULL))
				{
					async_ok = false;
					/* the probe goes above the Append: it says why */
					if (why_not == NULL)
						why_not = why;
				}
			}
			if (async_ok)
			{
				foreach (lc, children)
				{
					Plan *c = lfirst(lc);

					if (c->async_capable)
						bloom_rf_push_remote((ForeignScan *) c, remote[foreach_current_index(lc)],
						                     &info->ship, ctx->stmt);
					else
						lfirst(lc) = place_columns(c, child_cols, info, ctx, true);
				}
				return plan;
			}
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
	/* a postgres_fdw scan may also take the filter into its remote query */
	if (IsA(plan, ForeignScan) &&
	    (sql = bloom_rf_remote_sql((ForeignScan *) plan, cols, &info->keys, &info->ship, ctx->stmt,
	                               &why_not)) != NULL)
		bloom_rf_push_remote((ForeignScan *) plan, sql, &info->ship, ctx->stmt);
	/*
	 * The scan of a partition may be skipped whole (skip/partitions.c), and
	 * a Seq Scan may read only the block ranges that a BRIN index says may
	 * hold a key, or the keys' rows through a B-tree (scantarget.c), if
	 * reading fewer rows changes nothing but the rows returned: no volatile
	 * functions or subqueries in the scan.  A shared build's values are every
	 * share's, merged in each process (filter/shared.c).
	 */
	safe = bloom_rf_exprs_safe(plan->qual) && bloom_rf_exprs_safe(plan->targetlist);
	skip = safe && bloom_rf_skip_target(plan, cols, &info->keys, &ctx->lineages, &info->skip_memo,
	                                    &partition, attnos);
	/* a scan that tests ranges of keys (partition bounds, BRIN summaries) */
	if (skip)
		info->stretchable++;
	if (safe &&
	    (ranged = bloom_rf_scan_target(plan, cols, info, ctx, partition, attnos, &by_brin)) != NULL)
	{
		/* the scan skips the partition itself: the probe above needs no partition */
		if (skip)
			info->skippable++;
		else
			info->ranged++;
		if (by_brin && !skip)
			info->stretchable++;
		skip = false;
		plan = ranged;
	}
	if (!skip && !info->probe_rows && (plan != ranged || !info->fallback))
		return plan; /* a filter placed to skip or ship only: nothing to skip, or to probe, here */
	for (int i = 0; i < info->keys.nkeys; i++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, cols[i]);
		Node *e = (Node *) tle->expr;

		keys = lappend(
		    keys, makeVar(OUTER_VAR, cols[i], exprType(e), exprTypmod(e), exprCollation(e), 0));
	}
	if (skip)
		info->skippable++;
	return bloom_rf_make_probe(plan, keys, info, skip ? partition : NIL, attnos, why_not, ctx);
}

/*
 * The child of plan that the probes may go into, with the keys' columns in
 * that child's output, or NULL if they must stay above plan (see the header).
 */
static Plan **
passable_child(Plan *plan, const AttrNumber *cols, AttrNumber *child_cols, RuntimePlanInfo *info)
{
	Side side;

	if (!map_columns(plan, cols, info->keys.nkeys, &side, child_cols))
		return NULL;
	if (!bloom_rf_exprs_safe(plan->targetlist) || !bloom_rf_exprs_safe(plan->qual))
		return NULL;
	switch (nodeTag(plan))
	{
		case T_Result:
			if (!bloom_rf_exprs_safe((List *) ((Result *) plan)->resconstantqual))
				return NULL;
			return &plan->lefttree;
		case T_CustomScan:
			return bloom_rf_is_our_plan(plan) ? &plan->lefttree : NULL;
		case T_SubqueryScan:
			return &((SubqueryScan *) plan)->subplan;
		case T_Hash:
			/* an intermediate join's inner side: its keys run on fewer rows */
			if (!bloom_rf_exprs_safe(((Hash *) plan)->hashkeys))
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

			if (!bloom_rf_exprs_safe(join->joinqual) || !join_passes(join->jointype, side))
				return NULL;
			if (IsA(plan, HashJoin) && !bloom_rf_exprs_safe(((HashJoin *) plan)->hashclauses))
				return NULL;
			if (IsA(plan, MergeJoin) &&
			    (side == SIDE_INNER || !bloom_rf_exprs_safe(((MergeJoin *) plan)->mergeclauses)))
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
			return bloom_rf_is_our_plan(parent);
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
		else if (bloom_rf_is_our_plan(plan) && var->varno == INDEX_VAR)
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
		default:
			return bloom_rf_is_right_join(jointype) && side == SIDE_INNER;
	}
}

/*
 * Whether every key column is a grouping column whose equality implies the
 * join's, so that the rows of one group all pass the filter or all fail it.
 */
static bool
grouping_keeps_keys(int ncols, const AttrNumber *grp_cols, const Oid *grp_ops, const Oid *grp_colls,
                    const AttrNumber *cols, RuntimePlanInfo *info)
{
	for (int k = 0; k < info->keys.nkeys; k++)
	{
		int j;
		Oid collation;

		for (j = 0; j < ncols; j++)
			if (grp_cols[j] == cols[k])
				break;
		if (j == ncols || !OidIsValid(info->keys.families[k]) ||
		    !op_in_opfamily(grp_ops[j], info->keys.families[k]))
			return false;
		collation = grp_colls[j];
		if (OidIsValid(collation) && collation != list_nth_oid(info->keys.collations, k) &&
		    !get_collation_isdeterministic(collation))
			return false;
	}
	return true;
}

/*
 * Every node of ours must sit where it may: a build right under a Hash
 * node, a probe on an edge accepts_probe() allows.  parent is plan's
 * parent, NULL at the top of a tree.
 */
static void
check_node_edges(Plan *plan, void *parent)
{
	if (bloom_rf_is_our_plan(plan))
	{
		Assert(parent != NULL);
		if (((CustomScan *) plan)->methods == &bloom_rf_build_plan_methods)
			Assert(IsA((Plan *) parent, Hash));
		else
			Assert(accepts_probe(parent, plan));
	}
	bloom_rf_walk_children(plan, check_node_edges, plan);
}

void
bloom_rf_check_edges(Plan *plan)
{
	check_node_edges(plan, NULL);
}
