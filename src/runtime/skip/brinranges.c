/*
 * brinranges.c
 *	  The block ranges of a table that a BRIN index says may hold a key of
 *	  the build: what a BloomFilterScan reads instead of the whole table
 *	  (exec/scan.c).
 *
 * The planner (plan/scantarget.c) chose a BRIN index on a key column itself,
 * with the join's semantics (the join operator in the index column's
 * operator family; the join's collation the index's or deterministic).  At
 * each build the index is asked which block ranges may hold a built key:
 * one bitmap scan of the index per distinct key (the index's "=" as a scan
 * key; per run of consecutive integer keys, ">=" its first and "<=" its
 * last, where the index has them), or, past BLOOM_RF_EXACT_MAX distinct
 * keys or when that would test more than MAX_SUMMARY_TESTS summaries, one
 * per stretch of an integer key's values (filter/values.c), or one with the
 * keys' least and greatest values (">=" and "<=", a minmax index only).
 * The index itself
 * answers: BRIN's consistent functions, its unsummarized ranges (always
 * returned, so always read) and its view of the table's length.  The keys
 * are asked one at a time, and as soon as more than half of the table's
 * ranges may hold one the rest are not asked.  The ranges are handed back
 * as runs of consecutive blocks, which the scan reads with TID range scans.
 *
 * The whole table is read instead when it is no larger than two block
 * ranges, when the index cannot test the keys (or is being dropped), or
 * when more than half of its blocks may hold a key (reading ranges in
 * pieces would then gain little).
 */
#include "skip.h"

#include "access/brin.h"
#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "miscadmin.h"
#include "nodes/tidbitmap.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

/* summaries tested by one decision at most (keys times ranges), before falling back to min/max */
#define MAX_SUMMARY_TESTS 1000000
/* read the whole table when more than this fraction of its block ranges may hold a key */
#define MAX_FRACTION_READ 0.5

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
 * The index's ">=" and "<=" (*ge, *le) between the column and the keys'
 * type, which test a stretch of keys [least, greatest]: where the index
 * (family, collation) orders values as the build did (k's B-tree family,
 * under its collation) and opno is its "=".
 */
static bool
stretch_operators(Oid opno, Oid family, Oid collation, const RuntimeKeyValues *k, Oid *ge, Oid *le)
{
	Oid left, right;

	op_input_types(opno, &left, &right);
	*ge = get_opfamily_member(family, left, right, BTGreaterEqualStrategyNumber);
	*le = get_opfamily_member(family, left, right, BTLessEqualStrategyNumber);
	return get_op_opfamily_strategy(opno, family) == BTEqualStrategyNumber && OidIsValid(*ge) &&
	       OidIsValid(*le) && op_in_opfamily(*ge, k->family) && op_in_opfamily(*le, k->family) &&
	       (!OidIsValid(collation) || collation == k->collation);
}

RuntimeBrinChoice
bloom_rf_brin_decide(Relation rel, Oid index_oid, AttrNumber column, Oid opno,
                     const RuntimeKeyValues *k, Snapshot snapshot, MemoryContext memory,
                     RuntimeBlockRuns *runs)
{
	BlockNumber nblocks = RelationGetNumberOfBlocks(rel);
	Relation index;
	BlockNumber per_range, nranges;
	Oid family, collation;
	bool *selected;
	BlockNumber nselected = 0;
	BlockNumber most;
	RuntimeBrinChoice why = BRIN_READ_RUNS;
	MemoryContext old;
	Oid ge, le;
	ScanKeyData keys[2];

	runs->nruns = 0;
	index = index_open(index_oid, AccessShareLock);
	if (!index->rd_index->indisvalid || !index->rd_index->indisready)
	{
		/* being dropped since the plan was made: its summaries may fall behind */
		index_close(index, AccessShareLock);
		return BRIN_UNTESTABLE;
	}
	per_range = BrinGetPagesPerRange(index);
	runs->per_range = per_range;
	nranges = (nblocks + per_range - 1) / per_range;
	if (nranges <= 2)
	{
		index_close(index, AccessShareLock);
		return BRIN_SMALL;
	}
	/* past this many ranges (half the table), the whole table is read */
	most = (BlockNumber) (MAX_FRACTION_READ * nranges);
	family = index->rd_opfamily[column - 1];
	collation = index->rd_indcollation[column - 1];
	selected = palloc0(nranges * sizeof(bool));
	if (!OidIsValid(k->family))
		why = BRIN_UNTESTABLE; /* the key's values were not kept (no order for them) */
	else if (!k->any)
		; /* no key: no block */
	else if (!k->overflow && (double) k->nexact * nranges <= MAX_SUMMARY_TESTS)
	{
		bool runs_testable = stretch_operators(opno, family, collation, k, &ge, &le);

		/* each distinct key's ranges, until most of the table is needed */
		for (int e = 0; e < k->nexact && nselected <= most; e++)
		{
			int last = runs_testable ? bloom_rf_values_run_end(k, e) : e;

			if (last > e)
			{
				/*
				 * A run of consecutive integers, every one a key (a month of a
				 * date dimension): one scan of [first, last] marks every range
				 * that one scan per key would (a summary holding a key meets
				 * the run), and where the column holds integers no other (a
				 * summary's least and greatest, or each of its intervals,
				 * meeting the run then hold an integer of it).  A year's keys
				 * are then one index scan, not 366.
				 */
				scan_key(&keys[0], column, ge, family, collation, k->exact[e]);
				scan_key(&keys[1], column, le, family, collation, k->exact[last]);
				nselected += index_ranges(index, snapshot, keys, 2, per_range, nblocks, selected,
				                          nselected, most);
				e = last;
			}
			else
			{
				scan_key(&keys[0], column, opno, family, collation, k->exact[e]);
				nselected += index_ranges(index, snapshot, keys, 1, per_range, nblocks, selected,
				                          nselected, most);
			}
			CHECK_FOR_INTERRUPTS();
		}
	}
	else if (!stretch_operators(opno, family, collation, k, &ge, &le))
		why = BRIN_UNTESTABLE;
	else if (k->stretched && (double) k->stretches.n * nranges <= MAX_SUMMARY_TESTS)
	{
		/* each stretch's ranges: [its least, its greatest] */
		for (int j = 0; j < k->stretches.n && nselected <= most; j++)
		{
			Datum lo, hi;

			bloom_rf_values_stretch(k, j, &lo, &hi);
			scan_key(&keys[0], column, ge, family, collation, lo);
			scan_key(&keys[1], column, le, family, collation, hi);
			nselected += index_ranges(index, snapshot, keys, 2, per_range, nblocks, selected,
			                          nselected, most);
			CHECK_FOR_INTERRUPTS();
		}
	}
	else
	{
		/* the ranges that meet [least, greatest] */
		scan_key(&keys[0], column, ge, family, collation, k->min);
		scan_key(&keys[1], column, le, family, collation, k->max);
		nselected = index_ranges(index, snapshot, keys, 2, per_range, nblocks, selected, 0, most);
	}
	index_close(index, AccessShareLock);
	if (why == BRIN_READ_RUNS && nselected > most)
		why = BRIN_MOST;
	if (why != BRIN_READ_RUNS)
	{
		pfree(selected);
		return why;
	}

	/* the selected ranges, as runs of consecutive blocks, in the scan's memory */
	old = MemoryContextSwitchTo(memory);
	if (runs->starts == NULL)
	{
		runs->capacity = 16;
		runs->starts = palloc(sizeof(BlockNumber) * runs->capacity);
		runs->ends = palloc(sizeof(BlockNumber) * runs->capacity);
	}
	for (BlockNumber r = 0; r < nranges; r++)
	{
		BlockNumber first = r * per_range;
		BlockNumber last = Min(first + per_range, nblocks) - 1;

		if (!selected[r])
			continue;
		if (runs->nruns > 0 && runs->ends[runs->nruns - 1] + 1 == first)
		{
			runs->ends[runs->nruns - 1] = last;
			continue;
		}
		if (runs->nruns == runs->capacity)
		{
			runs->capacity *= 2;
			runs->starts = repalloc(runs->starts, runs->capacity * sizeof(BlockNumber));
			runs->ends = repalloc(runs->ends, runs->capacity * sizeof(BlockNumber));
		}
		runs->starts[runs->nruns] = first;
		runs->ends[runs->nruns] = last;
		runs->nruns++;
	}
	MemoryContextSwitchTo(old);
	pfree(selected);
	return BRIN_READ_RUNS;
}

const char *
bloom_rf_brin_why(RuntimeBrinChoice choice)
{
	switch (choice)
	{
		case BRIN_READ_RUNS:
			return "";
		case BRIN_SMALL:
			return "the table is small";
		case BRIN_UNTESTABLE:
			return "the index cannot test the keys";
		case BRIN_MOST:
			return "most block ranges may hold a key";
		case BRIN_CHOICES:
			break;
	}
	pg_unreachable();
}
