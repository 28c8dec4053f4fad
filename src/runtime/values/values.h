/*
 * values.h
 *	  The values room: a runtime filter's build's key values, kept for
 *	  deciding what a scan may skip (values.c), and a build's values
 *	  flattened into shared memory and merged with others' (valueshare.c:
 *	  the shares of a Parallel Hash Join's build).
 *
 * Above the core (core/bf_stretches.h) and the settings; the filter room
 * keeps a build's values, the skip and paths rooms read them.
 */
#ifndef BLOOM_RT_VALUES_H
#define BLOOM_RT_VALUES_H

#include "../../bloom_compat.h"
#include "../../../core/bf_stretches.h"

#include "fmgr.h"
#include "nodes/pg_list.h"

/*
 * Most distinct values kept per key: beyond them only the least and the
 * greatest are, and an integer key's stretches.  A hash partition's keys
 * are all needed; a range or list partition's bounds are also decided by
 * the stretches, or the least and greatest.
 */
#define BLOOM_RF_EXACT_MAX 1024
/*
 * Inner rows past which a B-tree read of the keys' rows is neither planned
 * nor priced: sixteen times the distinct keys a build keeps one by one.
 */
#define BLOOM_RF_BTREE_MAX_INNER_ROWS (16.0 * BLOOM_RF_EXACT_MAX)
/* Most stretches of consecutive values an integer key keeps past its distinct values. */
#define BLOOM_RF_STRETCHES_MAX 1024

/* One key's values: the join operator's right (inner) input type. */
typedef struct RuntimeKeyValues
{
	Oid type;
	int16 typlen;
	bool typbyval;
	Oid collation;  /* the join operator's */
	Oid family;     /* the B-tree family giving the order, or InvalidOid (nothing is kept) */
	FmgrInfo order; /* its comparison function (type, type) */
	bool any;       /* some value was added (min and max are set) */
	Datum min;
	Datum max;
	/* the distinct values, while there are no more than BLOOM_RF_EXACT_MAX */
	bool overflow; /* there were more (or no order): exact is gone */
	int nexact;
	Datum *exact;   /* sorted by order once finished */
	uint32 *hashes; /* each one's own hash (the join's hash function for the inner side),
	                 * beside its value once sorted */
	int *slots;     /* open addressing on the hashes: index + 1 into exact, 0 free */
	Size bytes;     /* bytes of the values copied */
	/*
	 * An integer key (int2, int4, int8, date, timestamp, timestamptz in its
	 * type's default order): past the distinct values, stretches of them
	 * (bf_stretches.h, as v ^ BF_STRETCH_SIGN) that cover every value
	 */
	bool integral;
	bool integer_order;     /* an integer in its type's default order (whether or not
	                         * stretches are kept): runs of consecutive values are known */
	bool stretched;         /* the stretches hold the values (overflow, integral) */
	bf_stretches stretches; /* finished with the build */
	void *stretches_buffer; /* made at the first overflow */
} RuntimeKeyValues;

typedef struct RuntimeValues
{
	int nkeys;
	RuntimeKeyValues *keys;
	MemoryContext context;
	bool finished; /* the build is over: exact values are sorted */
} RuntimeValues;

/*
 * New, empty values of nkeys keys, in the current memory context: the join's
 * operators, collations and each key's B-tree family (InvalidOid: that key
 * keeps nothing); stretches: an integer key keeps stretches past its
 * distinct values.
 */
extern RuntimeValues *bloom_rf_values_create(int nkeys, List *operators, List *collations,
                                             List *families, bool stretches);

/* Forget every value (a new build). */
extern void bloom_rf_values_reset(RuntimeValues *v);

/* Add one inner row's keys (none NULL), with each one's own hash. */
extern void bloom_rf_values_add(RuntimeValues *v, const Datum *values, const uint32 *hashes);

/* The build is over: sort the distinct values. */
extern void bloom_rf_values_finish(RuntimeValues *v);

/*
 * Whether key i's values hold one that cmp(value, bound) places between
 * lower and upper: lower <= value, and value < upper (value <= upper if
 * upper_inclusive); a NULL bound pointer is unbounded.  cmp compares a value
 * of the key with a bound under collation; same_order says it orders values
 * as the key's own family does (then the search is a binary one).
 */
extern bool bloom_rf_values_between(const RuntimeValues *v, int i, FmgrInfo *cmp, Oid collation,
                                    bool same_order, const Datum *lower, const Datum *upper,
                                    bool upper_inclusive);

/*
 * Whether values sorted in cmp's order (values[0 .. n)) hold one that
 * cmp(value, bound) places between lower and upper, as
 * bloom_rf_values_between does: by binary search.
 */
extern bool bloom_rf_sorted_between(FmgrInfo *cmp, Oid collation, const Datum *values, int n,
                                    const Datum *lower, const Datum *upper, bool upper_inclusive);

/*
 * Add one value of key i with its own hash, as a row's key is added; or,
 * for a key whose values another build could not keep one by one, its
 * least and greatest values and its stretches (lo, hi: nstretches of them,
 * or NULL: none kept), which key i's are widened by.  For merging the
 * shares of a shared build (valueshare.c); v is not finished.
 */
extern void bloom_rf_values_add_key(RuntimeValues *v, int i, Datum value, uint32 hash);
extern void bloom_rf_values_add_overflowed(RuntimeValues *v, int i, Datum min, Datum max,
                                           const uint64 *lo, const uint64 *hi, int nstretches);

/* ---- a shared build's values (valueshare.c) ---- */

/* Bytes of finished values v flattened, and v flattened into buf (that many bytes). */
extern Size bloom_rf_values_flat_size(const RuntimeValues *v);
extern void bloom_rf_values_flatten(const RuntimeValues *v, char *buf, Size size);

/*
 * Add the flattened values at buf (another process's, of the same keys) to
 * into, which is not finished; scratch holds what reading them allocates.
 */
extern void bloom_rf_values_add_flat(RuntimeValues *into, const char *buf, MemoryContext scratch);

/*
 * Whether values of type are integers that keep their order as int64
 * (int2, int4, int8, date, timestamp, timestamptz), and one such value as
 * an int64.
 */
extern bool bloom_rf_integer_type(Oid type);
extern int64 bloom_rf_integer_value(Oid type, Datum value);

/* Whether key i holds exactly its distinct values (none were dropped). */
extern bool bloom_rf_values_exact(const RuntimeValues *v, int i);

/*
 * The last of the run of consecutive integers that starts at distinct
 * value e of a finished key holding its distinct values (not overflowed):
 * the greatest e' >= e with exact[e .. e'] each one more than the one
 * before; e itself for a key that is no integer in its type's default
 * order.  Every integer in [exact[e], exact[e']] is then a value of the key.
 */
extern int bloom_rf_values_run_end(const RuntimeKeyValues *k, int e);

/*
 * Stretch j of a finished key that keeps stretches (k->stretched; there
 * are k->stretches.n): its least and greatest values, of the key's type.
 */
extern void bloom_rf_values_stretch(const RuntimeKeyValues *k, int j, Datum *lo, Datum *hi);
#endif /* BLOOM_RT_VALUES_H */
