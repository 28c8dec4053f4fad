/*
 * bloom_autostate.h
 *	  The state of bloom_agg(value) without sizing hints (bloom_autostate.c):
 *	  a set of the values' hashes, or past the limit a wide filter, as an
 *	  expanded object; bloom_auto.c has the aggregate's functions.
 */
#ifndef BLOOM_AUTOSTATE_H
#define BLOOM_AUTOSTATE_H

#include "bloom_aggstate.h"
#include "bloom_value.h"

#define AUTO_FPP 0.01
#define AUTO_WIDE_BITS (UINT64CONST(12252240) * 701) /* lcm(1..18) * 701, under 1 GB */
#define AUTO_MIN_CAPACITY 64
#define AUTO_DEFAULT_LIMIT (1 << 25)

typedef struct BloomAuto
{
	ExpandedObjectHeader hdr;
	/* a set: hashes[0 .. nsorted) sorted and distinct, [nsorted .. nused) appended */
	uint64 *hashes;
	size_t nsorted;
	size_t nused;
	size_t capacity;
	/* or a wide filter (hashes == NULL), with its hashes not yet written */
	BloomBatch wide;
	uint64 nadded;
	char elem[BF_MAX_ELEM_LEN];
	size_t elemlen;
	const BloomHasher *hasher; /* a hasher known to hash into elem */
	BloomKeptHasher kept;      /* for callers without fn_extra across rows (bloom_value.h) */
	uint32 target_ppb;         /* bloom_agg(value, fpp): the rate; 0: AUTO_FPP */
} BloomAuto;

/* Define the bloomfilter.agg_explicit_limit setting (from _PG_init). */
extern void bloom_auto_define_guc(void);

/* The rate the finished filter must meet: target_ppb, or AUTO_FPP if 0. */
extern double bloom_auto_target_fpp(uint32 target_ppb);

/* Set the bits of hashes[0 .. n) in a bit filter, in interruptible chunks. */
extern void bloom_auto_add_hashes(bf_view *view, const uint64 *hashes, size_t n);

/* A new, empty state in a context of its own under parent. */
extern BloomAuto *bloom_auto_new(MemoryContext parent, const char *elem, size_t elemlen,
                                 uint32 target_ppb);

/* Add a value's hash. */
extern void bloom_auto_add_hash(BloomAuto *st, uint64 h);

/*
 * Sort the appended tail into the head (widening the set if it outgrew the
 * limit), or write a wide filter's pending hashes: afterwards a set is
 * hashes[0 .. nsorted), sorted and distinct, and a wide filter is complete.
 */
extern void bloom_auto_compact(BloomAuto *st);

/* Add what a flat partial state holds (22023 if it aims at another rate or family). */
extern void bloom_auto_add_flat(BloomAuto *st, const BloomFilter *f);

/* Whether v is a partial state of bloom_agg(value), and the same as an error (22023). */
extern bool bloom_auto_is_state(const bf_view *v);
extern void bloom_auto_require_state(const bf_view *v);

/* The expanded state in the datum, or NULL. */
extern BloomAuto *bloom_auto_of_datum(Datum d);

/* A new state in parent holding what the flat partial state f holds. */
extern BloomAuto *bloom_auto_from_flat(const BloomFilter *f, MemoryContext parent);

/*
 * The state in argument argno as an expanded object the caller may modify:
 * the aggregate's own read-write state, or a new one (in parent) holding a
 * flat state that came from elsewhere (a parallel worker, a sharded engine).
 */
extern BloomAuto *bloom_auto_state_arg(FunctionCallInfo fcinfo, int argno, MemoryContext parent);

#endif /* BLOOM_AUTOSTATE_H */
