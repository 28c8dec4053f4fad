/*
 * keyrange.c
 *	  What a filtered inner side's quals say of its join key's values, at
 *	  plan time: how many distinct keys, and their least and greatest.
 *
 * The number is the planner's row estimate of the inner side, at most the
 * key column's distinct values.  The bounds come from the quals, tightest
 * first, else there are none:
 *	 - a qual on the key itself: key op Const (op one of the key order's
 *	   <, <=, =, >=, >; the Const of the key's type);
 *	 - a qual on another column c that moves with the key: where both c and
 *	   the key follow the table's physical order (|correlation| >= 0.99 in
 *	   pg_stats, so they follow each other), the share of the table's rows
 *	   below the qual's values of c (PostgreSQL's own selectivity of c < v
 *	   and c <= v) is the share below the keys' bounds, read off the key's
 *	   histogram, widened by what the correlations leave unsure and a tenth
 *	   of a bucket.  A date dimension's surrogate key and its year are both in
 *	   date order: d_year = 2001 gives 2001's keys.
 * A qual on a column that does not move with the key (a month of every
 * year) only removes keys from within whatever bounds the others give, so
 * leaving it out keeps the bounds true.  Bounds are kept only in the order
 * the partitions are compared in (their family and collation); bounds from
 * the statistics are marked so (range->from_statistics): a correlation is a
 * whole-table figure, blind to keys out of order within a stretch, and
 * statistics may be stale.  Nothing is read but the
 * statistics: running the quals at plan time would run user code (errors,
 * side effects, row-level security) once per planning.
 */
#include "paths.h"
#include "../filter/filter.h"

#include <math.h>

#include "access/nbtree.h"
#include "access/stratnum.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/typcache.h"

/* how closely a column must follow the table's order for its quals to bound the key */
#define MIN_CORRELATION 0.99

/* What the statistics say of one column: its order's correlation, and whether it has MCVs. */
typedef struct ColumnOrder
{
	bool known;
	double correlation;
	bool has_mcv;
	double nullfrac;
} ColumnOrder;

static ColumnOrder column_order(PlannerInfo *root, Var *var);
static bool plain_comparison(Expr *clause, Index relid, Var **var, Const **value, Oid *opno);
static void tighten(RuntimeKeyRange *range, FmgrInfo *cmp, Oid collation, Datum lo, bool has_lo,
                    Datum hi, bool has_hi, const char *source);
static bool quantile_bounds(PlannerInfo *root, Var *column, Oid opno, Const *value, double *q_lo,
                            double *q_hi);
static bool key_at_quantiles(PlannerInfo *root, Var *key, double q_lo, double q_hi, Datum *lo,
                             Datum *hi);

void
bloom_rf_key_range(PlannerInfo *root, RelOptInfo *innerrel, Var *key, Oid family, Oid collation,
                   RuntimeKeyRange *range)
{
	VariableStatData vardata;
	bool isdefault;
	double ndistinct;
	Oid cmp_proc = get_opfamily_proc(family, key->vartype, key->vartype, BTORDER_PROC);
	FmgrInfo cmp;
	ColumnOrder key_order = {false, 0, false, 0};
	ListCell *lc;

	Assert((Index) key->varno == innerrel->relid);
	memset(range, 0, sizeof(*range));
	examine_variable(root, (Node *) key, 0, &vardata);
	ndistinct = get_variable_numdistinct(&vardata, &isdefault);
	ReleaseVariableStats(vardata);
	range->keys = Max(1.0, Min(innerrel->rows, ndistinct));
	range->inner_rows = innerrel->rows;
	/* bounds in the order they are compared in: the key's own collation only */
	if (!OidIsValid(cmp_proc) || (OidIsValid(collation) && key->varcollid != collation))
		return;
	fmgr_info(cmp_proc, &cmp);

	foreach (lc, innerrel->baserestrictinfo)
	{
		RestrictInfo *rinfo = lfirst(lc);
		Var *var;
		Const *value;
		Oid opno;
		int strategy;
		Oid lefttype, righttype;
		double q_lo, q_hi;
		Datum lo, hi;

		if (rinfo->pseudoconstant ||
		    !plain_comparison(rinfo->clause, innerrel->relid, &var, &value, &opno))
			continue;
		if (var->varattno == key->varattno)
		{
			/* a qual on the key: its bound, if its operator orders as the join does */
			if (value->consttype != key->vartype || !op_in_opfamily(opno, family) ||
			    ((OpExpr *) rinfo->clause)->inputcollid != collation)
				continue;
			get_op_opfamily_properties(opno, family, false, &strategy, &lefttype, &righttype);
			tighten(range, &cmp, collation, value->constvalue,
			        strategy == BTEqualStrategyNumber || strategy >= BTGreaterEqualStrategyNumber,
			        value->constvalue, strategy <= BTEqualStrategyNumber, "a qual on the key");
			continue;
		}
		/* a qual on another column: through the order both follow */
		if (!key_order.known)
		{
			key_order = column_order(root, key);
			key_order.known = true;
		}
		/* (the histogram is in the key type's default order, which must be the family's) */
		if (fabs(key_order.correlation) < MIN_CORRELATION || key_order.has_mcv ||
		    lookup_type_cache(key->vartype, TYPECACHE_BTREE_OPFAMILY)->btree_opf != family)
			continue;
		{
			ColumnOrder order = column_order(root, var);

			if (fabs(order.correlation) < MIN_CORRELATION)
				continue;
			if (!quantile_bounds(root, var, opno, value, &q_lo, &q_hi))
				continue;
			if ((order.correlation > 0) != (key_order.correlation > 0))
			{
				double flipped = 1.0 - q_lo;

				q_lo = 1.0 - q_hi;
				q_hi = flipped;
			}
			/* what the correlations leave unsure */
			q_lo -= 2.0 - fabs(order.correlation) - fabs(key_order.correlation);
			q_hi += 2.0 - fabs(order.correlation) - fabs(key_order.correlation);
		}
		if (!key_at_quantiles(root, key, Max(0.0, q_lo), Min(1.0, q_hi), &lo, &hi))
			continue;
		tighten(range, &cmp, collation, lo, true, hi, true, "a column in the key's order");
		range->from_statistics = true;
	}
}

/* The correlation of var's column with its table's order, and whether it has MCVs. */
static ColumnOrder
column_order(PlannerInfo *root, Var *var)
{
	VariableStatData vardata;
	ColumnOrder order = {true, 0, false, 0};
	AttStatsSlot slot;

	examine_variable(root, (Node *) var, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple))
	{
		Form_pg_statistic form = (Form_pg_statistic) GETSTRUCT(vardata.statsTuple);

		order.nullfrac = form->stanullfrac;
		if (get_attstatsslot(&slot, vardata.statsTuple, STATISTIC_KIND_CORRELATION, InvalidOid,
		                     ATTSTATSSLOT_NUMBERS))
		{
			if (slot.nnumbers == 1 && isfinite(slot.numbers[0]))
				order.correlation = slot.numbers[0];
			free_attstatsslot(&slot);
		}
		if (get_attstatsslot(&slot, vardata.statsTuple, STATISTIC_KIND_MCV, InvalidOid, 0))
		{
			order.has_mcv = true;
			free_attstatsslot(&slot);
		}
	}
	ReleaseVariableStats(vardata);
	return order;
}

/*
 * Whether clause is "var op value" or "value op var" (then *opno is the
 * commuted operator, var on the left), var a plain column of relid and
 * value a non-null Const.
 */
static bool
plain_comparison(Expr *clause, Index relid, Var **var, Const **value, Oid *opno)
{
	OpExpr *op;
	Node *left, *right;

	if (!IsA(clause, OpExpr) || list_length(((OpExpr *) clause)->args) != 2)
		return false;
	op = (OpExpr *) clause;
	left = strip_implicit_coercions(linitial(op->args));
	right = strip_implicit_coercions(lsecond(op->args));
	*opno = op->opno;
	if (IsA(right, Var) && IsA(left, Const))
	{
		Node *swap = left;

		left = right;
		right = swap;
		*opno = get_commutator(op->opno);
		if (!OidIsValid(*opno))
			return false;
	}
	if (!IsA(left, Var) || !IsA(right, Const))
		return false;
	*var = (Var *) left;
	*value = (Const *) right;
	return (Index) (*var)->varno == relid && (*var)->varattno > 0 && (*var)->varlevelsup == 0 &&
	       !(*value)->constisnull;
}

/* Narrow range to lo and hi (each only if given), which source gives. */
static void
tighten(RuntimeKeyRange *range, FmgrInfo *cmp, Oid collation, Datum lo, bool has_lo, Datum hi,
        bool has_hi, const char *source)
{
	if (has_lo &&
	    (!range->has_lo || DatumGetInt32(FunctionCall2Coll(cmp, collation, lo, range->lo)) > 0))
	{
		range->lo = lo;
		range->has_lo = true;
		range->source = source;
	}
	if (has_hi &&
	    (!range->has_hi || DatumGetInt32(FunctionCall2Coll(cmp, collation, hi, range->hi)) < 0))
	{
		range->hi = hi;
		range->has_hi = true;
		range->source = source;
	}
}

/*
 * The shares of the table's non-null values of column below and up to the
 * values the qual "column opno value" allows, by PostgreSQL's own
 * selectivity of synthetic comparisons in column's default B-tree order.
 */
static bool
quantile_bounds(PlannerInfo *root, Var *column, Oid opno, Const *value, double *q_lo, double *q_hi)
{
	TypeCacheEntry *type = lookup_type_cache(column->vartype, TYPECACHE_BTREE_OPFAMILY);
	Oid family = type->btree_opf;
	int strategy;
	Oid lefttype, righttype, less, less_equal;
	ColumnOrder order;
	double nonnull;

	if (!OidIsValid(family) || value->consttype != column->vartype || !op_in_opfamily(opno, family))
		return false;
	get_op_opfamily_properties(opno, family, false, &strategy, &lefttype, &righttype);
	less = get_opfamily_member(family, column->vartype, column->vartype, BTLessStrategyNumber);
	less_equal =
	    get_opfamily_member(family, column->vartype, column->vartype, BTLessEqualStrategyNumber);
	if (!OidIsValid(less) || !OidIsValid(less_equal))
		return false;
	order = column_order(root, column);
	nonnull = 1.0 - order.nullfrac;
	if (nonnull <= 0)
		return false;
	*q_lo = 0;
	*q_hi = 1;
	if (strategy == BTEqualStrategyNumber || strategy >= BTGreaterEqualStrategyNumber)
	{
		Oid below = strategy == BTGreaterStrategyNumber ? less_equal : less;
		Expr *e = make_opclause(below, BOOLOID, false, (Expr *) column, (Expr *) value, InvalidOid,
		                        column->varcollid);

		set_opfuncid((OpExpr *) e);
		*q_lo = clause_selectivity(root, (Node *) e, 0, JOIN_INNER, NULL) / nonnull;
	}
	if (strategy <= BTEqualStrategyNumber)
	{
		Oid upto = strategy == BTLessStrategyNumber ? less : less_equal;
		Expr *e = make_opclause(upto, BOOLOID, false, (Expr *) column, (Expr *) value, InvalidOid,
		                        column->varcollid);

		set_opfuncid((OpExpr *) e);
		*q_hi = clause_selectivity(root, (Node *) e, 0, JOIN_INNER, NULL) / nonnull;
	}
	*q_lo = Max(0.0, Min(1.0, *q_lo));
	*q_hi = Max(0.0, Min(1.0, *q_hi));
	return *q_lo <= *q_hi;
}

double
bloom_rf_column_correlation(PlannerInfo *root, Var *var)
{
	return column_order(root, var).correlation;
}

/* v as an int64, within its range */
static int64
clamp_int64(double v)
{
	if (!(v > (double) PG_INT64_MIN))
		return PG_INT64_MIN;
	if (!(v < (double) PG_INT64_MAX))
		return PG_INT64_MAX;
	return (int64) v;
}

static Datum
from_int64(Oid type, int64 v)
{
	switch (type)
	{
		case INT2OID:
			return Int16GetDatum((int16) Max(PG_INT16_MIN, Min(PG_INT16_MAX, v)));
		case INT4OID:
		case DATEOID:
			return Int32GetDatum((int32) Max(PG_INT32_MIN, Min(PG_INT32_MAX, v)));
		default:
			return Int64GetDatum(v);
	}
}

/*
 * The key's values at the shares q_lo and q_hi of its histogram (a key with
 * no most common values: its histogram is every non-null row), the lower
 * rounded down and the upper up, widened by a tenth of a bucket.  Both
 * shares and the histogram come from the same ANALYZE sample, so the
 * mapping is as exact as the interpolation within a bucket, which for
 * integers (a surrogate key, a date) is linear.
 */
static bool
key_at_quantiles(PlannerInfo *root, Var *key, double q_lo, double q_hi, Datum *lo, Datum *hi)
{
	VariableStatData vardata;
	AttStatsSlot slot;
	bool found = false;

	examine_variable(root, (Node *) key, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple) &&
	    get_attstatsslot(&slot, vardata.statsTuple, STATISTIC_KIND_HISTOGRAM, InvalidOid,
	                     ATTSTATSSLOT_VALUES))
	{
		int n = slot.nvalues;

		if (n >= 2)
		{
			double half = 0.1 / (n - 1);
			double p_lo = Max(0.0, q_lo - half) * (n - 1);
			double p_hi = Min(1.0, q_hi + half) * (n - 1);
			int i_lo = (int) floor(p_lo), i_hi = (int) ceil(p_hi);

			i_lo = Max(0, Min(n - 1, i_lo));
			i_hi = Max(0, Min(n - 1, i_hi));
			if (bloom_rf_integer_type(key->vartype) && i_lo < n - 1 && i_hi > 0)
			{
				int64 a = bloom_rf_integer_value(key->vartype, slot.values[i_lo]);
				int64 b = bloom_rf_integer_value(key->vartype, slot.values[i_lo + 1]);
				int64 c = bloom_rf_integer_value(key->vartype, slot.values[i_hi - 1]);
				int64 d = bloom_rf_integer_value(key->vartype, slot.values[i_hi]);

				/* in doubles: infinite timestamps are the int64 extremes */
				*lo = from_int64(key->vartype,
				                 clamp_int64((double) a + floor((p_lo - i_lo) * ((double) b - a))));
				*hi = from_int64(key->vartype,
				                 clamp_int64((double) d - floor((i_hi - p_hi) * ((double) d - c))));
			}
			else
			{
				int16 typlen;
				bool typbyval;

				get_typlenbyval(key->vartype, &typlen, &typbyval);
				*lo = datumCopy(slot.values[i_lo], typbyval, typlen);
				*hi = datumCopy(slot.values[i_hi], typbyval, typlen);
			}
			found = true;
		}
		free_attstatsslot(&slot);
	}
	ReleaseVariableStats(vardata);
	return found;
}
