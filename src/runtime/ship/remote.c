/*
 * remote.c
 *	  The remote half of a runtime filter pushed into a postgres_fdw scan
 *	  (pushdown.c): the SQL functions the remote server runs in the WHERE
 *	  clause of the query it is sent.
 *
 * The filter travels as a bytea parameter: the serialized runtime filter
 * (the core's format, a blocked512 filter of 32-bit key hashes).  The key's
 * hash is computed remotely by the same built-in hash function the local
 * probe uses for the join operator's outer side, under the same collation;
 * several keys are combined as the hash join combines them
 * (bloom_runtime_combine).  So a row the join would match always passes.
 */
#include "ship.h"
#include "../../bloom_error.h"

#include "fmgr.h"
#include "port/pg_bitutils.h"

PG_FUNCTION_INFO_V1(bloom_runtime_contains);
PG_FUNCTION_INFO_V1(bloom_runtime_combine);

/*
 * What a call site of bloom_runtime_contains keeps across rows (fn_extra):
 * the filter it checked last, where it was, and its bytes before the data.
 * The filter is the remote query's parameter, the same value on every row,
 * so its header is checked once: bf_check_header reads nothing but the
 * length and those bytes, so a value at the same address with the same
 * length and the same bytes before its data has the same view.
 */
typedef struct ContainsCache
{
	const uint8 *buf;
	size_t len;
	size_t prefix; /* bytes before the data: header, extensions, element key, layers */
	uint8 *copy;   /* those bytes, as they were */
	bf_view view;
} ContainsCache;

/*
 * bloom_runtime_contains(filter bytea, hash integer) -> boolean
 *
 * Whether a key whose hash is `hash` may be in the runtime filter.  A NULL
 * filter (not built when the remote query was sent, or not worth sending)
 * lets every row through; a NULL hash (a NULL key) matches nothing, since
 * the join operators are strict.  Not STRICT, for the first rule.  A filter
 * whose header fails its check is an error (22023): it never reads outside
 * the value.  The header is checked once per call site and filter
 * (ContainsCache).
 */
Datum
bloom_runtime_contains(PG_FUNCTION_ARGS)
{
	ContainsCache *cache = (ContainsCache *) fcinfo->flinfo->fn_extra;
	bytea *raw;
	const uint8 *buf;
	size_t len;
	bf_error err;

	if (PG_ARGISNULL(0))
		PG_RETURN_BOOL(true);
	if (PG_ARGISNULL(1))
		PG_RETURN_BOOL(false);
	raw = PG_GETARG_BYTEA_PP(0);
	buf = (const uint8 *) VARDATA_ANY(raw);
	len = VARSIZE_ANY_EXHDR(raw);
	if (cache == NULL || cache->buf != buf || cache->len != len ||
	    memcmp(cache->copy, buf, cache->prefix) != 0)
	{
		bf_view view;

		if (!bf_check_header(buf, len, &view, &err))
			bloom_report(&err, BLOOM_FROM_ARGUMENT);
		if (cache == NULL)
			fcinfo->flinfo->fn_extra = cache =
			    MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ContainsCache));
		if (cache->copy != NULL)
			pfree(cache->copy);
		cache->prefix = (size_t) (view.data - view.payload);
		cache->copy = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, Max(cache->prefix, 1));
		memcpy(cache->copy, buf, cache->prefix);
		cache->buf = buf;
		cache->len = len;
		cache->view = view;
	}
	PG_RETURN_BOOL(bf_contains_hash(&cache->view, (uint64) (uint32) PG_GETARG_INT32(1)));
}

/*
 * bloom_runtime_combine(a integer, b integer) -> integer
 *
 * The hash of keys (.., b) from that of (..) and b's own: a rotated left by
 * one bit, XOR b, as the hash join combines its keys' hashes.
 */
Datum
bloom_runtime_combine(PG_FUNCTION_ARGS)
{
	uint32 a = (uint32) PG_GETARG_INT32(0);
	uint32 b = (uint32) PG_GETARG_INT32(1);

	PG_RETURN_INT32((int32) (pg_rotate_left32(a, 1) ^ b));
}
