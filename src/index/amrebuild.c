/*
 * amrebuild.c
 *	  Rebuilding a bloomfilter index's filter while inserts go on, so that
 *	  the keys of deleted rows leave it (amvacuum.c decides when: VACUUM,
 *	  or bloom_index_rebuild()).
 *
 * The protocol (docs/design/index-rebuild.md has the argument at length):
 *
 * 1. Mark.  Under the growers' lock (LockPage on the metapage's block), a
 *    new layer, sized for the table's live keys, is written empty where
 *    amspace.c places it, its pages stamped anew; then one metapage record
 *    names it as pending.  From then on every insert that reads the
 *    metapage adds its key to the pending layer too (aminsert.c).
 * 2. Scan (amrebuild_scan.c).  Every tuple of the table, whatever its
 *    visibility (SnapshotAny: live, dead, being inserted or deleted; only
 *    those whose insert aborted are left out, which no one sees), is
 *    hashed into a copy of the pending layer in memory.  A row inserted before the mark
 *    is on its heap page before the scan starts (the executor inserts the
 *    heap tuple, then calls aminsert, which read the metapage before the
 *    mark), so the scan reads it; a row whose aminsert reads the metapage
 *    after the mark adds its key to the pending layer itself.  Dead tuples
 *    are included because a standby may still show them to a query until
 *    the records that prune them, which conflict with that query, are
 *    replayed; those are written before the switch.
 * 3. Merge.  The memory copy is ORed into the pending pages, one page at a
 *    time under its exclusive lock, each a generic WAL delta (never a full
 *    image, which would erase the inserts' bits), its bits set counted anew.
 * 4. Switch.  Under the growers' lock and the metapage's exclusive lock, one
 *    record: the pending layer becomes the directory's only layer, and the
 *    old layers' pages are retired (amspace.c frees them once no snapshot
 *    older than the switch remains; a reader holding the old directory
 *    meanwhile reads its old pages, which hold every key they held, and
 *    one that reads a page given since to another layer, which its stamp
 *    tells, answers "maybe": pages.h).
 *
 * An error, a cancel or a crash before the switch leaves the old directory
 * whole: the index answers as before, and only pays for inserts written
 * twice until the next VACUUM discards the pending layer.  The switch is one
 * record, so a standby replays the primary's bytes.
 */
#include "rebuild.h"

#include <math.h>

#include "access/generic_xlog.h"
#include "access/transam.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_bitutils.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/* Write meta (a copy changed from the metapage's, under the growers' lock) as the metapage. */
static void
write_meta(Relation index, const BloomIndexMeta *meta)
{
	Buffer buf = ReadBuffer(index, BLOOM_INDEX_METAPAGE);
	GenericXLogState *xlog;
	BloomIndexMeta *on_page;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	xlog = GenericXLogStart(index);
	on_page = bloom_index_meta_for_write(GenericXLogRegisterBuffer(xlog, buf, 0));
	memcpy(on_page, meta, sizeof(BloomIndexMeta));
	on_page->version = BLOOM_INDEX_VERSION;
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(buf);
}

/*
 * Free, in meta (the metapage's copy, under the growers' lock), the runs
 * retired that no reader can hold any more, and a pending layer an
 * interrupted rebuild left (only a rebuild fills one, and the caller holds
 * the table's lock that every rebuild takes): inserts that still write it
 * find its pages stamped for another layer once they are reused, and read
 * the metapage again.
 */
static void
free_what_can_be(Relation heap, BloomIndexMeta *meta)
{
	bloom_index_recycle(heap, meta);
	if (meta->rebuild.flags & BLOOM_INDEX_PENDING)
	{
		BloomIndexExtent left = {meta->rebuild.pending.first, meta->rebuild.pending.npages};

		bloom_index_give(meta, left);
		meta->rebuild.flags &= ~BLOOM_INDEX_PENDING;
		memset(&meta->rebuild.pending, 0, sizeof(meta->rebuild.pending));
	}
}

/*
 * Step 1: the pending layer, for capacity keys, written and named.  False,
 * and nothing written, when the metapage could not list the directory's
 * pages as retired at the switch.  Frees what can be first.
 */
static bool
mark(Relation heap, Relation index, uint64 capacity, RebuildImage *image)
{
	BloomIndexMeta *meta = &image->meta;
	BloomIndexMeta sizing;
	BloomIndexLayer layer;

	LockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
	bloom_index_read_meta(index, meta);
	/*
	 * What is freed is published before any of it is written again: a page
	 * the metapage still names (a left pending layer's) must not change
	 * under an insert that read it (the insert, finding it stamped for
	 * another layer, reads the metapage again, and must find it changed).
	 */
	if ((meta->rebuild.flags & BLOOM_INDEX_PENDING) || bloom_index_recyclable(heap, meta) > 0)
	{
		free_what_can_be(heap, meta);
		write_meta(index, meta);
	}
	if (meta->rebuild.nretired + meta->nlayers > BLOOM_INDEX_MAX_RETIRED)
	{
		UnlockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
		return false;
	}
	/* sized as a first layer is (bloom_index_next_layer of a directory with none) */
	sizing = *meta;
	sizing.nlayers = 0;
	if (!bloom_index_next_layer(&sizing, Max(capacity, 1), 0, &layer))
		elog(ERROR, "bloomfilter index \"%s\": no layer for %llu keys at rate %g",
		     RelationGetRelationName(index), (unsigned long long) capacity, meta->rate);
	layer.first = bloom_index_place(meta, layer.npages);
	if ((uint64) layer.first + layer.npages > MaxBlockNumber)
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		                errmsg("bloomfilter index \"%s\" has no room for a rebuilt filter",
		                       RelationGetRelationName(index))));
	meta->rebuild.last_stamp++;
	layer.stamp = meta->rebuild.last_stamp;
	bloom_index_write_empty_layer(index, &layer, 0);
	bloom_index_take(meta, layer.first, layer.npages);
	meta->rebuild.pending = layer;
	meta->rebuild.flags |= BLOOM_INDEX_PENDING;
	write_meta(index, meta);
	UnlockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
	image->layer = &meta->rebuild.pending;
	return true;
}

/*
 * Step 3: the image ORed into the pending pages; returns the keys their
 * counts add up to.  Only this rebuild writes the pending layer's pages but
 * for inserts, which only set bits: a page stamped otherwise is damage.
 */
static uint64
merge(Relation index, RebuildImage *image)
{
	const BloomIndexLayer *l = image->layer;
	uint64 keys = 0;

	for (uint32 p = 0; p < l->npages; p++)
	{
		BloomIndexSpot spot =
		    bloom_index_spot(&image->meta, l, (uint64) p * image->meta.blocks_per_page);
		Size bytes = (Size) spot.blocks_in_page * BLOOM_INDEX_BLOCK_BYTES;
		const uint8 *from =
		    image->bits + (Size) p * image->meta.blocks_per_page * BLOOM_INDEX_BLOCK_BYTES;
		Buffer buf = ReadBuffer(index, spot.blkno);
		Page page;
		bool news = false;

		CHECK_FOR_INTERRUPTS(); /* no lock held here */
		LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
		page = BufferGetPage(buf);
		if (!bloom_index_check_data_page(index, page, spot.blkno, 0, l->stamp))
			elog(ERROR,
			     "bloomfilter index \"%s\": the rebuild's page %u is stamped for another "
			     "layer",
			     RelationGetRelationName(index), spot.blkno);
		for (Size b = 0; b < bytes && !news; b++)
			news = (from[b] & ~((const uint8 *) page)[spot.offset + b]) != 0;
		if (news)
		{
			GenericXLogState *xlog = GenericXLogStart(index);
			Page copy = GenericXLogRegisterBuffer(xlog, buf, 0);
			uint8 *to = (uint8 *) copy + spot.offset;
			BloomIndexOpaque *opaque = BloomIndexPageGetOpaque(copy);

			for (Size b = 0; b < bytes; b++)
				to[b] |= from[b];
			opaque->nset = pg_popcount((const char *) to, bytes);
			opaque->nadded += image->page_added[p];
			GenericXLogFinish(xlog);
		}
		keys += BloomIndexPageGetOpaque(BufferGetPage(buf))->nadded;
		UnlockReleaseBuffer(buf);
	}
	return keys;
}

/*
 * Step 4: the pending layer made the directory, the old layers retired, in
 * one record; the baseline for the next trigger (amvacuum.c): the keys now,
 * the rows the scan read, the table's rows gone (deleted or moved) before it.
 */
static bool
switch_directory(Relation index, const RebuildImage *image, uint64 keys, bool counted, int64 gone,
                 int64 added, BloomIndexRebuildReason reason)
{
	BloomIndexMeta meta;
	FullTransactionId next;

	LockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
	bloom_index_read_meta(index, &meta);
	if (!(meta.rebuild.flags & BLOOM_INDEX_PENDING) ||
	    memcmp(&meta.rebuild.pending, image->layer, sizeof(BloomIndexLayer)) != 0)
		elog(ERROR, "bloomfilter index \"%s\": the rebuild's layer is no longer pending",
		     RelationGetRelationName(index));
	/*
	 * Layers grown while the scan ran may leave no room to list every old
	 * run as retired: the rebuild gives up then (the next VACUUM frees its
	 * layer, and tries again), the old filter whole.
	 */
	if (meta.rebuild.nretired + meta.nlayers > BLOOM_INDEX_MAX_RETIRED)
	{
		UnlockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
		return false;
	}
	/* any transaction that may hold the old directory has an xmin before this */
	next = ReadNextFullTransactionId();
	for (uint32 i = 0; i < meta.nlayers; i++)
	{
		BloomIndexExtent run = {meta.layers[i].first, meta.layers[i].npages};
		bool listed PG_USED_FOR_ASSERTS_ONLY = bloom_index_retire(&meta, run, next);

		Assert(listed);
	}
	memset(meta.layers, 0, sizeof(meta.layers));
	meta.layers[0] = meta.rebuild.pending;
	meta.nlayers = 1;
	meta.capacity = meta.layers[0].capacity;
	meta.flags &= ~BLOOM_INDEX_CANNOT_GROW;
	meta.rebuild.stamp = meta.layers[0].stamp;
	meta.rebuild.flags &= ~BLOOM_INDEX_PENDING;
	memset(&meta.rebuild.pending, 0, sizeof(meta.rebuild.pending));
	meta.rebuild.last_rebuilt = GetCurrentTimestamp();
	meta.rebuild.last_reason = reason;
	meta.rebuild.rebuilds++;
	meta.rebuild.baseline_keys = keys;
	meta.rebuild.baseline_rows = image->rows;
	meta.rebuild.baseline_gone = gone; /* (may be below 0: less the deleted rows the scan kept) */
	meta.rebuild.baseline_added = added;
	if (counted)
		meta.rebuild.flags |= BLOOM_INDEX_GONE_KNOWN;
	else
		meta.rebuild.flags &= ~BLOOM_INDEX_GONE_KNOWN;
	write_meta(index, &meta);
	UnlockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
	return true;
}

bool
bloom_index_row_counts(Relation heap, int64 *gone, int64 *added)
{
	PgStat_StatTabEntry *stats = pgstat_fetch_stat_tabentry(RelationGetRelid(heap));

	*gone = *added = -1;
	if (stats == NULL)
		return false;
	/* (a HOT update adds no key and takes none away) */
	*gone = (int64) (stats->tuples_deleted + stats->tuples_updated - stats->tuples_hot_updated);
	*added = (int64) (stats->tuples_inserted + stats->tuples_updated - stats->tuples_hot_updated);
	return true;
}

double
bloom_index_keys_per_row(const BloomIndexMeta *meta)
{
	const BloomIndexRebuildMeta *r = &meta->rebuild;

	return r->baseline_rows > 0 ? Min((double) r->baseline_keys / r->baseline_rows, 1.0) : 1.0;
}

/*
 * Whether one layer holds capacity keys at the index's rate: a rebuilt
 * filter is one layer, at most a bloom value's 1 GB of bits (about 900
 * million keys at 1 %), where a build adds layers.
 */
static bool
one_layer_holds(Relation index, uint64 capacity)
{
	BloomIndexMeta sizing;
	BloomIndexLayer layer;

	bloom_index_read_meta(index, &sizing);
	sizing.nlayers = 0;
	return bloom_index_next_layer(&sizing, Max(capacity, 1), 0, &layer) &&
	       layer.capacity >= capacity;
}

bool
bloom_index_rebuild_filter(Relation heap, Relation index, double live_keys,
                           BloomIndexRebuildReason reason, int elevel)
{
	RebuildImage image;
	uint64 capacity;
	uint64 keys;
	int64 gone, added;
	bool counted;
	bool switched;
	RebuildScan scan;

	Assert(CheckRelationLockedByMe(heap, ShareUpdateExclusiveLock, true));
	/*
	 * The live keys with the room a build leaves (bloom_index_headroom); at
	 * least the capacity option (a floor here: the rebuilt layer does not
	 * grow while it is filled).
	 */
	capacity = (uint64) ceil(Max(live_keys, 1.0) * bloom_index_headroom(index));
	capacity = Max(capacity, bloom_index_option_capacity(index));
	/* (before the scan: a row deleted from here on may still be read by it) */
	counted = bloom_index_row_counts(heap, &gone, &added);
	for (int attempt = 0;; attempt++)
	{
		uint64 scanned = 0;

		if (!one_layer_holds(index, capacity))
		{
			ereport(elevel, (errmsg("bloomfilter index \"%s\": its filter was not rebuilt: %llu "
			                        "keys need more than one layer",
			                        RelationGetRelationName(index), (unsigned long long) capacity),
			                 errhint("REINDEX builds one of several layers.")));
			return false;
		}
		memset(&image, 0, sizeof(image));
		if (!mark(heap, index, capacity, &image))
			return false;
		image.bits = MemoryContextAllocHuge(CurrentMemoryContext, image.layer->ncells / 8);
		memset(image.bits, 0, image.layer->ncells / 8);
		image.page_added = palloc0(image.layer->npages * sizeof(uint64));
		scan = bloom_index_rebuild_scan(heap, index, &image, reason != BLOOM_INDEX_REBUILT_MANUAL);
		if (scan != REBUILD_SCANNED)
		{
			/* (the next VACUUM frees the layer marked) */
			if (scan == REBUILD_DEFERRED)
				ereport(elevel,
				        (errmsg("bloomfilter index \"%s\": its filter was not rebuilt: deleted "
				                "rows with toasted values are not removed yet",
				                RelationGetRelationName(index))));
			pfree(image.bits);
			pfree(image.page_added);
			return false;
		}
		for (uint32 p = 0; p < image.layer->npages; p++)
			scanned += image.page_added[p];
		/*
		 * More keys than the estimate said (statistics behind the table):
		 * once, sized again for what the scan found; the next mark frees
		 * this layer.
		 */
		if (attempt > 0 || scanned <= image.layer->capacity)
			break;
		capacity = (uint64) ceil((double) scanned * bloom_index_headroom(index));
		pfree(image.bits);
		pfree(image.page_added);
	}
	keys = merge(index, &image);
	/* (the deleted rows the scan kept count as gone from the next baseline on, not before) */
	switched = switch_directory(index, &image, keys, counted, gone - (int64) image.deleted_kept,
	                            added, reason);
	pfree(image.bits);
	pfree(image.page_added);
	return switched;
}

void
bloom_index_tidy(Relation heap, Relation index)
{
	BloomIndexMeta meta;

	bloom_index_read_meta(index, &meta);
	if (!(meta.rebuild.flags & BLOOM_INDEX_PENDING) && bloom_index_recyclable(heap, &meta) == 0)
		return; /* nothing to write (the usual case: no record) */
	LockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
	bloom_index_read_meta(index, &meta);
	free_what_can_be(heap, &meta);
	write_meta(index, &meta);
	UnlockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
}
