/*
 * plan.h
 *	  The planner room: which hash joins of a finished plan get a runtime
 *	  filter, and where its nodes go.
 *
 *	 plan.c        which joins get a filter, with the DEBUG1 reasons; the
 *	               filter taken from a bloomfilter index
 *	 placement.c   where a filter's probes go on the join's outer side
 *	 scantarget.c  which Seq Scans become BloomFilterScans
 *	 plantree.c    plan-tree helpers, and our nodes made (their custom_private
 *	               through private.h)
 *
 * It asks the cost model (cost.h) whether a filter pays, the skip room
 * whether a scan may be skipped (skip/skip.h), the ship room whether a
 * postgres_fdw scan takes the filter (ship/ship.h), and makes the exec
 * room's nodes (exec/exec.h).  A join the join search chose for what its
 * keys skip (paths/) has a marker on its outer side, which plan.c takes
 * out.  The module's planner hook (hooks.c) calls bloom_rf_plan.
 */
#ifndef BLOOM_RT_PLAN_H
#define BLOOM_RT_PLAN_H

#include "../cost.h"
#include "../paths/paths.h"
#include "../ship/ship.h"
#include "../skip/skip.h"

/* Add filters to a finished plan (plan.c; from the planner hook). */
extern void bloom_rf_plan(PlannedStmt *stmt);

/* What the planner knows of one filter it adds. */
typedef struct RuntimePlanInfo
{
	int id;
	RuntimeJoinKeys keys; /* how the join's keys compare */
	bool stable;          /* the inner side gives the same rows at every scan */
	RuntimeJoinCost cost; /* the cost model's figures (bloom_rf_cost_join) */
	RuntimeShipment ship; /* shipping it into postgres_fdw scans (ship/) */
	/* skipping scans by the build's key values (skip/) */
	bool probe_rows; /* probes filter rows; false: a filter placed only to skip or ship */
	bool fallback;   /* !probe_rows, but the rows of a scan that reads after all are probed */
	bool shared;     /* the build is a Parallel Hash Join's, shared (filter/shared.c) */
	int skippable;   /* probes placed on scans of partitions that may be skipped */
	RuntimeSkipMemo skip_memo;
	int ranged; /* Seq Scans replaced by BloomFilterScans that read block ranges or keys */
	/* scans that test the keys against ranges (partition bounds, BRIN): the build keeps stretches */
	int stretchable;
	/* the skip the join search priced this join for (paths/), or PLANNED_NONE */
	RuntimePlannedSkip planned;
	/* taken from a bloomfilter index rather than built (plan.c) */
	Oid source_index; /* the index, or InvalidOid */
	int source_key;   /* the key it holds (0-based), or -1 */
} RuntimePlanInfo;

/* Numbering of the new nodes and filters of one statement. */
typedef struct RuntimePlanContext
{
	PlannedStmt *stmt; /* the statement: its range table, its PARAM_EXEC types */
	int next_node_id;
	int next_filter_id;
	RuntimeLineages lineages; /* the partitions' ancestry (skip/), worked out as asked */
} RuntimePlanContext;

/*
 * placement.c: put the probes of a filter into the outer side of its join,
 * whose top node is outer; keys are the join's outer keys.  Returns the node
 * that replaces outer.
 */
extern Plan *bloom_rf_place_probes(Plan *outer, List *keys, RuntimePlanInfo *info,
                                   RuntimePlanContext *ctx);

/* placement.c: assert that every node of ours in the tree sits where it may. */
extern void bloom_rf_check_edges(Plan *plan);

/*
 * scantarget.c: a BloomFilterScan to put in place of plan, the node a probe
 * would sit on (with neither volatile functions nor subqueries: the caller
 * checks), if plan is a Seq Scan (or a Parallel one) of a table with a BRIN
 * index on one of the keys (cols: their columns in plan's output) that can
 * test it, or a B-tree index led by one, or of a partition that may be
 * skipped (partition and attnos, as bloom_rf_skip_target gives them; NIL
 * if not); NULL if not.  *by_brin: it reads by a BRIN index's summaries.
 */
extern Plan *bloom_rf_scan_target(Plan *plan, const AttrNumber *cols, const RuntimePlanInfo *info,
                                  RuntimePlanContext *ctx, List *partition,
                                  const AttrNumber *attnos, bool *by_brin);

/* plantree.c: call fn(child, arg) for every child plan of plan (read only). */
typedef void (*RuntimePlanWalker)(Plan *plan, void *arg);
extern void bloom_rf_walk_children(Plan *plan, RuntimePlanWalker fn, void *arg);

/* plantree.c: whether plan is one of our nodes (build or probe). */
extern bool bloom_rf_is_our_plan(const Plan *plan);

/*
 * plantree.c: whether a join type is one of the right joins (right, right
 * anti from 16, right semi from 18): its rows come from the inner side's
 * matches and unmatched inner rows, and outer rows that match nothing
 * are discarded.
 */
extern bool bloom_rf_is_right_join(JoinType jointype);

/*
 * plantree.c: whether expressions may be evaluated on other rows than the
 * plan evaluates them on: no volatile functions, no subqueries.
 */
extern bool bloom_rf_exprs_safe(List *exprs);

/*
 * plantree.c: whether a subtree returns the same rows at every scan (only
 * node types known to, with neither volatile functions nor subqueries).
 * Parameters are the caller's to check (allParam).
 */
extern bool bloom_rf_returns_same_rows(Plan *plan);

/*
 * plantree.c: the build node over child (the Hash node's child), passing
 * child's tuples through, with keys over child's output (OUTER_VAR); made
 * last, when everything it is told is final.
 */
extern Plan *bloom_rf_make_build(Plan *child, List *keys, const RuntimePlanInfo *info,
                                 RuntimePlanContext *ctx);

/*
 * plantree.c: a probe node over child, likewise.  partition and attnos: a
 * scan of a partition that it may skip (bloom_rf_skip_target's), or NIL;
 * not_shipped: why the postgres_fdw scan below did not take the filter,
 * for EXPLAIN, or NULL.
 */
extern Plan *bloom_rf_make_probe(Plan *child, List *keys, const RuntimePlanInfo *info,
                                 List *partition, const AttrNumber *attnos, const char *not_shipped,
                                 RuntimePlanContext *ctx);

#endif /* BLOOM_RT_PLAN_H */
