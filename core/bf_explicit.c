/*
 * bf_explicit.c
 *	  The explicit layout (the exact set of the values' 64-bit hashes), the
 *	  sorting that builds it, and the folding of classic filters.
 *
 * bloom_agg(value) without sizing hints cannot size a filter before it has
 * seen the values, so it collects their hashes first.  8 bytes a value is
 * more than the 1.2 bytes a filter needs at 1 %, but it is exact, and it is
 * what lets the final filter be the smallest that meets the rate for the
 * distinct count actually found.  The PostgreSQL layer appends hashes to an
 * unsorted tail and, now and then, sorts the tail and merges it into a
 * sorted, duplicate-free head (bf_hashes_sort_unique, bf_hashes_merge): the
 * work per value stays constant however many values come, and duplicates
 * cost no memory for long.
 *
 * The serialized data are the hashes in increasing order, 8 bytes each,
 * little-endian, so that membership is a binary search and two explicit
 * filters of the same set are byte-for-byte equal.
 */
#include "bf_core.h"
#include "bf_internal.h"

#include <string.h>

/* Below this many entries, an insertion sort beats the radix passes. */
#define SMALL_SORT 48
/* Entries handled between two ticks in the long loops. */
#define TICK_MASK ((size_t) (1u << 20) - 1)

static inline uint64_t
load64(const uint8_t *p)
{
	return (uint64_t) p[0] | (uint64_t) p[1] << 8 | (uint64_t) p[2] << 16 | (uint64_t) p[3] << 24 |
	       (uint64_t) p[4] << 32 | (uint64_t) p[5] << 40 | (uint64_t) p[6] << 48 |
	       (uint64_t) p[7] << 56;
}

static inline void
store64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t) v;
}

uint64_t
bf_explicit_get(const bf_view *view, uint64_t i)
{
	return load64(view->bits + 8 * i);
}

void
bf_explicit_put(uint8_t *data, const uint64_t *hashes, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		if ((i & TICK_MASK) == TICK_MASK)
			bf_tick();
		store64(data + 8 * i, hashes[i]);
	}
}

void
bf_explicit_read(const bf_view *view, uint64_t *hashes)
{
	for (size_t i = 0; i < view->p.nbits; i++)
	{
		if ((i & TICK_MASK) == TICK_MASK)
			bf_tick();
		hashes[i] = load64(view->bits + 8 * i);
	}
}

uint64_t
bf_explicit_rank(const bf_view *view, uint64_t h)
{
	uint64_t lo = 0, hi = view->p.nbits; /* hashes below lo are < h, from hi on >= h */

	while (lo < hi)
	{
		uint64_t mid = lo + (hi - lo) / 2;

		if (load64(view->bits + 8 * mid) < h)
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

	return rank < view->p.nbits && load64(view->bits + 8 * rank) == h;
}

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

		if ((i & TICK_MASK) == TICK_MASK)
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

			if ((i & TICK_MASK) == TICK_MASK)
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

size_t
bf_hashes_retain(uint64_t *a, size_t na, const bf_view *filter)
{
	size_t w = 0;

	for (size_t i = 0; i < na; i++)
	{
		if ((i & TICK_MASK) == TICK_MASK)
			bf_tick();
		if (bf_contains_hash(filter, a[i]))
			a[w++] = a[i];
	}
	return w;
}

void
bf_fold_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	uint64_t f = src->p.nbits / dst->p.nbits;
	size_t i = from;

	while (i < to)
	{
		unsigned byte;

		/* a large filter being folded is mostly zero: skip 8 zero bytes at a time */
		if ((i & 7) == 0 && to - i >= 8)
		{
			uint64_t word;

			memcpy(&word, src->bits + i, 8);
			if (word == 0)
			{
				i += 8;
				continue;
			}
		}
		if ((i & TICK_MASK) == TICK_MASK)
			bf_tick();
		byte = src->bits[i];
		for (unsigned b = 0; byte != 0; b++, byte >>= 1)
		{
			if (byte & 1)
			{
				uint64_t q = ((uint64_t) i * 8 + b) / f;

				dst->bits[q >> 3] |= (uint8_t) (1u << (q & 7));
			}
		}
		i++;
	}
}
