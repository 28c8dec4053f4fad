/*
 * bf_filter.c
 *	  Bit positions of a value, and the operations on the bit array.
 *
 * Hash scheme 1.  The SQL layer hashes a value once, with the extended
 * (64-bit, seeded) hash function of its type's default hash operator family,
 * so that every value "=" to another hashes alike.  From that one 64-bit hash
 * h we derive the k positions by double hashing (Kirsch & Mitzenmacher, "Less
 * Hashing, Same Performance: Building a Better Bloom Filter", 2006): two
 * hashes give the false-positive rate of k independent ones.
 *
 *	  x = fmix64(h), y = fmix64(h ^ C)
 *	  for i in 0 .. k-1:  pos[i] = reduce(x, m);  x += y  (mod 2^64)
 *
 * fmix64 is MurmurHash3's 64-bit finalizer, so that x and y are well mixed
 * whatever the type's own hash function is.  reduce(x, m) = floor(x * m /
 * 2^64) (Lemire's "fastrange") maps a 64-bit number to [0, m) without a
 * division; it reads the high bits, so the positions are u + i*v (mod 1)
 * scaled to m, with u and v uniform in [0, 1): the continuous form of double
 * hashing, which avoids the weak cases of "mod m" arithmetic (a step that
 * shares a factor with m).
 *
 * The blocked512 layout picks the block with x, block = reduce(x, m / 512),
 * and the k bits inside it from y, 9 bits at a time from the top (7 per
 * 64-bit word; every 7 positions the word is refilled with
 * w' = fmix64(w + C2)), so that the positions inside the block are
 * independent, as the sizing formula assumes.
 *
 * The computation uses only 64-bit integer arithmetic and a portable 64x64
 * multiply, so every platform derives the same positions.
 */
#include "bf_core.h"

#include <string.h>

#define BF_SECOND_HASH_SALT UINT64_C(0x9E3779B97F4A7C15)
#define BF_BLOCK_REFILL_SALT UINT64_C(0xC2B2AE3D27D4EB4F)

static inline uint64_t
fmix64(uint64_t k)
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
reduce(uint64_t x, uint64_t m)
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

/* The k positions of a value in a blocked512 filter (see above). */
static inline void
blocked_positions(const bf_params *p, uint64_t x, uint64_t y, uint64_t *pos)
{
	uint64_t base = reduce(x, p->nbits / BF_BLOCK_BITS) * BF_BLOCK_BITS;
	uint64_t word = y, w = y;

	for (unsigned i = 0; i < p->nhashes; i++)
	{
		if (i > 0 && i % 7 == 0)
		{
			word = fmix64(word + BF_BLOCK_REFILL_SALT);
			w = word;
		}
		pos[i] = base + (w >> 55);
		w <<= 9;
	}
}

/* bf_positions(), inlined into the loops of this file */
static inline void
positions(const bf_params *p, uint64_t h, uint64_t *pos)
{
	uint64_t x = fmix64(h);
	uint64_t y = fmix64(h ^ BF_SECOND_HASH_SALT);

	if (p->layout == BF_LAYOUT_BLOCKED512)
	{
		blocked_positions(p, x, y, pos);
		return;
	}
	for (unsigned i = 0; i < p->nhashes; i++)
	{
		pos[i] = reduce(x, p->nbits);
		x += y;
	}
}

void
bf_positions(const bf_params *p, uint64_t h, uint64_t *pos)
{
	positions(p, h, pos);
}

/*
 * The bit operations, inlined into the loops below: the exported versions
 * cannot be, in a shared library, since they could be interposed.
 */
static inline bool
test_bit(const uint8_t *bits, uint64_t pos)
{
	return (bits[pos >> 3] >> (pos & 7)) & 1;
}

static inline void
set_bit(uint8_t *bits, uint64_t pos)
{
	bits[pos >> 3] |= (uint8_t) (1u << (pos & 7));
}

void
bf_set_bit(bf_view *view, uint64_t pos)
{
	set_bit(view->bits, pos);
}

bool
bf_test_bit(const bf_view *view, uint64_t pos)
{
	return test_bit(view->bits, pos);
}

unsigned
bf_add_hash(bf_view *view, uint64_t h)
{
	uint64_t pos[BF_MAX_HASHES];
	unsigned changed = 0;

	if (view->p.layout == BF_LAYOUT_EXPLICIT)
		return 0;
	positions(&view->p, h, pos);
	for (unsigned i = 0; i < view->p.nhashes; i++)
	{
		if (!test_bit(view->bits, pos[i]))
		{
			set_bit(view->bits, pos[i]);
			changed++;
		}
	}
	return changed;
}

/*
 * Prefetch distance, in values: the positions of value i + BF_PREFETCH_AHEAD
 * are requested from memory while value i's bits are set, so that the cache
 * misses of a filter larger than the cache overlap instead of following one
 * another.
 */
#define BF_PREFETCH_AHEAD 16
#if defined(__GNUC__) || defined(__clang__)
#define BF_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 0)
#else
#define BF_PREFETCH_WRITE(p) ((void) (p))
#endif

void
bf_add_hashes(bf_view *view, const uint64_t *hashes, size_t n)
{
	uint64_t ring[BF_PREFETCH_AHEAD][BF_MAX_HASHES];
	unsigned k = view->p.nhashes;

	if (view->p.layout == BF_LAYOUT_EXPLICIT)
		return;
	for (size_t i = 0; i < n + BF_PREFETCH_AHEAD; i++)
	{
		uint64_t *pos = ring[i % BF_PREFETCH_AHEAD];

		if (i >= BF_PREFETCH_AHEAD)
			for (unsigned j = 0; j < k; j++)
				set_bit(view->bits, pos[j]); /* prefetched BF_PREFETCH_AHEAD values ago */
		if (i < n)
		{
			positions(&view->p, hashes[i], pos);
			for (unsigned j = 0; j < k; j++)
				BF_PREFETCH_WRITE(view->bits + (pos[j] >> 3));
		}
	}
}

bool
bf_contains_hash(const bf_view *view, uint64_t h)
{
	uint64_t x = fmix64(h);
	uint64_t y = fmix64(h ^ BF_SECOND_HASH_SALT);

	if (view->p.layout == BF_LAYOUT_COUNTING4)
		return bf_counting_min(view, h) > 0;
	if (view->p.layout == BF_LAYOUT_EXPLICIT)
		return bf_explicit_contains(view, h);
	if (view->p.layout == BF_LAYOUT_BLOCKED512)
	{
		/* one block, one cache line: test the bits as they come */
		const uint8_t *block =
		    view->bits + reduce(x, view->p.nbits / BF_BLOCK_BITS) * (BF_BLOCK_BITS / 8);
		uint64_t word = y, w = y;

		for (unsigned i = 0; i < view->p.nhashes; i++)
		{
			if (i > 0 && i % 7 == 0)
			{
				word = fmix64(word + BF_BLOCK_REFILL_SALT);
				w = word;
			}
			if (!test_bit(block, w >> 55))
				return false;
			w <<= 9;
		}
		return true;
	}

	/* bf_positions() inlined, so that the first clear bit ends the probe */
	for (unsigned i = 0; i < view->p.nhashes; i++)
	{
		if (!test_bit(view->bits, reduce(x, view->p.nbits)))
			return false;
		x += y;
	}
	return true;
}

uint64_t
bf_occupied(const bf_view *view, size_t from, size_t to)
{
	const uint8_t *b = view->bits;
	uint64_t count = 0;
	size_t i = from;

	if (view->p.layout == BF_LAYOUT_EXPLICIT)
		return (uint64_t) (to / 8 - from / 8);
	if (view->p.layout == BF_LAYOUT_COUNTING4)
	{
		for (; i < to; i++)
			count += (uint64_t) ((b[i] & 0x0F) != 0) + (uint64_t) ((b[i] & 0xF0) != 0);
		return count;
	}
	for (; i + 8 <= to; i += 8)
	{
		uint64_t w;

		memcpy(&w, b + i, 8);
		count += (uint64_t) __builtin_popcountll(w);
	}
	for (; i < to; i++)
		count += (uint64_t) __builtin_popcount(b[i]);
	return count;
}

void
bf_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		dst->bits[i] |= src->bits[i];
}

void
bf_intersect_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		dst->bits[i] &= src->bits[i];
}
