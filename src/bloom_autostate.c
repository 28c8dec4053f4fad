/*
 * bloom_autostate.c
 *	  The state of bloom_agg(value): the set of hashes, widened to a filter
 *	  past the limit, held as an expanded object and flattened when it
 *	  leaves the process.  bloom_auto.c says why (its header comment).
 */
#include "bloom_autostate.h"
#include "bloom_explicit.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/memutils.h"

static int agg_explicit_limit = AUTO_DEFAULT_LIMIT;

static Size auto_flat_size(ExpandedObjectHeader *eohptr);
static void auto_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods auto_methods = {auto_flat_size, auto_flatten};

void
bloom_auto_define_guc(void)
{
	DefineCustomIntVariable(
	    "bloomfilter.agg_explicit_limit",
	    "Distinct values bloom_agg(value) holds as exact hashes before it switches to a 1 GB "
	    "filter that it folds at the end.",
	    "Lower it only to test the switch: above the limit every group's state takes 1 GB.",
	    &agg_explicit_limit, AUTO_DEFAULT_LIMIT, 1, AUTO_DEFAULT_LIMIT, PGC_USERSET, 0, NULL, NULL,
	    NULL);
}

/* The limit, the same for the whole query (workers inherit the setting). */
static size_t
explicit_limit(void)
{
	return (size_t) agg_explicit_limit;
}

/* Set the bits of hashes[0 .. n) in a bit filter, in interruptible chunks. */
void
bloom_auto_add_hashes(bf_view *view, const uint64 *hashes, size_t n)
{
	for (size_t i = 0; i < n; i += BLOOM_HASHES_PER_CHECK)
	{
		CHECK_FOR_INTERRUPTS();
		bf_add_hashes(view, hashes + i, Min((size_t) BLOOM_HASHES_PER_CHECK, n - i));
	}
}

/* The rate the finished filter must meet. */
double
bloom_auto_target_fpp(uint32 target_ppb)
{
	return target_ppb ? (double) target_ppb / BF_TARGET_SCALE : AUTO_FPP;
}

/* k of the wide filter: the best k at the target rate, log2(1 / rate) (7 at 1 %). */
static uint16
wide_hashes(uint32 target_ppb)
{
	long k = lround(log2(1.0 / bloom_auto_target_fpp(target_ppb)));

	return (uint16) Max(1, Min(k, BF_MAX_HASHES));
}

BloomAuto *
bloom_auto_new(MemoryContext parent, const char *elem, size_t elemlen, uint32 target_ppb)
{
	BloomAuto *st = bloom_agg_state_new(parent, &auto_methods, sizeof(BloomAuto));

	st->capacity = AUTO_MIN_CAPACITY;
	st->hashes = MemoryContextAlloc(st->hdr.eoh_context, st->capacity * sizeof(uint64));
	memcpy(st->elem, elem, elemlen);
	st->elemlen = elemlen;
	st->target_ppb = target_ppb;
	return st;
}

/* Turn the set into the wide filter, adding every hash held. */
static void
auto_widen(BloomAuto *st)
{
	bf_params p = {BF_LAYOUT_CLASSIC, BF_SCHEME_DOUBLE_HASHING, wide_hashes(st->target_ppb), 0,
	               AUTO_WIDE_BITS};
	MemoryContext old = MemoryContextSwitchTo(st->hdr.eoh_context);

	/* the wide filter keeps the target, so that its flat form still knows it */
	bloom_new_target(&p, st->target_ppb ? BF_FLAG_TARGET : 0, st->target_ppb, st->elem, st->elemlen,
	                 0, &st->wide.f);
	bloom_auto_add_hashes(&st->wide.f.view, st->hashes, st->nused);
	pfree(st->hashes);
	st->hashes = NULL;
	bloom_batch_init(&st->wide);
	st->nsorted = st->nused = st->capacity = 0;
	MemoryContextSwitchTo(old);
}

/* Sort the appended tail into the head; widen if the set outgrew the limit. */
void
bloom_auto_compact(BloomAuto *st)
{
	size_t tail = st->nused - st->nsorted;
	uint64 *tmp;

	if (st->hashes == NULL)
	{
		/* a wide filter: write the pending hashes */
		bloom_batch_write(&st->wide);
		return;
	}
	if (tail == 0)
		return;
	CHECK_FOR_INTERRUPTS();
	tmp = MemoryContextAllocHuge(st->hdr.eoh_context, tail * sizeof(uint64));
	tail = bf_hashes_sort_unique(st->hashes + st->nsorted, tail, tmp);
	memcpy(tmp, st->hashes + st->nsorted, tail * sizeof(uint64));
	st->nsorted = st->nused = bf_hashes_merge(st->hashes, st->nsorted, tmp, tail);
	pfree(tmp);
	if (st->nsorted > explicit_limit())
		auto_widen(st);
}

void
bloom_auto_add_hash(BloomAuto *st, uint64 h)
{
	if (st->hashes == NULL)
	{
		bloom_batch_add(&st->wide, h); /* written in batches (bloom_aggstate.c) */
		return;
	}
	if (st->nused == st->capacity)
	{
		bloom_auto_compact(st);
		if (st->hashes == NULL)
		{
			bloom_auto_add_hash(st, h);
			return;
		}
		/* grow when the distinct hashes fill half of it; the limit bounds it */
		if (st->nused > st->capacity / 2)
		{
			st->capacity = Min(st->capacity * 2, explicit_limit() + explicit_limit() / 4 + 1);
			st->hashes = repalloc_huge(st->hashes, st->capacity * sizeof(uint64));
		}
	}
	st->hashes[st->nused++] = h;
	/* a tail as long as half the head: sort it in (O(1) a value, amortized) */
	if (st->nused - st->nsorted >= Max(st->nsorted / 2, AUTO_MIN_CAPACITY))
		bloom_auto_compact(st);
}

/*
 * Add the hashes of an explicit filter.  They come sorted and distinct, so
 * they are merged into the head in one pass when the head has room for
 * both (a parallel aggregate's leader merges the workers' sets this way);
 * otherwise, or into a wide filter, they are added one chunk at a time.
 */
static void
auto_add_set(BloomAuto *st, const bf_view *v)
{
	size_t n = (size_t) v->p.ncells;
	size_t max_capacity = explicit_limit() + explicit_limit() / 4 + 1;
	uint64 *chunk;

	bloom_auto_compact(st);
	if (st->hashes != NULL && st->nsorted + n <= max_capacity)
	{
		if (st->nsorted + n > st->capacity)
		{
			st->capacity = Max(st->nsorted + n, Min(st->capacity * 2, max_capacity));
			st->hashes = repalloc_huge(st->hashes, st->capacity * sizeof(uint64));
		}
		chunk = MemoryContextAllocHuge(st->hdr.eoh_context, Max(n, 1) * sizeof(uint64));
		bf_explicit_hashes(v, chunk);
		st->nsorted = st->nused = bf_hashes_merge(st->hashes, st->nsorted, chunk, n);
		pfree(chunk);
		if (st->nsorted > explicit_limit())
			auto_widen(st);
		return;
	}
	chunk = palloc(BLOOM_HASHES_PER_CHECK * sizeof(uint64));
	for (size_t i = 0; i < n; i += BLOOM_HASHES_PER_CHECK)
	{
		size_t len = Min((size_t) BLOOM_HASHES_PER_CHECK, n - i);

		CHECK_FOR_INTERRUPTS();
		for (size_t j = 0; j < len; j++)
			chunk[j] = bf_explicit_hash(v, i + j);
		if (st->hashes == NULL)
			bf_add_hashes(&st->wide.f.view, chunk, len);
		else
			for (size_t j = 0; j < len; j++)
				bloom_auto_add_hash(st, chunk[j]);
	}
	pfree(chunk);
}

/* Add what a flat bloom value holds: a set's hashes, or a wide filter's bits. */
void
bloom_auto_add_flat(BloomAuto *st, const BloomFilter *f)
{
	const bf_view *v = &f->view;

	if (v->elemlen != 0 && st->elemlen != 0 &&
	    !bf_elem_equal(v->elem, v->elemlen, st->elem, st->elemlen))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("cannot combine bloom filters that differ in element family: %s "
		                       "and %s",
		                       bloom_elem_for_message(st->elem, st->elemlen),
		                       bloom_elem_for_message(v->elem, v->elemlen))));
	if (v->target_ppb != st->target_ppb)
		ereport(
		    ERROR,
		    (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		     errmsg("cannot combine partial states of bloom_agg that aim at different rates: "
		            "%g and %g",
		            bloom_auto_target_fpp(st->target_ppb), bloom_auto_target_fpp(v->target_ppb))));
	if (st->elemlen == 0 && v->elemlen != 0)
	{
		memcpy(st->elem, v->elem, v->elemlen);
		st->elemlen = v->elemlen;
	}
	if (v->p.layout == BF_LAYOUT_EXPLICIT)
		auto_add_set(st, v);
	else
	{
		if (st->hashes != NULL)
			auto_widen(st);
		bloom_bytes_op(&st->wide.f.view, v, bf_union_bytes);
	}
	st->nadded = bloom_add_counts(st->nadded, v->nadded);
}

/*
 * A partial state of bloom_agg(value): a set, or a wide filter, of hashes
 * made with seed 0 (another seed's hashes would land on other bits).
 */
bool
bloom_auto_is_state(const bf_view *v)
{
	if (v->p.seed != 0 || v->p.scheme != BF_SCHEME_DOUBLE_HASHING)
		return false;
	if (v->p.layout == BF_LAYOUT_EXPLICIT)
		return true;
	return v->p.layout == BF_LAYOUT_CLASSIC && v->p.ncells == AUTO_WIDE_BITS &&
	       v->p.nhashes == wide_hashes(v->target_ppb) && !(v->flags & BF_FLAG_DERIVED);
}

/* Our expanded state in the datum, or NULL. */
BloomAuto *
bloom_auto_of_datum(Datum d)
{
	return (BloomAuto *) bloom_agg_state_of(d, &auto_methods);
}

/* Raise 22023 unless v is a partial state of bloom_agg(value). */
void
bloom_auto_require_state(const bf_view *v)
{
	if (!bloom_auto_is_state(v))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("bloom value is not a partial state of bloom_agg(value)"),
		                errdetail("A partial state is an explicit filter of seed 0, or a classic "
		                          "filter of " UINT64_FORMAT " bits and seed 0 (7 hashes at 1 %%).",
		                          AUTO_WIDE_BITS)));
}

/* A new state in parent holding what the flat partial state f holds. */
BloomAuto *
bloom_auto_from_flat(const BloomFilter *f, MemoryContext parent)
{
	BloomAuto *st;

	bloom_auto_require_state(&f->view);
	st = bloom_auto_new(parent, f->view.elem, f->view.elemlen, f->view.target_ppb);
	bloom_auto_add_flat(st, f);
	return st;
}

/*
 * The state in argument argno as an expanded object we may modify: the
 * aggregate's own read-write state, or a new one (in parent) holding a flat
 * state that came from elsewhere (a parallel worker, a sharded engine).
 */
BloomAuto *
bloom_auto_state_arg(FunctionCallInfo fcinfo, int argno, MemoryContext parent)
{
	Datum d = PG_GETARG_DATUM(argno);
	BloomAuto *st = bloom_auto_of_datum(d);
	BloomFilter f;

	if (st != NULL && bloom_agg_state_is_rw(d) &&
	    MemoryContextGetParent(st->hdr.eoh_context) == parent)
		return st;
	bloom_get_datum(d, &f); /* flattens an expanded value */
	return bloom_auto_from_flat(&f, parent);
}

/* The shape and flags of the explicit filter a compacted set of hashes flattens to. */
static uint8
explicit_shape(const BloomAuto *st, bf_params *p)
{
	*p = (bf_params){BF_LAYOUT_EXPLICIT, BF_SCHEME_DOUBLE_HASHING, 0, 0, st->nsorted};
	return st->target_ppb ? BF_FLAG_TARGET : 0;
}

static Size
auto_flat_size(ExpandedObjectHeader *eohptr)
{
	BloomAuto *st = (BloomAuto *) eohptr;
	bf_params p;
	uint8 flags;
	size_t len;
	bf_error err;

	bloom_auto_compact(st);
	if (st->hashes == NULL)
		return VARSIZE(st->wide.f.raw);
	flags = explicit_shape(st, &p);
	if (!bf_payload_size(&p, flags, st->elemlen, &len, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	return VARHDRSZ + len;
}

static void
auto_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	BloomAuto *st = (BloomAuto *) eohptr;
	struct varlena *raw = (struct varlena *) result;
	bf_params p;
	uint8 flags;
	bf_view view;

	bloom_auto_compact(st); /* done by auto_flat_size already: nothing changes size here */
	if (st->hashes == NULL)
	{
		/* the state's count: the wide filter's own counts only what came after widening */
		bf_view_set_nadded(&st->wide.f.view, st->nadded);
		memcpy(raw, st->wide.f.raw, allocated_size);
		return;
	}
	flags = explicit_shape(st, &p);
	SET_VARSIZE(raw, allocated_size);
	bf_init_header((uint8_t *) VARDATA(raw), &p, flags, st->elem, st->elemlen, st->nadded, &view);
	Assert(view.data + view.nbytes == (uint8 *) raw + allocated_size);
	if (st->target_ppb)
		bf_view_set_target(&view, st->target_ppb);
	bf_explicit_set_hashes(&view, st->hashes);
}
