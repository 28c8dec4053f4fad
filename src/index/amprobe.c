/*
 * amprobe.c
 *	  Whether a bloomfilter index may hold a key: its layers asked in turn,
 *	  each on the one page of the key's block, under a share lock.
 */
#include "bloomindex.h"

#include "storage/bufmgr.h"

/* Pin blkno of index: in its recent buffer if it still holds it, else looked up. */
static Buffer
pin_page(Relation index, BlockNumber blkno, BloomIndexRecent *recent)
{
	if (recent == NULL || blkno >= recent->n)
		return ReadBuffer(index, blkno);
	return bloom_index_pin_recent(index, blkno, &recent->buffers[blkno]);
}

bool
bloom_index_layer_contains(Relation index, const BloomIndexMeta *meta, int layer, uint64 h,
                           BloomIndexRecent *recent)
{
	const BloomIndexLayer *l = &meta->layers[layer];
	bf_params p = {BF_LAYOUT_BLOCKED512, BF_SCHEME_DOUBLE_HASHING, l->nhashes, meta->seed,
	               l->ncells};
	BloomIndexSpot spot;
	Buffer buf;
	Page page;
	bool held;

	Assert(layer >= 0 && (uint32) layer < meta->nlayers);
	spot = bloom_index_spot(meta, l, bf_blocked_block(&p, h));
	buf = pin_page(index, spot.blkno, recent);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	/* a page given to another layer (a directory older than a rebuild): "maybe" */
	held = !bloom_index_check_data_page(index, page, spot.blkno, layer, l->stamp) ||
	       bf_blocked_block_holds(&p, (const uint8 *) page + spot.offset, h);
	UnlockReleaseBuffer(buf);
	return held;
}

bool
bloom_index_may_contain(Relation index, const BloomIndexMeta *meta, uint64 h,
                        BloomIndexRecent *recent)
{
	/* the newest layers first: recent keys are there */
	for (int i = (int) meta->nlayers - 1; i >= 0; i--)
		if (bloom_index_layer_contains(index, meta, i, h, recent))
			return true;
	return false;
}
