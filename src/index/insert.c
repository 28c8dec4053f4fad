/*
 * insert.c
 *	  Adding a key to a bloomfilter index (every INSERT, UPDATE and COPY
 *	  calls it once per row with a key), and a new layer when the last one
 *	  is full.
 *
 * An add reads the metapage under a share lock (copying its directory),
 * then asks the layers before the last, each under a share lock on the one
 * page of the key's block: a key some layer holds already (or that one
 * wrongly says it holds, which it will keep saying) is not added again, as
 * RedisBloom does, so that keys seen before never fill a new layer.  Then
 * it locks the page of the key's block in the last layer exclusively; if
 * all the key's bits are set there is nothing to do, no WAL; otherwise it
 * sets them through generic WAL, which logs the changed bytes and the
 * page's counts.  Concurrent adds take only their pages' locks.
 *
 * If that page's fraction of bits set has reached what the layer has at
 * its capacity, the layer is full (bloomindex.h): the adder takes the
 * metapage's exclusive lock and, if no one has meanwhile, appends a new
 * layer: its pages at the end of the index, each logged whole, then the
 * metapage naming it.  A key is never lost to a race: it is in whichever
 * layer it was added to, and every probe reads every layer.
 */
#include "bloomindex.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/memutils.h"

static void add_layer(Relation index, uint32 expected_layers);

bool
bloom_index_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
                   Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
                   IndexInfo *indexInfo)
{
	if (isnull[0])
		return false; /* no key: nothing to find */
	bloom_index_add(index, values[0]);
	return false;
}

/*
 * Set the key's bits in its block of layer last; returns whether that page
 * is now full (bloomindex.h), and nothing changed if the key was held.
 */
static bool
add_to_layer(Relation index, const BloomIndexMeta *meta, int last, uint64 h)
{
	const BloomIndexLayer *l = &meta->layers[last];
	bf_params p = {BF_LAYOUT_BLOCKED512, BF_SCHEME_DOUBLE_HASHING, l->nhashes, meta->seed,
	               l->ncells};
	uint64 pos[BF_MAX_HASHES];
	BloomIndexSpot spot;
	Buffer buf;
	Page page;
	uint8 *block;
	bool held = true;
	bool full;

	bf_positions(&p, h, pos);
	spot = bloom_index_spot(meta, l, pos[0] / BF_BLOCK_BITS);
	buf = ReadBuffer(index, spot.blkno);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	bloom_index_check_data_page(index, page, spot.blkno, last);
	block = (uint8 *) page + spot.offset;
	for (int j = 0; j < l->nhashes && held; j++)
		held = (block[(pos[j] % BF_BLOCK_BITS) / 8] >> (pos[j] % 8)) & 1;
	if (!held)
	{
		GenericXLogState *xlog = GenericXLogStart(index);
		Page copy = GenericXLogRegisterBuffer(xlog, buf, 0);
		BloomIndexOpaque *opaque = BloomIndexPageGetOpaque(copy);

		block = (uint8 *) copy + spot.offset;
		for (int j = 0; j < l->nhashes; j++)
		{
			uint8 bit = (uint8) (1u << (pos[j] % 8));
			uint8 *byte = &block[(pos[j] % BF_BLOCK_BITS) / 8];

			if (!(*byte & bit))
			{
				*byte |= bit;
				opaque->nset++;
			}
		}
		opaque->nadded++;
		GenericXLogFinish(xlog);
	}
	page = BufferGetPage(buf);
	full = (double) BloomIndexPageGetOpaque(page)->nset >=
	       l->full_fill * (double) spot.blocks_in_page * BF_BLOCK_BITS;
	UnlockReleaseBuffer(buf);
	return full;
}

void
bloom_index_add(Relation index, Datum value)
{
	BloomIndexMeta meta;
	uint64 h;
	int last;

	bloom_index_read_meta(index, &meta);
	if (meta.nlayers == 0)
	{
		/* an unlogged index's empty init fork, after a crash */
		add_layer(index, 0);
		bloom_index_read_meta(index, &meta);
		if (meta.nlayers == 0)
			elog(ERROR, "bloomfilter index \"%s\" could not add its first layer",
			     RelationGetRelationName(index));
	}
	h = bloom_hash_value(bloom_index_cached_hasher(index), value, meta.seed);
	last = meta.nlayers - 1;
	for (int i = 0; i < last; i++)
		if (bloom_index_layer_contains(index, &meta, i, h))
			return;
	if (add_to_layer(index, &meta, last, h))
		add_layer(index, meta.nlayers);
}

/*
 * Append a layer, unless the index no longer has expected_layers layers
 * (someone else did it meanwhile).  Under the metapage's exclusive lock: the
 * new pages at the end, logged whole four to a record, then the metapage.
 */
static void
add_layer(Relation index, uint32 expected_layers)
{
	Buffer metabuf = ReadBuffer(index, BLOOM_INDEX_METAPAGE);
	BloomIndexMeta meta;
	BloomIndexLayer layer;
	GenericXLogState *xlog;
	Buffer buffers[MAX_GENERIC_XLOG_PAGES];
	int pending = 0;
	BlockNumber first;

	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	memcpy(&meta, PageGetContents(BufferGetPage(metabuf)), sizeof(meta));
	bloom_index_check_meta(index, &meta);
	if (meta.nlayers != expected_layers)
	{
		UnlockReleaseBuffer(metabuf);
		return;
	}
	first = RelationGetNumberOfBlocks(index);
	if (!bloom_index_next_layer(&meta, meta.capacity, first, &layer))
	{
		/* the keys still go into the last layer: its rate climbs, none is lost */
		UnlockReleaseBuffer(metabuf);
		ereport(WARNING,
		        (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		         errmsg("bloomfilter index \"%s\" cannot grow past %u layers",
		                RelationGetRelationName(index), meta.nlayers),
		         errdetail("Keys are still added to its last layer, whose false-positive rate "
		                   "now grows past the declared one."),
		         errhint("Rebuild it with REINDEX.")));
		return;
	}
	for (uint32 p = 0; p < layer.npages; p++)
	{
		Buffer buf = bloom_index_new_buffer(index, MAIN_FORKNUM);

		CHECK_FOR_INTERRUPTS();
		if (BufferGetBlockNumber(buf) != first + p)
			elog(ERROR, "bloomfilter index \"%s\": new page %u, expected %u",
			     RelationGetRelationName(index), BufferGetBlockNumber(buf), first + p);
		if (pending == 0)
			xlog = GenericXLogStart(index);
		bloom_index_init_data_page(GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE),
		                           meta.nlayers);
		buffers[pending++] = buf;
		if (pending == MAX_GENERIC_XLOG_PAGES || p + 1 == layer.npages)
		{
			GenericXLogFinish(xlog);
			for (int b = 0; b < pending; b++)
				UnlockReleaseBuffer(buffers[b]);
			pending = 0;
		}
	}
	meta.layers[meta.nlayers++] = layer;
	xlog = GenericXLogStart(index);
	memcpy(PageGetContents(GenericXLogRegisterBuffer(xlog, metabuf, 0)), &meta, sizeof(meta));
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);
}
