/*
 * bf_stretches.c
 *	  A bounded set of stretches of integers covering every value added
 *	  (bf_stretches.h).
 */
#include "bf_stretches.h"
#include "bf_core.h"
#include "bf_util.h"

size_t
bf_stretches_bytes(int max)
{
	assert(max >= 1 && max <= (1 << 20));
	/* lo, hi and pending (max each), work (6 max), sorted (2 max) */
	return (size_t) 11 * (size_t) max * sizeof(uint64_t);
}

void
bf_stretches_init(bf_stretches *s, int max, void *buffer)
{
	uint64_t *b = buffer;

	assert(s != NULL && buffer != NULL && max >= 1 && max <= (1 << 20));
	assert(((uintptr_t) buffer & 7) == 0);
	s->max = max;
	s->n = 0;
	s->npending = 0;
	s->lo = b;
	s->hi = b + max;
	s->pending = b + 2 * (size_t) max;
	s->work = b + 3 * (size_t) max;
	s->sorted = b + 9 * (size_t) max;
}

int
bf_stretches_first_reaching(const bf_stretches *s, uint64_t value)
{
	int lo = 0, hi = s->n;

	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;

		if (s->hi[mid] < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
bf_stretches_add(bf_stretches *s, uint64_t value)
{
	assert(s->npending < s->max);
	if (s->n > 0)
	{
		int i = bf_stretches_first_reaching(s, value);

		if (i < s->n && s->lo[i] <= value)
			return; /* covered already */
	}
	s->pending[s->npending++] = value;
	if (s->npending == s->max)
		bf_stretches_finish(s);
}

/*
 * The k-th smallest (0-based) of a[0 .. n), reordering a: Hoare's selection,
 * linear on average; equal values (gaps of one width) split evenly.
 */
static uint64_t
select_kth(uint64_t *a, int n, int k)
{
	int lo = 0, hi = n - 1;

	assert(k >= 0 && k < n);
	while (lo < hi)
	{
		uint64_t pivot = a[lo + (hi - lo) / 2];
		int i = lo, j = hi;

		while (i <= j)
		{
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j)
			{
				uint64_t t = a[i];

				a[i++] = a[j];
				a[j--] = t;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return a[k];
	}
	return a[k];
}

/*
 * Join the c stretches [lo[i], hi[i]] (sorted, disjoint, not adjacent) into
 * max by joining across the narrowest gaps (the leftmost of equal ones
 * first); returns max.
 */
static int
join_narrowest(bf_stretches *s, uint64_t *lo, uint64_t *hi, int c)
{
	uint64_t *gaps = s->work + 4 * (size_t) s->max;
	int need = c - s->max;
	int below = 0, equal_joins, w = 0;
	uint64_t threshold;

	assert(c > s->max && c <= 2 * s->max);
	for (int g = 0; g < c - 1; g++)
	{
		assert(lo[g + 1] > hi[g] + 1);
		gaps[g] = lo[g + 1] - hi[g];
		s->sorted[g] = gaps[g];
	}
	threshold = select_kth(s->sorted, c - 1, need - 1);
	for (int g = 0; g < c - 1; g++)
		below += gaps[g] < threshold;
	equal_joins = need - below;
	for (int g = 1; g < c; g++)
	{
		uint64_t gap = gaps[g - 1];

		if (gap < threshold || (gap == threshold && equal_joins-- > 0))
			hi[w] = hi[g];
		else
		{
			w++;
			lo[w] = lo[g];
			hi[w] = hi[g];
		}
	}
	assert(w + 1 == s->max);
	return w + 1;
}

/*
 * Append [a, b] to the c stretches out (sorted by their lower ends, a at
 * least the last's): joined to the last if they overlap or touch; returns
 * the new count.
 */
static int
append_stretch(uint64_t *out_lo, uint64_t *out_hi, int c, uint64_t a, uint64_t b)
{
	if (c > 0 && (a <= out_hi[c - 1] || a - out_hi[c - 1] == 1))
	{
		if (b > out_hi[c - 1])
			out_hi[c - 1] = b;
		return c;
	}
	out_lo[c] = a;
	out_hi[c] = b;
	return c + 1;
}

/* Make the c stretches out (at most 2 * max) s's, past max joined across the narrowest gaps. */
static void
store(bf_stretches *s, uint64_t *out_lo, uint64_t *out_hi, int c)
{
	if (c > s->max)
		c = join_narrowest(s, out_lo, out_hi, c);
	for (int k = 0; k < c; k++)
	{
		s->lo[k] = out_lo[k];
		s->hi[k] = out_hi[k];
	}
	s->n = c;
}

void
bf_stretches_finish(bf_stretches *s)
{
	uint64_t *out_lo = s->work, *out_hi = s->work + 2 * (size_t) s->max;
	size_t np;
	int i = 0, c = 0;
	size_t j = 0;

	if (s->npending == 0)
		return;
	np = bf_hashes_sort_unique(s->pending, (size_t) s->npending, s->sorted);
	/* merge the stretches and the values (stretches of one) in order of their lower ends */
	while (i < s->n || j < np)
	{
		uint64_t a, b;

		if (j >= np || (i < s->n && s->lo[i] <= s->pending[j]))
		{
			a = s->lo[i];
			b = s->hi[i];
			i++;
		}
		else
			a = b = s->pending[j++];
		c = append_stretch(out_lo, out_hi, c, a, b);
	}
	store(s, out_lo, out_hi, c);
	s->npending = 0;
}

void
bf_stretches_add_stretches(bf_stretches *s, const uint64_t *lo, const uint64_t *hi, int n)
{
	uint64_t *out_lo = s->work, *out_hi = s->work + 2 * (size_t) s->max;
	int i = 0, j = 0, c = 0;

	assert(n >= 0 && n <= s->max);
	bf_stretches_finish(s);
	/* both lists in order of their lower ends; overlapping or adjacent stretches joined */
	while (i < s->n || j < n)
	{
		uint64_t a, b;

		if (j >= n || (i < s->n && s->lo[i] <= lo[j]))
		{
			a = s->lo[i];
			b = s->hi[i];
			i++;
		}
		else
		{
			assert(lo[j] <= hi[j] && (j == 0 || lo[j] > hi[j - 1]));
			a = lo[j];
			b = hi[j];
			j++;
		}
		c = append_stretch(out_lo, out_hi, c, a, b);
	}
	store(s, out_lo, out_hi, c);
}
