/*
 * partread.c
 *	  What of a partitioned outer side the inner side's keys let be read,
 *	  at plan time: the partitions the runtime's skip test
 *	  (skip/partitions.c) is expected to leave, and their cost.
 *
 * The table is partitioned on one column, the join column.  With the keys
 * read at plan time (keyprobe.c), a range partition is kept where one lies
 * within its bounds, a list partition where one is listed, the default
 * partition always (keys beyond the others' bounds were not read); with bounds on
 * the keys (keyrange.c), a range partition is kept where its bounds meet
 * them, a list partition where one of its values lies within them, the
 * default partition where a range's gaps meet them (a list's default
 * always); without bounds, no more partitions than keys are kept, the
 * costliest.  Hash partitions: as many as k keys hashed at random fill,
 * while the runtime keeps every distinct key.  At least one partition is
 * kept, and a foreign partition whose FDW may scan it asynchronously is
 * always read.  The cost is PostgreSQL's cost of the Append, in the share
 * of its children's cost that the kept partitions have: the runtime reads
 * nothing of a skipped partition.  Several partition columns give no
 * estimate (the join is planned as PostgreSQL plans it, and its filter
 * still skips what it can); with bounds, a sub-partition's scan counts as
 * read, and without, sub-partitions give no estimate.
 */
#include "paths.h"
#include "../filter/filter.h"

#include <float.h>
#include <math.h>

#include "access/nbtree.h"
#include "foreign/fdwapi.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "partitioning/partbounds.h"
#include "utils/lsyscache.h"

static bool segment_meets(FmgrInfo *cmp, Oid collation, const RuntimeKeyRange *range,
                          PartitionBoundInfo bi, int i);
static int subpath_partition(RelOptInfo *outerrel, Path *subpath);
static bool runs_async(Path *sub);
static bool sub_partitioned(RelOptInfo *outerrel, AppendPath *append);
static bool priced(AppendPath *append, Path *outer, int nkept, double cost, double rows,
                   RuntimePlannedSkip *planned);
static bool costliest(AppendPath *append, int limit, Path *outer, RuntimePlannedSkip *planned);

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
	if (!IsA(outer, AppendPath) || scheme == NULL || bi == NULL || scheme->partnatts != 1)
		return false;
	append = (AppendPath *) outer;
	nlive = list_length(append->subpaths);
	if (nlive < 2)
		return false;
	kept = palloc0(outerrel->nparts * sizeof(bool));
	if (scheme->strategy == PARTITION_STRATEGY_HASH)
	{
		/*
		 * Each key hashes to one partition, at random as far as the planner
		 * knows: k keys leave n (1 - (1 - 1/n)^k) of n partitions, the
		 * costliest of them; the runtime decides only while it keeps every
		 * distinct key (BLOOM_RF_EXACT_MAX of them).
		 */
		double n = outerrel->nparts;
		double k = range->keys;

		if (k > BLOOM_RF_EXACT_MAX || n < 2 || sub_partitioned(outerrel, append))
			return false;
		return costliest(append, (int) ceil(Min((double) nlive, n * (1 - pow(1 - 1 / n, k)))),
		                 outer, planned);
	}
	if (range->probed || range->has_lo || range->has_hi)
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

				if (range->probed)
				{
					if (bloom_rf_sorted_between(&cmp, collation, range->values, range->nvalues, &v,
					                            &v, true))
						kept[bi->indexes[i]] = true;
				}
				else if ((!range->has_lo ||
				          DatumGetInt32(FunctionCall2Coll(&cmp, collation, range->lo, v)) <= 0) &&
				         (!range->has_hi ||
				          DatumGetInt32(FunctionCall2Coll(&cmp, collation, range->hi, v)) >= 0))
					kept[bi->indexes[i]] = true;
			}
			if (bi->default_index >= 0)
				kept[bi->default_index] = true;
		}
		if (range->probed_default)
			kept[bi->default_index] = true;
		foreach (lc, append->subpaths)
		{
			Path *sub = lfirst(lc);
			int p = subpath_partition(outerrel, sub);

			/*
			 * a subpath not known as a partition counts as read, and so does
			 * a foreign scan that may run asynchronously (placement.c puts no
			 * probe on such a child of an Append: it is never skipped)
			 */
			if (p < 0 || kept[p] || runs_async(sub))
			{
				cost += sub->total_cost;
				rows += sub->rows;
				nkept++;
			}
		}
	}
	else
	{
		/* no bounds: no more partitions than keys, the costliest of them */
		if (sub_partitioned(outerrel, append))
			return false; /* (a key selects a partition, not one of its sub-partitions) */
		return costliest(append, (int) Min((double) nlive, ceil(range->keys)), outer, planned);
	}
	return priced(append, outer, nkept, cost, rows, planned);
}

/*
 * *planned: nkept of the Append's partitions read, their paths costing cost.
 * The Append's own cost (a Parallel Append's too) is PostgreSQL's, shrunk
 * to the share of its children's cost that is read; its rows likewise.
 */
static bool
priced(AppendPath *append, Path *outer, int nkept, double cost, double rows,
       RuntimePlannedSkip *planned)
{
	int nlive = list_length(append->subpaths);
	double all = 0, share;
	ListCell *lc;

	foreach (lc, append->subpaths)
		all += ((Path *) lfirst(lc))->total_cost;
	share = all > 0 ? Min(1.0, cost / all) : 1.0;
	nkept = Max(nkept, 1);
	planned->kind = PLANNED_PARTITIONS;
	planned->scans_read = nkept;
	planned->scans = nlive;
	planned->rows = Max(rows, 1.0);
	planned->cost = outer->startup_cost + (outer->total_cost - outer->startup_cost) * share;
	planned->cost_whole = outer->total_cost;
	return nkept < nlive;
}

/* *planned: the costliest `limit` of the Append's partitions read. */
static bool
costliest(AppendPath *append, int limit, Path *outer, RuntimePlannedSkip *planned)
{
	int n = list_length(append->subpaths);
	double *costs = palloc(n * sizeof(double));
	double *nrows = palloc(n * sizeof(double));
	double cost = 0, rows = 0;
	ListCell *lc;

	if (limit >= n)
		return false;
	foreach (lc, append->subpaths)
	{
		Path *sub = lfirst(lc);

		/* a foreign scan that may run asynchronously is never skipped: read first */
		costs[foreach_current_index(lc)] = runs_async(sub) ? DBL_MAX : sub->total_cost;
		nrows[foreach_current_index(lc)] = sub->rows;
	}
	for (int k = 0; k < limit; k++)
	{
		int best = 0;

		for (int j = 1; j < n; j++)
			if (costs[j] > costs[best])
				best = j;
		cost += costs[best] == DBL_MAX ? ((Path *) list_nth(append->subpaths, best))->total_cost
		                               : costs[best];
		rows += nrows[best];
		costs[best] = -1;
	}
	/* asynchronous foreign scans past the limit are read all the same */
	for (int j = 0; j < n; j++)
		if (costs[j] == DBL_MAX)
		{
			cost += ((Path *) list_nth(append->subpaths, j))->total_cost;
			rows += nrows[j];
			limit++;
		}
	return priced(append, outer, limit, cost, rows, planned);
}

/* Whether segment i of range bounds bi ([datums[i - 1], datums[i])) meets range. */
static bool
segment_meets(FmgrInfo *cmp, Oid collation, const RuntimeKeyRange *range, PartitionBoundInfo bi,
              int i)
{
	PartitionRangeDatumKind lower = i == 0 ? PARTITION_RANGE_DATUM_MINVALUE : bi->kind[i - 1][0];
	PartitionRangeDatumKind upper =
	    i == bi->ndatums ? PARTITION_RANGE_DATUM_MAXVALUE : bi->kind[i][0];
	bool lower_open = lower == PARTITION_RANGE_DATUM_MINVALUE;
	bool upper_open = upper == PARTITION_RANGE_DATUM_MAXVALUE;

	/*
	 * An infinite bound has no datum (PostgreSQL copies only finite ones):
	 * below MINVALUE and from MAXVALUE on nothing lies.
	 */
	if (upper == PARTITION_RANGE_DATUM_MINVALUE || lower == PARTITION_RANGE_DATUM_MAXVALUE)
		return false;

	if (range->probed)
		return bloom_rf_sorted_between(cmp, collation, range->values, range->nvalues,
		                               lower_open ? NULL : &bi->datums[i - 1][0],
		                               upper_open ? NULL : &bi->datums[i][0], false);
	/* hi >= lower bound, and lo < upper bound */
	if (!lower_open && range->has_hi &&
	    DatumGetInt32(FunctionCall2Coll(cmp, collation, range->hi, bi->datums[i - 1][0])) < 0)
		return false;
	if (!upper_open && range->has_lo &&
	    DatumGetInt32(FunctionCall2Coll(cmp, collation, range->lo, bi->datums[i][0])) >= 0)
		return false;
	return true;
}

/*
 * Whether an Append's child may be a foreign scan run asynchronously, which
 * placement.c leaves alone: a foreign path whose FDW says it can, while
 * asynchronous Appends are allowed.
 */
static bool
runs_async(Path *sub)
{
	FdwRoutine *fdw = sub->parent->fdwroutine;

	return IsA(sub, ForeignPath) && enable_async_append && fdw != NULL &&
	       fdw->IsForeignPathAsyncCapable != NULL &&
	       fdw->IsForeignPathAsyncCapable((ForeignPath *) sub);
}

/* Whether some child of the Append scans less than one of outerrel's partitions. */
static bool
sub_partitioned(RelOptInfo *outerrel, AppendPath *append)
{
	ListCell *lc;

	foreach (lc, append->subpaths)
		if (subpath_partition(outerrel, lfirst(lc)) < 0)
			return true;
	return false;
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
