/*
 * counts.c
 *	  Counts of runtime filter nodes across the processes of a parallel plan,
 *	  for EXPLAIN ANALYZE (exec.h, RuntimeParallel).
 *
 * Each process builds and probes its own filter (a join that is not
 * parallel-aware builds its whole hash table in every process), so nothing
 * but counts is shared.  The shared memory holds one RuntimeCounts per
 * planned worker.
 */
#include "exec.h"

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
