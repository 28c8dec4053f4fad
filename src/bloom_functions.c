/*
 * bloom_functions.c
 *	  SQL functions of the bloom type: creating, adding, probing, inspecting.
 */
#include "bloom_functions.h"
#include "bloom_explicit.h"
#include "bloom_makers.h"
#include "bloom_setops.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(bloom_empty);
PG_FUNCTION_INFO_V1(bloom_empty_layout);
PG_FUNCTION_INFO_V1(counting_bloom_empty);
PG_FUNCTION_INFO_V1(bloom_empty_mk);
PG_FUNCTION_INFO_V1(bloom_add);
PG_FUNCTION_INFO_V1(bloom_contains);
PG_FUNCTION_INFO_V1(bloom_contained);
PG_FUNCTION_INFO_V1(bloom_info);
PG_FUNCTION_INFO_V1(bloom_cardinality);
PG_FUNCTION_INFO_V1(bloom_layers);

/* An empty filter of the layout, sized for n values at rate fpp. */
static Datum
empty_sized(int64 n, double fpp, uint8 layout)
{
	bf_params p = {layout, BF_SCHEME_DOUBLE_HASHING, 0, 0, 0};
	bf_error err;
	int k;
	BloomFilter f;

	if (!bf_size_for_layout(layout, (double) n, fpp, &p.ncells, &k, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	p.nhashes = (uint16) k;
	bloom_new(&p, 0, NULL, 0, 0, &f);
	PG_RETURN_POINTER(f.raw);
}

/*
 * bloom_empty(expected_n bigint, fpp float8) -> bloom
 *
 * An empty filter sized so that after expected_n distinct values the rate of
 * false positives is at most fpp.
 */
Datum
bloom_empty(PG_FUNCTION_ARGS)
{
	return empty_sized(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), BF_LAYOUT_CLASSIC);
}

/*
 * bloom_empty(expected_n bigint, fpp float8, layout text) -> bloom
 *
 * The same in the layout named: "classic" or "blocked" (blocked512, sized by
 * its own formula, which needs a few more bits for the same rate).
 */
Datum
bloom_empty_layout(PG_FUNCTION_ARGS)
{
	return empty_sized(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), bloom_layout_arg(fcinfo, 2));
}

/*
 * counting_bloom_empty(expected_n bigint, fpp float8) -> counting_bloom
 *
 * The same sizing, with a 4-bit counter in place of each bit.
 */
Datum
counting_bloom_empty(PG_FUNCTION_ARGS)
{
	return empty_sized(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), BF_LAYOUT_COUNTING4);
}

/*
 * bloom_empty_mk(nbits bigint, nhashes int, seed bigint [, layout text]) -> bloom
 *
 * An empty filter of exactly m bits and k hashes, for users who size it
 * themselves (or reproduce another system's filter).  For the blocked
 * layout m must be a multiple of 512.
 */
Datum
bloom_empty_mk(PG_FUNCTION_ARGS)
{
	int64 nbits = PG_GETARG_INT64(0);
	int32 nhashes = PG_GETARG_INT32(1);
	int64 seed = PG_GETARG_INT64(2);
	bf_params p = {bloom_layout_arg(fcinfo, 3), BF_SCHEME_DOUBLE_HASHING, 0, (uint64) seed, 0};
	BloomFilter f;

	if (nbits < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("number of bits must be at least 1")));
	if (nhashes < 1 || nhashes > BF_MAX_HASHES)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("number of hashes must be between 1 and %d", BF_MAX_HASHES)));
	p.ncells = (uint64) nbits;
	p.nhashes = (uint16) nhashes;
	bloom_new(&p, 0, NULL, 0, 0, &f);
	PG_RETURN_POINTER(f.raw);
}

void
bloom_add_datum(BloomFilter *f, BloomHasher *hasher, Datum value)
{
	uint64 h;

	bloom_check_elem(&f->view, hasher);
	if (f->view.elemlen == 0)
	{
		/* a window filter's table (its clock) goes with it: the old value stays allocated */
		const uint8 *table = f->view.window;

		bloom_new_target(&f->view.p, f->view.flags, f->view.target_ppb, hasher->elem,
		                 hasher->elemlen, 0, f);
		if (table != NULL)
			memcpy(f->view.window, table, bf_window_table_bytes(&f->view.p));
	}
	h = bloom_hash_value(hasher, value, f->view.p.seed);
	bloom_set_hash(f, h);
	bf_view_set_nadded(&f->view, bloom_add_counts(f->view.nadded, 1));
}

/*
 * bloom_add(bloom, value) -> bloom
 *
 * A copy of the filter with the value added.  A NULL value is ignored (the
 * filter is returned unchanged), as aggregates ignore NULLs.  Also for
 * counting_bloom, whose counters it increments.
 */
Datum
bloom_add(PG_FUNCTION_ARGS)
{
	BloomFilter f;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	bloom_get_arg_any(fcinfo, 0, true, &f);
	if (bf_layout_is_maker(f.view.p.layout))
		bloom_maker_add_arg(fcinfo, 1, &f); /* as its maker adds the value */
	else
		bloom_add_datum(&f, bloom_hasher_for_arg(fcinfo, 1), PG_GETARG_DATUM(1));
	PG_RETURN_POINTER(f.raw);
}

/*
 * Whether argument value_arg may be in the filter of argument filter_arg:
 * the filter (detoasted once per query if stored), then the value's hash
 * (its hasher set up once per call site), then the bits.
 */
static bool
contains(FunctionCallInfo fcinfo, int filter_arg, int value_arg)
{
	BloomFilter f;
	bool kept = bloom_get_arg_cached(fcinfo, filter_arg, &f);

	if (f.view.elemlen == 0)
		return false; /* nothing was ever added */
	/* another maker's filter: the value hashed as its maker hashes it (bloom_makers.c) */
	if (bf_layout_is_maker(f.view.p.layout))
		return bloom_maker_contains_arg(fcinfo, value_arg, &f.view, kept);
	return bf_contains_hash(&f.view, bloom_hash_arg(fcinfo, value_arg, &f.view, kept));
}

/*
 * bloom_contains(bloom, value) -> boolean, and the operator bloom @> value.
 *
 * false: the value was certainly never added.  true: it probably was (with
 * the filter's false-positive rate).
 */
Datum
bloom_contains(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains(fcinfo, 0, 1));
}

/* value <@ bloom: the commutator of @>. */
Datum
bloom_contained(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(contains(fcinfo, 1, 0));
}

/*
 * bloom_info(bloom or counting_bloom) -> record
 *
 * Everything the header says, and what the data tell: how many bits are set
 * (counters non-zero), the distinct values that explains, and the
 * false-positive rate it gives now.  For a derived filter (an intersection)
 * the rate is the bound that holds for values of one operand but not the
 * other, and the distinct count the estimate made at the intersection.  An
 * explicit filter reports its hashes as bits set, no fill, its exact count
 * and a rate of 0.
 */
Datum
bloom_info(PG_FUNCTION_ARGS)
{
	BloomFilter f;
	TupleDesc tupdesc;
	Datum values[12];
	bool nulls[12] = {0};
	uint64 occupied;
	const bf_view *v;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);

	bloom_get_arg_any(fcinfo, 0, false, &f);
	v = &f.view;
	occupied = bloom_count_occupied(v);

	values[0] = CStringGetTextDatum(bf_layout_name(v->p.layout));
	values[1] = Int64GetDatum((int64) v->p.ncells);
	/* a layered filter's layers each have their own k (bloom_layers) */
	values[2] = Int32GetDatum(v->p.nhashes);
	nulls[2] = v->p.layout == BF_LAYOUT_LAYERED;
	if (v->p.layout == BF_LAYOUT_WINDOW)
	{
		/* a window filter's k is its slices: report the slices each value is written to */
		bf_window_shape w;

		bf_window_get(v, &w);
		values[2] = Int32GetDatum((int32) w.hashes);
	}
	values[3] = Int32GetDatum((int32) VARSIZE(f.raw));
	values[4] = Int64GetDatum((int64) v->nadded);
	nulls[4] = (v->flags & BF_FLAG_N_UNKNOWN) != 0; /* a filter read from its maker's bytes */
	values[5] = Int64GetDatum((int64) occupied);
	/* an explicit filter holds hashes, not bits: it has no fill */
	if (v->p.layout == BF_LAYOUT_EXPLICIT)
		nulls[6] = true;
	else
		values[6] = Float8GetDatum((double) occupied / (double) v->p.ncells);
	values[7] = Float8GetDatum(bloom_estimate_distinct(v, occupied));
	values[8] = Float8GetDatum(bloom_current_fpp(v, occupied));
	if (v->elemlen > 0)
		values[9] = CStringGetTextDatum(bloom_elem_for_message(v->elem, v->elemlen));
	else
		nulls[9] = true;
	values[10] = Int64GetDatum((int64) v->p.seed);
	values[11] = Int32GetDatum(v->p.scheme);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * bloom_cardinality(bloom or counting_bloom) -> float8
 *
 * The estimated number of distinct values, rounded: from the fill of the bits
 * (Swamidass & Baldi), or the estimate an intersection recorded; never more
 * than the values added.  Exact for an explicit filter.
 */
Datum
bloom_cardinality(PG_FUNCTION_ARGS)
{
	BloomFilter f;

	bloom_get_arg_any(fcinfo, 0, false, &f);
	PG_RETURN_FLOAT8(rint(bloom_estimate_distinct(&f.view, bloom_count_occupied(&f.view))));
}

/*
 * bloom_layers(bloom) -> SETOF (layer, nbits, nhashes, bits_set, fill_ratio,
 * estimated_distinct, estimated_fpp)
 *
 * The layers of a layered filter (a bloomfilter index's snapshot), each a
 * blocked512 filter of its own m and k: what each holds, its fill, and the
 * rate a value none holds passes it.  A classic or blocked512 filter is one
 * layer; a set of hashes (explicit) or a counting filter has none.
 */
Datum
bloom_layers(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BloomFilter f;
	const bf_view *v;
	unsigned nlayers;
	bf_layer_cursor c;

	InitMaterializedSRF(fcinfo, 0);
	bloom_get_arg(fcinfo, 0, false, &f);
	v = &f.view;
	if (v->p.layout == BF_LAYOUT_LAYERED)
		nlayers = v->p.nhashes;
	else
		nlayers = bf_layout_is_bits(v->p.layout) ? 1 : 0;
	for (unsigned i = 0; i < nlayers; i++)
	{
		bf_params layer = v->p;
		uint64 set;
		double distinct;
		Datum values[7];
		bool nulls[7] = {false};

		if (v->p.layout == BF_LAYOUT_LAYERED)
		{
			/* one walk over the layers (bf_layer(i) would sum the sizes before i) */
			if (i == 0)
				bf_layer_first(v, &c);
			else
				bf_layer_next(v, &c);
			layer = c.layer;
			set = bloom_count_occupied_range(v, c.offset, (size_t) (layer.ncells / 8));
		}
		else
			set = bloom_count_occupied(v); /* a classic filter's m need not be whole bytes */
		distinct = Min(bf_estimate_distinct(layer.ncells, layer.nhashes, set), (double) v->nadded);
		values[0] = Int32GetDatum((int32) i);
		values[1] = Int64GetDatum((int64) layer.ncells);
		values[2] = Int32GetDatum(layer.nhashes);
		values[3] = Int64GetDatum((int64) set);
		values[4] = Float8GetDatum((double) set / (double) layer.ncells);
		values[5] = Float8GetDatum(distinct);
		values[6] =
		    Float8GetDatum(v->p.layout == BF_LAYOUT_LAYERED
		                       ? bf_blocked_fpp(distinct, (double) layer.ncells, layer.nhashes)
		                       : bloom_current_fpp(v, set));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
