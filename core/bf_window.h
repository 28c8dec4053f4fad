/*
 * bf_window.h
 *	  Window filters (layout 9, 1.12): age-partitioned Bloom filters, whose
 *	  values fade after a window of generations (bf_format_window.h has the
 *	  format and the scheme).  Their operations, and their sizing math.
 *
 * A window filter answers "maybe added within the last `generations`
 * generations": every value added in the current generation or the
 * generations - 1 before it is found (no false negative); a value added
 * earlier is still found for a few generations more, less likely each
 * time (bf_window_recall()), and then only as a false positive.
 *
 * Sizing follows the paper: each slice is written for `hashes`
 * generations of `capacity` values, and sized so that about half its bits
 * are set then, slice_bits = ceil(hashes capacity / ln 2) rounded up to a
 * multiple of 64; hashes is the smallest that meets the rate.  The rate
 * is computed exactly for slices of those fills (bf_window_fpp()), with
 * only additions and multiplications of doubles in a fixed order, and
 * powers by squaring, so that the clients (clients/) size alike.
 */
#ifndef BF_WINDOW_H
#define BF_WINDOW_H

#include "bf_format_window.h"

/* ---- operations (bf_window.c) ---- */

/*
 * Whether the value whose hash is h may have been added within the window:
 * some hashes consecutive slices, newest to oldest, all hold its bit.
 */
extern bool bf_window_contains(const bf_view *view, uint64_t h);

/*
 * Add a value in generation r, G - S < r <= G (a row of the past added
 * where it belongs, exactly as if it had been added then and the filter
 * advanced since): set its bit in the hashes slices created at r, r - 1,
 * ... that are still there, and count it in slot r's count (stopping at
 * 2^63-1; n, the values added, is the caller's, as for every layout, and
 * must not fall below the counts' sum).  A value of r <= G - generations is no longer sure
 * to be found: only its bits in the slices left are set.  Returns how
 * many of its bits were clear.
 */
extern unsigned bf_window_add(bf_view *view, uint64_t h, int64_t generation);

/*
 * bf_window_add of n values in order, hashes[i] in generations[i] (each
 * within G - S < r <= G): the same bits and counts, written with the cache
 * lines of the values a few ahead requested meanwhile (a build, whose k
 * slices are k cache misses a value, waits for several at once).
 */
extern void bf_window_add_many(bf_view *view, const uint64_t *hashes, const int64_t *generations,
                               size_t n);

/*
 * Advance the filter to generation `to` >= G: each generation passed
 * starts a fresh slice in the oldest's slot (its bits and count zeroed),
 * all of them when it passes S or more.  Calls the tick function between
 * slices.
 */
extern void bf_window_advance(bf_view *view, int64_t to);

/*
 * dst := dst | src, two window filters of the same shape and clock
 * (bf_same_shape()) at the same generation: the bits ORed, the counts and
 * n added (stopping at 2^63-1).  The caller advances the one behind first.
 */
extern void bf_window_union(bf_view *dst, const bf_view *src);

/*
 * bf_check_data() of a window filter: each slice holds no more bits than
 * values were added in the generations that wrote it, and no value was
 * added (n = 0) exactly when its element key is empty, and then nothing is
 * set or counted.
 */
extern bool bf_window_check(const bf_view *view, bf_error *err);

/* Set bits of slot p's slice. */
extern uint64_t bf_window_slice_bits_set(const bf_view *view, unsigned slot);

/* The rate of false positives now, from the fill of each slice (bf_window_fpp()'s method). */
extern double bf_window_current_fpp(const bf_view *view);

/* ---- sizing (bf_window_sizing.c) ---- */

/*
 * The rate of false positives of a window filter whose slice i (0 the
 * newest) has fill[i] of its bits set: the probability that some hashes
 * consecutive slices hold a random value's bit, the slices taken as
 * independent.  Exact: a walk over the slices keeping the probability of
 * each length of the run of set bits that ends there.
 */
extern double bf_window_fpp_of_fills(const double *fill, unsigned slices, unsigned hashes);

/*
 * The rate of a window filter at its fullest, capacity values added in
 * each generation including the current one: slice i has had
 * min(i + 1, hashes) generations of them, its fill 1 - (1 - 1/slice_bits)^(that
 * many values).
 */
extern double bf_window_fpp(unsigned hashes, unsigned generations, uint64_t slice_bits,
                            double capacity);

/*
 * The chance that a value added age generations ago is still found in a
 * filter at its fullest: 1 for age < generations; then its slices that are
 * left (S - age of them) hold its bit and some run of hashes set bits must
 * complete with the other slices' chance fill; the rate alone past S.
 */
extern double bf_window_recall(unsigned hashes, unsigned generations, uint64_t slice_bits,
                               double capacity, unsigned age);

/*
 * The shape of a window filter for capacity values per generation (>= 1)
 * over `generations` (1 to 4096) at rate fpp (0 < fpp < 1): the smallest
 * hashes (1 to 64) whose filter at its fullest meets fpp, and its
 * slice_bits.  Fails with BF_ERR_PARAM when no hashes up to 64 meets it,
 * BF_ERR_TOO_LARGE past 1 GB.
 */
extern bool bf_window_size_for(double capacity, double fpp, unsigned generations, unsigned *hashes,
                               uint64_t *slice_bits, bf_error *err);

#endif /* BF_WINDOW_H */
