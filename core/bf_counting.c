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
 * odd i.  Positions come from bf_positions(), as for the classic layout, so
 * a counting filter and the classic filter made from it agree on every value.
 */
#include "bf_core.h"

static inline unsigned
get_counter(const uint8_t *data, uint64_t i)
{
	return (data[i >> 1] >> ((i & 1) * 4)) & 0x0F;
}

static inline void
put_counter(uint8_t *data, uint64_t i, unsigned value)
{
	unsigned shift = (unsigned) (i & 1) * 4;

	data[i >> 1] = (uint8_t) ((data[i >> 1] & ~(0x0F << shift)) | ((value & 0x0F) << shift));
}

unsigned
bf_counter(const bf_view *view, uint64_t i)
{
	return get_counter(view->bits, i);
}

void
bf_set_counter(bf_view *view, uint64_t i, unsigned value)
{
	put_counter(view->bits, i, value);
}

void
bf_counting_add_hash(bf_view *view, uint64_t h)
{
	uint64_t pos[BF_MAX_HASHES];

	bf_positions(&view->p, h, pos);
	for (unsigned i = 0; i < view->p.nhashes; i++)
	{
		unsigned c = get_counter(view->bits, pos[i]);

		if (c < BF_COUNTER_MAX)
			put_counter(view->bits, pos[i], c + 1);
	}
}

bool
bf_counting_remove_hash(bf_view *view, uint64_t h)
{
	uint64_t pos[BF_MAX_HASHES];
	unsigned k = view->p.nhashes;

	bf_positions(&view->p, h, pos);

	/*
	 * Check first, change after: a position may occur more than once among
	 * the k, and then its counter must cover every occurrence.
	 */
	for (unsigned i = 0; i < k; i++)
	{
		unsigned c = get_counter(view->bits, pos[i]);
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
		unsigned c = get_counter(view->bits, pos[i]);

		if (c != BF_COUNTER_MAX)
			put_counter(view->bits, pos[i], c - 1);
	}
	return true;
}

unsigned
bf_counting_min(const bf_view *view, uint64_t h)
{
	uint64_t pos[BF_MAX_HASHES];
	unsigned min = BF_COUNTER_MAX;

	bf_positions(&view->p, h, pos);
	for (unsigned i = 0; i < view->p.nhashes && min > 0; i++)
	{
		unsigned c = get_counter(view->bits, pos[i]);

		if (c < min)
			min = c;
	}
	return min;
}

void
bf_counting_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
	{
		unsigned lo = (dst->bits[i] & 0x0F) + (src->bits[i] & 0x0F);
		unsigned hi = (dst->bits[i] >> 4) + (src->bits[i] >> 4);

		if (lo > BF_COUNTER_MAX)
			lo = BF_COUNTER_MAX;
		if (hi > BF_COUNTER_MAX)
			hi = BF_COUNTER_MAX;
		dst->bits[i] = (uint8_t) (lo | (hi << 4));
	}
}

void
bf_counting_to_bits(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
	{
		uint64_t c = (uint64_t) i * 2;

		if (src->bits[i] & 0x0F)
			dst->bits[c >> 3] |= (uint8_t) (1u << (c & 7));
		if (src->bits[i] & 0xF0)
			dst->bits[(c + 1) >> 3] |= (uint8_t) (1u << ((c + 1) & 7));
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
	for (size_t i = from; i < to; i++)
	{
		unsigned dlo = dst->bits[i] & 0x0F, dhi = dst->bits[i] >> 4;
		unsigned slo = src->bits[i] & 0x0F, shi = src->bits[i] >> 4;

		if ((dlo != BF_COUNTER_MAX && dlo < slo) || (dhi != BF_COUNTER_MAX && dhi < shi))
			return false;
	}
	return true;
}

void
bf_counting_subtract_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
	{
		unsigned lo = subtract_counter(dst->bits[i] & 0x0F, src->bits[i] & 0x0F);
		unsigned hi = subtract_counter(dst->bits[i] >> 4, src->bits[i] >> 4);

		dst->bits[i] = (uint8_t) (lo | (hi << 4));
	}
}
