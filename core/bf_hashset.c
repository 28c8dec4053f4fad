/*
 * bf_hashset.c
 *	  Sorting and merging arrays of 64-bit hashes: how bloom_agg(value)
 *	  without sizing hints keeps the exact set of its values' hashes.
 *
 * The PostgreSQL layer appends hashes to an unsorted tail and, now and then,
 * sorts the tail and merges it into a sorted, duplicate-free head
 * (bf_hashes_sort_unique, bf_hashes_merge): the work per value stays
 * constant however many values come, and duplicates cost no memory for
 * long.  The result becomes an explicit filter (bf_explicit.c).
 */
#include "bf_core.h"
#include "bf_util.h"

#include <string.h>

/* Below this many entries, an insertion sort beats the radix passes. */
#define SMALL_SORT 48

static void
insertion_sort(uint64_t *a, size_t n)
{
	for (size_t i = 1; i < n; i++)
	{
		uint64_t v = a[i];
		size_t j = i;

		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/*
 * Least-significant-digit radix sort, 8 passes of 8 bits, the histograms of
 * all passes counted in one read; a pass whose digit is the same in every
 * entry is skipped.
 */
static void
radix_sort(uint64_t *a, size_t n, uint64_t *tmp)
{
	size_t count[8][256];
	uint64_t *src = a, *dst = tmp;

	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++)
	{
		uint64_t v = a[i];

		if ((i & BF_TICK_MASK) == BF_TICK_MASK)
			bf_tick();
		for (int d = 0; d < 8; d++)
			count[d][(v >> (8 * d)) & 0xFF]++;
	}
	for (int d = 0; d < 8; d++)
	{
		size_t offset[256], sum = 0;
		int shift = 8 * d;

		if (count[d][(src[0] >> shift) & 0xFF] == n)
			continue; /* one digit everywhere: the order stays */
		for (int b = 0; b < 256; b++)
		{
			offset[b] = sum;
			sum += count[d][b];
		}
		for (size_t i = 0; i < n; i++)
		{
			uint64_t v = src[i];

			if ((i & BF_TICK_MASK) == BF_TICK_MASK)
				bf_tick();
			dst[offset[(v >> shift) & 0xFF]++] = v;
		}
		{
			uint64_t *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != a)
		memcpy(a, src, n * sizeof(uint64_t));
}

size_t
bf_hashes_sort_unique(uint64_t *a, size_t n, uint64_t *tmp)
{
	size_t w;

	if (n < 2)
		return n;
	if (n < SMALL_SORT)
		insertion_sort(a, n);
	else
		radix_sort(a, n, tmp);
	w = 1;
	for (size_t i = 1; i < n; i++)
		if (a[i] != a[w - 1])
			a[w++] = a[i];
	return w;
}

size_t
bf_hashes_merge(uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	/*
	 * From the top down: the write position never falls below the next
	 * entry of a still to read (it stays above it by the entries of b not
	 * yet merged, plus the duplicates dropped), so nothing unread is
	 * overwritten.  Duplicates leave a gap at the bottom, closed at the end.
	 */
	size_t i = na, j = nb, w = na + nb, n;

	while (j > 0)
	{
		uint64_t v;

		if (i > 0 && a[i - 1] >= b[j - 1])
		{
			v = a[--i];
			if (v == b[j - 1])
				j--;
		}
		else
			v = b[--j];
		a[--w] = v;
	}
	/* the rest of a is below; move it up only if duplicates opened a gap */
	if (w > i)
		memmove(a + (w - i), a, i * sizeof(uint64_t));
	w -= i;
	n = na + nb - w;
	if (w > 0)
		memmove(a, a + w, n * sizeof(uint64_t));
	return n;
}
