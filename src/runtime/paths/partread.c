/*
 * partread.c
 *	  What of a partitioned outer side the inner side's keys let be read,
 *	  at plan time: the partitions the runtime's skip test
 *	  (skip/partitions.c) is expected to leave, and their cost.
 *
 * The table is partitioned on one column, the join column, by range or by
 * list.  With bounds on the keys (keyrange.c), a range partition is kept
 * where its bounds meet them, a list partition where one of its values
 * lies within them, the default partition where a range's gaps meet them
 * (a list's default always); without bounds, no more partitions than keys
 * are kept, the costliest.  At least one partition is kept.  The cost is
 * the kept partitions' paths and the Append's share of their rows, as
 * PostgreSQL's costs an Append: the runtime reads nothing else of a
 * skipped partition.  Hash partitions, several partition columns and
 * sub-partitions keyed elsewhere give no estimate (the join is planned as
 * PostgreSQL plans it, and its filter still skips what it can).
 */
#include "paths.h"

#include <math.h>

#include "access/nbtree.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "partitioning/partbounds.h"
#include "utils/lsyscache.h"

/* the cost of an Append per row it passes, as a share of cpu_tuple_cost (costsize.c's) */
#define APPEND_ROW_SHARE 0.5

static bool segment_meets(FmgrInfo *cmp, Oid collation, const RuntimeKeyRange *range,
                          PartitionBoundInfo bi, int i);
static int subpath_partition(RelOptInfo *outerrel, Path *subpath);

bool
bloom_rf_partition_read(PlannerInfo *root, RelOptInfo *outerrel, Path *outer,
                        const RuntimeKeyRange *range, Oid keytype, Oid family, Oid collation,
                        RuntimePlannedSkip *planned)
{
	PartitionScheme scheme = outerrel->part_scheme;
	PartitionBoundInfo bi = outerrel->boundinfo;
	AppendPath *append;
	bool *kept;
	int nlive, nkept = 0;
	double cost = 0, rows = 0;
	ListCell *lc;
	Oid cmp_proc;
	FmgrInfo cmp;

	(void) root;
	if (!IsA(outer, AppendPath) || scheme == NULL || bi == NULL || scheme->partnatts != 1 ||
	    (scheme->strategy != PARTITION_STRATEGY_RANGE &&
	     scheme->strategy != PARTITION_STRATEGY_LIST))
		return false;
	append = (AppendPath *) outer;
	nlive = list_length(append->subpaths);
	if (nlive < 2)
		return false;
	kept = palloc0(outerrel->nparts * sizeof(bool));
	if (range->has_lo || range->has_hi)
	{
		cmp_proc = get_opfamily_proc(family, keytype, scheme->partopcintype[0], BTORDER_PROC);
		if (!OidIsValid(cmp_proc))
			return false;
		fmgr_info(cmp_proc, &cmp);
		if (scheme->strategy == PARTITION_STRATEGY_RANGE)
		{
			/* segment i holds [datums[i - 1], datums[i]): partition indexes[i], or none */
			for (int i = 0; i <= bi->ndatums; i++)
				if (segment_meets(&cmp, collation, range, bi, i))
				{
					if (bi->indexes[i] >= 0)
						kept[bi->indexes[i]] = true;
					else if (bi->default_index >= 0)
						kept[bi->default_index] = true;
				}
		}
		else
		{
			for (int i = 0; i < bi->ndatums; i++)
			{
				Datum v = bi->datums[i][0];

				if ((!range->has_lo ||
				     DatumGetInt32(FunctionCall2Coll(&cmp, collation, range->lo, v)) <= 0) &&
				    (!range->has_hi ||
				     DatumGetInt32(FunctionCall2Coll(&cmp, collation, range->hi, v)) >= 0))
					kept[bi->indexes[i]] = true;
			}
			if (bi->default_index >= 0)
				kept[bi->default_index] = true;
		}
		foreach (lc, append->subpaths)
		{
			Path *sub = lfirst(lc);
			int p = subpath_partition(outerrel, sub);

			if (p < 0 || kept[p])
			{
				/* a subpath not known as a partition counts as read */
				cost += sub->total_cost;
				rows += sub->rows;
				nkept++;
			}
		}
	}
	else
	{
		/* no bounds: no more partitions than keys, the costliest of them */
		int limit = (int) Min((double) nlive, ceil(range->keys));
		double *costs = palloc(nlive * sizeof(double));
		double *nrows = palloc(nlive * sizeof(double));
		int n = 0;

		if (limit >= nlive)
			return false;
		foreach (lc, append->subpaths)
		{
			costs[n] = ((Path *) lfirst(lc))->total_cost;
			nrows[n++] = ((Path *) lfirst(lc))->rows;
		}
		for (int k = 0; k < limit; k++)
		{
			int best = 0;

			for (int j = 1; j < n; j++)
				if (costs[j] > costs[best])
					best = j;
			cost += costs[best];
			rows += nrows[best];
			costs[best] = -1;
			nkept++;
		}
	}
	nkept = Max(nkept, 1);
	planned->kind = PLANNED_PARTITIONS;
	planned->scans_read = nkept;
	planned->scans = nlive;
	planned->rows = Max(rows, 1.0);
	planned->cost = outer->startup_cost + cost + APPEND_ROW_SHARE * cpu_tuple_cost * rows;
	planned->cost_whole = outer->total_cost;
	return nkept < nlive;
}

/* Whether segment i of range bounds bi ([datums[i - 1], datums[i])) meets range. */
static bool
segment_meets(FmgrInfo *cmp, Oid collation, const RuntimeKeyRange *range, PartitionBoundInfo bi,
              int i)
{
	bool lower_open = i == 0 || bi->kind[i - 1][0] == PARTITION_RANGE_DATUM_MINVALUE;
	bool upper_open = i == bi->ndatums || bi->kind[i][0] == PARTITION_RANGE_DATUM_MAXVALUE;

	/* hi >= lower bound, and lo < upper bound */
	if (!lower_open && range->has_hi &&
	    DatumGetInt32(FunctionCall2Coll(cmp, collation, range->hi, bi->datums[i - 1][0])) < 0)
		return false;
	if (!upper_open && range->has_lo &&
	    DatumGetInt32(FunctionCall2Coll(cmp, collation, range->lo, bi->datums[i][0])) >= 0)
		return false;
	return true;
}

/* The partition (its index in outerrel's bounds) a subpath of its Append scans, or -1. */
static int
subpath_partition(RelOptInfo *outerrel, Path *subpath)
{
	for (int p = 0; p < outerrel->nparts; p++)
		if (outerrel->part_rels[p] == subpath->parent)
			return p;
	return -1;
}
