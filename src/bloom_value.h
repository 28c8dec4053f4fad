/*
 * bloom_value.h
 *	  Hashing SQL values for a filter: the hasher of a type (its family's
 *	  extended hash function and the element key it records), and the
 *	  hashers a call site or an aggregate's state keeps (bloom_value.c).
 */
#ifndef BLOOM_VALUE_H
#define BLOOM_VALUE_H

#include "bloom_compat.h"

#include "fmgr.h"

#include "../core/bf_core.h"

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
 * The hasher for argument argno of the current call, kept in the call
 * site's cache (bloom_callcache.h): set up on the first call, or again if
 * the argument changes.  A call site's argument types and collation never
 * change (fn_expr and fncollation belong to one expression).
 */
extern BloomHasher *bloom_hasher_for_arg(FunctionCallInfo fcinfo, int argno);

/*
 * For probes: the hash of argument argno, with the seed of the filter it
 * probes (view), after checking once per call site and filter that the
 * value's family is the filter's element key (42804 otherwise).  kept: the
 * filter is the one the call site's cache keeps (bloom_get_arg_cached), so
 * the check is not repeated for every row.
 */
extern uint64 bloom_hash_arg(FunctionCallInfo fcinfo, int argno, const bf_view *view, bool kept);

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
extern BloomHasher *bloom_agg_hasher(FunctionCallInfo fcinfo, int argno,
                                     const BloomKeptHasher *kept);

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
 * and so is a type whose hash function does not follow collid where collid
 * is nondeterministic (0A000: only text's and bpchar's do); with
 * missing_ok, either returns false.
 */
extern bool bloom_hasher_init(BloomHasher *h, Oid typid, Oid collid, bool missing_ok);

/*
 * The same for a writer that must go on hashing as it did before 1.12 (a
 * bloomfilter index's inserts): it does not refuse char(n) under a
 * nondeterministic collation whose hash counts trailing blanks (readers
 * refuse it; bloom_value.c's bpchar_hash_ignores_blanks).  Raises otherwise
 * as bloom_hasher_init does.
 */
extern bool bloom_hasher_init_for_writes(BloomHasher *h, Oid typid, Oid collid);

/*
 * The type of the value in argument argno: the call's expression's, or
 * the one the function declares (for a caller with no expression tree);
 * 0A000 if neither says.
 */
extern Oid bloom_value_type(FunctionCallInfo fcinfo, int argno);

/* The hash of a value, with the filter's seed. */
extern uint64 bloom_hash_value(BloomHasher *hasher, Datum value, uint64 seed);

/*
 * Check that a value of the hasher's type may be added to or probed in the
 * filter: the filter is empty (no element key yet) or holds the same element
 * key.  Raises 42804 otherwise.
 */
extern void bloom_check_elem(const bf_view *view, const BloomHasher *hasher);

#endif /* BLOOM_VALUE_H */
