/*
 * build.c
 *	  BloomFilterBuild: the node under a hash join's Hash node that adds the
 *	  join key of every inner row to the runtime filter as the Hash node
 *	  reads it.
 *
 * It passes its child's tuples through unchanged.  When the child is
 * exhausted the filter is finished (sized for the rows read, filled) and
 * ready.  The Hash node reads its child to the end in every case (a
 * multi-batch join writes later batches to files, but reads them all), so
 * the filter holds every inner row's key, whatever the number of batches.
 * A rescan that rebuilds the hash table rescans this node, which empties the
 * filter; a rescan that keeps the table does not, and the filter stays.
 * A filter taken from a bloomfilter index (plan/plan.c) reads no key: the rows
 * pass, and the end of the inner side takes the index's filter.
 */
#include "exec.h"
#include "../private.h"
#include "../skip/skip.h"

#include "executor/executor.h"
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include BLOOM_EXPLAIN_STATE_H
#include BLOOM_EXPLAIN_FORMAT_H

typedef struct BuildState
{
	RuntimeNode node;         /* first: the state both nodes share */
	RuntimeBuildPrivate plan; /* what the planner said (private.h) */
	RuntimeFilter *filter;
	bool finished; /* bloom_rf_filter_ready, kept here: read per row (finish and reset are ours) */
	RuntimeValues *kept; /* the filter's key values, if it keeps them (filled here) */
	Datum *values;       /* one row's key values and their own hashes, for them */
	uint32 *hashes;
	/* shipped to postgres_fdw scans (ship/pushdown.c) */
	List *remote_scans; /* the scans reading plan.remote_param (hooks.c), changed at a new build */
	List *appends;      /* Parallel Appends handing out what this build excludes (appendskip.c) */
	bytea *sent;        /* the value this node put in the remote parameter, or NULL */
} BuildState;

static Node *build_create(CustomScan *cscan);
static void build_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *build_exec(CustomScanState *node);
static void build_rescan(CustomScanState *node);
static void build_explain(CustomScanState *node, List *ancestors, ExplainState *es);
static Size build_dsm_size(CustomScanState *node, ParallelContext *pcxt);
static void build_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void build_dsm_reinit(CustomScanState *node, ParallelContext *pcxt, void *coordinate);
static void build_dsm_setup(BuildState *state, ParallelContext *pcxt, void *coordinate, bool again);
static void build_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate);
static void build_shutdown(CustomScanState *node);
static void build_counts(BuildState *state, RuntimeCounts *counts);
static void set_remote_param(BuildState *state, bool send);

const CustomScanMethods bloom_rf_build_plan_methods = {
    .CustomName = BLOOM_RF_BUILD_NAME,
    .CreateCustomScanState = build_create,
};

static const CustomExecMethods build_exec_methods = {
    .CustomName = BLOOM_RF_BUILD_NAME,
    .BeginCustomScan = build_begin,
    .ExecCustomScan = build_exec,
    .EndCustomScan = bloom_rf_node_end,
    .ReScanCustomScan = build_rescan,
    .EstimateDSMCustomScan = build_dsm_size,
    .InitializeDSMCustomScan = build_dsm_init,
    .ReInitializeDSMCustomScan = build_dsm_reinit,
    .InitializeWorkerCustomScan = build_dsm_attach,
    .ShutdownCustomScan = build_shutdown,
    .ExplainCustomScan = build_explain,
};

bool
bloom_rf_is_build(PlanState *ps)
{
	return IsA(ps, CustomScanState) && ((CustomScanState *) ps)->methods == &build_exec_methods;
}

RuntimeFilter *
bloom_rf_build_filter(PlanState *build)
{
	Assert(bloom_rf_is_build(build));
	return ((BuildState *) build)->filter;
}

int
bloom_rf_build_remote_param(PlanState *build)
{
	Assert(bloom_rf_is_build(build));
	return ((BuildState *) build)->plan.remote_param;
}

void
bloom_rf_build_add_remote_scan(PlanState *build, PlanState *scan)
{
	BuildState *state = (BuildState *) build;

	Assert(bloom_rf_is_build(build) && state->plan.remote_param >= 0);
	state->remote_scans = lappend(state->remote_scans, scan);
}

void
bloom_rf_build_add_append(PlanState *build, PlanState *append)
{
	BuildState *state = (BuildState *) build;

	Assert(bloom_rf_is_build(build));
	state->appends = list_append_unique_ptr(state->appends, append);
}

static Node *
build_create(CustomScan *cscan)
{
	return bloom_rf_node_create(sizeof(BuildState), &build_exec_methods);
}

static void
build_begin(CustomScanState *node, EState *estate, int eflags)
{
	BuildState *state = (BuildState *) node;

	bloom_rf_node_begin(&state->node, estate, eflags, false);
	bloom_rf_private_read_build(((CustomScan *) node->ss.ps.plan)->custom_private, &state->plan);
	state->filter = bloom_rf_filter_create(state->node.filter_id, state->plan.shared_keys,
	                                       state->plan.head.operators, state->plan.head.collations);
	/* key values for probes that skip scans (a shared build's: its share, published) */
	if (state->plan.collect)
	{
		int nkeys = state->node.keys.nkeys;

		state->kept =
		    bloom_rf_filter_keep_values(state->filter, state->plan.families, state->plan.stretch);
		state->values = palloc(nkeys * sizeof(Datum));
		state->hashes = palloc(nkeys * sizeof(uint32));
	}
	if (OidIsValid(state->plan.source_index))
		bloom_rf_filter_set_source(state->filter, state->plan.source_index, state->plan.source_key);
	set_remote_param(state, false);
}

static TupleTableSlot *
build_exec(CustomScanState *node)
{
	BuildState *state = (BuildState *) node;
	TupleTableSlot *slot = ExecProcNode(outerPlanState(node));
	uint32 hash;

	if (TupIsNull(slot))
	{
		if (!state->finished)
		{
			bloom_rf_filter_finish(state->filter);
			state->finished = true;
			set_remote_param(state, true);
		}
		return slot;
	}
	/* a row with a NULL key matches nothing: the operators are strict */
	if (state->finished || OidIsValid(state->plan.source_index))
		return slot;
	if (state->values == NULL)
	{
		if (bloom_rf_keys_hash(&state->node.keys, slot, node->ss.ps.ps_ExprContext, &hash))
			bloom_rf_filter_add(state->filter, hash);
	}
	else if (bloom_rf_keys_hash_values(&state->node.keys, slot, node->ss.ps.ps_ExprContext, &hash,
	                                   state->values, state->hashes))
	{
		/* comparisons in the row's memory (they may detoast); values.c copies what it keeps */
		MemoryContext old =
		    MemoryContextSwitchTo(node->ss.ps.ps_ExprContext->ecxt_per_tuple_memory);

		bloom_rf_filter_add(state->filter, hash);
		bloom_rf_values_add(state->kept, state->values, state->hashes);
		MemoryContextSwitchTo(old);
	}
	return slot;
}

/*
 * A rescan that reaches this node rebuilds the hash table, and the filter.
 * The remote scans that took the filter are marked as having their
 * parameter changed: they send their query again, with the next filter,
 * rather than reuse rows the last one let through (postgres_fdw keeps a
 * cursor, or its rows, across a rescan with no changed parameter).
 */
static void
build_rescan(CustomScanState *node)
{
	BuildState *state = (BuildState *) node;
	ListCell *lc;

	bloom_rf_filter_reset(state->filter);
	state->finished = false;
	set_remote_param(state, false);
	foreach (lc, state->remote_scans)
	{
		PlanState *scan = lfirst(lc);

		scan->chgParam = bms_add_member(scan->chgParam, state->plan.remote_param);
	}
	bloom_rf_node_rescan_child(node);
}

/*
 * The parameter that ships the filter to remote scans (ship/pushdown.c), if any:
 * the finished filter (send), or NULL, which lets every row through there.
 * The value lives in the query's memory, as long as the scans may read it.
 * Only a value this node put there is freed: an EvalPlanQual recheck of an
 * UPDATE or a FOR UPDATE runs a copy of the plan whose parameters start as
 * the query's own values, pointers to memory the query's node owns.
 */
static void
set_remote_param(BuildState *state, bool send)
{
	EState *estate = state->node.css.ss.ps.state;
	ParamExecData *prm;
	MemoryContext old;
	bytea *filter;

	if (state->plan.remote_param < 0)
		return;
	Assert(!send || bloom_rf_filter_ready(state->filter));
	prm = &estate->es_param_exec_vals[state->plan.remote_param];
	if (state->sent != NULL && !prm->isnull && DatumGetPointer(prm->value) == (Pointer) state->sent)
		pfree(state->sent);
	state->sent = NULL;
	prm->execPlan = NULL;
	prm->value = (Datum) 0;
	prm->isnull = true;
	if (!send)
		return;
	old = MemoryContextSwitchTo(estate->es_query_cxt);
	filter = bloom_rf_filter_to_send(state->filter);
	MemoryContextSwitchTo(old);
	if (filter != NULL)
	{
		prm->value = PointerGetDatum(filter);
		prm->isnull = false;
		state->sent = filter;
	}
}

/*
 * The shared memory: the counts (node.c), then, under a Parallel Hash Join,
 * the shared filter.
 */
static Size
build_dsm_size(CustomScanState *node, ParallelContext *pcxt)
{
	RuntimeFilter *f = ((BuildState *) node)->filter;
	Size size = bloom_rf_node_dsm_size(node, pcxt);

	if (bloom_rf_filter_is_shared(f))
		size = add_size(size, bloom_rf_filter_shared_size(f));
	return size;
}

static void
build_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	build_dsm_setup((BuildState *) node, pcxt, coordinate, false);
}

/*
 * The Gather above starts again: its Parallel Appends' marks are cleared
 * (ExecAppendReInitializeDSM), and this process marks again at their next
 * first row (appendskip.c; new workers do at theirs).
 */
static void
build_dsm_reinit(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	ListCell *lc;

	build_dsm_setup((BuildState *) node, pcxt, coordinate, true);
	foreach (lc, ((BuildState *) node)->appends)
		bloom_rf_append_arm(lfirst(lc));
}

/* The leader: the counts start over; the shared filter is set up, or emptied for a rescan. */
static void
build_dsm_setup(BuildState *state, ParallelContext *pcxt, void *coordinate, bool again)
{
	CustomScanState *node = &state->node.css;
	void *filter_mem = (char *) coordinate + bloom_rf_node_dsm_size(node, pcxt);

	bloom_rf_node_dsm_init(node, pcxt, coordinate);
	if (!bloom_rf_filter_is_shared(state->filter))
		return;
	/* (the query's area is installed while the leader sets up and resets shared memory) */
	if (!again)
		bloom_rf_filter_shared_init(state->filter, filter_mem, node->ss.ps.state->es_query_dsa);
	else
	{
		bloom_rf_filter_shared_attach(state->filter, filter_mem, node->ss.ps.state->es_query_dsa);
		bloom_rf_filter_shared_reset(state->filter);
	}
}

static void
build_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	RuntimeFilter *f = ((BuildState *) node)->filter;

	bloom_rf_node_dsm_attach(node, toc, coordinate);
	if (bloom_rf_filter_is_shared(f))
		bloom_rf_filter_shared_attach(f,
		                              (char *) coordinate + bloom_rf_node_dsm_attached_size(node),
		                              node->ss.ps.state->es_query_dsa);
}

static void
build_shutdown(CustomScanState *node)
{
	BuildState *state = (BuildState *) node;
	RuntimeCounts mine;

	build_counts(state, &mine);
	bloom_rf_counts_shutdown(&state->node.par, &mine);
	bloom_rf_filter_shared_detach(state->filter);
}

/* This process's counts. */
static void
build_counts(BuildState *state, RuntimeCounts *counts)
{
	memset(counts, 0, sizeof(*counts));
	bloom_rf_filter_describe(state->filter, &counts->build);
}

/* "index NAME" for EXPLAIN, the name qualified where it is not visible. */
static const char *
source_name(Oid index)
{
	char *name = get_rel_name(index);

	if (name == NULL)
		return psprintf("index %u (dropped)", index);
	if (!RelationIsVisible(index))
		name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(index)), name);
	else
		name = (char *) quote_identifier(name);
	return psprintf("index %s", name);
}

static void
build_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	BuildState *state = (BuildState *) node;
	RuntimeCounts mine, all;
	const RuntimeCounts *shown;

	ExplainPropertyInteger("Runtime Filter", NULL, state->node.filter_id, es);
	ExplainPropertyText("Build Keys", bloom_rf_keys_explain(node, ancestors, es), es);
	if (OidIsValid(state->plan.source_index))
		ExplainPropertyText("Filter Source", source_name(state->plan.source_index), es);
	if (state->plan.planned.kind != PLANNED_NONE)
	{
		/* why the plan has this join: the join search priced what its keys skip (paths/) */
		const RuntimePlannedSkip *planned = &state->plan.planned;
		char *text;

		if (planned->kind == PLANNED_PARTITIONS)
			text = psprintf("partitions, %.0f of %.0f expected read", planned->scans_read,
			                planned->scans);
		else if (planned->kind == PLANNED_BLOCKS)
			text = psprintf("block ranges, %.0f of %.0f blocks expected read", planned->scans_read,
			                planned->scans);
		else
			text = psprintf("the rows of %.0f keys through a B-tree, %.0f expected read",
			                planned->scans_read, planned->rows);

		if (es->costs)
			text = psprintf("%s (outer side cost %.2f instead of %.2f)", text, planned->cost,
			                planned->cost_whole);
		ExplainPropertyText("Planned Skip", text, es);
	}
	if (es->verbose)
	{
		ExplainPropertyFloat("Planned Outer Rows", NULL, state->plan.outer_rows, 0, es);
		ExplainPropertyFloat("Planned Inner Rows", NULL, state->plan.inner_rows, 0, es);
		ExplainPropertyFloat("Planned Pass Fraction", NULL, state->plan.pass, 3, es);
	}
	if (!es->analyze)
		return;
	build_counts(state, &mine);
	all = mine;
	bloom_rf_counts_sum(&state->node.par, &all);
	shown = bloom_rf_counts_build(&state->node.par, &mine);
	if (all.build.builds == 0)
		return;
	/* a shared filter holds every process's keys */
	ExplainPropertyUInteger("Filter Keys", NULL,
	                        state->plan.shared_keys > 0 ? all.build.keys : shown->build.keys, es);
	if (state->plan.shared_keys > 0)
		ExplainPropertyText("Filter Shared", "by the processes of the Parallel Hash Join", es);
	if (mine.build.source_missing)
		ExplainPropertyText("Filter Disabled",
		                    "the index cannot serve now (dropped, not valid, too new for this "
		                    "snapshot, or larger than bloomfilter.runtime_filter_max_size)",
		                    es);
	else if (shown->build.ready)
	{
		ExplainPropertyUInteger("Filter Size", "kB", (shown->build.bytes + 1023) / 1024, es);
		/* a filter taken from an index is layered: its k is its number of layers */
		ExplainPropertyInteger(OidIsValid(state->plan.source_index) ? "Filter Layers"
		                                                            : "Filter Hashes",
		                       NULL, shown->build.nhashes, es);
		ExplainPropertyText("Filter Fill", psprintf("%.1f%%", 100.0 * shown->build.fill), es);
		if (shown->build.useless)
			ExplainPropertyText("Filter Disabled", "too full to remove rows", es);
	}
	/* (a shared build is one filter: its participants' shares are not builds of their own) */
	if (all.build.builds > 1 && state->plan.shared_keys <= 0)
		ExplainPropertyUInteger("Filter Builds", NULL, all.build.builds, es);
	bloom_rf_explain_scans_skipped(all.build.scans_skipped, all.build.scans_checked, es);
	if (es->timing && shown->build.ready)
		ExplainPropertyFloat("Build Time", "ms", shown->build.build_ms, 3, es);
}
