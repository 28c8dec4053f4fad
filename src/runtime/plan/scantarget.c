/*
 * scantarget.c
 *	  The planner's choice of a BloomFilterScan (exec/scan.c): which Seq
 *	  Scans on a hash join's outer side it replaces, and with what to skip.
 *
 * A Seq Scan or a Parallel Seq Scan of a plain table (under a private
 * build or a Parallel Hash Join's shared one, whose values every process
 * merges alike: filter/shared.c) is replaced where the table is a partition that the skip room can
 * decide (skip/partitions.c, asked by the caller), or has a valid BRIN index
 * on a key column itself, or a valid B-tree index led by one, with the
 * join's semantics (the join operator is in the index column's operator
 * family; the join's collation is the index's or deterministic, as for
 * partitions).  The BloomFilterScan keeps the Seq Scan's target list,
 * quals and costs, and a Parallel Seq Scan's parallel_aware: its processes
 * share the reading out (exec/scanshare.c).
 */
#include "plan.h"
#include "../private.h"
#include "../settings.h"
#include "../exec/exec.h"

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/table.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "parser/parsetree.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

/* The indexes of a table that can serve key i of a join (find_indexes). */
typedef struct KeyIndexes
{
	Oid brin;          /* a BRIN index with a column on the key, or InvalidOid */
	AttrNumber column; /* that column (1-based) */
	int brin_key;      /* the key */
	Oid btree;         /* a B-tree index led by the key, or InvalidOid */
	int btree_key;     /* the key */
} KeyIndexes;

/*
 * Whether index column c of idx is column attno of its table, compared as
 * the join compares key i of info: the join operator in the column's
 * family, and the join's collation the column's or deterministic.
 */
static bool
column_serves(Relation idx, int c, AttrNumber attno, int i, const RuntimePlanInfo *info)
{
	Oid collation = list_nth_oid(info->keys.collations, i);

	return idx->rd_index->indkey.values[c] == attno &&
	       op_in_opfamily(list_nth_oid(info->keys.operators, i), idx->rd_opfamily[c]) &&
	       (!OidIsValid(collation) || collation == idx->rd_indcollation[c] ||
	        get_collation_isdeterministic(collation));
}

/*
 * Whether a B-tree of family can look up an array of keys by operator opno
 * (in family): opno is its equality, and family can order the keys.
 */
static bool
btree_can_look_up(Oid family, Oid opno)
{
	int strategy;
	Oid left, right;

	get_op_opfamily_properties(opno, family, false, &strategy, &left, &right);
	return strategy == BTEqualStrategyNumber &&
	       OidIsValid(get_opfamily_proc(family, right, right, BTORDER_PROC));
}

/*
 * Find, among relid's indexes, those not yet in *found that serve key i
 * (column attno of relid): a BRIN index with a column on it, a B-tree led
 * by it.
 */
static void
find_indexes(Oid relid, AttrNumber attno, int i, const RuntimePlanInfo *info, KeyIndexes *found)
{
	Relation rel = table_open(relid, NoLock);
	List *indexes = RelationGetIndexList(rel);
	bool tid_ranges = rel->rd_tableam->scan_set_tidrange != NULL &&
	                  rel->rd_tableam->scan_getnextslot_tidrange != NULL;
	ListCell *lc;

	foreach (lc, indexes)
	{
		Relation idx = index_open(lfirst_oid(lc), AccessShareLock);

		/*
		 * A valid, live index that holds every row: no partial index (rows
		 * outside its predicate are in no summary and no entry), none built
		 * over broken HOT chains that older snapshots must not use
		 * (indcheckxmin; the planner waits those out, this skips them).
		 */
		if (idx->rd_index->indisvalid && idx->rd_index->indisready && idx->rd_index->indislive &&
		    !idx->rd_index->indcheckxmin &&
		    heap_attisnull(idx->rd_indextuple, Anum_pg_index_indpred, NULL))
		{
			/* BRIN: any column; a table whose access method reads ranges of blocks */
			if (idx->rd_rel->relam == BRIN_AM_OID && !OidIsValid(found->brin) && tid_ranges)
				for (int c = 0; c < idx->rd_index->indnkeyatts; c++)
					if (column_serves(idx, c, attno, i, info))
					{
						found->brin = RelationGetRelid(idx);
						found->column = c + 1;
						found->brin_key = i;
						break;
					}
			/*
			 * B-tree: the leading column, looked up by "= ANY(keys)"
			 * (skip/btreekeys.c), the join operator its equality, and the family
			 * able to sort the keys (an incomplete one would fail at run time)
			 */
			if (idx->rd_rel->relam == BTREE_AM_OID && !OidIsValid(found->btree) &&
			    idx->rd_indam->amsearcharray && column_serves(idx, 0, attno, i, info) &&
			    btree_can_look_up(idx->rd_opfamily[0], list_nth_oid(info->keys.operators, i)))
			{
				found->btree = RelationGetRelid(idx);
				found->btree_key = i;
			}
		}
		index_close(idx, AccessShareLock);
		if (OidIsValid(found->brin) && OidIsValid(found->btree))
			break;
	}
	list_free(indexes);
	table_close(rel, NoLock);
}

Plan *
bloom_rf_scan_target(Plan *plan, const AttrNumber *cols, const RuntimePlanInfo *info,
                     RuntimePlanContext *ctx, List *partition, const AttrNumber *attnos,
                     bool *by_brin)
{
	SeqScan *seqscan = (SeqScan *) plan;
	Index scanrelid;
	RangeTblEntry *rte;
	CustomScan *cscan;
	KeyIndexes found = {0};
	List *skip_attnos = NIL;
	RuntimeScanPrivate private;
	HeapTuple tuple;
	char relkind;
	bool has_indexes;
	bool heap;

	if (!IsA(plan, SeqScan))
		return NULL;
	scanrelid = seqscan->scan.scanrelid;
	rte = rt_fetch(scanrelid, ctx->stmt->rtable);
	if (rte->rtekind != RTE_RELATION || rte->tablesample != NULL)
		return NULL;
	/* one look at pg_class (cached): a plain table, and whether it has indexes at all */
	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(rte->relid));
	if (!HeapTupleIsValid(tuple))
		return NULL;
	relkind = ((Form_pg_class) GETSTRUCT(tuple))->relkind;
	has_indexes = ((Form_pg_class) GETSTRUCT(tuple))->relhasindex;
	heap = ((Form_pg_class) GETSTRUCT(tuple))->relam == HEAP_TABLE_AM_OID;
	ReleaseSysCache(tuple);
	if (relkind != RELKIND_RELATION)
		return NULL;
	for (int i = 0; i < info->keys.nkeys && has_indexes; i++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, cols[i]);
		Expr *e = tle ? tle->expr : NULL;

		while (e && IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (e == NULL || !IsA(e, Var) || (Index) ((Var *) e)->varno != scanrelid ||
		    ((Var *) e)->varattno <= 0 || !OidIsValid(info->keys.orders[i]))
			continue;
		find_indexes(rte->relid, ((Var *) e)->varattno, i, info, &found);
		if (OidIsValid(found.brin) && OidIsValid(found.btree))
			break;
	}
	/*
	 * The keys' rows are read through a B-tree only while the build keeps
	 * every distinct key (BLOOM_RF_EXACT_MAX): an inner side expected far
	 * larger would only pay for keeping its values and then read the table
	 * whole (TPC-H's Q12 and Q13, 1.5M and 150,000 keys: 4% and 9% slower).
	 * Forced filters (tests) still read through every B-tree that serves.
	 */
	if (OidIsValid(found.btree) && !bloom_rf_forced &&
	    info->cost.inner_rows > BLOOM_RF_BTREE_MAX_INNER_ROWS)
		found.btree = InvalidOid;
	if (!OidIsValid(found.brin) && !OidIsValid(found.btree) && partition == NIL)
		return NULL;
	if (partition != NIL)
		for (int i = 0; i < info->keys.nkeys; i++)
			skip_attnos = lappend_int(skip_attnos, attnos[i]);

	/* the Seq Scan, as a node of ours */
	cscan = makeNode(CustomScan);
	cscan->scan.plan = *plan;
	cscan->scan.plan.type = T_CustomScan;
	cscan->scan.scanrelid = scanrelid;
	cscan->flags = 0;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = NIL;
	cscan->custom_scan_tlist = NIL;
	cscan->custom_relids = bms_make_singleton(scanrelid);
	private.id = info->id;
	private.brin_index = found.brin;
	private.brin_key = found.brin_key;
	private.column = found.column;
	private.btree_index = found.btree;
	private.btree_key = found.btree_key;
	private.heap = heap;
	private.partition = partition;
	private.attnos = skip_attnos;
	cscan->custom_private = bloom_rf_private_make_scan(&private);
	cscan->methods = &bloom_rf_scan_plan_methods;
	*by_brin = OidIsValid(found.brin);
	return &cscan->scan.plan;
}
