/*
 * tableread.c
 *	  What of a plain outer table the inner side's keys let be read, at
 *	  plan time: the block ranges a BRIN index on the join column leaves,
 *	  or the keys' rows through a B-tree led by it, as a BloomFilterScan
 *	  (skip/brinranges.c, skip/btreekeys.c) is expected to read them.
 *
 * PostgreSQL prices a hash join's Seq Scan of the outer table whole; at run
 * time the scan, replaced by a BloomFilterScan, reads only what the built
 * keys need.  Offered only in place of a Seq Scan (the cheapest path: where
 * PostgreSQL would read by an index, it already reads little), the cheaper
 * of:
 *	 - BRIN (a minmax-like index: its family has ">=" and "<=" for the
 *	   keys, a column that follows the table's order, |correlation| >= 0.9):
 *	   the keys as stretches (the keys read at plan time, consecutive
 *	   integers joined; or the bounds of keyrange.c, one stretch), each
 *	   stretch's share of the table's rows by PostgreSQL's own selectivity
 *	   of "column between its ends", plus a block range for each stretch (a
 *	   stretch's rows start and end inside a range); where that is over
 *	   half the table, the run time reads it whole.  Each key (or stretch,
 *	   past 1,024 keys) is one scan of the index;
 *	 - a B-tree led by the column: no more than 1,024 keys (the run time
 *	   keeps no more one by one) and 16,384 inner rows (the planner's
 *	   placement makes no B-tree read past them), their rows by the
 *	   column's distinct values, priced by the run time's own model
 *	   (cost.c: what is cached, the correlation), as a share of reading
 *	   the whole table.
 * The share scales PostgreSQL's cost of the Seq Scan (a Parallel Seq
 * Scan's, already one process's, and its rows).  Tables under
 * MIN_TABLE_PAGES are not priced (read whole, they cost little).
 */
#include "paths.h"
#include "../cost.h"
#include "../filter/filter.h"

#include <math.h>

#include "access/brin.h"
#include "access/genam.h"
#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"

/* how closely a column must follow the table's order for BRIN to read little of it */
#define MIN_BRIN_CORRELATION 0.9
/* past this share of its block ranges, a BloomFilterScan reads the table whole (brinranges.c) */
#define MAX_BRIN_SHARE 0.5
/* smaller tables are not priced: reading them whole costs little, pricing costs planning time */
#define MIN_TABLE_PAGES 100

static double brin_share(PlannerInfo *root, RelOptInfo *outerrel, Var *outer_var, Oid opno,
                         Oid family, Oid collation, const RuntimeKeyRange *range,
                         double correlation, double *rows, double *extra);
static double btree_share(PlannerInfo *root, RelOptInfo *outerrel, Var *outer_var, Oid opno,
                          const RuntimeKeyRange *range, double correlation, double *rows,
                          double *nkeys);
static double stretch_selectivity(PlannerInfo *root, RelOptInfo *outerrel, Var *outer_var,
                                  Oid family, Oid keytype, Oid collation, const Datum *lo,
                                  const Datum *hi);

bool
bloom_rf_table_read(PlannerInfo *root, RelOptInfo *outerrel, Path *outer, Var *outer_var, Oid opno,
                    Oid family, Oid collation, const RuntimeKeyRange *range,
                    RuntimePlannedSkip *planned)
{
	RangeTblEntry *rte = planner_rt_fetch(outerrel->relid, root);
	double correlation, brin, btree, brin_rows = 0, btree_rows = 0, extra = 0, nkeys = 0;
	double share, rows;

	if (outer->pathtype != T_SeqScan || outer->param_info != NULL ||
	    rte->relkind != RELKIND_RELATION || outerrel->pages < MIN_TABLE_PAGES ||
	    outerrel->tuples <= 0)
		return false;
	correlation = bloom_rf_column_correlation(root, outer_var);
	brin = brin_share(root, outerrel, outer_var, opno, family, collation, range, correlation,
	                  &brin_rows, &extra);
	btree = btree_share(root, outerrel, outer_var, opno, range, correlation, &btree_rows, &nkeys);
	if (Min(brin, btree) >= 1.0)
		return false;
	memset(planned, 0, sizeof(*planned));
	if (brin <= btree)
	{
		share = brin;
		rows = brin_rows;
		planned->kind = PLANNED_BLOCKS;
		planned->scans_read = ceil(brin * outerrel->pages);
		planned->scans = outerrel->pages;
	}
	else
	{
		share = btree;
		rows = btree_rows;
		extra = 0;
		planned->kind = PLANNED_KEYS;
		planned->scans_read = nkeys;
		planned->scans = outerrel->pages;
	}
	planned->rows = Max(1.0, Min(outer->rows, rows * outer->rows / outerrel->tuples));
	planned->cost = outer->startup_cost + (outer->total_cost - outer->startup_cost) * share + extra;
	planned->cost_whole = outer->total_cost;
	return planned->cost < outer->total_cost;
}

/*
 * The share of outerrel's blocks a BRIN index on outer_var is expected to
 * let be read (2 if none can say), *rows the rows in them, *extra the
 * index's scans' cost.
 */
static double
brin_share(PlannerInfo *root, RelOptInfo *outerrel, Var *outer_var, Oid opno, Oid family,
           Oid collation, const RuntimeKeyRange *range, double correlation, double *rows,
           double *extra)
{
	Oid keytype, lefttype, righttype;
	IndexOptInfo *found = NULL;
	BlockNumber per_range;
	double selectivity = 0, stretches = 0, nranges, blocks, nkeys;
	ListCell *lc;
	Relation index;

	op_input_types(opno, &lefttype, &righttype);
	keytype = righttype;
	foreach (lc, outerrel->indexlist)
	{
		IndexOptInfo *info = lfirst(lc);

		if (info->relam != BRIN_AM_OID || info->hypothetical || info->indpred != NIL)
			continue;
		for (int c = 0; c < info->nkeycolumns && found == NULL; c++)
			if (info->indexkeys[c] == outer_var->varattno &&
			    op_in_opfamily(opno, info->opfamily[c]) &&
			    OidIsValid(get_opfamily_member(info->opfamily[c], lefttype, righttype,
			                                   BTGreaterEqualStrategyNumber)) &&
			    OidIsValid(get_opfamily_member(info->opfamily[c], lefttype, righttype,
			                                   BTLessEqualStrategyNumber)) &&
			    (!OidIsValid(collation) || info->indexcollations[c] == collation))
				found = info;
		if (found != NULL)
			break;
	}
	if (found == NULL || fabs(correlation) < MIN_BRIN_CORRELATION)
		return 2;
	if (range->probed)
	{
		/* the keys read, consecutive integers as one stretch */
		bool integral = bloom_rf_integer_type(keytype);

		for (int i = 0; i < range->nvalues;)
		{
			int j = i;

			while (integral && j + 1 < range->nvalues &&
			       bloom_rf_integer_value(keytype, range->values[j + 1]) ==
			           bloom_rf_integer_value(keytype, range->values[j]) + 1)
				j++;
			selectivity += stretch_selectivity(root, outerrel, outer_var, family, keytype,
			                                   collation, &range->values[i], &range->values[j]);
			stretches++;
			i = j + 1;
		}
	}
	else if (range->has_lo || range->has_hi)
	{
		selectivity = stretch_selectivity(root, outerrel, outer_var, family, keytype, collation,
		                                  range->has_lo ? &range->lo : NULL,
		                                  range->has_hi ? &range->hi : NULL);
		stretches = 1;
	}
	else
		return 2;
	index = index_open(found->indexoid, AccessShareLock);
	per_range = BrinGetPagesPerRange(index);
	index_close(index, AccessShareLock);
	nranges = ceil(outerrel->pages / (double) per_range);
	selectivity = Min(1.0, selectivity);
	blocks = Min((double) outerrel->pages, selectivity * outerrel->pages + stretches * per_range);
	if (blocks > MAX_BRIN_SHARE * outerrel->pages || nranges <= 2)
		return 2;
	*rows = selectivity * outerrel->tuples;
	/* one scan of the index, each of its pages and summaries, per key (per stretch past 1,024) */
	nkeys = range->probed ? Max(1, range->nvalues) : ceil(range->keys);
	*extra = (nkeys <= BLOOM_RF_EXACT_MAX ? nkeys : stretches) *
	         (found->pages * seq_page_cost + nranges * cpu_operator_cost);
	return blocks / outerrel->pages;
}

/*
 * The share of reading outerrel whole that reading the keys' rows through a
 * B-tree led by outer_var costs (2 if none can), *rows those rows, *nkeys
 * the keys.
 */
static double
btree_share(PlannerInfo *root, RelOptInfo *outerrel, Var *outer_var, Oid opno,
            const RuntimeKeyRange *range, double correlation, double *rows, double *nkeys)
{
	RangeTblEntry *rte = planner_rt_fetch(outerrel->relid, root);
	IndexOptInfo *found = NULL;
	VariableStatData vardata;
	double ndistinct;
	bool isdefault;
	ListCell *lc;

	foreach (lc, outerrel->indexlist)
	{
		IndexOptInfo *info = lfirst(lc);

		if (info->relam == BTREE_AM_OID && !info->hypothetical && info->indpred == NIL &&
		    info->amsearcharray && info->nkeycolumns >= 1 &&
		    info->indexkeys[0] == outer_var->varattno && op_in_opfamily(opno, info->opfamily[0]))
		{
			found = info;
			break;
		}
	}
	*nkeys = range->probed ? Max(1, range->nvalues) : ceil(range->keys);
	/* (as the planner's placement: plan/scantarget.c) */
	if (found == NULL || *nkeys > BLOOM_RF_EXACT_MAX ||
	    range->inner_rows > BLOOM_RF_BTREE_MAX_INNER_ROWS)
		return 2;
	examine_variable(root, (Node *) outer_var, 0, &vardata);
	ndistinct = get_variable_numdistinct(&vardata, &isdefault);
	ReleaseVariableStats(vardata);
	*rows = Min(outerrel->tuples, *nkeys * outerrel->tuples / Max(1.0, ndistinct));
	if (found->unique && found->nkeycolumns == 1)
		*rows = Min(*rows, *nkeys);
	return bloom_rf_cost_keys_share(rte->relid, found->indexoid, correlation, *nkeys, *rows);
}

/*
 * PostgreSQL's selectivity of "outer_var >= lo AND outer_var <= hi" (NULL:
 * that side open), the keys of keytype compared by family's operators.
 */
static double
stretch_selectivity(PlannerInfo *root, RelOptInfo *outerrel, Var *outer_var, Oid family,
                    Oid keytype, Oid collation, const Datum *lo, const Datum *hi)
{
	List *clauses = NIL;
	int16 typlen;
	bool typbyval;

	get_typlenbyval(keytype, &typlen, &typbyval);
	for (int side = 0; side < 2; side++)
	{
		const Datum *bound = side == 0 ? lo : hi;
		Oid op;
		Expr *clause;

		if (bound == NULL)
			continue;
		op = get_opfamily_member(family, outer_var->vartype, keytype,
		                         side == 0 ? BTGreaterEqualStrategyNumber
		                                   : BTLessEqualStrategyNumber);
		if (!OidIsValid(op))
			return 1.0;
		clause = make_opclause(
		    op, BOOLOID, false, (Expr *) outer_var,
		    (Expr *) makeConst(keytype, -1, collation, typlen, *bound, false, typbyval), InvalidOid,
		    collation);
		set_opfuncid((OpExpr *) clause);
		clauses = lappend(clauses, clause);
	}
	return clauses == NIL
	           ? 1.0
	           : clauselist_selectivity(root, clauses, outerrel->relid, JOIN_INNER, NULL);
}
