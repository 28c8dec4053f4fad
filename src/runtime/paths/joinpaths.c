/*
 * joinpaths.c
 *	  The join search's part of runtime filters (set_join_pathlist_hook):
 *	  for a join whose hash keys will let the outer side skip partitions,
 *	  a hash join priced at what the skip leaves.
 *
 * PostgreSQL calls the hook for each pair of rels it joins, in each
 * orientation, after its own paths.  It is offered a path only where:
 *	 - runtime filters and their skip costing are on, and hash joins allowed;
 *	 - the join is inner or semi, of two base tables (the outer the one to
 *	   skip, the first join of it: the skip goes to the first join of a
 *	   scan, placement stops at a BloomFilterScan); the outer partitioned
 *	   (partread.c), or a plain table with indexes (tableread.c: BRIN
 *	   ranges or a B-tree's rows);
 *	 - the inner table has quals (else its keys are every key) and no
 *	   more rows than a filter holds;
 *	 - the outer table is partitioned by range or list on one column that a
 *	   hash clause compares, as a plain column, with a plain column of the
 *	   inner table, by an operator of the partition's family, under its
 *	   collation or a deterministic one; no pseudo-constant quals, none
 *	   with volatile functions or subqueries (placement.c skips no such scan);
 *	 - no TABLESAMPLE, no volatile functions or subqueries in what the
 *	   outer scan returns, and the outer table is not the one an UPDATE,
 *	   DELETE or MERGE changes;
 *	 - the estimate (keyrange.c, partread.c), as far as it is trusted
 *	   (trusted()), reads at most 90% of what PostgreSQL's cheapest outer
 *	   path costs; where the statistics' estimate does not, the keys read
 *	   at plan time (keyprobe.c), if they can be, are priced instead.
 * The hash join (over the marker, marker.c, and the inner table's cheapest
 * path) is made as PostgreSQL makes its own (try_hashjoin_path), with no
 * parameters: it differs from PostgreSQL's twin only in its cost, and
 * add_path keeps the cheaper.  Its partial twins go over the outer rel's
 * Parallel Append or Parallel Seq Scan: each process hashing the whole
 * inner side, or a Parallel Hash of the inner rel's partial path, whose
 * shares every process merges (filter/shared.c).
 * Where the inner side's keys were read at plan time, the join's rows are
 * raised to what they say first (rows_from_keys): PostgreSQL's estimate of
 * a filtered dimension's join is too low for the joins above it.
 * DEBUG1 says what was offered.
 */
#include "paths.h"
#include "../settings.h"
#include "../../bloom_compat.h"
#include "../../../core/bf_runtime.h"

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "parser/parsetree.h"
#include "optimizer/paths.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

/* offered only where the skip leaves at most this share of the outer side's cost */
#define MAX_SHARE_OF_COST 0.9
/* how far an estimate of the skip from the statistics is trusted (trusted()) */
#define STATISTICS_TRUST 0.5

static void offer_partial(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
                          RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra,
                          List *hashclauses, Var *outer_var, Var *inner_var, Oid opno, Oid family,
                          Oid collation, const RuntimeKeyRange *range);
static bool trusted(RuntimePlannedSkip *planned, const RuntimeKeyRange *range, Path *outer);
static void rows_from_keys(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
                           JoinType jointype, JoinPathExtraData *extra, Var *outer_var,
                           const RuntimeKeyRange *range);
static bool join_key(RelOptInfo *outerrel, RelOptInfo *innerrel, RestrictInfo *rinfo,
                     Var **outer_var, Var **inner_var, Oid *opno, Oid *family, Oid *collation);
static bool estimate(PlannerInfo *root, RelOptInfo *outerrel, Path *outer, Var *outer_var,
                     Var *inner_var, Oid opno, Oid family, Oid collation,
                     const RuntimeKeyRange *range, RuntimePlannedSkip *planned);

void
bloom_rf_paths_join(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
                    RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	List *hashclauses = NIL;
	Var *outer_var = NULL, *inner_var = NULL;
	Oid family = InvalidOid, collation = InvalidOid, opno = InvalidOid;
	RuntimeKeyRange range;
	RuntimePlannedSkip planned = {0};
	Path *outer, *inner, *marker;
	JoinCostWorkspace workspace;
	bool usable, offered, partitioned;
	ListCell *lc;

	/* the quick refusals first: the hook runs for every pair of rels joined */
	if (!bloom_rf_enabled || !bloom_rf_skip_costing || !enable_hashjoin)
		return;
	if (jointype != JOIN_INNER && jointype != JOIN_SEMI)
		return;
	if (outerrel->reloptkind != RELOPT_BASEREL || outerrel->rtekind != RTE_RELATION ||
	    innerrel->reloptkind != RELOPT_BASEREL || innerrel->rtekind != RTE_RELATION ||
	    innerrel->baserestrictinfo == NIL || joinrel->reloptkind != RELOPT_JOINREL)
		return;
	partitioned = outerrel->part_scheme != NULL;
	/* a plain table: one whose scan a BloomFilterScan may read by an index (tableread.c) */
	if (!partitioned && outerrel->indexlist == NIL)
		return;
	if (!bms_is_empty(outerrel->lateral_relids) || !bms_is_empty(innerrel->lateral_relids))
		return;
	if (innerrel->rows > bf_rf_max_keys(bloom_rf_max_bytes()))
		return;
	/*
	 * a sampled scan is never skipped (lineage.c), nor one computing volatile
	 * output; and the table an UPDATE, DELETE or MERGE changes is left to
	 * PostgreSQL (its partitions' rows carry their identity in ROWID_VAR
	 * columns, which only an Append may pass up: a marker's target list may
	 * not hold them)
	 */
	if (bms_is_member(outerrel->relid, root->all_result_relids) ||
	    planner_rt_fetch(outerrel->relid, root)->tablesample != NULL ||
	    contain_volatile_functions((Node *) outerrel->reltarget->exprs) ||
	    contain_subplans((Node *) outerrel->reltarget->exprs))
		return;
	foreach (lc, outerrel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst(lc);

		/* a gating Result would sit between the join and the marker */
		if (rinfo->pseudoconstant)
			return;
		/* a scan that runs volatile functions or subqueries is never skipped (placement.c) */
		if (contain_volatile_functions((Node *) rinfo->clause) ||
		    contain_subplans((Node *) rinfo->clause))
			return;
	}

	/* the hash clauses, as hash_inner_and_outer picks them; one of them on the partition column */
	foreach (lc, extra->restrictlist)
	{
		RestrictInfo *rinfo = lfirst(lc);
		Var *o, *i;

		if (!rinfo->can_join || !OidIsValid(rinfo->hashjoinoperator))
			continue;
		if (!((bms_is_subset(rinfo->left_relids, outerrel->relids) &&
		       bms_is_subset(rinfo->right_relids, innerrel->relids)) ||
		      (bms_is_subset(rinfo->left_relids, innerrel->relids) &&
		       bms_is_subset(rinfo->right_relids, outerrel->relids))))
			continue;
		hashclauses = lappend(hashclauses, rinfo);
		if (outer_var == NULL &&
		    join_key(outerrel, innerrel, rinfo, &o, &i, &opno, &family, &collation))
		{
			outer_var = o;
			inner_var = i;
		}
	}
	if (outer_var == NULL)
		return;

	bloom_rf_key_range(root, innerrel, inner_var, family, collation, &range);
	outer = outerrel->cheapest_total_path;
	inner = innerrel->cheapest_total_path;
	/* (the cheapest outer path may be a Gather, whose workers' scans no join above skips) */
	usable =
	    outer != NULL && inner != NULL && outer->param_info == NULL && inner->param_info == NULL;
	offered = usable && estimate(root, outerrel, outer, outer_var, inner_var, opno, family,
	                             collation, &range, &planned);
	/*
	 * where the statistics give no skip worth a plan, or one from their
	 * bounds (a correlation, widened and trusted half: a month of a date
	 * dimension's year and month columns priced as 18 of 61 partitions, 7,000
	 * of 25,222 BRIN blocks, where 1 and 512 are read), the keys themselves,
	 * if a small indexed dimension can be read at plan time (keyprobe.c)
	 */
	if (usable && (!offered || range.from_statistics) &&
	    bloom_rf_key_probe(root, innerrel, outerrel, outer_var, inner_var, family, collation,
	                       &range))
	{
		memset(&planned, 0, sizeof(planned));
		offered = estimate(root, outerrel, outer, outer_var, inner_var, opno, family, collation,
		                   &range, &planned);
	}
	/* before this join's paths are made: their rows are the join's */
	if (usable && range.probed)
		rows_from_keys(root, joinrel, outerrel, jointype, extra, outer_var, &range);
	if (offered)
	{
		marker = bloom_rf_marker_path(outerrel, outer, &planned);
		initial_cost_hashjoin(root, &workspace, jointype, hashclauses, marker, inner, extra, false);
		if (bloom_add_path_precheck(joinrel, &workspace, NIL, NULL))
		{
			add_path(joinrel, (Path *) create_hashjoin_path(
			                      root, joinrel, jointype, &workspace, extra, marker, inner, false,
			                      extra->restrictlist, NULL, hashclauses));
			elog(DEBUG1,
			     "bloomfilter: offered a hash join skipping %s: %.0f of %.0f expected read "
			     "(%.0f keys%s%s), outer cost %.2f instead of %.2f",
			     planned.kind == PLANNED_PARTITIONS ? "partitions"
			     : planned.kind == PLANNED_BLOCKS   ? "block ranges (blocks)"
			                                        : "all but the keys' rows (keys, of blocks)",
			     planned.scans_read, planned.scans, range.keys, range.source ? ", bounded by " : "",
			     range.source ? range.source : "", planned.cost, planned.cost_whole);
		}
	}
	offer_partial(root, joinrel, outerrel, innerrel, jointype, extra, hashclauses, outer_var,
	              inner_var, opno, family, collation, &range);
}

/*
 * The join's rows from the keys read at plan time (range->probed: the
 * inner side's keys within the outer side's bounds, exactly): an outer row
 * matches where its key is one of them.  As PostgreSQL assumes, the
 * smaller set of distinct keys lies within the larger, here the outer
 * key's distinct values and the inner side's keys within the bounds, its
 * quals aside (range->nwithin): the outer rows whose key is not NULL,
 * times the keys over the larger of the two.  PostgreSQL's estimate
 * (eqjoinsel) divides by the larger side's distinct values whatever quals
 * the inner side has: a month of a 200-year date dimension joined to a
 * 5-year fact is 1,234 rows by it and 49,290 in fact, and the join above
 * it (the item's) then takes an index probe per row.  Only for a semi
 * join, or an inner one whose inner side is unique on the key (each
 * outer row meets at most one inner row), on the key alone (another
 * qual would leave fewer); only raised (where PostgreSQL's estimate is
 * higher it may rest on the most common values).  The paths PostgreSQL
 * made for the join before this hook (the other orientation, or this
 * one's) take the new rows too, their costs unchanged, so that the joins
 * above see the same rows whichever path they are given.
 */
static void
rows_from_keys(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel, JoinType jointype,
               JoinPathExtraData *extra, Var *outer_var, const RuntimeKeyRange *range)
{
	VariableStatData vardata;
	bool isdefault;
	double distinct, nullfrac = 0.0, rows, scale;
	ListCell *lc;

	Assert(range->probed && (jointype == JOIN_INNER || jointype == JOIN_SEMI));
	if (list_length(extra->restrictlist) != 1 || (jointype == JOIN_INNER && !extra->inner_unique))
		return;
	examine_variable(root, (Node *) outer_var, 0, &vardata);
	distinct = get_variable_numdistinct(&vardata, &isdefault);
	if (HeapTupleIsValid(vardata.statsTuple))
		nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
	ReleaseVariableStats(vardata);
	if (isdefault || distinct < 1)
		return; /* no statistics: nothing better to say */
	rows = outerrel->rows * (1.0 - nullfrac) *
	       Min(1.0, range->nvalues / Max(distinct, (double) range->nwithin));
	rows = clamp_row_est(rows);
	if (rows <= joinrel->rows)
		return;
	elog(DEBUG1, "bloomfilter: the join's rows from the %d keys read at plan time: %.0f, not %.0f",
	     range->nvalues, rows, joinrel->rows);
	scale = rows / joinrel->rows;
	joinrel->rows = rows;
	foreach (lc, joinrel->pathlist)
	{
		Path *path = lfirst(lc);

		if (path->param_info == NULL)
			path->rows = rows;
	}
	/* (a partial path's rows are one process's share: scaled alike) */
	foreach (lc, joinrel->partial_pathlist)
	{
		Path *path = lfirst(lc);

		if (path->param_info == NULL)
			path->rows = clamp_row_est(path->rows * scale);
	}
}

/* The estimate, for a partitioned or a plain outer table, and whether it is trusted enough. */
static bool
estimate(PlannerInfo *root, RelOptInfo *outerrel, Path *outer, Var *outer_var, Var *inner_var,
         Oid opno, Oid family, Oid collation, const RuntimeKeyRange *range,
         RuntimePlannedSkip *planned)
{
	if (outerrel->part_scheme != NULL)
		return bloom_rf_partition_read(root, outerrel, outer, range, inner_var->vartype, family,
		                               collation, planned) &&
		       trusted(planned, range, outer);
	return bloom_rf_table_read(root, outerrel, outer, outer_var, opno, family, collation, range,
	                           planned) &&
	       trusted(planned, range, outer);
}

/*
 * The same over the outer rel's cheapest partial path (a Parallel Append,
 * or a plain table's Parallel Seq Scan), as hash_inner_and_outer's partial
 * hash joins: one where every process hashes the whole inner side, and a
 * Parallel Hash over the inner rel's cheapest partial path, whose build is
 * shared (every share's keys merged in each process: filter/shared.c).
 * Both skip what the processes scan, which they share out (a plain table's
 * block ranges or keys: exec/scanshare.c).
 */
static void
offer_partial(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel,
              JoinType jointype, JoinPathExtraData *extra, List *hashclauses, Var *outer_var,
              Var *inner_var, Oid opno, Oid family, Oid collation, const RuntimeKeyRange *range)
{
	Path *outer, *inner, *marker;
	RuntimePlannedSkip planned = {0};
	JoinCostWorkspace workspace;
	const char *what = NULL;

	if (!joinrel->consider_parallel || outerrel->partial_pathlist == NIL)
		return;
	outer = linitial(outerrel->partial_pathlist);
	if (outer->param_info != NULL || !estimate(root, outerrel, outer, outer_var, inner_var, opno,
	                                           family, collation, range, &planned))
		return;
	marker = bloom_rf_marker_path(outerrel, outer, &planned);
	inner = innerrel->cheapest_total_path;
	if (inner == NULL || !inner->parallel_safe)
		inner = get_cheapest_parallel_safe_total_inner(innerrel->pathlist);
	if (inner != NULL && inner->param_info == NULL)
	{
		initial_cost_hashjoin(root, &workspace, jointype, hashclauses, marker, inner, extra, false);
		if (bloom_add_partial_path_precheck(joinrel, &workspace, NIL))
		{
			add_partial_path(joinrel, (Path *) create_hashjoin_path(
			                              root, joinrel, jointype, &workspace, extra, marker, inner,
			                              false, extra->restrictlist, NULL, hashclauses));
			what = "a partial hash join";
		}
	}
	if (enable_parallel_hash && innerrel->partial_pathlist != NIL &&
	    (inner = linitial(innerrel->partial_pathlist))->param_info == NULL)
	{
		initial_cost_hashjoin(root, &workspace, jointype, hashclauses, marker, inner, extra, true);
		if (bloom_add_partial_path_precheck(joinrel, &workspace, NIL))
		{
			add_partial_path(joinrel, (Path *) create_hashjoin_path(
			                              root, joinrel, jointype, &workspace, extra, marker, inner,
			                              true, extra->restrictlist, NULL, hashclauses));
			what = what ? "a partial hash join and a parallel one" : "a parallel hash join";
		}
	}
	if (what != NULL)
		elog(DEBUG1, "bloomfilter: offered %s skipping %s: %.0f of %.0f expected read", what,
		     planned.kind == PLANNED_PARTITIONS ? "partitions"
		     : planned.kind == PLANNED_BLOCKS   ? "block ranges (blocks)"
		                                        : "all but the keys' rows (keys, of blocks)",
		     planned.scans_read, planned.scans);
}

/*
 * The estimate as far as it is trusted, and whether it is offered: bounds
 * from quals on the key are the keys' own (the runtime skips at least what
 * they exclude), and so are keys read at plan time, but bounds from the statistics (a whole-table correlation,
 * blind to keys out of order within a stretch, and perhaps stale) and
 * numbers of keys are estimates, trusted half: the outer side is priced at
 * the mean of the skip and of reading everything.  A plan that changed for
 * a skip that does not happen is then at most twice as dear as expected,
 * and a skip must be large to change a plan.  Offered where the outer side
 * costs at most MAX_SHARE_OF_COST of reading everything.
 */
static bool
trusted(RuntimePlannedSkip *planned, const RuntimeKeyRange *range, Path *outer)
{
	/* (a B-tree's read rests on the number of keys, which only a read knows) */
	if (!range->probed && (range->from_statistics || !(range->has_lo || range->has_hi) ||
	                       planned->kind == PLANNED_KEYS))
		planned->cost =
		    STATISTICS_TRUST * planned->cost + (1 - STATISTICS_TRUST) * outer->total_cost;
	return planned->cost <= MAX_SHARE_OF_COST * outer->total_cost;
}

/*
 * Whether rinfo compares a plain column of the outer rel (*outer_var) with
 * a plain column of the inner rel (*inner_var) by a strict operator (*opno,
 * the outer column on its left) of a B-tree family (*family, the keys'
 * order) under *collation: for a partitioned outer rel, its partition
 * column (its only one), by an operator of the partition's family under its
 * collation (or a deterministic one); for a plain one, any column (whether
 * an index can read by it is tableread.c's to say).
 */
static bool
join_key(RelOptInfo *outerrel, RelOptInfo *innerrel, RestrictInfo *rinfo, Var **outer_var,
         Var **inner_var, Oid *opno, Oid *family, Oid *collation)
{
	PartitionScheme scheme = outerrel->part_scheme;
	OpExpr *op = (OpExpr *) rinfo->clause;
	Node *left, *right;

	if (!IsA(op, OpExpr) || list_length(op->args) != 2 || !op_strict(op->opno))
		return false;
	left = strip_implicit_coercions(linitial(op->args));
	right = strip_implicit_coercions(lsecond(op->args));
	*opno = op->opno;
	if (!bms_is_subset(rinfo->left_relids, outerrel->relids))
	{
		Node *swap = left;

		left = right;
		right = swap;
		*opno = get_commutator(op->opno);
	}
	if (!OidIsValid(*opno) || !IsA(left, Var) || !IsA(right, Var))
		return false;
	*outer_var = (Var *) left;
	*inner_var = (Var *) right;
	if ((Index) (*outer_var)->varno != outerrel->relid || (*outer_var)->varattno <= 0 ||
	    (Index) (*inner_var)->varno != innerrel->relid || (*inner_var)->varattno <= 0)
		return false;
	*collation = op->inputcollid;
	if (scheme != NULL)
	{
		Node *partexpr;

		if (scheme->partnatts != 1 || outerrel->partexprs == NULL || outerrel->partexprs[0] == NIL)
			return false;
		partexpr = linitial(outerrel->partexprs[0]);
		if (!IsA(partexpr, Var) || ((Var *) partexpr)->varattno != (*outer_var)->varattno ||
		    !op_in_opfamily(*opno, scheme->partopfamily[0]))
			return false;
		if (OidIsValid(*collation) && *collation != scheme->partcollation[0] &&
		    !get_collation_isdeterministic(*collation))
			return false;
		*family = scheme->partopfamily[0];
		*collation = scheme->partcollation[0];
		return true;
	}
	/* a plain table: the B-tree family that holds the operator as its "=" */
	{
		List *families = get_mergejoin_opfamilies(*opno);

		if (families == NIL)
			return false;
		*family = linitial_oid(families);
		return true;
	}
}
