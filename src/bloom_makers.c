/*
 * bloom_makers.c
 *	  Other makers' filters in SQL: the bytes a maker hashed for an SQL
 *	  value, which the probes and adds of such a filter hash as the maker
 *	  does (core/bf_makers.h).  bloom_import, bloom_export and the makers'
 *	  formats of bloom_agg are bloom_import.c's.
 *
 * The element key of such a filter says how a value becomes those bytes
 * (bf_format.h): "spark:int8" a long's 8 bytes (Spark widens every integral
 * type to a long), "guava:chars" a string's UTF-16 code units, "parquet:date"
 * the days since 1970-01-01 as an INT32, and so on.  The key is chosen at
 * import from the SQL type the user will probe with; a probe of another
 * type that the key takes exactly (an integer in a long's key) is
 * converted, and of a type it does not take is refused (42804), as a
 * filter of our own refuses a value of another hash family.
 */
#include "bloom_makers.h"
#include "bloom_callcache.h"
#include "bloom_error.h"
#include "bloom_value.h"

#include "../core/bf_makers.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/uuid.h"

/* How the makers' encodings read an SQL value (one per group of keys). */
typedef enum MakerEncoding
{
	ENC_LONG,   /* a long, 8 bytes little-endian: integers */
	ENC_INT,    /* an int, 4 bytes little-endian: integers in its range */
	ENC_DATE,   /* INT32 days since 1970-01-01 */
	ENC_TS,     /* INT64 microseconds since 1970-01-01 00:00 (timestamp) */
	ENC_TSTZ,   /* the same, of a timestamptz (UTC) */
	ENC_FLOAT4, /* IEEE single, little-endian */
	ENC_FLOAT8, /* IEEE double, little-endian */
	ENC_TEXT,   /* UTF-8 bytes */
	ENC_CHARS,  /* UTF-16 code units, little-endian (Guava's unencodedCharsFunnel) */
	ENC_BYTEA,  /* the bytes */
	ENC_UUID    /* the 16 bytes, as PostgreSQL keeps them (RFC 4122 order) */
} MakerEncoding;

/* The keys, by name (the format's table of names is bf_format.c's). */
static const struct
{
	const char *key;
	MakerEncoding enc;
} key_encodings[] = {
    {"spark:int8", ENC_LONG},          {"spark:text", ENC_TEXT},
    {"spark:bytea", ENC_BYTEA},        {"guava:int8", ENC_LONG},
    {"guava:int4", ENC_INT},           {"guava:text", ENC_TEXT},
    {"guava:chars", ENC_CHARS},        {"guava:bytea", ENC_BYTEA},
    {"parquet:int4", ENC_INT},         {"parquet:int8", ENC_LONG},
    {"parquet:date", ENC_DATE},        {"parquet:timestamp", ENC_TS},
    {"parquet:timestamptz", ENC_TSTZ}, {"parquet:float4", ENC_FLOAT4},
    {"parquet:float8", ENC_FLOAT8},    {"parquet:text", ENC_TEXT},
    {"parquet:bytea", ENC_BYTEA},      {"parquet:uuid", ENC_UUID},
};

/* The encoding of a maker's filter's element key (checked with its header). */
static MakerEncoding
key_encoding(const bf_view *view)
{
	for (size_t i = 0; i < lengthof(key_encodings); i++)
		if (strlen(key_encodings[i].key) == view->elemlen &&
		    memcmp(key_encodings[i].key, view->elem, view->elemlen) == 0)
			return key_encodings[i].enc;
	elog(ERROR, "bloom: no encoding for the element key of a %s filter",
	     bf_layout_name(view->p.layout));
	pg_unreachable();
}

/* Whether values of the (base) type typid are read by the encoding. */
static bool
encoding_takes(MakerEncoding enc, Oid typid)
{
	switch (enc)
	{
		case ENC_LONG:
		case ENC_INT:
			return typid == INT2OID || typid == INT4OID || typid == INT8OID;
		case ENC_DATE:
			return typid == DATEOID;
		case ENC_TS:
			return typid == TIMESTAMPOID;
		case ENC_TSTZ:
			return typid == TIMESTAMPTZOID;
		case ENC_FLOAT4:
		case ENC_FLOAT8:
			return typid == FLOAT4OID || typid == FLOAT8OID;
		case ENC_TEXT:
		case ENC_CHARS:
			return typid == TEXTOID || typid == VARCHAROID;
		case ENC_BYTEA:
			return typid == BYTEAOID;
		case ENC_UUID:
			return typid == UUIDOID;
	}
	return false;
}

/* A value's bytes for its maker; alt: a second encoding a probe also asks (the other zero). */
typedef struct MakerBytes
{
	uint8 fixed[16];
	const uint8 *bytes;
	size_t len;
	bool has_alt;
	uint8 alt[8];
} MakerBytes;

/* Write v as an nbytes-byte little-endian integer at p: the makers' plain encodings. */
static void
put_le(uint8 *p, uint64 v, int nbytes)
{
#ifndef WORDS_BIGENDIAN
	/* one store, which the hash's word load reads back at once (byte stores stall it) */
	memcpy(p, &v, nbytes);
#else
	for (int i = 0; i < nbytes; i++, v >>= 8)
		p[i] = (uint8) v;
#endif
}

/* An integer argument of type typid as an int64. */
static int64
integer_of(Oid typid, Datum value)
{
	return typid == INT2OID   ? DatumGetInt16(value)
	       : typid == INT4OID ? DatumGetInt32(value)
	                          : DatumGetInt64(value);
}

/* The text's UTF-8 bytes (converted from the database's encoding where it is another). */
static void
text_bytes(Datum value, MakerBytes *out)
{
	text *t = DatumGetTextPP(value);
	const char *s = VARDATA_ANY(t);
	int len = VARSIZE_ANY_EXHDR(t);

	if (GetDatabaseEncoding() != PG_UTF8 && GetDatabaseEncoding() != PG_SQL_ASCII)
		s = pg_server_to_any(s, len, PG_UTF8);
	if (s != VARDATA_ANY(t))
		len = (int) strlen(s); /* a converted copy is NUL-terminated, and holds no NUL */
	out->bytes = (const uint8 *) s;
	out->len = (size_t) len;
}

/*
 * The bytes of value (of base type typid, which enc takes) into out; false
 * if the maker's encoding cannot hold it (an integer past an int's range,
 * an infinite date, a double that is no float).
 */
static bool
encode(MakerEncoding enc, Oid typid, Datum value, MakerBytes *out)
{
	out->bytes = out->fixed;
	out->has_alt = false;
	switch (enc)
	{
		case ENC_LONG:
			put_le(out->fixed, (uint64) integer_of(typid, value), 8);
			out->len = 8;
			return true;
		case ENC_INT:
		{
			int64 v = integer_of(typid, value);

			if (v < PG_INT32_MIN || v > PG_INT32_MAX)
				return false;
			put_le(out->fixed, (uint32) (int32) v, 4);
			out->len = 4;
			return true;
		}
		case ENC_DATE:
		{
			DateADT d = DatumGetDateADT(value);
			int32 days;

			if (DATE_NOT_FINITE(d) ||
			    pg_add_s32_overflow(d, POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE, &days))
				return false;
			put_le(out->fixed, (uint32) days, 4);
			out->len = 4;
			return true;
		}
		case ENC_TS:
		case ENC_TSTZ:
		{
			int64 t = DatumGetInt64(value), us;

			if (TIMESTAMP_NOT_FINITE(t) ||
			    pg_add_s64_overflow(
			        t, (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY, &us))
				return false;
			put_le(out->fixed, (uint64) us, 8);
			out->len = 8;
			return true;
		}
		case ENC_FLOAT4:
		case ENC_FLOAT8:
		{
			double d = typid == FLOAT4OID ? (double) DatumGetFloat4(value) : DatumGetFloat8(value);

			if (enc == ENC_FLOAT4)
			{
				float4 f = (float4) d;
				uint32 bits;

				if (!isnan(d) && (double) f != d)
					return false; /* no float is this double */
				memcpy(&bits, &f, 4);
				put_le(out->fixed, bits, 4);
				out->len = 4;
			}
			else
			{
				uint64 bits;

				memcpy(&bits, &d, 8);
				put_le(out->fixed, bits, 8);
				out->len = 8;
			}
			/*
			 * 0 = -0 in SQL, as in DuckDB's probe of a Parquet file: both
			 * zeros are asked.  And every NaN is one NaN: the canonical
			 * quiet NaN (Java's Double.NaN) is added, and it and its
			 * sign-flipped twin (what arithmetic on x86 makes) are asked.
			 */
			if (isnan(d))
			{
				if (enc == ENC_FLOAT4)
					put_le(out->fixed, UINT32_C(0x7FC00000), 4);
				else
					put_le(out->fixed, UINT64_C(0x7FF8000000000000), 8);
			}
			if (d == 0.0 || isnan(d))
			{
				out->has_alt = true;
				memcpy(out->alt, out->fixed, out->len);
				out->alt[out->len - 1] ^= 0x80; /* the sign bit */
			}
			return true;
		}
		case ENC_TEXT:
			text_bytes(value, out);
			return true;
		case ENC_CHARS:
		{
			MakerBytes utf8;
			uint8 *units;
			long n;

			text_bytes(value, &utf8);
			units = palloc(2 * utf8.len + 1);
			n = bf_utf8_to_utf16le(utf8.bytes, utf8.len, units);
			if (n < 0)
				ereport(ERROR, (errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				                errmsg("the value is not valid UTF-8")));
			out->bytes = units;
			out->len = (size_t) n;
			return true;
		}
		case ENC_BYTEA:
		{
			bytea *b = DatumGetByteaPP(value);

			out->bytes = (const uint8 *) VARDATA_ANY(b);
			out->len = VARSIZE_ANY_EXHDR(b);
			return true;
		}
		case ENC_UUID:
			memcpy(out->fixed, DatumGetUUIDP(value)->data, UUID_LEN);
			out->len = UUID_LEN;
			return true;
	}
	return false;
}

/*
 * The encoding of the filter's key and the base type of argument argno,
 * which it must take; kept in the call site's cache for the next row (a
 * call site's argument types never change; its filter may).
 */
static MakerEncoding
argument_encoding(FunctionCallInfo fcinfo, int argno, const bf_view *view, Oid *typid)
{
	BloomCallCache *cache = bloom_call_cache(fcinfo);
	MakerEncoding enc;

	if (cache->maker_valid && cache->maker_argno == argno &&
	    cache->maker_elemlen == view->elemlen &&
	    memcmp(cache->maker_elem, view->elem, view->elemlen) == 0)
	{
		*typid = cache->maker_typid;
		return (MakerEncoding) cache->maker_encoding;
	}
	enc = key_encoding(view);
	*typid = getBaseType(bloom_value_type(fcinfo, argno));
	if (!encoding_takes(enc, *typid))
		ereport(ERROR,
		        (errcode(ERRCODE_DATATYPE_MISMATCH),
		         errmsg("a %s filter of element key \"%.*s\" does not take values of type %s",
		                bf_layout_name(view->p.layout), (int) view->elemlen, view->elem,
		                format_type_be(*typid)),
		         errhint("bloom_import's element_type chose how values become the bytes its "
		                 "maker hashed; probe it with values of that type.")));
	/* (every key is shorter than the cache's copy: bf_format.c's table) */
	if (view->elemlen <= sizeof(cache->maker_elem))
	{
		memcpy(cache->maker_elem, view->elem, view->elemlen);
		cache->maker_elemlen = view->elemlen;
		cache->maker_argno = argno;
		cache->maker_typid = *typid;
		cache->maker_encoding = (int) enc;
		cache->maker_valid = true;
	}
	return enc;
}

bool
bloom_maker_contains_arg(FunctionCallInfo fcinfo, int argno, const bf_view *view, bool kept)
{
	Oid typid;
	MakerEncoding enc;
	MakerBytes b;
	uint64 recip;

	Assert(bf_layout_is_maker(view->p.layout));

	/*
	 * The filter the call site keeps: its encoding (for this argument's
	 * type) and the reciprocal of its m, found at its first probe and kept
	 * until the cache holds another filter (bloom_get_arg_cached clears
	 * them).  Else a filter per row: a division is as cheap as the
	 * reciprocal.
	 */
	if (kept)
	{
		BloomCallCache *cache = bloom_call_cache(fcinfo);

		if (!cache->maker_recip_valid || cache->maker_recip_argno != argno)
		{
			cache->maker_kept_encoding = (int) argument_encoding(fcinfo, argno, view, &typid);
			cache->maker_kept_typid = typid;
			cache->maker_recip = bf_maker_recip(view);
			cache->maker_recip_argno = argno;
			cache->maker_recip_valid = true;
		}
		enc = (MakerEncoding) cache->maker_kept_encoding;
		typid = cache->maker_kept_typid;
		recip = cache->maker_recip;
	}
	else
	{
		enc = argument_encoding(fcinfo, argno, view, &typid);
		recip = 0;
	}
	/* a long, every row of a join on a bigint: no bytes made of it (the same answer) */
	if (enc == ENC_LONG)
		return bf_maker_contains_long(view, recip, integer_of(typid, PG_GETARG_DATUM(argno)));
	if (!encode(enc, typid, PG_GETARG_DATUM(argno), &b))
		return false; /* a value its maker could not have held */
	return bf_maker_contains_recip(view, recip, b.len ? b.bytes : NULL, b.len) ||
	       (b.has_alt && bf_maker_contains_recip(view, recip, b.alt, b.len));
}

/* The bytes argument argno is added as (22003 if the encoding has none for it). */
static void
encode_for_add(FunctionCallInfo fcinfo, int argno, const BloomFilter *f, MakerBytes *b)
{
	Oid typid;
	MakerEncoding enc = argument_encoding(fcinfo, argno, &f->view, &typid);

	if (!encode(enc, typid, PG_GETARG_DATUM(argno), b))
		ereport(ERROR,
		        (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
		         errmsg("the value cannot be held by a %s filter of element key \"%.*s\"",
		                bf_layout_name(f->view.p.layout), (int) f->view.elemlen, f->view.elem),
		         errdetail("Its maker's encoding has no bytes for it (an integer past an int's "
		                   "range, an infinite date or time, a double that no float equals).")));
}

void
bloom_maker_add_arg(FunctionCallInfo fcinfo, int argno, BloomFilter *f)
{
	MakerBytes b;

	encode_for_add(fcinfo, argno, f, &b);
	bf_maker_add(&f->view, b.len ? b.bytes : NULL, b.len);
	if (!(f->view.flags & BF_FLAG_N_UNKNOWN))
		bf_view_set_nadded(&f->view, bloom_add_counts(f->view.nadded, 1));
}

uint64
bloom_maker_hash_arg(FunctionCallInfo fcinfo, int argno, const BloomFilter *f)
{
	MakerBytes b;

	Assert(bf_maker_hashes_one(f->view.p.layout));
	encode_for_add(fcinfo, argno, f, &b);
	return bf_maker_hash(&f->view, b.len ? b.bytes : NULL, b.len);
}
