/*
 * bloom_auto.c
 *	  bloom_agg(value) without sizing hints: collect the values' hashes,
 *	  then build the smallest filter that meets 1 % for their distinct count.
 *
 * A filter must be sized before the first value goes in, and an aggregate
 * does not know how many values will come.  So the state starts as the
 * exact set of the values' 64-bit hashes (the explicit layout, as
 * postgresql-hll's explicit mode), and the final function sizes a classic
 * filter for the count it finds: the optimal size for that count, whether it
 * is 10 or 30 million, and a GROUP BY of many small groups holds many small
 * sets, not many large filters.
 *
 * The set costs 8 bytes a distinct value.  Past agg_explicit_limit distinct
 * values (33.5 million by default, 256 MB of hashes) the state becomes a
 * "wide" classic filter of AUTO_WIDE_BITS bits (1 GB) and k = 7, the best k
 * at 1 %, and the final function folds it (core/bf_explicit.c) by the largest
 * factor f dividing AUTO_WIDE_BITS that still meets 1 % for the estimated
 * count.  Folding is exact: the result is bit for bit the filter of the same
 * values built at AUTO_WIDE_BITS / f bits.  AUTO_WIDE_BITS is a multiple of
 * lcm(1, ..., 18), so consecutive usable factors are at most 20/18 apart up
 * to 30, and the folded size stays within 1.2x of the optimum as long as f >=
 * 5, that is up to about 179 million distinct values; beyond, the filter is
 * larger than optimal, and beyond about 890 million no filter under 1 GB
 * meets 1 %.
 *
 * Whether the state ends as a set or a wide filter depends only on the set of
 * values (the final function widens a set above the limit too), so serial
 * and parallel builds, whose partial states are flattened to bloom values and
 * merged by the combine function, give the same filter bit for bit.
 *
 * The state lives in an expanded object (utils/expandeddatum.h): nodeAgg
 * keeps a read-write expanded transition value in place, so appending a hash
 * costs no copy of the state, and the object is flattened to a bloom value
 * (explicit or classic) only when it leaves the process.  Hashes are
 * appended unsorted and merged into a sorted, duplicate-free head when the
 * tail reaches half the head (radix sort, then merge): constant work per
 * value, and a bounded share of memory for duplicates.
 */
#include "bloom_pg.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/expandeddatum.h"
#include "utils/guc.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(bloom_agg_auto_trans);
PG_FUNCTION_INFO_V1(bloom_agg_auto_trans_fpp);
PG_FUNCTION_INFO_V1(bloom_agg_auto_combine);
PG_FUNCTION_INFO_V1(bloom_agg_finalize);

#define AUTO_FPP 0.01
#define AUTO_WIDE_BITS (UINT64CONST(12252240) * 701) /* lcm(1..18) * 701, under 1 GB */
#define AUTO_MIN_CAPACITY 64
#define AUTO_DEFAULT_LIMIT (1 << 25)

static int agg_explicit_limit = AUTO_DEFAULT_LIMIT;

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
	BloomKeptHasher kept;      /* for callers without fn_extra across rows (bloom_pg.h) */
	uint32 target_ppb;         /* bloom_agg(value, fpp): the rate; 0: AUTO_FPP */
} BloomAuto;

static Size auto_flat_size(ExpandedObjectHeader *eohptr);
static void auto_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods auto_methods = {auto_flat_size, auto_flatten};

void
bloom_auto_define_guc(void)
{
	DefineCustomIntVariable(
	    "bloomfilter.agg_explicit_limit",
	    "Distinct values bloom_agg(value) holds as exact hashes before it switches to a 1 GB "
	    "filter that it folds at the end.",
	    "Lower it only to test the switch: above the limit every group's state takes 1 GB.",
	    &agg_explicit_limit, AUTO_DEFAULT_LIMIT, 1, AUTO_DEFAULT_LIMIT, PGC_USERSET, 0, NULL, NULL,
	    NULL);
}

/* The limit, the same for the whole query (workers inherit the setting). */
static size_t
explicit_limit(void)
{
	return (size_t) agg_explicit_limit;
}

/* Set the bits of hashes[0 .. n) in a bit filter, in interruptible chunks. */
static void
add_hashes(bf_view *view, const uint64 *hashes, size_t n)
{
	for (size_t i = 0; i < n; i += BLOOM_HASHES_PER_CHECK)
	{
		CHECK_FOR_INTERRUPTS();
		bf_add_hashes(view, hashes + i, Min((size_t) BLOOM_HASHES_PER_CHECK, n - i));
	}
}

/* The rate the finished filter must meet. */
static double
target_fpp(uint32 target_ppb)
{
	return target_ppb ? (double) target_ppb / BF_TARGET_SCALE : AUTO_FPP;
}

/* k of the wide filter: the best k at the target rate, log2(1 / rate) (7 at 1 %). */
static uint16
wide_hashes(uint32 target_ppb)
{
	long k = lround(log2(1.0 / target_fpp(target_ppb)));

	return (uint16) Max(1, Min(k, BF_MAX_HASHES));
}

static BloomAuto *
auto_new(MemoryContext parent, const char *elem, size_t elemlen, uint32 target_ppb)
{
	BloomAuto *st = bloom_agg_state_new(parent, &auto_methods, sizeof(BloomAuto));

	st->capacity = AUTO_MIN_CAPACITY;
	st->hashes = MemoryContextAlloc(st->hdr.eoh_context, st->capacity * sizeof(uint64));
	memcpy(st->elem, elem, elemlen);
	st->elemlen = elemlen;
	st->target_ppb = target_ppb;
	return st;
}

/* Turn the set into the wide filter, adding every hash held. */
static void
auto_widen(BloomAuto *st)
{
	bf_params p = {BF_LAYOUT_CLASSIC, BF_SCHEME_DOUBLE_HASHING, wide_hashes(st->target_ppb), 0,
	               AUTO_WIDE_BITS};
	MemoryContext old = MemoryContextSwitchTo(st->hdr.eoh_context);

	/* the wide filter keeps the target, so that its flat form still knows it */
	bloom_new_target(&p, st->target_ppb ? BF_FLAG_TARGET : 0, st->target_ppb, st->elem, st->elemlen,
	                 0, &st->wide.f);
	add_hashes(&st->wide.f.view, st->hashes, st->nused);
	pfree(st->hashes);
	st->hashes = NULL;
	bloom_batch_init(&st->wide);
	st->nsorted = st->nused = st->capacity = 0;
	MemoryContextSwitchTo(old);
}

/* Sort the appended tail into the head; widen if the set outgrew the limit. */
static void
auto_compact(BloomAuto *st)
{
	size_t tail = st->nused - st->nsorted;
	uint64 *tmp;

	if (st->hashes == NULL)
	{
		/* a wide filter: write the pending hashes */
		bloom_batch_write(&st->wide);
		return;
	}
	if (tail == 0)
		return;
	CHECK_FOR_INTERRUPTS();
	tmp = MemoryContextAllocHuge(st->hdr.eoh_context, tail * sizeof(uint64));
	tail = bf_hashes_sort_unique(st->hashes + st->nsorted, tail, tmp);
	memcpy(tmp, st->hashes + st->nsorted, tail * sizeof(uint64));
	st->nsorted = st->nused = bf_hashes_merge(st->hashes, st->nsorted, tmp, tail);
	pfree(tmp);
	if (st->nsorted > explicit_limit())
		auto_widen(st);
}

static void
auto_add_hash(BloomAuto *st, uint64 h)
{
	if (st->hashes == NULL)
	{
		bloom_batch_add(&st->wide, h); /* written in batches (bloom_aggstate.c) */
		return;
	}
	if (st->nused == st->capacity)
	{
		auto_compact(st);
		if (st->hashes == NULL)
		{
			auto_add_hash(st, h);
			return;
		}
		/* grow when the distinct hashes fill half of it; the limit bounds it */
		if (st->nused > st->capacity / 2)
		{
			st->capacity = Min(st->capacity * 2, explicit_limit() + explicit_limit() / 4 + 1);
			st->hashes = repalloc_huge(st->hashes, st->capacity * sizeof(uint64));
		}
	}
	st->hashes[st->nused++] = h;
	/* a tail as long as half the head: sort it in (O(1) a value, amortized) */
	if (st->nused - st->nsorted >= Max(st->nsorted / 2, AUTO_MIN_CAPACITY))
		auto_compact(st);
}

/*
 * Add the hashes of an explicit filter.  They come sorted and distinct, so
 * they are merged into the head in one pass when the head has room for
 * both (a parallel aggregate's leader merges the workers' sets this way);
 * otherwise, or into a wide filter, they are added one chunk at a time.
 */
static void
auto_add_set(BloomAuto *st, const bf_view *v)
{
	size_t n = (size_t) v->p.ncells;
	size_t max_capacity = explicit_limit() + explicit_limit() / 4 + 1;
	uint64 *chunk;

	auto_compact(st);
	if (st->hashes != NULL && st->nsorted + n <= max_capacity)
	{
		if (st->nsorted + n > st->capacity)
		{
			st->capacity = Max(st->nsorted + n, Min(st->capacity * 2, max_capacity));
			st->hashes = repalloc_huge(st->hashes, st->capacity * sizeof(uint64));
		}
		chunk = MemoryContextAllocHuge(st->hdr.eoh_context, Max(n, 1) * sizeof(uint64));
		bf_explicit_hashes(v, chunk);
		st->nsorted = st->nused = bf_hashes_merge(st->hashes, st->nsorted, chunk, n);
		pfree(chunk);
		if (st->nsorted > explicit_limit())
			auto_widen(st);
		return;
	}
	chunk = palloc(BLOOM_HASHES_PER_CHECK * sizeof(uint64));
	for (size_t i = 0; i < n; i += BLOOM_HASHES_PER_CHECK)
	{
		size_t len = Min((size_t) BLOOM_HASHES_PER_CHECK, n - i);

		CHECK_FOR_INTERRUPTS();
		for (size_t j = 0; j < len; j++)
			chunk[j] = bf_explicit_hash(v, i + j);
		if (st->hashes == NULL)
			bf_add_hashes(&st->wide.f.view, chunk, len);
		else
			for (size_t j = 0; j < len; j++)
				auto_add_hash(st, chunk[j]);
	}
	pfree(chunk);
}

/* Add what a flat bloom value holds: a set's hashes, or a wide filter's bits. */
static void
auto_add_flat(BloomAuto *st, const BloomFilter *f)
{
	const bf_view *v = &f->view;

	if (v->elemlen != 0 && st->elemlen != 0 &&
	    !bf_elem_equal(v->elem, v->elemlen, st->elem, st->elemlen))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("cannot combine bloom filters that differ in element family: %.*s "
		                       "and %.*s",
		                       (int) st->elemlen, st->elem, (int) v->elemlen, v->elem)));
	if (v->target_ppb != st->target_ppb)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("cannot combine partial states of bloom_agg that aim at different rates: "
		                "%g and %g",
		                target_fpp(st->target_ppb), target_fpp(v->target_ppb))));
	if (st->elemlen == 0 && v->elemlen != 0)
	{
		memcpy(st->elem, v->elem, v->elemlen);
		st->elemlen = v->elemlen;
	}
	if (v->p.layout == BF_LAYOUT_EXPLICIT)
		auto_add_set(st, v);
	else
	{
		if (st->hashes != NULL)
			auto_widen(st);
		bloom_bytes_op(&st->wide.f.view, v, bf_union_bytes);
	}
	st->nadded = bloom_add_counts(st->nadded, v->nadded);
}

/*
 * A partial state of bloom_agg(value): a set, or a wide filter, of hashes
 * made with seed 0 (another seed's hashes would land on other bits).
 */
static bool
is_auto_state(const bf_view *v)
{
	if (v->p.seed != 0 || v->p.scheme != BF_SCHEME_DOUBLE_HASHING)
		return false;
	if (v->p.layout == BF_LAYOUT_EXPLICIT)
		return true;
	return v->p.layout == BF_LAYOUT_CLASSIC && v->p.ncells == AUTO_WIDE_BITS &&
	       v->p.nhashes == wide_hashes(v->target_ppb) && !(v->flags & BF_FLAG_DERIVED);
}

/* Our expanded state in the datum, or NULL. */
static BloomAuto *
auto_of_datum(Datum d)
{
	return (BloomAuto *) bloom_agg_state_of(d, &auto_methods);
}

/* Raise 22023 unless v is a partial state of bloom_agg(value). */
static void
require_auto_state(const bf_view *v)
{
	if (!is_auto_state(v))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("bloom value is not a partial state of bloom_agg(value)"),
		                errdetail("A partial state is an explicit filter of seed 0, or a classic "
		                          "filter of " UINT64_FORMAT " bits and seed 0 (7 hashes at 1 %%).",
		                          AUTO_WIDE_BITS)));
}

/* A new state in parent holding what the flat partial state f holds. */
static BloomAuto *
auto_from_flat(const BloomFilter *f, MemoryContext parent)
{
	BloomAuto *st;

	require_auto_state(&f->view);
	st = auto_new(parent, f->view.elem, f->view.elemlen, f->view.target_ppb);
	auto_add_flat(st, f);
	return st;
}

/*
 * The state in argument argno as an expanded object we may modify: the
 * aggregate's own read-write state, or a new one (in parent) holding a flat
 * state that came from elsewhere (a parallel worker, a sharded engine).
 */
static BloomAuto *
auto_state_arg(FunctionCallInfo fcinfo, int argno, MemoryContext parent)
{
	Datum d = PG_GETARG_DATUM(argno);
	BloomAuto *st = auto_of_datum(d);
	BloomFilter f;

	if (st != NULL && bloom_agg_state_is_rw(d) &&
	    MemoryContextGetParent(st->hdr.eoh_context) == parent)
		return st;
	bloom_get_datum(d, &f); /* flattens an expanded value */
	return auto_from_flat(&f, parent);
}

/*
 * The rate of bloom_agg(value, fpp) in parts per billion, read on the first
 * row: rounded down, so that the filter meets the rate asked for.
 */
static uint32
fpp_arg(FunctionCallInfo fcinfo, int argno)
{
	double fpp, ppb;

	if (PG_ARGISNULL(argno))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
		                errmsg("bloom_agg false-positive rate fpp must not be NULL")));
	fpp = PG_GETARG_FLOAT8(argno);
	ppb = floor(fpp * BF_TARGET_SCALE);
	if (!(ppb >= 1 && ppb < BF_TARGET_SCALE))
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("bloom_agg false-positive rate %g is out of range (0.000000001 to 1)", fpp),
		         errhint("To give the expected number of values, use bloom_agg(value, "
		                 "expected_n, fpp).")));
	return (uint32) ppb;
}

/*
 * Shared body of the transition functions of bloom_agg(value) and
 * bloom_agg(value, fpp) (fpp_argno >= 0).
 */
static Datum
auto_trans(FunctionCallInfo fcinfo, int fpp_argno)
{
	BloomHasher *hasher;
	BloomAuto *st;

	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	st = PG_ARGISNULL(0) ? NULL : auto_of_datum(PG_GETARG_DATUM(0));
	hasher = bloom_agg_hasher(fcinfo, 1, st ? &st->kept : NULL);
	if (st == NULL || !bloom_agg_state_is_rw(PG_GETARG_DATUM(0)))
	{
		/*
		 * Not our own read-write state, which only the aggregate that owns
		 * it hands over: a new state, or one holding a flat partial state.
		 */
		MemoryContext aggcontext = bloom_agg_context(fcinfo, "bloom_agg_auto_trans");

		if (PG_ARGISNULL(0))
			st = auto_new(aggcontext, hasher->elem, hasher->elemlen,
			              fpp_argno >= 0 ? fpp_arg(fcinfo, fpp_argno) : 0);
		else
			st = auto_state_arg(fcinfo, 0, aggcontext);
	}
	hasher = bloom_agg_keep_hasher(fcinfo, hasher, &st->kept, st->hdr.eoh_context);
	if (st->hasher != hasher)
	{
		if (!bf_elem_equal(st->elem, st->elemlen, hasher->elem, hasher->elemlen))
			ereport(ERROR, (errcode(ERRCODE_DATATYPE_MISMATCH),
			                errmsg("bloom_agg state holds values of %.*s, not %s",
			                       (int) st->elemlen, st->elem, hasher->elem)));
		st->hasher = hasher; /* compared once, not per row */
	}
	auto_add_hash(st, bloom_hash_value(hasher, PG_GETARG_DATUM(1), 0));
	if (st->nadded < (uint64) PG_INT64_MAX)
		st->nadded++;
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/* bloom_agg_auto_trans(state, value): the transition function of bloom_agg(value). */
Datum
bloom_agg_auto_trans(PG_FUNCTION_ARGS)
{
	return auto_trans(fcinfo, -1);
}

/*
 * bloom_agg_auto_trans(state, value, fpp): bloom_agg(value, fpp), sized
 * from the data for the rate fpp (that of the first row).
 */
Datum
bloom_agg_auto_trans_fpp(PG_FUNCTION_ARGS)
{
	return auto_trans(fcinfo, 2);
}

/* bloom_agg_auto_combine(a, b): merge partial states (sets and wide filters). */
Datum
bloom_agg_auto_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext = bloom_agg_context(fcinfo, "bloom_agg_auto_combine");
	BloomAuto *st = auto_state_arg(fcinfo, 0, aggcontext);
	BloomFilter other;

	bloom_get_datum(PG_GETARG_DATUM(1), &other);
	require_auto_state(&other.view);
	auto_add_flat(st, &other);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}

/* The smallest classic filter meeting the target for the set's distinct count. */
static Datum
auto_sized(BloomAuto *st)
{
	bf_params p = {BF_LAYOUT_CLASSIC, BF_SCHEME_DOUBLE_HASHING, 0, 0, 0};
	bf_error err;
	int k;
	BloomFilter f;

	if (!bf_size_for((double) Max(st->nsorted, 1), target_fpp(st->target_ppb), &p.ncells, &k, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	p.nhashes = (uint16) k;
	bloom_new(&p, 0, st->elem, st->elemlen, st->nadded, &f);
	add_hashes(&f.view, st->hashes, st->nsorted);
	return PointerGetDatum(f.raw);
}

/* Whether the wide filter w folded by f meets the target for n distinct values. */
static bool
fold_meets(const BloomAuto *st, uint64 f, double n)
{
	return AUTO_WIDE_BITS % f == 0 &&
	       bf_fpp(n, (double) (AUTO_WIDE_BITS / f), st->wide.f.view.p.nhashes) <=
	           target_fpp(st->target_ppb);
}

/* The wide filter folded by the largest factor that still meets the target. */
static Datum
auto_folded(BloomAuto *st)
{
	const bf_view *w = &st->wide.f.view;
	double n = bf_estimate_distinct(w->p.ncells, w->p.nhashes, bloom_count_occupied(w));
	uint64 best = 1;
	bf_params p = w->p;
	BloomFilter out;

	/*
	 * The estimate from the fill errs by far less than 0.1 % at the counts
	 * that reach this point (tens of millions in a billion bits); the margin
	 * covers it.  Every divisor of AUTO_WIDE_BITS is a candidate.
	 */
	n = n * 1.001 + 1;
	if (isfinite(n))
		for (uint64 c = 1; c * c <= AUTO_WIDE_BITS; c++)
		{
			if (AUTO_WIDE_BITS % c != 0)
				continue;
			if (fold_meets(st, AUTO_WIDE_BITS / c, n))
			{
				best = Max(best, AUTO_WIDE_BITS / c);
				break; /* c ascending: the largest factor of the pair kind */
			}
			if (fold_meets(st, c, n))
				best = Max(best, c);
		}
	p.ncells = AUTO_WIDE_BITS / best;
	bloom_new(&p, 0, st->elem, st->elemlen, st->nadded, &out); /* finished: no target */
	bloom_bytes_op(&out.view, w, bf_fold_bytes);
	return PointerGetDatum(out.raw);
}

/*
 * bloom_agg_finalize(state) -> bloom: the final function of bloom_agg(value)
 * and bloom_agg(value, fpp).  A set becomes the smallest classic filter that
 * meets the target (1 % or fpp) for its distinct count, a wide filter is
 * folded; any other filter is returned as it is.
 * Callable on partial states a sharded engine gathered.
 */
Datum
bloom_agg_finalize(PG_FUNCTION_ARGS)
{
	BloomAuto *st = auto_of_datum(PG_GETARG_DATUM(0));

	if (st == NULL)
	{
		BloomFilter f;

		bloom_get_arg(fcinfo, 0, false, &f);
		if (!is_auto_state(&f.view))
			PG_RETURN_POINTER(f.raw);
		st = auto_from_flat(&f, CurrentMemoryContext);
	}
	/*
	 * Sorting the tail in (or widening) changes how the state is held, not
	 * what it holds: allowed to a read-only final function.
	 */
	auto_compact(st);
	if (st->hashes != NULL)
		return auto_sized(st);
	return auto_folded(st);
}

/* The shape and flags of the explicit filter a compacted set of hashes flattens to. */
static uint8
explicit_shape(const BloomAuto *st, bf_params *p)
{
	*p = (bf_params){BF_LAYOUT_EXPLICIT, BF_SCHEME_DOUBLE_HASHING, 0, 0, st->nsorted};
	return st->target_ppb ? BF_FLAG_TARGET : 0;
}

static Size
auto_flat_size(ExpandedObjectHeader *eohptr)
{
	BloomAuto *st = (BloomAuto *) eohptr;
	bf_params p;
	uint8 flags;
	size_t len;
	bf_error err;

	auto_compact(st);
	if (st->hashes == NULL)
		return VARSIZE(st->wide.f.raw);
	flags = explicit_shape(st, &p);
	if (!bf_payload_size(&p, flags, st->elemlen, &len, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	return VARHDRSZ + len;
}

static void
auto_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	BloomAuto *st = (BloomAuto *) eohptr;
	struct varlena *raw = (struct varlena *) result;
	bf_params p;
	uint8 flags;
	bf_view view;

	auto_compact(st); /* done by auto_flat_size already: nothing changes size here */
	if (st->hashes == NULL)
	{
		/* the state's count: the wide filter's own counts only what came after widening */
		bf_view_set_nadded(&st->wide.f.view, st->nadded);
		memcpy(raw, st->wide.f.raw, allocated_size);
		return;
	}
	flags = explicit_shape(st, &p);
	SET_VARSIZE(raw, allocated_size);
	bf_init_header((uint8_t *) VARDATA(raw), &p, flags, st->elem, st->elemlen, st->nadded, &view);
	Assert(view.data + view.nbytes == (uint8 *) raw + allocated_size);
	if (st->target_ppb)
		bf_view_set_target(&view, st->target_ppb);
	bf_explicit_set_hashes(&view, st->hashes);
}
