/*
 * lineage.c
 *	  The planner's part of skipping partitions (partitions.c): whether the
 *	  node a probe would sit on scans a partition, its ancestry, and whether
 *	  some level of it can be decided by the join's keys.
 *
 * The ancestry is read from the statement's AppendRelInfos as far as the
 * query expanded it (no catalog lookup), then from the catalog for the
 * ancestors the query does not name; worked out once per statement
 * (RuntimeLineages), and the answer for a partitioned table kept for its
 * partitions, which come one after another (RuntimeSkipMemo).
 */
#include "skip.h"

#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "nodes/pathnodes.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"

/* The relation and column of a scan's output column, or false. */
static bool
scan_column(Plan *plan, AttrNumber col, AttrNumber *attno)
{
	Index scanrelid = ((Scan *) plan)->scanrelid;
	TargetEntry *tle = get_tle_by_resno(plan->targetlist, col);
	Expr *e = tle ? tle->expr : NULL;

	while (e && IsA(e, RelabelType))
		e = ((RelabelType *) e)->arg;
	if (e == NULL || !IsA(e, Var) || ((Var *) e)->varlevelsup != 0)
		return false;
	if (IsA(plan, IndexOnlyScan) && ((Var *) e)->varno == INDEX_VAR)
	{
		/* an index column: the index's target list names the table's column */
		tle = get_tle_by_resno(((IndexOnlyScan *) plan)->indextlist, ((Var *) e)->varattno);
		e = tle ? tle->expr : NULL;
		if (e == NULL || !IsA(e, Var))
			return false;
	}
	if ((Index) ((Var *) e)->varno != scanrelid || ((Var *) e)->varattno <= 0)
		return false;
	*attno = ((Var *) e)->varattno;
	return true;
}

/* The statement's appendrel parents, by range table index (made at the first call). */
static void
ensure_parents(RuntimeLineages *lineages)
{
	ListCell *lc;

	if (lineages->parents != NULL)
		return;
	lineages->nparents = list_length(lineages->stmt->rtable) + 1;
	lineages->parents = palloc0(lineages->nparents * sizeof(Index));
	lineages->lineages = palloc0(lineages->nparents * sizeof(List *));
	foreach (lc, lineages->stmt->appendRelations)
	{
		AppendRelInfo *info = lfirst(lc);

		if (info->child_relid < (Index) lineages->nparents)
			lineages->parents[info->child_relid] = info->parent_relid;
	}
}

/*
 * The range table index of the partitioned table that the query expanded
 * into rti, or 0 (rti is not a partition the query reached through its
 * parent: named by the query, or a child of UNION ALL or of inheritance).
 */
static Index
partitioned_parent(RuntimeLineages *lineages, Index rti)
{
	RangeTblEntry *parent;

	ensure_parents(lineages);
	if (rti >= (Index) lineages->nparents || lineages->parents[rti] == 0)
		return 0;
	parent = rt_fetch(lineages->parents[rti], lineages->stmt->rtable);
	if (parent->rtekind != RTE_RELATION || parent->relkind != RELKIND_PARTITIONED_TABLE)
		return 0;
	return lineages->parents[rti];
}

/*
 * The partition scanned at range table index rti, then its ancestors up to
 * the root partitioned table: read from the statement's AppendRelInfos as
 * far as the query expanded them (no catalog lookup), then from the
 * catalog for ancestors the query does not name.  A parent's own lineage
 * is worked out once per statement and kept (lineages->lineages): its
 * partitions come one after another, each needing it.
 */
static List *
lineage(RuntimeLineages *lineages, Index rti)
{
	RangeTblEntry *rte = rt_fetch(rti, lineages->stmt->rtable);
	Index parent = partitioned_parent(lineages, rti);
	List *oids = list_make1_oid(rte->relid);
	Oid relid;

	if (parent != 0)
	{
		if (lineages->lineages[parent] == NIL)
			lineages->lineages[parent] = lineage(lineages, parent);
		return list_concat(oids, lineages->lineages[parent]);
	}
	for (relid = rte->relid; get_rel_relispartition(relid);)
	{
		relid = get_partition_parent(relid, true);
		oids = lappend_oid(oids, relid);
	}
	return oids;
}

bool
bloom_rf_skip_target(Plan *plan, const AttrNumber *cols, const RuntimeJoinKeys *keys,
                     RuntimeLineages *lineages, RuntimeSkipMemo *memo, List **partition,
                     AttrNumber *attnos)
{
	Index scanrelid = ((Scan *) plan)->scanrelid;
	RangeTblEntry *rte;
	List *oids;
	bool any = false;

	switch (nodeTag(plan))
	{
		case T_SeqScan:
		case T_IndexScan:
		case T_IndexOnlyScan:
		case T_BitmapHeapScan:
		case T_TidScan:
		case T_TidRangeScan:
		case T_ForeignScan:
			break;
		default:
			return false;
	}
	/*
	 * A parallel scan too: every process has the same keys (its own build
	 * of the whole inner side, or every share of a shared build merged), so
	 * each one that reaches the scan skips it.
	 */
	if (scanrelid == 0)
		return false;
	rte = rt_fetch(scanrelid, lineages->stmt->rtable);
	/* a partition: its parent in the query is a partitioned table, else the catalog says so */
	if (rte->rtekind != RTE_RELATION ||
	    (partitioned_parent(lineages, scanrelid) == 0 && !get_rel_relispartition(rte->relid)))
		return false;
	for (int i = 0; i < keys->nkeys; i++)
	{
		if (!scan_column(plan, cols[i], &attnos[i]))
			attnos[i] = InvalidAttrNumber;
		any = any || attnos[i] != InvalidAttrNumber;
	}
	if (!any)
		return false;

	/*
	 * Some level of the partition's ancestors must be decidable by the keys.
	 * The partitions of one table come one after another, with the keys in
	 * the same columns: the answer for their parent is kept.
	 */
	oids = lineage(lineages, scanrelid);
	if (list_length(oids) >= 2 && lsecond_oid(oids) == memo->last_parent)
	{
		if (memo->last_usable)
			*partition = oids;
		return memo->last_usable;
	}
	memo->last_parent = lsecond_oid(oids);
	memo->last_usable = bloom_rf_partition_decidable(oids, attnos, keys);
	if (memo->last_usable)
		*partition = oids;
	return memo->last_usable;
}
