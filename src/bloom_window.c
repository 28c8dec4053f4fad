/*
 * bloom_window.c
 *	  Window filters in SQL (1.12): bloom_window, bloom_advance, bloom_add
 *	  at a time, bloom_window_info, and the union of two (bloom_window.h).
 *
 * A window filter's generations are advanced by hand (bloom_advance), or
 * are times: a filter made with a generation length counts generation G as
 * the span [G len, (G + 1) len) from 2000-01-01 00:00 UTC, PostgreSQL's
 * epoch, so that every filter of one length shares one clock and any two
 * of them can be joined.
 */
#include "bloom_window.h"
#include "bloom_functions.h"
#include "bloom_value.h"

#include "access/htup_details.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(bloom_window_new);
PG_FUNCTION_INFO_V1(bloom_window_new_clocked);
PG_FUNCTION_INFO_V1(bloom_window_advance);
PG_FUNCTION_INFO_V1(bloom_window_advance_to);
PG_FUNCTION_INFO_V1(bloom_window_add_at);
PG_FUNCTION_INFO_V1(bloom_window_info);

void
bloom_window_make(int64 capacity, double fpp, int32 generations, int64 generation, int64 interval,
                  BloomFilter *out)
{
	unsigned hashes;
	uint64 slice_bits;
	bf_params p;
	bf_error err;

	if (capacity < 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("capacity per generation must be at least 1")));
	if (generations < 1 || generations > BF_WINDOW_MAX_GENERATIONS)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("generations must be between 1 and %d", BF_WINDOW_MAX_GENERATIONS)));
	if (!bf_window_size_for((double) capacity, fpp, (unsigned) generations, &hashes, &slice_bits,
	                        &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	bf_window_params(hashes, (unsigned) generations, slice_bits, &p);
	bloom_new(&p, 0, NULL, 0, 0, out);
	bf_view_set_window(&out->view, hashes, (uint64) capacity, generation, interval);
}

int64
bloom_window_generation_length(const Interval *len)
{
	int64 us;

	if (len->month != 0)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("a generation length must be a positive interval of days, hours, "
		                "minutes or seconds"),
		         errdetail("Months have no fixed length: a generation of \"1 month\" would not "
		                   "tell which generation a time is in.")));
	if (pg_mul_s64_overflow((int64) len->day, USECS_PER_DAY, &us) ||
	    pg_add_s64_overflow(us, len->time, &us) || us <= 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("a generation length must be a positive interval of days, hours, "
		                       "minutes or seconds")));
	return us;
}

int64
bloom_window_generation_of(TimestampTz t, int64 len)
{
	int64 g;

	if (TIMESTAMP_NOT_FINITE(t))
		ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
		                errmsg("an infinite time is in no generation")));
	g = t / len;
	if (t % len < 0)
		g--; /* toward minus infinity: before 2000 too */
	return g;
}

/* A window filter argument (22023 for any other), and its shape. */
static void
window_arg(FunctionCallInfo fcinfo, int argno, bool copy, BloomFilter *f, bf_window_shape *w)
{
	bloom_get_arg_any(fcinfo, argno, copy, f);
	if (f->view.p.layout != BF_LAYOUT_WINDOW)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("a %s filter is not a window filter", bf_layout_name(f->view.p.layout)),
		         errhint("bloom_window() makes one.")));
	bf_window_get(&f->view, w);
}

/* A window filter whose generations are times: its length in microseconds. */
static int64
clock_of(const bf_window_shape *w)
{
	if (w->interval == 0)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("this window filter's generations are not times"),
		         errdetail("It was made without a generation length: bloom_advance(filter, n) "
		                   "advances it, and bloom_add(filter, value) adds to its current "
		                   "generation."),
		         errhint("Make one with bloom_window(capacity, rate, generations, "
		                 "generation_length, now()).")));
	return w->interval;
}

/*
 * bloom_window(capacity bigint, false_positive_rate float8, generations int)
 * -> bloom
 *
 * An empty window filter of generations advanced by hand, sized for
 * capacity values in each: every value added in the current generation and
 * the generations - 1 before it is found, at the rate asked.
 */
Datum
bloom_window_new(PG_FUNCTION_ARGS)
{
	BloomFilter f;

	bloom_window_make(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), PG_GETARG_INT32(2), 0, 0, &f);
	PG_RETURN_POINTER(f.raw);
}

/*
 * bloom_window(capacity bigint, false_positive_rate float8, generations int,
 * generation_length interval, at timestamptz) -> bloom
 *
 * The same whose generations are times, generation_length each, its current
 * generation the one holding at.
 */
Datum
bloom_window_new_clocked(PG_FUNCTION_ARGS)
{
	int64 len = bloom_window_generation_length(PG_GETARG_INTERVAL_P(3));
	BloomFilter f;

	bloom_window_make(PG_GETARG_INT64(0), PG_GETARG_FLOAT8(1), PG_GETARG_INT32(2),
	                  bloom_window_generation_of(PG_GETARG_TIMESTAMPTZ(4), len), len, &f);
	PG_RETURN_POINTER(f.raw);
}

/* f advanced to generation `to` (>= its own), in place. */
static void
advance(BloomFilter *f, int64 to)
{
	bf_window_advance(&f->view, to);
}

/*
 * bloom_advance(filter bloom, generations int DEFAULT 1) -> bloom
 *
 * The filter `generations` generations later: the oldest forgotten, fresh
 * ones begun.  0 returns it unchanged.
 */
Datum
bloom_window_advance(PG_FUNCTION_ARGS)
{
	int32 n = PG_GETARG_INT32(1);
	BloomFilter f;
	bf_window_shape w;
	int64 to;

	if (n < 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("a window filter advances by 0 or more generations, not %d", n)));
	window_arg(fcinfo, 0, true, &f, &w);
	if (pg_add_s64_overflow(w.generation, n, &to))
		ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
		                errmsg("generation number out of range")));
	advance(&f, to);
	PG_RETURN_POINTER(f.raw);
}

/*
 * bloom_advance(filter bloom, now timestamptz) -> bloom
 *
 * A filter whose generations are times, advanced to the generation holding
 * now; unchanged if it is there or later already.
 */
Datum
bloom_window_advance_to(PG_FUNCTION_ARGS)
{
	BloomFilter f;
	bf_window_shape w;
	int64 to;

	window_arg(fcinfo, 0, true, &f, &w);
	to = bloom_window_generation_of(PG_GETARG_TIMESTAMPTZ(1), clock_of(&w));
	if (to > w.generation)
		advance(&f, to);
	PG_RETURN_POINTER(f.raw);
}

/*
 * bloom_add(filter bloom, value anyelement, at timestamptz) -> bloom
 *
 * A filter whose generations are times, with the value added in the
 * generation holding at: advanced to it first if it is later than the
 * filter's, and exactly as if it had been added then if earlier (its bits
 * in the slices left; unchanged if none is).  A NULL value or time is
 * ignored.
 */
Datum
bloom_window_add_at(PG_FUNCTION_ARGS)
{
	BloomFilter f;
	bf_window_shape w;
	int64 r;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0)); /* no value, or no time: nothing to add */
	window_arg(fcinfo, 0, true, &f, &w);
	r = bloom_window_generation_of(PG_GETARG_TIMESTAMPTZ(2), clock_of(&w));
	if (r > w.generation)
		advance(&f, r);
	else if ((uint64) w.generation - (uint64) r >= w.slices)
		PG_RETURN_POINTER(f.raw); /* older than every slice: nothing of it is left */
	bloom_window_add_value(&f, bloom_hasher_for_arg(fcinfo, 1), PG_GETARG_DATUM(1), r);
	PG_RETURN_POINTER(f.raw);
}

void
bloom_window_take_elem(BloomFilter *f, const BloomHasher *hasher)
{
	bloom_check_elem(&f->view, hasher);
	if (f->view.elemlen == 0)
	{
		/* the element key, in a new value: the table (its clock) goes with it */
		const uint8 *table = f->view.window;

		Assert(f->view.nadded == 0);
		bloom_new(&f->view.p, 0, hasher->elem, hasher->elemlen, 0, f);
		memcpy(f->view.window, table, bf_window_table_bytes(&f->view.p));
	}
}

void
bloom_window_add_value(BloomFilter *f, BloomHasher *hasher, Datum value, int64 r)
{
	bloom_window_take_elem(f, hasher);
	bf_view_set_nadded(&f->view, bloom_add_counts(f->view.nadded, 1));
	bf_window_add(&f->view, bloom_hash_value(hasher, value, f->view.p.seed), r);
}

uint64
bloom_window_values_in_window(const bf_view *v)
{
	bf_window_shape w;
	uint64 sum = 0;
	unsigned now;

	bf_window_get(v, &w);
	now = (unsigned) (((w.generation % (int64) w.slices) + (int64) w.slices) % (int64) w.slices);
	for (unsigned age = 0; age < w.generations; age++)
		sum = bloom_add_counts(sum, bf_window_count(v, (now + w.slices - age) % w.slices));
	return sum;
}

/*
 * bloom_window_info(filter bloom) -> record
 *
 * A window filter's shape and clock: its slices per value (hashes), the
 * window's generations, its slices and their bits, its capacity per
 * generation, its current generation (and, for one of times, the length
 * and the time it began), the values added within the window, and the rate
 * of false positives its slices give now.
 */
Datum
bloom_window_info(PG_FUNCTION_ARGS)
{
	BloomFilter f;
	bf_window_shape w;
	TupleDesc tupdesc;
	Datum values[10];
	bool nulls[10] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	window_arg(fcinfo, 0, false, &f, &w);
	values[0] = Int32GetDatum((int32) w.hashes);
	values[1] = Int32GetDatum((int32) w.generations);
	values[2] = Int32GetDatum((int32) w.slices);
	values[3] = Int64GetDatum((int64) w.slice_bits);
	values[4] = Int64GetDatum((int64) w.capacity);
	values[5] = Int64GetDatum(w.generation);
	if (w.interval == 0)
		nulls[6] = nulls[7] = true;
	else
	{
		Interval *len = palloc0(sizeof(Interval));
		int64 start;

		/* whole days as days ("1 day", not "24:00:00"): a generation length has no months */
		len->day = (int32) (w.interval / USECS_PER_DAY);
		len->time = w.interval % USECS_PER_DAY;
		values[6] = IntervalPGetDatum(len);
		/* a time no timestamptz holds is out of range: no start then */
		if (pg_mul_s64_overflow(w.generation, w.interval, &start) || !IS_VALID_TIMESTAMP(start))
			nulls[7] = true;
		else
			values[7] = TimestampTzGetDatum(start);
	}
	values[8] = Int64GetDatum((int64) bloom_window_values_in_window(&f.view));
	values[9] = Float8GetDatum(bf_window_current_fpp(&f.view));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

void
bloom_window_union_in_place(BloomFilter *a, const BloomFilter *b)
{
	bf_window_shape wa, wb;
	BloomFilter behind;

	Assert(a->view.p.layout == BF_LAYOUT_WINDOW && bf_same_shape(&a->view, &b->view));
	bf_window_get(&a->view, &wa);
	bf_window_get(&b->view, &wb);
	if (wa.generation < wb.generation)
		advance(a, wb.generation);
	if (wb.generation < wa.generation)
	{
		bloom_copy_as(b, 0, &behind);
		advance(&behind, wa.generation);
		b = &behind;
	}
	if (b->view.elemlen == 0)
		return; /* b holds nothing */
	if (a->view.elemlen == 0)
	{
		bloom_copy_as(b, 0, a); /* a holds nothing: b, at the later generation */
		return;
	}
	bf_window_union(&a->view, &b->view);
}
