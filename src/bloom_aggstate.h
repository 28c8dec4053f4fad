/*
 * bloom_aggstate.h
 *	  What the aggregates' states share (bloom_aggstate.c): the aggregate's
 *	  memory context, a state as an expanded object, and a batch of hashes
 *	  written into a bit filter BLOOM_BATCH at a time.
 */
#ifndef BLOOM_AGGSTATE_H
#define BLOOM_AGGSTATE_H

#include "bloom_datum.h"

#include "utils/expandeddatum.h"

/* The aggregate's memory context; 0A000 when not called as an aggregate. */
extern MemoryContext bloom_agg_context(FunctionCallInfo fcinfo, const char *name);

/*
 * A new aggregate state of size bytes, zeroed, that starts with an
 * ExpandedObjectHeader with these methods, in a memory context of its own
 * ("bloom aggregate state") under aggcontext.
 */
extern void *bloom_agg_state_new(MemoryContext aggcontext, const ExpandedObjectMethods *methods,
                                 Size size);

/* The expanded state with these methods that datum d points to, or NULL. */
extern void *bloom_agg_state_of(Datum d, const ExpandedObjectMethods *methods);

/* Whether d is a read-write pointer to an expanded object (the state's owner may change it). */
extern bool bloom_agg_state_is_rw(Datum d);

/*
 * A bit filter (classic, blocked512; or a Parquet filter, whose values are
 * one XXH64 each: bf_maker_hashes_one) and the hashes of its last values,
 * not yet written: writing them BLOOM_BATCH at a time lets bf_add_hashes()
 * overlap their cache misses, which dominate the cost of a build into a
 * filter larger than the CPU cache.  Whoever reads f must call
 * bloom_batch_write() first.
 */
#define BLOOM_BATCH 256

typedef struct BloomBatch
{
	BloomFilter f;
	uint64 *pending; /* BLOOM_BATCH entries */
	int npending;
} BloomBatch;

/* Allocate the pending array (in the current memory context) for the filter in b->f. */
extern void bloom_batch_init(BloomBatch *b);

/* Write the pending hashes into the bits and count their values; returns how many. */
extern int bloom_batch_write(BloomBatch *b);

/* Queue the hash of a new value; the batch is written when full. */
static inline void
bloom_batch_add(BloomBatch *b, uint64 h)
{
	b->pending[b->npending++] = h;
	if (b->npending == BLOOM_BATCH)
		bloom_batch_write(b);
}

#endif /* BLOOM_AGGSTATE_H */
