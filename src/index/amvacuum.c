/*
 * amvacuum.c
 *	  VACUUM of a bloomfilter index: nothing to remove row by row, but the
 *	  filter rebuilt (amrebuild.c) when it holds too many keys of deleted
 *	  rows; and bloom_index_rebuild(), which rebuilds now.
 *
 * The index keeps no row pointers, so no dead row can be found in it, and
 * the callback bulk delete passes is not called.  (CREATE INDEX
 * CONCURRENTLY asks the same function for the row pointers the index holds:
 * none, so it adds every row again, which sets no bit twice: aminsert.c.)
 * A Bloom filter cannot forget a key; a filter made anew from the table's
 * rows can.  VACUUM's cleanup makes one when either reloption says so:
 *   rebuild_factor: the keys the pages count reach that many times the
 *     table's live keys (live_keys_estimate: the keys less those of the
 *     rows deleted since the last build or rebuild, by the statistics, at
 *     the keys per row of then: a column with duplicates has fewer keys
 *     than rows from the start, and must not be rebuilt for that);
 *   rebuild_rate_factor: the filter's estimated false-positive rate, from
 *     each layer's keys, reaches that many times the declared rate (a
 *     filter that could not grow, or keys far past its sizing).
 * The keys of a large layer are estimated from 256 of its pages, spread
 * evenly: VACUUM reads no more of an index it does not rebuild.
 * ANALYZE's cleanup call, and VACUUM with INDEX_CLEANUP off, do nothing.
 * The statistics reported are the index's pages and, as its tuples, the
 * table's, estimated.
 */
#include "am.h"

#include <math.h>

#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/defrem.h"
#include "commands/vacuum.h"
#include "miscadmin.h"
#include "optimizer/plancat.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(bloom_index_rebuild);

/* pages of a layer read to estimate its keys, at most */
#define SAMPLE_PAGES 256

IndexBulkDeleteResult *
bloom_index_bulk_delete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
                        IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	return stats;
}

/* The keys layer l's pages count (read through strategy), estimated from a sample if many. */
static double
layer_keys(Relation index, const BloomIndexMeta *meta, const BloomIndexLayer *l,
           BufferAccessStrategy strategy)
{
	uint32 step = Max(l->npages / SAMPLE_PAGES, 1);
	double keys = 0;
	uint32 read = 0;

	for (uint32 p = 0; p < l->npages; p += step)
	{
		Buffer buf = ReadBufferExtended(index, MAIN_FORKNUM, l->first + p, RBM_NORMAL, strategy);
		Page page;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		if (bloom_index_check_data_page(index, page, l->first + p, (int) (l - meta->layers),
		                                l->stamp))
			keys += (double) BloomIndexPageGetOpaque(page)->nadded;
		UnlockReleaseBuffer(buf);
		read++;
	}
	return read > 0 ? keys * l->npages / read : 0;
}

/*
 * The live keys of index's table, estimated two ways: the keys its pages
 * count (keys) less those of the rows deleted or moved since the last
 * build or rebuild, by the statistics' counts; and live_rows (VACUUM's, or
 * the planner's) times the keys per row then.
 */
static double
live_keys_estimate(Relation heap, const BloomIndexMeta *meta, double keys, double live_rows)
{
	const BloomIndexRebuildMeta *r = &meta->rebuild;
	double per_row = bloom_index_keys_per_row(meta);
	double from_rows = Max(live_rows, 0) * per_row;
	int64 gone, added;

	/*
	 * Counts that lost what the index saw (reset, or lost in a crash: the
	 * index took more new keys since than the statistics count rows added)
	 * say nothing of what left: the rows' count then.
	 */
	if (!(r->flags & BLOOM_INDEX_GONE_KNOWN) || !bloom_index_row_counts(heap, &gone, &added) ||
	    gone < r->baseline_gone ||
	    (double) (added - r->baseline_added) < 0.9 * (keys - (double) r->baseline_keys))
		return from_rows;
	/*
	 * Else the larger of the two: each errs low in its own case (the rows'
	 * count where VACUUM skips pages, 14 % low in a retention bench; the
	 * statistics' where rows leave without their keys: an update that keeps
	 * its key, a rolled-back DELETE, a key deleted and inserted again).  A
	 * count of live keys too low rebuilds too often, each time to the same
	 * keys.
	 */
	return Max(Max(keys - (double) (gone - r->baseline_gone) * per_row, 0), from_rows);
}

/* The keys index's layers count (their pages read through strategy, sampled where many). */
static double
index_keys(Relation index, const BloomIndexMeta *meta, BufferAccessStrategy strategy,
           double *estimated_rate)
{
	double keys = 0, all_clear = 1;

	for (uint32 i = 0; i < meta->nlayers; i++)
	{
		const BloomIndexLayer *l = &meta->layers[i];
		double k = layer_keys(index, meta, l, strategy);

		keys += k;
		all_clear *= 1.0 - bf_blocked_fpp(k, (double) l->ncells, l->nhashes);
	}
	*estimated_rate = 1.0 - all_clear;
	return keys;
}

/*
 * Why index's filter is due a rebuild, its table's live keys estimated at
 * *live_keys, or BLOOM_INDEX_REBUILT_NEVER if it is not.
 */
static BloomIndexRebuildReason
rebuild_due(Relation heap, Relation index, const BloomIndexMeta *meta, double live_rows,
            BufferAccessStrategy strategy, double *live_keys)
{
	BloomIndexOptions *options = (BloomIndexOptions *) index->rd_options;
	double factor = options ? options->rebuild_factor : BLOOM_INDEX_DEFAULT_REBUILD_FACTOR;
	double rate_factor =
	    options ? options->rebuild_rate_factor : BLOOM_INDEX_DEFAULT_REBUILD_RATE_FACTOR;
	double keys, rate;

	if (factor <= 0 && rate_factor <= 0)
		return BLOOM_INDEX_REBUILT_NEVER;
	keys = index_keys(index, meta, strategy, &rate);
	*live_keys = live_keys_estimate(heap, meta, keys, live_rows);
	if (factor > 0 && keys >= 1 && keys >= factor * *live_keys)
		return BLOOM_INDEX_REBUILT_KEYS;
	if (rate_factor > 0 && rate >= rate_factor * meta->rate)
		return BLOOM_INDEX_REBUILT_RATE;
	return BLOOM_INDEX_REBUILT_NEVER;
}

/* The words bloom_index_info and VACUUM's messages say for reason. */
const char *
bloom_index_rebuild_reason_name(uint32 reason)
{
	switch (reason)
	{
		case BLOOM_INDEX_REBUILT_KEYS:
			return "keys";
		case BLOOM_INDEX_REBUILT_RATE:
			return "rate";
		case BLOOM_INDEX_REBUILT_MANUAL:
			return "manual";
		default:
			return NULL;
	}
}

IndexBulkDeleteResult *
bloom_index_vacuum_cleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	BloomIndexMeta meta;
	Relation heap;

	if (info->analyze_only)
		return stats;
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	/* (16 hands the table in info; 15 does not: VACUUM holds its lock) */
	heap = table_open(IndexGetRelation(RelationGetRelid(info->index), false), NoLock);
	/* nothing rebuilds it but this VACUUM (it holds the table's lock): a pending layer is left over */
	bloom_index_tidy(heap, info->index);
	bloom_index_read_meta(info->index, &meta);
	if (meta.nlayers > 0)
	{
		double live_keys = 0;
		BloomIndexRebuildReason reason = rebuild_due(
		    heap, info->index, &meta, info->num_heap_tuples, info->strategy, &live_keys);

		if (reason != BLOOM_INDEX_REBUILT_NEVER &&
		    bloom_index_rebuild_filter(heap, info->index, live_keys, reason, info->message_level))
			ereport(info->message_level,
			        (errmsg("bloomfilter index \"%s\": rebuilt its filter (%s)",
			                RelationGetRelationName(info->index),
			                bloom_index_rebuild_reason_name(reason))));
	}
	table_close(heap, NoLock);
	stats->num_pages = RelationGetNumberOfBlocks(info->index);
	stats->num_index_tuples = info->num_heap_tuples;
	stats->estimated_count = true;
	return stats;
}

/* Rebuild index indexoid (not partitioned) now; true if it is gone. */
static bool
rebuild_leaf(Oid indexoid)
{
	Oid heapoid = IndexGetRelation(indexoid, true);
	Relation heap, index;
	BlockNumber pages;
	double tuples, allvisfrac, keys, rate;
	BloomIndexMeta meta;
	bool done;

	if (!OidIsValid(heapoid))
		return true; /* dropped meanwhile: nothing to rebuild */
	/* each partition's owner, as VACUUM checks each (a partition may have another) */
	if (!BLOOM_OWNS_TABLE(heapoid))
		ereport(ERROR,
		        (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
		         errmsg("must be owner of table %s to rebuild its index", get_rel_name(heapoid))));
	/* VACUUM's lock: no other rebuild, REINDEX, TRUNCATE or DROP meanwhile; inserts go on */
	heap = table_open(heapoid, ShareUpdateExclusiveLock);
	index = index_open(indexoid, RowExclusiveLock);
	if (index->rd_rel->relam != get_index_am_oid(BLOOM_INDEX_AM_NAME, false) ||
	    index->rd_index->indrelid != heapoid)
		ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
		                errmsg("index \"%s\" is not a bloomfilter index",
		                       RelationGetRelationName(index))));
	if (!index->rd_index->indisvalid || !index->rd_index->indisready)
		ereport(ERROR,
		        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		         errmsg("bloomfilter index \"%s\" is not valid", RelationGetRelationName(index)),
		         errhint("Rebuild it with REINDEX.")));
	/* the live keys as VACUUM estimates them, from the planner's rows where it would from its own */
	estimate_rel_size(heap, NULL, &pages, &tuples, &allvisfrac);
	bloom_index_read_meta(index, &meta);
	keys = index_keys(index, &meta, NULL, &rate);
	done = bloom_index_rebuild_filter(heap, index, live_keys_estimate(heap, &meta, keys, tuples),
	                                  BLOOM_INDEX_REBUILT_MANUAL, NOTICE);
	index_close(index, NoLock);
	table_close(heap, NoLock);
	return done;
}

/*
 * bloom_index_rebuild(index regclass) -> boolean (1.12): rebuild the filter
 * of a bloomfilter index (of each of a partitioned index's partitions) now,
 * as VACUUM would, for the table's owner, as REINDEX is.  Rows deleted but
 * not yet vacuumed keep their keys (amrebuild_scan.c reads every tuple
 * there is: a standby may show them until VACUUM's records that remove
 * them), and one whose index columns are toasted defers it (false, and a
 * NOTICE): its values may be gone.  False if a
 * filter was not rebuilt because the pages of the last rebuild are still
 * held by older transactions and its metapage has no room to list more.
 */
Datum
bloom_index_rebuild(PG_FUNCTION_ARGS)
{
	Oid indexoid = PG_GETARG_OID(0);
	Oid heapoid;
	char kind = get_rel_relkind(indexoid);
	volatile bool all = true; /* (set in PG_TRY, read after it) */
	List *leaves;
	BloomVacuumCosts costs;

	/* it writes the index: as VACUUM, not in a read-only transaction nor during recovery */
	PreventCommandIfReadOnly("bloom_index_rebuild()");
	PreventCommandDuringRecovery("bloom_index_rebuild()");
	if (kind == '\0')
		ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
		                errmsg("relation with OID %u does not exist", indexoid)));
	if (kind != RELKIND_INDEX && kind != RELKIND_PARTITIONED_INDEX)
		ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
		                errmsg("\"%s\" is not an index", get_rel_name(indexoid))));
	heapoid = IndexGetRelation(indexoid, false);
	if (!BLOOM_OWNS_TABLE(heapoid))
		ereport(ERROR,
		        (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
		         errmsg("must be owner of table %s to rebuild its index", get_rel_name(heapoid))));
	/* (each leaf's access method is checked under its lock; its tables' locks come first) */
	leaves = kind == RELKIND_INDEX ? list_make1_oid(indexoid)
	                               : find_all_inheritors(indexoid, NoLock, NULL);
	/* paced as a manual VACUUM is: by vacuum_cost_delay (0, the default: not at all) */
	bloom_vacuum_costs_begin(&costs);
	PG_TRY();
	{
		ListCell *lc;

		foreach (lc, leaves)
			if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_INDEX)
				all = rebuild_leaf(lfirst_oid(lc)) && all;
	}
	PG_FINALLY();
	{
		bloom_vacuum_costs_end(&costs);
	}
	PG_END_TRY();
	PG_RETURN_BOOL(all);
}
