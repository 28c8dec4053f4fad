/*
 * bloom_error.h
 *	  Raising the core's errors (bf_error) as PostgreSQL errors, with the
 *	  SQLSTATE that fits where the bad value came from.  Used by both rooms
 *	  of the PostgreSQL layer: the type's files and the runtime filters.
 */
#ifndef BLOOM_ERROR_H
#define BLOOM_ERROR_H

#include "bloom_compat.h"

#include "../core/bf_core.h"

/* Where a bad filter came from; decides the SQLSTATE of the error. */
typedef enum BloomSource
{
	BLOOM_FROM_TEXT,     /* text input: 22P02 */
	BLOOM_FROM_BINARY,   /* binary input: 22P03 */
	BLOOM_FROM_ARGUMENT, /* a function's parameters: 22023 */
	BLOOM_FROM_STORAGE   /* a stored value that fails its check: XX001 */
} BloomSource;

/* Raise the error described by err (54000 for BF_ERR_TOO_LARGE). */
pg_noreturn extern void bloom_report(const bf_error *err, BloomSource source);

/* The same, naming the SQL type in input errors. */
pg_noreturn extern void bloom_report_as(const bf_error *err, BloomSource source,
                                        const char *typname);

/*
 * An element key as a message may show it (palloc'd, NUL-terminated): as
 * it is when it is valid text in the database's encoding, else with every
 * byte outside printable ASCII written \xHH, so that no message carries
 * bytes that are not text.
 */
extern char *bloom_elem_for_message(const char *elem, size_t len);

/*
 * Whether an element key is valid text in the database's encoding (every
 * entry of a filter checks it: bloom_validate).
 */
extern bool bloom_elem_is_text(const char *elem, size_t len);

#endif /* BLOOM_ERROR_H */
