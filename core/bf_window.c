/*
 * bf_window.c
 *	  Window filters' operations (bf_window.h): probe, add, advance, union
 *	  and the data check.  A leaf of the core: it calls only bf_util,
 *	  bf_bits and the format's functions.
 *
 * Slots and ages: with G the current generation and S slices, the slice of
 * age a (0 the newest, created at G) is in slot (G - a) mod S, and a
 * generation r's slot is r mod S; no arithmetic on G itself is needed but
 * its remainder, so that no generation near the ends of int64 overflows.
 */
#include "bf_window.h"
#include "bf_window_scan.h"
#include "bf_bits.h"
#include "bf_hash.h"
#include "bf_util.h"

#include <string.h>

/* n mod s in [0, s), for any signed n */
static inline unsigned
mod_slices(int64_t n, unsigned s)
{
	int64_t r = n % (int64_t) s;

	return (unsigned) (r < 0 ? r + (int64_t) s : r);
}

#if defined(__GNUC__) || defined(__clang__)
#define WINDOW_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 0)
#else
#define WINDOW_PREFETCH_WRITE(p) ((void) (p))
#endif

/* A value's probe of view, its shape w. */
static inline bf_window_probe
probe_start(const bf_view *view, const bf_window_shape *w, uint64_t h)
{
	bf_hash_state s = bf_hash_start(h);
	bf_window_probe p;

	p.data = view->data;
	p.slice_bits = w->slice_bits;
	p.x = s.x;
	p.y = s.y;
	p.slices = w->slices;
	p.now = mod_slices(w->generation, w->slices);
	return p;
}

bool
bf_window_contains(const bf_view *view, uint64_t h)
{
	bf_window_shape w;
	bf_window_probe p;

	assert(view->p.layout == BF_LAYOUT_WINDOW);
	bf_window_get(view, &w);
	p = probe_start(view, &w, h);
	return bf_window_scan(&p, w.hashes);
}

/*
 * The bits of the probe's value added in the generation of slot first, age
 * generations old (< S): in the slices created then and before it that are
 * still there, at most k of them; returns how many.
 */
static inline unsigned
value_bits(const bf_window_probe *p, unsigned hashes, unsigned first, unsigned age, uint64_t *bits)
{
	unsigned n = 0;

	for (unsigned j = 0; j < hashes && age + j < p->slices; j++)
		bits[n++] = bf_window_bit_in_slot(p, bf_window_slot_back(first, j, p->slices));
	return n;
}

unsigned
bf_window_add(bf_view *view, uint64_t h, int64_t generation)
{
	bf_window_shape w;
	bf_window_probe p;
	unsigned first, age, added = 0;
	uint64_t count;

	assert(view->p.layout == BF_LAYOUT_WINDOW);
	bf_window_get(view, &w);
	/* (a count past n would be a malformed filter: the caller raises n first, as for every layout) */
	assert(generation <= w.generation &&
	       (uint64_t) w.generation - (uint64_t) generation < w.slices);
	age = (unsigned) ((uint64_t) w.generation - (uint64_t) generation);
	p = probe_start(view, &w, h);
	first = mod_slices(generation, w.slices);
	/*
	 * The slices created at generation, generation - 1, ...: those still
	 * there.  Their bits first, then set without a branch: the k cache
	 * lines are fetched side by side.
	 */
	{
		uint64_t bits[BF_WINDOW_MAX_HASHES];
		unsigned n = value_bits(&p, w.hashes, first, age, bits);

		for (unsigned i = 0; i < n; i++)
		{
			uint8_t *byte = &view->data[bits[i] >> 3];
			uint8_t mask = (uint8_t) (1u << (bits[i] & 7));

			added += (*byte & mask) == 0;
			*byte |= mask;
		}
	}
	count = bf_window_count(view, first);
	if (count < INT64_MAX)
		bf_window_set_count(view, first, count + 1);
	return added;
}

/*
 * Prefetch distance of bf_window_add_many, in values: the bits of value
 * i + WINDOW_AHEAD are requested while value i's are set (bf_bits.c's
 * scheme; a value's k lines make the distance shorter than its 16).
 */
#define WINDOW_AHEAD 8

/* Raise slot's count by n, stopping at 2^63-1 (as bf_window_add does one at a time). */
static void
count_added(bf_view *view, unsigned slot, uint64_t n)
{
	uint64_t count = bf_window_count(view, slot);

	bf_window_set_count(view, slot, n > INT64_MAX - count ? INT64_MAX : count + n);
}

void
bf_window_add_many(bf_view *view, const uint64_t *hashes, const int64_t *generations, size_t n)
{
	bf_window_shape w;
	bf_window_probe p;
	uint64_t ring[WINDOW_AHEAD][BF_WINDOW_MAX_HASHES];
	unsigned nbits[WINDOW_AHEAD];
	unsigned run_slot = 0;
	uint64_t run = 0; /* values of the last slot counted, not yet added to its count */

	assert(view->p.layout == BF_LAYOUT_WINDOW);
	bf_window_get(view, &w);
	p = probe_start(view, &w, 0); /* the shape's part, once; each value's x and y below */
	for (size_t i = 0; i < n + WINDOW_AHEAD; i++)
	{
		uint64_t *bits = ring[i % WINDOW_AHEAD];

		if (i >= WINDOW_AHEAD)
			for (unsigned j = 0; j < nbits[i % WINDOW_AHEAD]; j++)
				view->data[bits[j] >> 3] |= (uint8_t) (1u << (bits[j] & 7));
		if (i < n)
		{
			bf_hash_state s = bf_hash_start(hashes[i]);
			unsigned first = mod_slices(generations[i], w.slices), m;
			unsigned age = (unsigned) ((uint64_t) w.generation - (uint64_t) generations[i]);

			assert(generations[i] <= w.generation && age < w.slices);
			p.x = s.x;
			p.y = s.y;
			/* the bits bf_window_add sets, in its order */
			m = value_bits(&p, w.hashes, first, age, bits);
			for (unsigned j = 0; j < m; j++)
				WINDOW_PREFETCH_WRITE(view->data + (bits[j] >> 3));
			nbits[i % WINDOW_AHEAD] = m;
			/* rows mostly come a generation at a time: a count written once a run */
			if (run > 0 && first != run_slot)
			{
				count_added(view, run_slot, run);
				run = 0;
			}
			run_slot = first;
			run++;
		}
	}
	if (run > 0)
		count_added(view, run_slot, run);
}

/* Zero slot p's slice and count. */
static void
clear_slot(bf_view *view, const bf_window_shape *w, unsigned slot)
{
	size_t bytes = (size_t) (w->slice_bits / 8);

	memset(view->data + (size_t) slot * bytes, 0, bytes);
	bf_window_set_count(view, slot, 0);
}

void
bf_window_advance(bf_view *view, int64_t to)
{
	bf_window_shape w;
	uint64_t steps;
	unsigned now;

	assert(view->p.layout == BF_LAYOUT_WINDOW);
	bf_window_get(view, &w);
	assert(to >= w.generation);
	steps = (uint64_t) to - (uint64_t) w.generation;
	now = mod_slices(w.generation, w.slices);
	if (steps >= w.slices)
		steps = w.slices; /* every slice is fresh: each slot once */
	for (uint64_t t = 1; t <= steps; t++)
	{
		clear_slot(view, &w, (unsigned) ((now + t) % w.slices));
		bf_tick();
	}
	bf_view_set_generation(view, to);
}

void
bf_window_union(bf_view *dst, const bf_view *src)
{
	bf_window_shape w, ws;
	size_t bytes;

	assert(bf_same_shape(dst, src));
	bf_window_get(dst, &w);
	bf_window_get(src, &ws);
	assert(w.generation == ws.generation);
	bytes = (size_t) (w.slice_bits / 8);
	for (unsigned slot = 0; slot < w.slices; slot++)
	{
		uint64_t a = bf_window_count(dst, slot), b = bf_window_count(src, slot);

		bf_bits_or(dst->data, src->data, (size_t) slot * bytes, (size_t) (slot + 1) * bytes);
		bf_window_set_count(dst, slot, b > INT64_MAX - a ? INT64_MAX : a + b);
		bf_tick();
	}
	bf_view_set_nadded(dst, src->nadded > INT64_MAX - dst->nadded ? INT64_MAX
	                                                              : dst->nadded + src->nadded);
}

uint64_t
bf_window_slice_bits_set(const bf_view *view, unsigned slot)
{
	size_t bytes = (size_t) (view->p.ncells / view->p.nhashes / 8);

	assert(view->p.layout == BF_LAYOUT_WINDOW && slot < view->p.nhashes);
	return bf_bits_count(view->data, (size_t) slot * bytes, (size_t) (slot + 1) * bytes);
}

bool
bf_window_check(const bf_view *view, bf_error *err)
{
	bf_window_shape w;
	unsigned now;

	assert(view->p.layout == BF_LAYOUT_WINDOW);
	bf_window_get(view, &w);
	if (!bf_window_counts_check(view, err))
		return false;
	if ((view->nadded == 0) != (view->elemlen == 0))
		return bf_fail(err, BF_ERR_FORMAT,
		               "a window filter has an element key exactly when values were added");
	now = mod_slices(w.generation, w.slices);
	for (unsigned age = 0; age < w.slices; age++)
	{
		unsigned slot = (now + w.slices - age) % w.slices;
		uint64_t set = bf_window_slice_bits_set(view, slot), wrote = 0;

		/* written by the generations of ages age, age - 1, ... (at most hashes of them) */
		for (unsigned j = 0; j < w.hashes && j <= age; j++)
		{
			uint64_t c = bf_window_count(view, (now + w.slices - (age - j)) % w.slices);

			wrote = c > INT64_MAX - wrote ? INT64_MAX : wrote + c;
		}
		if (set > wrote)
			return bf_fail(err, BF_ERR_FORMAT,
			               "slice %u of a window filter has %llu bits set, more than the %llu "
			               "values added in the generations that wrote it",
			               slot, (unsigned long long) set, (unsigned long long) wrote);
		bf_tick();
	}
	return true;
}
