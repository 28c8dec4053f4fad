/*
 * keyprobe.c
 *	  The inner side's keys read at plan time, where the statistics cannot
 *	  say where they lie: a small dimension's rows within the partitioned
 *	  outer side's bounds, read through a B-tree on the key, its quals run
 *	  on each.
 *
 * A qual on a column that does not follow the key (the month of every year,
 * d_moy = 11) leaves the keys spread over the whole dimension: the
 * statistics bound them by the first and the last year (keyrange.c), which
 * every partition lies between, though the keys meet 5 of a 5-year fact's
 * 61 monthly partitions.  PostgreSQL reads an index's actual endpoints at
 * plan time for the same reason (get_actual_variable_range in selfuncs.c):
 * here the rows of the dimension whose key lies within the outer side's
 * partition bounds are read, through a B-tree led by the key, in the key's
 * order, and the quals say which are keys: the keys' exact set as of
 * planning, sorted (range->values).  It is read only where it is cheap and
 * runs no user code that could leak or be seen, and an error inside it is
 * no error of the query's (read_keys_guarded: a subtransaction):
 *	 - the outer side has at least ten times MAX_PROBE_ROWS rows (the read
 *	   must be small beside what it may let be skipped);
 *	 - the dimension is a plain table (not an inheritance parent, not
 *	   partitioned) with a B-tree led by the key in the partitions' family
 *	   and collation, neither partial nor hypothetical;
 *	 - at most MAX_PROBE_ROWS rows lie in the range, as PostgreSQL estimates
 *	   it, and at most that many index entries are visited, dead ones too
 *	   (else nothing is known); the range is that of the partitions other
 *	   than the default, which counts as read (keys beyond them are not
 *	   read);
 *	 - every qual is made only of columns, constants, a custom plan's
 *	   parameter values, AND, OR, NOT, IS [NOT] NULL, CASE and calls of
 *	   leakproof functions ("=", "<" or IN of a column with constants), each
 *	   call, whether on a column or not: a leakproof function has no side
 *	   effect and tells nothing of its arguments, so that running the
 *	   quals at plan time on rows (and branches) the query never reaches
 *	   cannot be seen (no cast, division or stable function).  Leakproof
 *	   is not "cannot fail" (texteq raises when no collation can be
 *	   determined, on rows the executor's cost order never brings to it):
 *	   such an error leaves the keys unread;
 *	 - no row-level security policy applies to the current user
 *	   (check_enable_rls) and no security-barrier qual, and the current user
 *	   may read the table (SELECT on it);
 *	 - a snapshot is active (the statement's), and the transaction is not
 *	   SERIALIZABLE: reading would take predicate locks on the rows read,
 *	   which a plan that is never run (EXPLAIN, a cached plan) would not.
 * The set is exact when planned; a plan kept (a prepared statement's, with
 * constants) may outlive it, and only costs more then: the runtime skips
 * by the keys it builds.  A read is done once per planning for a pair of
 * tables (GEQO asks again for every join order it tries): the outcomes are
 * kept until the planner returns (bloom_rf_key_probes_begin/_end).
 */
#include "paths.h"
#include "../../bloom_compat.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class_d.h"
#include "catalog/pg_proc_d.h"
#include "catalog/pg_statistic.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "partitioning/partbounds.h"
#include "utils/acl.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"
#include "utils/selfuncs.h"
#include "utils/rel.h"
#include "utils/resowner.h"
#include "utils/snapmgr.h"

/* rows of the dimension read at plan time, at most */
#define MAX_PROBE_ROWS 10000
/* read only for an outer side of at least this many rows: reading must be small beside the skip */
#define MIN_OUTER_ROWS (10.0 * MAX_PROBE_ROWS)

/* The outcome of one read, kept for the rest of the planning (probe_memo). */
typedef struct ProbeOutcome
{
	PlannerInfo *root;
	Index inner_relid;
	Index outer_relid;
	AttrNumber attno;
	bool read;   /* the keys were read: */
	int nvalues; /* these, in the planner's memory */
	Datum *values;
	int nwithin; /* distinct keys of the rows read, before the quals */
	bool probed_default;
} ProbeOutcome;

/* the outcomes of the planning under way (of the innermost, when planning nests) */
static List *probe_memo = NIL;

static bool read_keys_guarded(PlannerInfo *root, RelOptInfo *innerrel, RelOptInfo *outerrel,
                              Var *outer_var, Var *key, Oid family, Oid collation,
                              ProbeOutcome *outcome);
static bool read_keys(PlannerInfo *root, RelOptInfo *innerrel, RelOptInfo *outerrel, Var *outer_var,
                      Var *key, Oid family, Oid collation, ProbeOutcome *outcome);
static IndexOptInfo *key_index(RelOptInfo *innerrel, Var *key, Oid family, Oid collation);
static int outer_bounds(PlannerInfo *root, RelOptInfo *outerrel, Var *outer_var, Var *key,
                        Oid family, Oid collation, ScanKeyData *keys, Expr **clauses);

List *
bloom_rf_key_probes_begin(void)
{
	List *outer = probe_memo;

	probe_memo = NIL;
	return outer;
}

void
bloom_rf_key_probes_end(List *outer)
{
	probe_memo = outer;
}

bool
bloom_rf_key_probe(PlannerInfo *root, RelOptInfo *innerrel, RelOptInfo *outerrel, Var *outer_var,
                   Var *key, Oid family, Oid collation, RuntimeKeyRange *range)
{
	ProbeOutcome *outcome = NULL;
	ListCell *lc;
	MemoryContext old;

	foreach (lc, probe_memo)
	{
		ProbeOutcome *o = lfirst(lc);

		if (o->root == root && o->inner_relid == innerrel->relid &&
		    o->outer_relid == outerrel->relid && o->attno == key->varattno)
			outcome = o;
	}
	if (outcome == NULL)
	{
		/* in the planner's own memory, which GEQO's resets of its own do not touch */
		old = MemoryContextSwitchTo(root->planner_cxt);
		outcome = palloc0(sizeof(ProbeOutcome));
		outcome->root = root;
		outcome->inner_relid = innerrel->relid;
		outcome->outer_relid = outerrel->relid;
		outcome->attno = key->varattno;
		outcome->read =
		    read_keys_guarded(root, innerrel, outerrel, outer_var, key, family, collation, outcome);
		probe_memo = lappend(probe_memo, outcome);
		MemoryContextSwitchTo(old);
	}
	if (!outcome->read)
		return false;
	range->values = outcome->values;
	range->nvalues = outcome->nvalues;
	range->nwithin = outcome->nwithin;
	range->probed = true;
	range->probed_default = outcome->probed_default;
	range->keys = Max(1, outcome->nvalues);
	range->source = "the keys read at plan time";
	return true;
}

/*
 * read_keys in a subtransaction of its own: an error inside it (a qual that
 * fails on a row the executor would never have reached, a lock timeout)
 * means "not read", never a failed query; the subtransaction's rollback
 * releases what the read took (locks, buffers, snapshots, memory of its
 * own).  A cancel, a timeout or a shutdown (class 57), and a hot standby's
 * cancel for a recovery conflict (40001), are the query's, and are raised
 * again.  No read in parallel mode, where no subtransaction may start (a
 * query planned inside a parallel worker's function).
 *
 * Why a subtransaction rather than running only quals proven not to fail:
 * no such proof exists for SQL (leakproof functions raise too: texteq
 * without a collation, numeric overflow in a leakproof cast), and the
 * executor's own order (order_qual_clauses) only makes a failure less
 * likely.  What it costs: one subtransaction per read, and a read happens
 * at most once per pair of tables per planning, only for an outer side of
 * MIN_OUTER_ROWS rows or more (bench/README.md: the planning time of a query
 * that reads, with and without it).  It assigns no transaction ID (the read
 * writes nothing), so it adds nothing to a backend's subtransaction cache.
 */
static bool
read_keys_guarded(PlannerInfo *root, RelOptInfo *innerrel, RelOptInfo *outerrel, Var *outer_var,
                  Var *key, Oid family, Oid collation, ProbeOutcome *outcome)
{
	MemoryContext caller = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	bool read = false;

	if (IsInParallelMode())
		return false;
	BeginInternalSubTransaction(NULL);
	/* the values are kept in the caller's memory, which outlives the subtransaction */
	MemoryContextSwitchTo(caller);
	PG_TRY();
	{
		read = read_keys(root, innerrel, outerrel, outer_var, key, family, collation, outcome);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData *error;

		MemoryContextSwitchTo(caller);
		error = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(caller);
		CurrentResourceOwner = owner;
		/* (40001: a standby's recovery conflict cancels a query so) */
		if (ERRCODE_TO_CATEGORY(error->sqlerrcode) == ERRCODE_OPERATOR_INTERVENTION ||
		    error->sqlerrcode == ERRCODE_T_R_SERIALIZATION_FAILURE)
			ReThrowError(error);
		elog(DEBUG1, "bloomfilter: the inner side's keys were not read at plan time: %s",
		     error->message);
		FreeErrorData(error);
		/* (what read_keys copied into the caller's memory before it failed is lost with it) */
		outcome->values = NULL;
		outcome->nvalues = 0;
		read = false;
	}
	PG_END_TRY();
	return read;
}

/*
 * Read the keys (keyprobe.c's header) into *outcome, in the current memory;
 * false if they may not or cannot be read.  May raise (read_keys_guarded
 * catches it).
 */
static bool
read_keys(PlannerInfo *root, RelOptInfo *innerrel, RelOptInfo *outerrel, Var *outer_var, Var *key,
          Oid family, Oid collation, ProbeOutcome *outcome)
{
	RangeTblEntry *rte = planner_rt_fetch(innerrel->relid, root);
	IndexOptInfo *info;
	List *quals;
	ScanKeyData keys[2];
	Expr *clauses[2];
	int nkeys;
	double expected;
	Oid cmp_proc;
	FmgrInfo cmp;
	int16 typlen;
	bool typbyval;
	MemoryContext caller = CurrentMemoryContext, scratch, old;
	Relation heap, index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	EState *estate;
	ExprContext *econtext;
	ExprState *qual;
	int nread = 0, capacity = 64, n = 0, nwithin = 0;
	Datum last_within = (Datum) 0;
	Datum *values;
	bool whole = true;

	if (outerrel->tuples < MIN_OUTER_ROWS || rte->rtekind != RTE_RELATION ||
	    rte->relkind != RELKIND_RELATION || rte->inh || innerrel->part_scheme != NULL ||
	    !ActiveSnapshotSet() || IsolationIsSerializable() ||
	    pg_class_aclcheck(rte->relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK ||
	    rte->securityQuals != NIL || check_enable_rls(rte->relid, InvalidOid, true) == RLS_ENABLED)
		return false;
	info = key_index(innerrel, key, family, collation);
	cmp_proc = get_opfamily_proc(family, key->vartype, key->vartype, BTORDER_PROC);
	if (info == NULL || !OidIsValid(cmp_proc) ||
	    (outerrel->part_scheme != NULL && outerrel->part_scheme->partnatts != 1))
		return false;
	quals = bloom_rf_plan_time_quals(root, innerrel);
	if (quals == NIL)
		return false;
	nkeys = outer_bounds(root, outerrel, outer_var, key, family, collation, keys, clauses);
	/* the rows expected in the range (PostgreSQL's estimate), before reading any */
	expected = innerrel->tuples;
	if (nkeys > 0)
	{
		List *bounds = NIL;

		for (int i = 0; i < nkeys; i++)
			bounds = lappend(bounds, clauses[i]);
		expected *= clauselist_selectivity(root, bounds, innerrel->relid, JOIN_INNER, NULL);
	}
	if (expected > MAX_PROBE_ROWS)
		return false;

	fmgr_info(cmp_proc, &cmp);
	get_typlenbyval(key->vartype, &typlen, &typbyval);
	values = palloc(capacity * sizeof(Datum));
	scratch = AllocSetContextCreate(caller, "bloomfilter key probe", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(scratch);
	heap = table_open(rte->relid, AccessShareLock);
	index = index_open(info->indexoid, AccessShareLock);
	slot = table_slot_create(heap, NULL);
	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	qual = ExecPrepareQual(quals, estate);
	scan = bloom_index_beginscan(heap, index, GetActiveSnapshot(), nkeys);
	index_rescan(scan, keys, nkeys, NULL, 0);
	/* every index entry visited counts, the dead ones' too */
	while (index_getnext_tid(scan, ForwardScanDirection) != NULL)
	{
		Datum value;
		bool isnull;

		if (++nread > MAX_PROBE_ROWS)
		{
			whole = false;
			break;
		}
		if ((nread & 255) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!index_fetch_heap(scan, slot))
			continue; /* not visible to the snapshot */
		value = slot_getattr(slot, key->varattno, &isnull);
		/* the distinct keys within the bounds, the quals aside (in the key's order) */
		if (!isnull && (nwithin == 0 ||
		                DatumGetInt32(FunctionCall2Coll(&cmp, collation, last_within, value)) != 0))
		{
			last_within = datumCopy(value, typbyval, typlen); /* (scratch memory) */
			nwithin++;
		}
		ResetExprContext(econtext);
		econtext->ecxt_scantuple = slot;
		if (!ExecQual(qual, econtext))
			continue;
		value = slot_getattr(slot, key->varattno, &isnull);
		/* in the key's order: a repeated key follows itself */
		if (isnull ||
		    (n > 0 && DatumGetInt32(FunctionCall2Coll(&cmp, collation, values[n - 1], value)) == 0))
			continue;
		MemoryContextSwitchTo(caller);
		if (n == capacity)
		{
			capacity *= 2;
			values = repalloc(values, capacity * sizeof(Datum));
		}
		values[n++] = datumCopy(value, typbyval, typlen);
		MemoryContextSwitchTo(scratch);
	}
	index_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);
	elog(DEBUG1, "bloomfilter: visited %d index entries of the inner side at plan time: %s",
	     Min(nread, MAX_PROBE_ROWS),
	     whole ? psprintf("%d keys within the outer side's bounds", n) : "too many, not used");
	if (!whole)
		return false;
	outcome->values = values;
	outcome->nvalues = n;
	outcome->nwithin = nwithin;
	/* keys beyond the other partitions' bounds were not read: the default may hold some */
	outcome->probed_default = outerrel->part_scheme != NULL && outerrel->boundinfo != NULL &&
	                          outerrel->boundinfo->default_index >= 0;
	return true;
}

/*
 * A B-tree of innerrel led by the key, ordering it by family under
 * collation (or the key has no collation), neither partial nor
 * hypothetical; NULL if none.
 */
static IndexOptInfo *
key_index(RelOptInfo *innerrel, Var *key, Oid family, Oid collation)
{
	ListCell *lc;

	foreach (lc, innerrel->indexlist)
	{
		IndexOptInfo *info = lfirst(lc);

		/* (read in the key's ascending order: not a descending index) */
		if (info->relam == BTREE_AM_OID && !info->hypothetical && info->indpred == NIL &&
		    info->nkeycolumns >= 1 && info->indexkeys[0] == key->varattno &&
		    info->reverse_sort != NULL && !info->reverse_sort[0] && info->opfamily[0] == family &&
		    info->opcintype[0] == key->vartype &&
		    (!OidIsValid(collation) || info->indexcollations[0] == collation))
			return info;
	}
	return NULL;
}

/*
 * The first and last values of var's histogram (copies), as of the last
 * ANALYZE: a plain outer table's keys, give or take what came since.
 */
static bool
histogram_ends(PlannerInfo *root, Var *var, Datum *low, Datum *high)
{
	VariableStatData vardata;
	AttStatsSlot slot;
	bool found = false;

	examine_variable(root, (Node *) var, 0, &vardata);
	if (HeapTupleIsValid(vardata.statsTuple) &&
	    get_attstatsslot(&slot, vardata.statsTuple, STATISTIC_KIND_HISTOGRAM, InvalidOid,
	                     ATTSTATSSLOT_VALUES))
	{
		if (slot.nvalues >= 2)
		{
			int16 typlen;
			bool typbyval;

			get_typlenbyval(var->vartype, &typlen, &typbyval);
			*low = datumCopy(slot.values[0], typbyval, typlen);
			*high = datumCopy(slot.values[slot.nvalues - 1], typbyval, typlen);
			found = true;
		}
		free_attstatsslot(&slot);
	}
	ReleaseVariableStats(vardata);
	return found;
}

/*
 * Scan keys (and the same as clauses, for the estimate) bounding the key to
 * the outer side's partitions other than the default (a plain table: its
 * column's histogram's ends, inclusive): key >= the lowest
 * lower bound, key < the highest upper bound (a list's: >= its least
 * value, <= its greatest), by family's operators between the key's type
 * and the partition column's; none on a side that MINVALUE or MAXVALUE
 * leaves open, or for hash partitions.  Returns how many (0 to 2), packed
 * first.  (Keys beyond them are not read: a default partition counts as
 * read, partread.c.)
 */
static int
outer_bounds(PlannerInfo *root, RelOptInfo *outerrel, Var *outer_var, Var *key, Oid family,
             Oid collation, ScanKeyData *keys, Expr **clauses)
{
	PartitionBoundInfo bi = outerrel->boundinfo;
	PartitionScheme scheme = outerrel->part_scheme;
	Oid partcoltype = scheme != NULL ? scheme->partopcintype[0] : outer_var->vartype;
	int n = 0;
	Datum low = 0, high = 0;
	bool has_low = false, has_high = false;
	int high_strategy = BTLessStrategyNumber;

	if (scheme == NULL)
	{
		/* a plain table: its column's least and greatest in its histogram */
		if (!histogram_ends(root, outer_var, &low, &high))
			return 0;
		has_low = has_high = true;
		high_strategy = BTLessEqualStrategyNumber;
	}
	else if (bi == NULL || bi->ndatums == 0)
		return 0;
	else if (scheme->strategy == PARTITION_STRATEGY_RANGE)
	{
		has_low = bi->kind[0][0] == PARTITION_RANGE_DATUM_VALUE;
		has_high = bi->kind[bi->ndatums - 1][0] == PARTITION_RANGE_DATUM_VALUE;
		low = bi->datums[0][0];
		high = bi->datums[bi->ndatums - 1][0];
	}
	else if (scheme->strategy == PARTITION_STRATEGY_LIST)
	{
		/* (a partition listing NULL holds no key: the join's operators are strict) */
		has_low = has_high = true;
		low = bi->datums[0][0];
		high = bi->datums[bi->ndatums - 1][0];
		high_strategy = BTLessEqualStrategyNumber;
	}
	for (int side = 0; side < 2; side++)
	{
		int strategy = side == 0 ? BTGreaterEqualStrategyNumber : high_strategy;
		Datum bound = side == 0 ? low : high;
		Oid opno;
		int16 typlen;
		bool typbyval;

		if (!(side == 0 ? has_low : has_high))
			continue;
		opno = get_opfamily_member(family, key->vartype, partcoltype, strategy);
		if (!OidIsValid(opno))
			continue;
		ScanKeyEntryInitialize(&keys[n], 0, 1, strategy, partcoltype, collation, get_opcode(opno),
		                       bound);
		get_typlenbyval(partcoltype, &typlen, &typbyval);
		clauses[n] = make_opclause(
		    opno, BOOLOID, false, (Expr *) key,
		    (Expr *) makeConst(partcoltype, -1, collation, typlen, bound, false, typbyval),
		    InvalidOid, collation);
		set_opfuncid((OpExpr *) clauses[n]);
		n++;
	}
	return n;
}
