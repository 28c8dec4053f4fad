/*
 * bf_format_window.c
 *	  A window filter's table (bf_format_window.h): its fixed fields and the
 *	  counts of its slices, read, written and checked.
 */
#include "bf_format_window.h"
#include "bf_util.h"

#include <assert.h>

#define OFF_HASHES 0
#define OFF_CAPACITY 2
#define OFF_GENERATION 10
#define OFF_INTERVAL 18
#define OFF_COUNTS BF_WINDOW_FIXED_SIZE

size_t
bf_window_table_bytes(const bf_params *p)
{
	if (p->layout != BF_LAYOUT_WINDOW)
		return 0;
	return BF_WINDOW_FIXED_SIZE + (size_t) p->nhashes * BF_WINDOW_COUNT_SIZE;
}

void
bf_window_params(unsigned hashes, unsigned generations, uint64_t slice_bits, bf_params *p)
{
	assert(hashes >= 1 && hashes <= BF_WINDOW_MAX_HASHES);
	assert(generations >= 1 && generations <= BF_WINDOW_MAX_GENERATIONS);
	assert(slice_bits >= BF_WINDOW_SLICE_UNIT && slice_bits % BF_WINDOW_SLICE_UNIT == 0);
	p->layout = BF_LAYOUT_WINDOW;
	p->scheme = BF_SCHEME_DOUBLE_HASHING;
	p->nhashes = (uint16_t) (hashes + generations - 1);
	p->seed = 0;
	p->ncells = slice_bits * p->nhashes;
}

void
bf_window_get(const bf_view *view, bf_window_shape *w)
{
	assert(view->p.layout == BF_LAYOUT_WINDOW && view->window != NULL);
	w->hashes = (unsigned) bf_load_le(view->window + OFF_HASHES, 2);
	w->slices = view->p.nhashes;
	w->generations = w->slices - w->hashes + 1;
	w->slice_bits = view->p.ncells / w->slices;
	w->capacity = bf_load_le(view->window + OFF_CAPACITY, 8);
	w->generation = (int64_t) bf_load_le(view->window + OFF_GENERATION, 8);
	w->interval = (int64_t) bf_load_le(view->window + OFF_INTERVAL, 8);
}

uint64_t
bf_window_count(const bf_view *view, unsigned slot)
{
	assert(view->p.layout == BF_LAYOUT_WINDOW && slot < view->p.nhashes);
	return bf_load_le(view->window + OFF_COUNTS + (size_t) slot * BF_WINDOW_COUNT_SIZE, 8);
}

void
bf_window_set_count(bf_view *view, unsigned slot, uint64_t count)
{
	assert(view->p.layout == BF_LAYOUT_WINDOW && slot < view->p.nhashes);
	assert(count <= INT64_MAX);
	bf_store_le(view->window + OFF_COUNTS + (size_t) slot * BF_WINDOW_COUNT_SIZE, count, 8);
}

void
bf_view_set_window(bf_view *view, unsigned hashes, uint64_t capacity, int64_t generation,
                   int64_t interval)
{
	assert(view->p.layout == BF_LAYOUT_WINDOW);
	assert(hashes >= 1 && hashes <= BF_WINDOW_MAX_HASHES && hashes <= view->p.nhashes);
	assert(view->p.nhashes - hashes + 1 <= BF_WINDOW_MAX_GENERATIONS);
	assert(capacity >= 1 && capacity <= INT64_MAX && interval >= 0);
	bf_store_le(view->window + OFF_HASHES, hashes, 2);
	bf_store_le(view->window + OFF_CAPACITY, capacity, 8);
	bf_store_le(view->window + OFF_GENERATION, (uint64_t) generation, 8);
	bf_store_le(view->window + OFF_INTERVAL, (uint64_t) interval, 8);
}

void
bf_view_set_generation(bf_view *view, int64_t generation)
{
	assert(view->p.layout == BF_LAYOUT_WINDOW);
	bf_store_le(view->window + OFF_GENERATION, (uint64_t) generation, 8);
}

bool
bf_window_table_check(const bf_view *view, bf_error *err)
{
	bf_window_shape w;

	assert(view->p.layout == BF_LAYOUT_WINDOW);
	w.hashes = (unsigned) bf_load_le(view->window + OFF_HASHES, 2);
	if (w.hashes < 1 || w.hashes > BF_WINDOW_MAX_HASHES || w.hashes > view->p.nhashes)
		return bf_fail(err, BF_ERR_FORMAT,
		               "a window filter's hashes = %u is out of range (1 to %d, at most its %u "
		               "slices)",
		               w.hashes, BF_WINDOW_MAX_HASHES, (unsigned) view->p.nhashes);
	if (view->p.nhashes - w.hashes + 1 > BF_WINDOW_MAX_GENERATIONS)
		return bf_fail(err, BF_ERR_FORMAT,
		               "a window filter of %u slices and %u hashes spans %u generations, more "
		               "than %d",
		               (unsigned) view->p.nhashes, w.hashes, view->p.nhashes - w.hashes + 1,
		               BF_WINDOW_MAX_GENERATIONS);
	bf_window_get(view, &w);
	if (w.capacity < 1 || w.capacity > INT64_MAX)
		return bf_fail(err, BF_ERR_FORMAT, "a window filter's capacity %llu is out of range",
		               (unsigned long long) w.capacity);
	if (w.interval < 0)
		return bf_fail(err, BF_ERR_FORMAT, "a window filter's interval %lld is negative",
		               (long long) w.interval);
	return true;
}

bool
bf_window_counts_check(const bf_view *view, bf_error *err)
{
	uint64_t left = view->nadded;

	/* (n stops at 2^63-1, each count on its own: past that, their sum is not bounded by n) */
	for (unsigned p = 0; p < view->p.nhashes; p++)
	{
		uint64_t c = bf_window_count(view, p);

		if (c > INT64_MAX)
			return bf_fail(err, BF_ERR_FORMAT, "a window filter's count %llu is out of range",
			               (unsigned long long) c);
		if (view->nadded == INT64_MAX)
			continue;
		if (c > left)
			return bf_fail(err, BF_ERR_FORMAT,
			               "a window filter's counts of values per generation sum to more than "
			               "its n = %llu",
			               (unsigned long long) view->nadded);
		left -= c;
	}
	return true;
}

bool
bf_window_same_clock(const bf_view *a, const bf_view *b)
{
	bf_window_shape wa, wb;

	bf_window_get(a, &wa);
	bf_window_get(b, &wb);
	return wa.hashes == wb.hashes && wa.capacity == wb.capacity && wa.interval == wb.interval;
}
