/*
 * rangescan.c
 *	  BloomFilterScan: a sequential scan that skips what the join's build
 *	  says it would throw away: the whole table, when it is a partition
 *	  whose bounds hold no built key (skip.c), or the block ranges whose BRIN
 *	  summary holds none; or that reads only the keys' rows through a B-tree
 *	  index (keyscan.c), where that costs less.
 *
 * The planner (bloom_rf_range_target) puts it in place of a Seq Scan (not a
 * parallel one) on the outer side of a hash join with a runtime filter,
 * where the scanned table is a partition that skip.c can decide, or has a
 * valid BRIN index on a key column itself, or a valid B-tree index led by
 * one, with the join's semantics (the join operator is in the index
 * column's operator family; the join's collation is the index's or
 * deterministic, as for partitions).  It keeps
 * the Seq Scan's target list, quals and costs, and reads rows through
 * ExecScan the same way; doing the skipping itself, it costs no node and no
 * row more than the Seq Scan where nothing is skipped.
 *
 * At its first row of each build (the join holds its outer side until the
 * build is finished, plan.c) it decides.  A partition that can hold no key
 * returns no row.  Otherwise, with a B-tree index, it reads the keys' rows
 * through it if the cost model says that costs less than the whole table
 * (keyscan.c).  Otherwise, with a BRIN index, it asks the index which
 * block ranges may hold a built key: one bitmap scan of the index per
 * distinct key (the index's "=" as a scan key), or, past
 * BLOOM_RF_EXACT_MAX distinct keys or when that would test more than
 * MAX_SUMMARY_TESTS summaries, one with the keys' least and greatest values
 * (">=" and "<=", a minmax index only).  The index itself answers: BRIN's
 * consistent functions, its unsummarized ranges (always returned, so always
 * read) and its view of the table's length.  The blocks returned are then
 * read as runs of consecutive blocks with TID range scans; the rows read are
 * joined (and filtered by a probe above, if there is one) as before.  The
 * keys are asked one at a time, and as soon as more than half of the
 * table's ranges may hold one the rest are not asked.
 *
 * It reads the whole table, as the Seq Scan would, when the filter is not
 * built or keeps no values, when the table is no larger than two block
 * ranges, when the index cannot test the keys, or when more than half of
 * its blocks may hold a key (reading ranges in pieces would then gain
 * little).  EXPLAIN ANALYZE says which, how many blocks were read, and how
 * many partition scans were skipped.
 *
 * Under SERIALIZABLE, a scan that reads block ranges locks the whole table
 * for predicate locking, as the Seq Scan it replaces does: reading less
 * must not let a concurrent write to a block not read go unseen.  (A
 * partition skipped is not locked, as PostgreSQL's own pruning does not:
 * no row it could hold can match.)
 */
#include "runtime.h"

#include <math.h>

#include "access/brin.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "parser/parsetree.h"
#include "storage/predicate.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include BLOOM_EXPLAIN_STATE_H
#include BLOOM_EXPLAIN_FORMAT_H

/* summaries tested by one decision at most (keys times ranges), before falling back to min/max */
#define MAX_SUMMARY_TESTS 1000000
/* read the whole table when more than this fraction of its block ranges may hold a key */
#define MAX_FRACTION_READ 0.5

/*
 * custom_private of a BloomFilterScan: few allocations, as a plan over many
 * partitions has one per partition (its numbers in one IntList, its indexes
 * in one OidList; the join's operators and collations come with the filter,
 * which alone makes them of use)
 */
typedef enum RangeScanPrivate
{
	RS_PRIVATE_NUMBERS,   /* IntList: RangeScanNumber's */
	RS_PRIVATE_INDEXES,   /* OidList: the BRIN index, the B-tree index (either invalid), or NIL */
	RS_PRIVATE_PARTITION, /* OidList: the partition, then its ancestors (skip.c), or NIL */
	RS_PRIVATE_ATTNOS,    /* IntList: the keys' columns in the partition, or NIL */
	RS_PRIVATE_COUNT
} RangeScanPrivate;

/* The numbers of RS_PRIVATE_NUMBERS */
typedef enum RangeScanNumber
{
	RS_NUMBER_ID,        /* the filter's number */
	RS_NUMBER_KEY,       /* the BRIN index's join key (its position among the join's keys) */
	RS_NUMBER_COLUMN,    /* the BRIN index column of that key (1-based) */
	RS_NUMBER_BTREE_KEY, /* the B-tree's join key (its position among the join's keys) */
	RS_NUMBER_HEAP,      /* 1 if the table is heap (its slots are buffer heap ones) */
	RS_NUMBER_COUNT
} RangeScanNumber;

/* Why the whole table was read, for EXPLAIN. */
typedef enum WholeReason
{
	WHOLE_NONE, /* ranges were read */
	WHOLE_NOT_BUILT,
	WHOLE_SMALL,
	WHOLE_UNTESTABLE,
	WHOLE_MOST,
	WHOLE_BTREE_COSTLIER, /* with no BRIN index to ask next */
	WHOLE_BTREE_TOO_MANY,
	WHOLE_NO_INDEX, /* no index: a partition's scan not skipped */
	WHOLE_SKIPPED,  /* nothing read: the partition was skipped */
	READ_BY_BTREE,  /* the keys' rows read through the B-tree */
	WHOLE_REASONS
} WholeReason;

static const char *const whole_reasons[WHOLE_REASONS] = {
    "",
    "the filter was not built",
    "the table is small",
    "the index cannot test the keys",
    "most block ranges may hold a key",
    "reading the keys' rows through the B-tree would cost more",
    "too many keys to look up in the B-tree",
    "",
    "",
    ""};

typedef struct RangeScanState
{
	CustomScanState css;
	int filter_id;
	RuntimeFilter *filter; /* given at executor start (hooks.c) */
	Oid index_oid;         /* the BRIN index, or InvalidOid */
	int key;
	AttrNumber column;
	/* the join's, given with the filter */
	Oid opno; /* the operator of the BRIN index's key */
	List *operators;
	List *collations;
	List *partition; /* NIL, or the partition and its ancestors (skip.c) */
	AttrNumber *attnos;
	RuntimeOuterHash outer; /* for a join on one key, with a partition */
	bool have_outer;
	MemoryContext scratch; /* the partition decisions' (skip.c), made at the first */
	RuntimeKeyScan btree;  /* index_oid InvalidOid: no B-tree (keyscan.c) */
	int btree_key;

	bool slot_pending; /* the scan's slot is not of the table's kind yet (range_begin) */

	/* the current scan */
	bool started; /* decided and started: scan is NULL if there is nothing to read */
	TableScanDesc scan;
	bool by_ranges;      /* reading runs of blocks, else the whole table */
	BlockNumber *starts; /* the runs: [starts[i], ends[i]] */
	BlockNumber *ends;
	int nruns;
	int capacity;    /* of starts and ends */
	int run;         /* the run being read */
	WholeReason why; /* how the current build's scans read */

	/* what the last decision was for (as the probes' decisions, probe.c) */
	uint64 decided_build;
	struct HashJoinTableData *decided_table;

	/* for EXPLAIN ANALYZE, over every scan */
	uint64 scans;
	uint64 whole[WHOLE_REASONS];
	uint64 blocks_read; /* blocks of the runs read */
	uint64 blocks;      /* blocks of the table, at each scan by ranges */
	uint64 checked;     /* builds the partition was asked about, and skips */
	uint64 skips;
	int btree_keys; /* keys looked up in the B-tree by the last scan through it */
} RangeScanState;

static Node *range_create(CustomScan *cscan);
static void range_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *range_exec(CustomScanState *node);
static TupleTableSlot *range_exec_direct(PlanState *ps);
static void range_end(CustomScanState *node);
static void range_rescan(CustomScanState *node);
static void range_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static TupleTableSlot *range_next(ScanState *ss);
static bool range_recheck(ScanState *ss, TupleTableSlot *slot);
static void range_start(RangeScanState *state);
static void use_table_slot(RangeScanState *state);
static bool next_run(RangeScanState *state);
static WholeReason range_decide(RangeScanState *state, Relation rel);
static WholeReason btree_decide(RangeScanState *state, Relation rel);
static TupleTableSlot *keys_next(RangeScanState *state, ScanDirection direction,
                                 TupleTableSlot *slot);

const CustomScanMethods bloom_rf_scan_plan_methods = {
    .CustomName = BLOOM_RF_SCAN_NAME,
    .CreateCustomScanState = range_create,
};

static const CustomExecMethods range_exec_methods = {
    .CustomName = BLOOM_RF_SCAN_NAME,
    .BeginCustomScan = range_begin,
    .ExecCustomScan = range_exec,
    .EndCustomScan = range_end,
    .ReScanCustomScan = range_rescan,
    .ExplainCustomScan = range_explain,
};

/* ---- the planner's part ---- */

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
	Oid collation = list_nth_oid(info->collations, i);

	return idx->rd_index->indkey.values[c] == attno &&
	       op_in_opfamily(list_nth_oid(info->operators, i), idx->rd_opfamily[c]) &&
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
			 * (keyscan.c), the join operator its equality, and the family
			 * able to sort the keys (an incomplete one would fail at run time)
			 */
			if (idx->rd_rel->relam == BTREE_AM_OID && !OidIsValid(found->btree) &&
			    idx->rd_indam->amsearcharray && column_serves(idx, 0, attno, i, info) &&
			    btree_can_look_up(idx->rd_opfamily[0], list_nth_oid(info->operators, i)))
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
bloom_rf_range_target(Plan *plan, const AttrNumber *cols, const RuntimePlanInfo *info,
                      RuntimePlanContext *ctx, List *partition, const AttrNumber *attnos)
{
	SeqScan *seqscan = (SeqScan *) plan;
	Index scanrelid;
	RangeTblEntry *rte;
	CustomScan *cscan;
	KeyIndexes found = {0};
	List *skip_attnos = NIL;
	List *numbers;
	HeapTuple tuple;
	char relkind;
	bool has_indexes;
	bool heap;

	if (!IsA(plan, SeqScan) || plan->parallel_aware || info->shared)
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
	for (int i = 0; i < info->nkeys && has_indexes; i++)
	{
		TargetEntry *tle = get_tle_by_resno(plan->targetlist, cols[i]);
		Expr *e = tle ? tle->expr : NULL;

		while (e && IsA(e, RelabelType))
			e = ((RelabelType *) e)->arg;
		if (e == NULL || !IsA(e, Var) || (Index) ((Var *) e)->varno != scanrelid ||
		    ((Var *) e)->varattno <= 0 || !OidIsValid(info->orders[i]))
			continue;
		find_indexes(rte->relid, ((Var *) e)->varattno, i, info, &found);
		if (OidIsValid(found.brin) && OidIsValid(found.btree))
			break;
	}
	if (!OidIsValid(found.brin) && !OidIsValid(found.btree) && partition == NIL)
		return NULL;
	if (partition != NIL)
		for (int i = 0; i < info->nkeys; i++)
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
	numbers = list_make5_int(info->id, found.brin_key, found.column, found.btree_key, heap);
	Assert(list_length(numbers) == RS_NUMBER_COUNT);
	cscan->custom_private = list_make4(numbers,
	                                   OidIsValid(found.brin) || OidIsValid(found.btree)
	                                       ? list_make2_oid(found.brin, found.btree)
	                                       : NIL,
	                                   partition, skip_attnos);
	Assert(list_length(cscan->custom_private) == RS_PRIVATE_COUNT);
	cscan->methods = &bloom_rf_scan_plan_methods;
	return &cscan->scan.plan;
}

/* ---- the executor's part ---- */

bool
bloom_rf_is_range_scan(PlanState *ps)
{
	return IsA(ps, CustomScanState) && ((CustomScanState *) ps)->methods == &range_exec_methods;
}

void
bloom_rf_range_scan_attach(PlanState *ps, RuntimeFilter *filter)
{
	RangeScanState *state = (RangeScanState *) ps;

	Assert(bloom_rf_is_range_scan(ps));
	if (state->filter_id == filter->id)
	{
		state->filter = filter;
		state->operators = filter->operators;
		state->collations = filter->collations;
		state->opno = list_nth_oid(state->operators, state->key);
	}
}

static Node *
range_create(CustomScan *cscan)
{
	RangeScanState *state = palloc0(sizeof(RangeScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &range_exec_methods;
	/* a heap table's slots, from the start where the version allows (range_begin) */
	if (list_nth_int(list_nth(cscan->custom_private, RS_PRIVATE_NUMBERS), RS_NUMBER_HEAP))
		bloom_custom_scan_set_slot_ops(&state->css, &TTSOpsBufferHeapTuple);
	return (Node *) state;
}

static void
range_begin(CustomScanState *node, EState *estate, int eflags)
{
	RangeScanState *state = (RangeScanState *) node;
	List *private = ((CustomScan *) node->ss.ps.plan)->custom_private;
	Relation rel = node->ss.ss_currentRelation;
	List *numbers, *indexes;

	Assert(list_length(private) == RS_PRIVATE_COUNT && rel != NULL);
	/*
	 * Every row of the scan comes through here: skip the call through
	 * ExecCustomScan (which only checks for interrupts; ExecScan does too),
	 * as probe.c does.  ExecInitNode wraps whatever this field holds when
	 * BeginCustomScan returns.
	 */
	Assert(node->ss.ps.ExecProcNode != NULL);
	node->ss.ps.ExecProcNode = range_exec_direct;
	/*
	 * Where ExecInitCustomScan gave the scan a slot of another kind than the
	 * table's (15 always gives a virtual one; 16 and later the kind asked
	 * for in range_create, for a heap table), and built the quals and
	 * projection for it (which, for a virtual slot, read its values without
	 * deforming a tuple): the table's own kind is needed, and both again,
	 * but only once the scan is to return a row (use_table_slot): a
	 * partition skipped never does, and with many partitions that work was
	 * most of the scan's start-up.  Until then the scan's result is not
	 * declared to be of a fixed kind, so that the nodes above, initialized
	 * next, do not take it to be virtual.
	 */
	if (node->ss.ss_ScanTupleSlot->tts_ops != table_slot_callbacks(rel))
	{
		state->slot_pending = true;
		if (node->ss.ps.ps_ProjInfo == NULL)
			node->ss.ps.resultopsfixed = false; /* the scan's slot is the result */
	}
	numbers = list_nth(private, RS_PRIVATE_NUMBERS);
	indexes = list_nth(private, RS_PRIVATE_INDEXES);
	Assert(list_length(numbers) == RS_NUMBER_COUNT && list_length(indexes) % 2 == 0);
	state->filter_id = list_nth_int(numbers, RS_NUMBER_ID);
	state->key = list_nth_int(numbers, RS_NUMBER_KEY);
	state->column = (AttrNumber) list_nth_int(numbers, RS_NUMBER_COLUMN);
	state->btree_key = list_nth_int(numbers, RS_NUMBER_BTREE_KEY);
	state->partition = list_nth(private, RS_PRIVATE_PARTITION);
	if (state->partition != NIL)
		state->attnos = bloom_rf_private_attnos(list_nth(private, RS_PRIVATE_ATTNOS));
	if (indexes != NIL)
	{
		state->index_oid = linitial_oid(indexes);
		state->btree.index_oid = lsecond_oid(indexes);
	}
	if (OidIsValid(state->btree.index_oid))
		state->btree.context = AllocSetContextCreate(estate->es_query_cxt, "BloomFilterScan keys",
		                                             ALLOCSET_SMALL_SIZES);
}

/*
 * Whether the partition scanned may hold a key of the current build
 * (skip.c), counted for EXPLAIN.  For a join on one key, a list
 * partition's values are probed in the filter with the join's hash
 * function for the outer side, looked up at the first decision.
 */
static bool
partition_may_hold(RangeScanState *state)
{
	bool may;

	if (list_length(state->operators) == 1 && !state->have_outer)
	{
		Oid left_fn, right_fn;

		if (!get_op_hash_functions(linitial_oid(state->operators), &left_fn, &right_fn))
			elog(ERROR, "could not find hash function for hash operator %u",
			     linitial_oid(state->operators));
		fmgr_info(left_fn, &state->outer.fn);
		state->outer.collation = linitial_oid(state->collations);
		state->have_outer = true;
	}
	may = bloom_rf_partition_may_hold(state->partition, state->attnos, state->filter,
	                                  state->have_outer ? &state->outer : NULL, state->operators,
	                                  state->collations, &state->scratch);
	state->checked++;
	state->filter->scans_checked++;
	if (!may)
	{
		state->skips++;
		state->filter->scans_skipped++;
	}
	return may;
}

/*
 * A scan decides and starts before ExecScan, which reads the quals and the
 * projection at its start: use_table_slot may replace both.
 */
static TupleTableSlot *
range_exec_direct(PlanState *ps)
{
	if (unlikely(!((RangeScanState *) ps)->started))
		range_start((RangeScanState *) ps);
	return ExecScan((ScanState *) ps, range_next, range_recheck);
}

static TupleTableSlot *
range_exec(CustomScanState *node)
{
	return range_exec_direct(&node->ss.ps);
}

/*
 * Give the scan a slot of the table's kind, and build its quals and
 * projection again for it (range_begin says why), in the query's memory.
 * The nodes above were told that the result's kind is not fixed, and keep
 * being told so.
 */
static pg_noinline void
use_table_slot(RangeScanState *state)
{
	ScanState *ss = &state->css.ss;
	Relation rel = ss->ss_currentRelation;
	EState *estate = ss->ps.state;
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);

	Assert(state->slot_pending);
	ExecInitScanTupleSlot(estate, ss, RelationGetDescr(rel), table_slot_callbacks(rel));
	ExecAssignScanProjectionInfoWithVarno(ss, ((Scan *) ss->ps.plan)->scanrelid);
	ss->ps.qual = ExecInitQual(ss->ps.plan->qual, &ss->ps);
	if (ss->ps.ps_ProjInfo == NULL)
		ss->ps.resultopsfixed = false;
	state->slot_pending = false;
	MemoryContextSwitchTo(old);
}

static bool
range_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true; /* no quals of ours: ExecScan rechecks the plan's */
}

/*
 * Every row comes through here: the cold paths (deciding and starting, the
 * next run of blocks) are functions of their own, so that this one keeps a
 * small frame (with no local array, no stack-protector check per row).
 */
static TupleTableSlot *
range_next(ScanState *ss)
{
	RangeScanState *state = (RangeScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	ScanDirection direction = ss->ps.state->es_direction;

	Assert(state->started); /* range_exec_direct */
	if (unlikely(state->scan == NULL))
		return state->btree.scan != NULL ? keys_next(state, direction, slot)
		                                 : NULL; /* no block may hold a key */
	if (likely(!state->by_ranges))
		return table_scan_getnextslot(state->scan, direction, slot) ? slot : NULL;
	while (!table_scan_getnextslot_tidrange(state->scan, direction, slot))
		if (!next_run(state))
			return NULL;
	return slot;
}

/* The next row of the keys' through the B-tree, or NULL. */
static pg_noinline TupleTableSlot *
keys_next(RangeScanState *state, ScanDirection direction, TupleTableSlot *slot)
{
	return index_getnext_slot(state->btree.scan, direction, slot) ? slot : NULL;
}

/* Move on to the next run of blocks; false if there is none. */
static pg_noinline bool
next_run(RangeScanState *state)
{
	ItemPointerData from, to;

	if (++state->run >= state->nruns)
		return false;
	ItemPointerSet(&from, state->starts[state->run], FirstOffsetNumber);
	ItemPointerSet(&to, state->ends[state->run], MaxOffsetNumber);
	table_rescan_tidrange(state->scan, &from, &to);
	return true;
}

/* Decide how this scan reads (once per build), and start it. */
static pg_noinline void
range_start(RangeScanState *state)
{
	Relation rel = state->css.ss.ss_currentRelation;
	Snapshot snapshot = state->css.ss.ps.state->es_snapshot;
	RuntimeFilter *f = state->filter;
	WholeReason why;

	if (f != NULL && f->values != NULL && bloom_rf_filter_built(f))
	{
		if (state->decided_build != f->builds || state->decided_table != f->join->hj_HashTable)
		{
			state->decided_build = f->builds;
			state->decided_table = f->join->hj_HashTable;
			state->by_ranges = false;
			if (state->partition != NIL && !partition_may_hold(state))
				state->why = WHOLE_SKIPPED;
			else
			{
				state->why = WHOLE_NO_INDEX;
				if (OidIsValid(state->btree.index_oid))
					state->why = btree_decide(state, rel);
				if (state->why != READ_BY_BTREE && OidIsValid(state->index_oid))
					state->why = range_decide(state, rel);
			}
		}
		why = state->why; /* as decided for this build */
	}
	else
	{
		why = WHOLE_NOT_BUILT;
		state->by_ranges = false;
		state->decided_table = NULL;
	}
	state->started = true;
	state->scans++;
	state->whole[why]++;
	/* a row may be returned (under EvalPlanQual, one the recheck gives) */
	if (state->slot_pending &&
	    (why != WHOLE_SKIPPED || state->css.ss.ps.state->es_epq_active != NULL))
		use_table_slot(state);
	if (why == WHOLE_SKIPPED)
		return; /* no row: scan stays NULL */
	if (why == READ_BY_BTREE)
	{
		/* no key, no row: scan stays NULL, and so does the index's */
		if (state->btree.have_key)
			bloom_rf_keyscan_begin(&state->btree, rel, snapshot);
		return;
	}
	if (!state->by_ranges)
	{
		state->scan = table_beginscan(rel, snapshot, 0, NULL);
		return;
	}
	/* as the Seq Scan would (the header) */
	PredicateLockRelation(rel, snapshot);
	state->blocks += RelationGetNumberOfBlocks(rel);
	if (state->nruns == 0)
		return;
	{
		ItemPointerData from, to;

		state->run = 0;
		ItemPointerSet(&from, state->starts[0], FirstOffsetNumber);
		ItemPointerSet(&to, state->ends[0], MaxOffsetNumber);
		state->scan = table_beginscan_tidrange(rel, snapshot, &from, &to);
	}
	for (int r = 0; r < state->nruns; r++)
		state->blocks_read += state->ends[r] - state->starts[r] + 1;
}

/*
 * Whether this build's keys are read through the B-tree (READ_BY_BTREE), or
 * why not.
 */
static WholeReason
btree_decide(RangeScanState *state, Relation rel)
{
	const RuntimeKeyValues *k = &state->filter->values->keys[state->btree_key];

	switch (bloom_rf_keyscan_decide(&state->btree, rel, k,
	                                list_nth_oid(state->operators, state->btree_key),
	                                list_nth_oid(state->collations, state->btree_key)))
	{
		case KEYSCAN_READ:
			state->btree_keys = k->nexact;
			return READ_BY_BTREE;
		case KEYSCAN_COSTLIER:
			return WHOLE_BTREE_COSTLIER;
		case KEYSCAN_TOO_MANY:
			return WHOLE_BTREE_TOO_MANY;
	}
	pg_unreachable();
}

/*
 * Mark in selected the block ranges the index says may hold a value that
 * meets keys (nkeys scan keys, ANDed); returns how many were newly marked,
 * stopping once nselected (those marked before) and these pass most.
 * BRIN returns whole ranges (every block of each), so a block's range is
 * block / per_range.
 */
static int
index_ranges(Relation index, Snapshot snapshot, ScanKey keys, int nkeys, BlockNumber per_range,
             BlockNumber nblocks, bool *selected, BlockNumber nselected, BlockNumber most)
{
	IndexScanDesc scan = bloom_index_beginscan_bitmap(index, snapshot, nkeys);
	TIDBitmap *tbm = tbm_create(work_mem * 1024L, NULL);
	BloomBitmapIterator *it;
	BlockNumber block;
	int added = 0;

	index_rescan(scan, keys, nkeys, NULL, 0);
	index_getbitmap(scan, tbm);
	index_endscan(scan);
	it = bloom_bitmap_begin(tbm);
	while (bloom_bitmap_next(it, &block))
	{
		if (block >= nblocks)
			break;
		if (!selected[block / per_range])
		{
			selected[block / per_range] = true;
			added++;
			if (nselected + added > most)
				break; /* the whole table will be read: the rest need not be known */
		}
	}
	bloom_bitmap_end(it);
	tbm_free(tbm);
	return added;
}

/* A scan key: the index column compared by operator opno of family with value. */
static void
scan_key(ScanKey key, AttrNumber column, Oid opno, Oid family, Oid collation, Datum value)
{
	Oid left, right;

	op_input_types(opno, &left, &right);
	ScanKeyEntryInitialize(key, 0, column, get_op_opfamily_strategy(opno, family), right, collation,
	                       get_opcode(opno), value);
}

/*
 * Which runs of blocks this build's keys need, into state's runs; returns
 * WHOLE_NONE to read them, or why the whole table is read.
 */
static WholeReason
range_decide(RangeScanState *state, Relation rel)
{
	const RuntimeKeyValues *k = &state->filter->values->keys[state->key];
	Snapshot snapshot = state->css.ss.ps.state->es_snapshot;
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	Relation index;
	BlockNumber per_range, nranges;
	Oid family, collation;
	bool *selected;
	BlockNumber nselected = 0;
	BlockNumber most;
	WholeReason why = WHOLE_NONE;
	MemoryContext old;

	state->by_ranges = false;
	state->nruns = 0;
	index = index_open(state->index_oid, AccessShareLock);
	if (!index->rd_index->indisvalid || !index->rd_index->indisready)
	{
		/* being dropped since the plan was made: its summaries may fall behind */
		index_close(index, AccessShareLock);
		return WHOLE_UNTESTABLE;
	}
	per_range = BrinGetPagesPerRange(index);
	nranges = (nblocks + per_range - 1) / per_range;
	if (nranges <= 2)
	{
		index_close(index, AccessShareLock);
		return WHOLE_SMALL;
	}
	/* past this many ranges (half the table), the whole table is read */
	most = (BlockNumber) (MAX_FRACTION_READ * nranges);
	family = index->rd_opfamily[state->column - 1];
	collation = index->rd_indcollation[state->column - 1];
	selected = palloc0(nranges * sizeof(bool));
	if (!OidIsValid(k->family))
		why = WHOLE_UNTESTABLE; /* the key's values were not kept (no order for them) */
	else if (!k->any)
		; /* no key: no block */
	else if (!k->overflow && (double) k->nexact * nranges <= MAX_SUMMARY_TESTS)
	{
		/* each distinct key's ranges, until most of the table is needed */
		for (int e = 0; e < k->nexact && nselected <= most; e++)
		{
			ScanKeyData key;

			scan_key(&key, state->column, state->opno, family, collation, k->exact[e]);
			nselected += index_ranges(index, snapshot, &key, 1, per_range, nblocks, selected,
			                          nselected, most);
			CHECK_FOR_INTERRUPTS();
		}
	}
	else
	{
		/*
		 * The ranges that meet [least, greatest], where the index orders
		 * values as the build did: its ">=" and "<=" between the column and
		 * the keys' type are those of the build's B-tree family.
		 */
		Oid left, right, ge, le;
		ScanKeyData keys[2];

		op_input_types(state->opno, &left, &right);
		ge = get_opfamily_member(family, left, right, BTGreaterEqualStrategyNumber);
		le = get_opfamily_member(family, left, right, BTLessEqualStrategyNumber);
		if (get_op_opfamily_strategy(state->opno, family) != BTEqualStrategyNumber ||
		    !OidIsValid(ge) || !OidIsValid(le) || !op_in_opfamily(ge, k->family) ||
		    !op_in_opfamily(le, k->family) || (OidIsValid(collation) && collation != k->collation))
			why = WHOLE_UNTESTABLE;
		else
		{
			scan_key(&keys[0], state->column, ge, family, collation, k->min);
			scan_key(&keys[1], state->column, le, family, collation, k->max);
			nselected =
			    index_ranges(index, snapshot, keys, 2, per_range, nblocks, selected, 0, most);
		}
	}
	index_close(index, AccessShareLock);
	if (why == WHOLE_NONE && nselected > most)
		why = WHOLE_MOST;
	if (why != WHOLE_NONE)
	{
		pfree(selected);
		return why;
	}

	/* the selected ranges, as runs of consecutive blocks, in the scan's memory */
	old = MemoryContextSwitchTo(state->css.ss.ps.state->es_query_cxt);
	if (state->starts == NULL)
	{
		state->capacity = 16;
		state->starts = palloc(sizeof(BlockNumber) * state->capacity);
		state->ends = palloc(sizeof(BlockNumber) * state->capacity);
	}
	for (BlockNumber r = 0; r < nranges; r++)
	{
		BlockNumber first = r * per_range;
		BlockNumber last = Min(first + per_range, nblocks) - 1;

		if (!selected[r])
			continue;
		if (state->nruns > 0 && state->ends[state->nruns - 1] + 1 == first)
		{
			state->ends[state->nruns - 1] = last;
			continue;
		}
		if (state->nruns == state->capacity)
		{
			state->capacity *= 2;
			state->starts = repalloc(state->starts, state->capacity * sizeof(BlockNumber));
			state->ends = repalloc(state->ends, state->capacity * sizeof(BlockNumber));
		}
		state->starts[state->nruns] = first;
		state->ends[state->nruns] = last;
		state->nruns++;
	}
	MemoryContextSwitchTo(old);
	pfree(selected);
	state->by_ranges = true;
	return WHOLE_NONE;
}

static void
range_end(CustomScanState *node)
{
	RangeScanState *state = (RangeScanState *) node;

	if (state->scan != NULL)
		table_endscan(state->scan);
	state->scan = NULL;
	bloom_rf_keyscan_end(&state->btree);
}

static void
range_rescan(CustomScanState *node)
{
	RangeScanState *state = (RangeScanState *) node;

	/* the next row starts again, deciding again if the build changed */
	range_end(node);
	state->started = false;
	ExecScanReScan(&node->ss);
}

static void
range_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	RangeScanState *state = (RangeScanState *) node;
	uint64 by_ranges = state->whole[WHOLE_NONE];

	ExplainPropertyInteger("Runtime Filter", NULL, state->filter_id, es);
	if (OidIsValid(state->btree.index_oid))
		ExplainPropertyText("B-tree Index", get_rel_name(state->btree.index_oid), es);
	if (OidIsValid(state->index_oid))
		ExplainPropertyText("BRIN Index", get_rel_name(state->index_oid), es);
	if (state->partition != NIL && es->verbose)
		ExplainPropertyText("Skip Test", "partition bounds", es);
	if (!es->analyze || state->scans == 0)
		return;
	if (state->checked > 0)
		ExplainPropertyText(
		    "Partition Scans Skipped",
		    psprintf(UINT64_FORMAT " of " UINT64_FORMAT, state->skips, state->checked), es);
	if (state->whole[READ_BY_BTREE] > 0)
		ExplainPropertyText("Read Through B-tree",
		                    state->scans > 1
		                        ? psprintf("%d keys (" UINT64_FORMAT " of " UINT64_FORMAT " scans)",
		                                   state->btree_keys, state->whole[READ_BY_BTREE],
		                                   state->scans)
		                        : psprintf("%d keys", state->btree_keys),
		                    es);
	if (!OidIsValid(state->index_oid) && !OidIsValid(state->btree.index_oid))
		return;
	if (by_ranges > 0)
		ExplainPropertyText(
		    "Heap Blocks Read",
		    psprintf(UINT64_FORMAT " of " UINT64_FORMAT, state->blocks_read, state->blocks), es);
	for (int w = WHOLE_NONE + 1; w < WHOLE_NO_INDEX; w++)
		if (state->whole[w] > 0)
			ExplainPropertyText("Whole Table Read",
			                    state->scans > 1
			                        ? psprintf("%s (" UINT64_FORMAT " of " UINT64_FORMAT " scans)",
			                                   whole_reasons[w], state->whole[w], state->scans)
			                        : whole_reasons[w],
			                    es);
}
