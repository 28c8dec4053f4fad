/*
 * amaccess.c
 *	  Who may read a bloomfilter index, which indexes hold a partitioned
 *	  index's keys, the predicate locks of SERIALIZABLE readers, and the key
 *	  under which a call site's knowledge stays true (reader.h says what
 *	  each promises).
 *
 * Reading the filter is reading the column: which keys the table holds.
 * So every reader needs SELECT on the table or on the indexed column, and
 * is refused on a table whose row-level security applies to it (the filter
 * holds the keys of rows the policies hide), as pg_stats hides a column's
 * statistics then.  The decision is the current user's (GetUserId()) under
 * the current row_security setting; a call site asks again whenever either
 * changes (BloomIndexReadKey).
 */
#include "reader.h"

#include "access/relation.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_index.h"
#include "commands/defrem.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "storage/sinval.h"
#include "utils/inval.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

bool
bloom_index_read_key(BloomIndexReadKey *key, bool take_in)
{
	/* the catalog as this backend may know it now (a lock it already holds takes in nothing) */
	if (take_in)
		AcceptInvalidationMessages();
	if (RecoveryInProgress())
		return false;
	/* after this backend's latest snapshot was taken: it sees no later completion */
	pg_memory_barrier();
	key->completions = BLOOM_XACT_COMPLETIONS();
	key->local_changes = bloom_index_local_changes;
	key->invalidations = SharedInvalidMessageCounter;
	key->curcid = GetCurrentCommandId(false);
	key->lxid = BLOOM_MY_LXID();
	key->user = GetUserId();
	key->row_security = row_security;
	return true;
}

bool
bloom_index_read_key_equal(const BloomIndexReadKey *a, const BloomIndexReadKey *b)
{
	return a->completions == b->completions && a->local_changes == b->local_changes &&
	       a->invalidations == b->invalidations && a->curcid == b->curcid && a->lxid == b->lxid &&
	       a->user == b->user && a->row_security == b->row_security;
}

/*
 * Whether index holds the keys of every row this transaction may see, or
 * raise (55000): not valid or not ready (an interrupted CREATE INDEX
 * CONCURRENTLY; a partitioned index made ON ONLY its table, not yet
 * attached everywhere), or built over broken HOT chains for snapshots newer
 * than this one's (indcheckxmin: the rule the planner follows).  With
 * too_new, the last is no error: *too_new is set instead.
 */
static void
check_usable(Relation index, bool *too_new)
{
	switch (bloom_index_usability(index))
	{
		case BLOOM_INDEX_USABLE:
			return;
		case BLOOM_INDEX_NOT_VALID:
			ereport(
			    ERROR,
			    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			     errmsg("bloomfilter index \"%s\" is not valid", RelationGetRelationName(index)),
			     errdetail("Its build did not finish (an interrupted CREATE INDEX "
			               "CONCURRENTLY, or an index made ON ONLY a partitioned table): it "
			               "may lack keys."),
			     errhint("REINDEX it, or drop it and create it again.")));
			break;
		case BLOOM_INDEX_TOO_NEW:
			if (too_new != NULL)
			{
				*too_new = true;
				return;
			}
			ereport(ERROR,
			        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			         errmsg("bloomfilter index \"%s\" is too new for this transaction's snapshot",
			                RelationGetRelationName(index)),
			         errhint("Ask it in a new transaction.")));
			break;
	}
}

/* The table of indexoid (read from the catalog, no lock taken), or raise 42P01 / 42809. */
static Oid
table_of(Oid indexoid)
{
	Oid heap = IndexGetRelation(indexoid, true);

	if (!OidIsValid(heap))
	{
		char *name = get_rel_name(indexoid);

		if (name == NULL)
			ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
			                errmsg("relation with OID %u does not exist", indexoid)));
		ereport(ERROR,
		        (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("\"%s\" is not an index", name)));
	}
	return heap;
}

/* The column index indexoid covers (0 for an expression), from the catalog. */
static AttrNumber
indexed_column(Oid indexoid)
{
	HeapTuple tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
	AttrNumber column;

	if (!HeapTupleIsValid(tup))
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
		                errmsg("relation with OID %u does not exist", indexoid)));
	column = ((Form_pg_index) GETSTRUCT(tup))->indkey.values[0];
	ReleaseSysCache(tup);
	return column;
}

/*
 * Whether the current user may read index indexoid's keys, or raise 42501
 * (the header).  Needs no lock: the catalog's rows are read as they are
 * now, as PostgreSQL checks a name's privileges before locking it.
 */
static void
check_may_read(Oid indexoid, Oid table)
{
	AttrNumber column = indexed_column(indexoid);
	Oid user = GetUserId();

	if (pg_class_aclcheck(table, user, ACL_SELECT) != ACLCHECK_OK &&
	    (column == 0 || pg_attribute_aclcheck(table, column, user, ACL_SELECT) != ACLCHECK_OK))
		ereport(ERROR,
		        (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
		         errmsg("permission denied for bloomfilter index \"%s\"", get_rel_name(indexoid)),
		         errdetail("Reading it reads the keys of table \"%s\": SELECT on the table or on "
		                   "its indexed column is needed.",
		                   get_rel_name(table))));
	/* (with row_security off and no right to bypass it, this raises 42501 itself) */
	if (check_enable_rls(table, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
		        (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
		         errmsg("bloomfilter index \"%s\" cannot be read under row-level security",
		                get_rel_name(indexoid)),
		         errdetail("Row-level security applies to table \"%s\", and the filter holds the "
		                   "keys of rows its policies hide.",
		                   get_rel_name(table))));
}

/*
 * Open indexoid, its table heap locked first as PostgreSQL does, as a
 * usable bloomfilter index, or raise (42809, 55000, 42P21: a collation that
 * loses keys, bloom_index_check_collation).
 */
static Relation
open_checked(Oid indexoid, Oid heap, bool *too_new)
{
	Relation index;

	LockRelationOid(heap, AccessShareLock);
	index = index_open(indexoid, AccessShareLock);
	if (index->rd_rel->relam != get_index_am_oid(BLOOM_INDEX_AM_NAME, false) ||
	    (index->rd_rel->relkind != RELKIND_INDEX &&
	     index->rd_rel->relkind != RELKIND_PARTITIONED_INDEX))
	{
		char *name = pstrdup(RelationGetRelationName(index));

		index_close(index, AccessShareLock);
		ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
		                errmsg("\"%s\" is not a bloomfilter index", name)));
	}
	/* the index is its table's still (its OID was not reused meanwhile) */
	if (IndexGetRelation(indexoid, false) != heap)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		                errmsg("index \"%s\" changed while it was opened",
		                       RelationGetRelationName(index))));
	check_usable(index, too_new);
	/* (an index made before 1.12 may hash under a collation that loses keys) */
	bloom_index_check_collation(index, false);
	return index;
}

Relation
bloom_index_open_read(Oid indexoid, Oid *table, bool *too_new)
{
	Oid heap = table_of(indexoid);

	check_may_read(indexoid, heap);
	*table = heap;
	return open_checked(indexoid, heap, too_new);
}

Relation
bloom_index_open_leaf(Oid indexoid, Oid *table, bool *too_new)
{
	Oid heap = table_of(indexoid);

	*table = heap;
	return open_checked(indexoid, heap, too_new);
}

/*
 * The leaves of partitioned index (each opened and checked), and in
 * *missing a partition of its table that holds rows and has none of them,
 * or InvalidOid.
 */
static List *
leaves_and_missing(Relation index, bool *too_new, Oid *missing)
{
	List *all, *result = NIL, *covered = NIL;
	ListCell *lc;

	*missing = InvalidOid;
	all = find_all_inheritors(RelationGetRelid(index), NoLock, NULL);
	foreach (lc, all)
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_INDEX)
		{
			Oid table;
			Relation leaf = bloom_index_open_leaf(lfirst_oid(lc), &table, too_new); /* usable too */

			index_close(leaf, NoLock);
			result = lappend_oid(result, lfirst_oid(lc));
			covered = lappend_oid(covered, table);
		}
	foreach (lc, find_all_inheritors(index->rd_index->indrelid, NoLock, NULL))
	{
		char kind = get_rel_relkind(lfirst_oid(lc));

		if ((kind == RELKIND_RELATION || kind == RELKIND_FOREIGN_TABLE ||
		     kind == RELKIND_MATVIEW) &&
		    !list_member_oid(covered, lfirst_oid(lc)))
		{
			*missing = lfirst_oid(lc);
			break;
		}
	}
	return result;
}

List *
bloom_index_leaves(Relation index, bool *too_new)
{
	Oid missing;
	List *result;

	if (index->rd_rel->relkind == RELKIND_INDEX)
		return list_make1_oid(RelationGetRelid(index));
	/*
	 * Every partition that holds rows must have its index here: a foreign
	 * partition gets none, and its rows would be keys the filter never saw.
	 * A partition attached meanwhile (ATTACH PARTITION takes only SHARE
	 * UPDATE EXCLUSIVE on the parent) may be seen by the second catalog
	 * read and not the first, the locks taken between having brought in its
	 * invalidations: the attach commits the partition and its index
	 * together, so read both again, a few times, before calling it missing.
	 */
	for (int attempt = 0;; attempt++)
	{
		result = leaves_and_missing(index, too_new, &missing);
		if (!OidIsValid(missing) || attempt == 3)
			break;
		AcceptInvalidationMessages();
	}
	if (OidIsValid(missing))
	{
		char kind = get_rel_relkind(missing);

		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		                errmsg("partition \"%s\" has no index of bloomfilter index \"%s\"",
		                       get_rel_name(missing), RelationGetRelationName(index)),
		                errdetail("Its rows' keys are in no filter%s.",
		                          kind == RELKIND_FOREIGN_TABLE
		                              ? ": a foreign table gets no index of its partitioned table's"
		                              : "")));
	}
	return result;
}

void
bloom_index_lock_predicates(List *leaves)
{
	Snapshot snapshot;
	ListCell *lc;

	if (!IsolationIsSerializable())
		return;
	snapshot = ActiveSnapshotSet() ? GetActiveSnapshot() : GetTransactionSnapshot();
	foreach (lc, leaves)
	{
		/* its table is locked: bloom_index_open_leaf or _read took it */
		Relation heap = table_open(IndexGetRelation(lfirst_oid(lc), false), NoLock);

		PredicateLockRelation(heap, snapshot);
		table_close(heap, NoLock);
	}
}
