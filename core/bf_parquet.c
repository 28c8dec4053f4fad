/*
 * bf_parquet.c
 *	  Parquet's split block Bloom filter (bf_parquet.h says what that is):
 *	  XXH64, the blocks and salts, and parquet-java's sizing.  The
 *	  BloomFilterHeader, in Thrift's compact protocol, is
 *	  bf_parquet_thrift.c's.
 */
#include "bf_parquet.h"

#include <math.h>
#include <string.h>

/* ---- XXH64 ---- */

#define XXH_P1 UINT64_C(0x9E3779B185EBCA87)
#define XXH_P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define XXH_P3 UINT64_C(0x165667B19E3779F9)
#define XXH_P4 UINT64_C(0x85EBCA77C2B2AE63)
#define XXH_P5 UINT64_C(0x27D4EB2F165667C5)

/*
 * The little-endian 64- and 32-bit words at p: a plain load where the host
 * is little-endian (XXH64 reads its input so, and a probe hashes every
 * row), else a byte at a time.
 */
static inline uint64_t
xxh_read64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
#else
	return bf_load_le(p, 8);
#endif
}

static inline uint64_t
xxh_read32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
#else
	return bf_load_le(p, 4);
#endif
}

static inline uint64_t
xxh_rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t
xxh_round(uint64_t acc, uint64_t input)
{
	acc += input * XXH_P2;
	acc = xxh_rotl(acc, 31);
	return acc * XXH_P1;
}

static inline uint64_t
xxh_merge(uint64_t acc, uint64_t lane)
{
	acc ^= xxh_round(0, lane);
	return acc * XXH_P1 + XXH_P4;
}

/* XXH64's last steps: the avalanche */
static inline uint64_t
xxh_avalanche(uint64_t h)
{
	h ^= h >> 33;
	h *= XXH_P2;
	h ^= h >> 29;
	h *= XXH_P3;
	h ^= h >> 32;
	return h;
}

uint64_t
bf_parquet_xxh64_le64(uint64_t v, uint64_t seed)
{
	uint64_t h = seed + XXH_P5 + 8;

	h ^= xxh_round(0, v);
	return xxh_avalanche(xxh_rotl(h, 27) * XXH_P1 + XXH_P4);
}

uint64_t
bf_parquet_xxh64(const uint8_t *data, size_t len, uint64_t seed)
{
	size_t i = 0;
	uint64_t h;

	assert(data != NULL || len == 0);
	/*
	 * The INT64 and INT32 of a probe, every row: the steps the general loop
	 * below takes for 8 and 4 bytes, without its branches.
	 */
	if (len == 8)
		return bf_parquet_xxh64_le64(xxh_read64(data), seed);
	if (len == 4)
	{
		h = seed + XXH_P5 + 4;
		h ^= xxh_read32(data) * XXH_P1;
		return xxh_avalanche(xxh_rotl(h, 23) * XXH_P2 + XXH_P3);
	}
	if (len >= 32)
	{
		uint64_t v1 = seed + XXH_P1 + XXH_P2, v2 = seed + XXH_P2, v3 = seed, v4 = seed - XXH_P1;

		for (; i + 32 <= len; i += 32)
		{
			v1 = xxh_round(v1, xxh_read64(data + i));
			v2 = xxh_round(v2, xxh_read64(data + i + 8));
			v3 = xxh_round(v3, xxh_read64(data + i + 16));
			v4 = xxh_round(v4, xxh_read64(data + i + 24));
		}
		h = xxh_rotl(v1, 1) + xxh_rotl(v2, 7) + xxh_rotl(v3, 12) + xxh_rotl(v4, 18);
		h = xxh_merge(h, v1);
		h = xxh_merge(h, v2);
		h = xxh_merge(h, v3);
		h = xxh_merge(h, v4);
	}
	else
		h = seed + XXH_P5;
	h += (uint64_t) len;
	for (; i + 8 <= len; i += 8)
	{
		h ^= xxh_round(0, xxh_read64(data + i));
		h = xxh_rotl(h, 27) * XXH_P1 + XXH_P4;
	}
	if (i + 4 <= len)
	{
		h ^= xxh_read32(data + i) * XXH_P1;
		h = xxh_rotl(h, 23) * XXH_P2 + XXH_P3;
		i += 4;
	}
	for (; i < len; i++)
	{
		h ^= data[i] * XXH_P5;
		h = xxh_rotl(h, 11) * XXH_P1;
	}
	return xxh_avalanche(h);
}

/* ---- blocks ---- */

static const uint32_t parquet_salt[BF_PARQUET_K] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                                    0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                                    0x9efc4947U, 0x5c6bfb31U};

/* The first byte of the block of hash h in a bitset of nbytes bytes. */
static inline size_t
parquet_block(size_t nbytes, uint64_t h)
{
	uint64_t nblocks = nbytes / BF_PARQUET_BLOCK_BYTES;

	/* nblocks < 2^32 (at most 2^22 blocks), so the product fits */
	return (size_t) ((((h >> 32) * nblocks) >> 32) * BF_PARQUET_BLOCK_BYTES);
}

bool
bf_parquet_contains_hash(const uint8_t *bitset, size_t nbytes, uint64_t h)
{
	const uint8_t *block;
	uint32_t x = (uint32_t) h;

	assert(nbytes >= BF_PARQUET_BLOCK_BYTES && nbytes % BF_PARQUET_BLOCK_BYTES == 0);
	block = bitset + parquet_block(nbytes, h);
	for (int i = 0; i < BF_PARQUET_K; i++)
	{
		unsigned bit = (x * parquet_salt[i]) >> 27;

		if (!(block[4 * i + bit / 8] & (1u << (bit % 8))))
			return false;
	}
	return true;
}

void
bf_parquet_add_hash(uint8_t *bitset, size_t nbytes, uint64_t h)
{
	uint8_t *block;
	uint32_t x = (uint32_t) h;

	assert(nbytes >= BF_PARQUET_BLOCK_BYTES && nbytes % BF_PARQUET_BLOCK_BYTES == 0);
	block = bitset + parquet_block(nbytes, h);
	for (int i = 0; i < BF_PARQUET_K; i++)
	{
		unsigned bit = (x * parquet_salt[i]) >> 27;

		/* bit b of a little-endian 32-bit word is bit b % 8 of its byte b / 8 */
		block[4 * i + bit / 8] |= (uint8_t) (1u << (bit % 8));
	}
}

/* prefetch distance, in values, of bf_parquet_add_hashes (as bf_bits.c's, measured there) */
#define PARQUET_PREFETCH_AHEAD 16
#if defined(__GNUC__) || defined(__clang__)
#define PARQUET_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 0)
#else
#define PARQUET_PREFETCH_WRITE(p) ((void) (p))
#endif

void
bf_parquet_add_hashes(uint8_t *bitset, size_t nbytes, const uint64_t *hashes, size_t n)
{
	assert(nbytes >= BF_PARQUET_BLOCK_BYTES && nbytes % BF_PARQUET_BLOCK_BYTES == 0);
	/* the block of value i + AHEAD requested while value i's bits are set: misses overlap */
	for (size_t i = 0; i < n; i++)
	{
		if (i + PARQUET_PREFETCH_AHEAD < n)
			PARQUET_PREFETCH_WRITE(bitset +
			                       parquet_block(nbytes, hashes[i + PARQUET_PREFETCH_AHEAD]));
		bf_parquet_add_hash(bitset, nbytes, hashes[i]);
	}
}

/* ---- sizing ---- */

bool
bf_parquet_sizing(int64_t n, double fpp, size_t *nbytes)
{
	double m;
	int64_t bits;
	uint64_t bytes;

	if (!(fpp > 0.0 && fpp < 1.0) || n < 0)
		return false;
	/* optimalNumOfBits: m = -8 n / ln(1 - fpp^(1/8)), as a Java int, at most the upper bound */
	m = -8.0 * (double) n / log(1.0 - pow(fpp, 1.0 / 8.0));
	if (m < 0 || m > (double) BF_PARQUET_MAX_BYTES * 8)
		bits = (int64_t) BF_PARQUET_MAX_BYTES * 8;
	else
		bits = (int64_t) m;
	/*
	 * "rounded up to whole blocks" as parquet-java writes it:
	 * (numBits + BITS_PER_BLOCK - 1) & ~BITS_PER_BLOCK, which clears bit 8
	 * only (not bits 0 to 7); the power of two below makes up for it, but
	 * not always to the same size (n = 100 at 1 %: 256 bytes, where Arrow
	 * and DuckDB give 128).  Kept, to give parquet-java's bytes.
	 */
	bits = (bits + 255) & ~(int64_t) 256;
	if (bits < BF_PARQUET_MIN_BYTES * 8)
		bits = BF_PARQUET_MIN_BYTES * 8;
	/* BlockSplitBloomFilter(bits / 8): at least the lower bound, then up to a power of two */
	bytes = (uint64_t) bits / 8;
	if (bytes < BF_PARQUET_MIN_BYTES)
		bytes = BF_PARQUET_MIN_BYTES;
	if ((bytes & (bytes - 1)) != 0)
	{
		/* Integer.highestOneBit(bytes) << 1 */
		uint64_t p = 1;

		while (p <= bytes / 2)
			p <<= 1;
		bytes = p << 1;
	}
	if (bytes > BF_PARQUET_MAX_BYTES)
		bytes = BF_PARQUET_MAX_BYTES;
	*nbytes = (size_t) bytes;
	return true;
}
