/*
 * bf_guava.h
 *	  Guava's Bloom filter (com.google.common.hash.BloomFilter) as Guava
 *	  computes it: strategy MURMUR128_MITZ_64, its sizing, and its
 *	  serialized form (writeTo / readFrom).
 *
 * Guava hashes the bytes a funnel gives for a value with MurmurHash3
 * x64 128 under seed 0 (the reference algorithm); longFunnel gives a long's
 * 8 bytes little-endian, integerFunnel an int's 4, stringFunnel(UTF_8) the
 * UTF-8 bytes, unencodedCharsFunnel each UTF-16 code unit's 2 bytes
 * little-endian, byteArrayFunnel the bytes.  The funnel is not in the
 * serialized bytes: a reader must know it.  h1 and h2 are the hash's first
 * and last 8 bytes, little-endian; the k positions are, from c = h1 and
 * adding h2 after each, (c & (2^63 - 1)) mod m.
 *
 * The serialized form is big-endian: the strategy's ordinal (1 byte:
 * MURMUR128_MITZ_64 is 1), k (1 byte, unsigned), the number of 64-bit words
 * (4), then the words; m is 64 times the words, and bit i is bit i mod 64
 * of word i / 64.  Strategy 0 (MURMUR128_MITZ_32, Guava's first) is
 * refused: no vector of it has been made here.
 *
 * This file knows Guava's algorithm only: what a bloom value holding a
 * Guava filter looks like is bf_format.h's.  Checked against Guava itself
 * (tests/unit/makers/, made by Guava.java of ../shared/interop).
 */
#ifndef BF_GUAVA_H
#define BF_GUAVA_H

#include "bf_util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BF_GUAVA_MITZ_64 1           /* the strategy's ordinal */
#define BF_GUAVA_MAX_WORDS INT32_MAX /* a Java array's length at most */

/* MurmurHash3 x64 128 of data under seed 0: its first 8 bytes (*h1) and last 8 (*h2), little-endian. */
extern void bf_guava_hash(const uint8_t *data, size_t len, uint64_t *h1, uint64_t *h2);

/* A Guava filter's serialized bytes, read: its words stay where they are, big-endian. */
typedef struct bf_guava_view
{
	int k;                /* positions per value, 1 to 255 */
	uint64_t nwords;      /* 64-bit words, >= 1 */
	const uint8_t *words; /* nwords big-endian words */
	uint64_t recip;       /* bf_mod_recip of its bits, for probes without a division; or 0 */
} bf_guava_view;

/* The serialized size of a filter of nwords words. */
extern size_t bf_guava_size(uint64_t nwords);

/*
 * Read len bytes of a Guava filter into *view (which points into data).
 * False, with err set, where Guava's readFrom would fail or the filter
 * could not be Guava's: another strategy than MURMUR128_MITZ_64
 * (BF_ERR_VERSION), k of 0 or no words (BF_ERR_PARAM), fewer or more bytes
 * than the header says (BF_ERR_FORMAT).
 */
extern bool bf_guava_read(const uint8_t *data, size_t len, bf_guava_view *view, bf_error *err);

/* Whether the filter may hold the value whose funnel gave data, as mightContain answers. */
extern bool bf_guava_contains(const bf_guava_view *view, const uint8_t *data, size_t len);

/*
 * Write an empty filter of nwords words into out (bf_guava_size bytes),
 * and add a value (its funnel's bytes) to one written so, in place.
 */
extern void bf_guava_write_empty(uint8_t *out, int k, uint64_t nwords);
extern void bf_guava_add(uint8_t *filter, const uint8_t *data, size_t len);

/* The same for words kept apart from Guava's header: words is view->words, writable. */
extern void bf_guava_set(const bf_guava_view *view, uint8_t *words, const uint8_t *data,
                         size_t len);

/*
 * Guava's sizing of BloomFilter.create(funnel, n, fpp): optimalNumOfBits
 * (*bits; the filter has ceil(bits / 64) words) and
 * optimalNumOfHashFunctions (*k).  False where Guava refuses (n < 0, fpp
 * outside (0, 1), more words than an array holds) or k would pass 255,
 * which its format cannot hold.  n of 0 is sized as 1, as Guava does.
 */
extern bool bf_guava_sizing(int64_t n, double fpp, int64_t *bits, int *k);

#endif /* BF_GUAVA_H */
