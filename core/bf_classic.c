/*
 * bf_classic.c
 *	  The classic layout: m bits, a value's k positions anywhere among them
 *	  (bf_hash.h).  Adding, counting and combining are the bit-array
 *	  operations of bf_bits.c; what is classic's own is below.
 */
#include "bf_bits.h"
#include "bf_hash.h"
#include "bf_layouts.h"
#include "bf_util.h"

#include <string.h>

/* Whether all k bits are set, reading them as they come: the first clear bit ends the probe. */
bool
bf_classic_contains(const bf_view *view, uint64_t h)
{
	bf_hash_state s = bf_hash_start(h);

	assert(view->p.layout == BF_LAYOUT_CLASSIC);
	for (unsigned i = 0; i < view->p.nhashes; i++)
		if (!bf_bit_test(view->data, bf_hash_next(&s, view->p.ncells)))
			return false;
	return true;
}

/*
 * OR src's bytes [from, to) into dst folded: bit p of src becomes bit p / f
 * of dst, f = m(src) / m(dst).  With bf_reduce() that is exactly the filter
 * the same values give at m / f bits (bf_hash.h).
 */
void
bf_classic_fold_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	uint64_t f;
	size_t i = from;

	assert(src->p.layout == BF_LAYOUT_CLASSIC && dst->p.layout == BF_LAYOUT_CLASSIC);
	assert(dst->p.ncells >= 1 && src->p.ncells % dst->p.ncells == 0);
	assert(from <= to && to <= src->nbytes);
	f = src->p.ncells / dst->p.ncells;
	while (i < to)
	{
		unsigned byte;

		/* a large filter being folded is mostly zero: skip 8 zero bytes at a time */
		if ((i & 7) == 0 && to - i >= 8)
		{
			uint64_t word;

			memcpy(&word, src->data + i, 8);
			if (word == 0)
			{
				i += 8;
				continue;
			}
		}
		if ((i & BF_TICK_MASK) == BF_TICK_MASK)
			bf_tick();
		byte = src->data[i];
		for (unsigned b = 0; byte != 0; b++, byte >>= 1)
			if (byte & 1)
				bf_bit_set(dst->data, ((uint64_t) i * 8 + b) / f);
		i++;
	}
}
