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
 *	 SELECT * FROM (<the scan's own SQL> OFFSET 0) bloomfilter_pushed
 *	  WHERE CASE WHEN <exact> THEN <schema>.bloom_runtime_contains($n::bytea, <key hash>)
 *	             ELSE true END
 *
 * (OFFSET 0: the remote planner keeps the scan's query whole, so that the
 * filter sees only the rows its WHERE keeps; a second filter on the same
 * scan adds its condition to the first's, AND.)
 * where $n is a parameter appended to the scan's fdw_exprs: a PARAM_EXEC
 * Param of type bytea that the build node sets to the finished filter
 * (build.c) and leaves NULL until then, or when the filter is too full to
 * be useful or larger than bloomfilter.runtime_filter_ship_max; a NULL
 * filter lets every row through (remote.c).  Keys are combined as the hash
 * join combines them.  The local probe stays above the scan: it drops what
 * the remote side let through only if the filter was not sent.
 *
 * The key hash and <exact>, the condition under which it is what the local
 * probe computes, come from remotekey.c, which says how: the remote side
 * rebuilds the value the local join compares (the remote value's text read
 * as the local column's type), for the remote types listed per local type,
 * and lets every row pass for any other.
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
 * Not shipped, and probed locally only, with the reason on the probe in
 * EXPLAIN ("Not Shipped"): scans of a join or an aggregate pushed to the
 * remote side, scans whose SQL sorts, limits or locks rows, keys that
 * remotekey.c does not rebuild, keys whose remote column another column of
 * the foreign table also reads (the scan's SQL names it twice), servers
 * without bloomfilter in "extensions", and databases where the extension
 * is not installed locally (its schema names the remote function).  The remote server must
 * have bloomfilter 1.7 or later installed in the same schema.
 */
#include "ship.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_extension.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/foreign.h"
#include "lib/stringinfo.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/varlena.h"

#define PUSHED_ALIAS "bloomfilter_pushed"
/* how a scan's SQL wrapped by us begins (postgres_fdw names every column it reads) */
#define PUSHED_PREFIX "SELECT * FROM ("

static bool is_postgres_fdw(Oid serverid);
static bool lists_us(Oid serverid);
static bool sql_can_be_wrapped(const char *sql);
static char *remote_column(Oid relid, AttrNumber attno);
static bool remote_column_shared(Oid relid, AttrNumber attno);
static char *remote_column_type(Oid relid, AttrNumber attno);
static char *remote_relation(Oid relid);
static bool wrapped_by_us(const char *sql);

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
bloom_rf_remote_sql(ForeignScan *scan, const AttrNumber *cols, const RuntimeJoinKeys *keys,
                    const RuntimeShipment *ship, PlannedStmt *stmt, const char **why_not)
{
	/* the filter is the parameter after the scan's own */
	int paramno = list_length(scan->fdw_exprs) + 1;
	Plan *plan = &scan->scan.plan;
	Index scanrelid = scan->scan.scanrelid;
	StringInfoData hash, exact, sql;
	RangeTblEntry *rte;
	char *schema = NULL;

	Assert(stmt != NULL);
	*why_not = NULL;
	if (scan->operation != CMD_SELECT || !is_postgres_fdw(scan->fs_server))
		return NULL;
	if (!ship->may_push)
		*why_not = "a Parallel Hash Join's filter (a parameter does not reach parallel workers)";
	else if (scanrelid == 0 || scan->fdw_scan_tlist != NIL)
		*why_not = "a join or aggregate done by the remote server";
	else if (list_length(scan->fdw_private) < 3 || !IsA(linitial(scan->fdw_private), String))
		*why_not = "not a scan postgres_fdw planned as it plans a table's";
	else if (!lists_us(scan->fs_server))
		*why_not = psprintf("server %s does not list bloomfilter in its \"extensions\" option",
		                    quote_identifier(GetForeignServer(scan->fs_server)->servername));
	else if (!wrapped_by_us(strVal(linitial(scan->fdw_private))) &&
	         !sql_can_be_wrapped(strVal(linitial(scan->fdw_private))))
		*why_not = "the remote query sorts, limits or locks rows";
	else if ((schema = extension_schema()) == NULL)
		*why_not = "bloomfilter is not installed in this database";
	if (*why_not != NULL || schema == NULL)
		return NULL;
	rte = rt_fetch(scanrelid, stmt->rtable);
	if (rte->rtekind != RTE_RELATION)
	{
		*why_not = "not a scan of a foreign table";
		return NULL;
	}

	/* the keys' combined hash, as keys.c computes it locally */
	initStringInfo(&hash);
	initStringInfo(&exact);
	for (int i = 0; i < keys->nkeys; i++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, cols[i]);
		Var *var = tle ? (Var *) tle->expr : NULL;
		char *key = NULL, *key_exact = NULL;
		const char *column;

		if (var == NULL || !IsA(var, Var) || var->varno != (int) scanrelid || var->varattno <= 0 ||
		    var->varlevelsup != 0)
		{
			*why_not = "a key is not a column of the foreign table";
			return NULL;
		}
		if (remote_column_shared(rte->relid, var->varattno))
		{
			/* (the scan's SQL then names it twice: a reference to it is ambiguous) */
			*why_not =
			    psprintf("key %s: another column of the foreign table reads remote column %s",
			             get_attname(rte->relid, var->varattno, false),
			             quote_identifier(remote_column(rte->relid, var->varattno)));
			return NULL;
		}
		column = quote_identifier(remote_column(rte->relid, var->varattno));
		*why_not = bloom_rf_remote_key(var, psprintf(PUSHED_ALIAS ".%s", column),
		                               remote_column_type(rte->relid, var->varattno),
		                               list_nth_oid(keys->operators, i),
		                               list_nth_oid(keys->collations, i), &key, &key_exact);
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
	if (wrapped_by_us(strVal(linitial(scan->fdw_private))))
		/* another filter on the same scan: one more condition of the wrapper's */
		appendStringInfo(&sql, "%s AND ", strVal(linitial(scan->fdw_private)));
	else
		/*
		 * OFFSET 0 fences the scan's own query: the remote planner neither
		 * pulls it up nor pushes the filter into it, so the filter sees only
		 * the rows the scan's WHERE keeps, and no expression of a view's
		 * column (a constant of a UNION ALL arm, a cast that fails on rows
		 * the WHERE drops) is folded into the filter's or run before it.
		 */
		appendStringInfo(&sql, PUSHED_PREFIX "%s OFFSET 0) " PUSHED_ALIAS " WHERE ",
		                 strVal(linitial(scan->fdw_private)));
	appendStringInfo(&sql,
	                 "CASE WHEN %s THEN %s.bloom_runtime_contains($%d::bytea, %s) ELSE true END",
	                 exact.data, schema, paramno, hash.data);
	return sql.data;
}

void
bloom_rf_push_remote(ForeignScan *scan, char *sql, RuntimeShipment *ship, PlannedStmt *stmt)
{
	Plan *plan = &scan->scan.plan;
	Param *param;

	Assert(sql != NULL);
	/* one parameter per filter, shared by every scan it is pushed into */
	if (ship->remote_param < 0)
	{
		stmt->paramExecTypes = lappend_oid(stmt->paramExecTypes, BYTEAOID);
		ship->remote_param = list_length(stmt->paramExecTypes) - 1;
	}
	param = makeNode(Param);
	param->paramkind = PARAM_EXEC;
	param->paramid = ship->remote_param;
	param->paramtype = BYTEAOID;
	param->paramtypmod = -1;
	param->paramcollid = InvalidOid;
	param->location = -1;
	scan->fdw_exprs = lappend(scan->fdw_exprs, param);
	plan->extParam = bms_add_member(plan->extParam, ship->remote_param);
	plan->allParam = bms_add_member(plan->allParam, ship->remote_param);
	scan->fdw_private = list_copy(scan->fdw_private);
	linitial(scan->fdw_private) = makeString(sql);
	ship->pushed++;
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

/* Whether sql is a scan's SQL that a filter was pushed into already. */
static bool
wrapped_by_us(const char *sql)
{
	return strncmp(sql, PUSHED_PREFIX, strlen(PUSHED_PREFIX)) == 0;
}

/* Whether another column of foreign table relid reads the remote column attno reads. */
static bool
remote_column_shared(Oid relid, AttrNumber attno)
{
	char *name = remote_column(relid, attno);

	/* (attribute numbers have no gaps: a dropped column keeps its row) */
	for (AttrNumber a = 1; get_attname(relid, a, true) != NULL; a++)
		if (a != attno && strcmp(remote_column(relid, a), name) == 0)
			return true;
	return false;
}

/*
 * SQL of the remote column's type, read from the remote catalog (an oid):
 * no plan of the remote table, so none of its partitions is locked or read.
 */
static char *
remote_column_type(Oid relid, AttrNumber attno)
{
	return psprintf("(SELECT a.atttypid FROM pg_catalog.pg_attribute a WHERE a.attrelid = "
	                "%s::pg_catalog.regclass AND a.attname = %s AND NOT a.attisdropped)",
	                quote_literal_cstr(remote_relation(relid)),
	                quote_literal_cstr(remote_column(relid, attno)));
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
 * The remote table's name, qualified and quoted, as postgres_fdw names it:
 * its "schema_name" and "table_name" options, or the local names.
 */
static char *
remote_relation(Oid relid)
{
	ForeignTable *table = GetForeignTable(relid);
	const char *nspname = NULL, *relname = NULL;
	ListCell *lc;

	foreach (lc, table->options)
	{
		DefElem *def = lfirst(lc);

		if (strcmp(def->defname, "schema_name") == 0)
			nspname = defGetString(def);
		else if (strcmp(def->defname, "table_name") == 0)
			relname = defGetString(def);
	}
	if (nspname == NULL)
		nspname = get_namespace_name(get_rel_namespace(relid));
	if (relname == NULL)
		relname = get_rel_name(relid);
	return psprintf("%s.%s", quote_identifier(nspname), quote_identifier(relname));
}
