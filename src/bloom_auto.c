/*
 * bloom_auto.c
 *	  bloom_agg(value) without sizing hints: collect the values' hashes,
 *	  then build the smallest filter that meets 1 % for their distinct count.
 *
 * A filter must be sized before the first value goes in, and an aggregate
 * does not know how many values will come.  So the state starts as the
 * exact set of the values' 64-bit hashes (the explicit layout, as
 * postgresql-hll's explicit mode), and the final function sizes a classic
 * filter for the count it finds: the optimal size for that count, whether it
 * is 10 or 30 million, and a GROUP BY of many small groups holds many small
 * sets, not many large filters.
 *
 * The set costs 8 bytes a distinct value.  Past agg_explicit_limit distinct
 * values (33.5 million by default, 256 MB of hashes) the state becomes a
 * "wide" classic filter of AUTO_WIDE_BITS bits (1 GB) and k = 7, the best k
 * at 1 %, and the final function folds it (core/bf_explicit.c) by the largest
 * factor f dividing AUTO_WIDE_BITS that still meets 1 % for the estimated
 * count.  Folding is exact: the result is bit for bit the filter of the same
 * values built at AUTO_WIDE_BITS / f bits.  AUTO_WIDE_BITS is a multiple of
 * lcm(1, ..., 18), so consecutive usable factors are at most 20/18 apart up
 * to 30, and the folded size stays within 1.2x of the optimum as long as f >=
 * 5, that is up to about 179 million distinct values; beyond, the filter is
 * larger than optimal, and beyond about 890 million no filter under 1 GB
 * meets 1 %.
 *
 * Whether the state ends as a set or a wide filter depends only on the set of
 * values (the final function widens a set above the limit too), so serial
 * and parallel builds, whose partial states are flattened to bloom values and
 * merged by the combine function, give the same filter bit for bit.
 *
 * The state lives in an expanded object (utils/expandeddatum.h): nodeAgg
 * keeps a read-write expanded transition value in place, so appending a hash
 * costs no copy of the state, and the object is flattened to a bloom value
 * (explicit or classic) only when it leaves the process.  Hashes are
 * appended unsorted and merged into a sorted, duplicate-free head when the
 * tail reaches half the head (radix sort, then merge): constant work per
 * value, and a bounded share of memory for duplicates.
 */
#include "bloom_autostate.h"

#include <math.h>

#include "miscadmin.h"

PG_FUNCTION_INFO_V1(bloom_agg_auto_trans);
PG_FUNCTION_INFO_V1(bloom_agg_auto_trans_fpp);
PG_FUNCTION_INFO_V1(bloom_agg_auto_combine);
PG_FUNCTION_INFO_V1(bloom_agg_finalize);

/*
 * The rate of bloom_agg(value, fpp) in parts per billion, read on the first
 * row: rounded down, so that the filter meets the rate asked for.
 */
static uint32
fpp_arg(FunctionCallInfo fcinfo, int argno)
{
	double fpp, ppb;

	if (PG_ARGISNULL(argno))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
		                errmsg("bloom_agg false-positive rate fpp must not be NULL")));
	fpp = PG_GETARG_FLOAT8(argno);
	ppb = floor(fpp * BF_TARGET_SCALE);
	if (!(ppb >= 1 && ppb < BF_TARGET_SCALE))
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("bloom_agg false-positive rate %g is out of range (0.000000001 to 1)", fpp),
		         errhint("To give the expected number of values, use bloom_agg(value, "
		                 "expected_n, fpp).")));
	return (uint32) ppb;
}

/*
 * Shared body of the transition functions of bloom_agg(value) and
 * bloom_agg(value, fpp) (fpp_argno >= 0).
 */
static Datum
auto_trans(FunctionCallInfo fcinfo, int fpp_argno)
{
	BloomHasher *hasher;
	BloomAuto *st;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	st = PG_ARGISNULL(0) ? NULL : bloom_auto_of_datum(PG_GETARG_DATUM(0));
	hasher = bloom_agg_hasher(fcinfo, 1, st ? &st->kept : NULL);
	if (st == NULL || !bloom_agg_state_is_rw(PG_GETARG_DATUM(0)))
	{
		/*
		 * Not our own read-write state, which only the aggregate that owns
		 * it hands over: a new state, or one holding a flat partial state.
		 */
		MemoryContext aggcontext = bloom_agg_context(fcinfo, "bloom_agg_auto_trans");

		if (PG_ARGISNULL(0))
			st = bloom_auto_new(aggcontext, hasher->elem, hasher->elemlen,
			                    fpp_argno >= 0 ? fpp_arg(fcinfo, fpp_argno) : 0);
		else
			st = bloom_auto_state_arg(fcinfo, 0, aggcontext);
	}
	hasher = bloom_agg_keep_hasher(fcinfo, hasher, &st->kept, st->hdr.eoh_context);
	if (st->hasher != hasher)
	{
		if (!bf_elem_equal(st->elem, st->elemlen, hasher->elem, hasher->elemlen))
			ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
			                errmsg("bloom_agg state holds values of %.*s, not %s",
			                       (int) st->elemlen, st->elem, hasher->elem)));
		st->hasher = hasher; /* compared once, not per row */
	}
	bloom_auto_add_hash(st, bloom_hash_value(hasher, PG_GETARG_DATUM(1), 0));
	if (st->nadded < (uint64) PG_INT64_MAX)
		st->nadded++;
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/* bloom_agg_auto_trans(state, value): the transition function of bloom_agg(value). */
Datum
bloom_agg_auto_trans(PG_FUNCTION_ARGS)
{
	return auto_trans(fcinfo, -1);
}

/*
 * bloom_agg_auto_trans(state, value, fpp): bloom_agg(value, fpp), sized
 * from the data for the rate fpp (that of the first row).
 */
Datum
bloom_agg_auto_trans_fpp(PG_FUNCTION_ARGS)
{
	return auto_trans(fcinfo, 2);
}

/* bloom_agg_auto_combine(a, b): merge partial states (sets and wide filters). */
Datum
bloom_agg_auto_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = bloom_agg_context(fcinfo, "bloom_agg_auto_combine");
	BloomAuto *st = bloom_auto_state_arg(fcinfo, 0, aggcontext);
	BloomFilter other;

	bloom_get_datum(PG_GETARG_DATUM(1), &other);
	bloom_auto_require_state(&other.view);
	bloom_auto_add_flat(st, &other);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/* The smallest classic filter meeting the target for the set's distinct count. */
static Datum
auto_sized(BloomAuto *st)
{
	bf_params p = {BF_LAYOUT_CLASSIC, BF_SCHEME_DOUBLE_HASHING, 0, 0, 0};
	bf_error err;
	int k;
	BloomFilter f;

	if (!bf_size_for((double) Max(st->nsorted, 1), bloom_auto_target_fpp(st->target_ppb), &p.ncells,
	                 &k, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	p.nhashes = (uint16) k;
	bloom_new(&p, 0, st->elem, st->elemlen, st->nadded, &f);
	bloom_auto_add_hashes(&f.view, st->hashes, st->nsorted);
	return PointerGetDatum(f.raw);
}

/* Whether the wide filter w folded by f meets the target for n distinct values. */
static bool
fold_meets(const BloomAuto *st, uint64 f, double n)
{
	return AUTO_WIDE_BITS % f == 0 &&
	       bf_fpp(n, (double) (AUTO_WIDE_BITS / f), st->wide.f.view.p.nhashes) <=
	           bloom_auto_target_fpp(st->target_ppb);
}

/* The wide filter folded by the largest factor that still meets the target. */
static Datum
auto_folded(BloomAuto *st)
{
	const bf_view *w = &st->wide.f.view;
	double n = bf_estimate_distinct(w->p.ncells, w->p.nhashes, bloom_count_occupied(w));
	uint64 best = 1;
	bf_params p = w->p;
	BloomFilter out;

	/*
	 * The estimate from the fill errs by far less than 0.1 % at the counts
	 * that reach this point (tens of millions in a billion bits); the margin
	 * covers it.  Every divisor of AUTO_WIDE_BITS is a candidate.
	 */
	n = n * 1.001 + 1;
	if (isfinite(n))
		for (uint64 c = 1; c * c <= AUTO_WIDE_BITS; c++)
		{
			if (AUTO_WIDE_BITS % c != 0)
				continue;
			if (fold_meets(st, AUTO_WIDE_BITS / c, n))
			{
				best = Max(best, AUTO_WIDE_BITS / c);
				break; /* c ascending: the largest factor of the pair kind */
			}
			if (fold_meets(st, c, n))
				best = Max(best, c);
		}
	p.ncells = AUTO_WIDE_BITS / best;
	bloom_new(&p, 0, st->elem, st->elemlen, st->nadded, &out); /* finished: no target */
	bloom_bytes_op(&out.view, w, bf_fold_bytes);
	return PointerGetDatum(out.raw);
}

/*
 * bloom_agg_finalize(state) -> bloom: the final function of bloom_agg(value)
 * and bloom_agg(value, fpp).  A set becomes the smallest classic filter that
 * meets the target (1 % or fpp) for its distinct count, a wide filter is
 * folded; any other filter is returned as it is.
 * Callable on partial states a sharded engine gathered.
 */
Datum
bloom_agg_finalize(PG_FUNCTION_ARGS)
{
	BloomAuto *st = bloom_auto_of_datum(PG_GETARG_DATUM(0));

	if (st == NULL)
	{
		BloomFilter f;

		bloom_get_arg(fcinfo, 0, false, &f);
		if (!bloom_auto_is_state(&f.view))
			PG_RETURN_POINTER(f.raw);
		st = bloom_auto_from_flat(&f, CurrentMemoryContext);
	}
	/*
	 * Sorting the tail in (or widening) changes how the state is held, not
	 * what it holds: allowed to a read-only final function.
	 */
	bloom_auto_compact(st);
	if (st->hashes != NULL)
		return auto_sized(st);
	return auto_folded(st);
}
