/*
 * bf_stretches.h
 *	  A bounded set of stretches of integers that covers every value added:
 *	  what a runtime filter's build keeps of an integer key once it has too
 *	  many distinct values to keep them all (src/runtime/filter/values.c).
 *
 * A month of every year of a 200-year date dimension is 6,000 keys, but 200
 * stretches of consecutive keys: a partition or a BRIN block range that no
 * stretch meets holds no key, where the keys' least and greatest values
 * alone would say that any may.  At most max stretches are kept: past them,
 * the stretches either side of the narrowest gaps are joined, so the set
 * only ever grows (a value once covered stays covered: no false negative).
 * Values are 64-bit integers in their order as unsigned ones (the caller
 * maps a signed value v to v ^ BF_STRETCH_SIGN); stretches are sorted,
 * disjoint and never adjacent.
 *
 * Values added are buffered unsorted and merged in batches of max
 * (bf_hashes_sort_unique, then one pass): each value costs a binary search
 * among the stretches and, amortized, a constant share of a sort.  No
 * allocation: the caller gives a buffer of bf_stretches_bytes(max).
 */
#ifndef BF_STRETCHES_H
#define BF_STRETCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* XORed into a signed 64-bit value, it orders as an unsigned one. */
#define BF_STRETCH_SIGN ((uint64_t) 1 << 63)

typedef struct bf_stretches
{
	int max;           /* stretches kept at most (>= 1) */
	int n;             /* stretches now: [lo[i], hi[i]], lo[i] <= hi[i] < lo[i + 1] - 1 */
	int npending;      /* values added but not yet merged (bf_stretches_finish merges them) */
	uint64_t *lo;      /* max entries */
	uint64_t *hi;      /* max entries */
	uint64_t *pending; /* max entries */
	uint64_t *work;    /* 6 * max entries: the merge's stretches and the gaps between them */
	uint64_t *sorted; /* 2 * max entries: the gaps selected among, and the values' sort's scratch */
} bf_stretches;

/* Bytes of the buffer bf_stretches_init needs for max stretches (1 <= max <= 1 << 20). */
extern size_t bf_stretches_bytes(int max);

/* An empty set of at most max stretches in buffer (bf_stretches_bytes(max) bytes, 8-aligned). */
extern void bf_stretches_init(bf_stretches *s, int max, void *buffer);

/* Add value: it is covered from now on (after bf_stretches_finish, by a stretch). */
extern void bf_stretches_add(bf_stretches *s, uint64_t value);

/* Merge the values still buffered: the stretches then cover every value added. */
extern void bf_stretches_finish(bf_stretches *s);

/*
 * Add another set's n stretches [lo[i], hi[i]] (sorted, disjoint, n <= s->max,
 * as a finished set holds them): every value they cover is covered from
 * now on.  Finishes s first; s is finished after it.  For the shares of a
 * build read by several processes, merged into one.
 */
extern void bf_stretches_add_stretches(bf_stretches *s, const uint64_t *lo, const uint64_t *hi,
                                       int n);

/*
 * After bf_stretches_finish: the first stretch whose upper end is at least
 * value (s->n if none).  A stretch meets [a, b] iff it is this one for a
 * and its lower end is at most b.
 */
extern int bf_stretches_first_reaching(const bf_stretches *s, uint64_t value);

#endif /* BF_STRETCHES_H */
