/*
 * bf_bits.h
 *	  Bit arrays: what the classic, blocked512 and layered layouts share.
 *
 * Bit i is bit i % 8 of byte i / 8.  Internal to the core.
 */
#ifndef BF_BITS_H
#define BF_BITS_H

#include "bf_format.h"
#include "bf_hash.h"

static inline bool
bf_bit_test(const uint8_t *bits, uint64_t pos)
{
	return (bits[pos >> 3] >> (pos & 7)) & 1;
}

static inline void
bf_bit_set(uint8_t *bits, uint64_t pos)
{
	bits[pos >> 3] |= (uint8_t) (1u << (pos & 7));
}

/*
 * A blocked512 value's k bits in its block (the 64 bytes at block), s its
 * hash state from bf_hash_start(): whether all are set, tested as they come
 * (a value not held usually fails at its first or second); and setting
 * them, returning how many changed 0 -> 1.
 */
extern bool bf_bits_block_holds(const uint8_t *block, bf_hash_state *s, unsigned k);
extern unsigned bf_bits_block_add(uint8_t *block, bf_hash_state *s, unsigned k);

/*
 * Whether a blocked512 filter of shape p over bits holds a value: all its k
 * bits set, tested as they come inside the one block (bf_hash.h).
 */
extern bool bf_bits_blocked_contains(const bf_params *p, const uint8_t *bits, uint64_t h);

/* Set the k bits of a value; returns how many changed 0 -> 1. */
extern unsigned bf_bits_add(const bf_params *p, uint8_t *bits, uint64_t h);

/*
 * Set the bits of n values, the memory accesses of several values
 * overlapping: faster than n bf_bits_add() calls for a filter larger than
 * the CPU cache.
 */
extern void bf_bits_add_many(const bf_params *p, uint8_t *bits, const uint64_t *hashes, size_t n);

/*
 * blocked512: the n hashes added one block each, as bf_bits_block_add does,
 * prefetched as bf_bits_add_many is; counts[block / blocks_per_count] is
 * raised for each key that set a bit.
 */
extern void bf_bits_blocked_add_many(const bf_params *p, uint8_t *bits, const uint64_t *hashes,
                                     size_t n, uint64_t blocks_per_count, uint64_t *counts);

/* Set bits in bytes [from, to). */
extern uint64_t bf_bits_count(const uint8_t *bits, size_t from, size_t to);

/* dst |= src and dst &= src over bytes [from, to). */
extern void bf_bits_or(uint8_t *dst, const uint8_t *src, size_t from, size_t to);
extern void bf_bits_and(uint8_t *dst, const uint8_t *src, size_t from, size_t to);

/*
 * Check the data of a bit filter whose header passed, occupied being its
 * set bits: none at or beyond m, no more than k times the values added and,
 * if derived, no more than the bound.
 */
extern bool bf_bits_check(const bf_view *view, uint64_t occupied, bf_error *err);

#endif /* BF_BITS_H */
