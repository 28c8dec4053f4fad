/*
 * probe.c
 *	  Whether a bloomfilter index may hold a key: its layers asked in turn,
 *	  each on the one page of the key's block, under a share lock.
 */
#include "bloomindex.h"

#include "storage/bufmgr.h"

bool
bloom_index_layer_contains(Relation index, const BloomIndexMeta *meta, int layer, uint64 h)
{
	const BloomIndexLayer *l = &meta->layers[layer];
	bf_params p = {BF_LAYOUT_BLOCKED512, BF_SCHEME_DOUBLE_HASHING, l->nhashes, meta->seed,
	               l->ncells};
	uint64 pos[BF_MAX_HASHES];
	BloomIndexSpot spot;
	Buffer buf;
	Page page;
	const uint8 *block;
	bool held = true;

	Assert(layer >= 0 && (uint32) layer < meta->nlayers);
	bf_positions(&p, h, pos);
	spot = bloom_index_spot(meta, l, pos[0] / BF_BLOCK_BITS);
	buf = ReadBuffer(index, spot.blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	bloom_index_check_data_page(index, page, spot.blkno, layer);
	block = (const uint8 *) page + spot.offset;
	for (int j = 0; j < l->nhashes && held; j++)
		held = (block[(pos[j] % BF_BLOCK_BITS) / 8] >> (pos[j] % 8)) & 1;
	UnlockReleaseBuffer(buf);
	return held;
}

bool
bloom_index_may_contain(Relation index, const BloomIndexMeta *meta, uint64 h)
{
	/* the newest layers first: recent keys are there */
	for (int i = (int) meta->nlayers - 1; i >= 0; i--)
		if (bloom_index_layer_contains(index, meta, i, h))
			return true;
	return false;
}
