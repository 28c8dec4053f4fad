/*
 * bf_core.h
 *	  The interface of the PostgreSQL-free core of the bloomfilter extension.
 *
 * A Bloom filter is an array of m bits and k hash positions per value.  A
 * value is added by setting its k bits; it is reported as possibly present
 * when all k bits are set.  There are no false negatives; the rate of false
 * positives depends on m, k and the number of distinct values added.
 *
 * This library knows nothing of SQL types.  It receives one 64-bit hash per
 * value (the PostgreSQL layer computes it with the type's extended hash
 * function, so that values equal under the type's "=" hash alike) and owns
 * everything else: the serialized format (bf_format.h), the derivation of
 * cell positions (bf_hash.h), the four layouts, the sizing formulas and the
 * text form.  It never allocates: callers ask for the size they need and
 * pass a buffer.
 *
 * This header is all a caller uses: the format's API (bf_format.h, included
 * here) and the operations below, which dispatch on the layout to the
 * layouts' own files (bf_layouts.h).  Every operation on a serialized filter
 * needs a view that bf_check_header() or bf_init() produced; what else each
 * needs is stated above it and asserted.
 */
#ifndef BF_CORE_H
#define BF_CORE_H

#include "bf_format.h"
#include "bf_format_layered.h"
#include "bf_runtime.h"
#include "bf_window.h"

/*
 * A function the core calls every few megabytes in its long loops (the text
 * codec, sorting, validation), so that its host can check for a cancel
 * request; NULL (the default) for none.  The PostgreSQL layer sets one that
 * runs CHECK_FOR_INTERRUPTS().
 */
typedef void (*bf_tick_fn)(void);
extern void bf_set_tick(bf_tick_fn tick);

/* ---- every layout (bf_filter.c) ---- */

/*
 * Validate the data of a filter whose header passed.  occupied is the
 * number of occupied cells (set bits, non-zero counters, hashes), which
 * callers count in chunks with bf_occupied().  Classic, blocked512: no bit at
 * or beyond m, the element key present exactly when values were added, no
 * more bits set than k times the values added and, if derived, no more than
 * the bound.  Counting4: no counter at or beyond m, and an empty element key
 * only with no values and no counters.  Explicit: hashes strictly
 * increasing, at most as many as values added, the element key present
 * exactly when values were added.
 */
extern bool bf_check_data(const bf_view *view, uint64_t occupied, bf_error *err);

/*
 * Occupied cells in data bytes [from, to): set bits, non-zero counters, or
 * hashes (explicit; from and to multiples of 8).
 */
extern uint64_t bf_occupied(const bf_view *view, size_t from, size_t to);

/*
 * Whether the value whose hash is h may have been added: all k bits set
 * (classic, blocked512), all k counters non-zero (counting4), the hash held
 * (explicit).
 */
extern bool bf_contains_hash(const bf_view *view, uint64_t h);

/*
 * Add a value: set its k bits (classic, blocked512) or increment its k
 * counters, a counter stopping at BF_COUNTER_MAX (counting4).  Returns how
 * many cells were empty before.  An explicit filter changes size when a
 * hash is added: bf_explicit_copy_inserting() does that, this does nothing
 * to one and returns 0.
 */
extern unsigned bf_add_hash(bf_view *view, uint64_t h);

/*
 * bf_add_hash() for n values of a bit filter (classic, blocked512), faster
 * for a filter larger than the CPU cache: the memory accesses of several
 * values overlap.
 */
extern void bf_add_hashes(bf_view *view, const uint64_t *hashes, size_t n);

/*
 * The k cell positions of a value (classic, blocked512, counting4), written
 * to pos, which holds at least k entries (bf_hash.h).
 */
extern void bf_positions(const bf_params *p, uint64_t h, uint64_t *pos);

/*
 * blocked512 (or a layer of a layered filter, p its shape): the block (in
 * [0, m / 512)) that holds a value's k bits; whether block, the 64 bytes of
 * that block, has them all set, tested as they come (a value not held
 * usually fails at its first or second bit); and setting them there,
 * returning how many were clear.  For a caller that keeps the blocks
 * elsewhere (a bloomfilter index keeps them on pages).
 */
extern uint64_t bf_blocked_block(const bf_params *p, uint64_t h);
extern bool bf_blocked_block_holds(const bf_params *p, const uint8_t *block, uint64_t h);
extern unsigned bf_blocked_block_add(const bf_params *p, uint8_t *block, uint64_t h);

/*
 * blocked512: bf_blocked_block_add of n hashes into bits (all m / 8 bytes
 * of them), in order, each key's block requested from memory some keys
 * ahead (a filter larger than the CPU's cache: the misses overlap); for
 * each key that set a bit, counts[its block / blocks_per_count] is raised
 * by one (a bloomfilter index counts its keys per page so).
 */
extern void bf_blocked_add_many_counted(const bf_params *p, uint8_t *bits, const uint64_t *hashes,
                                        size_t n, uint64_t blocks_per_count, uint64_t *counts);

/*
 * dst := dst | src over data bytes [from, to): the bits ORed (classic,
 * blocked512) or the counters added, saturating (counting4).  Same shape
 * (checked by the caller).
 */
extern void bf_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/* dst := dst & src over data bytes [from, to) of two bit filters of the same shape. */
extern void bf_intersect_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/*
 * Keep in the sorted a[0 .. na) only the hashes the filter may hold
 * (exactly those of an explicit filter, the possible members of another);
 * returns how many are left.
 */
extern size_t bf_hashes_retain(uint64_t *a, size_t na, const bf_view *filter);

/* ---- bit filters (classic, blocked512) ---- */

/* Set / test one bit (the worked examples of the tests). */
extern void bf_set_bit(bf_view *view, uint64_t pos);
extern bool bf_test_bit(const bf_view *view, uint64_t pos);

/*
 * Folding a classic filter of m bits by a factor f that divides m: bit p of
 * the source becomes bit p / f of a classic filter of m / f bits, which is
 * exactly the filter of the same values built at m / f bits (bf_hash.h).
 * ORs src's data bytes [from, to) into dst, zeroed first by the caller.
 */
extern void bf_fold_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/* ---- counting filters (counting4) ---- */

/* Counter i (i < m), and the setter for the tests (value <= BF_COUNTER_MAX). */
extern unsigned bf_counter(const bf_view *view, uint64_t i);
extern void bf_set_counter(bf_view *view, uint64_t i, unsigned value);

/*
 * Remove a value: decrement its k counters, except saturated ones (at
 * BF_COUNTER_MAX a counter may hold more than it shows, so it is never
 * decremented: a delete can never create a false negative).  Returns false,
 * changing nothing, if a counter is already too low to remove the value: it
 * was never added.
 */
extern bool bf_remove_hash(bf_view *view, uint64_t h);

/* The smallest of the value's counters: an upper bound on how often it was added. */
extern unsigned bf_count_hash(const bf_view *view, uint64_t h);

/*
 * Subtract src's counters from dst's, as if every value added to src were
 * removed from dst once per add: bf_can_subtract_bytes() checks (for data
 * bytes [from, to)) that no non-saturated counter of dst is below src's;
 * bf_subtract_bytes() then subtracts, leaving saturated counters.  A
 * saturated counter of src stands for 15 or more: subtracting 15 can leave
 * dst's counter too high, never too low.
 */
extern bool bf_can_subtract_bytes(const bf_view *dst, const bf_view *src, size_t from, size_t to);
extern void bf_subtract_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/*
 * Set in the bit filter dst (same m) the bits of src's non-zero counters
 * held in src's data bytes [from, to).
 */
extern void bf_counters_to_bits(bf_view *dst, const bf_view *src, size_t from, size_t to);

/* ---- explicit filters (sets of hashes) ---- */

/* Hash i of an explicit filter (i < m). */
extern uint64_t bf_explicit_hash(const bf_view *view, uint64_t i);

/* Read the hashes of an explicit filter into hashes[0 .. m). */
extern void bf_explicit_hashes(const bf_view *view, uint64_t *hashes);

/* Write the sorted, distinct hashes[0 .. m) as the data of the new explicit filter view. */
extern void bf_explicit_set_hashes(bf_view *view, const uint64_t *hashes);

/*
 * Write into dst, a new explicit filter of m(src) + 1 hashes (same seed and
 * element key), src's hashes and h, which src does not hold.
 */
extern void bf_explicit_copy_inserting(const bf_view *src, uint64_t h, bf_view *dst);

/* ---- arrays of hashes (bf_hashset.c) ---- */

/*
 * Sort a[0 .. n) in increasing order and drop duplicates; returns the
 * number left.  tmp holds n entries (a radix sort: O(n), no comparisons).
 */
extern size_t bf_hashes_sort_unique(uint64_t *a, size_t n, uint64_t *tmp);

/*
 * Merge the sorted distinct b[0 .. nb) into the sorted distinct a[0 .. na),
 * in place (a has room for na + nb entries); returns the size of the union.
 */
extern size_t bf_hashes_merge(uint64_t *a, size_t na, const uint64_t *b, size_t nb);

/* ---- sizing math (bf_sizing.c) ---- */

/*
 * Expected false-positive rate after n distinct values in a filter of m bits
 * and k hashes: (1 - (1 - 1/m)^(kn))^k, the exact form of the classic
 * formula (its approximation is (1 - e^(-kn/m))^k).
 */
extern double bf_fpp(double n, double ncells, double nhashes);

/* The integer k in [1, BF_MAX_HASHES] that minimizes bf_fpp(n, m, k). */
extern int bf_optimal_hashes(double n, double ncells);

/*
 * The same for a blocked512 filter: with lambda = 512 n / m values per block
 * on average, sum over i of Poisson(i; lambda) (1 - (1 - 1/512)^(k i))^k.
 */
extern double bf_blocked_fpp(double n, double ncells, double nhashes);

/*
 * The expected fraction of a blocked512 filter's bits set after n values:
 * 1 - exp(lambda ((1 - 1/512)^k - 1)), lambda = 512 n / m.
 */
extern double bf_blocked_fill(double n, double ncells, double nhashes);

/*
 * The fraction of one page's bits set at which a blocked512 filter laid
 * over npages pages (a bloomfilter index's layer) is full, so that it is
 * found full when it holds about n values in all.  Its values spread over
 * its pages at random: a page of page_blocks of its m / 512 blocks gets
 * Poisson(mu) of them, mu = n page_blocks / (m / 512), and the fullest of
 * npages pages about mu + z sqrt(mu), z the expected largest of npages
 * standard normal draws (sqrt(2 ln P) - (ln ln P + ln 4 pi) / (2 sqrt(2 ln P)),
 * which falls short of it for few pages: then full a little early).  A page
 * there is full; a rule of mu alone would find the layer full a few
 * percent short of n, when its fullest page reaches it.  One page: the
 * whole filter's fill at n, bf_blocked_fill().
 */
extern double bf_blocked_page_full_fill(double n, double ncells, double nhashes, double page_blocks,
                                        double npages);

/* The expected rate for the layout (classic formula for counting4). */
extern double bf_layout_fpp(uint8_t layout, double n, double ncells, double nhashes);

/* The k in [1, BF_MAX_HASHES] that minimizes bf_layout_fpp(). */
extern int bf_layout_optimal_hashes(uint8_t layout, double n, double ncells);

/*
 * bf_size_for() for a layout: for blocked512, the smallest multiple of 512
 * bits whose best k meets fpp by the blocked formula.
 */
extern bool bf_size_for_layout(uint8_t layout, double n, double fpp, uint64_t *ncells, int *nhashes,
                               bf_error *err);

/*
 * Smallest m (and its best k) whose expected rate after n values is at most
 * fpp.  Starts from the classic optimum m = -n ln(fpp) / (ln 2)^2 and rounds
 * up until the integer k still meets the target.  Fails with BF_ERR_PARAM for
 * n < 1 or fpp outside (0, 1), BF_ERR_TOO_LARGE beyond BF_MAX_BITS.
 */
extern bool bf_size_for(double n, double fpp, uint64_t *ncells, int *nhashes, bf_error *err);

/*
 * Estimated number of distinct values from the number of set bits X
 * (Swamidass & Baldi): -(m/k) ln(1 - X/m).  +Infinity when every bit is set.
 */
extern double bf_estimate_distinct(uint64_t ncells, int nhashes, uint64_t occupied);

/* Rate of false positives for a random probe now: (X/m)^k. */
extern double bf_current_fpp(uint64_t ncells, int nhashes, uint64_t occupied);

/* ---- text form (bf_text.c) ---- */

/*
 * The text form is
 *	 v1 classic m=<m> k=<k> scheme=<s> seed=<seed> n=<added> elem=<key> bits=<base64>
 *	 v1 counting4 m=<m> ... elem=<key> counters=<base64>
 *	 v1 blocked512 m=<m> ... elem=<key> bits=<base64>
 *	 v1 explicit m=<m> k=0 ... elem=<key> hashes=<base64>
 * with " bound=<b> est=<e>" after n= for a derived filter, then " target=0.<digits>"
 * for a target (the rate in decimal, at most 9 digits after the point, no
 * trailing zero), single spaces, decimal integers without sign or leading zeros, the
 * element key percent-encoded where it holds a byte other than
 * [A-Za-z0-9_.@$-], and the bit array in padded base64 (RFC 4648).  It is
 * canonical: every value has exactly one text form and the parser accepts
 * only that form, so text round-trips are exact.
 */

/* Length of the text form of a filter (without a terminating NUL). */
extern size_t bf_text_length(const bf_view *view);

/* Write the text form into out, which holds bf_text_length() + 1 bytes. */
extern void bf_text_write(const bf_view *view, char *out);

/*
 * Parse a text form.  Pass 1 (buf == NULL): validate the syntax and every
 * field, and return the payload size needed in *payload_len.  Pass 2: decode
 * into buf (payload_len bytes).  The result still needs bf_check_data().
 */
extern bool bf_text_parse(const char *text, size_t len, uint8_t *buf, size_t *payload_len,
                          bf_error *err);

#endif /* BF_CORE_H */
