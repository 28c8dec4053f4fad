/*
 * bf_window_scan.h
 *	  A window filter's probe on its data alone: where a value's bit lies in
 *	  each slice, and the scan for a run of k set slices by age.  Inline,
 *	  with no dependency but bf_hash.h, so that the JavaScript client's
 *	  WebAssembly probe (clients/js/wasm/probe.c) compiles the code the
 *	  server runs (bf_window.c).
 *
 * With S slices, the newest in slot `now`, the slice of age a is in slot
 * (now - a) mod S; a value's bit in slot p is p * slice_bits +
 * reduce(x + p y, slice_bits), x and y as hash scheme 1 derives them.
 */
#ifndef BF_WINDOW_SCAN_H
#define BF_WINDOW_SCAN_H

#include "bf_hash.h"

#include <stdbool.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define BF_WINDOW_PREFETCH_READ(p) __builtin_prefetch((p), 0, 3)
#else
#define BF_WINDOW_PREFETCH_READ(p) ((void) (p))
#endif

/* A value's probe of one filter: where its bit lies in each slot. */
typedef struct bf_window_probe
{
	const uint8_t *data;
	uint64_t slice_bits;
	uint64_t x, y; /* bf_hash.h's */
	unsigned slices;
	unsigned now; /* G mod S: the newest slice's slot */
} bf_window_probe;

/* The value's bit in slot `slot`, as a position in the data. */
static inline uint64_t
bf_window_bit_in_slot(const bf_window_probe *p, unsigned slot)
{
	return (uint64_t) slot * p->slice_bits +
	       bf_reduce(p->x + (uint64_t) slot * p->y, p->slice_bits);
}

/* Slot (now - back) mod S, for back < S: no division on a probe's path. */
static inline unsigned
bf_window_slot_back(unsigned now, unsigned back, unsigned slices)
{
	return now >= back ? now - back : now + slices - back;
}

/* Whether the slice of age a (< S) holds the value's bit. */
static inline bool
bf_window_held_at_age(const bf_window_probe *p, unsigned age)
{
	uint64_t bit = bf_window_bit_in_slot(p, bf_window_slot_back(p->now, age, p->slices));

	return (p->data[bit >> 3] >> (bit & 7)) & 1;
}

/*
 * Whether the probe's value may have been added within the window: a run
 * of k set slices, by age.  Look at the last age a run ending there could
 * have (end); if clear, no run covers it, and the next candidate ends k
 * further.  If set, count the set ages just before it and after it: a run
 * of k is found, or the clear age after it moves the next candidate past
 * it.  An absent value costs about S / k probes, most of them one each.
 */
static inline bool
bf_window_scan(const bf_window_probe *p, unsigned k)
{
	unsigned end = k - 1;

	while (end < p->slices)
	{
		unsigned run = 1, a;

		/* the next candidate's line requested now: the two misses overlap */
		if (end + k < p->slices)
			BF_WINDOW_PREFETCH_READ(
			    p->data +
			    (bf_window_bit_in_slot(p, bf_window_slot_back(p->now, end + k, p->slices)) >> 3));
		if (!bf_window_held_at_age(p, end))
		{
			end += k;
			continue;
		}
		for (a = end; a > 0 && run < k && bf_window_held_at_age(p, a - 1); a--)
			run++;
		for (a = end + 1; run < k && a < p->slices && bf_window_held_at_age(p, a); a++)
			run++;
		if (run >= k)
			return true;
		end = a + k; /* a: the clear age (or S) that ended the run */
	}
	return false;
}

#endif /* BF_WINDOW_SCAN_H */
