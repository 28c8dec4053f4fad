/*
 * bloom_explicit.c
 *	  The SQL functions' operations on explicit filters, the exact sets of
 *	  hashes that bloom_agg(value) collects before it knows the size to give
 *	  its filter (see core/bf_explicit.c and bloom_auto.c).
 *
 * An explicit filter is an ordinary bloom value: it can be stored, printed,
 * probed (exactly) and combined.  It changes size as it changes, so every
 * operation here builds a new value.  Combined with a bit filter it becomes
 * one: its hashes are added to the bits (union), or it keeps only the hashes
 * the bit filter may hold (intersection, still exact on its side).
 */
#include "bloom_explicit.h"

#include "miscadmin.h"
#include "utils/memutils.h"

uint64 *
bloom_explicit_hashes(const bf_view *v, size_t extra)
{
	uint64 *hashes = MemoryContextAllocHuge(CurrentMemoryContext,
	                                        Max((v->p.ncells + extra) * sizeof(uint64), 1));

	bf_explicit_hashes(v, hashes);
	return hashes;
}

void
bloom_explicit_build(const uint64 *hashes, size_t n, uint64 seed, uint32 target_ppb,
                     const char *elem, size_t elemlen, uint64 nadded, BloomFilter *out)
{
	bf_params p = {BF_LAYOUT_EXPLICIT, BF_SCHEME_DOUBLE_HASHING, 0, seed, n};

	Assert(nadded >= n && (n == 0) == (elemlen == 0));
	bloom_new_target(&p, target_ppb ? BF_FLAG_TARGET : 0, target_ppb, elem, elemlen, nadded, out);
	bf_explicit_set_hashes(&out->view, hashes);
}

/* The target of a combination of two sets: either's, if they do not disagree. */
static uint32
combined_target(const bf_view *a, const bf_view *b)
{
	if (a->target_ppb && b->target_ppb && a->target_ppb != b->target_ppb)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("cannot combine partial states of bloom_agg that aim at different rates: "
		                "%g and %g",
		                (double) a->target_ppb / BF_TARGET_SCALE,
		                (double) b->target_ppb / BF_TARGET_SCALE)));
	return a->target_ppb ? a->target_ppb : b->target_ppb;
}

void
bloom_set_hash(BloomFilter *f, uint64 h)
{
	if (f->view.p.layout == BF_LAYOUT_EXPLICIT)
	{
		const bf_view *v = &f->view;
		BloomFilter g;

		if (bf_contains_hash(v, h))
			return; /* held already */
		bloom_new_target(
		    &(bf_params){BF_LAYOUT_EXPLICIT, v->p.scheme, 0, v->p.seed, v->p.ncells + 1}, v->flags,
		    v->target_ppb, v->elem, v->elemlen, v->nadded, &g);
		bf_explicit_copy_inserting(v, h, &g.view);
		*f = g;
	}
	else
	{
		unsigned changed = bf_add_hash(&f->view, h);

		/* a derived filter's bound grows by the new bits; a new bit means a new value */
		if (f->view.flags & BF_FLAG_DERIVED)
			bf_view_set_derived(&f->view, Min(f->view.bound + changed, f->view.p.ncells),
			                    f->view.est_distinct + (changed > 0));
	}
}

/* Add every hash of the explicit filter e to the bit filter f. */
static void
add_all(BloomFilter *f, const bf_view *e)
{
	for (uint64 i = 0; i < e->p.ncells; i++)
	{
		if (i % BLOOM_HASHES_PER_CHECK == 0)
			CHECK_FOR_INTERRUPTS();
		bloom_set_hash(f, bf_explicit_hash(e, i));
	}
}

void
bloom_explicit_union(BloomFilter *a, const BloomFilter *b)
{
	const bf_view *va = &a->view, *vb = &b->view;
	uint64 nadded = bloom_add_counts(va->nadded, vb->nadded);

	Assert(va->elemlen > 0 && vb->elemlen > 0 && va->p.seed == vb->p.seed &&
	       bf_elem_equal(va->elem, va->elemlen, vb->elem, vb->elemlen));

	if (va->p.layout == BF_LAYOUT_EXPLICIT && vb->p.layout == BF_LAYOUT_EXPLICIT)
	{
		uint64 *ha = bloom_explicit_hashes(va, vb->p.ncells);
		uint64 *hb = bloom_explicit_hashes(vb, 0);
		size_t n = bf_hashes_merge(ha, va->p.ncells, hb, vb->p.ncells);

		bloom_explicit_build(ha, n, va->p.seed, combined_target(va, vb), va->elem, va->elemlen,
		                     nadded, a);
		pfree(ha);
		pfree(hb);
	}
	else if (va->p.layout == BF_LAYOUT_EXPLICIT)
	{
		BloomFilter copy;

		bloom_copy_as(b, vb->flags, &copy);
		add_all(&copy, va);
		*a = copy;
	}
	else
		add_all(a, vb);
	bf_view_set_nadded(&a->view, nadded);
}

void
bloom_explicit_intersect(BloomFilter *a, const BloomFilter *b)
{
	/* the explicit side keeps the hashes the other may hold */
	bool a_explicit = a->view.p.layout == BF_LAYOUT_EXPLICIT;
	const bf_view *set = a_explicit ? &a->view : &b->view;
	const bf_view *other = a_explicit ? &b->view : &a->view;
	uint64 *hashes;
	size_t n;

	Assert(set->p.layout == BF_LAYOUT_EXPLICIT && set->p.seed == other->p.seed);
	hashes = bloom_explicit_hashes(set, 0);
	n = bf_hashes_retain(hashes, set->p.ncells, other);

	/* every hash left stands for a value added to both; none left, nothing added */
	if (n > 0)
		bloom_explicit_build(hashes, n, set->p.seed, set->target_ppb, set->elem, set->elemlen, n,
		                     a);
	else
		bloom_explicit_build(hashes, 0, set->p.seed, set->target_ppb, NULL, 0, 0, a);
	pfree(hashes);
}
