/*
 * bloom_import.c
 *	  Other makers' filters in and out of SQL: bloom_import (a maker's bytes
 *	  read into a bloom value, its element key chosen from the SQL type to
 *	  be probed), bloom_export (the maker's bytes back), and the new filter
 *	  bloom_agg(value, n, fpp, layout) starts in a maker's format.  How a
 *	  value becomes the bytes a maker hashed is bloom_makers.c's.
 */
#include "bloom_makers.h"
#include "bloom_error.h"
#include "bloom_value.h"

#include "../core/bf_makers.h"

#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(bloom_import);
PG_FUNCTION_INFO_V1(bloom_export);

/* ---- bloom_import, bloom_export ---- */

/* A format's name: the maker's form, and the layout it reads into. */
static bf_maker_form
form_arg(FunctionCallInfo fcinfo, int argno, uint8 *layout, bool *chars)
{
	char *name = text_to_cstring(PG_GETARG_TEXT_PP(argno));

	*chars = false;
	if (strcmp(name, "spark") == 0)
		return *layout = BF_LAYOUT_SPARK, BF_FORM_SPARK;
	if (strcmp(name, "guava") == 0 || strcmp(name, "guava_chars") == 0)
	{
		*chars = strcmp(name, "guava_chars") == 0;
		return *layout = BF_LAYOUT_GUAVA, BF_FORM_GUAVA;
	}
	if (strcmp(name, "parquet") == 0)
		return *layout = BF_LAYOUT_PARQUET, BF_FORM_PARQUET;
	if (strcmp(name, "parquet_bitset") == 0)
		return *layout = BF_LAYOUT_PARQUET, BF_FORM_PARQUET_BITSET;
	ereport(ERROR,
	        (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("unknown filter format \"%s\"", name),
	         errhint("The formats are \"spark\", \"guava\", \"guava_chars\", \"parquet\" "
	                 "and \"parquet_bitset\".")));
	pg_unreachable();
}

/* The format another maker's filter of the layout is exported in. */
static const char *
export_format_name(uint8 layout)
{
	return layout == BF_LAYOUT_SPARK ? "spark" : layout == BF_LAYOUT_GUAVA ? "guava" : "parquet";
}

/* A maker's name for messages. */
static const char *
maker_name(uint8 layout)
{
	return layout == BF_LAYOUT_SPARK ? "Spark" : layout == BF_LAYOUT_GUAVA ? "Guava" : "Parquet";
}

/* The element key of a filter of layout read as values of type typid (a base type); NULL if none. */
static const char *
import_key(uint8 layout, bool chars, Oid typid)
{
	bool integer = typid == INT2OID || typid == INT4OID || typid == INT8OID;
	bool text = typid == TEXTOID || typid == VARCHAROID;

	if (layout == BF_LAYOUT_SPARK)
		return integer             ? "spark:int8"
		       : text              ? "spark:text"
		       : typid == BYTEAOID ? "spark:bytea"
		                           : NULL;
	if (layout == BF_LAYOUT_GUAVA && chars)
		return text ? "guava:chars" : NULL;
	if (layout == BF_LAYOUT_GUAVA)
		return typid == INT8OID    ? "guava:int8"
		       : integer           ? "guava:int4"
		       : text              ? "guava:text"
		       : typid == BYTEAOID ? "guava:bytea"
		                           : NULL;
	switch (typid)
	{
		case INT2OID:
		case INT4OID:
			return "parquet:int4";
		case INT8OID:
			return "parquet:int8";
		case DATEOID:
			return "parquet:date";
		case TIMESTAMPOID:
			return "parquet:timestamp";
		case TIMESTAMPTZOID:
			return "parquet:timestamptz";
		case FLOAT4OID:
			return "parquet:float4";
		case FLOAT8OID:
			return "parquet:float8";
		case BYTEAOID:
			return "parquet:bytea";
		case UUIDOID:
			return "parquet:uuid";
	}
	return text ? "parquet:text" : NULL;
}

/*
 * bloom_import(data bytea, format text, element_type regtype) -> bloom
 *
 * A filter another system wrote, kept in its bytes: probes hash each value
 * as that system does (element_type says how a value becomes the bytes it
 * hashed).  Its count of values is unknown.
 */
Datum
bloom_import(PG_FUNCTION_ARGS)
{
	bytea *data = PG_GETARG_BYTEA_PP(0);
	Oid typid = PG_GETARG_OID(2);
	uint8 layout;
	bool chars;
	bf_maker_form form = form_arg(fcinfo, 1, &layout, &chars);
	const char *key;
	const uint8 *bits;
	bf_params p;
	bf_error err;
	BloomFilter f;

	/* (a regtype argument may be any oid: 0, or one no type has) */
	if (!SearchSysCacheExists1(TYPEOID, ObjectIdGetDatum(typid)))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT),
		                errmsg("type with OID %u does not exist", typid)));
	typid = getBaseType(typid);
	key = import_key(layout, chars, typid);

	if (key == NULL)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("a %s filter cannot hold values of type %s", bf_layout_name(layout),
		                format_type_be(typid)),
		         errhint("%s",
		                 layout == BF_LAYOUT_SPARK ? "Spark's filters take smallint, integer, "
		                                             "bigint, text, varchar and bytea."
		                 : layout == BF_LAYOUT_GUAVA && chars
		                     ? "The format guava_chars takes text and varchar."
		                 : layout == BF_LAYOUT_GUAVA
		                     ? "Guava's filters take smallint, integer, bigint, text, varchar and "
		                       "bytea."
		                     : "Parquet's filters take smallint, integer, bigint, date, timestamp, "
		                       "timestamptz, real, double precision, text, varchar, bytea and "
		                       "uuid.")));
	if (!bf_maker_read(form, (const uint8 *) VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data), &p, &bits,
	                   &err))
		ereport(
		    ERROR,
		    (errcode(err.status == BF_ERR_TOO_LARGE ? ERRCODE_PROGRAM_LIMIT_EXCEEDED
		                                            : ERRCODE_INVALID_BINARY_REPRESENTATION),
		     errmsg("invalid %s filter: %s", maker_name(layout), err.message),
		     errdetail("The bytes were read as format \"%s\".",
		               text_to_cstring(PG_GETARG_TEXT_PP(1))),
		     form == BF_FORM_PARQUET
		         ? errhint("Format \"parquet\" reads a Thrift header and its bitset (bytes that "
		                   "start otherwise, a multiple of 32 long, as a bitset); for a bitset "
		                   "alone, say \"parquet_bitset\".")
		         : 0));
	bloom_new(&p, BF_FLAG_N_UNKNOWN, key, strlen(key), 0, &f);
	memcpy(f.view.data, bits, f.view.nbytes);
	PG_RETURN_POINTER(f.raw);
}

/*
 * bloom_export(filter bloom, format text) -> bytea
 *
 * The filter in its maker's bytes, which the maker's reader reads back.
 */
Datum
bloom_export(PG_FUNCTION_ARGS)
{
	BloomFilter f;
	uint8 layout;
	bool chars;
	bf_maker_form form;
	size_t size;
	bytea *out;

	bloom_get_arg_any(fcinfo, 0, false, &f);
	form = form_arg(fcinfo, 1, &layout, &chars);
	size = bf_layout_is_maker(f.view.p.layout) ? bf_maker_write_size(&f.view, form) : 0;
	if (size == 0)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		         errmsg("a %s filter cannot be exported as %s", bf_layout_name(f.view.p.layout),
		                text_to_cstring(PG_GETARG_TEXT_PP(1))),
		         errdetail("Its bits are placed by %s's hash.",
		                   bf_layout_is_maker(f.view.p.layout) ? bf_layout_name(f.view.p.layout)
		                                                       : "this extension"),
		         bf_layout_is_maker(f.view.p.layout)
		             ? errhint("A filter is exported in its maker's format, \"%s\" for this one.",
		                       export_format_name(f.view.p.layout))
		             : errhint("Only other systems' filters (read by bloom_import, or built by "
		                       "bloom_agg in their formats) are exported; this extension's own "
		                       "are sent as they are: bloom_send, or a cast to bytea.")));
	if (size > MaxAllocSize - VARHDRSZ)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		                errmsg("the exported filter would exceed 1 GB (%zu bytes)", size)));
	out = (bytea *) palloc(VARHDRSZ + size);
	SET_VARSIZE(out, VARHDRSZ + size);
	bf_maker_write(&f.view, form, (uint8 *) VARDATA(out));
	PG_RETURN_BYTEA_P(out);
}

/* ---- bloom_agg(value, n, fpp, layout) in a maker's format ---- */

bool
bloom_maker_new_for_arg(FunctionCallInfo fcinfo, int argno, const char *layout_name, int64 n,
                        double fpp, BloomFilter *out)
{
	uint8 layout, scheme;
	bool chars = false;
	const char *key;
	Oid typid;
	bf_params p;
	bf_error err;

	if (strcmp(layout_name, "spark") == 0 || strcmp(layout_name, "spark_v1") == 0)
	{
		layout = BF_LAYOUT_SPARK;
		scheme = strcmp(layout_name, "spark") == 0 ? BF_SCHEME_SPARK_V2 : BF_SCHEME_SPARK_V1;
	}
	else if (strcmp(layout_name, "guava") == 0 || strcmp(layout_name, "guava_chars") == 0)
	{
		layout = BF_LAYOUT_GUAVA;
		scheme = BF_SCHEME_GUAVA;
		chars = strcmp(layout_name, "guava_chars") == 0;
	}
	else if (strcmp(layout_name, "parquet") == 0)
	{
		layout = BF_LAYOUT_PARQUET;
		scheme = BF_SCHEME_PARQUET;
	}
	else
		return false;
	typid = getBaseType(bloom_value_type(fcinfo, argno));
	key = import_key(layout, chars, typid);
	if (key == NULL)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("a %s filter cannot hold values of type %s", layout_name,
		                       format_type_be(typid))));
	if (!bf_maker_sizing(layout, scheme, n, fpp, &p, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	bloom_new(&p, 0, key, strlen(key), 0, out);
	return true;
}
