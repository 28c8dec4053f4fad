/*
 * probe.c
 *	  BloomFilterProbe: the node on a hash join's outer side that drops the
 *	  rows whose join keys the runtime filter does not hold.
 *
 * It passes the other rows through unchanged, in its child's slots.  Until
 * its filter is usable (bloom_rf_filter_usable: built from every inner row of
 * the join's current scan, and the join's hash table exists) every row passes:
 * that covers the outer rows a hash join fetches before it builds its table,
 * and a rescan that is rebuilding it.  A row with a NULL key is dropped once
 * the filter is usable: the join operators are strict, so it matches
 * nothing.  A filter that removes too few rows pauses (core/bf_runtime.h).
 * A filter taken from a bloomfilter index is probed with the index's
 * hashing of the one key it holds (set up when the filter is given).
 */
#include "exec.h"
#include "../cost.h"
#include "../private.h"
#include "../settings.h"
#include "../skip/skip.h"
#include "../../../core/bf_runtime.h"

#include "executor/executor.h"
#include "executor/hashjoin.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"

#include BLOOM_EXPLAIN_STATE_H
#include BLOOM_EXPLAIN_FORMAT_H

typedef struct ProbeState
{
	RuntimeNode node;         /* first: the state both nodes share */
	RuntimeProbePrivate plan; /* what the planner said (private.h) */
	RuntimeFilter *filter;    /* the build node's, given at executor start */
	bf_rf_switch sw;
	uint64 unready; /* rows passed while the filter was not usable (not ready, or disabled) */
	/* the judgement on the real hash table (probe_judge) */
	bool judge;               /* judge at all: not for forced filters */
	RuntimeBuildStamp judged; /* the build judged last */
	bool in_cache;            /* the join's hash table turned out too small for the filter to pay */
	double table_kb;          /* its size, for EXPLAIN */
	/* skipping the scan of a partition (skip/partitions.c): decided per build, before the first row */
	RuntimePartitionSkip skip; /* skip.partition NIL: none */
	RuntimeBuildStamp decided; /* the build decided for */
	bool skipping;             /* the current build holds no key the partition may hold */
	/* a filter taken from a bloomfilter index: how its key is hashed */
	int source_key; /* the key it holds, or -1: the filter is the join's own */
	bool source_ok; /* set up, or not taken from an index (else rows pass unfiltered) */
	BloomIndexProbeHash source_hash;
} ProbeState;

static Node *probe_create(CustomScan *cscan);
static void probe_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *probe_exec(CustomScanState *node);
static TupleTableSlot *probe_exec_direct(PlanState *ps);
static TupleTableSlot *probe_pass(PlanState *ps);
static TupleTableSlot *probe_pass_counted(PlanState *ps);
static void probe_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static void probe_shutdown(CustomScanState *node);
static void probe_counts(ProbeState *state, RuntimeCounts *counts);
static void probe_judge(ProbeState *state);
static void probe_rescan(CustomScanState *node);
static bool probe_skips(ProbeState *state);

const CustomScanMethods bloom_rf_probe_plan_methods = {
    .CustomName = BLOOM_RF_PROBE_NAME,
    .CreateCustomScanState = probe_create,
};

static const CustomExecMethods probe_exec_methods = {
    .CustomName = BLOOM_RF_PROBE_NAME,
    .BeginCustomScan = probe_begin,
    .ExecCustomScan = probe_exec,
    .EndCustomScan = bloom_rf_node_end,
    .ReScanCustomScan = probe_rescan,
    .EstimateDSMCustomScan = bloom_rf_node_dsm_size,
    .InitializeDSMCustomScan = bloom_rf_node_dsm_init,
    .ReInitializeDSMCustomScan = bloom_rf_node_dsm_init,
    .InitializeWorkerCustomScan = bloom_rf_node_dsm_attach,
    .ShutdownCustomScan = probe_shutdown,
    .ExplainCustomScan = probe_explain,
};

bool
bloom_rf_is_probe(PlanState *ps)
{
	return IsA(ps, CustomScanState) && ((CustomScanState *) ps)->methods == &probe_exec_methods;
}

void
bloom_rf_probe_attach(PlanState *probe, RuntimeFilter *filter)
{
	ProbeState *state = (ProbeState *) probe;
	Oid source;
	int key;

	Assert(bloom_rf_is_probe(probe));
	if (state->node.filter_id != bloom_rf_filter_id(filter))
		return;
	state->filter = filter;
	source = bloom_rf_filter_source(filter, &key);
	if (OidIsValid(source))
	{
		CustomScan *cscan = (CustomScan *) state->node.css.ss.ps.plan;

		state->source_key = key;
		state->source_ok = bloom_index_source_probe_hash(
		    source, list_nth_oid(state->plan.head.operators, key),
		    exprType(list_nth(cscan->custom_exprs, key)),
		    list_nth_oid(state->plan.head.collations, key), &state->source_hash);
	}
}

/*
 * Whether the row in slot may match: its keys are not NULL and the filter
 * may hold them (hashed as the filter was built, or as its index hashes).
 */
static pg_attribute_always_inline bool
probe_row(ProbeState *state, const bf_view *view, TupleTableSlot *slot, ExprContext *econtext)
{
	uint32 hash;
	Datum value;

	if (state->source_key < 0)
		return bloom_rf_keys_hash(&state->node.keys, slot, econtext, &hash) &&
		       bloom_rf_view_may_contain(view, hash);
	return bloom_rf_keys_value(&state->node.keys, slot, econtext, state->source_key, &value) &&
	       bloom_rf_view_may_contain_value(view, &state->source_hash, value,
	                                       econtext->ecxt_per_tuple_memory);
}

static Node *
probe_create(CustomScan *cscan)
{
	return bloom_rf_node_create(sizeof(ProbeState), &probe_exec_methods);
}

static void
probe_begin(CustomScanState *node, EState *estate, int eflags)
{
	ProbeState *state = (ProbeState *) node;

	/*
	 * Every outer row of the join passes through this node, and a paused or
	 * disabled filter must cost next to nothing per row: skip the call
	 * through ExecCustomScan, which only checks for interrupts (the child's
	 * scan checks per row, probe_exec per row it drops).  ExecInitNode
	 * wraps whatever this field holds when BeginCustomScan returns.
	 */
	Assert(node->ss.ps.ExecProcNode != NULL);
	node->ss.ps.ExecProcNode = probe_exec_direct;
	bloom_rf_node_begin(&state->node, estate, eflags, true);
	bloom_rf_private_read_probe(((CustomScan *) node->ss.ps.plan)->custom_private, &state->plan);
	bf_rf_switch_init(&state->sw, Max(1.0, state->plan.saved));
	/* forced filters (tests) must filter whatever the table's size */
	state->judge = !bloom_rf_forced;
	state->source_key = -1;
	state->source_ok = true;
	if (state->plan.skip_lineage != NIL)
		bloom_rf_partition_skip_init(&state->skip, state->plan.skip_lineage,
		                             state->plan.skip_attnos, state->plan.head.operators,
		                             state->plan.head.collations);
}

/* A rescan: the next build decides again (probe_skips). */
static void
probe_rescan(CustomScanState *node)
{
	ProbeState *state = (ProbeState *) node;

	state->skipping = false;
	bloom_rf_stamp_forget(&state->decided);
	/* rows are looked at again (probe_exec_direct), until this build is decided */
	if (node->ss.ps.ExecProcNodeReal != probe_exec_direct)
		ExecSetExecProcNode(&node->ss.ps, probe_exec_direct);
	bloom_rf_node_rescan_child(node);
}

/*
 * Whether the scan below is to return no row: its partition can hold no key
 * of the join's current build.  Decided once per build, as soon as it is
 * finished, which with a skipping probe is before the join reads its outer
 * side (plan.c holds it); until then, and where the filter keeps no values,
 * nothing is skipped.  Skipping mid-scan, were the build to finish after
 * the scan started, would be as correct: none of its rows can match.
 */
static bool
probe_skips(ProbeState *state)
{
	RuntimeFilter *f = state->filter;
	RuntimeBuildStamp now;

	if (f == NULL || !bloom_rf_filter_built(f, &now) || bloom_rf_filter_values(f) == NULL)
		return false;
	if (bloom_rf_stamp_renew(&state->decided, &now))
		state->skipping = bloom_rf_partition_skip_decide(&state->skip, f);
	return state->skipping;
}

bool
bloom_rf_probe_excludes(PlanState *ps)
{
	ProbeState *state = (ProbeState *) ps;

	Assert(bloom_rf_is_probe(ps));
	return state->skip.partition != NIL && probe_skips(state);
}

/*
 * The bytes a built hash table holds, bucket array included, as EXPLAIN
 * reports them ("Memory Usage"); -1 for a table of several batches, whose
 * probes go to files as well.  A shared table (Parallel Hash Join) is read
 * from its one batch's shared size, final once every participant has
 * hashed its share (bloom_rf_filter_usable waits for that).
 */
static double
hash_table_bytes(HashJoinTable table)
{
	if (table->nbatch > 1)
		return -1;
	if (table->parallel_state == NULL)
		return (double) Max(table->spacePeak, table->spaceUsed);
	if (table->batches == NULL || table->batches[0].shared == NULL)
		return -1;
	return (double) table->batches[0].shared->size +
	       (double) table->nbuckets * sizeof(dsa_pointer_atomic);
}

/*
 * The planner priced the filter from its estimate of the hash table's size;
 * now that the table is built, price it again from the real one: a table
 * that fits in the CPU cache after all (TPC-H's Q18: 128,642 rows expected,
 * 57 found) makes every probe cost more than the row it removes saves, so
 * the filter is not probed at all; otherwise the switch's break-even point
 * follows the real size.  A spilled table (several batches) keeps the
 * planner's price.  Called when the filter of a new build becomes usable
 * (state->judged is that build).
 */
static void
probe_judge(ProbeState *state)
{
	HashJoinTable table = (HashJoinTable) state->judged.table;
	double bytes, saved;

	Assert(table != NULL);
	state->in_cache = false;
	if (!state->judge || (bytes = hash_table_bytes(table)) < 0)
		return;
	state->table_kb = bytes / 1024.0;
	if (!bloom_rf_cost_built_table(bytes, &saved))
		state->in_cache = true;
	else
		bf_rf_switch_set_saved(&state->sw, saved);
}

static pg_attribute_always_inline TupleTableSlot *
probe_exec(CustomScanState *node)
{
	ProbeState *state = (ProbeState *) node;
	PlanState *child = outerPlanState(node);
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	if (state->skip.partition != NIL && probe_skips(state))
		return NULL;
	if (!state->plan.probe_rows)
	{
		/* placed to skip only: once this build has decided, rows just pass */
		if (state->skip.partition == NIL || state->decided.table != NULL)
			ExecSetExecProcNode(&node->ss.ps, probe_pass);
		return ExecProcNode(child);
	}
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(child);
		RuntimeBuildStamp now;
		const bf_view *view;
		bool keep;

		if (TupIsNull(slot))
			return slot;
		if (state->filter == NULL || (view = bloom_rf_filter_usable(state->filter, &now)) == NULL ||
		    !state->source_ok)
		{
			state->unready++;
			return slot;
		}
		if (bloom_rf_stamp_renew(&state->judged, &now))
			probe_judge(state);
		if (state->in_cache)
		{
			/* disabled for this build: the rest of its rows just pass (counted) */
			ExecSetExecProcNode(&node->ss.ps, probe_pass_counted);
			state->unready++;
			return slot;
		}
		if (!bf_rf_switch_probing(&state->sw))
			return slot;
		keep = probe_row(state, view, slot, econtext);
		bf_rf_switch_record(&state->sw, !keep);
		if (keep)
			return slot;
		CHECK_FOR_INTERRUPTS();
	}
}

static TupleTableSlot *
probe_exec_direct(PlanState *ps)
{
	return probe_exec((CustomScanState *) ps);
}

/*
 * The executor's entry once nothing is left to do for the current build but
 * pass the rows on (probe_exec switches to it; a rescan, which precedes any
 * new build, switches back): a disabled filter then costs a call per row
 * and no test.  Were a build to change without a rescan, rows would pass
 * unfiltered and no scan be skipped, which is never wrong.
 */
static TupleTableSlot *
probe_pass(PlanState *ps)
{
	return ExecProcNode(outerPlanState(ps));
}

/* The same, counting the rows for EXPLAIN (Rows Passed Without Filter). */
static TupleTableSlot *
probe_pass_counted(PlanState *ps)
{
	TupleTableSlot *slot = ExecProcNode(outerPlanState(ps));

	if (!TupIsNull(slot))
		((ProbeState *) ps)->unready++;
	return slot;
}

static void
probe_shutdown(CustomScanState *node)
{
	ProbeState *state = (ProbeState *) node;
	RuntimeCounts mine;

	probe_counts(state, &mine);
	bloom_rf_counts_shutdown(&state->node.par, &mine);
}

/* This process's counts. */
static void
probe_counts(ProbeState *state, RuntimeCounts *counts)
{
	memset(counts, 0, sizeof(*counts));
	counts->probed = state->sw.probed;
	counts->removed = state->sw.removed;
	counts->skipped = state->sw.skipped;
	counts->pauses = state->sw.pauses;
	counts->unready = state->unready;
	counts->in_cache_kb = state->in_cache ? state->table_kb : 0;
	counts->scans_checked = state->skip.checked;
	counts->scans_skipped = state->skip.skips;
}

static void
probe_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ProbeState *state = (ProbeState *) node;
	RuntimeCounts all;

	ExplainPropertyInteger("Runtime Filter", NULL, state->node.filter_id, es);
	ExplainPropertyText("Probe Keys", bloom_rf_keys_explain(node, ancestors, es), es);
	if (state->plan.not_shipped != NULL)
		ExplainPropertyText("Not Shipped", state->plan.not_shipped, es);
	bloom_rf_explain_skip_test(state->plan.skip_lineage, es);
	if (!state->plan.probe_rows)
		ExplainPropertyText("Filter Use", "skipping only", es);
	else if (state->plan.fallback)
		ExplainPropertyText("Filter Use", "skipping; rows probed where the scan reads them", es);
	if (!state->source_ok)
		ExplainPropertyText("Filter Disabled",
		                    "the index does not hash this key as the plan found, or cannot serve",
		                    es);
	if (!es->analyze)
		return;
	probe_counts(state, &all);
	bloom_rf_counts_sum(&state->node.par, &all);
	bloom_rf_explain_scans_skipped(all.scans_skipped, all.scans_checked, es);
	if (!state->plan.probe_rows)
		return;
	ExplainPropertyUInteger("Rows Removed by Runtime Filter", NULL, all.removed, es);
	if (all.in_cache_kb > 0)
		ExplainPropertyText("Filter Disabled",
		                    psprintf("hash table in the CPU cache (%.0f kB)", all.in_cache_kb), es);
	if (es->verbose || all.skipped > 0)
	{
		ExplainPropertyUInteger("Rows Probed", NULL, all.probed, es);
		ExplainPropertyUInteger("Rows Passed Without Filter", NULL, all.unready, es);
		ExplainPropertyUInteger("Rows Passed Unprobed", NULL, all.skipped, es);
		ExplainPropertyUInteger("Pauses", NULL, all.pauses, es);
	}
}
