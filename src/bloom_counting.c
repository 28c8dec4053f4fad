/*
 * bloom_counting.c
 *	  What only the counting_bloom type does: remove values, count them, and
 *	  turn into a plain bloom filter.
 *
 * The other operations on counting_bloom (creating, adding, probing, union,
 * aggregates, inspection, I/O) share their code with bloom: the functions
 * dispatch on the layout recorded in the value.  The counters and their
 * saturation are in core/bf_counting.c.
 */
#include "bloom_datum.h"
#include "bloom_value.h"

#include "miscadmin.h"

PG_FUNCTION_INFO_V1(bloom_remove);
PG_FUNCTION_INFO_V1(bloom_count);
PG_FUNCTION_INFO_V1(bloom_subtract);
PG_FUNCTION_INFO_V1(counting_bloom_to_bloom);

/*
 * bloom_remove(counting_bloom, value) -> counting_bloom
 *
 * A copy with the value removed: its counters decremented, except saturated
 * ones.  Removing a value whose counters are already zero is an error (it
 * was never added).  Removing a value that was never added but whose
 * counters are all non-zero (a false positive) succeeds and takes counts
 * from the values that share them: the documented limit of the structure.
 * A NULL value changes nothing.
 */
Datum
bloom_remove(PG_FUNCTION_ARGS)
{
	BloomHasher *hasher;
	BloomFilter f;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	hasher = bloom_hasher_for_arg(fcinfo, 1);
	bloom_get_arg(fcinfo, 0, true, &f);
	bloom_check_elem(&f.view, hasher);
	if (f.view.elemlen == 0 ||
	    !bf_remove_hash(&f.view, bloom_hash_value(hasher, PG_GETARG_DATUM(1), f.view.p.seed)))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("value is not in the counting bloom filter"),
		                errdetail("One of its counters is already zero: it was never added, or was "
		                          "removed as often as it was added.")));
	if (f.view.nadded > 0)
		bf_view_set_nadded(&f.view, f.view.nadded - 1);
	PG_RETURN_POINTER(f.raw);
}

/*
 * bloom_subtract(a counting_bloom, b counting_bloom) -> counting_bloom, a - b
 *
 * Remove from a every value added to b, as often as it was added: the bulk
 * form of bloom_remove (build b with counting_bloom_agg over the rows to
 * delete).  An error, changing nothing, if b holds a value a does not.
 */
Datum
bloom_subtract(PG_FUNCTION_ARGS)
{
	BloomFilter a, b;

	bloom_get_arg(fcinfo, 0, true, &a);
	bloom_get_arg(fcinfo, 1, false, &b);
	bloom_check_compatible(&a.view, &b.view, "subtract");
	if (b.view.elemlen == 0)
		PG_RETURN_POINTER(a.raw);
	for (size_t from = 0; from < b.view.nbytes; from += BLOOM_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		if (a.view.elemlen == 0 ||
		    !bf_can_subtract_bytes(&a.view, &b.view, from, Min(from + BLOOM_CHUNK, b.view.nbytes)))
			ereport(ERROR,
			        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			         errmsg("cannot subtract a counting bloom filter holding values the other "
			                "does not hold"),
			         errdetail("A counter of the second filter exceeds the first's.")));
	}
	bloom_bytes_op(&a.view, &b.view, bf_subtract_bytes);
	bf_view_set_nadded(&a.view, a.view.nadded > b.view.nadded ? a.view.nadded - b.view.nadded : 0);
	PG_RETURN_POINTER(a.raw);
}

/*
 * bloom_count(counting_bloom, value) -> integer
 *
 * The smallest of the value's counters: an upper bound on how often it was
 * added (minus removed); 0 means never added; 15 means 15 or more.
 */
Datum
bloom_count(PG_FUNCTION_ARGS)
{
	BloomHasher *hasher = bloom_hasher_for_arg(fcinfo, 1);
	BloomFilter f;

	bloom_get_arg(fcinfo, 0, false, &f);
	if (f.view.elemlen == 0)
		PG_RETURN_INT32(0);
	bloom_check_elem(&f.view, hasher);
	PG_RETURN_INT32((int32) bf_count_hash(
	    &f.view, bloom_hash_value(hasher, PG_GETARG_DATUM(1), f.view.p.seed)));
}

/*
 * counting_bloom::bloom
 *
 * The classic filter with a bit set for every non-zero counter: it answers
 * every probe as the counting filter does, in a quarter of the space.  Its count of values added is at least the number of bits set
 * divided by k (saturated counters of removed values stay set).
 */
Datum
counting_bloom_to_bloom(PG_FUNCTION_ARGS)
{
	BloomFilter src, dst;
	bf_params p;
	uint64 occupied;
	uint64 nadded;

	bloom_get_arg(fcinfo, 0, false, &src);
	p = src.view.p;
	p.layout = BF_LAYOUT_CLASSIC;
	occupied = bloom_count_occupied(&src.view);
	if (occupied == 0)
	{
		bloom_new(&p, 0, NULL, 0, 0, &dst); /* holds nothing: an untyped empty filter */
		PG_RETURN_POINTER(dst.raw);
	}
	nadded = Max(src.view.nadded, (occupied + p.nhashes - 1) / p.nhashes);
	bloom_new(&p, 0, src.view.elem, src.view.elemlen, nadded, &dst);
	bloom_bytes_op(&dst.view, &src.view, bf_counters_to_bits);
	PG_RETURN_POINTER(dst.raw);
}
