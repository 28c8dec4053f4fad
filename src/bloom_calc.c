/*
 * bloom_calc.c
 *	  The sizing calculator: from n and a target rate to m and k, and back.
 *
 * Pure functions of their arguments over the formulas in core/bf_sizing.c.
 * Each takes an optional last argument naming the layout (classic by
 * default; "blocked" uses the blocked512 formula).
 */
#include "bloom_datum.h"

#include "access/htup_details.h"
#include "funcapi.h"

PG_FUNCTION_INFO_V1(bloom_params);
PG_FUNCTION_INFO_V1(bloom_optimal);
PG_FUNCTION_INFO_V1(bloom_fpp);

static TupleDesc
result_desc(FunctionCallInfo fcinfo)
{
	TupleDesc tupdesc;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	return BlessTupleDesc(tupdesc);
}

static void
require(bool ok, const char *message)
{
	if (!ok)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", message)));
}

/*
 * bloom_params(expected_n, fpp) -> (nbits, nhashes, bytes, fpp)
 *
 * The filter bloom_empty(expected_n, fpp) creates: the smallest m whose best
 * integer k keeps the rate after expected_n values at most fpp; bytes is the
 * size of its bit array; fpp the rate it gives.
 */
Datum
bloom_params(PG_FUNCTION_ARGS)
{
	int64 n = PG_GETARG_INT64(0);
	float8 target = PG_GETARG_FLOAT8(1);
	uint8 layout = bloom_layout_arg(fcinfo, 2);
	uint64_t nbits;
	int k;
	bf_error err;
	Datum values[4];
	bool nulls[4] = {0};

	if (!bf_size_for_layout(layout, (double) n, target, &nbits, &k, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	values[0] = Int64GetDatum((int64) nbits);
	values[1] = Int32GetDatum(k);
	values[2] = Int64GetDatum((int64) bf_data_bytes(layout, nbits));
	values[3] = Float8GetDatum(bf_layout_fpp(layout, (double) n, (double) nbits, k));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc(fcinfo), values, nulls)));
}

/*
 * bloom_optimal(n, nbits) -> (nhashes, fpp)
 *
 * For n values in m bits: the k that minimizes the rate, (m/n) ln 2 rounded
 * to the better neighbouring integer (at most 64), and that minimum rate.
 */
Datum
bloom_optimal(PG_FUNCTION_ARGS)
{
	int64 n = PG_GETARG_INT64(0);
	int64 nbits = PG_GETARG_INT64(1);
	uint8 layout = bloom_layout_arg(fcinfo, 2);
	int k;
	Datum values[2];
	bool nulls[2] = {0};

	require(n >= 1, "number of values must be at least 1");
	require(nbits >= 1, "number of bits must be at least 1");
	k = bf_layout_optimal_hashes(layout, (double) n, (double) nbits);
	values[0] = Int32GetDatum(k);
	values[1] = Float8GetDatum(bf_layout_fpp(layout, (double) n, (double) nbits, k));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(result_desc(fcinfo), values, nulls)));
}

/*
 * bloom_fpp(n, nbits, nhashes) -> float8
 *
 * The expected false-positive rate after n distinct values in m bits with k
 * hashes: (1 - (1 - 1/m)^(kn))^k.
 */
Datum
bloom_fpp(PG_FUNCTION_ARGS)
{
	int64 n = PG_GETARG_INT64(0);
	int64 nbits = PG_GETARG_INT64(1);
	int32 nhashes = PG_GETARG_INT32(2);

	require(n >= 0, "number of values must not be negative");
	require(nbits >= 1, "number of bits must be at least 1");
	require(nhashes >= 1, "number of hashes must be at least 1");
	PG_RETURN_FLOAT8(
	    bf_layout_fpp(bloom_layout_arg(fcinfo, 3), (double) n, (double) nbits, nhashes));
}
