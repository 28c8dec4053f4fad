/*
 * ampages.c
 *	  The bloomfilter index's pages (bloomindex.h has their layout): the
 *	  metapage read and checked, data pages checked, new pages made, a key's
 *	  block found, and a new layer sized.
 *
 * Every page read is checked before its contents are trusted: a page that
 * is not this index's, of another layer, or whose numbers cannot be, is
 * reported as index corruption (XX002) with a hint to REINDEX, never read
 * past its end.
 */
#include "bloomindex.h"

#include <math.h>

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

static pg_noreturn void report_corrupt(Relation index, BlockNumber blkno, const char *detail);

static void
report_corrupt(Relation index, BlockNumber blkno, const char *detail)
{
	ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
	                errmsg("bloomfilter index \"%s\" is corrupt at block %u",
	                       RelationGetRelationName(index), blkno),
	                errdetail_internal("%s", detail), errhint("Rebuild it with REINDEX.")));
}

/* Whether the special space of page is ours: its size and page id. */
static bool
special_is_ours(Page page)
{
	return !PageIsNew(page) && PageGetSpecialSize(page) == MAXALIGN(sizeof(BloomIndexOpaque)) &&
	       BloomIndexPageGetOpaque(page)->page_id == BLOOM_INDEX_PAGE_ID;
}

/* Whether page is our metapage, with room for a whole BloomIndexMeta. */
static bool
is_meta_page(Page page)
{
	return special_is_ours(page) && (BloomIndexPageGetOpaque(page)->flags & BLOOM_INDEX_META) &&
	       ((PageHeader) page)->pd_lower >= MAXALIGN(SizeOfPageHeaderData) + sizeof(BloomIndexMeta);
}

/*
 * What is wrong with meta, a copy of a metapage, or NULL if nothing is;
 * *version_only: only its version is not this build's.
 */
static const char *
meta_problem(const BloomIndexMeta *meta, bool *version_only)
{
	uint64 next = BLOOM_INDEX_METAPAGE + 1;

	*version_only = false;
	if (meta->magic != BLOOM_INDEX_MAGIC)
		return "The metapage has the wrong magic number.";
	if (meta->version != BLOOM_INDEX_VERSION)
	{
		*version_only = true;
		return "The metapage's version is not this build's.";
	}
	if (meta->blocks_per_page != BLOOM_INDEX_BLOCKS_PER_PAGE)
		return "The metapage's blocks per page differ from this build's page size.";
	if (meta->nlayers > BLOOM_INDEX_MAX_LAYERS)
		return "The metapage names too many layers.";
	if (!(meta->rate > 0 && meta->rate < 1) || !(meta->growth > 1 && meta->growth <= 1e6) ||
	    !(meta->tightening > 0 && meta->tightening < 1))
		return "The metapage's rate, growth or tightening is out of range.";
	for (uint32 i = 0; i < meta->nlayers; i++)
	{
		const BloomIndexLayer *l = &meta->layers[i];
		uint64 blocks = l->ncells / BF_BLOCK_BITS;

		/* each layer's pages follow the one before's (a crash may leave pages between) */
		if (l->ncells == 0 || l->ncells % BF_BLOCK_BITS != 0 || l->ncells > BF_MAX_BITS ||
		    l->nhashes < 1 || l->nhashes > BF_MAX_HASHES || l->first < next ||
		    !(l->rate > 0 && l->rate < 1) || !(l->full_fill > 0 && l->full_fill <= 1) ||
		    l->capacity < 1 ||
		    l->npages != (blocks + meta->blocks_per_page - 1) / meta->blocks_per_page ||
		    (uint64) l->first + l->npages > MaxBlockNumber)
			return psprintf("Layer %u is malformed.", i);
		next = (uint64) l->first + l->npages;
	}
	return NULL;
}

void
bloom_index_check_meta(Relation index, const BloomIndexMeta *meta)
{
	bool version_only;
	const char *problem = meta_problem(meta, &version_only);

	if (problem == NULL)
		return;
	if (version_only)
		ereport(ERROR,
		        (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		         errmsg("bloomfilter index \"%s\" has version %u, this build reads version %d",
		                RelationGetRelationName(index), meta->version, BLOOM_INDEX_VERSION),
		         errhint("Rebuild it with REINDEX.")));
	report_corrupt(index, BLOOM_INDEX_METAPAGE, problem);
}

bool
bloom_index_try_read_meta(Relation index, BloomIndexMeta *meta)
{
	Buffer buf = ReadBuffer(index, BLOOM_INDEX_METAPAGE);
	Page page;
	bool ours;
	bool version_only;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	ours = is_meta_page(page);
	if (ours)
		memcpy(meta, PageGetContents(page), sizeof(BloomIndexMeta));
	UnlockReleaseBuffer(buf);
	return ours && meta_problem(meta, &version_only) == NULL;
}

/*
 * The bytes of meta that say what the index holds: everything up to its
 * layers, and the layers it names (the rest is zero and never read).
 */
static Size
meta_extent(const BloomIndexMeta *meta)
{
	return offsetof(BloomIndexMeta, layers) +
	       Min(meta->nlayers, BLOOM_INDEX_MAX_LAYERS) * sizeof(BloomIndexLayer);
}

/*
 * Check that every page meta's layers name exists (a checked meta names
 * them in order), or raise XX002: a metapage that names pages past the end
 * of the file is damaged, and reading them would fail with a file error.
 * The pages of a new layer are added before the metapage names them.  The
 * file only grows while a relcache entry lives (TRUNCATE and REINDEX give
 * a new entry, or rewrite the metapage in place with layers the new file
 * holds), so a size seen once is kept in it and the file asked again only
 * past it.
 */
static void
check_extent(Relation index, const BloomIndexMeta *meta)
{
	BlockNumber end, nblocks;

	if (meta->nlayers == 0)
		return;
	end = meta->layers[meta->nlayers - 1].first + meta->layers[meta->nlayers - 1].npages;
	/* the file's size asked only past what it was seen to hold: no system call per insert */
	if (end <= bloom_index_relcache(index)->known_blocks)
		return;
	nblocks = RelationGetNumberOfBlocks(index);
	if (end > nblocks)
		report_corrupt(index, BLOOM_INDEX_METAPAGE,
		               psprintf("Layer %u ends at block %u, past the end of the index (%u blocks).",
		                        meta->nlayers - 1, end, nblocks));
	bloom_index_relcache(index)->known_blocks = nblocks;
}

BloomIndexCache *
bloom_index_relcache(Relation index)
{
	if (index->rd_amcache == NULL)
		index->rd_amcache = MemoryContextAllocZero(index->rd_indexcxt, sizeof(BloomIndexCache));
	return (BloomIndexCache *) index->rd_amcache;
}

void
bloom_index_read_meta(Relation index, BloomIndexMeta *meta)
{
	Buffer buf = ReadBuffer(index, BLOOM_INDEX_METAPAGE);
	Page page;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (!is_meta_page(page))
	{
		UnlockReleaseBuffer(buf);
		report_corrupt(index, BLOOM_INDEX_METAPAGE, "The first page is not a metapage.");
	}
	memcpy(meta, PageGetContents(page), sizeof(BloomIndexMeta));
	UnlockReleaseBuffer(buf);
	bloom_index_check_meta(index, meta);
	check_extent(index, meta);
}

Buffer
bloom_index_pin_recent(Relation index, BlockNumber blkno, Buffer *recent)
{
	Assert(recent != NULL);
	if (*recent != InvalidBuffer && !RelationUsesLocalBuffers(index) &&
	    ReadRecentBuffer(BLOOM_REL_FILE(index), MAIN_FORKNUM, blkno, *recent))
		return *recent;
	*recent = ReadBuffer(index, blkno);
	return *recent;
}

void
bloom_index_refresh_meta(Relation index, BloomIndexMeta *meta, bool *valid, Buffer *recent)
{
	if (*valid)
	{
		Buffer buf = bloom_index_pin_recent(index, BLOOM_INDEX_METAPAGE, recent);
		Page page;
		bool same;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		/*
		 * The whole directory, not a summary of it: TRUNCATE of a table
		 * created in the same transaction rewrites the index in place, and
		 * its new layers may be as many as the old, elsewhere.
		 */
		same = is_meta_page(page) &&
		       ((BloomIndexMeta *) PageGetContents(page))->nlayers == meta->nlayers &&
		       memcmp(PageGetContents(page), meta, meta_extent(meta)) == 0;
		UnlockReleaseBuffer(buf);
		if (same)
			return;
	}
	/* (not valid while it is read: a copy that fails its checks is no copy) */
	*valid = false;
	bloom_index_read_meta(index, meta);
	*valid = true;
}

void
bloom_index_check_data_page(Relation index, Page page, BlockNumber blkno, int layer)
{
	BloomIndexOpaque *opaque;

	if (!special_is_ours(page))
		report_corrupt(index, blkno, "A data page is not one of this index's.");
	opaque = BloomIndexPageGetOpaque(page);
	if (!(opaque->flags & BLOOM_INDEX_DATA) || opaque->layer != layer)
		report_corrupt(index, blkno,
		               psprintf("A data page of layer %d says it belongs to layer %u.", layer,
		                        (unsigned) opaque->layer));
	if (opaque->nset > (uint64) BLOOM_INDEX_BLOCKS_PER_PAGE * BF_BLOCK_BITS)
		report_corrupt(index, blkno, "A data page counts more bits set than it holds.");
	/* its bits are no hole: a hole is not logged, and generic WAL zeroes it */
	if (((PageHeader) page)->pd_lower !=
	        BLOOM_INDEX_DATA_OFFSET + BLOOM_INDEX_BLOCKS_PER_PAGE * BLOOM_INDEX_BLOCK_BYTES ||
	    ((PageHeader) page)->pd_upper != ((PageHeader) page)->pd_special)
		report_corrupt(index, blkno, "A data page's free-space pointers are not its own.");
}

void
bloom_index_init_meta_page(Page page, const BloomIndexMeta *meta)
{
	BloomIndexOpaque *opaque;

	PageInit(page, BLCKSZ, sizeof(BloomIndexOpaque));
	opaque = BloomIndexPageGetOpaque(page);
	opaque->flags = BLOOM_INDEX_META;
	opaque->page_id = BLOOM_INDEX_PAGE_ID;
	memcpy(PageGetContents(page), meta, sizeof(BloomIndexMeta));
	/* the contents are data, not a hole: full-page images keep them */
	((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + sizeof(BloomIndexMeta);
}

void
bloom_index_init_data_page(Page page, int layer)
{
	BloomIndexOpaque *opaque;

	PageInit(page, BLCKSZ, sizeof(BloomIndexOpaque));
	opaque = BloomIndexPageGetOpaque(page);
	opaque->flags = BLOOM_INDEX_DATA;
	opaque->layer = (uint16) layer;
	opaque->page_id = BLOOM_INDEX_PAGE_ID;
	((PageHeader) page)->pd_lower =
	    BLOOM_INDEX_DATA_OFFSET + BLOOM_INDEX_BLOCKS_PER_PAGE * BLOOM_INDEX_BLOCK_BYTES;
}

BloomIndexSpot
bloom_index_spot(const BloomIndexMeta *meta, const BloomIndexLayer *layer, uint64 block)
{
	BloomIndexSpot spot;
	uint64 page = block / meta->blocks_per_page;
	uint64 blocks = layer->ncells / BF_BLOCK_BITS;

	Assert(block < blocks && page < layer->npages);
	spot.blkno = layer->first + (BlockNumber) page;
	spot.offset = BLOOM_INDEX_DATA_OFFSET +
	              (uint32) (block % meta->blocks_per_page) * BLOOM_INDEX_BLOCK_BYTES;
	spot.blocks_in_page =
	    (uint32) Min((uint64) meta->blocks_per_page, blocks - page * meta->blocks_per_page);
	return spot;
}

void
bloom_index_walk_layer(Relation index, const BloomIndexMeta *meta, int i,
                       BloomIndexPageVisitor visit, void *arg)
{
	const BloomIndexLayer *l = &meta->layers[i];

	Assert(i >= 0 && (uint32) i < meta->nlayers);
	for (uint32 p = 0; p < l->npages; p++)
	{
		BloomIndexSpot spot = bloom_index_spot(meta, l, (uint64) p * meta->blocks_per_page);
		Buffer buf = ReadBuffer(index, spot.blkno);
		Page page;

		CHECK_FOR_INTERRUPTS();
		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		bloom_index_check_data_page(index, page, spot.blkno, i);
		visit(index, page, &spot, (const uint8 *) page + spot.offset, arg);
		UnlockReleaseBuffer(buf);
	}
}

void
bloom_index_new_meta(BloomIndexMeta *meta, double rate, uint64 capacity)
{
	memset(meta, 0, sizeof(*meta));
	meta->magic = BLOOM_INDEX_MAGIC;
	meta->version = BLOOM_INDEX_VERSION;
	meta->seed = 0; /* bloom_agg's */
	meta->rate = rate;
	meta->growth = BLOOM_INDEX_GROWTH;
	meta->tightening = BLOOM_INDEX_TIGHTENING;
	meta->capacity = capacity;
	meta->blocks_per_page = BLOOM_INDEX_BLOCKS_PER_PAGE;
	meta->nlayers = 0;
}

/* Whether a blocked filter of ncells bits, at its best k, holds keys keys at rate. */
static bool
holds(uint64 ncells, double rate, double keys)
{
	int k = bf_layout_optimal_hashes(BF_LAYOUT_BLOCKED512, keys, (double) ncells);

	return bf_blocked_fpp(keys, (double) ncells, k) <= rate;
}

/* The most keys (at least at_least, which it holds) a blocked filter of ncells bits holds at rate. */
static double
most_keys(uint64 ncells, double rate, double at_least)
{
	double lo = at_least, hi = at_least * 2;

	Assert(holds(ncells, rate, lo));
	while (holds(ncells, rate, hi))
	{
		lo = hi;
		hi *= 2;
	}
	/* lo holds, hi does not: to within a key */
	while (hi - lo > 1)
	{
		double mid = floor((lo + hi) / 2);

		if (holds(ncells, rate, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

bool
bloom_index_next_layer(const BloomIndexMeta *meta, uint64 capacity, BlockNumber first,
                       BloomIndexLayer *layer)
{
	uint64 ncells;
	int nhashes;
	bf_error err;
	double rate;
	double keys;
	uint64 blocks;

	if (meta->nlayers >= BLOOM_INDEX_MAX_LAYERS)
		return false;
	/* layer i: capacity C g^i at rate P (1 - r) r^i (bloomindex.h) */
	if (meta->nlayers == 0)
	{
		keys = (double) Max(capacity, 1);
		rate = meta->rate * (1.0 - meta->tightening);
	}
	else
	{
		const BloomIndexLayer *last = &meta->layers[meta->nlayers - 1];

		keys = (double) last->capacity * meta->growth;
		rate = last->rate * meta->tightening;
	}
	if (!(rate > 0) || !(keys >= 1))
		return false;
	keys = Min(keys, 1e15);
	if (!bf_size_for_layout(BF_LAYOUT_BLOCKED512, keys, rate, &ncells, &nhashes, &err))
	{
		/*
		 * Larger than a layer may be (a bloom value's 1 GB of bits, so that
		 * bloom_index_filter can give it): the largest, in whole pages, for
		 * as many keys as it holds at the rate.
		 */
		uint64 per_page = (uint64) BF_BLOCK_BITS * meta->blocks_per_page;

		if (err.status != BF_ERR_TOO_LARGE)
			return false;
		ncells = BF_MAX_BITS / per_page * per_page;
		if (!holds(ncells, rate, 1))
			return false;
		keys = most_keys(ncells, rate, 1);
		nhashes = bf_layout_optimal_hashes(BF_LAYOUT_BLOCKED512, keys, (double) ncells);
	}
	/*
	 * At least one whole page, holding as many keys as it can at the rate:
	 * layers smaller than a page would only add pages for a probe to read.
	 */
	blocks = ncells / BF_BLOCK_BITS;
	if (blocks < meta->blocks_per_page)
	{
		blocks = meta->blocks_per_page;
		ncells = blocks * BF_BLOCK_BITS;
		keys = most_keys(ncells, rate, keys);
		nhashes = bf_layout_optimal_hashes(BF_LAYOUT_BLOCKED512, keys, (double) ncells);
	}
	memset(layer, 0, sizeof(*layer));
	layer->ncells = ncells;
	layer->nhashes = (uint16) nhashes;
	layer->capacity = (uint64) keys;
	layer->rate = rate;
	layer->full_fill = bf_blocked_fill(keys, (double) ncells, nhashes);
	layer->first = first;
	layer->npages = (uint32) ((blocks + meta->blocks_per_page - 1) / meta->blocks_per_page);
	return (uint64) first + layer->npages <= MaxBlockNumber;
}

Buffer
bloom_index_new_buffer(Relation index, ForkNumber fork)
{
	Buffer buf;

	/* only the build and a new layer (under the metapage's lock) extend the index */
	LockRelationForExtension(index, ExclusiveLock);
	buf = ReadBufferExtended(index, fork, P_NEW, RBM_NORMAL, NULL);
	UnlockRelationForExtension(index, ExclusiveLock);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	return buf;
}
