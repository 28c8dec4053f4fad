/*
 * bf_hash.h
 *	  Hash scheme 1: the one place where a value's hash becomes cell positions.
 *
 * The SQL layer hashes a value once, with the extended (64-bit, seeded)
 * hash function of its type's hash operator family, so that every value
 * "=" to another hashes alike.  From that one 64-bit hash h the k positions
 * are derived by double hashing (Kirsch & Mitzenmacher, "Less Hashing, Same
 * Performance: Building a Better Bloom Filter", 2006): two well-mixed hashes
 * give the false-positive rate of k independent ones.
 *
 *	  x = fmix64(h), y = fmix64(h ^ BF_SECOND_HASH_SALT)
 *	  classic, counting4:  pos[i] = reduce(x + i y, m)   (mod 2^64 inside)
 *
 * fmix64 is MurmurHash3's 64-bit finalizer, so that x and y are well mixed
 * whatever the type's own hash function is.  reduce(x, m) = floor(x m / 2^64)
 * (Lemire, "Fast Random Integer Generation in an Interval", 2019) maps a
 * 64-bit number to [0, m) without a division; it reads the high bits, so
 * the positions are u + i v (mod 1) scaled to m with u, v uniform in [0, 1):
 * the continuous form of double hashing, which avoids the weak cases of
 * "mod m" arithmetic (a step that shares a factor with m).  It also makes
 * folding exact (bf_fold_bytes in bf_core.h): floor(reduce(x, m) / f) =
 * reduce(x, m / f) when f divides m.
 *
 * blocked512 picks the block with x, block = reduce(x, m / 512), and the k
 * bits inside it from y, 9 bits at a time from the top: 7 offsets per
 * 64-bit word, the word refilled every 7 offsets with
 * w = fmix64(w + BF_BLOCK_REFILL_SALT), so that the offsets inside a block
 * are independent, as the blocked sizing formula assumes.
 *
 * Only 64-bit integer arithmetic and a portable 64x64 multiply are used, so
 * every platform derives the same positions; the unit tests pin them
 * (test "positions_golden").  Changing anything here changes the positions
 * of stored filters: it needs a new scheme number, never an edit.
 *
 * Internal to the core; the PostgreSQL layer calls bf_positions().
 */
#ifndef BF_HASH_H
#define BF_HASH_H

#include "bf_format.h"

#include <assert.h>

#define BF_SECOND_HASH_SALT UINT64_C(0x9E3779B97F4A7C15)
#define BF_BLOCK_REFILL_SALT UINT64_C(0xC2B2AE3D27D4EB4F)
#define BF_BLOCK_OFFSET_BITS 9 /* log2(BF_BLOCK_BITS) */
#define BF_OFFSETS_PER_WORD 7  /* 64 / BF_BLOCK_OFFSET_BITS */

/* MurmurHash3's 64-bit finalizer. */
static inline uint64_t
bf_fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

/* floor(x * m / 2^64): the high 64 bits of the 128-bit product. */
static inline uint64_t
bf_reduce(uint64_t x, uint64_t m)
{
#if defined(__SIZEOF_INT128__) && !defined(BF_PORTABLE_MULHI)
	__extension__ typedef unsigned __int128 u128;

	return (uint64_t) (((u128) x * m) >> 64);
#else
	uint64_t x_lo = x & 0xFFFFFFFFu, x_hi = x >> 32;
	uint64_t m_lo = m & 0xFFFFFFFFu, m_hi = m >> 32;
	uint64_t lo_lo = x_lo * m_lo;
	uint64_t hi_lo = x_hi * m_lo;
	uint64_t lo_hi = x_lo * m_hi;
	uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;

	return x_hi * m_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/*
 * The positions of one value, produced one at a time so that a probe can
 * stop at the first clear cell.  Start with bf_hash_start(), then call
 * bf_hash_next() (classic, counting4) or bf_hash_next_in_block() (blocked512,
 * after bf_hash_block()) k times.
 */
typedef struct bf_hash_state
{
	uint64_t x;    /* classic: the next position, before reduction */
	uint64_t y;    /* classic: the step */
	uint64_t word; /* blocked512: the current 64-bit word of offsets */
	uint64_t rest; /* blocked512: its offsets not yet used, from the top */
	unsigned used; /* blocked512: offsets produced so far */
} bf_hash_state;

static inline bf_hash_state
bf_hash_start(uint64_t h)
{
	bf_hash_state s;

	s.x = bf_fmix64(h);
	s.y = bf_fmix64(h ^ BF_SECOND_HASH_SALT);
	s.word = s.y;
	s.rest = s.y;
	s.used = 0;
	return s;
}

/* classic, counting4: the next position in [0, m). */
static inline uint64_t
bf_hash_next(bf_hash_state *s, uint64_t m)
{
	uint64_t pos = bf_reduce(s->x, m);

	assert(m >= 1);
	s->x += s->y;
	return pos;
}

/* blocked512: the value's block, in [0, m / 512) (m a multiple of 512). */
static inline uint64_t
bf_hash_block(const bf_hash_state *s, uint64_t m)
{
	assert(m >= BF_BLOCK_BITS && m % BF_BLOCK_BITS == 0);
	return bf_reduce(s->x, m / BF_BLOCK_BITS);
}

/* blocked512: the next bit offset inside the block, in [0, 512). */
static inline unsigned
bf_hash_next_in_block(bf_hash_state *s)
{
	unsigned offset;

	if (s->used > 0 && s->used % BF_OFFSETS_PER_WORD == 0)
	{
		s->word = bf_fmix64(s->word + BF_BLOCK_REFILL_SALT);
		s->rest = s->word;
	}
	offset = (unsigned) (s->rest >> (64 - BF_BLOCK_OFFSET_BITS));
	s->rest <<= BF_BLOCK_OFFSET_BITS;
	s->used++;
	return offset;
}

/* All k positions of a value (classic, counting4, blocked512) into pos[0 .. k). */
static inline void
bf_hash_positions(const bf_params *p, uint64_t h, uint64_t *pos)
{
	bf_hash_state s = bf_hash_start(h);

	assert(p->nhashes >= 1 && p->nhashes <= BF_MAX_HASHES);
	if (p->layout == BF_LAYOUT_BLOCKED512)
	{
		uint64_t base = bf_hash_block(&s, p->ncells) * BF_BLOCK_BITS;

		for (unsigned i = 0; i < p->nhashes; i++)
			pos[i] = base + bf_hash_next_in_block(&s);
		return;
	}
	assert(p->layout == BF_LAYOUT_CLASSIC || p->layout == BF_LAYOUT_COUNTING4);
	for (unsigned i = 0; i < p->nhashes; i++)
		pos[i] = bf_hash_next(&s, p->ncells);
}

#endif /* BF_HASH_H */
