/*
 * bloom_agg.c
 *	  The bloom_agg aggregates: build a filter from a column.
 *
 * The transition state is a bloom value itself, not "internal", so that
 * partial aggregates travel between processes (parallel query) and servers
 * (sharded engines) as ordinary bloom values, with no serialization
 * functions.  Inside an aggregate the state belongs to the aggregate's
 * memory context and is updated in place; the combine function (the union,
 * in bloom_setops.c) ORs the bits or adds the counters, which does not depend
 * on the order of the rows, so a parallel build yields exactly the serial
 * filter.
 */
#include "bloom_pg.h"

#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(bloom_agg_trans);
PG_FUNCTION_INFO_V1(bloom_agg_trans_sized);
PG_FUNCTION_INFO_V1(bloom_agg_trans_layout);
PG_FUNCTION_INFO_V1(counting_bloom_agg_trans);
PG_FUNCTION_INFO_V1(counting_bloom_agg_trans_sized);

/* Sizing of bloom_agg(value) without hints; see the README. */
#define BLOOM_AGG_DEFAULT_N 1000000
#define BLOOM_AGG_DEFAULT_FPP 0.01

static MemoryContext
agg_context(FunctionCallInfo fcinfo, const char *name)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("%s called in non-aggregate context", name)));
	return aggcontext;
}

/*
 * The filter size for the hints, computed once per call site: the search in
 * bf_size_for_layout() costs up to a millisecond, and a GROUP BY calls this
 * for every group.
 */
static void
agg_sizing(BloomCallCache *cache, uint8 layout, int64 expected_n, double fpp, bf_params *p)
{
	if (!cache->sized || cache->sized_n != expected_n || cache->sized_fpp != fpp ||
	    cache->sized_layout != layout)
	{
		bf_error err;

		cache->sized = false;
		if (!bf_size_for_layout(layout, (double) expected_n, fpp, &cache->sized_nbits,
		                        &cache->sized_nhashes, &err))
			bloom_report(&err, BLOOM_FROM_ARGUMENT);
		cache->sized_n = expected_n;
		cache->sized_fpp = fpp;
		cache->sized_layout = layout;
		cache->sized = true;
	}
	p->layout = layout;
	p->scheme = BF_SCHEME_PGHASH_EDH;
	p->nhashes = (uint16) cache->sized_nhashes;
	p->seed = 0;
	p->nbits = cache->sized_nbits;
}

/*
 * The state in argument 0, decoded.  As a rule it is the state this function
 * returned on the previous row: when it is at the same address, of the same
 * size, with the same bytes before its data (header, extension, element
 * key), the view decoded then still describes it exactly (a view depends on
 * nothing else) and need not be checked again.  Otherwise it is checked as
 * any argument is.
 */
static void
agg_state(FunctionCallInfo fcinfo, BloomCallCache *cache, BloomFilter *f)
{
	struct varlena *raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(0));

	if (raw == cache->agg_state && !VARATT_IS_EXTENDED(raw) &&
	    VARSIZE(raw) - VARHDRSZ == cache->agg_prefix_len + cache->agg_view.nbytes &&
	    memcmp(VARDATA(raw), cache->agg_prefix, cache->agg_prefix_len) == 0)
	{
		f->raw = raw;
		f->view = cache->agg_view;
		return;
	}
	bloom_get_arg(fcinfo, 0, false, f); /* our own state: updated in place */
}

/* Remember the state returned, for agg_state() on the next row. */
static void
agg_remember(BloomCallCache *cache, const BloomFilter *f)
{
	cache->agg_state = f->raw;
	cache->agg_prefix_len = (size_t) (f->view.bits - (uint8 *) VARDATA(f->raw));
	memcpy(cache->agg_prefix, VARDATA(f->raw), cache->agg_prefix_len);
	cache->agg_view = f->view;
}

/*
 * Shared body of the transition functions: state in argument 0 (NULL before
 * the first value), the value in argument 1, sizing for a new state.
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, uint8 layout, int64 expected_n, double fpp, const char *name)
{
	MemoryContext aggcontext = agg_context(fcinfo, name);
	MemoryContext old;
	BloomHasher *hasher;
	BloomCallCache *cache;
	BloomFilter f;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}

	hasher = bloom_hasher_for_arg(fcinfo, 1);
	cache = bloom_call_cache(fcinfo);
	old = MemoryContextSwitchTo(aggcontext);
	if (PG_ARGISNULL(0))
	{
		bf_params p;

		agg_sizing(cache, layout, expected_n, fpp, &p);
		bloom_new(&p, 0, hasher->elem, hasher->elemlen, 0, &f);
	}
	else
		agg_state(fcinfo, cache, &f);
	bloom_add_datum(&f, hasher, PG_GETARG_DATUM(1));
	agg_remember(cache, &f);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(f.raw);
}

/* The sizing hints in arguments 2 and 3 (expected_n, fpp). */
static void
sizing_hints(FunctionCallInfo fcinfo, const char *agg, int64 *n, double *fpp)
{
	if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
		                errmsg("%s sizing hints expected_n and fpp must not be NULL", agg)));
	*n = PG_GETARG_INT64(2);
	*fpp = PG_GETARG_FLOAT8(3);
}

/* bloom_agg(value): sized for BLOOM_AGG_DEFAULT_N values at 1 %. */
Datum
bloom_agg_trans(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BF_LAYOUT_CLASSIC, BLOOM_AGG_DEFAULT_N, BLOOM_AGG_DEFAULT_FPP,
	                 "bloom_agg_trans");
}

/*
 * bloom_agg(value, expected_n, fpp [, layout]): the hints of the first row
 * size it, in the layout named (classic without one).
 */
Datum
bloom_agg_trans_sized(PG_FUNCTION_ARGS)
{
	int64 n;
	double fpp;

	sizing_hints(fcinfo, "bloom_agg", &n, &fpp);
	return agg_trans(fcinfo, bloom_layout_arg(fcinfo, 4), n, fpp, "bloom_agg_trans_sized");
}

/* The C name the 1.2 script gives the layout form; the same function. */
Datum
bloom_agg_trans_layout(PG_FUNCTION_ARGS)
{
	return bloom_agg_trans_sized(fcinfo);
}

/* counting_bloom_agg(value): as bloom_agg(value), with 4-bit counters. */
Datum
counting_bloom_agg_trans(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BF_LAYOUT_COUNTING4, BLOOM_AGG_DEFAULT_N, BLOOM_AGG_DEFAULT_FPP,
	                 "counting_bloom_agg_trans");
}

/* counting_bloom_agg(value, expected_n, fpp) */
Datum
counting_bloom_agg_trans_sized(PG_FUNCTION_ARGS)
{
	int64 n;
	double fpp;

	sizing_hints(fcinfo, "counting_bloom_agg", &n, &fpp);
	return agg_trans(fcinfo, BF_LAYOUT_COUNTING4, n, fpp, "counting_bloom_agg_trans_sized");
}
