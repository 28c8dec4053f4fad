/*
 * bf_blocked.c
 *	  The blocked512 layout: m bits in blocks of 512, a value's k bits in one
 *	  block (bf_hash.h), so that a probe reads one cache line instead of k,
 *	  for a few more bits per value at the same rate (bf_sizing.c).  Adding,
 *	  counting and combining are the bit-array operations of bf_bits.c.
 */
#include "bf_bits.h"
#include "bf_hash.h"
#include "bf_layouts.h"

/* Whether all k bits are set, testing them as they come inside the one block. */
bool
bf_blocked_contains(const bf_view *view, uint64_t h)
{
	assert(view->p.layout == BF_LAYOUT_BLOCKED512);
	return bf_bits_blocked_contains(&view->p, view->data, h);
}
