/*
 * bf_format_window.h
 *	  A window filter's table (layout 9, 1.12, bf_format.h): its shape and
 *	  generation clock, and a count of values per generation, between the
 *	  element key and the data.  Read and written here; the filter's
 *	  operations are in bf_window.h.
 *
 * An age-partitioned Bloom filter (Shtul, Baquero & Almeida, "Age-Partitioned
 * Bloom Filters", 2020): S = hashes + generations - 1 slices of slice_bits
 * bits each (the header's k is S, its m is S * slice_bits).  A value added
 * in generation r sets one bit in each of the hashes slices that were
 * created at generations r, r - 1, ..., r - hashes + 1; a value may have
 * been added within the window if some hashes consecutive slices, newest
 * to oldest, all have its bit set.  Advancing a generation drops the oldest
 * slice and starts a fresh one in its place, so that a value stays found
 * for `generations` generations (the current one and generations - 1
 * before it), then fades.
 *
 * Slice slot p (0 <= p < S, bits p * slice_bits to (p + 1) * slice_bits -
 * 1 of the data) holds the slice created at the latest generation c <= G
 * with c = p (mod S), G the current generation; its bit for a value of
 * hash h is reduce(x + p y, slice_bits), x and y as bf_hash.h derives them.
 * So the bytes depend on the values, their generations and G alone: the
 * same values added in any order, and filters joined by union, give the
 * same bytes.
 *
 * BEGIN WINDOW TABLE
 * | offset | size | field | meaning |
 * |---|---|---|---|
 * | 0 | 2 | `hashes` | slices each value is written to, 1 to 64 |
 * | 2 | 8 | `capacity` | values per generation it was sized for, 1 to 2^63-1 |
 * | 10 | 8 | `generation` | the current generation G, a signed 64-bit number |
 * | 18 | 8 | `interval` | microseconds per generation, 1 to 2^63-1, for a filter whose generations are times (generation G spans [G interval, (G + 1) interval) microseconds from 2000-01-01 00:00 UTC); 0 when they are advanced by hand |
 * | 26 | 8 S | `counts` | per slice slot p: values added in the generation that created it |
 * END WINDOW TABLE
 */
#ifndef BF_FORMAT_WINDOW_H
#define BF_FORMAT_WINDOW_H

#include "bf_format.h"

#define BF_WINDOW_FIXED_SIZE 26 /* hashes, capacity, generation, interval */
#define BF_WINDOW_COUNT_SIZE 8
#define BF_WINDOW_MAX_HASHES 64
#define BF_WINDOW_MAX_GENERATIONS 4096
#define BF_WINDOW_MAX_SLICES (BF_WINDOW_MAX_HASHES + BF_WINDOW_MAX_GENERATIONS - 1)
#define BF_WINDOW_SLICE_UNIT 64 /* a slice's bits are a multiple of this */

/* A window filter's shape and clock, decoded from its header and table. */
typedef struct bf_window_shape
{
	unsigned hashes;      /* slices a value is written to */
	unsigned generations; /* the window: slices - hashes + 1 */
	unsigned slices;      /* S, the header's k */
	uint64_t slice_bits;  /* m / S */
	uint64_t capacity;    /* values per generation */
	int64_t generation;   /* G */
	int64_t interval;     /* microseconds per generation, 0: advanced by hand */
} bf_window_shape;

/* Bytes of a window filter's table: 26 + 8 S (p->nhashes = S); else 0. */
extern size_t bf_window_table_bytes(const bf_params *p);

/*
 * The parameters of a new window filter: hashes 1 to 64, generations 1 to
 * 4096, slice_bits a positive multiple of 64 (bf_params_check() then
 * checks its size).
 */
extern void bf_window_params(unsigned hashes, unsigned generations, uint64_t slice_bits,
                             bf_params *p);

/* Decode the shape of a window filter whose header passed. */
extern void bf_window_get(const bf_view *view, bf_window_shape *w);

/* The count of slot p (< S), and setting it. */
extern uint64_t bf_window_count(const bf_view *view, unsigned slot);
extern void bf_window_set_count(bf_view *view, unsigned slot, uint64_t count);

/*
 * Write the fixed part of a new window filter's table (bf_init_header()
 * left it, and the counts, zero): hashes as bf_window_params() took it,
 * capacity >= 1, interval >= 0.
 */
extern void bf_view_set_window(bf_view *view, unsigned hashes, uint64_t capacity,
                               int64_t generation, int64_t interval);

/* Set the current generation (the caller moves the slices: bf_window_advance()). */
extern void bf_view_set_generation(bf_view *view, int64_t generation);

/*
 * Check the fixed part of the table of a window filter whose header passed
 * (bf_check_header() calls it; O(1)): hashes 1 to 64 and at most S, at most
 * 4096 generations, capacity at most 2^63-1, interval not negative.
 * (bf_params_check() saw that m is a positive multiple of 64 S, and the
 * seed 0.)
 */
extern bool bf_window_table_check(const bf_view *view, bf_error *err);

/*
 * The counts (bf_window_check() calls it, with the data; O(S)): each at
 * most 2^63-1, and summing to at most n, unless n has stopped at 2^63-1.
 */
extern bool bf_window_counts_check(const bf_view *view, bf_error *err);

/*
 * Whether two window filters have the same shape and clock (hashes,
 * capacity, interval; the header's parameters are the caller's): their
 * generations may differ.
 */
extern bool bf_window_same_clock(const bf_view *a, const bf_view *b);

#endif /* BF_FORMAT_WINDOW_H */
