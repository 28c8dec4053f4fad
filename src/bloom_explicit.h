/*
 * bloom_explicit.h
 *	  Explicit filters, sets of hashes, in the type's room (bloom_explicit.c):
 *	  building, adding a hash in any layout, union and intersection with a
 *	  set on either side.
 */
#ifndef BLOOM_EXPLICIT_H
#define BLOOM_EXPLICIT_H

#include "bloom_datum.h"

/* Hashes handled between two CHECK_FOR_INTERRUPTS() in loops over a set. */
#define BLOOM_HASHES_PER_CHECK 65536

/* The hashes of an explicit filter in a new array with room for extra more. */
extern uint64 *bloom_explicit_hashes(const bf_view *v, size_t extra);

/* A new explicit filter of the sorted, distinct hashes[0 .. n) (a target if target_ppb > 0). */
extern void bloom_explicit_build(const uint64 *hashes, size_t n, uint64 seed, uint32 target_ppb,
                                 const char *elem, size_t elemlen, uint64 nadded, BloomFilter *out);

/*
 * Add a hash to a filter the caller may modify, in any layout, without
 * counting it as a value added: set its bits (keeping a derived filter's
 * bound and estimate up to date), increment its counters, or insert it into
 * an explicit filter (a new value: use f->raw afterwards).
 */
extern void bloom_set_hash(BloomFilter *f, uint64 h);

/*
 * a := a | b and a := a & b when a or b is explicit; both non-empty, with the
 * same seed and element family (checked by the caller).  The union of a set
 * and a bit filter is a bit filter; an intersection keeps the explicit
 * side's hashes that the other side may hold.  a is replaced by a new value.
 */
extern void bloom_explicit_union(BloomFilter *a, const BloomFilter *b);
extern void bloom_explicit_intersect(BloomFilter *a, const BloomFilter *b);

#endif /* BLOOM_EXPLICIT_H */
