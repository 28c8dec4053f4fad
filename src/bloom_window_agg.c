/*
 * bloom_window_agg.c
 *	  bloom_window_agg (1.12): a window filter built from rows with a time,
 *	  each row added in the generation its time falls in.
 *
 *	  bloom_window_agg(value, at, capacity, false_positive_rate, generations,
 *	                   generation_length [, window_end])
 *
 * The window ends at the generation holding window_end, or else at the
 * newest row's: a row of a later generation than window_end is not in the
 * window (skipped), and a row so old that none of its slices is left adds
 * nothing.  Every row is added exactly as if the filter had been built as
 * time went, one generation after another (bf_window_add): so the rows may
 * come in any order, and partial states (parallel workers) join by
 * bloom_union, which advances the one behind, into the bytes of a serial
 * build.
 *
 * The state is the filter itself, modified in place (a transition function
 * may, when called as an aggregate's).  A new value (the first row's, and
 * the one the first value gives its element key) is made in the row's
 * memory: nodeAgg copies a new state into the aggregate's memory itself.
 */
#include "bloom_window.h"
#include "bloom_value.h"

#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(bloom_window_agg_trans);

/*
 * bloom_window_agg_trans(state bloom, value anyelement, at timestamptz,
 * capacity bigint, false_positive_rate float8, generations int,
 * generation_length interval [, window_end timestamptz]) -> bloom
 */
Datum
bloom_window_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	bool has_end = PG_NARGS() > 7;
	BloomFilter f;
	bf_window_shape w;
	int64 len, r, end;

	if (!AggCheckCallContext(fcinfo, &aggcontext))
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("bloom_window_agg_trans called in non-aggregate context")));
	/* no value or no time: nothing to add */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(3) || PG_ARGISNULL(4) || PG_ARGISNULL(5) || PG_ARGISNULL(6) ||
	    (has_end && PG_ARGISNULL(7)))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
		                errmsg("bloom_window_agg needs a capacity, a rate, generations and a "
		                       "generation length%s",
		                       has_end ? ", and the window's end" : "")));
	len = bloom_window_generation_length(PG_GETARG_INTERVAL_P(6));
	r = bloom_window_generation_of(PG_GETARG_TIMESTAMPTZ(2), len);
	end = has_end ? bloom_window_generation_of(PG_GETARG_TIMESTAMPTZ(7), len) : r;
	if (PG_ARGISNULL(0))
	{
		/* the first row: the window ends at window_end's generation, or for now at this row's */
		bloom_window_make(PG_GETARG_INT64(3), PG_GETARG_FLOAT8(4), PG_GETARG_INT32(5), end, len,
		                  &f);
	}
	else if (VARATT_IS_EXTENDED(PG_GETARG_POINTER(0)))
		bloom_get_arg_any(fcinfo, 0, false, &f); /* (not a state nodeAgg kept: checked) */
	else
	{
		/*
		 * Our own state, changed in place: made by bloom_window_make, a
		 * union or the type's input (an INITCOND), checked then; not again
		 * on every row.
		 */
		f.raw = (struct varlena *) PG_GETARG_POINTER(0);
		bf_view_decode_trusted((uint8 *) VARDATA(f.raw), VARSIZE(f.raw) - VARHDRSZ, &f.view);
	}
	if (f.view.p.layout != BF_LAYOUT_WINDOW)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("bloom_window_agg's state is a %s filter, not a window filter",
		                       bf_layout_name(f.view.p.layout))));
	bf_window_get(&f.view, &w);
	/* the filter's parameters are the first row's: a later row may not change them */
	if (w.interval != len || (int64) w.capacity != PG_GETARG_INT64(3) ||
	    (int32) w.generations != PG_GETARG_INT32(5) || (has_end && end != w.generation))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("bloom_window_agg's capacity, generations, generation length or "
		                       "window end changed between rows"),
		                errhint("Pass the same values on every row (the rate too: the first "
		                        "row's sizes the filter).")));
	if (r > w.generation)
	{
		if (has_end)
			PG_RETURN_POINTER(f.raw);  /* after the window's end: not in it */
		bf_window_advance(&f.view, r); /* a newer row: the window ends later */
	}
	else if ((uint64) w.generation - (uint64) r >= w.slices)
		PG_RETURN_POINTER(f.raw); /* so old that none of its slices is left */
	bloom_window_add_value(&f, bloom_hasher_for_arg(fcinfo, 1), PG_GETARG_DATUM(1), r);
	PG_RETURN_POINTER(f.raw);
}
