/*
 * bloom_pg.h
 *	  Declarations shared by the files of the PostgreSQL layer.
 *
 * The layer translates between SQL and the core (core/bf_core.h): it turns
 * datums into views of the serialized format, hashes SQL values with their
 * type's extended hash function, and maps core errors to SQLSTATEs.
 */
#ifndef BLOOM_PG_H
#define BLOOM_PG_H

#include "postgres.h"

#include "bloom_compat.h"

#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "../core/bf_core.h"

/* A bloom datum, detoasted, with its decoded header. */
typedef struct BloomFilter
{
	struct varlena *raw; /* the detoasted varlena */
	bf_view view;        /* points into raw */
} BloomFilter;

/* Where a bad filter came from; decides the SQLSTATE of the error. */
typedef enum BloomSource
{
	BLOOM_FROM_TEXT,     /* text input: 22P02 */
	BLOOM_FROM_BINARY,   /* binary input: 22P03 */
	BLOOM_FROM_ARGUMENT, /* a function's parameters: 22023 */
	BLOOM_FROM_STORAGE   /* a stored value that fails its check: XX001 */
} BloomSource;

/* Raise the error described by err (54000 for BF_ERR_TOO_LARGE). */
pg_noreturn extern void bloom_report(const bf_error *err, BloomSource source);

/* The same, naming the SQL type in input errors. */
pg_noreturn extern void bloom_report_as(const bf_error *err, BloomSource source,
                                        const char *typname);

/*
 * The layout named by argument argno, if the call has it ("classic",
 * "blocked" or "blocked512"; 22023 otherwise), else the default, classic.
 */
extern uint8 bloom_layout_arg(FunctionCallInfo fcinfo, int argno);

/* ---- datums (bloom_datum.c) ---- */

/* Detoast argument argno and check its header; copy if it will be modified. */
extern void bloom_get_arg(FunctionCallInfo fcinfo, int argno, bool copy, BloomFilter *out);

/* The same for a datum (an expanded one is flattened). */
extern void bloom_get_datum(Datum d, BloomFilter *out);

/*
 * For probes: argument argno, detoasted once per query when it is a stored
 * out-of-line value (the detoasted copy is cached in fn_extra, keyed on its
 * TOAST pointer), otherwise detoasted as usual.  Returns the call cache if
 * the filter is the one cached there, else NULL.
 */
extern struct BloomCallCache *bloom_get_arg_cached(FunctionCallInfo fcinfo, int argno,
                                                   BloomFilter *out);

/* The aggregate's memory context; 0A000 when not called as an aggregate. */
extern MemoryContext bloom_agg_context(FunctionCallInfo fcinfo, const char *name);

/* A varlena of payload_len bytes (uninitialized) in the current memory context. */
extern struct varlena *bloom_alloc(size_t payload_len);

/* Allocate (in the current memory context) a new empty filter. */
extern void bloom_new(const bf_params *p, uint8 flags, const char *elem, size_t elemlen,
                      uint64_t nadded, BloomFilter *out);

/* The same with a target (flags holds BF_FLAG_TARGET; 1..999999999 ppb). */
extern void bloom_new_target(const bf_params *p, uint8 flags, uint32 target_ppb, const char *elem,
                             size_t elemlen, uint64_t nadded, BloomFilter *out);

/* A copy of src (in the current memory context) with the given flags. */
extern void bloom_copy_as(const BloomFilter *src, uint8 flags, BloomFilter *out);

/*
 * Accept a value that enters the system (type input): check its header and
 * its bits (O(m), interruptible), raising the source's error if bad.
 */
extern void bloom_validate(struct varlena *raw, BloomSource source, const char *typname,
                           BloomFilter *out);

/* Bytes of data handled between two CHECK_FOR_INTERRUPTS() in loops over a filter. */
#define BLOOM_CHUNK (1024 * 1024)

/* Set bits / non-zero counters, counted in chunks with CHECK_FOR_INTERRUPTS. */
extern uint64 bloom_count_occupied(const bf_view *view);

/* Apply a core byte-range operation over all of src's data, in chunks with
 * CHECK_FOR_INTERRUPTS (bf_union_bytes, bf_intersect_bytes, ...). */
typedef void (*bloom_bytes_fn)(bf_view *dst, const bf_view *src, size_t from, size_t to);
extern void bloom_bytes_op(bf_view *dst, const bf_view *src, bloom_bytes_fn op);

/* Add a to b without overflowing the bigint range of "values added". */
extern uint64 bloom_add_counts(uint64 a, uint64 b);

/* ---- values (bloom_value.c) ---- */

/* What is needed to hash values of one SQL type; cached per call site. */
typedef struct BloomHasher
{
	Oid typid;
	Oid collid;
	FmgrInfo hashfn;                /* the type's extended hash function */
	Oid hashcoll;                   /* collation to pass to it */
	char elem[BF_MAX_ELEM_LEN + 1]; /* element key */
	size_t elemlen;
} BloomHasher;

/*
 * What a call site keeps across rows, in fn_extra (allocated in fn_mcxt): the
 * hasher of its value argument and the detoasted copy of a stored filter.
 */
typedef struct BloomCallCache
{
	bool hasher_valid;
	int hasher_argno; /* the argument the hasher is for */
	BloomHasher hasher;
	Oid toastrelid; /* TOAST pointer of the cached filter */
	Oid valueid;
	struct varlena *filter; /* detoasted copy, in fn_mcxt, or NULL */
	bf_view view;
	bool elem_checked; /* the cached filter's element key matches the hasher */

	/* aggregates: the size computed for the last sizing hints */
	bool sized;
	int64 sized_n;
	double sized_fpp;
	uint8 sized_layout;
	uint64 sized_ncells;
	int sized_nhashes;
} BloomCallCache;

/* The call site's cache in fn_extra, allocated on first use; inline: once per row. */
static inline BloomCallCache *
bloom_call_cache(FunctionCallInfo fcinfo)
{
	if (fcinfo->flinfo->fn_extra == NULL)
		fcinfo->flinfo->fn_extra =
		    MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(BloomCallCache));
	return (BloomCallCache *) fcinfo->flinfo->fn_extra;
}

/*
 * The hasher for argument argno of the current call, from fn_extra (set up
 * on the first call, or again if the argument's type changes).
 */
extern BloomHasher *bloom_hasher_setup(FunctionCallInfo fcinfo, int argno);

static inline BloomHasher *
bloom_hasher_for_arg(FunctionCallInfo fcinfo, int argno)
{
	BloomCallCache *cache = bloom_call_cache(fcinfo);

	if (cache->hasher_valid && cache->hasher_argno == argno)
		return &cache->hasher;
	return bloom_hasher_setup(fcinfo, argno);
}

/*
 * A hasher an aggregate's state keeps for itself.  nodeAgg keeps a
 * transition function's fn_extra across rows, but a caller that invokes
 * the transition function through an FmgrInfo of its own, set up anew for
 * every row and with no expression tree (Citus's worker_partial_agg), would
 * have the hasher set up again for every row.  For such a caller the state
 * keeps a copy, keyed on the function and the collation of the call.
 */
typedef struct BloomKeptHasher
{
	bool valid;
	Oid fn_oid; /* the transition function it was set up for */
	Oid collid; /* the collation of the call */
	BloomHasher hasher;
} BloomKeptHasher;

/* The hasher of argument argno: the one kept (may be NULL) if it fits the call, else fn_extra's. */
static inline BloomHasher *
bloom_agg_hasher(FunctionCallInfo fcinfo, int argno, const BloomKeptHasher *kept)
{
	if (kept != NULL && kept->valid && fcinfo->flinfo->fn_expr == NULL &&
	    kept->fn_oid == fcinfo->flinfo->fn_oid && kept->collid == PG_GET_COLLATION())
		return (BloomHasher *) &kept->hasher;
	return bloom_hasher_for_arg(fcinfo, argno);
}

/*
 * After bloom_agg_hasher(): for a caller without an expression tree, keep a
 * copy of hasher in *kept (its hash function's cache in cxt, the state's
 * memory) and return the copy; otherwise return hasher.
 */
extern BloomHasher *bloom_agg_keep_hasher(FunctionCallInfo fcinfo, BloomHasher *hasher,
                                          BloomKeptHasher *kept, MemoryContext cxt);

/*
 * Set up a hasher for values of typid under collid (in the current memory
 * context).  A type without an extended hash function is an error (42883),
 * or, with missing_ok, returns false.
 */
extern bool bloom_hasher_init(BloomHasher *h, Oid typid, Oid collid, bool missing_ok);

/* The hash of a value, with the filter's seed. */
extern uint64 bloom_hash_value(BloomHasher *hasher, Datum value, uint64 seed);

/*
 * Check that a value of the hasher's type may be added to or probed in the
 * filter: the filter is empty (no element key yet) or holds the same element
 * key.  Raises 42804 otherwise.
 */
extern void bloom_check_elem(const bf_view *view, const BloomHasher *hasher);

/* ---- estimates and set operations (bloom_setops.c) ---- */

/*
 * Estimated distinct values held: for a derived filter the recorded
 * estimate, else -(m/k) ln(1 - X/m) for X occupied; never above the values
 * added.
 */
extern double bloom_estimate_distinct(const bf_view *v, uint64 occupied);

/* The set bits that bound the false-positive rate: the bound if derived, else X. */
extern uint64 bloom_effective_bits(const bf_view *v, uint64 occupied);

/*
 * The false-positive rate a probe of a value outside the set meets now:
 * (X/m)^k for the bit layouts, by the blocked formula at the estimated count
 * for blocked512 (its blocks fill unevenly), the bound for a derived filter.
 */
extern double bloom_current_fpp(const bf_view *v, uint64 occupied);

/* ---- explicit filters (bloom_explicit.c) ---- */

/* Hashes handled between two CHECK_FOR_INTERRUPTS() in loops over a set. */
#define BLOOM_HASHES_PER_CHECK 65536

/* The hashes of an explicit filter in a new array with room for extra more. */
extern uint64 *bloom_explicit_hashes(const bf_view *v, size_t extra);

/* A new explicit filter of the sorted, distinct hashes[0 .. n) (a target if target_ppb > 0). */
extern void bloom_explicit_build(const uint64 *hashes, size_t n, uint64 seed, uint32 target_ppb,
                                 const char *elem, size_t elemlen, uint64 nadded, BloomFilter *out);

/*
 * Add a hash to a filter the caller may modify, in any layout, without
 * counting it as a value added: set its bits (keeping a derived filter's
 * bound and estimate up to date), increment its counters, or insert it into
 * an explicit filter (a new value: use f->raw afterwards).
 */
extern void bloom_set_hash(BloomFilter *f, uint64 h);

/*
 * a := a | b and a := a & b when a or b is explicit; both non-empty, with the
 * same seed and element family (checked by the caller).  The union of a set
 * and a bit filter is a bit filter; an intersection keeps the explicit
 * side's hashes that the other side may hold.  a is replaced by a new value.
 */
extern void bloom_explicit_union(BloomFilter *a, const BloomFilter *b);
extern void bloom_explicit_intersect(BloomFilter *a, const BloomFilter *b);

/* ---- aggregate states (bloom_aggstate.c) ---- */

/*
 * A new aggregate state of size bytes, zeroed, that starts with an
 * ExpandedObjectHeader with these methods, in a memory context of its own
 * ("bloom aggregate state") under aggcontext.
 */
extern void *bloom_agg_state_new(MemoryContext aggcontext, const ExpandedObjectMethods *methods,
                                 Size size);

/* The expanded state with these methods that datum d points to, or NULL. */
extern void *bloom_agg_state_of(Datum d, const ExpandedObjectMethods *methods);

/* Whether d is a read-write pointer to an expanded object (the state's owner may change it). */
extern bool bloom_agg_state_is_rw(Datum d);

/*
 * A bit filter (classic, blocked512) and the hashes of its last values, not
 * yet written: writing them BLOOM_BATCH at a time lets bf_add_hashes()
 * overlap their cache misses, which dominate the cost of a build into a
 * filter larger than the CPU cache.  Whoever reads f must call
 * bloom_batch_write() first.
 */
#define BLOOM_BATCH 256

typedef struct BloomBatch
{
	BloomFilter f;
	uint64 *pending; /* BLOOM_BATCH entries */
	int npending;
} BloomBatch;

/* Allocate the pending array (in the current memory context) for the filter in b->f. */
extern void bloom_batch_init(BloomBatch *b);

/* Write the pending hashes into the bits and count their values; returns how many. */
extern int bloom_batch_write(BloomBatch *b);

/* Queue the hash of a new value; the batch is written when full. */
static inline void
bloom_batch_add(BloomBatch *b, uint64 h)
{
	b->pending[b->npending++] = h;
	if (b->npending == BLOOM_BATCH)
		bloom_batch_write(b);
}

/* ---- bloom_agg(value) without hints (bloom_auto.c) ---- */

/* Define the bloomfilter.agg_explicit_limit setting (from _PG_init). */
extern void bloom_auto_define_guc(void);

/* ---- adding (bloom_functions.c) ---- */

/*
 * Add a value to a filter the caller may modify.  An empty filter takes the
 * value's element key, which reallocates it in the current memory context:
 * use f->raw afterwards.
 */
extern void bloom_add_datum(BloomFilter *f, BloomHasher *hasher, Datum value);

/*
 * Raise 22023 unless a and b have the same shape and hold the same element
 * family (an empty filter is compatible with any).  what names the operation
 * in the message.
 */
extern void bloom_check_compatible(const bf_view *a, const bf_view *b, const char *what);

#endif /* BLOOM_PG_H */
