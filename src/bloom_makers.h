/*
 * bloom_makers.h
 *	  Other makers' filters in SQL (bloom_makers.c): a value of an SQL type
 *	  turned into the bytes its maker hashed, for the probes and adds of a
 *	  filter read by bloom_import (layouts spark, guava, parquet).
 */
#ifndef BLOOM_MAKERS_H
#define BLOOM_MAKERS_H

#include "bloom_datum.h"

/*
 * Whether the maker's filter (view) may hold argument argno, as its maker
 * answers for the same value.  A type the filter's encoding does not take
 * raises 42804; a value the maker could not have held (a bigint past an
 * int's range for an INT32 encoding) is absent.  kept: the filter is the
 * one the call site's cache keeps (bloom_get_arg_cached), so what its
 * probes need is computed once, not per row.
 */
extern bool bloom_maker_contains_arg(FunctionCallInfo fcinfo, int argno, const bf_view *view,
                                     bool kept);

/*
 * Add argument argno to the maker's filter f (modifiable), as the maker's
 * put would; a value the encoding cannot hold raises 22003.  It changes f
 * in place and allocates only in the current memory context, for the
 * value's encoding (an aggregate calls it in the row's).
 */
extern void bloom_maker_add_arg(FunctionCallInfo fcinfo, int argno, BloomFilter *f);

/*
 * For a filter whose values are one hash each (bf_maker_hashes_one: a
 * Parquet filter), the hash bloom_maker_add_arg would add, for a caller
 * that adds in batches (bloom_agg: bloom_aggstate.h's BloomBatch).
 */
extern uint64 bloom_maker_hash_arg(FunctionCallInfo fcinfo, int argno, const BloomFilter *f);

/*
 * For bloom_agg(value, n, fpp, layout): if layout_name is a maker's format
 * ("spark", version 2 with seed 0; "spark_v1"; "guava"; "guava_chars";
 * "parquet"), an empty filter in it sized as its maker sizes one for n
 * values at rate fpp, whose element key fits argument argno's type (22023
 * if none does), in *out; false for another name.
 */
extern bool bloom_maker_new_for_arg(FunctionCallInfo fcinfo, int argno, const char *layout_name,
                                    int64 n, double fpp, BloomFilter *out);

#endif /* BLOOM_MAKERS_H */
