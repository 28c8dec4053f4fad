/*
 * cost.c
 *	  The cost model of runtime filters: every estimate it reads, in one
 *	  place, as PostgreSQL's costsize.c owns every cost_* function.
 *
 * The formula itself is the core's (core/bf_runtime.h: bf_rf_worthwhile,
 * bf_rf_saved_per_removed, bf_rf_can_pay), in units of one filter probe and
 * free of PostgreSQL.  This file hands it the planner's raw estimates:
 *	 - outer rows, inner rows (every process's, for a shared hash table);
 *	 - the size of the hash table: inner rows times the tuple's width plus
 *	   HASH_ROW_OVERHEAD;
 *	 - the fraction of outer rows that find a match (estimate_pass);
 *	 - what removing an outer row saves, from the table's size;
 * and prices our nodes in the plan, and a filter again once its hash table
 * is built (the probe asks, with the table's real size).
 */
#include "runtime.h"

#include "optimizer/cost.h"
#include "optimizer/optimizer.h"

/*
 * Bytes of a hash table entry besides the tuple's data: the HashJoinTuple
 * and MinimalTuple headers and the bucket pointer, about as the planner
 * counts them.
 */
#define HASH_ROW_OVERHEAD 48.0

/*
 * The fraction of outer rows expected to find a match: join rows / outer
 * rows for inner, semi and right joins; for right semi and right anti
 * joins, whose rows are inner rows, inner rows / outer rows, a guess the
 * probe's adaptive switch corrects.
 */
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

void
bloom_rf_cost_join(const HashJoin *join, const Hash *hash, RuntimePlanInfo *info)
{
	const Plan *outer = outerPlan(join);

	Assert(outer != NULL && hash != NULL);
	info->outer_rows = outer->plan_rows;
	info->inner_rows = hash->plan.plan_rows;
	info->pass = estimate_pass(join->join.jointype, info->outer_rows, info->inner_rows,
	                           join->join.plan.plan_rows);
	/* the hash table: every inner row (of every process, if shared), with its header */
	info->table_bytes = (hash->plan.parallel_aware ? hash->rows_total : info->inner_rows) *
	                    (MAXALIGN(hash->plan.plan_width) + HASH_ROW_OVERHEAD);
	/* forced (tests): the switch pauses only what would not pay beyond the cache */
	info->saved =
	    bloom_rf_forced ? BF_RF_SAVED_PER_REMOVED : bf_rf_saved_per_removed(info->table_bytes);
	/* a shared filter is sized before the build, for twice the estimate of all inner rows */
	info->shared_keys = hash->plan.parallel_aware ? Max(2.0 * hash->rows_total, 1024.0) : 0;
	info->worthwhile =
	    bloom_rf_forced || bf_rf_worthwhile(info->outer_rows, info->inner_rows, info->table_bytes,
	                                        info->pass, bloom_rf_max_bytes());
}

void
bloom_rf_cost_node(Plan *node, const Plan *child, int nkeys, double pass, bool probe)
{
	/* hashing the keys and probing (or adding) costs about an operator per key, and one */
	node->startup_cost = child->startup_cost;
	node->total_cost = child->total_cost + child->plan_rows * cpu_operator_cost * (nkeys + 1);
	node->plan_rows = probe ? clamp_row_est(child->plan_rows * pass) : child->plan_rows;
}

bool
bloom_rf_cost_built_table(double table_bytes, double *saved)
{
	Assert(table_bytes >= 0);
	*saved = bf_rf_saved_per_removed(table_bytes);
	return bf_rf_can_pay(*saved);
}
