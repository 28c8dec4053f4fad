/*
 * bloom_aggstate.c
 *	  What the aggregates' states share: their memory context, an expanded
 *	  object of their own, and a bit filter whose new hashes are written in
 *	  batches.
 *
 * The transition value of bloom_agg is a bloom value, not "internal", so
 * that partial states travel between processes and servers with no
 * serialization functions.  Inside the aggregate it is an expanded object
 * (utils/expandeddatum.h): nodeAgg keeps a read-write expanded transition
 * value in place, so a state changes without being copied, and is flattened
 * to a bloom value only when it leaves (a parallel worker's output, the
 * combine function, the result).  bloom_agg.c (with sizing hints) and
 * bloom_auto.c (sized from the data) each keep their own state behind these
 * helpers.
 */
#include "bloom_aggstate.h"

#include "../core/bf_makers.h"

#include "utils/memutils.h"

MemoryContext
bloom_agg_context(FunctionCallInfo fcinfo, const char *name)
{
	MemoryContext aggcontext;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("%s called in non-aggregate context", name)));
	return aggcontext;
}

void *
bloom_agg_state_new(MemoryContext aggcontext, const ExpandedObjectMethods *methods, Size size)
{
	/* the name must be a constant string (AllocSetContextCreate) */
	MemoryContext cxt =
	    AllocSetContextCreate(aggcontext, "bloom aggregate state", ALLOCSET_SMALL_SIZES);
	ExpandedObjectHeader *hdr = MemoryContextAllocZero(cxt, size);

	Assert(size >= sizeof(ExpandedObjectHeader));
	EOH_init_header(hdr, methods, cxt);
	return hdr;
}

void *
bloom_agg_state_of(Datum d, const ExpandedObjectMethods *methods)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	return eoh->eoh_methods == methods ? eoh : NULL;
}

bool
bloom_agg_state_is_rw(Datum d)
{
	return VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d));
}

void
bloom_batch_init(BloomBatch *b)
{
	Assert(bf_layout_is_bits(b->f.view.p.layout) || bf_maker_hashes_one(b->f.view.p.layout));
	b->pending = palloc(BLOOM_BATCH * sizeof(uint64));
	b->npending = 0;
}

int
bloom_batch_write(BloomBatch *b)
{
	int n = b->npending;

	Assert(n >= 0 && n <= BLOOM_BATCH && (n == 0 || b->pending != NULL));
	if (n > 0)
	{
		/* (another maker's filter whose values are one hash each: Parquet's) */
		if (bf_layout_is_maker(b->f.view.p.layout))
			bf_maker_add_hashes(&b->f.view, b->pending, (size_t) n);
		else
			bf_add_hashes(&b->f.view, b->pending, (size_t) n);
		if (!(b->f.view.flags & BF_FLAG_N_UNKNOWN))
			bf_view_set_nadded(&b->f.view, bloom_add_counts(b->f.view.nadded, (uint64) n));
	}
	b->npending = 0;
	return n;
}
