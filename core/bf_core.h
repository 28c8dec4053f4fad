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
 *	5		1		layout: 1 = classic (m bits), 2 = counting4 (m 4-bit counters),
 *					3 = blocked512 (m bits in blocks of 512, m a multiple of 512),
 *					4 = explicit (m distinct 64-bit hashes, not yet a bit array; k = 0)
 *	6		1		hash scheme (1, see bf_filter.c)
 *	7		1		flags: bit 0 = derived (see below); bit 1 = target (1.3, see
 *					below); other bits 0
 *	8		2		k, number of hash positions per value (1..BF_MAX_HASHES)
 *	10		2		e, length of the element key (0..BF_MAX_ELEM_LEN)
 *	12		8		hash seed
 *	20		8		m, number of bits or counters
 *	28		8		number of values added, duplicates included (0..2^63-1);
 *					for counting4, added minus removed
 *	36		x		if derived: bound (8), estimated distinct (8); then, if target:
 *					the target rate in parts per billion (4, 1..999999999); x is the
 *					sum (0, 16, 4)
 *	36+x	e		element key: which values the filter holds (see below)
 *	36+x+e	d		the data.  classic and blocked512: d = ceil(m/8), bit i is bit
 *					(i % 8) of byte i / 8.  counting4: d = ceil(m/2), counter i is the low
 *					nibble of byte i / 2 for even i, the high nibble for odd i.
 *					Bits or counters at positions >= m are 0.  explicit: d = 8m, the
 *					hashes as 8-byte integers in strictly increasing order.
 *
 * The element key names the hash operator family (and, for a
 * nondeterministic collation, the collation) that hashed the values, such
 * as "pg_catalog.integer_ops".  It is empty until the first value is added.
 * It holds no control characters.  Nothing follows the data.
 *
 * A blocked512 filter (Putze, Sanders & Singler, "Cache-, Hash- and
 * Space-Efficient Bloom Filters", 2007) puts all k bits of a value in one
 * block of 512 bits, 64 bytes: one cache line per probe instead of k, for a
 * few more bits per value at the same rate (see bf_sizing.c).
 *
 * An explicit filter (since extension version 1.3) is the exact set of the
 * values' hashes, as postgresql-hll's explicit mode: bloom_agg(value) without
 * sizing hints collects it, and only once it knows how many distinct values
 * there are turns it into a classic filter of the right size (see
 * bf_explicit.c).  It answers membership exactly, up to collisions of 64-bit
 * hashes; m is its number of hashes (0 allowed), k is 0, it is never derived,
 * and it holds at most BF_MAX_EXPLICIT hashes.
 *
 * A "target" (flag bit 1) marks a partial state of bloom_agg(value, fpp): an
 * explicit filter, or the 1 GB classic filter it becomes past its limit,
 * that carries the false-positive rate its finished filter must meet.  It is
 * never derived.  Without the flag a partial state aims at 1 %.
 *
 * A classic or blocked filter is "derived" when it results from an intersection: its
 * bits then include bits of values outside the set it represents, so the
 * fill no longer tells the false-positive rate or the cardinality.  The
 * extension records an upper bound on the set bits that matter for a value
 * outside the set (the bound of the false-positive rate is (bound/m)^k) and
 * an estimate of the distinct values; both follow later unions and adds.
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
#define BF_LAYOUT_COUNTING4 2
#define BF_LAYOUT_BLOCKED512 3
#define BF_LAYOUT_EXPLICIT 4
#define BF_BLOCK_BITS 512
#define BF_SCHEME_PGHASH_EDH 1
#define BF_HEADER_SIZE 36
#define BF_FLAG_DERIVED 0x01
#define BF_DERIVED_SIZE 16
#define BF_FLAG_TARGET 0x02
#define BF_TARGET_SIZE 4
#define BF_TARGET_SCALE 1000000000u /* the target is in parts per billion */
#define BF_COUNTER_MAX 15

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
#define BF_MAX_COUNTERS ((uint64_t) (BF_MAX_PAYLOAD - BF_HEADER_SIZE - BF_MAX_ELEM_LEN) * 2u)
#define BF_MAX_EXPLICIT ((uint64_t) (BF_MAX_PAYLOAD - BF_HEADER_SIZE - BF_MAX_ELEM_LEN) / 8u)

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
	uint8_t flags;
	uint64_t nadded;
	uint64_t bound;        /* derived only, else 0 */
	uint64_t est_distinct; /* derived only, else 0 */
	uint32_t target_ppb;   /* target only, else 0 */
	const char *elem;
	size_t elemlen;
	uint8_t *bits; /* the data: bits (classic) or counters (counting4) */
	size_t nbytes; /* bytes of data */
} bf_view;

/*
 * A function the core calls every few megabytes in its long loops (the text
 * codec), so that its host can check for a cancel request; NULL (the
 * default) for none.  The PostgreSQL layer sets one that runs
 * CHECK_FOR_INTERRUPTS().
 */
typedef void (*bf_tick_fn)(void);
extern void bf_set_tick(bf_tick_fn tick);

/* ---- format (bf_format.c) ---- */

/* Bytes of data for m bits (classic, blocked512) or m counters (counting4). */
extern size_t bf_data_bytes(uint8_t layout, uint64_t nbits);

/* Whether the layout is a bit array (classic, blocked512): not counters, not hashes. */
extern bool bf_layout_is_bits(uint8_t layout);

/* The layout's name in the text form: "classic", "counting4", "blocked512", "explicit". */
extern const char *bf_layout_name(uint8_t layout);

/* Check parameters for a new filter; fills err and returns false if bad. */
extern bool bf_params_check(const bf_params *p, size_t elemlen, bf_error *err);

/*
 * Payload size of a filter with these parameters, flags and element key
 * length; fails with BF_ERR_TOO_LARGE if it exceeds BF_MAX_PAYLOAD (possible
 * only for a derived filter near the limit).
 */
extern bool bf_payload_size(const bf_params *p, uint8_t flags, size_t elemlen, size_t *size,
                            bf_error *err);

/*
 * Write an empty filter (header, element key, zero data) into buf, which
 * must hold bf_payload_size() bytes.  Parameters must have passed
 * bf_params_check().
 */
extern void bf_init(uint8_t *buf, const bf_params *p, uint8_t flags, const char *elem,
                    size_t elemlen, uint64_t nadded);

/*
 * bf_init() without zeroing the data: writes everything before it and
 * returns where the data starts (bf_data_bytes() bytes), for a caller that
 * zeroes a large filter in chunks.
 */
extern uint8_t *bf_init_header(uint8_t *buf, const bf_params *p, uint8_t flags, const char *elem,
                               size_t elemlen, uint64_t nadded);

/*
 * Validate the header of a serialized filter of len bytes and, on success,
 * fill view.  O(1): it checks every header field and that len is exactly the
 * size the header implies, but does not look at the data.
 */
extern bool bf_check_header(const uint8_t *buf, size_t len, bf_view *view, bf_error *err);

/*
 * Validate the data of a filter whose header passed.  occupied is the
 * number of set bits / non-zero counters (callers count it in chunks, see
 * bf_occupied).  Classic: no bit at or beyond m, the element key present
 * exactly when values were added, no more bits set than k times the values
 * added, and, if derived, no more than the bound.  Counting4: no counter at
 * or beyond m, and an empty element key only with no values and no counters.
 * Explicit: hashes strictly increasing, at most as many as values added, the
 * element key present exactly when values were added (occupied is unused).
 */
extern bool bf_check_bits(const bf_view *view, uint64_t occupied, bf_error *err);

/* Write the count of values added back into a serialized filter. */
extern void bf_set_nadded(uint8_t *buf, uint64_t nadded);

/* Write the derived extension of a serialized filter created with the flag. */
extern void bf_set_derived(uint8_t *buf, uint64_t bound, uint64_t est_distinct);

/* Write the target (parts per billion) of a serialized filter created with the flag. */
extern void bf_set_target(uint8_t *buf, uint32_t target_ppb);

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

/*
 * Set the bits of a value (classic, blocked512); returns how many bits
 * changed 0 -> 1.  An explicit filter changes size when a hash is added: this
 * does nothing to one (the SQL layer rebuilds it).
 */
extern unsigned bf_add_hash(bf_view *view, uint64_t h);

/*
 * bf_add_hash() for n values (classic, blocked512), faster for a filter
 * larger than the CPU cache: the memory accesses of several values overlap.
 */
extern void bf_add_hashes(bf_view *view, const uint64_t *hashes, size_t n);

/*
 * Whether all k bits (classic, blocked512) or counters (counting4) of the
 * value are set; for an explicit filter, whether it holds the hash.
 */
extern bool bf_contains_hash(const bf_view *view, uint64_t h);

/* Set / test explicit positions of a classic filter (the worked examples). */
extern void bf_set_bit(bf_view *view, uint64_t pos);
extern bool bf_test_bit(const bf_view *view, uint64_t pos);

/*
 * Set bits (classic, blocked512), non-zero counters (counting4) or hashes
 * (explicit, for from and to multiples of 8) in data bytes [from, to).
 */
extern uint64_t bf_occupied(const bf_view *view, size_t from, size_t to);

/* Classic, same shape (checked by the caller), data bytes [from, to): */
extern void bf_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);
extern void bf_intersect_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/* ---- the counting layout (bf_counting.c) ---- */

/* Counter i of a counting4 filter, and the explicit setter (tests). */
extern unsigned bf_counter(const bf_view *view, uint64_t i);
extern void bf_set_counter(bf_view *view, uint64_t i, unsigned value);

/* Increment the value's k counters; a counter stops at BF_COUNTER_MAX. */
extern void bf_counting_add_hash(bf_view *view, uint64_t h);

/*
 * Decrement the value's k counters, except saturated ones (at
 * BF_COUNTER_MAX a counter may hold more than it shows, so it is never
 * decremented: a delete can never create a false negative).  Returns false,
 * changing nothing, if a counter is already too low to remove the value: it
 * was never added.
 */
extern bool bf_counting_remove_hash(bf_view *view, uint64_t h);

/* The smallest of the value's counters: an upper bound on its adds. */
extern unsigned bf_counting_min(const bf_view *view, uint64_t h);

/* Add src's counters to dst's (saturating), data bytes [from, to). */
extern void bf_counting_union_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/*
 * Subtract src's counters from dst's, as if every value added to src were
 * removed from dst once per add: bf_counting_can_subtract() checks (for data
 * bytes [from, to)) that no non-saturated counter of dst is below src's,
 * bf_counting_subtract_bytes() then subtracts, leaving saturated counters.
 * A saturated counter of src stands for 15 or more: subtracting 15 can leave
 * dst's counter too high, never too low.
 */
extern bool bf_counting_can_subtract(const bf_view *dst, const bf_view *src, size_t from,
                                     size_t to);
extern void bf_counting_subtract_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

/*
 * Set in the classic filter dst (same m) the bits of src's non-zero
 * counters held in src's data bytes [from, to).
 */
extern void bf_counting_to_bits(bf_view *dst, const bf_view *src, size_t from, size_t to);

/* ---- the explicit layout, and folding (bf_explicit.c) ---- */

/* Hash i of an explicit filter (i < m). */
extern uint64_t bf_explicit_get(const bf_view *view, uint64_t i);

/* Write hashes[0 .. n) (sorted, distinct) as the data of an explicit filter. */
extern void bf_explicit_put(uint8_t *data, const uint64_t *hashes, size_t n);

/* Read the data of an explicit filter into hashes[0 .. m). */
extern void bf_explicit_read(const bf_view *view, uint64_t *hashes);

/* How many hashes of the explicit filter are below h (binary search). */
extern uint64_t bf_explicit_rank(const bf_view *view, uint64_t h);

/* Whether the explicit filter holds the hash (binary search). */
extern bool bf_explicit_contains(const bf_view *view, uint64_t h);

/*
 * Sort a[0 .. n) in increasing order and drop duplicates; returns the
 * number left.  tmp holds n entries (a radix sort: O(n), no comparisons).
 */
extern size_t bf_hashes_sort_unique(uint64_t *a, size_t n, uint64_t *tmp);

/*
 * Merge the sorted distinct b[0 .. nb) into the sorted distinct a[0 .. na),
 * in place (a has room for na + nb entries); returns the size of the union.
 */
extern size_t bf_hashes_merge(uint64_t *a, size_t na, const uint64_t *b, size_t nb);

/*
 * Keep in the sorted a[0 .. na) only the hashes the filter may hold (exactly
 * those of an explicit filter, the possible members of a bit filter);
 * returns how many are left.
 */
extern size_t bf_hashes_retain(uint64_t *a, size_t na, const bf_view *filter);

/*
 * Folding a classic filter of m bits by a factor f that divides m: bit p of
 * the source becomes bit p / f of a filter of m / f bits, which is exactly
 * the filter of the same values built at m / f bits, since with
 * reduce(x, m) = floor(x m / 2^64) every position satisfies
 * floor(reduce(x, m) / f) = reduce(x, m / f).  bf_fold_bytes() ORs the
 * source's data bytes [from, to) into dst (m / f bits, zeroed first by the
 * caller).
 */
extern void bf_fold_bytes(bf_view *dst, const bf_view *src, size_t from, size_t to);

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
 * The same for a blocked512 filter: with lambda = 512 n / m values per block
 * on average, sum over i of Poisson(i; lambda) (1 - (1 - 1/512)^(k i))^k.
 */
extern double bf_blocked_fpp(double n, double nbits, double nhashes);

/* The expected rate for the layout (classic formula for counting4). */
extern double bf_layout_fpp(uint8_t layout, double n, double nbits, double nhashes);

/* The k in [1, BF_MAX_HASHES] that minimizes bf_layout_fpp(). */
extern int bf_layout_optimal_hashes(uint8_t layout, double n, double nbits);

/*
 * bf_size_for() for a layout: for blocked512, the smallest multiple of 512
 * bits whose best k meets fpp by the blocked formula.
 */
extern bool bf_size_for_layout(uint8_t layout, double n, double fpp, uint64_t *nbits, int *nhashes,
                               bf_error *err);

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
 *	 v1 classic m=<m> k=<k> scheme=<s> seed=<seed> n=<added> elem=<key> bits=<base64>
 *	 v1 counting4 m=<m> ... elem=<key> counters=<base64>
 *	 v1 blocked512 m=<m> ... elem=<key> bits=<base64>
 *	 v1 explicit m=<m> k=0 ... elem=<key> hashes=<base64>
 * with " bound=<b> est=<e>" after n= for a derived filter, then " target=0.<digits>"
 * for a target (the rate in decimal, at most 9 digits after the point, no
 * trailing zero), single spaces, decimal integers without sign or leading zeros, the
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
