/*
 * bf_format.h
 *	  The serialized format of a bloom value: the one definition of its bytes.
 *
 * A bloom value is what PostgreSQL stores, sends and receives: a header, an
 * optional extension, an element key and the data of one of its layouts:
 * this project's own, or (1.12) another system's filter kept in its
 * maker's bytes.
 * This file is where that format is defined; docs/format.md's table is checked
 * against the table below by the unit tests (test "format_table"), and no
 * other file computes an offset: they read and write the bytes through the
 * functions declared here, which keep a decoded view (bf_view) and the
 * bytes in step.
 *
 * All integers are little-endian and unaligned: the format is the same on
 * every platform.  The offsets are those of the payload, the bytes after
 * PostgreSQL's varlena length word.  Formats are forever: every 1.x release
 * reads every value an earlier one wrote; new layouts and flags may be
 * added, none may change.
 *
 * BEGIN FORMAT TABLE
 * | offset | size | field | meaning |
 * |---|---|---|---|
 * | 0 | 4 | `magic` | the bytes `B` `L` `O` `M` |
 * | 4 | 1 | `version` | format version, 1 |
 * | 5 | 1 | `layout` | 1 classic, 3 blocked512, 4 explicit (1.3), 5 layered (1.9), 6 spark, 7 guava, 8 parquet (1.12), 9 window (1.12): `bloom`; 2 counting4: `counting_bloom` |
 * | 6 | 1 | `scheme` | how positions derive from a value: 1, double hashing of its 64-bit hash; 2 Spark version 1, 3 Spark version 2, 4 Guava MURMUR128_MITZ_64, 5 Parquet split block (1.12) |
 * | 7 | 1 | `flags` | bit 0 derived (an intersection; classic, blocked512); bit 1 target (1.3; explicit, or classic and not derived); bit 2 n unknown (1.12; spark, guava, parquet); other bits 0 |
 * | 8 | 2 | `k` | positions per value, 1 to 64 (explicit: 0; layered: its layers, 1 to 64; spark: 1 to 1024; guava: 1 to 255; parquet: 8; window: its slices, 1 to 4159) |
 * | 10 | 2 | `e` | length of the element key, 0 to 255 |
 * | 12 | 8 | `seed` | seed of the values' hash function (unsigned; Spark version 2: its int, sign-extended; other makers: 0) |
 * | 20 | 8 | `m` | cells: bits (1 to 8,589,932,224; layered: of all its layers), 4-bit counters (1 to 2,147,483,056) or 64-bit hashes (explicit: 0 to 134,217,691) |
 * | 28 | 8 | `n` | values added, 0 to 2^63-1 (counting4: added minus removed; 0 when unknown) |
 * | 36 | 16 | `bound`, `est` | derived only: bound on the set bits that matter (8), estimated distinct values (8) |
 * | 36 | 4 | `target` | target only: the rate the finished filter must meet, in parts per billion, 1 to 999,999,999 |
 * | 36 + x | e | `elem` | element key: `schema.opfamily`, plus `@schema.collation` for a nondeterministic collation; another maker's: `maker:encoding` (below) |
 * | 36 + x + e | 10 k | `layers` | layered only: per layer, its m (8) and k (2) |
 * | 36 + x + e | 26 + 8 k | `window` | window only: its shape, clock and counts (bf_format_window.h) |
 * | 36 + x + e + t | d | `data` | the cells, by layout (below); nothing follows them |
 * END FORMAT TABLE
 *
 * x is the size of the extension present: 0, 16 (derived) or 4 (target);
 * a filter is never both.  t is the size of the layered or window table
 * (10 k, 26 + 8 k), else 0.  d, the size of the data, depends on the layout:
 *
 *	classic	(1)		m bits; d = ceil(m / 8); bit i is bit i % 8 of byte i / 8.
 *	counting4 (2)	m 4-bit counters; d = ceil(m / 2); counter i is the low
 *					nibble of byte i / 2 for even i, the high nibble for odd i.
 *	blocked512 (3)	as classic, m a multiple of 512: every value's k bits lie in
 *					one block of 512 bits, one cache line (Putze, Sanders &
 *					Singler, "Cache-, Hash- and Space-Efficient Bloom Filters",
 *					2007).
 *	explicit (4)	m 64-bit hashes in strictly increasing order; d = 8 m.  Not
 *					yet a bit array: the exact set of the values' hashes that
 *					bloom_agg(value) collects before it knows how large its
 *					filter must be.  k = 0, never derived.
 *	layered (5)		k layers, each a blocked512 filter of its own m_i bits and
 *					k_i positions (its entry in `layers`: m_i a multiple of
 *					512, k_i 1 to 64), all with the filter's seed, their bits
 *					one after another in layer order; the m_i sum to m, and
 *					d = m / 8.  A value is held if some layer holds it; one is
 *					added to the last layer.  A scalable Bloom filter
 *					(Almeida et al., 2007): a bloomfilter index's snapshot
 *					(bloom_index_filter).  No flags.
 *	window (9)		(1.12) an age-partitioned filter, which forgets: k slices
 *					of m / k bits each (m a multiple of 64 k), written and
 *					probed as bf_format_window.h says, the slot p's bits
 *					after slot p - 1's; d = m / 8.  No flags.
 *
 * Another maker's filter (1.12) keeps that maker's bits as its maker
 * writes them, so that reading and writing its bytes is a copy, and a probe
 * hashes a value as its maker does (bf_makers.h); they are never this
 * project's bits, and no operation mixes the two.
 *
 *	spark (6)		Apache Spark's BloomFilter (bf_spark.h), scheme 2 (its
 *					version 1, seed 0) or 3 (version 2); m a multiple of 64;
 *					big-endian 64-bit words, bit i is bit i % 64 of word i / 64.
 *	guava (7)		Guava's BloomFilter, MURMUR128_MITZ_64 (bf_guava.h), scheme
 *					4, seed 0; m a multiple of 64; words as Spark's.
 *	parquet (8)		Parquet's split block filter (bf_parquet.h), scheme 5, k 8,
 *					seed 0; m a multiple of 256 from 256 to 2^30; its bitset:
 *					256-bit blocks of eight little-endian 32-bit words.
 *
 * Their element key is never empty: it names how a value becomes the bytes
 * its maker hashes (the maker's name, a colon, the encoding: "spark:int8",
 * "parquet:date"; bf_maker_key_find() of bf_makers.h).  Flag bit 2, n unknown, marks a filter
 * whose count of values is not known (one read from its maker's bytes): n
 * is 0 then, and adds keep it unknown.
 *
 * Bits and counters at positions >= m are 0.
 *
 * The element key names the hash operator family (and, for a
 * nondeterministic collation, the collation) that hashed the values, such
 * as "pg_catalog.integer_ops": two filters hold comparable values only if
 * their keys are equal.  It is empty exactly when no value was added (for
 * counting4: when no counter is set either), and holds no control
 * characters.
 *
 * Derived (flag bit 0; classic and blocked512 only): the filter is an
 * intersection, so its bits include bits of values outside the set it
 * stands for, and its fill no longer tells its false-positive rate.  bound
 * is an upper bound on the set bits that a value outside the set can meet
 * (the rate is at most (bound / m)^k), est an estimate of the distinct
 * values; both follow later unions and adds.
 *
 * Target (flag bit 1; explicit and classic only, since 1.3): a partial
 * state of bloom_agg(value, fpp), carrying the false-positive rate its
 * finished filter must meet.  Without it a partial state aims at 1 %.
 */
#ifndef BF_FORMAT_H
#define BF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the fields (see the table above) ---- */

#define BF_MAGIC "BLOM"
#define BF_VERSION 1

#define BF_OFF_MAGIC 0
#define BF_OFF_VERSION 4
#define BF_OFF_LAYOUT 5
#define BF_OFF_SCHEME 6
#define BF_OFF_FLAGS 7
#define BF_OFF_NHASHES 8
#define BF_OFF_ELEMLEN 10
#define BF_OFF_SEED 12
#define BF_OFF_NCELLS 20
#define BF_OFF_NADDED 28
#define BF_HEADER_SIZE 36 /* where the extensions, or else the element key, start */

#define BF_LAYOUT_CLASSIC 1
#define BF_LAYOUT_COUNTING4 2
#define BF_LAYOUT_BLOCKED512 3
#define BF_LAYOUT_EXPLICIT 4
#define BF_LAYOUT_LAYERED 5
#define BF_LAYOUT_SPARK 6 /* 1.12: other makers' filters, in their bytes */
#define BF_LAYOUT_GUAVA 7
#define BF_LAYOUT_PARQUET 8
#define BF_LAYOUT_WINDOW 9 /* 1.12: an age-partitioned filter (bf_format_window.h) */

#define BF_MAX_LAYERS 64 /* layered: layers at most (its k) */
#define BF_LAYER_SIZE 10 /* layered: bytes of a layer's entry, m_i (8) and k_i (2) */

#define BF_BLOCK_BITS 512 /* blocked512: bits per block */

#define BF_SCHEME_DOUBLE_HASHING 1
#define BF_SCHEME_SPARK_V1 2 /* 1.12: the makers' own */
#define BF_SCHEME_SPARK_V2 3
#define BF_SCHEME_GUAVA 4
#define BF_SCHEME_PARQUET 5

#define BF_MAKER_MAX_K_SPARK 1024
#define BF_MAKER_MAX_K_GUAVA 255
#define BF_MAKER_K_PARQUET 8
#define BF_MAKER_MAX_BITS_PARQUET (UINT64_C(1) << 30)

#define BF_FLAG_DERIVED 0x01
#define BF_DERIVED_SIZE 16 /* bound (8), est (8) */
#define BF_FLAG_TARGET 0x02
#define BF_TARGET_SIZE 4            /* parts per billion */
#define BF_TARGET_SCALE 1000000000u /* the target is in parts per billion */
#define BF_FLAG_N_UNKNOWN 0x04      /* 1.12: another maker's filter, its count unknown */
#define BF_KNOWN_FLAGS (BF_FLAG_DERIVED | BF_FLAG_TARGET | BF_FLAG_N_UNKNOWN)

#define BF_COUNTER_MAX 15 /* counting4: a counter saturates here */

#define BF_MAX_HASHES 64
#define BF_MAX_ELEM_LEN 255

/*
 * The largest serialized value: PostgreSQL's varlena limit (1 GB - 1,
 * including its 4-byte length word).  The largest m of each layout leaves
 * room for the header and the longest element key, so that any m up to it
 * fits (a derived filter near the limit may still not: bf_payload_size()).
 */
#define BF_MAX_VARLENA 0x3FFFFFFFu
#define BF_MAX_PAYLOAD (BF_MAX_VARLENA - 4u)
#define BF_MAX_DATA ((uint64_t) (BF_MAX_PAYLOAD - BF_HEADER_SIZE - BF_MAX_ELEM_LEN))
#define BF_MAX_BITS (BF_MAX_DATA * 8u)
#define BF_MAX_COUNTERS (BF_MAX_DATA * 2u)
#define BF_MAX_EXPLICIT (BF_MAX_DATA / 8u)

/* ---- errors ---- */

/* Result codes.  The SQL layer maps each to an SQLSTATE. */
typedef enum bf_status
{
	BF_OK = 0,
	BF_ERR_FORMAT,   /* malformed: bad magic, truncated, bad syntax */
	BF_ERR_VERSION,  /* a version, layout or scheme this build does not know */
	BF_ERR_PARAM,    /* a parameter out of its range (m, k, n, fpp) */
	BF_ERR_TOO_LARGE /* the filter would exceed the 1 GB limit */
} bf_status;

/* Error detail: a status and a human-readable message. */
typedef struct bf_error
{
	bf_status status;
	char message[160];
} bf_error;

/* ---- the decoded form ---- */

/*
 * The parameters that define a filter's shape; two filters can be combined
 * only if all of these are equal.
 */
typedef struct bf_params
{
	uint8_t layout;
	uint8_t scheme;
	uint16_t nhashes; /* k */
	uint64_t seed;
	uint64_t ncells; /* m: bits, counters or hashes, by layout */
} bf_params;

/*
 * A decoded view of a serialized filter.  Its pointers point into the buffer
 * it was decoded from; nothing is copied.  Change a header field only
 * through the bf_view_set_* functions, which write the bytes too.
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
	uint8_t *payload;      /* the serialized value: the header is at payload[0] */
	const uint8_t *layers; /* layered: its layers' entries (BF_LAYER_SIZE each); else NULL */
	uint8_t *window;       /* window: its table (bf_format_window.h); else NULL */
	uint8_t *data;         /* the cells, at the end of the payload */
	size_t nbytes;         /* bytes of data */
} bf_view;

/* ---- sizes and names ---- */

/* Bytes of data for m cells of the layout. */
extern size_t bf_data_bytes(uint8_t layout, uint64_t ncells);

/* Bytes of the extensions that flags call for. */
extern size_t bf_extension_bytes(uint8_t flags);

/* Whether the layout is a bit array (classic, blocked512): not counters, not hashes. */
extern bool bf_layout_is_bits(uint8_t layout);

/* The layout's name in the text form: "classic", "counting4", "blocked512", "explicit". */
extern const char *bf_layout_name(uint8_t layout);

/* Whether the layout is another maker's (spark, guava, parquet). */
extern bool bf_layout_is_maker(uint8_t layout);

/*
 * Whether only code that knows the layout takes it (bf_check_header_all()):
 * another maker's, and a window filter, whose values fade.
 */
extern bool bf_layout_is_opt_in(uint8_t layout);

/* ---- checks ---- */

/* Check parameters for a new filter; fills err and returns false if bad. */
extern bool bf_params_check(const bf_params *p, size_t elemlen, bf_error *err);

/* Check that the flags are known and allowed for the layout. */
extern bool bf_flags_check(uint8_t layout, uint8_t flags, bf_error *err);

/*
 * Payload size of a filter with these parameters, flags and element key
 * length; fails with BF_ERR_TOO_LARGE if it exceeds BF_MAX_PAYLOAD (possible
 * only for a derived filter near the limit).
 */
extern bool bf_payload_size(const bf_params *p, uint8_t flags, size_t elemlen, size_t *size,
                            bf_error *err);

/* Whether the byte string is a valid element key. */
extern bool bf_elem_valid(const char *elem, size_t len);

/* Whether two element keys are the same. */
extern bool bf_elem_equal(const char *a, size_t alen, const char *b, size_t blen);

/* Whether a and b have the same shape (layout, scheme, k, seed, m). */
extern bool bf_params_equal(const bf_params *a, const bf_params *b);

/*
 * Whether the filters a and b have the same shape: their parameters, and
 * for layered ones every layer's (so that their cells line up).
 */
extern bool bf_same_shape(const bf_view *a, const bf_view *b);

/* ---- writing ---- */

/*
 * Write the header, the extensions (zero: set them with bf_view_set_*) and
 * the element key of a new filter into buf, which holds bf_payload_size()
 * bytes, and fill view; the data are left as they are, for a caller that
 * zeroes a large filter in chunks.  The parameters and flags must have
 * passed bf_params_check() and bf_flags_check().
 */
extern void bf_init_header(uint8_t *buf, const bf_params *p, uint8_t flags, const char *elem,
                           size_t elemlen, uint64_t nadded, bf_view *view);

/* bf_init_header(), then zero the data. */
extern void bf_init(uint8_t *buf, const bf_params *p, uint8_t flags, const char *elem,
                    size_t elemlen, uint64_t nadded, bf_view *view);

/* Set the count of values added, in the view and in its bytes. */
extern void bf_view_set_nadded(bf_view *view, uint64_t nadded);

/* Mark another maker's filter's count unknown (flag bit 2; n becomes 0), in the view and its bytes. */
extern void bf_view_set_n_unknown(bf_view *view);

/* Set the derived extension (the filter has the flag). */
extern void bf_view_set_derived(bf_view *view, uint64_t bound, uint64_t est_distinct);

/* Set the target (the filter has the flag; 1 .. BF_TARGET_SCALE - 1). */
extern void bf_view_set_target(bf_view *view, uint32_t target_ppb);

/* ---- reading ---- */

/*
 * Validate the header of a serialized filter of len bytes and, on success,
 * fill view.  O(1): it checks every header field and that len is exactly the
 * size the header implies, but does not look at the data (bf_check_data(),
 * in bf_core.h, does).  After it accepted a buffer, every offset the view
 * implies lies inside it.
 */
extern bool bf_check_header(const uint8_t *buf, size_t len, bf_view *view, bf_error *err);

/*
 * bf_check_header() refuses other makers' filters and window filters
 * (BF_ERR_PARAM: the first's bits are not this project's, the second's
 * values fade, and code written before them must not take them for its
 * own; bf_layout_is_opt_in()).  This one accepts them too: for the code
 * that knows them (the type's input and output, the functions that probe,
 * add to, combine, describe, import and export them).
 */
extern bool bf_check_header_all(const uint8_t *buf, size_t len, bf_view *view, bf_error *err);

/*
 * Decode a value this process made and has kept (an aggregate's own state,
 * changed in place row after row) without checking it again: the checks
 * of bf_check_header_all() are O(1) but not free, and the value passed
 * them when it entered or was made.  Debug builds assert that it still
 * passes them.
 */
extern void bf_view_decode_trusted(uint8_t *buf, size_t len, bf_view *view);

#endif /* BF_FORMAT_H */
