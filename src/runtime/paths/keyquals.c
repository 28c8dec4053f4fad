/*
 * keyquals.c
 *	  Which of a dimension's quals keyprobe.c may run at plan time, and in
 *	  what order: only columns, constants, parameter values, AND, OR, NOT,
 *	  IS [NOT] NULL, CASE and calls of leakproof functions that are not
 *	  volatile (keyprobe.c's header says why), cheapest first, as the
 *	  executor runs them.
 */
#include "paths.h"

#include "catalog/pg_proc_d.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"

static bool plan_time_safe(Node *node, void *context);
static bool not_leakproof(Oid func, void *context);
static bool has_param(Node *node, void *context);

/* A qual and its cost per row, for the executor's order (bloom_rf_plan_time_quals). */
typedef struct CostedQual
{
	Node *clause;
	Cost per_row;
	int written; /* its place in the query */
} CostedQual;

/* qsort's order of CostedQuals: the cheapest first, ties as written (order_qual_clauses). */
static int
cheaper_first(const void *a, const void *b)
{
	const CostedQual *x = a, *y = b;

	if (x->per_row != y->per_row)
		return x->per_row < y->per_row ? -1 : 1;
	return x->written - y->written;
}

/*
 * innerrel's quals, as they may be run at plan time (the file's header),
 * with a custom plan's parameter values in, in the order the executor runs
 * them (createplan.c's order_qual_clauses: by cost per row, ties as
 * written), so that a qual the executor reaches only on rows the cheaper
 * ones pass is run here on those only; NIL if some may not be run.
 * Folding may raise (read_keys_guarded catches it).
 */
List *
bloom_rf_plan_time_quals(PlannerInfo *root, RelOptInfo *innerrel)
{
	int n = list_length(innerrel->baserestrictinfo), i = 0;
	CostedQual *costed = palloc(Max(n, 1) * sizeof(CostedQual));
	List *quals = NIL;
	ListCell *lc;

	foreach (lc, innerrel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst(lc);
		Node *clause;
		QualCost cost;

		if (rinfo->security_level > 0 || plan_time_safe((Node *) rinfo->clause, NULL))
			return NIL;
		/* a custom plan's parameter values in (every call leakproof: folding runs nothing unsafe) */
		clause = estimate_expression_value(root, (Node *) rinfo->clause);
		if (has_param(clause, NULL))
			return NIL;
		cost_qual_eval_node(&cost, clause, root);
		costed[i].clause = clause;
		costed[i].per_row = cost.per_tuple;
		costed[i].written = i;
		i++;
	}
	qsort(costed, n, sizeof(CostedQual), cheaper_first);
	for (i = 0; i < n; i++)
		quals = lappend(quals, costed[i].clause);
	return quals;
}

/*
 * A walker: true where node may not run at plan time (keyprobe.c's header):
 * a node of another kind than those listed, or a call of a function that
 * is not leakproof (its operators', its input and output functions').
 */
static bool
plan_time_safe(Node *node, void *context)
{
	if (node == NULL)
		return false;
	switch (nodeTag(node))
	{
		case T_Var:
		case T_Const:
		case T_Param:
		case T_List:
		case T_BoolExpr:
		case T_NullTest:
		case T_BooleanTest:
		case T_RelabelType:
		case T_CaseExpr:
		case T_CaseWhen:
		case T_CaseTestExpr:
			break;
		case T_FuncExpr:
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
		case T_ScalarArrayOpExpr:
			if (check_functions_in_node(node, not_leakproof, NULL))
				return true;
			break;
		default:
			return true;
	}
	return expression_tree_walker(node, plan_time_safe, context);
}

static bool
not_leakproof(Oid func, void *context)
{
	(void) context;
	return !get_func_leakproof(func) || func_volatile(func) == PROVOLATILE_VOLATILE;
}

static bool
has_param(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param))
		return true;
	return expression_tree_walker(node, has_param, context);
}
