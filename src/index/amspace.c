/*
 * amspace.c
 *	  Where a bloomfilter index's layers go: the metapage keeps a high-water
 *	  mark (no page at or past it is in use), runs of free pages, and runs a
 *	  rebuild retired (pages.h).  A new layer takes the first free run that
 *	  holds it, else pages at the high-water mark; a rebuild's switch retires
 *	  the old directory's runs, and VACUUM frees them once no reader can
 *	  still hold a directory naming them.  The file never shrinks: readers
 *	  keep its size (ampages.c's check_extent), and a shorter file would make
 *	  a late reader's read of a retired page an error instead of a "maybe".
 *
 * Every function here changes a copy of the metapage (the caller's, or the
 * one it registered with generic WAL), under the growers' lock
 * (LockPage(index, BLOOM_INDEX_METAPAGE)): only its holder places, frees or
 * retires pages, so a place chosen from a copy read under it is still free
 * when the metapage names it.
 */
#include "bloomindex.h"

#include "access/generic_xlog.h"
#include "access/transam.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/snapmgr.h"

void
bloom_index_write_empty_layer(Relation index, const BloomIndexLayer *layer, int layer_no)
{
	BlockNumber end = RelationGetNumberOfBlocks(index);
	GenericXLogState *xlog = NULL;
	Buffer buffers[MAX_GENERIC_XLOG_PAGES];
	int pending = 0;

	for (uint32 p = 0; p < layer->npages; p++)
	{
		BlockNumber blkno = layer->first + p;
		/* a free page, or one an interrupted growth left, is zeroed; past the end, a new one */
		Buffer buf = blkno < end
		                 ? ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_ZERO_AND_LOCK, NULL)
		                 : bloom_index_new_buffer(index, MAIN_FORKNUM);

		if (BufferGetBlockNumber(buf) != blkno)
			elog(ERROR, "bloomfilter index \"%s\": new page %u, expected %u",
			     RelationGetRelationName(index), BufferGetBlockNumber(buf), blkno);
		if (pending == 0)
			xlog = GenericXLogStart(index);
		bloom_index_init_data_page(GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE),
		                           layer_no, layer->stamp);
		buffers[pending++] = buf;
		if (pending == MAX_GENERIC_XLOG_PAGES || p + 1 == layer->npages)
		{
			GenericXLogFinish(xlog);
			for (int b = 0; b < pending; b++)
				UnlockReleaseBuffer(buffers[b]);
			pending = 0;
			CHECK_FOR_INTERRUPTS(); /* no buffer lock held here */
		}
	}
}

BlockNumber
bloom_index_place(const BloomIndexMeta *meta, uint32 npages)
{
	const BloomIndexRebuildMeta *r = &meta->rebuild;

	Assert(npages > 0);
	for (uint32 i = 0; i < r->nfree; i++)
		if (r->free[i].npages >= npages)
			return r->free[i].first;
	return r->high_water;
}

void
bloom_index_take(BloomIndexMeta *meta, BlockNumber first, uint32 npages)
{
	BloomIndexRebuildMeta *r = &meta->rebuild;

	for (uint32 i = 0; i < r->nfree; i++)
		if (r->free[i].first == first && r->free[i].npages >= npages)
		{
			r->free[i].first += npages;
			r->free[i].npages -= npages;
			if (r->free[i].npages == 0)
			{
				memmove(&r->free[i], &r->free[i + 1], (r->nfree - i - 1) * sizeof(r->free[0]));
				r->nfree--;
			}
			return;
		}
	/* not a free run: pages at the high-water mark */
	Assert(first == r->high_water);
	r->high_water = first + npages;
}

void
bloom_index_give(BloomIndexMeta *meta, BloomIndexExtent run)
{
	BloomIndexRebuildMeta *r = &meta->rebuild;
	uint32 at = 0;

	Assert(run.npages > 0 && (uint64) run.first + run.npages <= r->high_water);
	/* the list is in block order: merge with the runs before and after */
	while (at < r->nfree && r->free[at].first < run.first)
		at++;
	if (at > 0 && r->free[at - 1].first + r->free[at - 1].npages == run.first)
	{
		r->free[at - 1].npages += run.npages;
		if (at < r->nfree && run.first + run.npages == r->free[at].first)
		{
			r->free[at - 1].npages += r->free[at].npages;
			memmove(&r->free[at], &r->free[at + 1], (r->nfree - at - 1) * sizeof(r->free[0]));
			r->nfree--;
		}
		return;
	}
	if (at < r->nfree && run.first + run.npages == r->free[at].first)
	{
		r->free[at].first = run.first;
		r->free[at].npages += run.npages;
		return;
	}
	/*
	 * A full list loses the run (its pages stay unused until REINDEX): 48
	 * runs take a rebuild every few of whose layers landed apart.
	 */
	if (r->nfree == BLOOM_INDEX_MAX_FREE)
		return;
	memmove(&r->free[at + 1], &r->free[at], (r->nfree - at) * sizeof(r->free[0]));
	r->free[at] = run;
	r->nfree++;
}

bool
bloom_index_retire(BloomIndexMeta *meta, BloomIndexExtent run, FullTransactionId next)
{
	BloomIndexRebuildMeta *r = &meta->rebuild;

	Assert(run.npages > 0);
	if (r->nretired == BLOOM_INDEX_MAX_RETIRED)
		return false;
	r->retired[r->nretired].pages = run;
	r->retired[r->nretired].xid = U64FromFullTransactionId(next);
	r->nretired++;
	return true;
}

uint32
bloom_index_recyclable(Relation heap, const BloomIndexMeta *meta)
{
	const BloomIndexRebuildMeta *r = &meta->rebuild;
	uint32 n = 0;

	/*
	 * nbtree's rule for its deleted pages: a transaction that may still hold
	 * a directory read before the switch has an xmin before the next
	 * transaction id of then.  The horizon is the table's (GlobalVisTestFor
	 * takes a table, not an index): its readers are of its database, so
	 * sessions of others do not hold its pages back.  (A standby's readers
	 * are not counted: they read a page given to another layer as "maybe",
	 * by its stamp.)
	 */
	Assert(heap->rd_rel->relkind == RELKIND_RELATION || heap->rd_rel->relkind == RELKIND_MATVIEW);
	for (uint32 i = 0; i < r->nretired; i++)
		if (GlobalVisCheckRemovableFullXid(heap, FullTransactionIdFromU64(r->retired[i].xid)))
			n++;
	return n;
}

void
bloom_index_recycle(Relation heap, BloomIndexMeta *meta)
{
	BloomIndexRebuildMeta *r = &meta->rebuild;
	uint32 kept = 0;

	Assert(heap->rd_rel->relkind == RELKIND_RELATION || heap->rd_rel->relkind == RELKIND_MATVIEW);
	for (uint32 i = 0; i < r->nretired; i++)
	{
		if (GlobalVisCheckRemovableFullXid(heap, FullTransactionIdFromU64(r->retired[i].xid)))
			bloom_index_give(meta, r->retired[i].pages);
		else
			r->retired[kept++] = r->retired[i];
	}
	r->nretired = kept;
}
