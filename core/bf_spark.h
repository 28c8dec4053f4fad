/*
 * bf_spark.h
 *	  Apache Spark's Bloom filter (org.apache.spark.util.sketch.BloomFilter)
 *	  as Spark computes it: its hash, its bit positions, its sizing, and its
 *	  serialized form (BloomFilter.writeTo / readFrom), versions 1 and 2.
 *
 * Spark hashes a value with its own Murmur3 x86 32-bit: a long as two
 * 32-bit halves (hashLong), bytes in 4-byte little-endian words and then
 * each remaining byte alone, sign-extended (hashUnsafeBytes: not the
 * reference tail).  h1 is the hash under the filter's seed (always 0 in
 * version 1), h2 the hash under h1.  Its k positions:
 *	 version 1: for i = 1..k, c = h1 + i * h2 in 32-bit arithmetic, ~c if
 *				negative, position c mod m (so never past 2^31 - 1: the
 *				version's flaw at scale, which version 2 fixes);
 *	 version 2: c = h1 * (2^31 - 1) in 64 bits, then for each of the k
 *				positions c += h2, position (c < 0 ? ~c : c) mod m.
 * A String is hashed as its UTF-8 bytes (putString), bytes as they are
 * (putBinary), every integral type as a long (putLong).
 *
 * The serialized form is big-endian: version (4), k (4), in version 2 the
 * seed (4), the number of 64-bit words (4), then the words; m is 64 times
 * the words, and bit i is bit i mod 64 of word i / 64.
 *
 * This file knows Spark's algorithms only: what a bloom value holding a
 * Spark filter looks like is bf_format.h's.  Checked against Spark's own
 * classes (tests/unit/makers/, made by Spark.java of ../shared/interop).
 */
#ifndef BF_SPARK_H
#define BF_SPARK_H

#include "bf_util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BF_SPARK_V1 1
#define BF_SPARK_V2 2

/* Spark's Murmur3_x86_32.hashLong(v, seed). */
extern int32_t bf_spark_hash_long(int64_t v, int32_t seed);

/* Spark's Murmur3_x86_32.hashUnsafeBytes(data, len, seed); data may be NULL when len is 0. */
extern int32_t bf_spark_hash_bytes(const uint8_t *data, size_t len, int32_t seed);

/*
 * A Spark filter's serialized bytes, read (bf_spark_read): its words stay
 * where they are, big-endian.
 */
typedef struct bf_spark_view
{
	int version;          /* BF_SPARK_V1 or BF_SPARK_V2 */
	int32_t k;            /* positions per value, >= 1 */
	int32_t seed;         /* version 2's; 0 in version 1 */
	uint64_t nwords;      /* 64-bit words, >= 1 */
	const uint8_t *words; /* nwords big-endian words */
	uint64_t recip;       /* bf_mod_recip of its bits, for probes without a division; or 0 */
} bf_spark_view;

/* The serialized size of a filter of nwords words, by version. */
extern size_t bf_spark_size(int version, uint64_t nwords);

/* k at most: Spark takes any k its sizing gives; past this a probe would cost too much */
#define BF_SPARK_MAX_K 1024
/* words at most: Spark's BitArray holds at most 2^31 - 1 */
#define BF_SPARK_MAX_WORDS INT32_MAX

/*
 * Read len bytes of a Spark filter into *view (which points into data).
 * False, with err set, where Spark's readFrom would fail or the filter
 * could not be Spark's: a version other than 1 and 2 (BF_ERR_VERSION); k
 * outside 1 to BF_SPARK_MAX_K, or a word count outside 1 to
 * BF_SPARK_MAX_WORDS (BF_ERR_PARAM); fewer or more bytes than the header
 * says (BF_ERR_FORMAT).
 */
extern bool bf_spark_read(const uint8_t *data, size_t len, bf_spark_view *view, bf_error *err);

/*
 * Whether the filter may hold the value, as Spark's mightContainLong and
 * mightContainBinary answer (mightContainString: the string's UTF-8).
 */
extern bool bf_spark_contains_long(const bf_spark_view *view, int64_t v);
extern bool bf_spark_contains_bytes(const bf_spark_view *view, const uint8_t *data, size_t len);

/*
 * Write an empty filter of nwords words into out (bf_spark_size bytes),
 * and add values to one written so (out points at its serialized bytes,
 * changed in place), as Spark's putLong and putBinary.
 */
extern void bf_spark_write_empty(uint8_t *out, int version, int32_t k, int32_t seed,
                                 uint64_t nwords);
extern void bf_spark_add_long(uint8_t *filter, int64_t v);
extern void bf_spark_add_bytes(uint8_t *filter, const uint8_t *data, size_t len);

/*
 * The same for a filter whose words are kept apart from Spark's header (a
 * bloom value's data): words is view->words, writable.
 */
extern void bf_spark_set_long(const bf_spark_view *view, uint8_t *words, int64_t v);
extern void bf_spark_set_bytes(const bf_spark_view *view, uint8_t *words, const uint8_t *data,
                               size_t len);

/*
 * Spark's sizing of BloomFilter.create(n, fpp): optimalNumOfBits(n, fpp)
 * bits asked (*bits; the filter has ceil(bits / 64) words), and
 * optimalNumOfHashFunctions(n, bits) positions (*k).  False where Spark
 * refuses (n < 1, fpp outside (0, 1), no bits, more than 2^31 - 1 words),
 * and where k would pass BF_SPARK_MAX_K.
 */
extern bool bf_spark_sizing(int64_t n, double fpp, int64_t *bits, int32_t *k);

#endif /* BF_SPARK_H */
