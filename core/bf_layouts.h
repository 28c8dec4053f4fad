/*
 * bf_layouts.h
 *	  The five layouts, each in a file of its own, called by the dispatch
 *	  (bf_filter.c) and by nothing else but the unit tests.
 *
 * Each function's view has the layout its name says (asserted); the
 * dispatch checks that before it calls.  What the two bit layouts share is
 * in bf_bits.h.  Internal to the core.
 */
#ifndef BF_LAYOUTS_H
#define BF_LAYOUTS_H

#include "bf_format.h"

/* ---- classic (bf_classic.c): m bits, k positions anywhere ---- */

extern bool bf_classic_contains(const bf_view *view, uint64_t h);
extern void bf_classic_fold_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/* ---- blocked512 (bf_blocked.c): m bits, a value's k bits in one block of 512 ---- */

extern bool bf_blocked_contains(const bf_view *view, uint64_t h);

/* ---- counting4 (bf_counting.c): m 4-bit counters ---- */

extern unsigned bf_counting_get(const uint8_t *data, uint64_t i);
extern void bf_counting_put(uint8_t *data, uint64_t i, unsigned value);
extern unsigned bf_counting_add(bf_view *view, uint64_t h);
extern bool bf_counting_remove(bf_view *view, uint64_t h);
extern unsigned bf_counting_min(const bf_view *view, uint64_t h);
extern uint64_t bf_counting_occupied(const bf_view *view, size_t from, size_t to);
extern void bf_counting_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);
extern bool bf_counting_can_subtract(const bf_view *dst, const bf_view *src, size_t from,
                                     size_t to);
extern void bf_counting_subtract_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);
extern void bf_counting_to_bits(bf_view *dst, const bf_view *src, size_t from, size_t to);
extern bool bf_counting_check(const bf_view *view, uint64_t occupied, bf_error *err);

/* ---- explicit (bf_explicit.c): m sorted, distinct 64-bit hashes ---- */

extern uint64_t bf_explicit_get(const bf_view *view, uint64_t i);
extern void bf_explicit_write(uint8_t *data, const uint64_t *hashes, size_t n);
extern void bf_explicit_read(const bf_view *view, uint64_t *hashes);
extern uint64_t bf_explicit_rank(const bf_view *view, uint64_t h);
extern bool bf_explicit_contains(const bf_view *view, uint64_t h);
extern void bf_explicit_copy_with(const bf_view *src, uint64_t h, bf_view *dst);
extern bool bf_explicit_check(const bf_view *view, bf_error *err);

/* ---- layered (bf_layered.c): k blocked512 layers, a value in any ---- */

extern bool bf_layered_contains(const bf_view *view, uint64_t h);
extern unsigned bf_layered_add(bf_view *view, uint64_t h);
extern bool bf_layered_check(const bf_view *view, uint64_t occupied, bf_error *err);

#endif /* BF_LAYOUTS_H */
