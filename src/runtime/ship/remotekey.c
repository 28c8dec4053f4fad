/*
 * remotekey.c
 *	  A join key of a runtime filter shipped into a postgres_fdw scan
 *	  (pushdown.c): the SQL that hashes it on the remote side as the local
 *	  probe hashes it, or why it cannot.
 *
 * The local join does not compare the remote value: it compares what
 * postgres_fdw made of it, the text of the remote type's output function
 * (run in postgres_fdw's remote session: search_path pg_catalog, TimeZone
 * UTC, DateStyle ISO, IntervalStyle postgres, extra_float_digits 3) read by
 * the local column type's input function with the local typmod, in the
 * local session.  A numeric(6,1) column over a remote 1.25 holds 1.3; a
 * text column over a remote char(4) holds its padding; a timestamptz column
 * over a remote timestamp reads the text in the local TimeZone.  So the
 * remote side rebuilds that value from the same text, in the same session
 * as the fetch, and hashes it as the local probe does:
 *
 *	 SELECT * FROM (<scan's SQL> OFFSET 0) bloomfilter_pushed
 *	  WHERE CASE WHEN <exact> THEN bloom_runtime_contains($n, <hash>) ELSE true END
 *	 <exact>  (SELECT (SELECT a.atttypid FROM pg_attribute a WHERE a.attrelid =
 *	           'public.t'::regclass AND a.attname = 'k' AND ...)::regtype IN ('bigint', ...))
 *	 <hash>   hashint8(((bloomfilter_pushed.k)::text)::bigint)
 *
 * (OFFSET 0, pushdown.c: the filter sees only the rows the scan's own WHERE
 * keeps, and the remote planner folds no view's expression into it.)
 *
 * The remote column's type is not known when the plan is made, so the SQL
 * must parse whatever it is, and be exact and never fail for every remote
 * type it hashes.  It parses for any type: every type casts to text, and
 * text casts to every type (through the input function); a direct cast or
 * hash of the column would not parse for some.  It is exact for a remote
 * type S when the local type's input reads S's text alike in both sessions
 * and on every version from 15.  A string is read from the output
 * function's text, format('%s', v), where the cast to text differs from it
 * (bool gives "true", char(n) loses its padding, inet adds "/32"); the
 * other local types read the cast's text, which for those is another text
 * of the same value.  key_types lists, for each local type shipped, such
 * remote types; <exact> tests the remote column's type at run time, once
 * per query (an InitPlan reading the remote catalog: no plan of the remote
 * table, whose partitions it would lock), and for any other remote type
 * every row passes, to be probed locally as before (every row: the remote
 * side then sends what it sends without the filter).  A domain over an
 * allowed type is another type: its rows pass.
 *
 * Where the local input fails on some of S's texts (the local fetch of such
 * a row fails), the cast that stands for it must not fail, and the row is
 * dropped rather than passed: a row that passes may be fetched in a batch
 * that the unfiltered query, stopping early (a LIMIT), would not have read.
 * So a typmod is applied by the cast, which rounds as the input does and
 * cuts a too long string where the input fails: varchar(n) and char(n) drop
 * a string that would lose more than spaces; numeric rounds with round()
 * (its cast also checks the precision, and may fail) and drops what
 * exceeds the precision.  A timestamp column with a typmod may hold a
 * value whose text its input rejects, 294277-01-01 00:00:00 (its rounding
 * of the last microsecond): dropped; so are infinite intervals where this
 * server is older than 17.  Integers are read from integer types no wider
 * than the column (a wider one's rows pass), float4 not from float8, and
 * floats not from numeric (either may be out of range).  (The filter looks
 * at the keys only: a row it passes, with a value in another column that
 * the local type cannot read, may be fetched sooner than without it, as it
 * would be with a larger fetch_size.)
 *
 * Refused, with the reason on the probe in EXPLAIN ("Not Shipped"): money
 * (its text follows lc_monetary; it has no hash join anyway), arrays,
 * ranges, records, enums, domains and every type not built in (the remote
 * side may not have it, or not the same input), interval with a typmod
 * (its rounding may fail), and the types not examined (name, "char", oid,
 * jsonb, macaddr, xml, ...).  A type whose input depends on a setting is
 * shipped for the remote types whose text does not make it depend:
 * timestamptz from a remote timestamptz (its text carries the offset), not
 * from a remote timestamp (read in the local TimeZone, which a cached plan
 * may outlive), timetz from timetz alone, interval from interval (the text
 * of IntervalStyle postgres reads alike under every IntervalStyle).
 * Strings (text, varchar, char(n)) are rebuilt from any remote type, but
 * they hash their bytes and postgres_fdw converts the remote database's
 * encoding to the local one: <exact> holds only where the remote database's
 * encoding is the local one (tested once per query, an InitPlan).  A
 * nondeterministic collation is refused (its hash is an ICU sort key, which
 * another ICU may compute differently); a deterministic one hashes the
 * bytes, as "C" does.  The hash functions are PostgreSQL 15's: where 18
 * gave a type one of its own (date, bool, bytea, timestamptz),
 * hash_record(ROW(v)) calls the remote server's own, which hashes alike
 * (pg_upgrade keeps hash indexes).
 *
 * The price: reading a value through its text costs the remote side about
 * 40 ns a row for a bigint (15, 5,000,000 rows: the scan and hashint8 200
 * ms, through text 408 ms), where a text key costs nothing (its cast to
 * text is a relabeling).  A SQL expression that would hash a bigint column
 * directly does not parse for every remote type, and no function the
 * remote side has (bloomfilter 1.7's) takes any type and hashes it as the
 * local probe does: that would need a new one.  remote.c's check of the
 * filter's header once per call site, rather than per row, gives back
 * about 30 ns.
 */
#include "ship.h"

#include "access/transam.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/* How a local type's typmod is applied to the rebuilt value */
typedef enum Typmod
{
	TYPMOD_REFUSED, /* not shipped with one */
	TYPMOD_CAST,    /* the cast: it rounds as the input does, and never fails */
	TYPMOD_LENGTH,  /* varchar(n), char(n): the cast, dropping what the input rejects */
	TYPMOD_ROUND    /* numeric: round() to the scale, dropping what exceeds the precision */
} Typmod;

/* A local column type whose value the remote side rebuilds and hashes exactly */
typedef struct KeyType
{
	Oid type;
	const char *local;      /* the join's hash function for it, as 15 to 18 name it */
	const char *remote;     /* the pg_catalog function the remote side hashes it with;
	                         * NULL: hash_record(ROW(v)), the remote server's own */
	Typmod typmod;          /* how its typmod is applied */
	bool string;            /* read from any remote type's text; the encodings must match */
	Oid from[6];            /* otherwise the remote types read, InvalidOid after the last */
	const char *unreadable; /* texts of theirs the local input rejects: dropped */
} KeyType;

#define PAST_THE_END "'294277-01-01 00:00:00', '294277-01-01 00:00:00+00'"
#if BLOOM_READS_INFINITE_INTERVALS
#define INFINITE_INTERVALS NULL
#else
#define INFINITE_INTERVALS "'infinity', '-infinity'"
#endif

/* Each local type shipped, and the remote types it is read from (the header's lists). */
static const KeyType key_types[] = {
    {.type = INT2OID, .local = "hashint2", .remote = "hashint2", .from = {INT2OID}},
    {.type = INT4OID, .local = "hashint4", .remote = "hashint4", .from = {INT4OID, INT2OID}},
    {.type = INT8OID,
     .local = "hashint8",
     .remote = "hashint8",
     .from = {INT8OID, INT4OID, INT2OID}},
    {.type = NUMERICOID,
     .local = "hash_numeric",
     .remote = "hash_numeric",
     .typmod = TYPMOD_ROUND,
     .from = {NUMERICOID, INT8OID, INT4OID, INT2OID, FLOAT8OID, FLOAT4OID}},
    {.type = FLOAT4OID,
     .local = "hashfloat4",
     .remote = "hashfloat4",
     .from = {FLOAT4OID, INT8OID, INT4OID, INT2OID}},
    {.type = FLOAT8OID,
     .local = "hashfloat8",
     .remote = "hashfloat8",
     .from = {FLOAT8OID, FLOAT4OID, INT8OID, INT4OID, INT2OID}},
    {.type = BOOLOID, .local = "hashchar hashbool", .from = {BOOLOID}},
    {.type = TEXTOID, .local = "hashtext", .remote = "hashtext", .string = true},
    {.type = VARCHAROID,
     .local = "hashtext",
     .remote = "hashtext",
     .typmod = TYPMOD_LENGTH,
     .string = true},
    {.type = BPCHAROID,
     .local = "hashbpchar",
     .remote = "hashbpchar",
     .typmod = TYPMOD_LENGTH,
     .string = true},
    {.type = BYTEAOID, .local = "hashvarlena hashbytea", .from = {BYTEAOID}},
    {.type = UUIDOID, .local = "uuid_hash", .remote = "uuid_hash", .from = {UUIDOID}},
    {.type = DATEOID,
     .local = "hashint4 hashdate",
     .from = {DATEOID, TIMESTAMPOID, TIMESTAMPTZOID}},
    {.type = TIMEOID,
     .local = "time_hash",
     .remote = "time_hash",
     .typmod = TYPMOD_CAST,
     .from = {TIMEOID}},
    {.type = TIMETZOID,
     .local = "timetz_hash",
     .remote = "timetz_hash",
     .typmod = TYPMOD_CAST,
     .from = {TIMETZOID}},
    {.type = TIMESTAMPOID,
     .local = "timestamp_hash",
     .remote = "timestamp_hash",
     .typmod = TYPMOD_CAST,
     .from = {TIMESTAMPOID, TIMESTAMPTZOID},
     .unreadable = PAST_THE_END},
    {.type = TIMESTAMPTZOID,
     .local = "timestamp_hash timestamptz_hash",
     .typmod = TYPMOD_CAST,
     .from = {TIMESTAMPTZOID},
     .unreadable = PAST_THE_END},
    {.type = INTERVALOID,
     .local = "interval_hash",
     .remote = "interval_hash",
     .from = {INTERVALOID},
     .unreadable = INFINITE_INTERVALS},
    {.type = INETOID, .local = "hashinet", .remote = "hashinet", .from = {INETOID, CIDROID}},
    {.type = CIDROID, .local = "hashinet", .remote = "hashinet", .from = {CIDROID}},
};

/*
 * SQL of a text of the remote value col that the local input reads as
 * postgres_fdw's fetch does: its output function's (format's %s calls it;
 * but makes '' of NULL), or, by_cast, its cast to text.  The cast is the
 * output function (no pg_cast entry) for every type of key_types' lists
 * but bool ("true" for "t"), inet and cidr ("/32" added), whose casts give
 * another text of the same value: no string is read from them.
 */
static char *
remote_text(const char *col, bool by_cast)
{
	if (by_cast)
		return psprintf("(%s)::text", col);
	/*
	 * (num_nulls, not IS NOT NULL: a composite value with a NULL field is
	 * not NULL, yet IS NOT NULL is false for it)
	 */
	return psprintf(
	    "(CASE WHEN pg_catalog.num_nulls(%s) = 0 THEN pg_catalog.format('%%s', %s) END)", col, col);
}

/*
 * SQL of whether the remote column's type is one of types: an InitPlan, so
 * tested once per query.  remote_type is a scalar subquery giving the
 * remote column's type's oid (from the remote catalog).
 */
static char *
remote_type_in(const char *remote_type, const Oid *types, int ntypes)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "(SELECT %s::pg_catalog.regtype IN (", remote_type);
	for (int i = 0; i < ntypes; i++)
		appendStringInfo(&buf, "%s%s::pg_catalog.regtype", i == 0 ? "" : ", ",
		                 quote_literal_cstr(format_type_be(types[i])));
	appendStringInfoString(&buf, "))");
	return buf.data;
}

/*
 * SQL of the hash of the value the local input function makes of text
 * (remote_text's), for a column of kt's type with typmod, as the local
 * probe computes it; NULL for a text the local input rejects.  Never fails:
 * see the header and key_types.
 */
static char *
rebuilt_hash(const KeyType *kt, int32 typmod, const char *text)
{
	char *value, *readable = NULL, *hash;

	if (kt->typmod == TYPMOD_ROUND && typmod >= (int32) VARHDRSZ)
	{
		/* numeric's typmod: precision << 16 | scale (11 bits, signed from 15 on), plus VARHDRSZ */
		int precision = ((typmod - VARHDRSZ) >> 16) & 0xffff;
		int scale = (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024;

		value = psprintf("pg_catalog.round((%s)::pg_catalog.numeric, %d)", text, scale);
		/* the input's check, after rounding: NaN, or fewer than precision - scale digits */
		readable = psprintf("%s = 'NaN' OR pg_catalog.abs(%s) < '1e%d'::pg_catalog.numeric", value,
		                    value, precision - scale);
	}
	else
	{
		value = psprintf("(%s)::%s", text, format_type_with_typemod(kt->type, typmod));
		if (kt->typmod == TYPMOD_LENGTH && typmod >= (int32) VARHDRSZ)
			/* the cast cuts; the input fails where it would cut more than spaces */
			readable = psprintf("pg_catalog.length(pg_catalog.rtrim(%s)) <= %d", text,
			                    typmod - (int32) VARHDRSZ);
		else if (kt->unreadable != NULL)
			readable = psprintf("%s NOT IN (%s)", text, kt->unreadable);
	}
	if (kt->string)
		value = psprintf("%s COLLATE pg_catalog.\"C\"", value);
	if (kt->remote == NULL)
		hash = psprintf("pg_catalog.hash_record(ROW(%s))", value);
	else
		hash = psprintf("pg_catalog.%s(%s)", kt->remote, value);
	return readable == NULL ? hash : psprintf("CASE WHEN %s THEN %s END", readable, hash);
}

const char *
bloom_rf_remote_key(const Var *var, const char *col, const char *remote_type, Oid opno,
                    Oid collation, char **hash, char **exact)
{
	const KeyType *kt = NULL;
	Oid left_fn, right_fn;
	const char *type = format_type_with_typemod(var->vartype, var->vartypmod);
	char *fn, *names;
	int ntypes = 0;

	for (int i = 0; i < (int) lengthof(key_types); i++)
		if (key_types[i].type == var->vartype)
			kt = &key_types[i];
	if (kt == NULL)
		return psprintf("%s is not a type whose remote value is rebuilt exactly", type);
	if (var->vartypmod >= 0 && kt->typmod == TYPMOD_REFUSED)
		return psprintf("%s is shipped only without a typmod", type);
	if (!get_op_hash_functions(opno, &left_fn, &right_fn) || left_fn >= FirstGenbkiObjectId ||
	    get_func_namespace(left_fn) != PG_CATALOG_NAMESPACE)
		return psprintf("the join's hash function for %s is not built in", type);
	/* a whole word of local_hashes */
	fn = get_func_name(left_fn);
	names = psprintf(" %s ", kt->local);
	if (strstr(names, psprintf(" %s ", fn)) == NULL)
		return psprintf("the join hashes %s with %s, not its type's own", type, fn);
	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return psprintf("%s under a nondeterministic collation", type);

	if (kt->string)
	{
		/* text and varchar: their cast; any other type: its output function */
		*exact = psprintf("(SELECT pg_catalog.getdatabaseencoding() = %s)",
		                  quote_literal_cstr(GetDatabaseEncodingName()));
		*hash = psprintf("CASE WHEN %s THEN %s ELSE %s END",
		                 remote_type_in(remote_type, (const Oid[]){TEXTOID, VARCHAROID}, 2),
		                 rebuilt_hash(kt, var->vartypmod, remote_text(col, true)),
		                 rebuilt_hash(kt, var->vartypmod, remote_text(col, false)));
		return NULL;
	}
	while (ntypes < (int) lengthof(kt->from) && OidIsValid(kt->from[ntypes]))
		ntypes++;
	*exact = remote_type_in(remote_type, kt->from, ntypes);
	*hash = rebuilt_hash(kt, var->vartypmod, remote_text(col, true));
	return NULL;
}
