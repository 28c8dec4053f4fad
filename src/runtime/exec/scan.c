/*
 * scan.c
 *	  BloomFilterScan: a sequential scan that skips what the join's build
 *	  says it would throw away: the whole table, when it is a partition
 *	  whose bounds hold no built key (skip/partitions.c), or the block
 *	  ranges whose BRIN summary holds none (skip/brinranges.c); or that reads
 *	  only the keys' rows through a B-tree index (skip/btreekeys.c), where
 *	  that costs less.
 *
 * The planner (plan/scantarget.c) puts it in place of a Seq Scan on the
 * outer side of a hash join with a runtime filter, or of a Parallel Seq
 * Scan there, under a join that each process builds whole.  It keeps the
 * scan's target list, quals and costs, and reads rows through ExecScan the
 * same way; doing the skipping itself, it costs no node and no row more
 * than the Seq Scan where nothing is skipped.  A parallel one's processes
 * share the reading out as scanshare.c's header says.
 *
 * At its first row of each build (the join holds its outer side until the
 * build is finished, plan/plan.c) it decides.  A partition that can hold no
 * key returns no row.  Otherwise, with a B-tree index, it reads the keys'
 * rows through it if the cost model says that costs less than the whole
 * table.  Otherwise, with a BRIN index, it reads only the runs of blocks
 * the index says may hold a key, with TID range scans; the rows read are
 * joined (and filtered by a probe above, if there is one) as before.
 *
 * It reads the whole table, as the Seq Scan would, when the filter is not
 * built or keeps no values, or when the skip room says so (each of its
 * rooms has its reasons).  EXPLAIN ANALYZE says which, how many blocks were
 * read, and how many partition scans were skipped.
 *
 * Under SERIALIZABLE, a scan that reads block ranges locks the whole table
 * for predicate locking, as the Seq Scan it replaces does: reading less
 * must not let a concurrent write to a block not read go unseen.  (A
 * partition skipped is not locked, as PostgreSQL's own pruning does not:
 * no row it could hold can match.)
 */
#include "exec.h"
#include "../private.h"
#include "../skip/skip.h"

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

typedef struct FilterScanState
{
	CustomScanState css;
	RuntimeScanPrivate plan; /* what the planner said (private.h) */
	RuntimeFilter *filter;   /* given at executor start (hooks.c) */
	Oid opno;                /* the join operator of the BRIN index's key, given with it */
	List *operators;         /* the join's, given with the filter */
	List *collations;
	RuntimePartitionSkip skip; /* skip.partition NIL: not a partition that may be skipped */

	bool slot_pending; /* the scan's slot is not of the table's kind yet (fscan_begin) */

	/* the current scan */
	bool started;           /* decided and started: rd.scan is NULL if there is nothing to read */
	RuntimeScanReader rd;   /* how it reads, alone or as a parallel scan's share */
	RuntimeScanOutcome why; /* how the current build's scans read */
	RuntimeBrinChoice brin_why;
	RuntimeKeyScanChoice btree_why;
	RuntimeBuildStamp decided; /* the build decided for */
	/* whether its partition may be skipped, apart (a Parallel Append asks it alone) */
	RuntimeBuildStamp partition_decided; /* the build it was decided for */
	bool partition_skipped;
	RuntimeScanCounts *workers; /* the workers' counts, copied at shutdown (the leader) */
	int nworkers;
} FilterScanState;

static Node *fscan_create(CustomScan *cscan);
static void fscan_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *fscan_exec(CustomScanState *node);
static TupleTableSlot *fscan_exec_direct(PlanState *ps);
static void fscan_end(CustomScanState *node);
static void fscan_rescan(CustomScanState *node);
static void fscan_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static TupleTableSlot *fscan_next(ScanState *ss);
static bool fscan_recheck(ScanState *ss, TupleTableSlot *slot);
static void fscan_start(FilterScanState *state);
static void use_table_slot(FilterScanState *state);
static bool next_run(FilterScanState *state);
static RuntimeScanOutcome fscan_decide(FilterScanState *state, Relation rel);
static bool fscan_partition_skipped(FilterScanState *state);
static TupleTableSlot *keys_next(FilterScanState *state, ScanDirection direction,
                                 TupleTableSlot *slot);
static void start_alone(FilterScanState *state, RuntimeScanOutcome why);
static const RuntimeKeyValues *btree_values(FilterScanState *state);
static Size fscan_dsm_size(CustomScanState *node, ParallelContext *pcxt);
static void fscan_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void fscan_dsm_reinit(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void fscan_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate);
static void fscan_shutdown(CustomScanState *node);

const CustomScanMethods bloom_rf_scan_plan_methods = {
    .CustomName = BLOOM_RF_SCAN_NAME,
    .CreateCustomScanState = fscan_create,
};

static const CustomExecMethods fscan_exec_methods = {
    .CustomName = BLOOM_RF_SCAN_NAME,
    .BeginCustomScan = fscan_begin,
    .ExecCustomScan = fscan_exec,
    .EndCustomScan = fscan_end,
    .ReScanCustomScan = fscan_rescan,
    .EstimateDSMCustomScan = fscan_dsm_size,
    .InitializeDSMCustomScan = fscan_dsm_init,
    .ReInitializeDSMCustomScan = fscan_dsm_reinit,
    .InitializeWorkerCustomScan = fscan_dsm_attach,
    .ShutdownCustomScan = fscan_shutdown,
    .ExplainCustomScan = fscan_explain,
};

bool
bloom_rf_is_scan(PlanState *ps)
{
	return IsA(ps, CustomScanState) && ((CustomScanState *) ps)->methods == &fscan_exec_methods;
}

/*
 * The join's operators and collations come with the filter, which alone
 * makes them of use; the partition's skip is set up with them, in the
 * query's memory (hooks.c calls this there).
 */
void
bloom_rf_scan_attach(PlanState *ps, RuntimeFilter *filter)
{
	FilterScanState *state = (FilterScanState *) ps;

	Assert(bloom_rf_is_scan(ps));
	/* (a join in an initplan or subplan is wired twice: once is enough) */
	if (state->plan.id != bloom_rf_filter_id(filter) || state->filter == filter)
		return;
	state->filter = filter;
	state->operators = bloom_rf_filter_operators(filter);
	state->collations = bloom_rf_filter_collations(filter);
	state->opno = list_nth_oid(state->operators, state->plan.brin_key);
	if (state->plan.partition != NIL)
		bloom_rf_partition_skip_init(&state->skip, state->plan.partition, state->plan.attnos,
		                             state->operators, state->collations);
}

static Node *
fscan_create(CustomScan *cscan)
{
	FilterScanState *state = palloc0(sizeof(FilterScanState));

	NodeSetTag(state, T_CustomScanState);
	state->css.methods = &fscan_exec_methods;
	/* a heap table's slots, from the start where the version allows (fscan_begin) */
	if (bloom_rf_private_scan_heap(cscan->custom_private))
		bloom_custom_scan_set_slot_ops(&state->css, &TTSOpsBufferHeapTuple);
	return (Node *) state;
}

static void
fscan_begin(CustomScanState *node, EState *estate, int eflags)
{
	FilterScanState *state = (FilterScanState *) node;
	Relation rel = node->ss.ss_currentRelation;

	Assert(rel != NULL);
	/*
	 * Every row of the scan comes through here: skip the call through
	 * ExecCustomScan (which only checks for interrupts; ExecScan does too),
	 * as exec/probe.c does.  ExecInitNode wraps whatever this field holds when
	 * BeginCustomScan returns.
	 */
	Assert(node->ss.ps.ExecProcNode != NULL);
	node->ss.ps.ExecProcNode = fscan_exec_direct;
	/*
	 * Where ExecInitCustomScan gave the scan a slot of another kind than the
	 * table's (15 always gives a virtual one; 16 and later the kind asked
	 * for in fscan_create, for a heap table), and built the quals and
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
	bloom_rf_private_read_scan(((CustomScan *) node->ss.ps.plan)->custom_private, &state->plan);
	state->rd.btree.index_oid = state->plan.btree_index;
	if (OidIsValid(state->rd.btree.index_oid))
		state->rd.btree.context = AllocSetContextCreate(
		    estate->es_query_cxt, "BloomFilterScan keys", ALLOCSET_SMALL_SIZES);
}

/*
 * A scan decides and starts before ExecScan, which reads the quals and the
 * projection at its start: use_table_slot may replace both.
 */
static TupleTableSlot *
fscan_exec_direct(PlanState *ps)
{
	if (unlikely(!((FilterScanState *) ps)->started))
		fscan_start((FilterScanState *) ps);
	return ExecScan((ScanState *) ps, fscan_next, fscan_recheck);
}

static TupleTableSlot *
fscan_exec(CustomScanState *node)
{
	return fscan_exec_direct(&node->ss.ps);
}

/*
 * Give the scan a slot of the table's kind, and build its quals and
 * projection again for it (fscan_begin says why), in the query's memory.
 * The nodes above were told that the result's kind is not fixed, and keep
 * being told so.
 */
static pg_noinline void
use_table_slot(FilterScanState *state)
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
fscan_recheck(ScanState *ss, TupleTableSlot *slot)
{
	return true; /* no quals of ours: ExecScan rechecks the plan's */
}

/*
 * Every row comes through here: the cold paths (deciding and starting, the
 * next run of blocks) are functions of their own, so that this one keeps a
 * small frame (with no local array, no stack-protector check per row).
 */
static TupleTableSlot *
fscan_next(ScanState *ss)
{
	FilterScanState *state = (FilterScanState *) ss;
	TupleTableSlot *slot = ss->ss_ScanTupleSlot;
	ScanDirection direction = ss->ps.state->es_direction;

	Assert(state->started); /* fscan_exec_direct */
	if (unlikely(state->rd.scan == NULL))
		return state->rd.btree.scan != NULL ? keys_next(state, direction, slot)
		                                    : NULL; /* no block may hold a key */
	if (likely(!state->rd.by_ranges))
		return table_scan_getnextslot(state->rd.scan, direction, slot) ? slot : NULL;
	while (!table_scan_getnextslot_tidrange(state->rd.scan, direction, slot))
		if (!next_run(state))
			return NULL;
	return slot;
}

/*
 * The next row of the keys' through the B-tree, or NULL: in a parallel
 * scan, through the next bucket of keys this process claims.
 */
static pg_noinline TupleTableSlot *
keys_next(FilterScanState *state, ScanDirection direction, TupleTableSlot *slot)
{
	while (!index_getnext_slot(state->rd.btree.scan, direction, slot))
	{
		if (state->rd.shared == NULL ||
		    !bloom_rf_scanshare_next_bucket(&state->rd, btree_values(state)))
			return NULL;
		bloom_rf_keyscan_rescan(&state->rd.btree);
	}
	return slot;
}

/* Move on to the next run of blocks (a parallel scan: the next range claimed); false if none. */
static pg_noinline bool
next_run(FilterScanState *state)
{
	ItemPointerData from, to;

	if (state->rd.shared != NULL)
	{
		if (!bloom_rf_scanshare_next_range(&state->rd, &from, &to))
			return false;
	}
	else
	{
		if (++state->rd.run >= state->rd.runs.nruns)
			return false;
		ItemPointerSet(&from, state->rd.runs.starts[state->rd.run], FirstOffsetNumber);
		ItemPointerSet(&to, state->rd.runs.ends[state->rd.run], MaxOffsetNumber);
	}
	table_rescan_tidrange(state->rd.scan, &from, &to);
	return true;
}

/* The build's values of the B-tree's key, or NULL if there is no B-tree or no build. */
static const RuntimeKeyValues *
btree_values(FilterScanState *state)
{
	const RuntimeValues *v = state->filter ? bloom_rf_filter_values(state->filter) : NULL;

	return v != NULL && OidIsValid(state->plan.btree_index) ? &v->keys[state->plan.btree_key]
	                                                        : NULL;
}

/*
 * Whether the scan's partition can hold no key of the filter's current
 * build: decided once per build, whether the scan asks (fscan_decide) or a
 * Parallel Append does before handing the scan out (appendskip.c); false
 * until the build is finished, and for a scan of no partition that may be
 * skipped.
 */
static bool
fscan_partition_skipped(FilterScanState *state)
{
	RuntimeBuildStamp now;

	if (state->skip.partition == NIL || state->filter == NULL ||
	    !bloom_rf_filter_built(state->filter, &now) ||
	    bloom_rf_filter_values(state->filter) == NULL)
		return false;
	if (bloom_rf_stamp_renew(&state->partition_decided, &now))
		state->partition_skipped = bloom_rf_partition_skip_decide(&state->skip, state->filter);
	return state->partition_skipped;
}

bool
bloom_rf_scan_excludes(PlanState *ps)
{
	Assert(bloom_rf_is_scan(ps));
	return fscan_partition_skipped((FilterScanState *) ps);
}

/* Decide how this scan reads (once per build), and start it. */
static pg_noinline void
fscan_start(FilterScanState *state)
{
	RuntimeFilter *f = state->filter;
	RuntimeBuildStamp now;
	RuntimeScanOutcome why;

	if (f != NULL && bloom_rf_filter_built(f, &now) && bloom_rf_filter_values(f) != NULL)
	{
		if (bloom_rf_stamp_renew(&state->decided, &now))
			state->why = fscan_decide(state, state->css.ss.ss_currentRelation);
		why = state->why; /* as decided for this build */
	}
	else
	{
		why = OUT_NOT_BUILT;
		state->rd.by_ranges = false;
		bloom_rf_stamp_forget(&state->decided);
	}
	/*
	 * (a parallel scan's reading may have followed another process's way
	 * the last time: this build's own way again)
	 */
	state->rd.by_ranges = why == OUT_BY_RANGES;
	state->started = true;
	state->rd.counts.scans++;
	state->rd.counts.outcomes[why]++;
	if (why == OUT_BRIN_WHOLE)
		state->rd.counts.brin_whole[state->brin_why]++;
	if (why == OUT_BTREE_WHOLE)
		state->rd.counts.btree_whole[state->btree_why]++;
	/* a row may be returned (under EvalPlanQual, one the recheck gives) */
	if (state->slot_pending &&
	    (why != OUT_SKIPPED || state->css.ss.ps.state->es_epq_active != NULL))
		use_table_slot(state);
	if (why == OUT_SKIPPED)
		return; /* no row: scan stays NULL (a parallel scan's process claims nothing) */
	if (state->rd.shared != NULL)
		bloom_rf_scanshare_start(&state->rd, state->css.ss.ss_currentRelation,
		                         state->css.ss.ps.state->es_snapshot, why, btree_values(state));
	else
		start_alone(state, why);
}

/* Start reading as decided, alone. */
static void
start_alone(FilterScanState *state, RuntimeScanOutcome why)
{
	Relation rel = state->css.ss.ss_currentRelation;
	Snapshot snapshot = state->css.ss.ps.state->es_snapshot;
	ItemPointerData from, to;

	if (why == OUT_BY_BTREE)
	{
		/* no key, no row: scan stays NULL, and so does the index's */
		if (state->rd.btree.have_key)
			bloom_rf_keyscan_begin(&state->rd.btree, rel, snapshot);
		return;
	}
	if (!state->rd.by_ranges)
	{
		state->rd.scan = table_beginscan(rel, snapshot, 0, NULL);
		return;
	}
	/* as the Seq Scan would (the header) */
	PredicateLockRelation(rel, snapshot);
	state->rd.counts.blocks += RelationGetNumberOfBlocks(rel);
	for (int r = 0; r < state->rd.runs.nruns; r++)
		state->rd.counts.blocks_read += state->rd.runs.ends[r] - state->rd.runs.starts[r] + 1;
	if (state->rd.runs.nruns == 0)
		return;
	state->rd.run = 0;
	ItemPointerSet(&from, state->rd.runs.starts[0], FirstOffsetNumber);
	ItemPointerSet(&to, state->rd.runs.ends[0], MaxOffsetNumber);
	state->rd.scan = table_beginscan_tidrange(rel, snapshot, &from, &to);
}

/*
 * How the scans of a new build read: skipped (the partition can hold no
 * key), through the B-tree, by runs of blocks, or the whole table.  The
 * B-tree is asked first; where reading through it does not pay, a BRIN
 * index next.
 */
static RuntimeScanOutcome
fscan_decide(FilterScanState *state, Relation rel)
{
	const RuntimeValues *v = bloom_rf_filter_values(state->filter);
	RuntimeScanOutcome why = OUT_NO_INDEX;
	const RuntimeKeyValues *k;

	state->rd.by_ranges = false;
	if (fscan_partition_skipped(state))
		return OUT_SKIPPED;
	if (OidIsValid(state->rd.btree.index_oid))
	{
		int key = state->plan.btree_key;

		k = &v->keys[key];
		state->btree_why =
		    bloom_rf_keyscan_decide(&state->rd.btree, rel, k, list_nth_oid(state->operators, key),
		                            list_nth_oid(state->collations, key));
		/* a parallel scan shares the keys out by their join hash (scanshare.c) */
		if (state->btree_why == KEYSCAN_READ && state->rd.shared != NULL &&
		    state->rd.btree.have_key && !state->rd.btree.can_share)
			state->btree_why = KEYSCAN_UNSHARED;
		if (state->btree_why == KEYSCAN_READ)
		{
			/* (a parallel scan counts the keys of the buckets it claims) */
			if (state->rd.shared == NULL)
				state->rd.counts.btree_keys = k->nexact;
			return OUT_BY_BTREE;
		}
		why = OUT_BTREE_WHOLE;
	}
	if (OidIsValid(state->plan.brin_index))
	{
		k = &v->keys[state->plan.brin_key];
		state->brin_why =
		    bloom_rf_brin_decide(rel, state->plan.brin_index, state->plan.column, state->opno, k,
		                         state->css.ss.ps.state->es_snapshot,
		                         state->css.ss.ps.state->es_query_cxt, &state->rd.runs);
		state->rd.by_ranges = state->brin_why == BRIN_READ_RUNS;
		why = state->rd.by_ranges ? OUT_BY_RANGES : OUT_BRIN_WHOLE;
	}
	return why;
}

static void
fscan_end(CustomScanState *node)
{
	FilterScanState *state = (FilterScanState *) node;

	if (state->rd.scan != NULL)
		table_endscan(state->rd.scan);
	state->rd.scan = NULL;
	bloom_rf_keyscan_end(&state->rd.btree);
}

static void
fscan_rescan(CustomScanState *node)
{
	FilterScanState *state = (FilterScanState *) node;

	/* the next row starts again, deciding again if the build changed */
	fscan_end(node);
	state->started = false;
	ExecScanReScan(&node->ss);
}

/* ---- a parallel scan's shared memory (scanshare.c) ---- */

static Size
fscan_dsm_size(CustomScanState *node, ParallelContext *pcxt)
{
	return bloom_rf_scanshare_size(node->ss.ss_currentRelation, node->ss.ps.state->es_snapshot,
	                               pcxt);
}

static void
fscan_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	((FilterScanState *) node)->rd.shared = bloom_rf_scanshare_init(
	    coordinate, node->ss.ss_currentRelation, node->ss.ps.state->es_snapshot, pcxt);
}

/* A rescan of Gather (workers not running): undecided again; fscan_rescan starts this process over. */
static void
fscan_dsm_reinit(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	FilterScanState *state = (FilterScanState *) node;

	state->rd.shared = coordinate;
	bloom_rf_scanshare_reinit(state->rd.shared, node->ss.ss_currentRelation);
}

static void
fscan_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	((FilterScanState *) node)->rd.shared = bloom_rf_scanshare_attach(coordinate);
}

/* A worker leaves its counts, the leader takes the workers' (before Gather frees the memory). */
static void
fscan_shutdown(CustomScanState *node)
{
	FilterScanState *state = (FilterScanState *) node;

	if (state->rd.shared == NULL)
		return;
	state->rd.counts.partitions_checked = state->skip.checked;
	state->rd.counts.partitions_skipped = state->skip.skips;
	bloom_rf_scanshare_counts(state->rd.shared, &state->rd.counts, &state->workers,
	                          &state->nworkers);
	state->rd.shared = NULL;
}

/* The plan's indexes; under ANALYZE what was read (counts.c). */
static void
fscan_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	FilterScanState *state = (FilterScanState *) node;

	ExplainPropertyInteger("Runtime Filter", NULL, state->plan.id, es);
	if (OidIsValid(state->plan.btree_index))
		ExplainPropertyText("B-tree Index", get_rel_name(state->plan.btree_index), es);
	if (OidIsValid(state->plan.brin_index))
		ExplainPropertyText("BRIN Index", get_rel_name(state->plan.brin_index), es);
	bloom_rf_explain_skip_test(state->plan.partition, es);
	if (!es->analyze)
		return;
	state->rd.counts.partitions_checked = state->skip.checked;
	state->rd.counts.partitions_skipped = state->skip.skips;
	bloom_rf_scan_counts_explain(&state->plan, &state->rd.counts, state->workers, state->nworkers,
	                             es);
}
