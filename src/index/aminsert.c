/*
 * aminsert.c
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
 * If that page's fraction of bits set has reached what the fullest of the
 * layer's pages has at its capacity, the layer is full (bloomindex.h): the
 * adder takes the growers' lock (add_layer) and, if no one has meanwhile,
 * appends a new layer: its pages in a free run, else at the high-water
 * mark (amspace.c; pages an interrupted growth left there are reused),
 * each logged whole, then the metapage naming it.  A key is never lost to
 * a race: it is in whichever layer it was added to, and every probe reads
 * every layer.  While a rebuild's layer is pending (amrebuild.c), every
 * add writes it too; a page found stamped for another layer (given away
 * after a rebuild) sends the add back to the metapage.
 */
#include "am.h"

#include "access/generic_xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "storage/predicate.h"
#include "utils/memutils.h"

static void add_layer(Relation index, uint32 expected_layers, const BloomIndexLayer *expected_last);

/*
 * This backend's adds to bloomfilter indexes: bumped before every key is
 * added, so that a reader in this backend (reader.h's BloomIndexReadKey)
 * knows its own adds, which its command id alone does not tell (a volatile
 * function or a trigger of an INSERT sees the INSERT's later rows under one
 * command id).  Every add counts, not only one that sets a bit: the bits of
 * a key this backend adds may have been set by another transaction's add,
 * not committed, after the reader copied the filter, or lie in a layer the
 * reader's directory does not name yet; the row this backend inserts is
 * visible to it either way.
 */
uint64 bloom_index_local_changes = 0;

bool
bloom_index_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
                   Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
                   IndexInfo *indexInfo)
{
	MemoryContext scratch, old;

	if (isnull[0])
		return false; /* no key: nothing to find */

	/*
	 * What hashing allocates (a detoasted or copied value: numeric's hash
	 * copies a short one) goes with this call, whatever context the caller
	 * runs it in (COPY's lives as long as a batch), as contrib/bloom does.
	 */
	scratch =
	    AllocSetContextCreate(CurrentMemoryContext, "bloomfilter insert", ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(scratch);
	bloom_index_add(index, values[0]);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(scratch);

	/*
	 * SERIALIZABLE: a reader of the filter takes the table's predicate lock,
	 * then reads bits (reader.h).  heap_insert checked that lock before the
	 * row went in, but a reader may have taken it since and read the bits
	 * before this add set them: it saw "absent", and read nothing of this
	 * row, as a scan would have (a scan's conflict-out check sees the new
	 * row's xmin).  Checking again now that the bits are set closes that
	 * window: a reader locked before this check is a conflict, and one
	 * locked after it reads the bits set.
	 */
	CheckForSerializableConflictIn(heapRel, NULL, InvalidBlockNumber);
	return false;
}

/* What adding a key to a layer found. */
typedef enum LayerAdd
{
	LAYER_ADDED, /* the key's bits are set (by this add or before) */
	LAYER_FULL,  /* and the page is now full (bloomindex.h) */
	LAYER_STALE, /* the page was given to another layer: the directory is old */
} LayerAdd;

/*
 * Set the key's bits in its block of layer l, number layer_no of its
 * directory; nothing changed if the key was held, or if the page is no
 * longer l's (LAYER_STALE).
 */
static LayerAdd
add_to_layer(Relation index, const BloomIndexMeta *meta, const BloomIndexLayer *l, int layer_no,
             uint64 h)
{
	bf_params p = {BF_LAYOUT_BLOCKED512, BF_SCHEME_DOUBLE_HASHING, l->nhashes, meta->seed,
	               l->ncells};
	BloomIndexSpot spot;
	Buffer buf;
	Page page;
	bool full;

	spot = bloom_index_spot(meta, l, bf_blocked_block(&p, h));
	buf = ReadBuffer(index, spot.blkno);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	if (!bloom_index_check_data_page(index, page, spot.blkno, layer_no, l->stamp))
	{
		UnlockReleaseBuffer(buf);
		return LAYER_STALE;
	}
	if (!bf_blocked_block_holds(&p, (const uint8 *) page + spot.offset, h))
	{
		GenericXLogState *xlog;
		Page copy;
		BloomIndexOpaque *opaque;

		xlog = GenericXLogStart(index);
		copy = GenericXLogRegisterBuffer(xlog, buf, 0);
		opaque = BloomIndexPageGetOpaque(copy);
		opaque->nset += bf_blocked_block_add(&p, (uint8 *) copy + spot.offset, h);
		opaque->nadded++;
		GenericXLogFinish(xlog);
	}
	page = BufferGetPage(buf);
	/* the layer is full at about its capacity, when its fullest page is (bloomindex.h) */
	full = (double) BloomIndexPageGetOpaque(page)->nset >=
	       bf_blocked_page_full_fill((double) l->capacity, (double) l->ncells, l->nhashes,
	                                 spot.blocks_in_page, l->npages) *
	           (double) spot.blocks_in_page * BF_BLOCK_BITS;
	UnlockReleaseBuffer(buf);
	return full ? LAYER_FULL : LAYER_ADDED;
}

/*
 * Add the key with hash h to meta's directory: to its last layer, unless
 * an earlier one holds it already; and to the layer a rebuild fills, if
 * one does (amrebuild.c), whatever the directory held: the rebuild's layer
 * must end with every key added while its scan ran.  *full: the last layer
 * is full.
 */
static LayerAdd
add_to_directory(Relation index, const BloomIndexMeta *meta, uint64 h, bool *full)
{
	int last = meta->nlayers - 1;
	bool held = false;
	LayerAdd added = LAYER_ADDED;

	*full = false;
	for (int i = 0; i < last && !held; i++)
		held = bloom_index_layer_contains(index, meta, i, h, NULL);
	if (!held)
	{
		added = add_to_layer(index, meta, &meta->layers[last], last, h);
		if (added == LAYER_STALE)
			return LAYER_STALE;
		*full = added == LAYER_FULL;
	}
	if (meta->rebuild.flags & BLOOM_INDEX_PENDING)
		added = add_to_layer(index, meta, &meta->rebuild.pending, 0, h);
	return added == LAYER_STALE ? LAYER_STALE : LAYER_ADDED;
}

void
bloom_index_add(Relation index, Datum value)
{
	BloomIndexMeta meta, stale;
	BloomHasher hasher;
	bool full;
	bool was_stale = false;

	bloom_index_local_changes++; /* before anything: see its comment */
	bloom_index_cached_hasher(index, &hasher);
	for (;;)
	{
		uint64 h;

		bloom_index_read_meta(index, &meta);
		if (meta.nlayers == 0)
		{
			/* an unlogged index's empty init fork, after a crash */
			add_layer(index, 0, NULL);
			bloom_index_read_meta(index, &meta);
			if (meta.nlayers == 0)
				elog(ERROR, "bloomfilter index \"%s\" could not add its first layer",
				     RelationGetRelationName(index));
		}
		h = bloom_hash_value(&hasher, value, meta.seed);
		if (add_to_directory(index, &meta, h, &full) != LAYER_STALE)
			break;
		/*
		 * A page given to another layer since the directory was read: a
		 * rebuild's switch came between (and its old pages freed, which
		 * waits for older snapshots: rare), or a left pending layer was
		 * freed.  The new directory takes the key.  The same directory
		 * twice: a grower or a rebuild's mark may be writing pages it will
		 * name next (never ones the metapage names: amrebuild.c), so wait
		 * for it (its lock) and read again; still the same is damage.
		 */
		if (was_stale && memcmp(&stale, &meta, sizeof(meta)) == 0)
		{
			LockPage(index, BLOOM_INDEX_METAPAGE, ShareLock);
			UnlockPage(index, BLOOM_INDEX_METAPAGE, ShareLock);
			bloom_index_read_meta(index, &meta);
		}
		if (was_stale && memcmp(&stale, &meta, sizeof(meta)) == 0)
			ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
			                errmsg("bloomfilter index \"%s\" is corrupt: a page of its "
			                       "directory is stamped for another layer",
			                       RelationGetRelationName(index)),
			                errhint("Rebuild it with REINDEX.")));
		stale = meta;
		was_stale = true;
	}
	if (full && !(meta.flags & BLOOM_INDEX_CANNOT_GROW))
		add_layer(index, meta.nlayers, &meta.layers[meta.nlayers - 1]);
}

/*
 * Append a layer, unless the index no longer has expected_layers layers,
 * the last of them expected_last (NULL: none) (someone else did it
 * meanwhile).  One adder at a time, under a
 * heavyweight lock on the metapage's block: the new pages at the end, each
 * logged whole, four to a record, interruptible; then, under the metapage's
 * buffer lock for a moment, the directory naming them.  Adds and probes
 * take only that buffer lock, briefly, and go on meanwhile.  If no layer
 * can be added, the metapage says so once (BLOOM_INDEX_CANNOT_GROW), and a
 * WARNING tells why.
 */
static void
add_layer(Relation index, uint32 expected_layers, const BloomIndexLayer *expected_last)
{
	BloomIndexMeta meta;
	BloomIndexLayer layer;
	GenericXLogState *xlog;
	Buffer metabuf;
	BlockNumber first;
	bool grown;

	LockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
	bloom_index_read_meta(index, &meta);
	/*
	 * (the last layer too: a rebuild's switch may have made a directory of
	 * as many layers, whose last is not the one found full)
	 */
	if (meta.nlayers != expected_layers || (meta.flags & BLOOM_INDEX_CANNOT_GROW) ||
	    (expected_last != NULL &&
	     memcmp(&meta.layers[meta.nlayers - 1], expected_last, sizeof(BloomIndexLayer)) != 0))
	{
		UnlockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
		return;
	}
	/*
	 * In a free run, else at the high-water mark (amspace.c): pages an
	 * interrupted growth (an error, a cancel, a crash) left there are named
	 * by no layer, read by no one, and written only under the growers'
	 * lock; they are reused.
	 */
	grown = bloom_index_next_layer(&meta, meta.capacity, 0, &layer);
	first = grown ? bloom_index_place(&meta, layer.npages) : InvalidBlockNumber;
	grown = grown && (uint64) first + layer.npages <= MaxBlockNumber;
	layer.first = first;
	layer.stamp = meta.rebuild.stamp;
	if (grown)
		bloom_index_write_empty_layer(index, &layer, meta.nlayers);

	/* publish: only adders change the metapage, and this one holds their lock */
	metabuf = ReadBuffer(index, BLOOM_INDEX_METAPAGE);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	xlog = GenericXLogStart(index);
	{
		Page page = GenericXLogRegisterBuffer(xlog, metabuf, 0);
		BloomIndexMeta *on_page = bloom_index_meta_for_write(page);

		Assert(on_page->nlayers == expected_layers);
		if (grown)
		{
			bloom_index_take(on_page, layer.first, layer.npages);
			on_page->layers[on_page->nlayers++] = layer;
		}
		else
			on_page->flags |= BLOOM_INDEX_CANNOT_GROW;
	}
	GenericXLogFinish(xlog);
	UnlockReleaseBuffer(metabuf);
	UnlockPage(index, BLOOM_INDEX_METAPAGE, ExclusiveLock);
	if (!grown)
		ereport(WARNING,
		        (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		         errmsg("bloomfilter index \"%s\" cannot grow past %u layers",
		                RelationGetRelationName(index), meta.nlayers),
		         errdetail("Keys are still added to its last layer, whose false-positive rate "
		                   "now grows past its share of the declared one."),
		         errhint("Rebuild it with REINDEX, with a larger capacity option.")));
}
