/*
 * bloom_datum.h
 *	  The bloom datum (BloomFilter): reading arguments and datums into checked
 *	  views, making new values, and the chunked loops over a filter's data
 *	  (bloom_datum.c).  Every file of the type's room starts here.
 */
#ifndef BLOOM_DATUM_H
#define BLOOM_DATUM_H

#include "bloom_compat.h"
#include "bloom_error.h"

#include "fmgr.h"

#include "../core/bf_core.h"

/* A bloom datum, detoasted, with its decoded header. */
typedef struct BloomFilter
{
	struct varlena *raw; /* the detoasted varlena */
	bf_view view;        /* points into raw */
} BloomFilter;

/*
 * The layout named by argument argno, if the call has it ("classic",
 * "blocked" or "blocked512"; 22023 otherwise), else the default, classic.
 */
extern uint8 bloom_layout_arg(FunctionCallInfo fcinfo, int argno);

/*
 * Detoast argument argno and check its header; copy if it will be modified.
 * Another maker's filter (1.12: bloom_import's) and a window filter (1.12)
 * are refused (22023): the first's bits are not this project's, the
 * second's values fade, and only the functions that know them take them,
 * through bloom_get_arg_any.
 */
extern void bloom_get_arg(FunctionCallInfo fcinfo, int argno, bool copy, BloomFilter *out);
extern void bloom_get_arg_any(FunctionCallInfo fcinfo, int argno, bool copy, BloomFilter *out);

/*
 * Raise 22023 naming the function (fcinfo's, or none) if view is of a
 * layout only some functions take (bf_layout_is_opt_in(): another maker's
 * filter, a window filter).
 */
extern void bloom_refuse_opt_in(FunctionCallInfo fcinfo, const bf_view *view);

/* bloom_get_arg() for a datum (an expanded one is flattened). */
extern void bloom_get_datum(Datum d, BloomFilter *out);

/*
 * For probes (which take another maker's filter too): argument argno, detoasted once per query when it is a stored
 * out-of-line value (the detoasted copy is kept in the call site's cache,
 * bloom_callcache.h, keyed on its TOAST pointer), otherwise detoasted as
 * usual.  Returns whether the filter is the one kept there.
 */
extern bool bloom_get_arg_cached(FunctionCallInfo fcinfo, int argno, BloomFilter *out);

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

/* Set bits / non-zero counters, counted in chunks with CHECK_FOR_INTERRUPTS:
 * of all the data, or of bytes [from, from + n) of it (one layer's). */
extern uint64 bloom_count_occupied(const bf_view *view);
extern uint64 bloom_count_occupied_range(const bf_view *view, size_t from, size_t n);

/* Apply a core byte-range operation over all of src's data, in chunks with
 * CHECK_FOR_INTERRUPTS (bf_union_bytes, bf_intersect_bytes, ...). */
typedef void (*bloom_bytes_fn)(bf_view *dst, const bf_view *src, size_t from, size_t to);
extern void bloom_bytes_op(bf_view *dst, const bf_view *src, bloom_bytes_fn op);

/* Add a to b without overflowing the bigint range of "values added". */
extern uint64 bloom_add_counts(uint64 a, uint64 b);

/*
 * Raise 22023 unless a and b have the same shape and hold the same element
 * family (an empty filter is compatible with any).  what names the operation
 * in the message.
 */
extern void bloom_check_compatible(const bf_view *a, const bf_view *b, const char *what);

#endif /* BLOOM_DATUM_H */
