/*
 * bloom_io.c
 *	  Text and binary input/output of the bloom type.
 *
 * Both inputs are attack surface: they accept only what the core's parsers
 * and validators accept, check every length before allocating, and check the
 * bits (O(m)) so that a value inside the system is always consistent.  The
 * binary form is the on-disk format itself (see core/bf_core.h).  bloom and
 * counting_bloom share the output functions; each input accepts only its
 * own layout.  The casts from bytea (1.11) read the binary form from a bytea
 * value, for drivers that send a query parameter as bytea but cannot send a
 * value of another type in binary: checked exactly as the binary input is.
 */
#include "bloom_datum.h"

#include "libpq/pqformat.h"
#include "utils/memutils.h"

PG_FUNCTION_INFO_V1(bloom_in);
PG_FUNCTION_INFO_V1(counting_bloom_in);
PG_FUNCTION_INFO_V1(counting_bloom_recv);
PG_FUNCTION_INFO_V1(bloom_out);
PG_FUNCTION_INFO_V1(bloom_recv);
PG_FUNCTION_INFO_V1(bloom_send);
PG_FUNCTION_INFO_V1(bloom_from_bytea);
PG_FUNCTION_INFO_V1(counting_bloom_from_bytea);

static const char *
type_name(uint8 layout)
{
	return layout == BF_LAYOUT_COUNTING4 ? "counting_bloom" : "bloom";
}

/*
 * A value of one SQL type must have one of that type's layouts: bloom holds
 * the bit layouts (classic, blocked512), sets of hashes (explicit), layered
 * filters and other makers' filters (spark, guava, parquet), counting_bloom
 * the counters.
 */
static void
check_layout(const BloomFilter *f, uint8 layout, BloomSource source)
{
	bf_error err = {BF_ERR_FORMAT, ""};

	if ((f->view.p.layout == BF_LAYOUT_COUNTING4) == (layout == BF_LAYOUT_COUNTING4))
		return;
	snprintf(err.message, sizeof(err.message), "%s filters are not values of type %s",
	         bf_layout_name(f->view.p.layout), type_name(layout));
	bloom_report_as(&err, source, type_name(layout));
}

static Datum
filter_in(FunctionCallInfo fcinfo, uint8 layout)
{
	const char *text = PG_GETARG_CSTRING(0);
	size_t textlen = strlen(text);
	size_t len;
	bf_error err;
	struct varlena *raw;
	BloomFilter f;

	/* pass 1 checks the syntax and every field, and sizes the value */
	if (!bf_text_parse(text, textlen, NULL, &len, &err))
		bloom_report_as(&err, BLOOM_FROM_TEXT, type_name(layout));
	raw = bloom_alloc(len);
	if (!bf_text_parse(text, textlen, (uint8_t *) VARDATA(raw), &len, &err))
		bloom_report_as(&err, BLOOM_FROM_TEXT, type_name(layout));
	bloom_validate(raw, BLOOM_FROM_TEXT, type_name(layout), &f);
	check_layout(&f, layout, BLOOM_FROM_TEXT);
	PG_RETURN_POINTER(raw);
}

Datum
bloom_in(PG_FUNCTION_ARGS)
{
	return filter_in(fcinfo, BF_LAYOUT_CLASSIC);
}

Datum
counting_bloom_in(PG_FUNCTION_ARGS)
{
	return filter_in(fcinfo, BF_LAYOUT_COUNTING4);
}

Datum
bloom_out(PG_FUNCTION_ARGS)
{
	BloomFilter f;
	size_t len;
	char *out;

	bloom_get_arg_any(fcinfo, 0, false, &f);
	len = bf_text_length(&f.view);
	if (len + 1 > MaxAllocSize)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		                errmsg("text form of bloom filter would exceed 1 GB (%zu bytes)", len),
		                errhint("Use binary COPY or send the filter in binary format.")));
	out = palloc(len + 1);
	bf_text_write(&f.view, out);
	PG_RETURN_CSTRING(out);
}

/*
 * The value of layout's type whose binary form is the len bytes at bytes:
 * the header checked in place, so that nothing is allocated for garbage,
 * then the whole value in a new varlena (validated: bits, counters, hashes).
 */
static struct varlena *
filter_from_binary(const char *bytes, size_t len, uint8 layout)
{
	bf_error err;
	bf_view view;
	struct varlena *raw;
	BloomFilter f;

	if (!bf_check_header_all((const uint8_t *) bytes, len, &view, &err))
		bloom_report_as(&err, BLOOM_FROM_BINARY, type_name(layout));
	raw = bloom_alloc(len);
	memcpy(VARDATA(raw), bytes, len);
	bloom_validate(raw, BLOOM_FROM_BINARY, type_name(layout), &f);
	check_layout(&f, layout, BLOOM_FROM_BINARY);
	return raw;
}

static Datum
filter_recv(FunctionCallInfo fcinfo, uint8 layout)
{
	StringInfo buf = (StringInfo) PG_GETARG_POINTER(0);
	size_t len = (size_t) (buf->len - buf->cursor);
	struct varlena *raw = filter_from_binary(buf->data + buf->cursor, len, layout);

	/* the message is read whole: the input function must consume it */
	buf->cursor = buf->len;
	PG_RETURN_POINTER(raw);
}

/* bytea::bloom and bytea::counting_bloom: the binary form, checked as filter_recv checks it */
static Datum
filter_from_bytea(FunctionCallInfo fcinfo, uint8 layout)
{
	bytea *b = PG_GETARG_BYTEA_PP(0);

	PG_RETURN_POINTER(filter_from_binary(VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), layout));
}

Datum
bloom_from_bytea(PG_FUNCTION_ARGS)
{
	return filter_from_bytea(fcinfo, BF_LAYOUT_CLASSIC);
}

Datum
counting_bloom_from_bytea(PG_FUNCTION_ARGS)
{
	return filter_from_bytea(fcinfo, BF_LAYOUT_COUNTING4);
}

Datum
bloom_recv(PG_FUNCTION_ARGS)
{
	return filter_recv(fcinfo, BF_LAYOUT_CLASSIC);
}

Datum
counting_bloom_recv(PG_FUNCTION_ARGS)
{
	return filter_recv(fcinfo, BF_LAYOUT_COUNTING4);
}

Datum
bloom_send(PG_FUNCTION_ARGS)
{
	BloomFilter f;
	StringInfoData buf;

	bloom_get_arg_any(fcinfo, 0, false, &f);
	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA(f.raw), (int) (VARSIZE(f.raw) - VARHDRSZ));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
