/*
 * bf_core.h
 *	  The PostgreSQL-free core of the bloomfilter extension.
 *
 * A Bloom filter is an array of m bits and k hash positions per value.  A
 * value is added by setting its k bits; it is reported as possibly present
 * when all k bits are set.  There are no false negatives; the rate of false
 * positives depends on m, k and the number of distinct values added.
 *
 * This library knows nothing of SQL types.  It receives one 64-bit hash per
 * value (the PostgreSQL layer computes it with the type's extended hash
 * function, so that values equal under the type's "=" hash alike) and owns
 * everything else: the serialized format, the derivation of bit positions,
 * the sizing formulas and the text form.  It never allocates: callers ask for
 * the size they need and pass a buffer.  Every function that reads a
 * serialized filter assumes bf_check_header() accepted it first.
 *
 * Serialized format (all integers little-endian; "payload" means the bytes
 * after PostgreSQL's varlena length word):
 *
 *	offset	size	field
 *	0		4		magic, the bytes 'B' 'L' 'O' 'M'
 *	4		1		format version (1)
 *	5		1		layout (1 = classic: one array of m bits)
 *	6		1		hash scheme (1, see bf_hash.c)
 *	7		1		flags, reserved, must be 0
 *	8		2		k, number of hash positions per value (1..BF_MAX_HASHES)
 *	10		2		length of the element key (0..BF_MAX_ELEM_LEN)
 *	12		8		hash seed
 *	20		8		m, number of bits (1..BF_MAX_BITS)
 *	28		8		number of values added, duplicates included (0..2^63-1)
 *	36		e		element key: which values the filter holds (see below)
 *	36+e	ceil(m/8)	the bits; bit i is bit (i % 8) of byte i / 8;
 *					bits at positions >= m must be 0
 *
 * The element key names the hash operator family (and, for a
 * nondeterministic collation, the collation) that hashed the values, such
 * as "pg_catalog.integer_ops".  It is empty until the
 * first value is added.  It holds no control characters.  Nothing follows the
 * bits.
 */
#ifndef BF_CORE_H
#define BF_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BF_MAGIC_0 'B'
#define BF_MAGIC_1 'L'
#define BF_MAGIC_2 'O'
#define BF_MAGIC_3 'M'
#define BF_VERSION 1
#define BF_LAYOUT_CLASSIC 1
#define BF_SCHEME_PGHASH_EDH 1
#define BF_HEADER_SIZE 36

#define BF_MAX_HASHES 64
#define BF_MAX_ELEM_LEN 255

/*
 * The largest serialized value: PostgreSQL's varlena limit (1 GB - 1,
 * including its 4-byte length word).  BF_MAX_BITS leaves room for the header
 * and the longest element key, so that any m up to it always fits.
 */
#define BF_MAX_VARLENA 0x3FFFFFFFu
#define BF_MAX_PAYLOAD (BF_MAX_VARLENA - 4u)
#define BF_MAX_BITS ((uint64_t) (BF_MAX_PAYLOAD - BF_HEADER_SIZE - BF_MAX_ELEM_LEN) * 8u)

/* Result codes.  The SQL layer maps each to an SQLSTATE. */
typedef enum bf_status
{
	BF_OK = 0,
	BF_ERR_FORMAT,   /* malformed: bad magic, truncated, bad syntax */
	BF_ERR_VERSION,  /* a version, layout or scheme this build does not know */
	BF_ERR_PARAM,    /* a parameter out of its range (m, k, n, fpp) */
	BF_ERR_TOO_LARGE /* the filter would exceed BF_MAX_BITS / 1 GB */
} bf_status;

/* Error detail: a status and a human-readable message. */
typedef struct bf_error
{
	bf_status status;
	char message[160];
} bf_error;

/* The parameters that define a filter's shape; two filters can be combined
 * only if all of these are equal. */
typedef struct bf_params
{
	uint8_t layout;
	uint8_t scheme;
	uint16_t nhashes;
	uint64_t seed;
	uint64_t nbits;
} bf_params;

/*
 * A decoded view of a serialized filter.  Pointers point into the buffer it
 * was read from; nothing is copied.
 */
typedef struct bf_view
{
	bf_params p;
	uint8_t version;
	uint64_t nadded;
	const char *elem;
	size_t elemlen;
	uint8_t *bits;
	size_t nbytes; /* ceil(nbits / 8) */
} bf_view;

/* ---- format (bf_format.c) ---- */

/* Bytes of the bit array for m bits. */
extern size_t bf_bits_bytes(uint64_t nbits);

/* Check parameters for a new filter; fills err and returns false if bad. */
extern bool bf_params_check(const bf_params *p, size_t elemlen, bf_error *err);

/* Payload size of a filter with these parameters and element key length. */
extern size_t bf_payload_size(const bf_params *p, size_t elemlen);

/*
 * Write an empty filter (header, element key, zero bits) into buf, which must
 * hold bf_payload_size() bytes.  Parameters must have passed
 * bf_params_check().
 */
extern void bf_init(uint8_t *buf, const bf_params *p, const char *elem, size_t elemlen,
                    uint64_t nadded);

/*
 * Validate the header of a serialized filter of len bytes and, on success,
 * fill view.  O(1): it checks every header field and that len is exactly the
 * size the header implies, but does not look at the bits.
 */
extern bool bf_check_header(const uint8_t *buf, size_t len, bf_view *view, bf_error *err);

/*
 * Validate the bits of a filter whose header passed: no bit at or beyond m
 * is set, the element key is present exactly when values were added, and no
 * more bits are set than k times the values added.  bits_set is the
 * popcount of the whole array (callers compute it in chunks, see
 * bf_popcount).
 */
extern bool bf_check_bits(const bf_view *view, uint64_t bits_set, bf_error *err);

/* Write the count of values added back into a serialized filter. */
extern void bf_set_nadded(uint8_t *buf, uint64_t nadded);

/* Whether a and b have the same shape (layout, scheme, k, seed, m). */
extern bool bf_params_equal(const bf_params *a, const bf_params *b);

/* Whether the byte string is a valid element key. */
extern bool bf_elem_valid(const char *elem, size_t len);

/* ---- hashing to positions and the bit operations (bf_filter.c) ---- */

/*
 * The k bit positions of a value whose 64-bit hash is h, written to pos
 * (which holds at least p->nhashes entries).
 */
extern void bf_positions(const bf_params *p, uint64_t h, uint64_t *pos);

/* Set the bits of a value; returns true if any bit changed. */
extern bool bf_add_hash(bf_view *view, uint64_t h);

/* Whether all k bits of the value are set. */
extern bool bf_contains_hash(const bf_view *view, uint64_t h);

/* Set / test explicit positions (used by the worked examples in tests). */
extern void bf_set_bit(bf_view *view, uint64_t pos);
extern bool bf_test_bit(const bf_view *view, uint64_t pos);

/* Number of set bits in bytes [from, to) of the bit array. */
extern uint64_t bf_popcount(const bf_view *view, size_t from, size_t to);

/* OR bytes [from, to) of src into dst (same shape, checked by caller). */
extern void bf_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/* ---- sizing math (bf_sizing.c) ---- */

/*
 * Expected false-positive rate after n distinct values in a filter of m bits
 * and k hashes: (1 - (1 - 1/m)^(kn))^k, the exact form of the classic
 * formula (its approximation is (1 - e^(-kn/m))^k).
 */
extern double bf_fpp(double n, double nbits, double nhashes);

/* The integer k in [1, BF_MAX_HASHES] that minimizes bf_fpp(n, m, k). */
extern int bf_optimal_hashes(double n, double nbits);

/*
 * Smallest m (and its best k) whose expected rate after n values is at most
 * fpp.  Starts from the classic optimum m = -n ln(fpp) / (ln 2)^2 and rounds
 * up until the integer k still meets the target.  Fails with BF_ERR_PARAM for
 * n < 1 or fpp outside (0, 1), BF_ERR_TOO_LARGE beyond BF_MAX_BITS.
 */
extern bool bf_size_for(double n, double fpp, uint64_t *nbits, int *nhashes, bf_error *err);

/*
 * Estimated number of distinct values from the number of set bits X
 * (Swamidass & Baldi): -(m/k) ln(1 - X/m).  +Infinity when every bit is set.
 */
extern double bf_estimate_distinct(uint64_t nbits, int nhashes, uint64_t bits_set);

/* Rate of false positives for a random probe now: (X/m)^k. */
extern double bf_current_fpp(uint64_t nbits, int nhashes, uint64_t bits_set);

/* ---- text form (bf_text.c) ---- */

/*
 * The text form is
 *	 v1 classic m=<m> k=<k> seed=<seed> n=<added> elem=<key> bits=<base64>
 * with single spaces, decimal integers without sign or leading zeros, the
 * element key percent-encoded where it holds a byte other than
 * [A-Za-z0-9_.@$-], and the bit array in padded base64 (RFC 4648).  It is
 * canonical: every value has exactly one text form and the parser accepts
 * only that form, so text round-trips are exact.
 */

/* Length of the text form of a filter (without a terminating NUL). */
extern size_t bf_text_length(const bf_view *view);

/* Write the text form into out, which holds bf_text_length() + 1 bytes. */
extern void bf_text_write(const bf_view *view, char *out);

/*
 * Parse a text form.  Pass 1 (buf == NULL): validate the syntax and every
 * field, and return the payload size needed in *payload_len.  Pass 2: decode
 * into buf (payload_len bytes).  The result still needs bf_check_bits().
 */
extern bool bf_text_parse(const char *text, size_t len, uint8_t *buf, size_t *payload_len,
                          bf_error *err);

#endif /* BF_CORE_H */
