/*
 * bloom_agg.c
 *	  The bloom_agg aggregates: build a filter from a column.
 *
 * The transition state is a bloom value itself, not "internal", so that
 * partial aggregates travel between processes (parallel query) and servers
 * (sharded engines) as ordinary bloom values, with no serialization
 * functions.  Inside an aggregate the state is an expanded object in the
 * aggregate's memory context, updated in place (below); the combine function
 * (the union, in bloom_setops.c) ORs the bits or adds the counters, which
 * does not depend on the order of the rows, so a parallel build yields
 * exactly the serial filter.  bloom_agg(value) without hints is in
 * bloom_auto.c.
 */
#include "bloom_aggstate.h"
#include "bloom_callcache.h"
#include "bloom_functions.h"
#include "bloom_makers.h"

#include "../core/bf_makers.h"

#include "utils/builtins.h"
#include "utils/expandeddatum.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(bloom_agg_trans);
PG_FUNCTION_INFO_V1(bloom_agg_trans_sized);
PG_FUNCTION_INFO_V1(bloom_agg_trans_layout);
PG_FUNCTION_INFO_V1(counting_bloom_agg_trans);
PG_FUNCTION_INFO_V1(counting_bloom_agg_trans_sized);

/*
 * Sizing without hints of counting_bloom_agg(value), and of bloom_agg(value)
 * as versions 1.0 to 1.2 define it (1.3 sizes it from the data, bloom_auto.c).
 */
#define BLOOM_AGG_DEFAULT_N 1000000
#define BLOOM_AGG_DEFAULT_FPP 0.01

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
		if (!bf_size_for_layout(layout, (double) expected_n, fpp, &cache->sized_ncells,
		                        &cache->sized_nhashes, &err))
			bloom_report(&err, BLOOM_FROM_ARGUMENT);
		cache->sized_n = expected_n;
		cache->sized_fpp = fpp;
		cache->sized_layout = layout;
		cache->sized = true;
	}
	p->layout = layout;
	p->scheme = BF_SCHEME_DOUBLE_HASHING;
	p->nhashes = (uint16) cache->sized_nhashes;
	p->seed = 0;
	p->ncells = cache->sized_ncells;
}

/*
 * The transition state: the filter with its pending hashes (a BloomBatch),
 * in an expanded object (bloom_aggstate.c).  Whoever reads the state
 * through its flat form (the combine function, a parallel worker's output,
 * the aggregate's result) gets the pending hashes written first.
 */
typedef struct BloomAggState
{
	ExpandedObjectHeader hdr;
	BloomBatch batch;          /* the filter, allocated in hdr.eoh_context */
	const BloomHasher *hasher; /* the hasher whose element key the filter is known to hold */
	BloomKeptHasher kept;      /* for callers without fn_extra across rows (bloom_value.h) */
} BloomAggState;

static Size agg_flat_size(ExpandedObjectHeader *eohptr);
static void agg_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods agg_methods = {agg_flat_size, agg_flatten};

static Size
agg_flat_size(ExpandedObjectHeader *eohptr)
{
	BloomAggState *st = (BloomAggState *) eohptr;

	bloom_batch_write(&st->batch); /* how the state is held changes, not what it holds */
	return VARSIZE(st->batch.f.raw);
}

static void
agg_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	BloomAggState *st = (BloomAggState *) eohptr;

	bloom_batch_write(&st->batch);
	memcpy(result, st->batch.f.raw, allocated_size);
}

/* A new state in aggcontext, holding f (copied) or, if f is NULL, a new filter p. */
static BloomAggState *
agg_state_new(MemoryContext aggcontext, const bf_params *p, const BloomHasher *hasher,
              const BloomFilter *f)
{
	BloomAggState *st = bloom_agg_state_new(aggcontext, &agg_methods, sizeof(BloomAggState));
	MemoryContext old = MemoryContextSwitchTo(st->hdr.eoh_context);

	if (f == NULL)
		bloom_new(p, 0, hasher->elem, hasher->elemlen, 0, &st->batch.f);
	else
		bloom_copy_as(f, f->view.flags, &st->batch.f);
	/* counters and sets take each value as it comes; only bit filters (and Parquet's) batch */
	if (bf_layout_is_bits(st->batch.f.view.p.layout) ||
	    bf_maker_hashes_one(st->batch.f.view.p.layout))
		bloom_batch_init(&st->batch);
	MemoryContextSwitchTo(old);
	return st;
}

/*
 * The size of a new state: from the hints in arguments 2 and 3 (expected_n,
 * fpp) and the layout in argument 4 if hinted, else the 1.0 default.  Read
 * on the first row only: the hints of the first row size the filter.
 */
static void
new_state_params(FunctionCallInfo fcinfo, uint8 layout, bool hinted, bf_params *p)
{
	int64 n = BLOOM_AGG_DEFAULT_N;
	double fpp = BLOOM_AGG_DEFAULT_FPP;

	if (hinted)
	{
		if (PG_ARGISNULL(2) || PG_ARGISNULL(3))
			ereport(ERROR,
			        (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			         errmsg("%s sizing hints expected_n and fpp must not be NULL",
			                layout == BF_LAYOUT_COUNTING4 ? "counting_bloom_agg" : "bloom_agg")));
		n = PG_GETARG_INT64(2);
		fpp = PG_GETARG_FLOAT8(3);
		if (layout != BF_LAYOUT_COUNTING4)
			layout = bloom_layout_arg(fcinfo, 4);
	}
	agg_sizing(bloom_call_cache(fcinfo), layout, n, fpp, p);
}

/*
 * bloom_agg(value, n, fpp, layout) in another maker's format (1.12: "spark",
 * "spark_v1", "guava", "guava_chars", "parquet"): a state holding that
 * maker's filter, sized by its rules on the first row, each value added as
 * the maker adds it.  st: our state, if argument 0 is one; NULL for a new
 * aggregate or a flat state (a partial aggregate's).  NULL is returned
 * before the first row when the layout is not a maker's.
 */
static BloomAggState *
maker_state(FunctionCallInfo fcinfo, MemoryContext aggcontext, BloomAggState *st)
{
	MemoryContext old;
	BloomFilter flat;

	if (st != NULL)
		return bf_layout_is_maker(st->batch.f.view.p.layout) ? st : NULL;
	if (!PG_ARGISNULL(0))
	{
		/* a flat state: a maker's filter is copied as it is; ours go the usual way */
		bloom_get_arg_any(fcinfo, 0, false, &flat);
		if (!bf_layout_is_maker(flat.view.p.layout))
			return NULL;
		return agg_state_new(aggcontext, NULL, NULL, &flat);
	}
	if (PG_NARGS() < 5 || PG_ARGISNULL(2) || PG_ARGISNULL(3) || PG_ARGISNULL(4))
		return NULL; /* (new_state_params() says what is missing) */
	st = bloom_agg_state_new(aggcontext, &agg_methods, sizeof(BloomAggState));
	old = MemoryContextSwitchTo(st->hdr.eoh_context);
	if (!bloom_maker_new_for_arg(fcinfo, 1, text_to_cstring(PG_GETARG_TEXT_PP(4)),
	                             PG_GETARG_INT64(2), PG_GETARG_FLOAT8(3), &st->batch.f))
	{
		MemoryContextSwitchTo(old);
		DeleteExpandedObject(EOHPGetRWDatum(&st->hdr));
		return NULL;
	}
	if (bf_maker_hashes_one(st->batch.f.view.p.layout))
		bloom_batch_init(&st->batch);
	MemoryContextSwitchTo(old);
	return st;
}

/*
 * Shared body of the transition functions: state in argument 0 (NULL before
 * the first value), the value in argument 1, sizing hints after it if hinted.
 */
static Datum
agg_trans(FunctionCallInfo fcinfo, uint8 layout, bool hinted, const char *name)
{
	MemoryContext aggcontext;
	BloomHasher *hasher;
	BloomAggState *st = NULL;
	BloomFilter *f;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}

	/*
	 * A read-write state of ours reaches this function only from the
	 * aggregate that owns it (SQL cannot make one): no need to ask nodeAgg
	 * again on every row.
	 */
	if (!PG_ARGISNULL(0) && bloom_agg_state_is_rw(PG_GETARG_DATUM(0)) &&
	    (st = bloom_agg_state_of(PG_GETARG_DATUM(0), &agg_methods)) != NULL)
		aggcontext = MemoryContextGetParent(st->hdr.eoh_context);
	else
		aggcontext = bloom_agg_context(fcinfo, name);

	/* another maker's format: the value as its maker adds it, no hasher of ours */
	if (hinted && layout != BF_LAYOUT_COUNTING4)
	{
		BloomAggState *mst = maker_state(fcinfo, aggcontext, st);

		if (mst != NULL)
		{
			/*
			 * In place: nothing of the state is allocated by an add, and what
			 * the value's encoding allocates (a detoasted copy, UTF-16, UTF-8)
			 * stays in the row's memory, reset after each row.  A Parquet
			 * filter's hashes wait for their batch, as a bit filter's do.
			 */
			if (mst->batch.pending != NULL)
				bloom_batch_add(&mst->batch, bloom_maker_hash_arg(fcinfo, 1, &mst->batch.f));
			else
				bloom_maker_add_arg(fcinfo, 1, &mst->batch.f);
			PG_RETURN_DATUM(EOHPGetRWDatum(&mst->hdr));
		}
	}

	hasher = bloom_agg_hasher(fcinfo, 1, st ? &st->kept : NULL);
	if (PG_ARGISNULL(0))
	{
		bf_params p;

		new_state_params(fcinfo, layout, hinted, &p);
		st = agg_state_new(aggcontext, &p, hasher, NULL);
	}
	else if (st == NULL)
	{
		/* a flat state (not one this function made): hold a copy */
		BloomFilter flat;

		bloom_get_arg(fcinfo, 0, false, &flat);
		st = agg_state_new(aggcontext, NULL, hasher, &flat);
	}
	hasher = bloom_agg_keep_hasher(fcinfo, hasher, &st->kept, st->hdr.eoh_context);

	f = &st->batch.f;
	/* the element key is compared once per state and hasher, not per row */
	if (st->hasher != hasher && st->batch.pending != NULL && !(f->view.flags & BF_FLAG_DERIVED) &&
	    bf_elem_equal(f->view.elem, f->view.elemlen, hasher->elem, hasher->elemlen))
		st->hasher = hasher;
	if (st->hasher == hasher)
	{
		/* the usual case: the hash waits for its batch */
		bloom_batch_add(&st->batch, bloom_hash_value(hasher, PG_GETARG_DATUM(1), f->view.p.seed));
	}
	else
	{
		/* counters, a derived filter, one without its element key yet, or a mismatch */
		MemoryContext old = MemoryContextSwitchTo(st->hdr.eoh_context);

		bloom_batch_write(&st->batch); /* nothing to write for counters and sets */
		bloom_add_datum(f, hasher, PG_GETARG_DATUM(1));
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/* bloom_agg(value): sized for BLOOM_AGG_DEFAULT_N values at 1 % (1.0 to 1.2). */
Datum
bloom_agg_trans(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BF_LAYOUT_CLASSIC, false, "bloom_agg_trans");
}

/*
 * bloom_agg(value, expected_n, fpp [, layout]): the hints of the first row
 * size it, in the layout named (classic without one).
 */
Datum
bloom_agg_trans_sized(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BF_LAYOUT_CLASSIC, true, "bloom_agg_trans_sized");
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
	return agg_trans(fcinfo, BF_LAYOUT_COUNTING4, false, "counting_bloom_agg_trans");
}

/* counting_bloom_agg(value, expected_n, fpp) */
Datum
counting_bloom_agg_trans_sized(PG_FUNCTION_ARGS)
{
	return agg_trans(fcinfo, BF_LAYOUT_COUNTING4, true, "counting_bloom_agg_trans_sized");
}
