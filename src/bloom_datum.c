/*
 * bloom_datum.c
 *	  From bloom datums to checked views of the core's format, and back.
 *
 * Every function that receives a bloom value goes through bloom_get_arg()
 * or bloom_get_arg_cached(), which check the header (O(1)) so that no code
 * after them can read outside the value, whatever bytes it holds.  The O(m)
 * check of the bits is done once, when a value enters the system (type
 * input, binary receive).
 */
#include "bloom_datum.h"
#include "bloom_callcache.h"

#include "access/detoast.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

static void
check_header(struct varlena *raw, BloomFilter *out)
{
	bf_error err;

	if (!bf_check_header_all((const uint8_t *) VARDATA(raw), VARSIZE(raw) - VARHDRSZ, &out->view,
	                         &err))
		bloom_report(&err, BLOOM_FROM_STORAGE);
	out->raw = raw;
}

void
bloom_refuse_opt_in(FunctionCallInfo fcinfo, const bf_view *view)
{
	char *name;

	if (!bf_layout_is_opt_in(view->p.layout))
		return;
	/* (the function's name looked up only for the message: every call of every function gets here) */
	name = fcinfo != NULL && OidIsValid(fcinfo->flinfo->fn_oid)
	           ? get_func_name(fcinfo->flinfo->fn_oid)
	           : NULL;
	if (view->p.layout == BF_LAYOUT_WINDOW)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("%s does not take a window filter", name ? name : "this function"),
		         errdetail("A window filter (bloom_window) forgets the values of old "
		                   "generations: its bits are slices of generations."),
		         errhint("Such a filter is probed with @> or bloom_contains, added to with "
		                 "bloom_add, advanced with bloom_advance, combined with bloom_union and "
		                 "described by bloom_info and bloom_window_info.")));
	ereport(ERROR,
	        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
	         errmsg("%s does not take a %s filter", name ? name : "this function",
	                bf_layout_name(view->p.layout)),
	         errdetail("A %s filter is another system's, read by bloom_import: its bits are "
	                   "placed by that system's hash.",
	                   bf_layout_name(view->p.layout)),
	         errhint("Such a filter is probed with @> or bloom_contains, added to with bloom_add, "
	                 "combined with bloom_union, described by bloom_info, and written in its "
	                 "maker's bytes by bloom_export.")));
}

void
bloom_get_datum(Datum d, BloomFilter *out)
{
	check_header(PG_DETOAST_DATUM(d), out);
	bloom_refuse_opt_in(NULL, &out->view);
}

void
bloom_get_arg_any(FunctionCallInfo fcinfo, int argno, bool copy, BloomFilter *out)
{
	Datum d;

	Assert(argno < PG_NARGS() && !PG_ARGISNULL(argno));
	d = PG_GETARG_DATUM(argno);
	check_header(copy ? PG_DETOAST_DATUM_COPY(d) : PG_DETOAST_DATUM(d), out);
}

void
bloom_get_arg(FunctionCallInfo fcinfo, int argno, bool copy, BloomFilter *out)
{
	bloom_get_arg_any(fcinfo, argno, copy, out);
	bloom_refuse_opt_in(fcinfo, &out->view);
}

bool
bloom_get_arg_cached(FunctionCallInfo fcinfo, int argno, BloomFilter *out)
{
	struct varlena *raw;
	struct varatt_external toast;
	BloomCallCache *cache;
	MemoryContext old;

	Assert(argno < PG_NARGS() && !PG_ARGISNULL(argno));
	raw = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(argno));

	/*
	 * A filter read from a table and handed over as a parameter (an
	 * InitPlan) arrives as a TOAST pointer on every row; detoasting it again
	 * each time would cost a full read of the filter per row.  A TOAST value
	 * is immutable and its (toast relation, value id) is unique, so a copy
	 * keyed on them is safe to reuse.  Values in memory need no cache.
	 */
	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
	{
		check_header(PG_DETOAST_DATUM(PG_GETARG_DATUM(argno)), out);
		return false;
	}

	VARATT_EXTERNAL_GET_POINTER(toast, raw);
	cache = bloom_call_cache(fcinfo);
	if (cache->filter == NULL || cache->valueid != toast.va_valueid ||
	    cache->toastrelid != toast.va_toastrelid)
	{
		if (cache->filter != NULL)
			pfree(cache->filter);
		cache->filter = NULL;
		old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
		check_header(detoast_attr(raw), out);
		MemoryContextSwitchTo(old);
		cache->filter = out->raw;
		cache->view = out->view;
		cache->valueid = toast.va_valueid;
		cache->toastrelid = toast.va_toastrelid;
		cache->elem_checked = false;
		cache->maker_recip_valid = false;
		return true;
	}
	out->raw = cache->filter;
	out->view = cache->view;
	return true;
}

uint8
bloom_layout_arg(FunctionCallInfo fcinfo, int argno)
{
	char *name;

	if (PG_NARGS() <= argno)
		return BF_LAYOUT_CLASSIC;
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
		        (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED), errmsg("layout must not be NULL")));
	name = text_to_cstring(PG_GETARG_TEXT_PP(argno));
	if (strcmp(name, "classic") == 0)
		return BF_LAYOUT_CLASSIC;
	if (strcmp(name, "blocked") == 0 || strcmp(name, "blocked512") == 0)
		return BF_LAYOUT_BLOCKED512;
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
	                errmsg("unknown bloom filter layout \"%s\"", name),
	                errhint("The layouts are \"classic\" and \"blocked\" (\"blocked512\"); "
	                        "bloom_agg(value, n, fpp, layout) also builds other systems' "
	                        "filters: \"spark\", \"spark_v1\", \"guava\", \"guava_chars\" "
	                        "and \"parquet\".")));
	pg_unreachable();
}

struct varlena *
bloom_alloc(size_t payload_len)
{
	struct varlena *raw = (struct varlena *) palloc(VARHDRSZ + payload_len);

	SET_VARSIZE(raw, VARHDRSZ + payload_len);
	return raw;
}

void
bloom_new_target(const bf_params *p, uint8 flags, uint32 target_ppb, const char *elem,
                 size_t elemlen, uint64_t nadded, BloomFilter *out)
{
	bf_error err;
	size_t len;

	Assert((target_ppb != 0) == ((flags & BF_FLAG_TARGET) != 0));
	if (!bf_params_check(p, elemlen, &err) || !bf_flags_check(p->layout, flags, &err) ||
	    !bf_payload_size(p, flags, elemlen, &len, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	out->raw = bloom_alloc(len);
	bf_init_header((uint8_t *) VARDATA(out->raw), p, flags, elem, elemlen, nadded, &out->view);
	/* zero the data in chunks: a filter may be a gigabyte */
	for (size_t from = 0; from < out->view.nbytes; from += BLOOM_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		memset(out->view.data + from, 0, Min((size_t) BLOOM_CHUNK, out->view.nbytes - from));
	}
	if (flags & BF_FLAG_TARGET)
		bf_view_set_target(&out->view, target_ppb);
}

void
bloom_new(const bf_params *p, uint8 flags, const char *elem, size_t elemlen, uint64_t nadded,
          BloomFilter *out)
{
	Assert(!(flags & BF_FLAG_TARGET)); /* a target needs its rate: bloom_new_target() */
	bloom_new_target(p, flags, 0, elem, elemlen, nadded, out);
}

void
bloom_copy_as(const BloomFilter *src, uint8 flags, BloomFilter *out)
{
	const bf_view *v = &src->view;
	BloomFilter copy;

	bloom_new_target(&v->p, flags, (flags & BF_FLAG_TARGET) ? v->target_ppb : 0, v->elem,
	                 v->elemlen, v->nadded, &copy);
	memcpy(copy.view.data, v->data, v->nbytes);
	if (v->layers != NULL)
		memcpy((uint8 *) copy.view.layers, v->layers, bf_layers_bytes(&v->p));
	if (v->window != NULL)
		memcpy(copy.view.window, v->window, bf_window_table_bytes(&v->p));
	if (flags & BF_FLAG_DERIVED)
		bf_view_set_derived(&copy.view, v->bound, v->est_distinct);
	*out = copy;
}

void
bloom_validate(struct varlena *raw, BloomSource source, const char *typname, BloomFilter *out)
{
	bf_error err;

	if (!bf_check_header_all((const uint8_t *) VARDATA(raw), VARSIZE(raw) - VARHDRSZ, &out->view,
	                         &err))
		bloom_report_as(&err, source, typname);
	/* the format allows any bytes but control characters; a server takes only text */
	if (!bloom_elem_is_text(out->view.elem, out->view.elemlen))
	{
		err.status = BF_ERR_FORMAT;
		snprintf(err.message, sizeof(err.message),
		         "element key \"%s\" is not valid text in the database's encoding (%s)",
		         bloom_elem_for_message(out->view.elem, out->view.elemlen),
		         GetDatabaseEncodingName());
		bloom_report_as(&err, source, typname);
	}
	if (!bf_check_data(&out->view, bloom_count_occupied(&out->view), &err))
		bloom_report_as(&err, source, typname);
	out->raw = raw;
}

uint64
bloom_count_occupied_range(const bf_view *view, size_t from, size_t n)
{
	uint64 count = 0;

	Assert(from + n <= view->nbytes);
	for (size_t at = from; at < from + n; at += BLOOM_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		count += bf_occupied(view, at, Min(at + BLOOM_CHUNK, from + n));
	}
	return count;
}

uint64
bloom_count_occupied(const bf_view *view)
{
	return bloom_count_occupied_range(view, 0, view->nbytes);
}

void
bloom_bytes_op(bf_view *dst, const bf_view *src, bloom_bytes_fn op)
{
	for (size_t from = 0; from < src->nbytes; from += BLOOM_CHUNK)
	{
		CHECK_FOR_INTERRUPTS();
		op(dst, src, from, Min(from + BLOOM_CHUNK, src->nbytes));
	}
}

uint64
bloom_add_counts(uint64 a, uint64 b)
{
	Assert(a <= (uint64) PG_INT64_MAX && b <= (uint64) PG_INT64_MAX);
	return (a > (uint64) PG_INT64_MAX - b) ? (uint64) PG_INT64_MAX : a + b;
}

void
bloom_check_compatible(const bf_view *a, const bf_view *b, const char *what)
{
	StringInfoData diff;

	initStringInfo(&diff);
	/* a window filter combines only with a window filter (not even with a set of hashes) */
	if ((a->p.layout == BF_LAYOUT_WINDOW) != (b->p.layout == BF_LAYOUT_WINDOW))
		appendStringInfo(&diff, "; layout: %s and %s", bf_layout_name(a->p.layout),
		                 bf_layout_name(b->p.layout));
	else if (a->p.layout == BF_LAYOUT_WINDOW && b->p.layout == BF_LAYOUT_WINDOW)
	{
		/* two window filters: their slices and clocks must line up */
		bf_window_shape wa, wb;

		bf_window_get(a, &wa);
		bf_window_get(b, &wb);
		if (wa.generations != wb.generations)
			appendStringInfo(&diff, "; generations: %u and %u", wa.generations, wb.generations);
		if (wa.capacity != wb.capacity || wa.hashes != wb.hashes || a->p.ncells != b->p.ncells)
			appendStringInfo(&diff,
			                 "; capacity or rate (" UINT64_FORMAT
			                 " values, %u hashes and " UINT64_FORMAT " values, %u hashes)",
			                 wa.capacity, wa.hashes, wb.capacity, wb.hashes);
		if (wa.interval != wb.interval)
			appendStringInfo(
			    &diff, "; generation length: " INT64_FORMAT " and " INT64_FORMAT " microseconds",
			    wa.interval, wb.interval);
	}
	else if (a->p.layout == BF_LAYOUT_LAYERED && b->p.layout == BF_LAYOUT_LAYERED)
	{
		/* two layered filters: their layers must line up */
		if (!bf_same_shape(a, b))
			appendStringInfo(&diff, "; layers (their number, m and k)");
	}
	else
	{
		/* a set of hashes has no shape yet: only the hashing must agree */
		if (a->p.layout == BF_LAYOUT_EXPLICIT || b->p.layout == BF_LAYOUT_EXPLICIT)
		{
			if (a->p.layout == BF_LAYOUT_COUNTING4 || b->p.layout == BF_LAYOUT_COUNTING4)
				appendStringInfo(&diff, "; layout: %s and %s", bf_layout_name(a->p.layout),
				                 bf_layout_name(b->p.layout));
		}
		else if (a->p.ncells != b->p.ncells)
			appendStringInfo(&diff, "; m: " UINT64_FORMAT " and " UINT64_FORMAT, a->p.ncells,
			                 b->p.ncells);
		if (a->p.nhashes != b->p.nhashes && a->p.layout != BF_LAYOUT_EXPLICIT &&
		    b->p.layout != BF_LAYOUT_EXPLICIT)
			appendStringInfo(&diff, "; k: %u and %u", a->p.nhashes, b->p.nhashes);
		if (a->p.layout != b->p.layout && a->p.layout != BF_LAYOUT_EXPLICIT &&
		    b->p.layout != BF_LAYOUT_EXPLICIT)
			appendStringInfo(&diff, "; layout: %s and %s", bf_layout_name(a->p.layout),
			                 bf_layout_name(b->p.layout));
	}
	if (a->p.scheme != b->p.scheme)
		appendStringInfo(&diff, "; hash scheme: %u and %u", a->p.scheme, b->p.scheme);
	if (a->p.seed != b->p.seed)
		appendStringInfo(&diff, "; seed: " INT64_FORMAT " and " INT64_FORMAT, (int64) a->p.seed,
		                 (int64) b->p.seed);
	if (a->elemlen != 0 && b->elemlen != 0 &&
	    !bf_elem_equal(a->elem, a->elemlen, b->elem, b->elemlen))
		appendStringInfo(&diff, "; element family: %s and %s",
		                 bloom_elem_for_message(a->elem, a->elemlen),
		                 bloom_elem_for_message(b->elem, b->elemlen));
	if (diff.len > 0)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("cannot %s bloom filters that differ in %s", what, diff.data + 2),
		                errhint("Combine filters built with the same sizing (bloom_empty() or "
		                        "bloom_agg() hints) from values of the same type family.")));
}
