/*
 * bf_bits.c
 *	  Bit arrays: what the classic and blocked512 layouts share (bf_bits.h).
 */
#include "bf_bits.h"
#include "bf_hash.h"
#include "bf_util.h"

#include <string.h>

bool
bf_bits_block_holds(const uint8_t *block, bf_hash_state *s, unsigned k)
{
	for (unsigned i = 0; i < k; i++)
		if (!bf_bit_test(block, bf_hash_next_in_block(s)))
			return false;
	return true;
}

unsigned
bf_bits_block_add(uint8_t *block, bf_hash_state *s, unsigned k)
{
	unsigned changed = 0;

	for (unsigned i = 0; i < k; i++)
	{
		unsigned offset = bf_hash_next_in_block(s);

		if (!bf_bit_test(block, offset))
		{
			bf_bit_set(block, offset);
			changed++;
		}
	}
	return changed;
}

bool
bf_bits_blocked_contains(const bf_params *p, const uint8_t *bits, uint64_t h)
{
	bf_hash_state s = bf_hash_start(h);

	assert(p->layout == BF_LAYOUT_BLOCKED512);
	return bf_bits_block_holds(bits + bf_hash_block(&s, p->ncells) * (BF_BLOCK_BITS / 8), &s,
	                           p->nhashes);
}

unsigned
bf_bits_add(const bf_params *p, uint8_t *bits, uint64_t h)
{
	uint64_t pos[BF_MAX_HASHES];
	unsigned changed = 0;

	assert(p->layout == BF_LAYOUT_CLASSIC || p->layout == BF_LAYOUT_BLOCKED512);
	bf_hash_positions(p, h, pos);
	for (unsigned i = 0; i < p->nhashes; i++)
	{
		if (!bf_bit_test(bits, pos[i]))
		{
			bf_bit_set(bits, pos[i]);
			changed++;
		}
	}
	return changed;
}

/*
 * Prefetch distance, in values: the positions of value i + BF_PREFETCH_AHEAD
 * are requested from memory while value i's bits are set, so that the cache
 * misses of a filter larger than the cache overlap instead of following one
 * another (16 measured best; see bench/README.md).
 */
#define BF_PREFETCH_AHEAD 16
#if defined(__GNUC__) || defined(__clang__)
#define BF_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 0)
#else
#define BF_PREFETCH_WRITE(p) ((void) (p))
#endif

void
bf_bits_add_many(const bf_params *p, uint8_t *bits, const uint64_t *hashes, size_t n)
{
	uint64_t ring[BF_PREFETCH_AHEAD][BF_MAX_HASHES];
	unsigned k = p->nhashes;

	assert(p->layout == BF_LAYOUT_CLASSIC || p->layout == BF_LAYOUT_BLOCKED512);
	for (size_t i = 0; i < n + BF_PREFETCH_AHEAD; i++)
	{
		uint64_t *pos = ring[i % BF_PREFETCH_AHEAD];

		if (i >= BF_PREFETCH_AHEAD)
			for (unsigned j = 0; j < k; j++)
				bf_bit_set(bits, pos[j]); /* prefetched BF_PREFETCH_AHEAD values ago */
		if (i < n)
		{
			bf_hash_positions(p, hashes[i], pos);
			for (unsigned j = 0; j < k; j++)
				BF_PREFETCH_WRITE(bits + (pos[j] >> 3));
		}
	}
}

void
bf_bits_blocked_add_many(const bf_params *p, uint8_t *bits, const uint64_t *hashes, size_t n,
                         uint64_t blocks_per_count, uint64_t *counts)
{
	bf_hash_state state[BF_PREFETCH_AHEAD];
	uint64_t block[BF_PREFETCH_AHEAD];
	uint64_t nblocks = p->ncells / BF_BLOCK_BITS;

	assert(p->layout == BF_LAYOUT_BLOCKED512 && blocks_per_count >= 1);
	for (size_t i = 0; i < n + BF_PREFETCH_AHEAD; i++)
	{
		unsigned at = (unsigned) (i % BF_PREFETCH_AHEAD);

		/* the key of BF_PREFETCH_AHEAD keys ago, its block requested then */
		if (i >= BF_PREFETCH_AHEAD &&
		    bf_bits_block_add(bits + block[at] * (BF_BLOCK_BITS / 8), &state[at], p->nhashes) > 0)
			counts[block[at] / blocks_per_count]++;
		if (i < n)
		{
			state[at] = bf_hash_start(hashes[i]);
			block[at] = bf_hash_block(&state[at], p->ncells);
			assert(block[at] < nblocks);
			BF_PREFETCH_WRITE(bits + block[at] * (BF_BLOCK_BITS / 8));
		}
	}
	(void) nblocks;
}

uint64_t
bf_bits_count(const uint8_t *bits, size_t from, size_t to)
{
	uint64_t count = 0;
	size_t i = from;

	assert(from <= to);
	for (; i + 8 <= to; i += 8)
	{
		uint64_t w;

		memcpy(&w, bits + i, 8);
		count += (uint64_t) __builtin_popcountll(w);
	}
	for (; i < to; i++)
		count += (uint64_t) __builtin_popcount(bits[i]);
	return count;
}

void
bf_bits_or(uint8_t *dst, const uint8_t *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		dst[i] |= src[i];
}

void
bf_bits_and(uint8_t *dst, const uint8_t *src, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		dst[i] &= src[i];
}

bool
bf_bits_check(const bf_view *view, uint64_t occupied, bf_error *err)
{
	uint64_t m = view->p.ncells;
	uint8_t last = view->data[view->nbytes - 1];

	assert(bf_layout_is_bits(view->p.layout) && view->nbytes >= 1);
	if (m % 8 != 0 && (last >> (m % 8)) != 0)
		return bf_fail(err, BF_ERR_FORMAT, "bits beyond m = %llu are set", (unsigned long long) m);
	if (view->nadded == 0 && view->elemlen != 0)
		return bf_fail(err, BF_ERR_FORMAT, "element key is set but no values were added");
	if (view->nadded != 0 && view->elemlen == 0)
		return bf_fail(err, BF_ERR_FORMAT, "values were added but the element key is empty");
	/* k * nadded may overflow; only compare when it cannot */
	if (view->nadded <= UINT64_MAX / view->p.nhashes && occupied > view->nadded * view->p.nhashes)
		return bf_fail(err, BF_ERR_FORMAT,
		               "%llu bits are set, more than k = %u times the %llu values added",
		               (unsigned long long) occupied, (unsigned) view->p.nhashes,
		               (unsigned long long) view->nadded);
	if ((view->flags & BF_FLAG_DERIVED) && occupied > view->bound)
		return bf_fail(err, BF_ERR_FORMAT, "%llu bits are set, more than the bound %llu",
		               (unsigned long long) occupied, (unsigned long long) view->bound);
	return true;
}
