/*
 * bf_spark.c
 *	  Apache Spark's Bloom filter, as Spark computes it (bf_spark.h says
 *	  what that is).  Java's int arithmetic wraps, its shifts take the
 *	  count mod 64, and its byte is signed: each is written out here, in
 *	  unsigned arithmetic where C's signed overflow would be undefined.
 */
#include "bf_spark.h"

#include <math.h>
#include <string.h>

#define SPARK_C1 0xcc9e2d51u
#define SPARK_C2 0x1b873593u

static inline uint32_t
rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

/* Murmur3_x86_32.mixK1 */
static inline uint32_t
mix_k1(uint32_t k1)
{
	k1 *= SPARK_C1;
	k1 = rotl32(k1, 15);
	return k1 * SPARK_C2;
}

/* Murmur3_x86_32.mixH1 */
static inline uint32_t
mix_h1(uint32_t h1, uint32_t k1)
{
	h1 ^= k1;
	h1 = rotl32(h1, 13);
	return h1 * 5u + 0xe6546b64u;
}

/* Murmur3_x86_32.fmix (length: Java's int, the bytes hashed) */
static inline uint32_t
fmix(uint32_t h1, uint32_t length)
{
	h1 ^= length;
	h1 ^= h1 >> 16;
	h1 *= 0x85ebca6bu;
	h1 ^= h1 >> 13;
	h1 *= 0xc2b2ae35u;
	h1 ^= h1 >> 16;
	return h1;
}

int32_t
bf_spark_hash_long(int64_t v, int32_t seed)
{
	uint64_t u = (uint64_t) v;
	uint32_t h1 = mix_h1((uint32_t) seed, mix_k1((uint32_t) u));

	h1 = mix_h1(h1, mix_k1((uint32_t) (u >> 32)));
	return (int32_t) fmix(h1, 8);
}

int32_t
bf_spark_hash_bytes(const uint8_t *data, size_t len, int32_t seed)
{
	size_t aligned = len - len % 4;
	uint32_t h1 = (uint32_t) seed;

	assert(data != NULL || len == 0);
	for (size_t i = 0; i < aligned; i += 4)
		h1 = mix_h1(h1, mix_k1((uint32_t) bf_load_le(data + i, 4)));
	/* each byte left alone, sign-extended as Java's byte is */
	for (size_t i = aligned; i < len; i++)
		h1 = mix_h1(h1, mix_k1((uint32_t) (int32_t) (int8_t) data[i]));
	/* (Java's length is an int: a byte[] holds at most 2^31 - 1) */
	return (int32_t) fmix(h1, (uint32_t) len);
}

/* ---- the serialized form ---- */

/* Bytes before the words: version, k, (version 2) seed, the word count. */
static size_t
header_size(int version)
{
	return version == BF_SPARK_V1 ? 12 : 16;
}

size_t
bf_spark_size(int version, uint64_t nwords)
{
	assert(version == BF_SPARK_V1 || version == BF_SPARK_V2);
	assert(nwords >= 1 && nwords <= BF_SPARK_MAX_WORDS);
	return header_size(version) + (size_t) nwords * 8;
}

bool
bf_spark_read(const uint8_t *data, size_t len, bf_spark_view *view, bf_error *err)
{
	uint32_t version, k, nwords;
	size_t at;

	if (len < 4)
		return bf_fail(err, BF_ERR_FORMAT, "a Spark filter takes at least 4 bytes, not %zu", len);
	version = bf_load_be32(data);
	if (version != BF_SPARK_V1 && version != BF_SPARK_V2)
		return bf_fail(err, BF_ERR_VERSION, "Spark filter version %u is not known (1 and 2 are)",
		               version);
	if (len < header_size((int) version))
		return bf_fail(err, BF_ERR_FORMAT,
		               "a Spark version %u filter takes at least %zu bytes, not %zu", version,
		               header_size((int) version), len);
	k = bf_load_be32(data + 4);
	if (k < 1 || k > BF_SPARK_MAX_K)
		return bf_fail(err, BF_ERR_PARAM,
		               "a Spark filter's number of hash functions, %d, is not between 1 and %d",
		               (int32_t) k, BF_SPARK_MAX_K);
	at = 8;
	view->seed = 0;
	if (version == BF_SPARK_V2)
	{
		view->seed = (int32_t) bf_load_be32(data + at);
		at += 4;
	}
	nwords = bf_load_be32(data + at);
	at += 4;
	if (nwords < 1 || nwords > BF_SPARK_MAX_WORDS)
		return bf_fail(err, BF_ERR_PARAM,
		               "a Spark filter's word count, %d, is not between 1 and %d", (int32_t) nwords,
		               BF_SPARK_MAX_WORDS);
	if ((len - at) / 8 != nwords || (len - at) % 8 != 0)
		return bf_fail(err, BF_ERR_FORMAT, "a Spark filter of %u words takes %zu bytes, not %zu",
		               nwords, at + (size_t) nwords * 8, len);
	view->version = (int) version;
	view->k = (int32_t) k;
	view->nwords = nwords;
	view->words = data + at;
	view->recip = 0;
	return true;
}

/* Bit i of big-endian 64-bit words: bit i mod 64 of word i / 64. */
static inline bool
get_bit(const uint8_t *words, uint64_t i)
{
	return (words[(i / 64) * 8 + 7 - (i % 64) / 8] >> (i % 8)) & 1;
}

static inline void
set_bit(uint8_t *words, uint64_t i)
{
	words[(i / 64) * 8 + 7 - (i % 64) / 8] |= (uint8_t) (1u << (i % 8));
}

/*
 * The k positions of (h1, h2) in a filter of m bits, by version: set in
 * into when it is given; otherwise whether every one is set in words.
 */
static bool
positions(int version, int32_t k, uint64_t m, uint64_t recip, int32_t h1, int32_t h2,
          const uint8_t *words, uint8_t *into)
{
	uint64_t c;

	assert(k >= 1 && m >= 64);
	/* version 2: (long) h1 * Integer.MAX_VALUE, then + h2 before each position, wrapping */
	c = (uint64_t) ((int64_t) h1 * INT32_MAX);
	for (int32_t i = 1; i <= k; i++)
	{
		uint64_t at;

		if (version == BF_SPARK_V1)
		{
			/* int combined = h1 + i * h2, wrapping */
			int32_t c1 = (int32_t) ((uint32_t) h1 + (uint32_t) i * (uint32_t) h2);

			at = bf_mod((uint64_t) (c1 < 0 ? ~c1 : c1), m, recip);
		}
		else
		{
			int64_t c2;

			c += (uint64_t) (int64_t) h2;
			c2 = (int64_t) c;
			at = bf_mod((uint64_t) (c2 < 0 ? ~c2 : c2), m, recip);
		}
		if (into != NULL)
			set_bit(into, at);
		else if (!get_bit(words, at))
			return false;
	}
	return true;
}

bool
bf_spark_contains_long(const bf_spark_view *view, int64_t v)
{
	int32_t h1 = bf_spark_hash_long(v, view->seed);

	return positions(view->version, view->k, view->nwords * 64, view->recip, h1,
	                 bf_spark_hash_long(v, h1), view->words, NULL);
}

bool
bf_spark_contains_bytes(const bf_spark_view *view, const uint8_t *data, size_t len)
{
	int32_t h1 = bf_spark_hash_bytes(data, len, view->seed);

	return positions(view->version, view->k, view->nwords * 64, view->recip, h1,
	                 bf_spark_hash_bytes(data, len, h1), view->words, NULL);
}

void
bf_spark_write_empty(uint8_t *out, int version, int32_t k, int32_t seed, uint64_t nwords)
{
	size_t at = 8;

	assert(k >= 1 && k <= BF_SPARK_MAX_K);
	bf_store_be32(out, (uint32_t) version);
	bf_store_be32(out + 4, (uint32_t) k);
	if (version == BF_SPARK_V2)
	{
		bf_store_be32(out + at, (uint32_t) seed);
		at += 4;
	}
	else
		assert(seed == 0);
	bf_store_be32(out + at, (uint32_t) nwords);
	memset(out + at + 4, 0, (size_t) nwords * 8);
}

/* The filter written at filter (by bf_spark_write_empty), read back; its words are writable. */
static uint8_t *
view_of(uint8_t *filter, bf_spark_view *view)
{
	int version = (int) bf_load_be32(filter);
	size_t at = version == BF_SPARK_V1 ? 8 : 12;

	view->version = version;
	view->k = (int32_t) bf_load_be32(filter + 4);
	view->seed = version == BF_SPARK_V1 ? 0 : (int32_t) bf_load_be32(filter + 8);
	view->nwords = bf_load_be32(filter + at);
	view->words = filter + at + 4;
	view->recip = 0;
	return filter + at + 4;
}

void
bf_spark_set_long(const bf_spark_view *view, uint8_t *words, int64_t v)
{
	int32_t h1 = bf_spark_hash_long(v, view->seed);

	assert(words == view->words);
	positions(view->version, view->k, view->nwords * 64, view->recip, h1, bf_spark_hash_long(v, h1),
	          NULL, words);
}

void
bf_spark_set_bytes(const bf_spark_view *view, uint8_t *words, const uint8_t *data, size_t len)
{
	int32_t h1 = bf_spark_hash_bytes(data, len, view->seed);

	assert(words == view->words);
	positions(view->version, view->k, view->nwords * 64, view->recip, h1,
	          bf_spark_hash_bytes(data, len, h1), NULL, words);
}

void
bf_spark_add_long(uint8_t *filter, int64_t v)
{
	bf_spark_view view;
	uint8_t *words = view_of(filter, &view);

	bf_spark_set_long(&view, words, v);
}

void
bf_spark_add_bytes(uint8_t *filter, const uint8_t *data, size_t len)
{
	bf_spark_view view;
	uint8_t *words = view_of(filter, &view);

	bf_spark_set_bytes(&view, words, data, len);
}

bool
bf_spark_sizing(int64_t n, double fpp, int64_t *bits, int32_t *k)
{
	double b, hashes;

	if (n < 1 || !(fpp > 0.0 && fpp < 1.0))
		return false;
	/* optimalNumOfBits: (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2))) */
	b = -(double) n * log(fpp) / (log(2.0) * log(2.0));
	if (!(b >= 1.0) || b >= 64.0 * (double) BF_SPARK_MAX_WORDS)
		return false;
	*bits = (int64_t) b;
	/* optimalNumOfHashFunctions: max(1, (int) Math.round((double) m / n * Math.log(2))) */
	hashes = floor((double) *bits / (double) n * log(2.0) + 0.5);
	*k = hashes < 1.0 ? 1 : hashes > (double) INT32_MAX ? INT32_MAX : (int32_t) hashes;
	/* (a k past BF_SPARK_MAX_K is Spark's, but not one this file takes) */
	return *k <= BF_SPARK_MAX_K;
}
