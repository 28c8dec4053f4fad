/*
 * plan.c
 *	  The planner's part of runtime filters: which hash joins get one.  It
 *	  works on the finished plan (the planner hook calls it after
 *	  standard_planner), whose expressions already refer to child nodes'
 *	  outputs (OUTER_VAR, INNER_VAR, INDEX_VAR); placement.c puts the
 *	  probes, cost.c prices the filter.
 *
 * A hash join gets a filter if its type discards the outer rows that match
 * nothing (inner, semi, right, right semi, right anti), its hash operators
 * are strict, its keys are neither volatile nor subqueries, and the cost
 * model (cost.c) says the filter pays; or, where it does not, if a scan on
 * its outer side can be skipped (partitions, BRIN block ranges) or can take
 * the filter into its remote query (postgres_fdw): those decide what is
 * read or shipped, cost next to nothing when useless, and need no estimate
 * of the rows that match.  DEBUG1 says why a join gets none.
 *
 * Where the inner side reads a whole table (a Seq Scan with no quals) and
 * a bloomfilter index holds one of the keys, and the filter only probes
 * rows, it is taken from the index (choose_source): the build reads no
 * key.  Skipping and shipping need the keys the build reads (its values,
 * the join's own hashing), so a filter placed for those is built.
 *
 * The filter's nodes get plan_node_ids above every existing one, and those
 * under a Gather are marked parallel-aware (for the shared memory in which
 * workers leave their counts).
 */
#include "plan.h"
#include "../settings.h"
#include "../../../core/bf_runtime.h"

#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_class_d.h"
#include "nodes/nodeFuncs.h"
#include "parser/parsetree.h"
#include "optimizer/tlist.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

static void find_max_id(Plan *plan, void *ctx);
#ifdef USE_ASSERT_CHECKING
static void assert_no_marker(Plan *plan, void *arg);
#endif
static void add_filters(Plan *plan, void *ctx);
static void mark_under_gather(Plan *plan, void *below_gather);
static void try_filter(HashJoin *join, RuntimePlanContext *ctx);
static const char *why_no_filter(const HashJoin *join, const Hash *hash,
                                 const RuntimePlanInfo *info);
static void debug_no_filter(const RuntimePlanInfo *info, const char *why);
static Oid order_family(Oid opno);
static bool filterable_join(JoinType jointype);
static Oid hash_family(Oid opno);
static Oid family_of(Oid opno, Oid am, int16 strategy);
static void choose_source(const HashJoin *join, const Hash *hash, RuntimePlanInfo *info,
                          RuntimePlanContext *ctx);
static Var *scanned_column(const Plan *scan, Expr *key);

/* Apply a walker to the statement's main tree and to every subplan's. */
static void
walk_statement(PlannedStmt *stmt, RuntimePlanWalker fn, void *arg)
{
	ListCell *lc;

	fn(stmt->planTree, arg);
	foreach (lc, stmt->subplans)
		if (lfirst(lc) != NULL)
			fn(lfirst(lc), arg);
}

void
bloom_rf_plan(PlannedStmt *stmt)
{
	RuntimePlanContext ctx = {stmt, 0, 1, {stmt, NULL, NULL, 0}};
	bool below_gather = false;

	/* new nodes need plan_node_ids unique in the statement (parallel query) */
	walk_statement(stmt, find_max_id, &ctx);
	ctx.next_node_id++;

	walk_statement(stmt, add_filters, &ctx);
#ifdef USE_ASSERT_CHECKING
	/* every marker (paths/) was on a hash join's outer side, and is gone */
	walk_statement(stmt, assert_no_marker, NULL);
#endif
	if (ctx.next_filter_id == 1)
		return;
	walk_statement(stmt, mark_under_gather, &below_gather);
#ifdef USE_ASSERT_CHECKING
	{
		ListCell *lc;

		bloom_rf_check_edges(stmt->planTree);
		foreach (lc, stmt->subplans)
			if (lfirst(lc) != NULL)
				bloom_rf_check_edges(lfirst(lc));
	}
#endif
}

#ifdef USE_ASSERT_CHECKING
static void
assert_no_marker(Plan *plan, void *arg)
{
	Assert(!bloom_rf_is_marker(plan));
	bloom_rf_walk_children(plan, assert_no_marker, arg);
}
#endif

static void
find_max_id(Plan *plan, void *ctx)
{
	RuntimePlanContext *numbering = ctx;

	numbering->next_node_id = Max(numbering->next_node_id, plan->plan_node_id);
	bloom_rf_walk_children(plan, find_max_id, ctx);
}

/*
 * Our nodes under Gather are marked parallel-aware: that is what gives them
 * the shared memory in which workers leave their counts (counts.c).
 * *below_gather tells whether plan is below a Gather (or Gather Merge).
 */
static void
mark_under_gather(Plan *plan, void *below_gather)
{
	bool below = *(bool *) below_gather;

	if (below && bloom_rf_is_our_plan(plan))
		plan->parallel_aware = true;
	below = below || IsA(plan, Gather) || IsA(plan, GatherMerge);
	bloom_rf_walk_children(plan, mark_under_gather, &below);
}

/*
 * Bottom up, so that a join's probes can pass through those of the joins
 * below it.  The probes replace the join's outer child and the build goes
 * under its Hash node: the nodes a walker is handed stay in place.
 */
static void
add_filters(Plan *plan, void *ctx)
{
	bloom_rf_walk_children(plan, add_filters, ctx);
	if (IsA(plan, HashJoin))
		try_filter((HashJoin *) plan, ctx);
}

static void
try_filter(HashJoin *join, RuntimePlanContext *ctx)
{
	Hash *hash = (Hash *) innerPlan(join);
	RuntimePlanInfo info = {0};
	const char *why;
	const char *mode = "";
	Plan *replaced;
	double saved;
	ListCell *lc;
	int i = 0;

	if (hash == NULL || !IsA(hash, Hash) || outerPlan(join) == NULL)
		return; /* not a plan the core planner makes */
	/* chosen for what its keys skip (paths/): the marker goes, the filter must come */
	if ((replaced = bloom_rf_marker_take(outerPlan(join), &info.planned)) != NULL)
		outerPlan(join) = replaced;

	info.keys.nkeys = list_length(join->hashkeys);
	info.ship.remote_param = -1;
	info.source_key = -1;
	/* PARAM_EXEC values do not reach parallel workers */
	info.ship.may_push = !hash->plan.parallel_aware;
	info.shared = hash->plan.parallel_aware;
	bloom_rf_cost_join(join, hash, &info.cost);
	if ((why = why_no_filter(join, hash, &info)) != NULL)
	{
		debug_no_filter(&info, why);
		return;
	}

	info.id = ctx->next_filter_id++;
	info.keys.operators = join->hashoperators;
	info.keys.collations = join->hashcollations;
	info.keys.families = palloc(info.keys.nkeys * sizeof(Oid));
	info.keys.orders = palloc(info.keys.nkeys * sizeof(Oid));
	foreach (lc, join->hashoperators)
	{
		info.keys.families[i] = hash_family(lfirst_oid(lc));
		info.keys.orders[i++] = order_family(lfirst_oid(lc));
	}
	info.stable =
	    bms_is_empty(hash->plan.allParam) && bloom_rf_returns_same_rows(hash->plan.lefttree);
	/*
	 * Where probing rows is not expected to pay, the filter may still decide
	 * what is read (partitions skipped) or shipped (postgres_fdw): that
	 * costs next to nothing when it turns out useless, and needs no estimate
	 * of the rows that match, which is often far off (or, for a foreign
	 * table never analyzed, says every row matches).  The probes then go
	 * only where they skip or ship; if there is no such place, no filter.
	 */
	info.probe_rows = info.cost.worthwhile;
	/*
	 * A scan that may skip may read after all; its rows are then probed
	 * (placement.c), unless the hash table is expected to fit in the CPU
	 * cache, where a probe would only be disabled at run time (its node
	 * alone costs the rows a few per cent).
	 */
	info.fallback = !info.probe_rows && bloom_rf_cost_built_table(info.cost.table_bytes, &saved);
	if (!info.probe_rows)
	{
		if (info.cost.inner_rows > bf_rf_max_keys(bloom_rf_max_bytes()))
		{
			ctx->next_filter_id--;
			debug_no_filter(&info, "a filter is not expected to pay, and the inner side is too "
			                       "large to skip or ship by");
			return;
		}
		outerPlan(join) = bloom_rf_place_probes(outerPlan(join), join->hashkeys, &info, ctx);
		if (info.skippable == 0 && info.ranged == 0 && info.ship.pushed == 0)
		{
			ctx->next_filter_id--;
			debug_no_filter(&info, "a filter is not expected to pay, and no scan can be skipped "
			                       "or shipped by it");
			return;
		}
		mode = ", only to skip and ship: probing rows is not expected to pay, skipping and "
		       "shipping need no estimate";
	}
	else
	{
		outerPlan(join) = bloom_rf_place_probes(outerPlan(join), join->hashkeys, &info, ctx);
		if (info.skippable == 0 && info.ranged == 0 && info.ship.pushed == 0 && !info.shared)
			choose_source(join, hash, &info, ctx);
	}
	elog(DEBUG1,
	     "bloomfilter: runtime filter %d for a hash join (estimated %.0f outer rows, %.0f inner "
	     "rows in %.0f kB, %.1f%% of outer rows matching)%s%s",
	     info.id, info.cost.outer_rows, info.cost.inner_rows, info.cost.table_bytes / 1024,
	     100.0 * info.cost.pass, bloom_rf_forced ? ", forced" : "", mode);

	hash->plan.lefttree = bloom_rf_make_build(hash->plan.lefttree, hash->hashkeys, &info, ctx);
	if (info.skippable > 0)
		elog(DEBUG1, "bloomfilter: runtime filter %d may skip %d partition scans", info.id,
		     info.skippable);
	else if (info.planned.kind == PLANNED_PARTITIONS)
		elog(DEBUG1,
		     "bloomfilter: runtime filter %d was chosen for what its keys were expected to skip, "
		     "and no partition scan can be skipped",
		     info.id);
	if (info.ranged == 0 &&
	    (info.planned.kind == PLANNED_BLOCKS || info.planned.kind == PLANNED_KEYS))
		elog(DEBUG1,
		     "bloomfilter: runtime filter %d was chosen for what its keys were expected to skip, "
		     "and no scan reads by them",
		     info.id);
	if (info.ranged > 0)
		elog(DEBUG1, "bloomfilter: runtime filter %d may skip block ranges of %d scans", info.id,
		     info.ranged);
	if (info.ship.pushed > 0)
		elog(DEBUG1, "bloomfilter: runtime filter %d shipped into %d postgres_fdw scans", info.id,
		     info.ship.pushed);
	/* the outer side must not be read before the filter is built, where it skips or ships */
	if ((info.ship.pushed > 0 || info.skippable > 0 || info.ranged > 0) &&
	    !bloom_rf_is_right_join(join->join.jointype))
		bloom_rf_push_hold_outer(join, hash);
}

static void
debug_no_filter(const RuntimePlanInfo *info, const char *why)
{
	elog(DEBUG1,
	     "bloomfilter: no runtime filter for a hash join (estimated %.0f outer rows, "
	     "%.0f inner rows in %.0f kB, %.1f%% of outer rows matching): %s%s",
	     info->cost.outer_rows, info->cost.inner_rows, info->cost.table_bytes / 1024,
	     100.0 * info->cost.pass, why,
	     info->planned.kind != PLANNED_NONE ? " (the join was chosen for what its keys were "
	                                          "expected to skip: nothing is)"
	                                        : "");
}

/* Why a join can take no filter (the DEBUG1 reason), or NULL if it can. */
static const char *
why_no_filter(const HashJoin *join, const Hash *hash, const RuntimePlanInfo *info)
{
	ListCell *lc;

	if (!filterable_join(join->join.jointype))
		return "its type keeps outer rows that match nothing";
	if (info->keys.nkeys == 0 || list_length(hash->hashkeys) != info->keys.nkeys ||
	    list_length(join->hashoperators) != info->keys.nkeys)
		return "its keys are not as expected";
	if (!bloom_rf_exprs_safe(join->hashkeys) || !bloom_rf_exprs_safe(hash->hashkeys))
		return "a key is volatile or holds a subquery";
	foreach (lc, join->hashoperators)
		if (!op_strict(lfirst_oid(lc)))
			return "an operator is not strict";
	return NULL;
}

/* Join types whose unmatched outer rows are discarded. */
static bool
filterable_join(JoinType jointype)
{
	return jointype == JOIN_INNER || jointype == JOIN_SEMI || bloom_rf_is_right_join(jointype);
}

/*
 * Take the filter from a bloomfilter index where the inner side is a whole
 * table with one on a key (src/index/source.h says when that is correct):
 * the Hash node's child is a Seq Scan of a plain table or a materialized
 * view with no quals (a parallel one is refused with info->shared by the
 * caller), and key i of the inner side is one of its columns, with the
 * index's hashing of the outer key i agreeing with the join's operator.
 * The first key that has one is taken; the filter then tests that key
 * alone.  The index is added to the statement's relations: a change to it
 * makes the plan be made again.
 */
static void
choose_source(const HashJoin *join, const Hash *hash, RuntimePlanInfo *info,
              RuntimePlanContext *ctx)
{
	const Plan *inner = hash->plan.lefttree;
	RangeTblEntry *rte;
	ListCell *lc;

	if (inner == NULL || !IsA(inner, SeqScan) || inner->qual != NIL || inner->parallel_aware)
		return;
	rte = rt_fetch(((const Scan *) inner)->scanrelid, ctx->stmt->rtable);
	if (rte->rtekind != RTE_RELATION ||
	    (rte->relkind != RELKIND_RELATION && rte->relkind != RELKIND_MATVIEW))
		return;
	foreach (lc, hash->hashkeys)
	{
		int i = foreach_current_index(lc);
		Var *column = scanned_column(inner, lfirst(lc));
		const char *why;
		bool transient = false;
		Oid index;

		if (column == NULL)
			continue;
		index = bloom_index_source_find(
		    rte->relid, column->varattno, list_nth_oid(join->hashoperators, i),
		    exprType(list_nth(join->hashkeys, i)), list_nth_oid(join->hashcollations, i),
		    BF_RF_TARGET_FPP, &why, &transient);
		if (transient)
			ctx->stmt->transientPlan = true;
		if (OidIsValid(index))
		{
			info->source_index = index;
			info->source_key = i;
			ctx->stmt->relationOids = lappend_oid(ctx->stmt->relationOids, index);
			elog(DEBUG1, "bloomfilter: runtime filter %d taken from index \"%s\"", info->id,
			     get_rel_name(index));
			return;
		}
		if (why != NULL)
			elog(DEBUG1, "bloomfilter: runtime filter %d built, not taken from an index: %s",
			     info->id, why);
	}
}

/*
 * The column of the scan's table that key, an expression over the scan's
 * output (OUTER_VAR, as a Hash node's keys are), reads, through binary
 * coercions; NULL if it is not one column.
 */
static Var *
scanned_column(const Plan *scan, Expr *key)
{
	TargetEntry *tle;

	while (IsA(key, RelabelType))
		key = ((RelabelType *) key)->arg;
	if (!IsA(key, Var) || ((Var *) key)->varno != OUTER_VAR)
		return NULL;
	tle = get_tle_by_resno(scan->targetlist, ((Var *) key)->varattno);
	if (tle == NULL)
		return NULL;
	key = tle->expr;
	while (IsA(key, RelabelType))
		key = ((RelabelType *) key)->arg;
	if (!IsA(key, Var) || (Index) ((Var *) key)->varno != ((const Scan *) scan)->scanrelid ||
	    ((Var *) key)->varattno <= 0 || ((Var *) key)->varlevelsup != 0)
		return NULL;
	return (Var *) key;
}

/*
 * The first operator family of access method am holding the operator opno
 * with strategy, or InvalidOid.
 */
static Oid
family_of(Oid opno, Oid am, int16 strategy)
{
	CatCList *list = SearchSysCacheList1(AMOPOPID, ObjectIdGetDatum(opno));
	Oid family = InvalidOid;

	for (int i = 0; i < list->n_members; i++)
	{
		Form_pg_amop amop = (Form_pg_amop) GETSTRUCT(&list->members[i]->tuple);

		if (amop->amopmethod == am && amop->amopstrategy == strategy)
		{
			family = amop->amopfamily;
			break;
		}
	}
	ReleaseSysCacheList(list);
	return family;
}

/* The hash operator family an equality operator belongs to, or InvalidOid. */
static Oid
hash_family(Oid opno)
{
	return family_of(opno, HASH_AM_OID, HTEqualStrategyNumber);
}

/*
 * The B-tree operator family that orders the values of an equality
 * operator's right (inner) side as its equality does: the family of that
 * type's default B-tree class if the operator is in it, else any B-tree
 * family holding it as its equality; InvalidOid if none.
 */
static Oid
order_family(Oid opno)
{
	Oid left, right;
	TypeCacheEntry *type;

	op_input_types(opno, &left, &right);
	/* the type cache keeps the default class's family (a catalog scan otherwise) */
	type = lookup_type_cache(right, TYPECACHE_BTREE_OPFAMILY);
	if (OidIsValid(type->btree_opf) && op_in_opfamily(opno, type->btree_opf))
		return type->btree_opf;
	return family_of(opno, BTREE_AM_OID, BTEqualStrategyNumber);
}
