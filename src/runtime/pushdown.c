/*
 * pushdown.c
 *	  Runtime filters shipped into postgres_fdw scans: the bloom join across
 *	  servers, with no rewrite of the query.
 *
 * Where a probe would go right above a postgres_fdw foreign scan of one
 * table, and the scan's server lists bloomfilter in its "extensions"
 * option, the filter also goes into the remote query, so that rows that
 * cannot match are not sent at all.  The scan's remote SQL (postgres_fdw's
 * fdw_private) is wrapped:
 *
 *	 SELECT * FROM (<the scan's own SQL>) bloomfilter_pushed
 *	  WHERE CASE WHEN <exact> THEN <schema>.bloom_runtime_contains($n::bytea, <key hash>)
 *	             ELSE true END
 *
 * where $n is a parameter appended to the scan's fdw_exprs: a PARAM_EXEC
 * Param of type bytea that the build node sets to the finished filter
 * (build.c) and leaves NULL until then, or when the filter is too full to
 * be useful or larger than bloomfilter.runtime_filter_ship_max; a NULL
 * filter lets every row through (remote.c).  Keys are combined as the hash
 * join combines them.  The local probe stays above the scan: it drops what
 * the remote side let through only if the filter was not sent.
 *
 * The key hash.  The local join does not compare the remote value: it
 * compares what postgres_fdw made of it, the text of the remote type's
 * output function (run in postgres_fdw's remote session: search_path
 * pg_catalog, TimeZone UTC, DateStyle ISO, IntervalStyle postgres,
 * extra_float_digits 3) read by the local column type's input function with
 * the local typmod, in the local session.  A numeric(6,1) column over a
 * remote 1.25 holds 1.3; a text column over a remote char(4) holds its
 * padding; a timestamptz column over a remote timestamp reads the text in
 * the local TimeZone.  So the remote side rebuilds that value from the same
 * text and hashes it with the local probe's hash function:
 *
 *	 <hash>(((bloomfilter_pushed.col)::text)::<local type(typmod)>)
 *
 * The remote column's type is not known when the plan is made, so the SQL
 * must parse whatever it is, and be exact and never fail for each remote
 * type it hashes.  It parses for any type: every type casts to text, and
 * text casts to every type (through the input function).  It is exact only
 * for remote types S whose text the local type's input function reads alike
 * in both sessions and on every version from 15, and whose cast to text is
 * their output function (format('%s', v) is used for the few whose cast to
 * text is not: bool, char(n), inet, cidr); and it never fails only where
 * that input cannot fail on S's text.  key_types below lists, for each
 * local type shipped, the remote types S with both properties, tested at
 * run time by pg_typeof(col) (the remote column's type, NULL or not): for
 * any other remote type <exact> is false and every row passes, filtered
 * locally as before.  A typmod is applied as the cast applies it (the cast
 * cuts a too long string where the input function fails: such a row fails
 * the local fetch anyway, so its hash does not matter), except where the
 * cast could fail: numeric rounds with round() (the cast also checks the
 * precision), and a timestamp within a second of the last one passes.
 *
 * Not on the list, with the reason (EXPLAIN's "Not Shipped"): money (its
 * text follows lc_monetary), arrays, ranges, records, enums, domains and
 * every type not built in (the remote side may not have it, or the same
 * input), interval with a typmod (rounding it may fail), and types nobody
 * checked (name, "char", oid, jsonb, macaddr, xml, ...).  Types whose
 * value depends on a setting are shipped for the remote types whose text
 * does not: timestamptz from a remote timestamptz (its text carries the
 * offset), not from a remote timestamp or date (read in the local TimeZone,
 * which the plan may not outlive); timetz from timetz alone.  Strings
 * (text, varchar, char(n)) are rebuilt from any remote type, but a string
 * hashes its bytes and postgres_fdw converts the remote database's encoding
 * to the local one: <exact> holds only when the remote database's encoding
 * is the local one (once per query: an InitPlan).  A nondeterministic
 * collation is not shipped (its hash is an ICU sort key, which another ICU
 * may compute differently); a deterministic one hashes the bytes, as "C"
 * does.  The hash functions are those of PostgreSQL 15: where 18 renamed a
 * type's (date, bool, bytea, timestamptz), hash_record(ROW(v)) calls the
 * remote server's own, which hashes alike (pg_upgrade keeps hash indexes).
 *
 * The cost: the same-type path reads the value through its text (about 35
 * ns a row for a bigint, against 20 for the bare hash), and pg_typeof.
 *
 * A remote cursor is opened at the scan's first fetch.  The join must have
 * built its filter by then: a hash join that might read an outer row before
 * building its table (to skip the build if the outer side is empty) does so
 * only when its outer child's startup cost is below the Hash node's total
 * cost, so the join's outer child is given at least that startup cost
 * (bloom_rf_push_hold_outer).  A rescan that rebuilds the filter marks the
 * scan's parameter changed, so postgres_fdw sends the query again with the
 * new filter instead of reusing rows the old one passed (build.c).
 *
 * Not shipped, and probed locally only, with the reason in EXPLAIN: scans of
 * a join or an aggregate pushed to the remote side, scans whose SQL sorts,
 * limits or locks rows, keys of the types above, servers without
 * bloomfilter in "extensions", and databases where the extension is not
 * installed locally (its schema names the remote function).  The remote
 * server must have bloomfilter 1.7 or later installed in the same schema.
 */
#include "runtime.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "catalog/pg_namespace.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

#define PUSHED_ALIAS "bloomfilter_pushed"

/* How a local type's typmod is applied to the rebuilt value */
typedef enum Typmod
{
	TYPMOD_REFUSED,  /* not shipped with one */
	TYPMOD_CAST,     /* the cast with the typmod: it rounds or cuts, and never fails */
	TYPMOD_ROUND,    /* numeric: round() to the scale (the cast also checks the precision) */
	TYPMOD_BELOW_END /* timestamps: the cast, which fails only for values within a
	                  * second of the last one: those pass unfiltered */
} Typmod;

/* A local column type whose value the remote side rebuilds and hashes exactly */
typedef struct KeyType
{
	Oid type;
	const char *local_hashes; /* the join's hash function for it, as 15 to 18 name it */
	const char *remote_hash;  /* the pg_catalog function the remote side hashes it with,
	                           * NULL: hash_record(ROW(v)), the remote server's own */
	const char *read_as;      /* the type the text is read as, if not the column's */
	Typmod typmod;
	bool string; /* read from any remote type's text; the encodings must match */
	Oid from[7]; /* otherwise the remote types read, InvalidOid after the last */
} KeyType;

#define INTEGERS INT2OID, INT4OID, INT8OID

/*
 * The remote types each local type is read from exactly (the same value in
 * both sessions, on every version) and without error: the header's list.
 * Integers are read as bigint, so that a remote value out of the local
 * type's range (which fails the local fetch) does not fail here; float4
 * and float8 are not read from numeric (it may be out of their range), nor
 * float4 from float8; integers from integers alone.
 */
static const KeyType key_types[] = {
    {INT2OID,
     "hashint2 hashint4 hashint8",
     "hashint8",
     "bigint",
     TYPMOD_REFUSED,
     false,
     {INTEGERS}},
    {INT4OID,
     "hashint2 hashint4 hashint8",
     "hashint8",
     "bigint",
     TYPMOD_REFUSED,
     false,
     {INTEGERS}},
    {INT8OID,
     "hashint2 hashint4 hashint8",
     "hashint8",
     "bigint",
     TYPMOD_REFUSED,
     false,
     {INTEGERS}},
    {NUMERICOID,
     "hash_numeric",
     "hash_numeric",
     NULL,
     TYPMOD_ROUND,
     false,
     {NUMERICOID, INTEGERS, FLOAT4OID, FLOAT8OID}},
    {FLOAT4OID, "hashfloat4", "hashfloat4", NULL, TYPMOD_REFUSED, false, {FLOAT4OID, INTEGERS}},
    {FLOAT8OID,
     "hashfloat8",
     "hashfloat8",
     NULL,
     TYPMOD_REFUSED,
     false,
     {FLOAT8OID, FLOAT4OID, INTEGERS}},
    {BOOLOID, "hashchar hashbool", NULL, NULL, TYPMOD_REFUSED, false, {BOOLOID}},
    {TEXTOID, "hashtext", "hashtext", NULL, TYPMOD_CAST, true, {InvalidOid}},
    {VARCHAROID, "hashtext", "hashtext", NULL, TYPMOD_CAST, true, {InvalidOid}},
    {BPCHAROID, "hashbpchar", "hashbpchar", NULL, TYPMOD_CAST, true, {InvalidOid}},
    {BYTEAOID, "hashvarlena hashbytea", NULL, NULL, TYPMOD_REFUSED, false, {BYTEAOID}},
    {UUIDOID, "uuid_hash", "uuid_hash", NULL, TYPMOD_REFUSED, false, {UUIDOID}},
    {DATEOID,
     "hashint4 hashdate",
     NULL,
     NULL,
     TYPMOD_REFUSED,
     false,
     {DATEOID, TIMESTAMPOID, TIMESTAMPTZOID}},
    {TIMEOID, "time_hash", "time_hash", NULL, TYPMOD_CAST, false, {TIMEOID}},
    {TIMETZOID, "timetz_hash", "timetz_hash", NULL, TYPMOD_CAST, false, {TIMETZOID}},
    {TIMESTAMPOID,
     "timestamp_hash",
     "timestamp_hash",
     NULL,
     TYPMOD_BELOW_END,
     false,
     {TIMESTAMPOID, TIMESTAMPTZOID}},
    {TIMESTAMPTZOID,
     "timestamp_hash timestamptz_hash",
     NULL,
     NULL,
     TYPMOD_BELOW_END,
     false,
     {TIMESTAMPTZOID}},
    {INTERVALOID, "interval_hash", "interval_hash", NULL, TYPMOD_REFUSED, false, {INTERVALOID}},
    {INETOID, "hashinet", "hashinet", NULL, TYPMOD_REFUSED, false, {INETOID, CIDROID}},
    {CIDROID, "hashinet", "hashinet", NULL, TYPMOD_REFUSED, false, {CIDROID}},
};

static bool is_postgres_fdw(Oid serverid);
static bool lists_us(Oid serverid);
static bool sql_can_be_wrapped(const char *sql);
static const char *key_sql(Oid relid, const Var *var, Oid opno, Oid collation, char **hash,
                           char **exact);

/*
 * The bloomfilter extension's schema in this database, quoted, or NULL if
 * it is not installed here.  (get_extension_schema() is exported from 16
 * on only; this reads pg_extension as it does.)
 */
static char *
extension_schema(void)
{
	Oid ext = get_extension_oid("bloomfilter", true);
	Oid nspid = InvalidOid;
	Relation rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple tup;
	char *nsp;

	if (!OidIsValid(ext))
		return NULL;
	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		nspid = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (!OidIsValid(nspid) || (nsp = get_namespace_name(nspid)) == NULL)
		return NULL;
	return pstrdup(quote_identifier(nsp));
}

char *
bloom_rf_remote_sql(ForeignScan *scan, const AttrNumber *cols, const RuntimePlanInfo *info,
                    RuntimePlanContext *ctx, const char **why_not)
{
	/* the filter is the parameter after the scan's own */
	int paramno = list_length(scan->fdw_exprs) + 1;
	Plan *plan = &scan->scan.plan;
	Index scanrelid = scan->scan.scanrelid;
	StringInfoData hash, exact, sql;
	RangeTblEntry *rte;
	char *schema = NULL;

	Assert(ctx->stmt != NULL);
	*why_not = NULL;
	if (scan->operation != CMD_SELECT || !is_postgres_fdw(scan->fs_server))
		return NULL;
	if (!info->may_push)
		*why_not = "the join may read the scan before its filter is built";
	else if (scanrelid == 0 || scan->fdw_scan_tlist != NIL)
		*why_not = "a join or aggregate done by the remote server";
	else if (list_length(scan->fdw_private) < 3 || !IsA(linitial(scan->fdw_private), String))
		*why_not = "not a scan postgres_fdw planned as it plans a table's";
	else if (!lists_us(scan->fs_server))
		*why_not = psprintf("server %s does not list bloomfilter in its \"extensions\" option",
		                    quote_identifier(GetForeignServer(scan->fs_server)->servername));
	else if (!sql_can_be_wrapped(strVal(linitial(scan->fdw_private))))
		*why_not = "the remote query sorts, limits or locks rows";
	else if ((schema = extension_schema()) == NULL)
		*why_not = "bloomfilter is not installed in this database";
	if (*why_not != NULL || schema == NULL)
		return NULL;
	rte = rt_fetch(scanrelid, ctx->stmt->rtable);
	if (rte->rtekind != RTE_RELATION)
	{
		*why_not = "not a scan of a foreign table";
		return NULL;
	}

	/* the keys' combined hash, as keys.c computes it locally */
	initStringInfo(&hash);
	initStringInfo(&exact);
	for (int i = 0; i < info->nkeys; i++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, cols[i]);
		Var *var = tle ? (Var *) tle->expr : NULL;
		char *key = NULL, *key_exact = NULL;

		if (var == NULL || !IsA(var, Var) || var->varno != (int) scanrelid || var->varattno <= 0 ||
		    var->varlevelsup != 0)
		{
			*why_not = "a key is not a column of the foreign table";
			return NULL;
		}
		*why_not = key_sql(rte->relid, var, list_nth_oid(info->operators, i),
		                   list_nth_oid(info->collations, i), &key, &key_exact);
		if (*why_not != NULL)
		{
			*why_not =
			    psprintf("key %s: %s", get_attname(rte->relid, var->varattno, false), *why_not);
			return NULL;
		}
		appendStringInfo(&exact, "%s%s", i == 0 ? "" : " AND ", key_exact);
		if (i == 0)
			appendStringInfoString(&hash, key);
		else
		{
			char *left = pstrdup(hash.data);

			resetStringInfo(&hash);
			appendStringInfo(&hash, "%s.bloom_runtime_combine(%s, %s)", schema, left, key);
		}
	}
	initStringInfo(&sql);
	appendStringInfo(&sql,
	                 "SELECT * FROM (%s) " PUSHED_ALIAS " WHERE CASE WHEN %s THEN "
	                 "%s.bloom_runtime_contains($%d::bytea, %s) ELSE true END",
	                 strVal(linitial(scan->fdw_private)), exact.data, schema, paramno, hash.data);
	return sql.data;
}

void
bloom_rf_push_remote(ForeignScan *scan, char *sql, RuntimePlanInfo *info, RuntimePlanContext *ctx)
{
	Plan *plan = &scan->scan.plan;
	Param *param;

	Assert(sql != NULL);
	/* one parameter per filter, shared by every scan it is pushed into */
	if (info->remote_param < 0)
	{
		ctx->stmt->paramExecTypes = lappend_oid(ctx->stmt->paramExecTypes, BYTEAOID);
		info->remote_param = list_length(ctx->stmt->paramExecTypes) - 1;
	}
	param = makeNode(Param);
	param->paramkind = PARAM_EXEC;
	param->paramid = info->remote_param;
	param->paramtype = BYTEAOID;
	param->paramtypmod = -1;
	param->paramcollid = InvalidOid;
	param->location = -1;
	scan->fdw_exprs = lappend(scan->fdw_exprs, param);
	plan->extParam = bms_add_member(plan->extParam, info->remote_param);
	plan->allParam = bms_add_member(plan->allParam, info->remote_param);
	scan->fdw_private = list_copy(scan->fdw_private);
	linitial(scan->fdw_private) = makeString(sql);
	info->pushed++;
}

void
bloom_rf_push_hold_outer(HashJoin *join, const Hash *hash)
{
	Plan *outer = outerPlan(join);

	/*
	 * ExecHashJoin reads one outer row before it builds its table when the
	 * outer side's startup cost is below the Hash node's total cost (and it
	 * is not a right or full join): that read would open the remote cursor
	 * before the filter exists.  The outer child's startup cost is the time
	 * to its first row, and with the filter pushed that row comes after the
	 * table is built.
	 */
	if (outer->startup_cost < hash->plan.total_cost)
	{
		outer->startup_cost = hash->plan.total_cost;
		outer->total_cost = Max(outer->total_cost, outer->startup_cost);
	}
}

/* Whether the server is postgres_fdw's. */
static bool
is_postgres_fdw(Oid serverid)
{
	ForeignServer *server = GetForeignServer(serverid);
	ForeignDataWrapper *fdw = GetForeignDataWrapper(server->fdwid);
	char *handler;

	return OidIsValid(fdw->fdwhandler) && (handler = get_func_name(fdw->fdwhandler)) != NULL &&
	       strcmp(handler, "postgres_fdw_handler") == 0;
}

/* Whether the server lists bloomfilter in its "extensions" option. */
static bool
lists_us(Oid serverid)
{
	ListCell *lc;

	foreach (lc, GetForeignServer(serverid)->options)
	{
		DefElem *def = lfirst(lc);
		List *names;
		ListCell *name;

		if (strcmp(def->defname, "extensions") != 0)
			continue;
		if (!SplitIdentifierString(pstrdup(defGetString(def)), ',', &names))
			return false;
		foreach (name, names)
			if (strcmp(lfirst(name), "bloomfilter") == 0)
				return true;
	}
	return false;
}

/*
 * Whether the scan's SQL can be wrapped in a filtering SELECT without
 * changing what it means: a plain SELECT that neither sorts (a merge join
 * above may rely on the order), limits nor locks rows.  A literal holding
 * one of these words only costs the push.
 */
static bool
sql_can_be_wrapped(const char *sql)
{
	static const char *const refused[] = {" ORDER BY ", " LIMIT ",     " OFFSET ", " FOR UPDATE",
	                                      " FOR SHARE", " FOR NO KEY", " FOR KEY"};

	if (strncmp(sql, "SELECT ", 7) != 0)
		return false;
	for (int i = 0; i < (int) lengthof(refused); i++)
		if (strstr(sql, refused[i]) != NULL)
			return false;
	return true;
}

/* The remote column's name: its "column_name" option, or the local name. */
static char *
remote_column(Oid relid, AttrNumber attno)
{
	ListCell *lc;

	foreach (lc, GetForeignColumnOptions(relid, attno))
	{
		DefElem *def = lfirst(lc);

		if (strcmp(def->defname, "column_name") == 0)
			return defGetString(def);
	}
	return get_attname(relid, attno, false);
}

/*
 * Whether a remote type's cast to text gives its output function's text:
 * no pg_cast entry (the cast is the output function) or a binary one.
 * These have a function of their own (bool gives "true", char(n) loses its
 * padding, inet and cidr add the netmask).
 */
static bool
text_cast_is_output(Oid type)
{
	return type != BOOLOID && type != BPCHAROID && type != INETOID && type != CIDROID &&
	       type != NAMEOID && type != CHAROID;
}

/* SQL of the text postgres_fdw fetches for the remote value col of a type of this kind. */
static char *
remote_text(const char *col, bool by_cast)
{
	if (by_cast)
		return psprintf("(%s)::text", col);
	/* format's %s calls the output function, but makes '' of NULL */
	return psprintf("(CASE WHEN %s IS NOT NULL THEN pg_catalog.format('%%s', %s) END)", col, col);
}

/* SQL of the remote types, a list for IN: 'bigint'::pg_catalog.regtype, ... */
static char *
type_list(const Oid *types, int ntypes)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < ntypes; i++)
		appendStringInfo(&buf, "%s%s::pg_catalog.regtype", i == 0 ? "" : ", ",
		                 quote_literal_cstr(format_type_be(types[i])));
	return buf.data;
}

/*
 * SQL of the value the local input function makes of text (remote_text's),
 * for a column of kt's type with typmod, and its hash as the local probe
 * computes it.  Never fails: see the header and key_types.
 */
static char *
rebuilt_hash(const KeyType *kt, int32 typmod, const char *text)
{
	char *value;

	if (kt->read_as != NULL)
		value = psprintf("(%s)::%s", text, kt->read_as);
	else if (kt->typmod == TYPMOD_ROUND && typmod >= (int32) VARHDRSZ)
		/* numeric's typmod: precision << 16 | scale (11 bits, signed from 15 on), plus VARHDRSZ */
		value = psprintf("pg_catalog.round((%s)::pg_catalog.numeric, %d)", text,
		                 (((typmod - VARHDRSZ) & 0x7ff) ^ 1024) - 1024);
	else
		value = psprintf("(%s)::%s", text, format_type_with_typemod(kt->type, typmod));
	if (kt->string)
		value = psprintf("%s COLLATE pg_catalog.\"C\"", value);
	if (kt->remote_hash == NULL)
		return psprintf("pg_catalog.hash_record(ROW(%s))", value);
	return psprintf("pg_catalog.%s(%s)", kt->remote_hash, value);
}

/*
 * The remote SQL of a key, the column var of the foreign table relid,
 * compared by the join operator opno under collation: *hash, its 32-bit
 * hash as the local probe computes it on the value postgres_fdw makes of
 * the remote value, and *exact, a condition under which *hash is that
 * (false for remote types it is not, and then the row must pass).  Returns
 * NULL, or why the key is not shipped (pushdown.c's header).
 */
static const char *
key_sql(Oid relid, const Var *var, Oid opno, Oid collation, char **hash, char **exact)
{
	const KeyType *kt = NULL;
	Oid left_fn, right_fn;
	const char *type = format_type_with_typemod(var->vartype, var->vartypmod);
	char *fn, *col, *names;
	Oid cast_types[lengthof(key_types[0].from)], format_types[lengthof(key_types[0].from)];
	int ncast = 0, nformat = 0;

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
	names = psprintf(" %s ", kt->local_hashes);
	if (strstr(names, psprintf(" %s ", fn)) == NULL)
		return psprintf("the join hashes %s with %s, not its type's own", type, fn);
	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return psprintf("%s under a nondeterministic collation", type);

	col = psprintf(PUSHED_ALIAS ".%s", quote_identifier(remote_column(relid, var->varattno)));
	if (kt->string)
	{
		/* text and varchar: their cast; any other type: its output function */
		*exact = psprintf("(SELECT pg_catalog.getdatabaseencoding() = %s)",
		                  quote_literal_cstr(GetDatabaseEncodingName()));
		*hash = psprintf("CASE WHEN pg_catalog.pg_typeof(%s) IN ('text'::pg_catalog.regtype, "
		                 "'character varying'::pg_catalog.regtype) THEN %s ELSE %s END",
		                 col, rebuilt_hash(kt, var->vartypmod, remote_text(col, true)),
		                 rebuilt_hash(kt, var->vartypmod, remote_text(col, false)));
		return NULL;
	}
	for (int i = 0; i < (int) lengthof(kt->from) && OidIsValid(kt->from[i]); i++)
	{
		if (text_cast_is_output(kt->from[i]))
			cast_types[ncast++] = kt->from[i];
		else
			format_types[nformat++] = kt->from[i];
	}
	*exact = psprintf("pg_catalog.pg_typeof(%s) IN (%s%s%s)", col, type_list(cast_types, ncast),
	                  ncast > 0 && nformat > 0 ? ", " : "", type_list(format_types, nformat));
	if (ncast > 0 && nformat > 0)
		*hash = psprintf("CASE WHEN pg_catalog.pg_typeof(%s) IN (%s) THEN %s ELSE %s END", col,
		                 type_list(cast_types, ncast),
		                 rebuilt_hash(kt, var->vartypmod, remote_text(col, true)),
		                 rebuilt_hash(kt, var->vartypmod, remote_text(col, false)));
	else
		*hash = rebuilt_hash(kt, var->vartypmod, remote_text(col, ncast > 0));
	if (kt->typmod == TYPMOD_BELOW_END && var->vartypmod >= 0)
	{
		/* rounding fails past the last timestamp (294276-12-31 23:59:59.999999) */
		char *value = psprintf("(%s)::%s", remote_text(col, true), format_type_be(kt->type));

		Assert(nformat == 0);
		*exact = psprintf("%s AND (NOT pg_catalog.isfinite(%s) OR %s < '294276-12-31 23:59:59%s')",
		                  *exact, value, value, kt->type == TIMESTAMPTZOID ? "+00" : "");
	}
	return NULL;
}
