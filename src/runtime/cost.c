/*
 * cost.c
 *	  The cost model of runtime filters: every estimate it reads, in one
 *	  place, as PostgreSQL's costsize.c owns every cost_* function.
 *
 * The formula itself is the core's (core/bf_runtime.h: bf_rf_worthwhile,
 * bf_rf_saved_per_removed, bf_rf_can_pay), in units of one filter probe and
 * free of PostgreSQL.  This file hands it the planner's raw estimates:
 *	 - outer rows, inner rows (every process's, for a shared hash table);
 *	 - the size of the hash table: inner rows times the tuple's width plus
 *	   HASH_ROW_OVERHEAD;
 *	 - the fraction of outer rows that find a match (estimate_pass);
 *	 - what removing an outer row saves, from the table's size;
 * and prices our nodes in the plan, and a filter again once its hash table
 * is built (the probe asks, with the table's real size).
 *
 * At run time it also prices reading only the built keys' rows through a
 * B-tree index on the outer table (skip/btreekeys.c), against reading the whole
 * table: core's bf_rf_index_read_cost, given the table's size now, the key
 * column's statistics (distinct values, most common values, correlation),
 * the planner's settings, and how much of the table and the index is in
 * shared buffers now (cached_fraction): on cached data the random fetches
 * cost next to nothing, on data read from disk they cost what the settings
 * say, and the better side differs by several times either way.
 */
#include "cost.h"
#include "settings.h"
#include "../bloom_compat.h"

#include "../../core/bf_runtime.h"

#include <math.h>

#include "access/table.h"
#include "access/htup_details.h"
#include "access/nbtree.h"
#include "catalog/pg_statistic.h"
#include "optimizer/cost.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "optimizer/optimizer.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

/*
 * Bytes of a hash table entry besides the tuple's data: the HashJoinTuple
 * and MinimalTuple headers and the bucket pointer, about as the planner
 * counts them.
 */
#define HASH_ROW_OVERHEAD 48.0

/*
 * The fraction of outer rows expected to find a match: join rows / outer
 * rows for inner, semi and right joins; for right semi and right anti
 * joins, whose rows are inner rows, inner rows / outer rows, a guess the
 * probe's adaptive switch corrects.
 */
static double
estimate_pass(JoinType jointype, double outer, double inner, double join)
{
	if (outer <= 0)
		return 1.0;
	switch (jointype)
	{
		case JOIN_INNER:
		case JOIN_SEMI:
		case JOIN_RIGHT:
			return Min(1.0, join / outer);
		default:
			return Min(1.0, inner / outer);
	}
}

void
bloom_rf_cost_join(const HashJoin *join, const Hash *hash, RuntimeJoinCost *cost)
{
	const Plan *outer = outerPlan(join);

	Assert(outer != NULL && hash != NULL);
	cost->outer_rows = outer->plan_rows;
	cost->inner_rows = hash->plan.plan_rows;
	cost->pass = estimate_pass(join->join.jointype, cost->outer_rows, cost->inner_rows,
	                           join->join.plan.plan_rows);
	/* the hash table: every inner row (of every process, if shared), with its header */
	cost->table_bytes = (hash->plan.parallel_aware ? hash->rows_total : cost->inner_rows) *
	                    (MAXALIGN(hash->plan.plan_width) + HASH_ROW_OVERHEAD);
	/* forced (tests): the switch pauses only what would not pay beyond the cache */
	cost->saved =
	    bloom_rf_forced ? BF_RF_SAVED_PER_REMOVED : bf_rf_saved_per_removed(cost->table_bytes);
	/* a shared filter (sized at run time for every share: filter/shared.c); the estimate, > 0 */
	cost->shared_keys = hash->plan.parallel_aware ? Max(2.0 * hash->rows_total, 1024.0) : 0;
	cost->worthwhile =
	    bloom_rf_forced || bf_rf_worthwhile(cost->outer_rows, cost->inner_rows, cost->table_bytes,
	                                        cost->pass, bloom_rf_max_bytes());
}

void
bloom_rf_cost_node(Plan *node, const Plan *child, int nkeys, double pass, bool probe)
{
	/* hashing the keys and probing (or adding) costs about an operator per key, and one */
	node->startup_cost = child->startup_cost;
	node->total_cost = child->total_cost + child->plan_rows * cpu_operator_cost * (nkeys + 1);
	node->plan_rows = probe ? clamp_row_est(child->plan_rows * pass) : child->plan_rows;
}

bool
bloom_rf_cost_built_table(double table_bytes, double *saved)
{
	Assert(table_bytes >= 0);
	*saved = bf_rf_saved_per_removed(table_bytes);
	return bf_rf_can_pay(*saved);
}

/* most common values compared with the keys one by one, at most (keys times values) */
#define MAX_MCV_COMPARISONS 10000

/*
 * Whether value (of the column's type) equals one of the nkeys sorted keys,
 * by binary search with cmp, the order family's comparison of the column's
 * type against the keys'.
 */
static bool
sorted_keys_hold(FmgrInfo *cmp, Oid collation, const Datum *keys, int nkeys, Datum value)
{
	int lo = 0, hi = nkeys;

	while (lo < hi)
	{
		int mid = lo + (hi - lo) / 2;
		int32 c = DatumGetInt32(FunctionCall2Coll(cmp, collation, value, keys[mid]));

		if (c == 0)
			return true;
		if (c > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/*
 * The fraction of the table's rows whose key column equals one of the
 * nkeys keys (eq: the join operator's function, column against key,
 * under collation), from the column's statistics stats as eqsel figures
 * one value: a most common value's frequency, else the rest of the
 * non-null rows spread evenly over the other distinct values.  Past
 * MAX_MCV_COMPARISONS, each most common value is looked up among the keys
 * by binary search where cmp (the comparison of the keys' order, column
 * against key: the keys are sorted by it) is given, else the keys are
 * taken to be the most common values (the most rows they can match).
 * Fills *correlation.
 */
static double
keys_fraction(HeapTuple stats, const Datum *keys, int nkeys, FmgrInfo *eq, FmgrInfo *cmp,
              Oid collation, double tuples, double *correlation)
{
	Form_pg_statistic form = (Form_pg_statistic) GETSTRUCT(stats);
	double ndistinct = form->stadistinct > 0 ? form->stadistinct : -form->stadistinct * tuples;
	double nullfrac = isfinite(form->stanullfrac) ? Max(0.0, Min(1.0, form->stanullfrac)) : 0.0;
	double mcv_total = 0, matched = 0, other;
	int nmatched = 0;
	AttStatsSlot slot;

	*correlation = 0;
	if (get_attstatsslot(&slot, stats, STATISTIC_KIND_CORRELATION, InvalidOid,
	                     ATTSTATSSLOT_NUMBERS))
	{
		if (slot.nnumbers == 1 && isfinite(slot.numbers[0]))
			*correlation = Max(-1.0, Min(1.0, slot.numbers[0]));
		free_attstatsslot(&slot);
	}
	/* no count (0), or one not to be trusted: as the planner, at least one value */
	if (!isfinite(ndistinct) || ndistinct <= 0)
		ndistinct = DEFAULT_NUM_DISTINCT;
	ndistinct = Max(ndistinct, 1.0);
	if (get_attstatsslot(&slot, stats, STATISTIC_KIND_MCV, InvalidOid,
	                     ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
	{
		bool compare = (double) slot.nvalues * nkeys <= MAX_MCV_COMPARISONS;

		for (int i = 0; i < slot.nnumbers; i++)
		{
			if (!isfinite(slot.numbers[i]) || slot.numbers[i] < 0)
				continue; /* a frequency not to be trusted counts for nothing */
			mcv_total += slot.numbers[i];
			if (!compare && cmp != NULL)
			{
				if (sorted_keys_hold(cmp, collation, keys, nkeys, slot.values[i]))
				{
					matched += slot.numbers[i];
					nmatched++;
				}
				continue;
			}
			if (!compare)
			{
				/* the frequencies come largest first */
				if (i < nkeys)
				{
					matched += slot.numbers[i];
					nmatched++;
				}
				continue;
			}
			for (int e = 0; e < nkeys; e++)
				if (DatumGetBool(FunctionCall2Coll(eq, collation, slot.values[i], keys[e])))
				{
					matched += slot.numbers[i];
					nmatched++;
					break;
				}
		}
		ndistinct = Max(ndistinct - slot.nnumbers, 1.0);
		free_attstatsslot(&slot);
	}
	other = Max(0.0, 1.0 - nullfrac - mcv_total) / ndistinct;
	return Max(0.0, Min(1.0, matched + Max(0, nkeys - nmatched) * other));
}

/*
 * The fraction of rel's first nblocks blocks (> 0) in shared buffers, from
 * up to CACHE_SAMPLES blocks spread evenly over them, looked up in the
 * buffer table as the buffer manager looks a block up, under the mapping
 * partition's lock and reading nothing (PrefetchBuffer, the public lookup,
 * also starts reading a block it does not find: from disk, 8 index blocks
 * a partition read for nothing cost 60 partitions' whole reads a fifth
 * more).  A temporary table's blocks are in this process's local buffers,
 * not asked: 0, the settings' page costs.
 */
#define CACHE_SAMPLES 8

static double
cached_fraction(Relation rel, BlockNumber nblocks)
{
	int samples = (int) Min((BlockNumber) CACHE_SAMPLES, nblocks);
	int found = 0;

	Assert(nblocks > 0);
	if (RelationUsesLocalBuffers(rel))
		return 0;
	for (int i = 0; i < samples; i++)
	{
		/* the middle block of each of `samples` equal stretches */
		BlockNumber block = (BlockNumber) (((2 * (uint64) i + 1) * nblocks) / (2 * samples));
		BufferTag tag;
		uint32 hash;
		LWLock *lock;

		bloom_buffer_tag_init(&tag, rel, block);
		hash = BufTableHashCode(&tag);
		lock = BufMappingPartitionLock(hash);
		LWLockAcquire(lock, LW_SHARED);
		if (BufTableLookup(&tag, hash) >= 0)
			found++;
		LWLockRelease(lock);
	}
	return (double) found / samples;
}

/*
 * The facts of reading heap, of pages blocks, whole or through index, but
 * for the key's correlation: sizes, settings, what is cached.
 */
static void
table_read_facts(Relation heap, Relation index, BlockNumber pages, bf_rf_table_read *t)
{
	/* rows per page as of the last VACUUM or ANALYZE, as the planner scales them */
	double density = heap->rd_rel->relpages > 0 && heap->rd_rel->reltuples >= 0
	                     ? heap->rd_rel->reltuples / heap->rd_rel->relpages
	                     : BLCKSZ / 64.0; /* never counted: rows of a few columns */

	t->tuples = Max(1.0, density * pages);
	t->pages = pages;
	t->index_pages = RelationGetNumberOfBlocks(index);
	t->cache_pages = Max(1.0, (double) effective_cache_size);
	t->seq_page_cost = seq_page_cost;
	t->random_page_cost = random_page_cost;
	t->cpu_tuple_cost = cpu_tuple_cost;
	t->cpu_index_tuple_cost = cpu_index_tuple_cost;
	t->cpu_operator_cost = cpu_operator_cost;
	t->heap_cached = cached_fraction(heap, pages);
	t->index_cached = t->index_pages > 0 ? cached_fraction(index, (BlockNumber) t->index_pages) : 0;
	t->correlation = 0;
}

bool
bloom_rf_cost_keys_by_index(Relation heap, Relation index, AttrNumber attno, const Datum *keys,
                            int nkeys, Oid opno, Oid family, Oid collation, double *rows,
                            double *by_index, double *whole)
{
	BlockNumber pages = RelationGetNumberOfBlocks(heap);
	double fraction, correlation = 0;
	bf_rf_table_read t;
	HeapTuple stats;

	Assert(nkeys >= 1);
	if (pages == 0)
		return false; /* nothing to read either way */
	table_read_facts(heap, index, pages, &t);
	stats = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(RelationGetRelid(heap)),
	                        Int16GetDatum(attno), BoolGetDatum(false));
	if (HeapTupleIsValid(stats))
	{
		FmgrInfo eq, cmp;
		Oid lefttype, righttype, cmp_proc = InvalidOid;

		fmgr_info(get_opcode(opno), &eq);
		op_input_types(opno, &lefttype, &righttype);
		if (OidIsValid(family))
			cmp_proc = get_opfamily_proc(family, lefttype, righttype, BTORDER_PROC);
		if (OidIsValid(cmp_proc))
			fmgr_info(cmp_proc, &cmp);
		fraction = keys_fraction(stats, keys, nkeys, &eq, OidIsValid(cmp_proc) ? &cmp : NULL,
		                         collation, t.tuples, &correlation);
		ReleaseSysCache(stats);
	}
	else
		fraction = Min(1.0, nkeys / (double) DEFAULT_NUM_DISTINCT); /* no statistics */
	*rows = fraction * t.tuples;
	/* a unique index holds a key once */
	if (index->rd_index->indisunique && index->rd_index->indnkeyatts == 1)
		*rows = Min(*rows, (double) nkeys);
	t.correlation = correlation;
	*by_index = bf_rf_index_read_cost(&t, nkeys, *rows);
	*whole = bf_rf_seq_read_cost(&t);
	/* forced (tests): through the index wherever one serves, so that every such plan reads by it */
	return *by_index < *whole || bloom_rf_forced;
}

double
bloom_rf_cost_keys_share(Oid heap_oid, Oid index_oid, double correlation, double nkeys, double rows)
{
	Relation heap = table_open(heap_oid, AccessShareLock);
	Relation index = index_open(index_oid, AccessShareLock);
	BlockNumber pages = RelationGetNumberOfBlocks(heap);
	bf_rf_table_read t;
	double share = 1.0;

	Assert(nkeys >= 1 && rows >= 0);
	if (pages > 0)
	{
		table_read_facts(heap, index, pages, &t);
		t.correlation = Max(-1.0, Min(1.0, correlation));
		share = bf_rf_index_read_cost(&t, nkeys, Min(rows, t.tuples)) / bf_rf_seq_read_cost(&t);
	}
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
	return share;
}
