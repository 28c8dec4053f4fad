/*
 * bf_counting.c
 *	  The counting layout: m counters of 4 bits instead of m bits.
 *
 * A counting Bloom filter (Fan et al., "Summary Cache", 2000) supports
 * deletion: adding a value increments its k counters, removing it decrements
 * them, and a value is present while all of its counters are non-zero.  Four
 * bits per counter suffice in practice (a counter passes 15 with negligible
 * probability at the optimal k), but when one does, decrementing it could
 * later make it reach zero while values that share it are still present: a
 * false negative.  So a counter that reaches 15 saturates: it is never
 * incremented or decremented again.  Its bit stays set for good, which costs
 * a little false-positive rate and never a false negative.
 *
 * Counter i is the low nibble of byte i / 2 for even i, the high nibble for
 * odd i (bf_format.h).  Positions are the classic layout's (bf_hash.h), so
 * a counting filter and the classic filter made from it agree on every value.
 */
#include "bf_hash.h"
#include "bf_layouts.h"
#include "bf_util.h"

unsigned
bf_counting_get(const uint8_t *data, uint64_t i)
{
	return (data[i >> 1] >> ((i & 1) * 4)) & 0x0F;
}

void
bf_counting_put(uint8_t *data, uint64_t i, unsigned value)
{
	unsigned shift = (unsigned) (i & 1) * 4;

	assert(value <= BF_COUNTER_MAX);
	data[i >> 1] = (uint8_t) ((data[i >> 1] & ~(0x0F << shift)) | ((value & 0x0F) << shift));
}

/* Increment the value's k counters (a counter stops at BF_COUNTER_MAX); returns how many left 0. */
unsigned
bf_counting_add(bf_view *view, uint64_t h)
{
	uint64_t pos[BF_MAX_HASHES];
	unsigned became_set = 0;

	assert(view->p.layout == BF_LAYOUT_COUNTING4);
	bf_hash_positions(&view->p, h, pos);
	for (unsigned i = 0; i < view->p.nhashes; i++)
	{
		unsigned c = bf_counting_get(view->data, pos[i]);

		if (c < BF_COUNTER_MAX)
			bf_counting_put(view->data, pos[i], c + 1);
		became_set += c == 0;
	}
	return became_set;
}

/*
 * Decrement the value's k counters, except saturated ones; false, changing
 * nothing, if a counter is too low: the value was never added.
 */
bool
bf_counting_remove(bf_view *view, uint64_t h)
{
	uint64_t pos[BF_MAX_HASHES];
	unsigned k = view->p.nhashes;

	assert(view->p.layout == BF_LAYOUT_COUNTING4);
	bf_hash_positions(&view->p, h, pos);

	/*
	 * Check first, change after: a position may occur more than once among
	 * the k, and then its counter must cover every occurrence.
	 */
	for (unsigned i = 0; i < k; i++)
	{
		unsigned c = bf_counting_get(view->data, pos[i]);
		unsigned times = 0;

		if (c == BF_COUNTER_MAX)
			continue;
		for (unsigned j = 0; j < k; j++)
			times += pos[j] == pos[i];
		if (c < times)
			return false;
	}
	for (unsigned i = 0; i < k; i++)
	{
		unsigned c = bf_counting_get(view->data, pos[i]);

		if (c != BF_COUNTER_MAX)
			bf_counting_put(view->data, pos[i], c - 1);
	}
	return true;
}

/* The smallest of the value's counters. */
unsigned
bf_counting_min(const bf_view *view, uint64_t h)
{
	bf_hash_state s = bf_hash_start(h);
	unsigned min = BF_COUNTER_MAX;

	assert(view->p.layout == BF_LAYOUT_COUNTING4);
	for (unsigned i = 0; i < view->p.nhashes && min > 0; i++)
	{
		unsigned c = bf_counting_get(view->data, bf_hash_next(&s, view->p.ncells));

		if (c < min)
			min = c;
	}
	return min;
}

uint64_t
bf_counting_occupied(const bf_view *view, size_t from, size_t to)
{
	uint64_t count = 0;

	assert(view->p.layout == BF_LAYOUT_COUNTING4 && from <= to && to <= view->nbytes);
	for (size_t i = from; i < to; i++)
		count +=
		    (uint64_t) ((view->data[i] & 0x0F) != 0) + (uint64_t) ((view->data[i] & 0xF0) != 0);
	return count;
}

void
bf_counting_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(dst->p.layout == BF_LAYOUT_COUNTING4 && src->p.layout == BF_LAYOUT_COUNTING4);
	for (size_t i = from; i < to; i++)
	{
		unsigned lo = (dst->data[i] & 0x0F) + (src->data[i] & 0x0F);
		unsigned hi = (dst->data[i] >> 4) + (src->data[i] >> 4);

		if (lo > BF_COUNTER_MAX)
			lo = BF_COUNTER_MAX;
		if (hi > BF_COUNTER_MAX)
			hi = BF_COUNTER_MAX;
		dst->data[i] = (uint8_t) (lo | (hi << 4));
	}
}

void
bf_counting_to_bits(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(src->p.layout == BF_LAYOUT_COUNTING4 && bf_layout_is_bits(dst->p.layout));
	assert(dst->p.ncells == src->p.ncells);
	for (size_t i = from; i < to; i++)
	{
		uint64_t c = (uint64_t) i * 2;

		if (src->data[i] & 0x0F)
			dst->data[c >> 3] |= (uint8_t) (1u << (c & 7));
		if (src->data[i] & 0xF0)
			dst->data[(c + 1) >> 3] |= (uint8_t) (1u << ((c + 1) & 7));
	}
}

/* dst - src for one counter (checked d >= s first); a saturated counter stays. */
static inline unsigned
subtract_counter(unsigned d, unsigned s)
{
	return d == BF_COUNTER_MAX ? d : d - s;
}

bool
bf_counting_can_subtract(const bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(dst->p.layout == BF_LAYOUT_COUNTING4 && src->p.layout == BF_LAYOUT_COUNTING4);
	for (size_t i = from; i < to; i++)
	{
		unsigned dlo = dst->data[i] & 0x0F, dhi = dst->data[i] >> 4;
		unsigned slo = src->data[i] & 0x0F, shi = src->data[i] >> 4;

		if ((dlo != BF_COUNTER_MAX && dlo < slo) || (dhi != BF_COUNTER_MAX && dhi < shi))
			return false;
	}
	return true;
}

void
bf_counting_subtract_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(bf_counting_can_subtract(dst, src, from, to));
	for (size_t i = from; i < to; i++)
	{
		unsigned lo = subtract_counter(dst->data[i] & 0x0F, src->data[i] & 0x0F);
		unsigned hi = subtract_counter(dst->data[i] >> 4, src->data[i] >> 4);

		dst->data[i] = (uint8_t) (lo | (hi << 4));
	}
}

/* No counter at or beyond m; an empty element key only with no values and no counters. */
bool
bf_counting_check(const bf_view *view, uint64_t occupied, bf_error *err)
{
	assert(view->p.layout == BF_LAYOUT_COUNTING4 && view->nbytes >= 1);
	if (view->p.ncells % 2 != 0 && (view->data[view->nbytes - 1] >> 4) != 0)
		return bf_fail(err, BF_ERR_FORMAT, "counters beyond m = %llu are set",
		               (unsigned long long) view->p.ncells);
	if (view->elemlen == 0 && (view->nadded != 0 || occupied != 0))
		return bf_fail(err, BF_ERR_FORMAT, "values were added but the element key is empty");
	return true;
}
