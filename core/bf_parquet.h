/*
 * bf_parquet.h
 *	  Apache Parquet's split block Bloom filter (parquet-format's
 *	  BloomFilter.md) as its writers compute it: XXH64, the blocks and their
 *	  salts, the sizing of parquet-java (parquet-mr), and the Thrift header
 *	  that precedes the bitset in a Parquet file.
 *
 * A value is hashed as its plain encoding (INT32 and INT64 little-endian,
 * FLOAT and DOUBLE their IEEE bytes little-endian, BYTE_ARRAY its bytes
 * without the length, FIXED_LEN_BYTE_ARRAY its bytes) by XXH64 under seed
 * 0.  The filter is z blocks of 256 bits, each eight 32-bit little-endian
 * words; a hash h chooses block ((h >> 32) * z) >> 32, and its low 32 bits
 * x one bit in each word i of the block: bit (x * salt[i] mod 2^32) >> 27.
 *
 * In a file the bitset follows a BloomFilterHeader in Thrift's compact
 * protocol: numBytes (field 1, i32), algorithm (2: the union's BLOCK),
 * hash (3: XXHASH), compression (4: UNCOMPRESSED), each union a field 1
 * holding an empty struct (bf_parquet_thrift.c reads and writes it; the
 * rest is bf_parquet.c's).
 *
 * This file knows Parquet's algorithm only: what a bloom value holding a
 * Parquet filter looks like is bf_format.h's.  The SQL layer turns a
 * value into its plain encoding.
 */
#ifndef BF_PARQUET_H
#define BF_PARQUET_H

#include "bf_util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BF_PARQUET_BLOCK_BYTES 32 /* 256 bits: eight 32-bit words */
#define BF_PARQUET_K 8            /* bits per value, one per word of its block */
/* parquet-java's bounds on a filter's bytes (BlockSplitBloomFilter's LOWER_ and UPPER_BOUND_BYTES) */
#define BF_PARQUET_MIN_BYTES 32
#define BF_PARQUET_MAX_BYTES (128 * 1024 * 1024)

/* XXH64 of data under seed (Yann Collet's xxHash, 64-bit); data may be NULL when len is 0. */
extern uint64_t bf_parquet_xxh64(const uint8_t *data, size_t len, uint64_t seed);

/* The same of v's 8 bytes little-endian (an INT64's plain encoding), from v itself. */
extern uint64_t bf_parquet_xxh64_le64(uint64_t v, uint64_t seed);

/*
 * Whether a bitset of nbytes bytes (a multiple of 32, at least 32) may hold
 * the value whose XXH64 is h; and setting its bits.
 */
extern bool bf_parquet_contains_hash(const uint8_t *bitset, size_t nbytes, uint64_t h);
extern void bf_parquet_add_hash(uint8_t *bitset, size_t nbytes, uint64_t h);

/*
 * bf_parquet_add_hash() for n hashes, faster for a bitset larger than the
 * CPU cache: the memory accesses of several values overlap.
 */
extern void bf_parquet_add_hashes(uint8_t *bitset, size_t nbytes, const uint64_t *hashes, size_t n);

/*
 * The bitset of a filter in Parquet's bytes: with the Thrift header
 * (*header_len its size, at most BF_PARQUET_MAX_HEADER), or bare (a
 * header of 0 bytes).  False, with err set, for a header that is not
 * Thrift's compact protocol (BF_ERR_FORMAT), that names another algorithm,
 * hash or compression than BLOCK, XXHASH and UNCOMPRESSED (BF_ERR_VERSION),
 * or a size that is not a multiple of 32 between the bounds or disagrees
 * with the bytes that follow (BF_ERR_FORMAT).  A bare bitset is any
 * multiple of 32 bytes between the bounds; with_header says which is read.
 */
#define BF_PARQUET_MAX_HEADER 64
extern bool bf_parquet_read(const uint8_t *data, size_t len, bool with_header, size_t *header_len,
                            size_t *nbytes, bf_error *err);

/*
 * Whether len bytes start with what can only be a Thrift header (its first
 * byte is numBytes's field header, 0x15), rather than a bitset: used when a
 * caller does not say which it has.  A bare bitset may begin with that byte
 * too: such a caller says so (with_header of bf_parquet_read).
 */
extern bool bf_parquet_looks_headed(const uint8_t *data, size_t len);

/* The header parquet-java writes for a bitset of nbytes bytes, into out (returns its length). */
extern size_t bf_parquet_write_header(uint8_t *out, size_t nbytes);

/*
 * parquet-java's sizing for n distinct values at rate fpp: the bytes of
 * new BlockSplitBloomFilter(optimalNumOfBits(n, fpp) / 8), a power of two
 * from BF_PARQUET_MIN_BYTES to BF_PARQUET_MAX_BYTES (its writer's default
 * cap of 1 MB is a setting of the writer, not of the filter).  False where
 * it refuses (fpp outside (0, 1), n < 0).
 */
extern bool bf_parquet_sizing(int64_t n, double fpp, size_t *nbytes);

#endif /* BF_PARQUET_H */
