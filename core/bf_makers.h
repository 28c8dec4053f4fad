/*
 * bf_makers.h
 *	  Other makers' filters as bloom values (layouts spark, guava and
 *	  parquet of bf_format.h): reading a maker's serialized bytes into one,
 *	  writing one back in them, and probing and adding values exactly as the
 *	  maker does.  The dispatch over bf_spark.h, bf_guava.h and bf_parquet.h.
 *
 * A value reaches these functions as the bytes its element key's encoding
 * gives (bf_maker_key: "spark:int8" a long's 8 bytes little-endian,
 * "parquet:text" the UTF-8 bytes, ...): the PostgreSQL layer (or a
 * client) turns an SQL value into them.
 */
#ifndef BF_MAKERS_H
#define BF_MAKERS_H

#include "bf_format.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Another maker's element keys: how a value becomes the bytes its maker
 * hashes.  width: the bytes of every value (a fixed-size encoding: 4 or 8,
 * 16 for a UUID), or 0 for any length.  The SQL layer turns an SQL value
 * into those bytes; the functions below hash them as the maker does.
 * The table of keys is the format's: bf_format.c checks them.
 */
typedef struct bf_maker_key
{
	const char *name; /* "spark:int8" */
	uint8_t layout;
	uint8_t width;
} bf_maker_key;

/* The key named elem[0 .. len) of the layout, or NULL if it has none of that name. */
extern const bf_maker_key *bf_maker_key_find(uint8_t layout, const char *elem, size_t len);

/* The makers' serialized forms bf_maker_read() and bf_maker_write() know. */
typedef enum bf_maker_form
{
	BF_FORM_SPARK,          /* BloomFilter.writeTo of Spark, version 1 or 2 */
	BF_FORM_GUAVA,          /* BloomFilter.writeTo of Guava */
	BF_FORM_PARQUET,        /* a Parquet file's: the Thrift header, then the bitset */
	BF_FORM_PARQUET_BITSET, /* the bitset alone */
} bf_maker_form;

/*
 * Read a maker's serialized bytes: the shape of the bloom value that holds
 * them (*p) and where its bits start in data (*bits, m / 8 bytes).  For
 * BF_FORM_PARQUET, bytes that are not a header and its bitset, whose length
 * is a multiple of 32 and whose first byte is not a header's
 * (bf_parquet_looks_headed), are read as a bare bitset; BF_FORM_PARQUET_BITSET
 * reads any bytes so.  False, with err
 * set, for bytes the maker's own reader would refuse, or that this
 * project cannot hold (bf_format.h's bounds: BF_ERR_TOO_LARGE or
 * BF_ERR_PARAM).
 */
extern bool bf_maker_read(bf_maker_form form, const uint8_t *data, size_t len, bf_params *p,
                          const uint8_t **bits, bf_error *err);

/* Bytes of a maker's filter (view) written in form; 0 if the form is not its maker's. */
extern size_t bf_maker_write_size(const bf_view *view, bf_maker_form form);

/* Write it there (out holds bf_maker_write_size() bytes, not 0). */
extern void bf_maker_write(const bf_view *view, bf_maker_form form, uint8_t *out);

/*
 * Whether the filter may hold the value whose encoding is in[0 .. len), as
 * the maker's probe answers; and adding it, as the maker's put does.  len
 * is the key's width when it has one.
 */
extern bool bf_maker_contains(const bf_view *view, const uint8_t *in, size_t len);
extern void bf_maker_add(bf_view *view, const uint8_t *in, size_t len);

/*
 * For many probes of one filter: bf_maker_recip() computes, once, what
 * lets Spark's and Guava's positions be found without a division (their
 * "mod m", on every probe's path: bf_mod of bf_util.h); the probes below
 * take it (or 0: divide), and answer as bf_maker_contains().
 */
extern uint64_t bf_maker_recip(const bf_view *view);
extern bool bf_maker_contains_recip(const bf_view *view, uint64_t recip, const uint8_t *in,
                                    size_t len);

/*
 * bf_maker_contains() of a long whose encoding is its 8 bytes little-endian
 * (the keys spark:int8, guava:int8, parquet:int8): the same answer, with
 * Spark's hashLong taking the long as it is (a probe per row).
 */
extern bool bf_maker_contains_long(const bf_view *view, uint64_t recip, int64_t v);

/*
 * For a caller that adds values in batches (an aggregate): whether the
 * layout's values reduce to one 64-bit hash each (Parquet's XXH64; Spark's
 * and Guava's do not), that hash, and adding n such hashes at once (their
 * memory accesses overlapping).  bf_maker_add(in) is
 * bf_maker_add_hashes(bf_maker_hash(in)).
 */
extern bool bf_maker_hashes_one(uint8_t layout);
extern uint64_t bf_maker_hash(const bf_view *view, const uint8_t *in, size_t len);
extern void bf_maker_add_hashes(bf_view *view, const uint64_t *hashes, size_t n);

/*
 * The makers' sizing for n values at rate fpp, as a new bloom value's
 * shape: Spark's BloomFilter.create(n, fpp) (version 2 with seed 0, or
 * version 1), Guava's create(funnel, n, fpp), parquet-java's
 * BlockSplitBloomFilter(optimalNumOfBits(n, fpp) / 8).  layout is one of
 * the makers'; scheme picks Spark's version.  False, with err set
 * (BF_ERR_PARAM or BF_ERR_TOO_LARGE), where the maker refuses or the
 * filter would not fit in a bloom value.
 */
extern bool bf_maker_sizing(uint8_t layout, uint8_t scheme, int64_t n, double fpp, bf_params *p,
                            bf_error *err);

/*
 * The rate at which a Parquet split block filter whose blocks hold lambda
 * values each on average passes a value it does not hold: each block's
 * values are Poisson(lambda), and a value not held passes a block of i if
 * each of its eight bits (one per 32-bit word) is among theirs,
 * (1 - (31/32)^i)^8.  Estimate lambda from the fill f of the bits:
 * -32 ln(1 - f).  Exp(-lambda) underflows past lambda ~ 745; such a filter
 * is saturated long before.
 */
extern double bf_parquet_fpp(double lambda);

/*
 * A string's UTF-16 code units, little-endian (Guava's
 * unencodedCharsFunnel), from its UTF-8: out holds 2 len bytes; returns the
 * bytes written, or -1 (writing nothing sure) if utf8 is not valid UTF-8.
 */
extern long bf_utf8_to_utf16le(const uint8_t *utf8, size_t len, uint8_t *out);

#endif /* BF_MAKERS_H */
