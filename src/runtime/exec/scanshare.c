/*
 * scanshare.c
 *	  What the processes of a parallel BloomFilterScan share: how they read
 *	  the table, what each claims of it, and their counts for EXPLAIN.
 *
 * A BloomFilterScan in place of a Parallel Seq Scan (plan/scantarget.c) is
 * run by every process of its Gather, each with its own build of the
 * join's filter (the join above is not parallel-aware: each process hashes
 * the whole inner side).  Every row of the table must be read by exactly
 * one of them, or by none where that process's keys cannot match it (the
 * join would throw it away there).  So:
 *	 - how the table is read (whole, by block ranges, or by keys through a
 *	   B-tree) is decided once, by the first process to start that does not
 *	   skip the scan, and the others follow (two ways at once would read
 *	   rows twice);
 *	 - whole, it is PostgreSQL's own parallel heap scan (its state here);
 *	 - by block ranges, the processes claim the BRIN index's ranges one by
 *	   one from a shared counter, up to the decider's table length (a tuple
 *	   the snapshot sees is in a block that existed when the decider looked:
 *	   the table grew before the inserting transaction committed).  Each
 *	   reads a range it claims unless its own build's keys rule the range
 *	   out: a row is thus read by one process, or by none whose keys could
 *	   match it;
 *	 - by keys, they claim buckets of keys (a key's bucket is its own hash,
 *	   the join's hash function, modulo the decider's number of buckets, the
 *	   same in every process for equal keys) and look up the keys of their
 *	   build that fall in it.  Only where the index's equality is the join's
 *	   (a deterministic index collation, or the join's own): keys the join
 *	   tells apart but a coarser index collation equates would fall in two
 *	   buckets, and their rows be read twice.  A process whose build cannot
 *	   look keys up (not built when it started, too many keys) claims
 *	   nothing, and the others read its share: every process's build is the
 *	   same inner side.
 * A process that skips the scan (a partition whose bounds hold no built
 * key) claims nothing either.
 *
 * Each worker adds its counts to its slot at shutdown (the slots sum the
 * runs of a Gather run again, whose workers are new processes each time);
 * the leader copies them before Gather releases the memory.
 */
#include "exec.h"

#include "access/tableam.h"
#include "port/atomics.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "storage/spin.h"

struct RuntimeScanShared
{
	slock_t mutex;
	RuntimeScanKind kind;  /* SCAN_KIND_UNDECIDED until the first process decides */
	BlockNumber nblocks;   /* SCAN_KIND_RANGES: the table's length when decided */
	BlockNumber per_range; /* and the blocks of a range */
	uint32 nbuckets;       /* SCAN_KIND_KEYS: buckets of keys */
	pg_atomic_uint32 next; /* the next range or bucket to claim */
	int nworkers;          /* planned: entries of workers[] */
	Size heap_offset;      /* where the parallel heap scan is, from the start */
	RuntimeScanCounts workers[FLEXIBLE_ARRAY_MEMBER];
};

static ParallelTableScanDesc heap_scan(RuntimeScanShared *sh);

/* The bytes before the parallel heap scan's. */
static Size
head_size(int nworkers)
{
	return MAXALIGN(add_size(offsetof(RuntimeScanShared, workers),
	                         mul_size(nworkers, sizeof(RuntimeScanCounts))));
}

Size
bloom_rf_scanshare_size(Relation rel, Snapshot snapshot, ParallelContext *pcxt)
{
	return add_size(head_size(pcxt->nworkers), table_parallelscan_estimate(rel, snapshot));
}

/* Undecided, nothing claimed (the workers' counts go on summing). */
static void
undecided(RuntimeScanShared *sh)
{
	sh->kind = SCAN_KIND_UNDECIDED;
	sh->nblocks = 0;
	sh->per_range = 0;
	sh->nbuckets = 0;
	pg_atomic_write_u32(&sh->next, 0);
}

RuntimeScanShared *
bloom_rf_scanshare_init(void *coordinate, Relation rel, Snapshot snapshot, ParallelContext *pcxt)
{
	RuntimeScanShared *sh = coordinate;

	SpinLockInit(&sh->mutex);
	pg_atomic_init_u32(&sh->next, 0);
	sh->nworkers = pcxt->nworkers;
	sh->heap_offset = head_size(pcxt->nworkers);
	memset(sh->workers, 0, sh->nworkers * sizeof(RuntimeScanCounts));
	undecided(sh);
	table_parallelscan_initialize(rel, heap_scan(sh), snapshot);
	return sh;
}

void
bloom_rf_scanshare_reinit(RuntimeScanShared *sh, Relation rel)
{
	undecided(sh);
	table_parallelscan_reinitialize(rel, heap_scan(sh));
}

RuntimeScanShared *
bloom_rf_scanshare_attach(void *coordinate)
{
	return coordinate;
}

/*
 * How the scan reads: mine, if no process has decided yet (then nblocks
 * and per_range, for SCAN_KIND_RANGES, and nbuckets, for SCAN_KIND_KEYS,
 * are kept as the decision's), else the decision taken.
 */
static RuntimeScanKind
agree(RuntimeScanShared *sh, RuntimeScanKind mine, BlockNumber nblocks, BlockNumber per_range,
      uint32 nbuckets)
{
	RuntimeScanKind kind;

	Assert(mine != SCAN_KIND_UNDECIDED);
	Assert(mine != SCAN_KIND_RANGES || per_range > 0);
	Assert(mine != SCAN_KIND_KEYS || nbuckets > 0);
	SpinLockAcquire(&sh->mutex);
	if (sh->kind == SCAN_KIND_UNDECIDED)
	{
		sh->kind = mine;
		sh->nblocks = nblocks;
		sh->per_range = per_range;
		sh->nbuckets = nbuckets;
	}
	kind = sh->kind;
	SpinLockRelease(&sh->mutex);
	return kind;
}

/* The decision's table length, blocks per range and buckets (after agreeing). */
static void
shape(const RuntimeScanShared *sh, BlockNumber *nblocks, BlockNumber *per_range, uint32 *nbuckets)
{
	/* written once, under the lock, before any process read the kind that asks for them */
	Assert(sh->kind != SCAN_KIND_UNDECIDED);
	*nblocks = sh->nblocks;
	*per_range = sh->per_range;
	*nbuckets = sh->nbuckets;
}

/*
 * Claim the next block range or bucket of keys: no two processes claim
 * the same; false when every one is claimed (of count).
 */
static bool
claim(RuntimeScanShared *sh, uint32 count, uint32 *claimed)
{
	/* (past count the counter only grows: count is at most a table's blocks, far below 2^32) */
	if (pg_atomic_read_u32(&sh->next) >= count)
		return false;
	*claimed = pg_atomic_fetch_add_u32(&sh->next, 1);
	return *claimed < count;
}

/* The parallel heap scan, for SCAN_KIND_WHOLE. */
static ParallelTableScanDesc
heap_scan(RuntimeScanShared *sh)
{
	return (ParallelTableScanDesc) ((char *) sh + sh->heap_offset);
}

/* buckets of keys a parallel read through a B-tree shares out, at most */
#define MAX_KEY_BUCKETS 64

/*
 * Start reading as the processes of a parallel scan agree: this one's way,
 * if it decides first, else the first one's.
 */
void
bloom_rf_scanshare_start(RuntimeScanReader *rd, Relation rel, Snapshot snapshot,
                         RuntimeScanOutcome why, const RuntimeKeyValues *k)
{
	RuntimeScanKind mine = SCAN_KIND_WHOLE;
	BlockNumber nblocks = 0, per_range = 0;
	uint32 nbuckets = 0;
	ItemPointerData from, to;

	Assert(rd->shared != NULL && why != OUT_SKIPPED);
	/* (fscan_decide reads through the B-tree only where the keys can be shared out) */
	if (why == OUT_BY_BTREE && k != NULL)
	{
		mine = SCAN_KIND_KEYS;
		nbuckets = Max(1, Min(k->nexact, MAX_KEY_BUCKETS));
	}
	else if (why == OUT_BY_RANGES)
	{
		Assert(rd->runs.per_range > 0);
		mine = SCAN_KIND_RANGES;
		nblocks = RelationGetNumberOfBlocks(rel);
		per_range = rd->runs.per_range;
	}
	rd->kind = agree(rd->shared, mine, nblocks, per_range, nbuckets);
	if (rd->kind != mine)
		rd->counts.followed++;
	rd->by_ranges = false;
	switch (rd->kind)
	{
		case SCAN_KIND_WHOLE:
			rd->scan = table_beginscan_parallel(rel, heap_scan(rd->shared));
			break;
		case SCAN_KIND_RANGES:
			/* every range claimed is read, unless this process's own runs leave it out */
			rd->read_all = mine != SCAN_KIND_RANGES;
			shape(rd->shared, &rd->par_blocks, &rd->per_range, &nbuckets);
			rd->nranges = (rd->par_blocks + rd->per_range - 1) / rd->per_range;
			rd->run = 0;
			rd->by_ranges = true;
			PredicateLockRelation(rel, snapshot);
			if (bloom_rf_scanshare_next_range(rd, &from, &to))
				rd->scan = table_beginscan_tidrange(rel, snapshot, &from, &to);
			break;
		case SCAN_KIND_KEYS:
			/*
			 * only a process whose build kept every key can look them up (the
			 * others' builds are the same: those that can read every bucket)
			 */
			shape(rd->shared, &nblocks, &per_range, &rd->nbuckets);
			if (why != OUT_NOT_BUILT && k != NULL && rd->btree.can_share &&
			    bloom_rf_scanshare_next_bucket(rd, k))
				bloom_rf_keyscan_begin(&rd->btree, rel, snapshot);
			break;
		case SCAN_KIND_UNDECIDED:
			pg_unreachable();
	}
}

/*
 * Claim block ranges until one this process reads: its blocks [*from, *to]
 * (the decider's length cuts the last); false when none is left.  Ranges
 * come in ascending order, so this process's runs are walked once.
 */
bool
bloom_rf_scanshare_next_range(RuntimeScanReader *rd, ItemPointer from, ItemPointer to)
{
	uint32 r;

	while (claim(rd->shared, rd->nranges, &r))
	{
		BlockNumber first = r * rd->per_range;
		BlockNumber last = Min(first + rd->per_range, rd->par_blocks) - 1;
		bool read = rd->read_all;

		rd->counts.claims++;
		rd->counts.blocks += last - first + 1;
		if (!read)
		{
			while (rd->run < rd->runs.nruns && rd->runs.ends[rd->run] < first)
				rd->run++;
			read = rd->run < rd->runs.nruns && rd->runs.starts[rd->run] <= first;
		}
		if (read)
		{
			rd->counts.blocks_read += last - first + 1;
			ItemPointerSet(from, first, FirstOffsetNumber);
			ItemPointerSet(to, last, MaxOffsetNumber);
			return true;
		}
		CHECK_FOR_INTERRUPTS();
	}
	return false;
}

bool
bloom_rf_scanshare_next_bucket(RuntimeScanReader *rd, const RuntimeKeyValues *k)
{
	uint32 b;

	while (claim(rd->shared, rd->nbuckets, &b))
	{
		rd->counts.claims++;
		if (bloom_rf_keyscan_bucket(&rd->btree, k, rd->nbuckets, b))
		{
			for (int e = 0; e < k->nexact; e++)
				if (k->hashes[e] % rd->nbuckets == b)
					rd->counts.btree_keys++;
			return true;
		}
	}
	return false;
}

void
bloom_rf_scanshare_counts(RuntimeScanShared *sh, const RuntimeScanCounts *mine,
                          RuntimeScanCounts **workers, int *nworkers)
{
	if (IsParallelWorker())
	{
		Assert(ParallelWorkerNumber >= 0);
		if (ParallelWorkerNumber < sh->nworkers)
			bloom_rf_scan_counts_add(&sh->workers[ParallelWorkerNumber], mine);
		return;
	}
	if (*workers == NULL || *nworkers != sh->nworkers)
		*workers = palloc(Max(1, sh->nworkers) * sizeof(RuntimeScanCounts));
	memcpy(*workers, sh->workers, sh->nworkers * sizeof(RuntimeScanCounts));
	*nworkers = sh->nworkers;
}
