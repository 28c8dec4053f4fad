/*
 * bf_guava.c
 *	  Guava's Bloom filter, as Guava computes it (bf_guava.h says what that
 *	  is): MurmurHash3 x64 128 (Austin Appleby's reference algorithm, seed
 *	  0, as Guava's Murmur3_128HashFunction), the positions of
 *	  MURMUR128_MITZ_64, its sizing and its bytes.
 */
#include "bf_guava.h"
#include "bf_hash.h"

#include <math.h>
#include <string.h>

#define GUAVA_C1 UINT64_C(0x87c37b91114253d5)
#define GUAVA_C2 UINT64_C(0x4cf5ad432745937f)

static inline uint64_t
rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

void
bf_guava_hash(const uint8_t *data, size_t len, uint64_t *h1_out, uint64_t *h2_out)
{
	uint64_t h1 = 0, h2 = 0, k1 = 0, k2 = 0;
	size_t blocks = len / 16;
	/* (no pointer arithmetic on NULL: the empty input has no tail) */
	const uint8_t *tail = len > 0 ? data + blocks * 16 : NULL;

	assert(data != NULL || len == 0);
	for (size_t i = 0; i < blocks; i++)
	{
		k1 = bf_load_le(data + 16 * i, 8);
		k2 = bf_load_le(data + 16 * i + 8, 8);
		k1 *= GUAVA_C1;
		k1 = rotl64(k1, 31);
		k1 *= GUAVA_C2;
		h1 ^= k1;
		h1 = rotl64(h1, 27);
		h1 += h2;
		h1 = h1 * 5 + 0x52dce729;
		k2 *= GUAVA_C2;
		k2 = rotl64(k2, 33);
		k2 *= GUAVA_C1;
		h2 ^= k2;
		h2 = rotl64(h2, 31);
		h2 += h1;
		h2 = h2 * 5 + 0x38495ab5;
	}
	/* the last len mod 16 bytes, little-endian into k1 (8) and k2 (the rest) */
	k1 = k2 = 0;
	for (size_t i = len % 16; i > 8; i--)
		k2 = (k2 << 8) | tail[i - 1];
	for (size_t i = len % 16 < 8 ? len % 16 : 8; i > 0; i--)
		k1 = (k1 << 8) | tail[i - 1];
	if (len % 16 > 8)
	{
		k2 *= GUAVA_C2;
		k2 = rotl64(k2, 33);
		k2 *= GUAVA_C1;
		h2 ^= k2;
	}
	if (len % 16 > 0)
	{
		k1 *= GUAVA_C1;
		k1 = rotl64(k1, 31);
		k1 *= GUAVA_C2;
		h1 ^= k1;
	}
	h1 ^= (uint64_t) len;
	h2 ^= (uint64_t) len;
	h1 += h2;
	h2 += h1;
	h1 = bf_fmix64(h1);
	h2 = bf_fmix64(h2);
	h1 += h2;
	h2 += h1;
	*h1_out = h1;
	*h2_out = h2;
}

/* ---- the serialized form ---- */

#define GUAVA_HEADER 6 /* strategy (1), k (1), the word count (4) */

size_t
bf_guava_size(uint64_t nwords)
{
	assert(nwords >= 1 && nwords <= BF_GUAVA_MAX_WORDS);
	return GUAVA_HEADER + (size_t) nwords * 8;
}

bool
bf_guava_read(const uint8_t *data, size_t len, bf_guava_view *view, bf_error *err)
{
	uint32_t nwords;

	if (len < GUAVA_HEADER)
		return bf_fail(err, BF_ERR_FORMAT, "a Guava filter takes at least %d bytes, not %zu",
		               GUAVA_HEADER, len);
	if (data[0] != BF_GUAVA_MITZ_64)
		return bf_fail(err, BF_ERR_VERSION,
		               "Guava strategy %d is not taken (1, MURMUR128_MITZ_64, is)",
		               (int8_t) data[0]);
	if (data[1] == 0)
		return bf_fail(err, BF_ERR_PARAM, "a Guava filter's number of hash functions is 0");
	nwords = bf_load_be32(data + 2);
	if (nwords < 1 || nwords > BF_GUAVA_MAX_WORDS)
		return bf_fail(err, BF_ERR_PARAM,
		               "a Guava filter's word count, %d, is not between 1 and %d", (int32_t) nwords,
		               BF_GUAVA_MAX_WORDS);
	if ((len - GUAVA_HEADER) % 8 != 0 || (len - GUAVA_HEADER) / 8 != nwords)
		return bf_fail(err, BF_ERR_FORMAT, "a Guava filter of %u words takes %zu bytes, not %zu",
		               nwords, GUAVA_HEADER + (size_t) nwords * 8, len);
	view->k = data[1];
	view->nwords = nwords;
	view->words = data + GUAVA_HEADER;
	view->recip = 0;
	return true;
}

/* Bit i of big-endian 64-bit words: bit i mod 64 of word i / 64. */
static inline size_t
byte_of(uint64_t i)
{
	return (size_t) ((i / 64) * 8 + 7 - (i % 64) / 8);
}

/* The k positions of (h1, h2) in m bits: set in into if given, else whether all are set in words. */
static bool
positions(int k, uint64_t m, uint64_t recip, uint64_t h1, uint64_t h2, const uint8_t *words,
          uint8_t *into)
{
	uint64_t c = h1;

	assert(k >= 1 && m >= 64);
	for (int i = 0; i < k; i++)
	{
		uint64_t at = bf_mod(c & INT64_MAX, m, recip);

		if (into != NULL)
			into[byte_of(at)] |= (uint8_t) (1u << (at % 8));
		else if (!((words[byte_of(at)] >> (at % 8)) & 1))
			return false;
		c += h2;
	}
	return true;
}

bool
bf_guava_contains(const bf_guava_view *view, const uint8_t *data, size_t len)
{
	uint64_t h1, h2;

	bf_guava_hash(data, len, &h1, &h2);
	return positions(view->k, view->nwords * 64, view->recip, h1, h2, view->words, NULL);
}

void
bf_guava_write_empty(uint8_t *out, int k, uint64_t nwords)
{
	assert(k >= 1 && k <= 255);
	out[0] = BF_GUAVA_MITZ_64;
	out[1] = (uint8_t) k;
	bf_store_be32(out + 2, (uint32_t) nwords);
	memset(out + GUAVA_HEADER, 0, (size_t) nwords * 8);
}

void
bf_guava_set(const bf_guava_view *view, uint8_t *words, const uint8_t *data, size_t len)
{
	uint64_t h1, h2;

	assert(words == view->words);
	bf_guava_hash(data, len, &h1, &h2);
	positions(view->k, view->nwords * 64, view->recip, h1, h2, NULL, words);
}

void
bf_guava_add(uint8_t *filter, const uint8_t *data, size_t len)
{
	bf_guava_view view = {filter[1], bf_load_be32(filter + 2), filter + GUAVA_HEADER, 0};

	bf_guava_set(&view, filter + GUAVA_HEADER, data, len);
}

bool
bf_guava_sizing(int64_t n, double fpp, int64_t *bits, int *k)
{
	double b, hashes;

	if (n < 0 || !(fpp > 0.0 && fpp < 1.0))
		return false;
	if (n == 0)
		n = 1;
	/* optimalNumOfBits: (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2))) */
	b = -(double) n * log(fpp) / (log(2.0) * log(2.0));
	/* (LockFreeBitArray refuses no bits, and more words than an int counts) */
	if (!(b >= 1.0) || ceil(b / 64.0) > (double) BF_GUAVA_MAX_WORDS)
		return false;
	*bits = (int64_t) b;
	/* optimalNumOfHashFunctions: max(1, (int) Math.round((double) m / n * Math.log(2))) */
	hashes = floor((double) *bits / (double) n * log(2.0) + 0.5);
	if (hashes > 255.0)
		return false;
	*k = hashes < 1.0 ? 1 : (int) hashes;
	return true;
}
