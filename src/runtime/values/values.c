/*
 * values.c
 *	  The key values of a runtime filter's build, for skipping scans: each
 *	  key's least and greatest value, and its distinct values while there
 *	  are few (BLOOM_RF_EXACT_MAX).
 *
 * A Bloom filter answers "may this value be a key?" for one value at a
 * time.  Deciding whether a partition can hold a key asks about whole
 * ranges of values (a range partition's bounds) or about values computed
 * from the key (a hash partition's hash), which only the values themselves
 * answer.  They are kept per key column: for a join on several columns a
 * row can match only if each of its columns is one of that column's
 * values, which is all a skip needs.
 *
 * Values are ordered by a B-tree operator family holding the join's
 * equality operator (the planner finds it, plan/plan.c), under the join's
 * collation, so that "equal" here is the join's "equal".  The distinct
 * values are found through each value's own hash (the join's hash function
 * for the inner side, consistent with that equality) in a small
 * open-addressing table, and sorted when the build ends.  Past
 * BLOOM_RF_EXACT_MAX distinct values, or BLOOM_RF_EXACT_MAX_BYTES of them,
 * only the least and greatest are kept: two comparisons per row from then
 * on.  An integer key (integral_key) then keeps stretches of consecutive
 * values too (core/bf_stretches.h), at most BLOOM_RF_STRETCHES_MAX of them,
 * joined across their narrowest gaps past that: a month of every year of
 * a date dimension is 6,000 keys but 200 stretches, which a month's
 * partition or a BRIN block range can be tested against.  A key whose
 * operator is in no B-tree family keeps nothing.
 */
#include "values.h"

#include "access/nbtree.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type_d.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"

/* bytes of by-reference values one key keeps as distinct values, at most */
#define BLOOM_RF_EXACT_MAX_BYTES (1024 * 1024)
/* slots of the open-addressing table: a power of two, twice the values */
#define NSLOTS (2 * BLOOM_RF_EXACT_MAX)

static void key_init(RuntimeKeyValues *k, Oid opno, Oid collation, Oid family);
static void key_add(RuntimeValues *v, RuntimeKeyValues *k, Datum value, uint32 hash);
static void key_drop_exact(RuntimeValues *v, RuntimeKeyValues *k);
static void key_bound(RuntimeValues *v, RuntimeKeyValues *k, Datum value);
static void key_stretch(RuntimeValues *v, RuntimeKeyValues *k);
static bool integral_key(Oid type, Oid family, bool byval);
static uint64 ordered(const RuntimeKeyValues *k, Datum value);
static Datum from_ordered(const RuntimeKeyValues *k, uint64 value);
static int compare(RuntimeKeyValues *k, Datum a, Datum b);
static int compare_for_sort(const void *a, const void *b, void *arg);
static void sort_exact(RuntimeKeyValues *k);

RuntimeValues *
bloom_rf_values_create(int nkeys, List *operators, List *collations, List *families, bool stretches)
{
	RuntimeValues *v = palloc0(sizeof(RuntimeValues));

	Assert(nkeys >= 1 && list_length(operators) == nkeys && list_length(collations) == nkeys &&
	       list_length(families) == nkeys);
	v->nkeys = nkeys;
	v->context = CurrentMemoryContext;
	v->keys = palloc0(nkeys * sizeof(RuntimeKeyValues));
	for (int i = 0; i < nkeys; i++)
	{
		key_init(&v->keys[i], list_nth_oid(operators, i), list_nth_oid(collations, i),
		         list_nth_oid(families, i));
		v->keys[i].integral = v->keys[i].integral && stretches;
	}
	return v;
}

/* A key of the join operator opno (right input: the inner side's type). */
static void
key_init(RuntimeKeyValues *k, Oid opno, Oid collation, Oid family)
{
	Oid left, right, proc = InvalidOid;

	op_input_types(opno, &left, &right);
	k->type = right;
	get_typlenbyval(right, &k->typlen, &k->typbyval);
	k->collation = collation;
	if (OidIsValid(family))
		proc = get_opfamily_proc(family, right, right, BTORDER_PROC);
	if (!OidIsValid(proc))
	{
		/* no order: nothing can be kept */
		k->family = InvalidOid;
		k->overflow = true;
		return;
	}
	k->family = family;
	fmgr_info(proc, &k->order);
	k->integer_order = integral_key(right, family, k->typbyval);
	k->integral = k->integer_order;
	/* the distinct values' room (20 kB) is made at the first value (key_add) */
}

void
bloom_rf_values_reset(RuntimeValues *v)
{
	for (int i = 0; i < v->nkeys; i++)
	{
		RuntimeKeyValues *k = &v->keys[i];

		if (!OidIsValid(k->family))
			continue;
		if (!k->typbyval)
		{
			for (int j = 0; j < k->nexact; j++)
				pfree(DatumGetPointer(k->exact[j]));
			if (k->any && k->overflow)
			{
				pfree(DatumGetPointer(k->min));
				pfree(DatumGetPointer(k->max));
			}
		}
		k->any = false;
		k->nexact = 0;
		k->bytes = 0;
		k->stretched = false;
		/* distinct values are kept again (their room is made again at the first) */
		k->overflow = false;
		if (k->slots != NULL)
			memset(k->slots, 0, NSLOTS * sizeof(int));
	}
	v->finished = false;
}

void
bloom_rf_values_add(RuntimeValues *v, const Datum *values, const uint32 *hashes)
{
	Assert(!v->finished);
	for (int i = 0; i < v->nkeys; i++)
		if (OidIsValid(v->keys[i].family))
			key_add(v, &v->keys[i], values[i], hashes[i]);
}

void
bloom_rf_values_add_key(RuntimeValues *v, int i, Datum value, uint32 hash)
{
	Assert(!v->finished && i >= 0 && i < v->nkeys);
	if (OidIsValid(v->keys[i].family))
		key_add(v, &v->keys[i], value, hash);
}

void
bloom_rf_values_add_overflowed(RuntimeValues *v, int i, Datum min, Datum max, const uint64 *lo,
                               const uint64 *hi, int nstretches)
{
	RuntimeKeyValues *k = &v->keys[i];

	Assert(!v->finished && i >= 0 && i < v->nkeys);
	if (!OidIsValid(k->family))
		return;
	if (!k->overflow && k->exact != NULL)
		key_drop_exact(v, k);
	else if (!k->overflow)
	{
		/* no value kept yet (their room is made at the first) */
		if (k->integral)
			key_stretch(v, k);
		k->overflow = true;
	}
	key_bound(v, k, min);
	key_bound(v, k, max);
	/* stretches are kept only while every share's are (else the bounds alone decide) */
	if (k->stretched && lo != NULL && nstretches <= k->stretches.max)
		bf_stretches_add_stretches(&k->stretches, lo, hi, nstretches);
	else
		k->stretched = false;
}

/*
 * While the distinct values are kept, min and max point at two of them;
 * once they are dropped, min and max are copies of their own.
 */
static void
key_add(RuntimeValues *v, RuntimeKeyValues *k, Datum value, uint32 hash)
{
	MemoryContext old;
	Datum copy;
	Size size;
	int slot;

	if (k->overflow)
	{
		key_bound(v, k, value);
		if (k->stretched)
			bf_stretches_add(&k->stretches, ordered(k, value));
		return;
	}
	if (k->slots == NULL)
	{
		old = MemoryContextSwitchTo(v->context);
		k->exact = palloc(BLOOM_RF_EXACT_MAX * sizeof(Datum));
		k->hashes = palloc(BLOOM_RF_EXACT_MAX * sizeof(uint32));
		k->slots = palloc0(NSLOTS * sizeof(int));
		MemoryContextSwitchTo(old);
	}
	for (slot = hash & (NSLOTS - 1); k->slots[slot] != 0; slot = (slot + 1) & (NSLOTS - 1))
	{
		int j = k->slots[slot] - 1;

		if (k->hashes[j] == hash && compare(k, k->exact[j], value) == 0)
			return; /* seen */
	}
	size = k->typbyval ? 0 : datumGetSize(value, false, k->typlen);
	if (k->nexact == BLOOM_RF_EXACT_MAX || k->bytes + size > BLOOM_RF_EXACT_MAX_BYTES)
	{
		key_drop_exact(v, k);
		key_bound(v, k, value);
		if (k->stretched)
			bf_stretches_add(&k->stretches, ordered(k, value));
		return;
	}
	old = MemoryContextSwitchTo(v->context);
	copy = datumCopy(value, k->typbyval, k->typlen);
	MemoryContextSwitchTo(old);
	k->bytes += size;
	k->exact[k->nexact] = copy;
	k->hashes[k->nexact] = hash;
	k->slots[slot] = ++k->nexact;
	if (!k->any || compare(k, copy, k->min) < 0)
		k->min = copy;
	if (!k->any || compare(k, copy, k->max) > 0)
		k->max = copy;
	k->any = true;
}

/*
 * Too many distinct values: keep copies of the least and greatest only,
 * and an integer key's stretches.
 */
static void
key_drop_exact(RuntimeValues *v, RuntimeKeyValues *k)
{
	if (k->integral)
		key_stretch(v, k);
	if (!k->typbyval && k->any)
	{
		MemoryContext old = MemoryContextSwitchTo(v->context);

		k->min = datumCopy(k->min, false, k->typlen);
		k->max = datumCopy(k->max, false, k->typlen);
		MemoryContextSwitchTo(old);
	}
	if (!k->typbyval)
		for (int j = 0; j < k->nexact; j++)
			pfree(DatumGetPointer(k->exact[j]));
	pfree(k->exact);
	pfree(k->hashes);
	pfree(k->slots);
	k->exact = NULL;
	k->hashes = NULL;
	k->slots = NULL;
	k->nexact = 0;
	k->overflow = true;
}

/* Start k's stretches with its distinct values (about to be dropped). */
static void
key_stretch(RuntimeValues *v, RuntimeKeyValues *k)
{
	Assert(k->integral && !k->overflow && !k->stretched);
	if (k->stretches_buffer == NULL)
		k->stretches_buffer =
		    MemoryContextAlloc(v->context, bf_stretches_bytes(BLOOM_RF_STRETCHES_MAX));
	bf_stretches_init(&k->stretches, BLOOM_RF_STRETCHES_MAX, k->stretches_buffer);
	for (int j = 0; j < k->nexact; j++)
		bf_stretches_add(&k->stretches, ordered(k, k->exact[j]));
	k->stretched = true;
}

/*
 * Whether values of type, ordered by B-tree family, are integers in their
 * own order, which stretches can hold: the type's default B-tree family
 * (its "=" is equality of the integers), passed by value.
 */
static bool
integral_key(Oid type, Oid family, bool byval)
{
	Oid opclass;

	if (!bloom_rf_integer_type(type))
		return false;
	opclass = GetDefaultOpClass(type, BTREE_AM_OID);
	return byval && OidIsValid(opclass) && get_opclass_family(opclass) == family;
}

bool
bloom_rf_integer_type(Oid type)
{
	return type == INT2OID || type == INT4OID || type == INT8OID || type == DATEOID ||
	       type == TIMESTAMPOID || type == TIMESTAMPTZOID;
}

int64
bloom_rf_integer_value(Oid type, Datum value)
{
	Assert(bloom_rf_integer_type(type));
	switch (type)
	{
		case INT2OID:
			return DatumGetInt16(value);
		case INT4OID:
		case DATEOID:
			return DatumGetInt32(value);
		default:
			return DatumGetInt64(value);
	}
}

/* An integer key's value as a stretch value: in the order of unsigned integers. */
static uint64
ordered(const RuntimeKeyValues *k, Datum value)
{
	return (uint64) bloom_rf_integer_value(k->type, value) ^ BF_STRETCH_SIGN;
}

/* The value of the key's type a stretch value is. */
static Datum
from_ordered(const RuntimeKeyValues *k, uint64 value)
{
	int64 x = (int64) (value ^ BF_STRETCH_SIGN);

	switch (k->type)
	{
		case INT2OID:
			return Int16GetDatum((int16) x);
		case INT4OID:
		case DATEOID:
			return Int32GetDatum((int32) x);
		default:
			return Int64GetDatum(x);
	}
}

/* Widen min and max to value (distinct values no longer kept). */
static void
key_bound(RuntimeValues *v, RuntimeKeyValues *k, Datum value)
{
	bool below, above;
	MemoryContext old;

	Assert(k->overflow);
	if (k->any)
	{
		below = compare(k, value, k->min) < 0;
		above = !below && compare(k, value, k->max) > 0;
		if (!below && !above)
			return;
	}
	else
		below = above = true;
	old = MemoryContextSwitchTo(v->context);
	if (below)
	{
		if (k->any && !k->typbyval)
			pfree(DatumGetPointer(k->min));
		k->min = datumCopy(value, k->typbyval, k->typlen);
	}
	if (above)
	{
		if (k->any && !k->typbyval)
			pfree(DatumGetPointer(k->max));
		k->max = datumCopy(value, k->typbyval, k->typlen);
	}
	MemoryContextSwitchTo(old);
	k->any = true;
}

void
bloom_rf_values_finish(RuntimeValues *v)
{
	for (int i = 0; i < v->nkeys; i++)
	{
		RuntimeKeyValues *k = &v->keys[i];

		if (!k->overflow && k->nexact > 1)
			sort_exact(k);
		if (k->stretched)
			bf_stretches_finish(&k->stretches);
	}
	v->finished = true;
}

bool
bloom_rf_values_exact(const RuntimeValues *v, int i)
{
	Assert(i >= 0 && i < v->nkeys);
	return OidIsValid(v->keys[i].family) && !v->keys[i].overflow;
}

int
bloom_rf_values_run_end(const RuntimeKeyValues *k, int e)
{
	Assert(!k->overflow && e >= 0 && e < k->nexact);
	/* (not k->integral: that one also says whether stretches are kept) */
	if (!k->integer_order)
		return e;
	while (e + 1 < k->nexact)
	{
		int64 value = bloom_rf_integer_value(k->type, k->exact[e]);

		/* the next is one more (so greater: no wrap past the type's greatest, sorted or not) */
		if (value == PG_INT64_MAX || bloom_rf_integer_value(k->type, k->exact[e + 1]) != value + 1)
			break;
		e++;
	}
	return e;
}

void
bloom_rf_values_stretch(const RuntimeKeyValues *k, int j, Datum *lo, Datum *hi)
{
	Assert(k->stretched && j >= 0 && j < k->stretches.n && k->stretches.npending == 0);
	*lo = from_ordered(k, k->stretches.lo[j]);
	*hi = from_ordered(k, k->stretches.hi[j]);
}

/* cmp(value, bound) under collation */
static int
compare_bound(FmgrInfo *cmp, Oid collation, Datum value, Datum bound)
{
	return DatumGetInt32(FunctionCall2Coll(cmp, collation, value, bound));
}

/*
 * Whether a stretch of k meets [lower, upper) ([lower, upper] if
 * upper_inclusive), compared in k's order: the first stretch reaching lower
 * (by binary search) begins before upper.
 */
static bool
stretches_between(const RuntimeKeyValues *k, FmgrInfo *cmp, Oid collation, const Datum *lower,
                  const Datum *upper, bool upper_inclusive)
{
	int lo = 0, hi = k->stretches.n;
	int c;

	while (lower != NULL && lo < hi)
	{
		int mid = lo + (hi - lo) / 2;

		if (compare_bound(cmp, collation, from_ordered(k, k->stretches.hi[mid]), *lower) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == k->stretches.n)
		return false;
	if (upper == NULL)
		return true;
	c = compare_bound(cmp, collation, from_ordered(k, k->stretches.lo[lo]), *upper);
	return upper_inclusive ? c <= 0 : c < 0;
}

static bool
value_between(FmgrInfo *cmp, Oid collation, Datum value, const Datum *lower, const Datum *upper,
              bool upper_inclusive)
{
	int c;

	if (lower != NULL && compare_bound(cmp, collation, value, *lower) < 0)
		return false;
	if (upper == NULL)
		return true;
	c = compare_bound(cmp, collation, value, *upper);
	return upper_inclusive ? c <= 0 : c < 0;
}

bool
bloom_rf_sorted_between(FmgrInfo *cmp, Oid collation, const Datum *values, int n,
                        const Datum *lower, const Datum *upper, bool upper_inclusive)
{
	/* the first value not below lower, by binary search; then is it below upper? */
	int lo = 0, hi = n;

	while (lower != NULL && lo < hi)
	{
		int mid = lo + (hi - lo) / 2;

		if (compare_bound(cmp, collation, values[mid], *lower) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && value_between(cmp, collation, values[lo], NULL, upper, upper_inclusive);
}

bool
bloom_rf_values_between(const RuntimeValues *v, int i, FmgrInfo *cmp, Oid collation,
                        bool same_order, const Datum *lower, const Datum *upper,
                        bool upper_inclusive)
{
	const RuntimeKeyValues *k;

	Assert(v->finished && i >= 0 && i < v->nkeys);
	k = &v->keys[i];
	if (!OidIsValid(k->family))
		return true; /* nothing kept: anything may be there */
	if (!k->any)
		return false; /* no key at all */
	if (k->overflow)
	{
		/* only the least and greatest: in the same order, the ranges must meet */
		if (!same_order)
			return true;
		if (k->stretched)
			return stretches_between(k, cmp, collation, lower, upper, upper_inclusive);
		if (lower != NULL && compare_bound(cmp, collation, k->max, *lower) < 0)
			return false;
		if (upper != NULL && (upper_inclusive ? compare_bound(cmp, collation, k->min, *upper) > 0
		                                      : compare_bound(cmp, collation, k->min, *upper) >= 0))
			return false;
		return true;
	}
	if (same_order)
		return bloom_rf_sorted_between(cmp, collation, k->exact, k->nexact, lower, upper,
		                               upper_inclusive);
	for (int j = 0; j < k->nexact; j++)
	{
		if (value_between(cmp, collation, k->exact[j], lower, upper, upper_inclusive))
			return true;
		if ((j & 1023) == 1023)
			CHECK_FOR_INTERRUPTS();
	}
	return false;
}

static int
compare(RuntimeKeyValues *k, Datum a, Datum b)
{
	return DatumGetInt32(FunctionCall2Coll(&k->order, k->collation, a, b));
}

/* A distinct value with its own hash, as they are sorted together. */
typedef struct ValueAndHash
{
	Datum value;
	uint32 hash;
} ValueAndHash;

static int
compare_for_sort(const void *a, const void *b, void *arg)
{
	return compare(arg, ((const ValueAndHash *) a)->value, ((const ValueAndHash *) b)->value);
}

/*
 * Sort the distinct values, each keeping its own hash beside it (a
 * parallel scan shares keys out by their hashes: exec/scanshare.c).  The
 * open-addressing slots are stale after it: no value is added to a
 * finished build.
 */
static void
sort_exact(RuntimeKeyValues *k)
{
	ValueAndHash *pairs = palloc(k->nexact * sizeof(ValueAndHash));

	for (int j = 0; j < k->nexact; j++)
	{
		pairs[j].value = k->exact[j];
		pairs[j].hash = k->hashes[j];
	}
	qsort_arg(pairs, k->nexact, sizeof(ValueAndHash), compare_for_sort, k);
	for (int j = 0; j < k->nexact; j++)
	{
		k->exact[j] = pairs[j].value;
		k->hashes[j] = pairs[j].hash;
	}
	pfree(pairs);
}
