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

/* Whether page is our metapage, with room for a version 1 BloomIndexMeta at least. */
static bool
is_meta_page(Page page)
{
	return special_is_ours(page) && (BloomIndexPageGetOpaque(page)->flags & BLOOM_INDEX_META) &&
	       ((PageHeader) page)->pd_lower >=
	           MAXALIGN(SizeOfPageHeaderData) + BLOOM_INDEX_META_V1_SIZE;
}

/* Whether a metapage holds the version 2 part too (its free space pointer past it). */
static bool
has_rebuild_part(Page page)
{
	return ((PageHeader) page)->pd_lower >= MAXALIGN(SizeOfPageHeaderData) + sizeof(BloomIndexMeta);
}

/* The end of the pages a version 1 directory names: its last layer's (they lie in order). */
static BlockNumber
v1_high_water(const BloomIndexMeta *meta)
{
	uint32 n = Min(meta->nlayers, BLOOM_INDEX_MAX_LAYERS);

	return n > 0 ? meta->layers[n - 1].first + meta->layers[n - 1].npages
	             : BLOOM_INDEX_METAPAGE + 1;
}

/*
 * Copy the contents of page (a metapage) into *meta; a version 1 metapage's
 * second part as a version 2 index starts it: nothing pending, free or
 * retired, every page before its last layer's end in use.
 */
static void
copy_meta(Page page, BloomIndexMeta *meta)
{
	if (has_rebuild_part(page))
	{
		memcpy(meta, PageGetContents(page), sizeof(BloomIndexMeta));
		return;
	}
	memcpy(meta, PageGetContents(page), BLOOM_INDEX_META_V1_SIZE);
	memset(&meta->rebuild, 0, sizeof(meta->rebuild));
	meta->rebuild.high_water = v1_high_water(meta);
	/* a later version's metapage ends past its second part: this one is cut short */
	if (meta->version != BLOOM_INDEX_VERSION_1)
		meta->rebuild.high_water = 0; /* meta_problem reports it */
}

BloomIndexMeta *
bloom_index_meta_for_write(Page page)
{
	BloomIndexMeta *on_page = (BloomIndexMeta *) PageGetContents(page);

	Assert(is_meta_page(page));
	if (!has_rebuild_part(page))
	{
		BloomIndexMeta upgraded;

		copy_meta(page, &upgraded);
		upgraded.version = BLOOM_INDEX_VERSION;
		memcpy(on_page, &upgraded, sizeof(BloomIndexMeta));
		/* the contents are data, not a hole: full-page images keep them */
		((PageHeader) page)->pd_lower = MAXALIGN(SizeOfPageHeaderData) + sizeof(BloomIndexMeta);
	}
	return on_page;
}

/* Whether run e of pages lies after the metapage and before end. */
static bool
extent_is_sane(const BloomIndexExtent *e, uint64 end)
{
	return e->npages > 0 && e->first > BLOOM_INDEX_METAPAGE && (uint64) e->first + e->npages <= end;
}

/* Whether layer l's numbers can be, its pages before end. */
static bool
layer_is_sane(const BloomIndexMeta *meta, const BloomIndexLayer *l, uint64 end)
{
	uint64 blocks = l->ncells / BF_BLOCK_BITS;
	BloomIndexExtent e = {l->first, l->npages};

	return l->ncells > 0 && l->ncells % BF_BLOCK_BITS == 0 && l->ncells <= BF_MAX_BITS &&
	       l->nhashes >= 1 && l->nhashes <= BF_MAX_HASHES && (l->rate > 0 && l->rate < 1) &&
	       (l->full_fill > 0 && l->full_fill <= 1) && l->capacity >= 1 &&
	       l->npages == (blocks + meta->blocks_per_page - 1) / meta->blocks_per_page &&
	       extent_is_sane(&e, end);
}

/*
 * What is wrong with meta, a copy of a metapage, or NULL if nothing is;
 * *version_only: only its version is not this build's.
 */
static const char *
meta_problem(const BloomIndexMeta *meta, bool *version_only)
{
	const BloomIndexRebuildMeta *r = &meta->rebuild;
	uint64 end = r->high_water;

	*version_only = false;
	if (meta->magic != BLOOM_INDEX_MAGIC)
		return "The metapage has the wrong magic number.";
	if (meta->version != BLOOM_INDEX_VERSION && meta->version != BLOOM_INDEX_VERSION_1)
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
	if (end <= BLOOM_INDEX_METAPAGE || end > MaxBlockNumber || r->nfree > BLOOM_INDEX_MAX_FREE ||
	    r->nretired > BLOOM_INDEX_MAX_RETIRED || (r->flags & ~BLOOM_INDEX_REBUILD_FLAGS) != 0 ||
	    r->last_reason > BLOOM_INDEX_REBUILT_MANUAL)
		return "The metapage's free pages or rebuild state are out of range.";
	/* every page named lies between the metapage and the high-water mark */
	for (uint32 i = 0; i < meta->nlayers; i++)
		if (!layer_is_sane(meta, &meta->layers[i], end))
			return psprintf("Layer %u is malformed.", i);
	if ((r->flags & BLOOM_INDEX_PENDING) && !layer_is_sane(meta, &r->pending, end))
		return "The rebuild's layer is malformed.";
	for (uint32 i = 0; i < r->nfree; i++)
		if (!extent_is_sane(&r->free[i], end))
			return "A run of free pages lies outside the index.";
	for (uint32 i = 0; i < r->nretired; i++)
		if (!extent_is_sane(&r->retired[i].pages, end))
			return "A run of retired pages lies outside the index.";
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
		copy_meta(page, meta);
	UnlockReleaseBuffer(buf);
	return ours && meta_problem(meta, &version_only) == NULL;
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
	BlockNumber end = meta->rebuild.high_water, nblocks;

	/* the file's size asked only past what it was seen to hold: no system call per insert */
	if (end <= bloom_index_relcache(index)->known_blocks)
		return;
	nblocks = RelationGetNumberOfBlocks(index);
	if (end > nblocks)
		report_corrupt(index, BLOOM_INDEX_METAPAGE,
		               psprintf("Pages in use end at block %u, past the end of the index (%u "
		                        "blocks).",
		                        end, nblocks));
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
	copy_meta(page, meta);
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
		BloomIndexMeta now;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		/*
		 * The whole metapage, not a summary of it: TRUNCATE of a table
		 * created in the same transaction rewrites the index in place, and
		 * its new layers may be as many as the old, elsewhere; a rebuild
		 * puts its layer where others were.
		 */
		same = is_meta_page(page);
		if (same)
		{
			copy_meta(page, &now);
			same = memcmp(&now, meta, sizeof(now)) == 0;
		}
		UnlockReleaseBuffer(buf);
		if (same)
			return;
	}
	/* (not valid while it is read: a copy that fails its checks is no copy) */
	*valid = false;
	bloom_index_read_meta(index, meta);
	*valid = true;
}

bool
bloom_index_check_data_page(Relation index, Page page, BlockNumber blkno, int layer, uint16 stamp)
{
	BloomIndexOpaque *opaque;

	if (!special_is_ours(page))
		report_corrupt(index, blkno, "A data page is not one of this index's.");
	opaque = BloomIndexPageGetOpaque(page);
	/* given to another layer since the caller read its directory (pages.h) */
	if ((opaque->flags & BLOOM_INDEX_DATA) && opaque->stamp != stamp)
		return false;
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
	return true;
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
bloom_index_init_data_page(Page page, int layer, uint16 stamp)
{
	BloomIndexOpaque *opaque;

	PageInit(page, BLCKSZ, sizeof(BloomIndexOpaque));
	opaque = BloomIndexPageGetOpaque(page);
	opaque->flags = BLOOM_INDEX_DATA;
	opaque->layer = (uint16) layer;
	opaque->stamp = stamp;
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
		if (bloom_index_check_data_page(index, page, spot.blkno, i, l->stamp))
			visit(index, page, &spot, (const uint8 *) page + spot.offset, arg);
		else
			visit(index, page, &spot, NULL, arg);
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
	meta->rebuild.high_water = BLOOM_INDEX_METAPAGE + 1;
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

/*
 * Room in a first layer for the keys to come, per distinct key it is sized
 * for.  Without rebuilds, 5 %: a layer at its capacity is full, and a page
 * of it that crosses the fill of its capacity (which about half do, when
 * the layer holds just that) would add a layer at the next insert into it.
 * With rebuilds, the factor and a quarter more: VACUUM rebuilds when the
 * keys reach the factor, and autovacuum comes only after a fifth of the
 * rows changed (autovacuum_vacuum_scale_factor), so the keys may pass the
 * factor by that much first; a layer that held fewer would grow a second,
 * twice its size, before each rebuild, and the index would hold both and
 * the rebuild's (three times its rows' size); with this one, two (the old
 * and the new, side by side until the old is freed).
 */
double
bloom_index_headroom(Relation index)
{
	BloomIndexOptions *options = (BloomIndexOptions *) index->rd_options;
	double factor = options ? options->rebuild_factor : BLOOM_INDEX_DEFAULT_REBUILD_FACTOR;

	return factor > 0 ? factor + 0.25 : 1.05;
}

uint64
bloom_index_option_capacity(Relation index)
{
	BloomIndexOptions *options = (BloomIndexOptions *) index->rd_options;
	double headroom = bloom_index_headroom(index);

	if (options == NULL || options->capacity <= 0)
		return 0;
	/*
	 * The keys the table keeps, with the rebuild factor's room (without
	 * rebuilds, exactly what was asked, as before 1.12)
	 */
	return headroom > 1.05 ? (uint64) ceil((double) options->capacity * headroom)
	                       : (uint64) options->capacity;
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
