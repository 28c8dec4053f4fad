/*
 * bf_explicit.c
 *	  The explicit layout: the exact set of the values' 64-bit hashes.
 *
 * bloom_agg(value) without sizing hints cannot size a filter before it has
 * seen the values, so it collects their hashes first (bf_hashset.c).  8
 * bytes a value is more than the 1.2 bytes a filter needs at 1 %, but it is
 * exact, and it is what lets the final filter be the smallest that meets
 * the rate for the distinct count actually found.
 *
 * The data are the hashes in increasing order, 8 bytes each, little-endian
 * (bf_format.h), so that membership is a binary search and two explicit
 * filters of the same set are byte-for-byte equal.
 */
#include "bf_layouts.h"
#include "bf_util.h"

#include <string.h>

#define HASH_BYTES 8

uint64_t
bf_explicit_get(const bf_view *view, uint64_t i)
{
	assert(view->p.layout == BF_LAYOUT_EXPLICIT && i < view->p.ncells);
	return bf_load_le(view->data + HASH_BYTES * i, HASH_BYTES);
}

void
bf_explicit_write(uint8_t *data, const uint64_t *hashes, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		if ((i & BF_TICK_MASK) == BF_TICK_MASK)
			bf_tick();
		assert(i == 0 || hashes[i - 1] < hashes[i]);
		bf_store_le(data + HASH_BYTES * i, hashes[i], HASH_BYTES);
	}
}

void
bf_explicit_read(const bf_view *view, uint64_t *hashes)
{
	assert(view->p.layout == BF_LAYOUT_EXPLICIT);
	for (size_t i = 0; i < view->p.ncells; i++)
	{
		if ((i & BF_TICK_MASK) == BF_TICK_MASK)
			bf_tick();
		hashes[i] = bf_load_le(view->data + HASH_BYTES * i, HASH_BYTES);
	}
}

/* How many hashes are below h (binary search). */
uint64_t
bf_explicit_rank(const bf_view *view, uint64_t h)
{
	uint64_t lo = 0, hi = view->p.ncells; /* hashes below lo are < h, from hi on >= h */

	assert(view->p.layout == BF_LAYOUT_EXPLICIT);
	while (lo < hi)
	{
		uint64_t mid = lo + (hi - lo) / 2;

		if (bf_load_le(view->data + HASH_BYTES * mid, HASH_BYTES) < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
bf_explicit_contains(const bf_view *view, uint64_t h)
{
	uint64_t rank = bf_explicit_rank(view, h);

	return rank < view->p.ncells && bf_explicit_get(view, rank) == h;
}

/*
 * Write into dst, a new explicit filter of m(src) + 1 hashes, src's hashes
 * with h (not among them) in its place.
 */
void
bf_explicit_copy_with(const bf_view *src, uint64_t h, bf_view *dst)
{
	uint64_t rank = bf_explicit_rank(src, h);

	assert(dst->p.layout == BF_LAYOUT_EXPLICIT && dst->p.ncells == src->p.ncells + 1);
	assert(!bf_explicit_contains(src, h));
	memcpy(dst->data, src->data, rank * HASH_BYTES);
	bf_store_le(dst->data + rank * HASH_BYTES, h, HASH_BYTES);
	memcpy(dst->data + (rank + 1) * HASH_BYTES, src->data + rank * HASH_BYTES,
	       (src->p.ncells - rank) * HASH_BYTES);
}

/*
 * Hashes strictly increasing, no more than the values added, the element key
 * set exactly when values were.
 */
bool
bf_explicit_check(const bf_view *view, bf_error *err)
{
	assert(view->p.layout == BF_LAYOUT_EXPLICIT);
	if (view->nadded < view->p.ncells)
		return bf_fail(err, BF_ERR_FORMAT, "%llu hashes are held, more than the %llu values added",
		               (unsigned long long) view->p.ncells, (unsigned long long) view->nadded);
	if (view->nadded == 0 && view->elemlen != 0)
		return bf_fail(err, BF_ERR_FORMAT, "element key is set but no values were added");
	if (view->nadded != 0 && view->elemlen == 0)
		return bf_fail(err, BF_ERR_FORMAT, "values were added but the element key is empty");
	for (uint64_t i = 1; i < view->p.ncells; i++)
	{
		if ((i & BF_TICK_MASK) == 0)
			bf_tick();
		if (bf_explicit_get(view, i - 1) >= bf_explicit_get(view, i))
			return bf_fail(err, BF_ERR_FORMAT,
			               "hashes are not in strictly increasing order (at hash %llu)",
			               (unsigned long long) i);
	}
	return true;
}
