/*
 * bloom_selectivity.c
 *	  What the planner is told about a probe: its selectivity and its cost.
 *
 * Without help the planner guesses that a boolean function keeps 1/3 of the
 * rows and an operator without a restriction estimator 1/2; a prefilter that
 * keeps 1 % would then be planned as if it kept a third.  When the filter is
 * a constant at plan time (a literal, a parameter of a prepared statement
 * with a custom plan) we read it:
 *
 *	- each most-common value of the column is probed in the filter itself,
 *	  so its frequency counts exactly when the filter answers yes (false
 *	  positives included);
 *	- of the remaining rows, the filter's estimated distinct values that are
 *	  not among the MCVs are assumed to be drawn from the column's other
 *	  distinct values (the semi-join case: the filter was built from the keys
 *	  of the other side), and every other value passes at the filter's
 *	  false-positive rate;
 *	- NULLs never pass (the probe is strict).
 *
 * When the filter is only known at run time (an InitPlan, "(SELECT f FROM
 * filters)"), nothing can be read: the estimate is PostgreSQL's default for a
 * boolean function, 1/3, for the function and the operators alike.
 *
 * The cost of a probe is one hash of the value and up to k bit tests.
 */
#include "bloom_datum.h"
#include "bloom_setops.h"
#include "bloom_value.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_statistic.h"
#include "nodes/supportnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

PG_FUNCTION_INFO_V1(bloom_contains_support);
PG_FUNCTION_INFO_V1(bloom_contains_restrict);

/* What PostgreSQL assumes for a boolean function it knows nothing about. */
#define BLOOM_DEFAULT_SEL (1.0 / 3.0)

/*
 * The probe functions take (filter, value); bloom_contained and the <@
 * operator take (value, filter).  Tell them apart by the C symbol.
 */
static bool
filter_is_first(Oid funcid)
{
	char *name = get_func_name(funcid);

	return name == NULL || strcmp(name, "bloom_contained") != 0;
}

/* The filter of a Const, or false if it is not usable. */
static bool
const_filter(Node *node, BloomFilter *out)
{
	Const *c;
	struct varlena *raw;
	bf_error err;

	if (!IsA(node, Const))
		return false;
	c = (Const *) node;
	if (c->constisnull)
		return false;
	raw = PG_DETOAST_DATUM(c->constvalue);
	if (!bf_check_header((const uint8_t *) VARDATA(raw), VARSIZE(raw) - VARHDRSZ, &out->view, &err))
		return false;
	out->raw = raw;
	return true;
}

/* The selectivity of probing value in the constant filter f. */
static Selectivity
filter_selectivity(PlannerInfo *root, const BloomFilter *f, Node *value, Oid collid, int varRelid)
{
	const bf_view *v = &f->view;
	uint64 occupied = bloom_count_occupied(v);
	double in_filter = bloom_estimate_distinct(v, occupied);
	double fpp = bloom_current_fpp(v, occupied);
	VariableStatData vardata;
	BloomHasher hasher;
	bool isdefault;
	double ndistinct, nullfrac = 0.0, mcv_freq = 0.0, mcv_hit_freq = 0.0;
	int mcv_count = 0, mcv_hits = 0;
	double other_distinct, other_in, other_freq;
	Selectivity sel;

	if (v->elemlen == 0)
		return 0.0; /* nothing was added: nothing passes */

	examine_variable(root, value, varRelid, &vardata);
	ndistinct = get_variable_numdistinct(&vardata, &isdefault);
	if (isdefault)
	{
		/*
		 * No statistics (an expression, say k::int8): take the values as
		 * distinct, as many as the relation's rows; failing that, a count
		 * that makes the filter's values a third of them.
		 */
		if (vardata.rel && vardata.rel->tuples > 0)
			ndistinct = vardata.rel->tuples;
		else
			ndistinct = Max(ndistinct, in_filter / BLOOM_DEFAULT_SEL);
	}

	if (HeapTupleIsValid(vardata.statsTuple))
	{
		Form_pg_statistic stats = (Form_pg_statistic) GETSTRUCT(vardata.statsTuple);
		AttStatsSlot sslot;

		nullfrac = stats->stanullfrac;
		/* probe the MCVs, if their type hashes like the filter's values */
		if (bloom_hasher_init(&hasher, vardata.atttype, collid, true) &&
		    bf_elem_equal(hasher.elem, hasher.elemlen, v->elem, v->elemlen) &&
		    get_attstatsslot(&sslot, vardata.statsTuple, STATISTIC_KIND_MCV, InvalidOid,
		                     ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
		{
			for (int i = 0; i < sslot.nvalues; i++)
			{
				mcv_freq += sslot.numbers[i];
				if (bf_contains_hash(v, bloom_hash_value(&hasher, sslot.values[i], v->p.seed)))
				{
					mcv_hit_freq += sslot.numbers[i];
					mcv_hits++;
				}
			}
			mcv_count = sslot.nvalues;
			free_attstatsslot(&sslot);
		}
	}
	ReleaseVariableStats(vardata);

	/* the other rows: those of the filter's values not seen among the MCVs, then false positives */
	other_freq = Max(0.0, 1.0 - nullfrac - mcv_freq);
	other_distinct = Max(1.0, ndistinct - mcv_count);
	other_in = Min(Max(0.0, in_filter - mcv_hits), other_distinct);
	sel = mcv_hit_freq +
	      other_freq * (other_in / other_distinct + (1.0 - other_in / other_distinct) * fpp);
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* Selectivity of a probe with these arguments, or the default. */
static Selectivity
probe_selectivity(PlannerInfo *root, Oid funcid, List *args, Oid collid, int varRelid)
{
	bool first = filter_is_first(funcid);
	Node *filter_arg, *value_arg;
	BloomFilter f;

	if (list_length(args) != 2)
		return BLOOM_DEFAULT_SEL;
	filter_arg = estimate_expression_value(root, (Node *) list_nth(args, first ? 0 : 1));
	value_arg = (Node *) list_nth(args, first ? 1 : 0);
	if (!const_filter(filter_arg, &f))
		return BLOOM_DEFAULT_SEL;
	return filter_selectivity(root, &f, value_arg, collid, varRelid);
}

/*
 * bloom_contains_support(internal) -> internal: the planner support
 * function of bloom_contains and bloom_contained.
 */
Datum
bloom_contains_support(PG_FUNCTION_ARGS)
{
	Node *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		/* a probe in a join clause: the filter is rarely a constant there */
		req->selectivity = req->is_join ? BLOOM_DEFAULT_SEL
		                                : probe_selectivity(req->root, req->funcid, req->args,
		                                                    req->inputcollid, req->varRelid);
		PG_RETURN_POINTER(req);
	}
	if (IsA(rawreq, SupportRequestCost))
	{
		SupportRequestCost *req = (SupportRequestCost *) rawreq;

		/* one hash and, for a typical k, a handful of bit tests */
		req->startup = 0;
		req->per_tuple = 4 * cpu_operator_cost;
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/*
 * bloom_contains_restrict(internal, oid, internal, integer) -> float8: the
 * restriction estimator of the @> and <@ operators.
 */
Datum
bloom_contains_restrict(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid opid = PG_GETARG_OID(1);
	List *args = (List *) PG_GETARG_POINTER(2);
	int varRelid = PG_GETARG_INT32(3);

	PG_RETURN_FLOAT8(probe_selectivity(root, get_opcode(opid), args, PG_GET_COLLATION(), varRelid));
}
