/*
 * counts.c
 *	  Counts of runtime filter nodes across the processes of a parallel plan,
 *	  for EXPLAIN ANALYZE (exec.h, RuntimeParallel).
 *
 * Each process builds and probes its own filter (a join that is not
 * parallel-aware builds its whole hash table in every process), so nothing
 * but counts is shared.  The shared memory holds one RuntimeCounts per
 * planned worker.  A BloomFilterScan's counts (RuntimeScanCounts) are
 * shared with the rest of a parallel scan's state (scanshare.c); they are
 * summed and shown here.
 */
#include "exec.h"
#include "../private.h"

#include BLOOM_EXPLAIN_STATE_H
#include BLOOM_EXPLAIN_FORMAT_H

typedef struct RuntimeShared
{
	int nworkers;
	RuntimeCounts workers[FLEXIBLE_ARRAY_MEMBER];
} RuntimeShared;

Size
bloom_rf_counts_size(ParallelContext *pcxt)
{
	return add_size(offsetof(RuntimeShared, workers),
	                mul_size(pcxt->nworkers, sizeof(RuntimeCounts)));
}

void
bloom_rf_counts_init(RuntimeParallel *par, ParallelContext *pcxt, void *coordinate)
{
	RuntimeShared *shared = coordinate;

	memset(shared, 0, bloom_rf_counts_size(pcxt));
	shared->nworkers = pcxt->nworkers;
	par->shared = shared;
}

Size
bloom_rf_counts_attached_size(const RuntimeParallel *par)
{
	Assert(par->shared != NULL);
	return offsetof(RuntimeShared, workers) + par->shared->nworkers * sizeof(RuntimeCounts);
}

void
bloom_rf_counts_attach(RuntimeParallel *par, void *coordinate)
{
	par->shared = coordinate;
}

void
bloom_rf_counts_shutdown(RuntimeParallel *par, const RuntimeCounts *mine)
{
	RuntimeShared *shared = par->shared;

	if (shared == NULL)
		return;
	if (IsParallelWorker())
	{
		Assert(ParallelWorkerNumber >= 0);
		if (ParallelWorkerNumber < shared->nworkers)
			shared->workers[ParallelWorkerNumber] = *mine;
	}
	else
	{
		/* a rescan of Gather runs the workers again: keep the last run's */
		if (par->workers == NULL || par->nworkers != shared->nworkers)
			par->workers = palloc(shared->nworkers * sizeof(RuntimeCounts)); /* query's context */
		memcpy(par->workers, shared->workers, shared->nworkers * sizeof(RuntimeCounts));
		par->nworkers = shared->nworkers;
	}
	par->shared = NULL;
}

void
bloom_rf_counts_sum(const RuntimeParallel *par, RuntimeCounts *sum)
{
	for (int i = 0; i < par->nworkers; i++)
	{
		const RuntimeCounts *w = &par->workers[i];

		sum->probed += w->probed;
		sum->removed += w->removed;
		sum->skipped += w->skipped;
		sum->pauses += w->pauses;
		sum->unready += w->unready;
		sum->in_cache_kb = Max(sum->in_cache_kb, w->in_cache_kb);
		sum->build.builds += w->build.builds;
		sum->build.keys += w->build.keys;
		sum->build.scans_checked += w->build.scans_checked;
		sum->build.scans_skipped += w->build.scans_skipped;
		sum->scans_checked += w->scans_checked;
		sum->scans_skipped += w->scans_skipped;
	}
}

const RuntimeCounts *
bloom_rf_counts_build(const RuntimeParallel *par, const RuntimeCounts *mine)
{
	if (mine->build.ready)
		return mine;
	for (int i = 0; i < par->nworkers; i++)
		if (par->workers[i].build.ready)
			return &par->workers[i];
	return mine;
}

void
bloom_rf_scan_counts_add(RuntimeScanCounts *sum, const RuntimeScanCounts *c)
{
	sum->scans += c->scans;
	for (int o = 0; o < OUTCOMES; o++)
		sum->outcomes[o] += c->outcomes[o];
	for (int w = 0; w < BRIN_CHOICES; w++)
		sum->brin_whole[w] += c->brin_whole[w];
	for (int w = 0; w < KEYSCAN_CHOICES; w++)
		sum->btree_whole[w] += c->btree_whole[w];
	sum->blocks_read += c->blocks_read;
	sum->blocks += c->blocks;
	sum->btree_keys += c->btree_keys;
	sum->partitions_checked += c->partitions_checked;
	sum->partitions_skipped += c->partitions_skipped;
	sum->claims += c->claims;
	sum->followed += c->followed;
}

/*
 * Where explain_counts puts its figures: EXPLAIN's properties, or, for one
 * worker in the text format, one line ("Worker 0:  Heap Blocks Read: ..."),
 * as PostgreSQL prints its per-worker figures.
 */
typedef struct ScanExplainOut
{
	ExplainState *es;
	StringInfo line; /* the worker's line, or NULL: properties */
} ScanExplainOut;

static void
put(ScanExplainOut *out, const char *label, const char *value)
{
	if (out->line != NULL)
		appendStringInfo(out->line, "  %s: %s", label, value);
	else
		ExplainPropertyText(label, value, out->es);
}

/* What one process's (or every process's) scans read, for EXPLAIN ANALYZE. */
static void
explain_counts(const RuntimeScanPrivate *plan, const RuntimeScanCounts *c, ScanExplainOut *out)
{
	const char *whole[1 + BRIN_CHOICES + KEYSCAN_CHOICES];
	uint64 counts[1 + BRIN_CHOICES + KEYSCAN_CHOICES];
	int n = 0;

	if (c->partitions_checked > 0)
		put(out, "Partition Scans Skipped",
		    psprintf(UINT64_FORMAT " of " UINT64_FORMAT, c->partitions_skipped,
		             c->partitions_checked));
	if (c->outcomes[OUT_BY_BTREE] > 0)
		put(out, "Read Through B-tree",
		    c->scans > 1
		        ? psprintf(UINT64_FORMAT " keys (" UINT64_FORMAT " of " UINT64_FORMAT " scans)",
		                   c->btree_keys, c->outcomes[OUT_BY_BTREE], c->scans)
		        : psprintf(UINT64_FORMAT " keys", c->btree_keys));
	if (!OidIsValid(plan->brin_index) && !OidIsValid(plan->btree_index))
		return;
	if (c->blocks > 0)
		put(out, "Heap Blocks Read",
		    psprintf(UINT64_FORMAT " of " UINT64_FORMAT, c->blocks_read, c->blocks));
	/* why the whole table was read: not built, then the BRIN room's reasons, the B-tree's */
	whole[n] = "the filter was not built";
	counts[n++] = c->outcomes[OUT_NOT_BUILT];
	for (int w = BRIN_READ_RUNS + 1; w < BRIN_CHOICES; w++)
	{
		whole[n] = bloom_rf_brin_why((RuntimeBrinChoice) w);
		counts[n++] = c->brin_whole[w];
	}
	for (int w = KEYSCAN_READ + 1; w < KEYSCAN_CHOICES; w++)
	{
		whole[n] = bloom_rf_keyscan_why((RuntimeKeyScanChoice) w);
		counts[n++] = c->btree_whole[w];
	}
	for (int w = 0; w < n; w++)
		if (counts[w] > 0)
			put(out, "Whole Table Read",
			    c->scans > 1 ? psprintf("%s (" UINT64_FORMAT " of " UINT64_FORMAT " scans)",
			                            whole[w], counts[w], c->scans)
			                 : whole[w]);
	if (out->line != NULL)
		put(out, "Claimed", psprintf(UINT64_FORMAT, c->claims));
	if (c->followed > 0)
		put(out, "Read As Decided Elsewhere",
		    psprintf(UINT64_FORMAT " of " UINT64_FORMAT " scans", c->followed, c->scans));
}

void
bloom_rf_scan_counts_explain(const RuntimeScanPrivate *plan, const RuntimeScanCounts *leader,
                             const RuntimeScanCounts *workers, int nworkers, ExplainState *es)
{
	RuntimeScanCounts all = *leader;
	ScanExplainOut out = {es, NULL};

	for (int w = 0; w < nworkers; w++)
		bloom_rf_scan_counts_add(&all, &workers[w]);
	/* (a partition a Parallel Append never handed out was decided, not started) */
	if (all.scans == 0 && all.partitions_checked == 0)
		return;
	explain_counts(plan, &all, &out);
	if (!es->verbose || nworkers == 0)
		return;
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainOpenGroup("Runtime Filter Workers", "Runtime Filter Workers", false, es);
	for (int w = 0; w < nworkers; w++)
	{
		if (workers[w].scans == 0 && workers[w].partitions_checked == 0)
			continue; /* neither started nor decided */
		if (es->format == EXPLAIN_FORMAT_TEXT)
		{
			StringInfoData line;

			initStringInfo(&line);
			out.line = &line;
			explain_counts(plan, &workers[w], &out);
			appendStringInfoSpaces(es->str, es->indent * 2);
			appendStringInfo(es->str, "Worker %d:%s\n", w, line.data);
			pfree(line.data);
			continue;
		}
		ExplainOpenGroup("Worker", NULL, true, es);
		ExplainPropertyInteger("Worker Number", NULL, w, es);
		explain_counts(plan, &workers[w], &out);
		ExplainCloseGroup("Worker", NULL, true, es);
	}
	if (es->format != EXPLAIN_FORMAT_TEXT)
		ExplainCloseGroup("Runtime Filter Workers", "Runtime Filter Workers", false, es);
}
