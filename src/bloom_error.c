/*
 * bloom_error.c
 *	  The core's errors (bf_error) as PostgreSQL errors: the SQLSTATE follows
 *	  where the bad filter came from, the message is the core's.
 */
#include "bloom_error.h"

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"

void
bloom_report(const bf_error *err, BloomSource source)
{
	bloom_report_as(err, source, "bloom");
}

void
bloom_report_as(const bf_error *err, BloomSource source, const char *typname)
{
	int code;

	if (err->status == BF_ERR_TOO_LARGE)
		code = ERRCODE_PROGRAM_LIMIT_EXCEEDED;
	else
		switch (source)
		{
			case BLOOM_FROM_TEXT:
				code = ERRCODE_INVALID_TEXT_REPRESENTATION;
				break;
			case BLOOM_FROM_BINARY:
				code = ERRCODE_INVALID_BINARY_REPRESENTATION;
				break;
			case BLOOM_FROM_ARGUMENT:
				code = ERRCODE_INVALID_PARAMETER_VALUE;
				break;
			default:
				code = ERRCODE_DATA_CORRUPTED;
				break;
		}

	if (err->status == BF_ERR_TOO_LARGE)
		ereport(ERROR, (errcode(code), errmsg("bloom filter too large: %s", err->message)));

	switch (source)
	{
		case BLOOM_FROM_TEXT:
			ereport(ERROR, (errcode(code),
			                errmsg("invalid input syntax for type %s: %s", typname, err->message)));
			break;
		case BLOOM_FROM_BINARY:
			ereport(ERROR, (errcode(code),
			                errmsg("invalid external binary %s value: %s", typname, err->message)));
			break;
		case BLOOM_FROM_ARGUMENT:
			ereport(ERROR, (errcode(code), errmsg("%s", err->message)));
			break;
		case BLOOM_FROM_STORAGE:
			ereport(ERROR, (errcode(code), errmsg("corrupted bloom value: %s", err->message)));
			break;
	}
	pg_unreachable();
}

bool
bloom_elem_is_text(const char *elem, size_t len)
{
	Assert(len <= BF_MAX_ELEM_LEN);
	return pg_verifymbstr(elem, (int) len, true);
}

char *
bloom_elem_for_message(const char *elem, size_t len)
{
	StringInfoData out;

	if (bloom_elem_is_text(elem, len))
		return pnstrdup(elem, len);
	initStringInfo(&out);
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) elem[i];

		if (c >= 0x20 && c < 0x7F && c != '\\')
			appendStringInfoChar(&out, (char) c);
		else
			appendStringInfo(&out, "\\x%02X", c);
	}
	return out.data;
}
