/*
 * bloom_compat.h
 *	  Every difference between the PostgreSQL versions the extension builds
 *	  against, in one place.
 *
 * The PostgreSQL layer includes this right after postgres.h (through
 * bloom_pg.h); no other file tests PG_VERSION_NUM.  The code is written for
 * PostgreSQL 15 to 18; 15, 17 and 18 are tested (tools/run.sh test).  16 is
 * covered by the same conditionals as 17 but no package of it is reachable
 * from the machines the suite runs on, so it is not tested.
 */
#ifndef BLOOM_COMPAT_H
#define BLOOM_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "bloomfilter requires PostgreSQL 15 or later"
#endif

/* 16 moved VARDATA, VARSIZE and the varattrib_* structs out of postgres.h. */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

/*
 * 18 replaced the pg_attribute_noreturn() suffix with a pg_noreturn prefix.
 * Earlier versions' suffix expands to an attribute (gcc, clang) or a
 * declspec (MSVC) that is also valid in front of a declaration, so the new
 * spelling serves every version.
 */
#ifndef pg_noreturn
#define pg_noreturn pg_attribute_noreturn()
#endif

#endif /* BLOOM_COMPAT_H */
