/*
 * bf_filter.c
 *	  The dispatch: the core's operations on a filter of any layout
 *	  (bf_core.h), each sent to the file of the filter's layout.
 *
 * The layouts are leaves: bf_classic.c, bf_blocked.c, bf_layered.c (with
 * what the bit layouts share, bf_bits.c), bf_counting.c and bf_explicit.c
 * call none of each other and nothing above them.  This file is the only
 * one that knows all five; callers outside the core use only it, the format's API
 * (bf_format.c), the sizing math and the text form.
 */
#include "bf_core.h"
#include "bf_bits.h"
#include "bf_hash.h"
#include "bf_layouts.h"
#include "bf_util.h"
#include "bf_window.h"

#include <string.h>

/* The view's layout is one this build knows (bf_check_header() saw to it). */
static inline bool
known_layout(const bf_view *view)
{
	return view->p.layout == BF_LAYOUT_CLASSIC || view->p.layout == BF_LAYOUT_BLOCKED512 ||
	       view->p.layout == BF_LAYOUT_COUNTING4 || view->p.layout == BF_LAYOUT_EXPLICIT ||
	       view->p.layout == BF_LAYOUT_LAYERED || view->p.layout == BF_LAYOUT_WINDOW ||
	       bf_layout_is_maker(view->p.layout);
}

/*
 * bf_check_data() of another maker's filter: its bits are its maker's, any
 * pattern of them a filter of that maker; only a count of values known
 * bounds them (k per value).  Its element key was checked with the header.
 */
static bool
maker_check(const bf_view *view, uint64_t occupied, bf_error *err)
{
	if (!(view->flags & BF_FLAG_N_UNKNOWN) &&
	    (double) occupied > (double) view->nadded * (double) view->p.nhashes)
		return bf_fail(err, BF_ERR_FORMAT,
		               "%llu bits are set, more than k = %u for each of the %llu values added",
		               (unsigned long long) occupied, (unsigned) view->p.nhashes,
		               (unsigned long long) view->nadded);
	return true;
}

/* a and b have the same shape, and [from, to) lies inside their data. */
static inline bool
same_shape_range(const bf_view *a, const bf_view *b, size_t from, size_t to)
{
	return bf_same_shape(a, b) && from <= to && to <= a->nbytes;
}

bool
bf_check_data(const bf_view *view, uint64_t occupied, bf_error *err)
{
	assert(known_layout(view));
	if (bf_layout_is_maker(view->p.layout))
		return maker_check(view, occupied, err);
	switch (view->p.layout)
	{
		case BF_LAYOUT_EXPLICIT:
			return bf_explicit_check(view, err);
		case BF_LAYOUT_COUNTING4:
			return bf_counting_check(view, occupied, err);
		case BF_LAYOUT_LAYERED:
			return bf_layered_check(view, occupied, err);
		case BF_LAYOUT_WINDOW:
			/* (per slice: it counts them itself) */
			return bf_window_check(view, err);
		default:
			return bf_bits_check(view, occupied, err);
	}
}

uint64_t
bf_occupied(const bf_view *view, size_t from, size_t to)
{
	assert(known_layout(view) && from <= to && to <= view->nbytes);
	switch (view->p.layout)
	{
		case BF_LAYOUT_EXPLICIT:
			assert(from % 8 == 0 && to % 8 == 0);
			return (uint64_t) (to / 8 - from / 8);
		case BF_LAYOUT_COUNTING4:
			return bf_counting_occupied(view, from, to);
		default:
			return bf_bits_count(view->data, from, to);
	}
}

bool
bf_contains_hash(const bf_view *view, uint64_t h)
{
	/* another maker's filter hashes values its own way (bf_makers.h) */
	assert(known_layout(view) && !bf_layout_is_maker(view->p.layout));
	if (bf_layout_is_maker(view->p.layout))
		return true; /* never a false negative */
	switch (view->p.layout)
	{
		case BF_LAYOUT_CLASSIC:
			return bf_classic_contains(view, h);
		case BF_LAYOUT_BLOCKED512:
			return bf_blocked_contains(view, h);
		case BF_LAYOUT_COUNTING4:
			return bf_counting_min(view, h) > 0;
		case BF_LAYOUT_LAYERED:
			return bf_layered_contains(view, h);
		case BF_LAYOUT_WINDOW:
			return bf_window_contains(view, h);
		default:
			return bf_explicit_contains(view, h);
	}
}

unsigned
bf_add_hash(bf_view *view, uint64_t h)
{
	assert(known_layout(view) && !bf_layout_is_maker(view->p.layout));
	switch (view->p.layout)
	{
		case BF_LAYOUT_EXPLICIT:
			return 0;
		case BF_LAYOUT_SPARK:
		case BF_LAYOUT_GUAVA:
		case BF_LAYOUT_PARQUET:
			/*
			 * No caller does this (asserted above): a 64-bit hash of ours has
			 * no place in another maker's filter.  Were one to, every bit set
			 * keeps every value it may hold: never a false negative.
			 */
			memset(view->data, 0xFF, view->nbytes);
			return 0;
		case BF_LAYOUT_COUNTING4:
			return bf_counting_add(view, h);
		case BF_LAYOUT_LAYERED:
			return bf_layered_add(view, h);
		case BF_LAYOUT_WINDOW:
		{
			/* (into the current generation) */
			bf_window_shape w;

			bf_window_get(view, &w);
			return bf_window_add(view, h, w.generation);
		}
		default:
			return bf_bits_add(&view->p, view->data, h);
	}
}

void
bf_add_hashes(bf_view *view, const uint64_t *hashes, size_t n)
{
	assert(bf_layout_is_bits(view->p.layout));
	bf_bits_add_many(&view->p, view->data, hashes, n);
}

void
bf_blocked_add_many_counted(const bf_params *p, uint8_t *bits, const uint64_t *hashes, size_t n,
                            uint64_t blocks_per_count, uint64_t *counts)
{
	assert(p->layout == BF_LAYOUT_BLOCKED512 && p->nhashes >= 1 && p->nhashes <= BF_MAX_HASHES);
	assert(blocks_per_count >= 1);
	bf_bits_blocked_add_many(p, bits, hashes, n, blocks_per_count, counts);
}

void
bf_positions(const bf_params *p, uint64_t h, uint64_t *pos)
{
	assert(p->layout != BF_LAYOUT_EXPLICIT && p->layout != BF_LAYOUT_LAYERED);
	bf_hash_positions(p, h, pos);
}

uint64_t
bf_blocked_block(const bf_params *p, uint64_t h)
{
	bf_hash_state s = bf_hash_start(h);

	assert(p->layout == BF_LAYOUT_BLOCKED512);
	return bf_hash_block(&s, p->ncells);
}

bool
bf_blocked_block_holds(const bf_params *p, const uint8_t *block, uint64_t h)
{
	bf_hash_state s = bf_hash_start(h);

	assert(p->layout == BF_LAYOUT_BLOCKED512 && p->nhashes >= 1 && p->nhashes <= BF_MAX_HASHES);
	return bf_bits_block_holds(block, &s, p->nhashes);
}

unsigned
bf_blocked_block_add(const bf_params *p, uint8_t *block, uint64_t h)
{
	bf_hash_state s = bf_hash_start(h);

	assert(p->layout == BF_LAYOUT_BLOCKED512 && p->nhashes >= 1 && p->nhashes <= BF_MAX_HASHES);
	return bf_bits_block_add(block, &s, p->nhashes);
}

void
bf_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(same_shape_range(dst, src, from, to));
	if (dst->p.layout == BF_LAYOUT_COUNTING4)
		bf_counting_union_bytes(dst, src, from, to);
	else
	{
		/*
		 * the layers of two layered filters of one shape line up: their bits
		 * too; so do two of another maker's filters of one shape (whatever the
		 * order of the bits in its words, it is the same in both)
		 */
		assert(bf_layout_is_bits(dst->p.layout) || dst->p.layout == BF_LAYOUT_LAYERED ||
		       bf_layout_is_maker(dst->p.layout));
		bf_bits_or(dst->data, src->data, from, to);
	}
}

void
bf_intersect_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(same_shape_range(dst, src, from, to) && bf_layout_is_bits(dst->p.layout));
	bf_bits_and(dst->data, src->data, from, to);
}

size_t
bf_hashes_retain(uint64_t *a, size_t na, const bf_view *filter)
{
	size_t w = 0;

	for (size_t i = 0; i < na; i++)
	{
		if ((i & BF_TICK_MASK) == BF_TICK_MASK)
			bf_tick();
		assert(i == 0 || a[i - 1] <= a[i]);
		if (bf_contains_hash(filter, a[i]))
			a[w++] = a[i];
	}
	return w;
}

void
bf_set_bit(bf_view *view, uint64_t pos)
{
	assert(bf_layout_is_bits(view->p.layout) && pos < view->p.ncells);
	bf_bit_set(view->data, pos);
}

bool
bf_test_bit(const bf_view *view, uint64_t pos)
{
	assert(bf_layout_is_bits(view->p.layout) && pos < view->p.ncells);
	return bf_bit_test(view->data, pos);
}

void
bf_fold_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	bf_classic_fold_bytes(dst, src, from, to);
}

unsigned
bf_counter(const bf_view *view, uint64_t i)
{
	assert(view->p.layout == BF_LAYOUT_COUNTING4 && i < view->p.ncells);
	return bf_counting_get(view->data, i);
}

void
bf_set_counter(bf_view *view, uint64_t i, unsigned value)
{
	assert(view->p.layout == BF_LAYOUT_COUNTING4 && i < view->p.ncells);
	bf_counting_put(view->data, i, value);
}

bool
bf_remove_hash(bf_view *view, uint64_t h)
{
	return bf_counting_remove(view, h);
}

unsigned
bf_count_hash(const bf_view *view, uint64_t h)
{
	return bf_counting_min(view, h);
}

bool
bf_can_subtract_bytes(const bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(same_shape_range(dst, src, from, to));
	return bf_counting_can_subtract(dst, src, from, to);
}

void
bf_subtract_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(same_shape_range(dst, src, from, to));
	bf_counting_subtract_bytes(dst, src, from, to);
}

void
bf_counters_to_bits(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	assert(from <= to && to <= src->nbytes);
	bf_counting_to_bits(dst, src, from, to);
}

uint64_t
bf_explicit_hash(const bf_view *view, uint64_t i)
{
	return bf_explicit_get(view, i);
}

void
bf_explicit_hashes(const bf_view *view, uint64_t *hashes)
{
	bf_explicit_read(view, hashes);
}

void
bf_explicit_set_hashes(bf_view *view, const uint64_t *hashes)
{
	assert(view->p.layout == BF_LAYOUT_EXPLICIT);
	bf_explicit_write(view->data, hashes, (size_t) view->p.ncells);
}

void
bf_explicit_copy_inserting(const bf_view *src, uint64_t h, bf_view *dst)
{
	assert(src->p.seed == dst->p.seed &&
	       bf_elem_equal(src->elem, src->elemlen, dst->elem, dst->elemlen));
	bf_explicit_copy_with(src, h, dst);
}
