/*
 * bloom_callcache.h
 *	  What a call site keeps across rows in fn_extra: one struct, whose parts
 *	  belong to the files that use them (the hasher, bloom_value.c; a stored
 *	  filter's detoasted copy, bloom_datum.c; the last sizing, bloom_agg.c).
 *	  No functions but its accessor, so the files that share it depend on
 *	  it, not on each other.
 */
#ifndef BLOOM_CALLCACHE_H
#define BLOOM_CALLCACHE_H

#include "bloom_value.h"

#include "utils/memutils.h"

/*
 * What a call site keeps across rows, in fn_extra (allocated in fn_mcxt).
 * Each part belongs to the file named above it, which alone reads and
 * writes it.
 */
typedef struct BloomCallCache
{
	/* bloom_value.c: the hasher of one argument */
	bool hasher_valid;
	int hasher_argno; /* the argument the hasher is for */
	BloomHasher hasher;
	bool elem_checked; /* the kept filter's element key matches the hasher */

	/* bloom_datum.c: the detoasted copy of a stored filter (keeping another clears elem_checked) */
	Oid toastrelid; /* TOAST pointer of the kept filter */
	Oid valueid;
	struct varlena *filter; /* detoasted copy, in fn_mcxt, or NULL */
	bf_view view;

	/*
	 * bloom_makers.c: for another maker's filter, the value's base type and
	 * the encoding of the element key last probed or added (checked once,
	 * not per row)
	 */
	bool maker_valid;
	int maker_argno;
	Oid maker_typid;
	int maker_encoding;
	char maker_elem[32];
	size_t maker_elemlen;
	/*
	 * and for the kept filter (bloom_datum.c clears it when it keeps
	 * another): the encoding and type of argument maker_recip_argno, and
	 * bf_maker_recip
	 */
	bool maker_recip_valid;
	int maker_recip_argno;
	int maker_kept_encoding;
	Oid maker_kept_typid;
	uint64 maker_recip;

	/* bloom_agg.c: the size computed for the last sizing hints */
	bool sized;
	int64 sized_n;
	double sized_fpp;
	uint8 sized_layout;
	uint64 sized_ncells;
	int sized_nhashes;
} BloomCallCache;

/* The call site's cache in fn_extra, allocated (zeroed) on first use; inline: once per row. */
static inline BloomCallCache *
bloom_call_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
		    MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomCallCache));
	return (BloomCallCache *) fcinfo->flinfo->fn_extra;
}

#endif /* BLOOM_CALLCACHE_H */
