/*
 * amsnapshot.c
 *	  bloom_index_filter(index): a bloomfilter index as an ordinary bloom
 *	  value, of the layered layout (core/bf_format.h), so that everything a
 *	  filter can do applies to it: probe it with bloom_contains or @>, union
 *	  it, store it, ship it to another server.
 *
 * Its layers are the index's, in order, bit for bit (an index's layer is a
 * blocked512 filter laid over pages: its blocks are copied out of them in
 * block order), with the index's seed and its column's element key, so the
 * value answers every key exactly as the index does.  A partitioned index
 * gives its partitions' indexes' layers, one after another: a key is in the
 * partitioned table if some partition's filter holds it, and so some layer.
 * n is the keys the layers' pages count as added.
 *
 * The pages are read one at a time under a share lock, while inserts may go
 * on: every key committed before the call began is in the value; one added
 * during it may be or not.
 */
#include "bloomindex.h"

#include "access/genam.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "fmgr.h"
#include "storage/lmgr.h"
#include "utils/lsyscache.h"

/* One layer of the value: an index's layer. */
typedef struct SourceLayer
{
	Oid index;
	int layer; /* in that index */
	BloomIndexMeta *meta;
} SourceLayer;

/* Where copy_layer copies to, and what it counts. */
typedef struct LayerCopy
{
	uint8 *bits;   /* the layer's bits in the value */
	Size per_page; /* bytes of a full page's blocks */
	uint32 page;   /* the page being copied, from 0 */
	uint64 added;
} LayerCopy;

/* bloom_index_walk_layer's visitor for copy_layer: copy a page's blocks in. */
static void
copy_page(Relation index, Page page, const BloomIndexSpot *spot, const uint8 *bits, void *arg)
{
	LayerCopy *copy = arg;
	uint8 *to = copy->bits + (Size) copy->page * copy->per_page;
	Size bytes = (Size) spot->blocks_in_page * BLOOM_INDEX_BLOCK_BYTES;

	/*
	 * A page given to another layer (a directory older than a rebuild):
	 * every bit "maybe", and counted as a key, so that the value is never
	 * taken for an empty filter (bloom_index_snapshot empties one whose
	 * pages count none).
	 */
	if (bits == NULL)
	{
		memset(to, 0xFF, bytes);
		copy->added++;
	}
	else
	{
		memcpy(to, bits, bytes);
		copy->added += BloomIndexPageGetOpaque(page)->nadded;
	}
	copy->page++;
}

/*
 * Copy layer src (its pages, in order) into bits, which holds its ncells
 * bits; returns the keys its pages count as added.
 */
static uint64
copy_layer(Relation index, const BloomIndexMeta *meta, int layer, uint8 *bits)
{
	LayerCopy copy = {bits, (Size) meta->blocks_per_page * BLOOM_INDEX_BLOCK_BYTES, 0, 0};

	bloom_index_walk_layer(index, meta, layer, copy_page, &copy);
	return copy.added;
}

/*
 * A new layered value of shape p, its layers' m and k from layers (none:
 * one layer of 512 bits), with the element key given; its bits zero if
 * zero, else left for the caller to fill.
 */
static bytea *
new_value(const bf_params *p, const SourceLayer *layers, int nlayers, const char *elem,
          size_t elemlen, bool zero, bf_view *view)
{
	bf_error err;
	size_t len;
	bytea *value;

	if (!bf_params_check(p, elemlen, &err) || !bf_payload_size(p, 0, elemlen, &len, &err))
		ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		                errmsg("bloomfilter index is too large for a bloom value"),
		                errdetail_internal("%s", err.message)));
	value = (bytea *) palloc_extended(VARHDRSZ + len, MCXT_ALLOC_HUGE);
	SET_VARSIZE(value, VARHDRSZ + len);
	if (zero)
		bf_init((uint8 *) VARDATA(value), p, 0, elem, elemlen, 0, view);
	else
		bf_init_header((uint8 *) VARDATA(value), p, 0, elem, elemlen, 0, view);
	if (nlayers == 0)
		bf_view_set_layer(view, 0, BF_BLOCK_BITS, 1);
	for (int i = 0; i < nlayers; i++)
	{
		const BloomIndexLayer *l = &layers[i].meta->layers[layers[i].layer];

		bf_view_set_layer(view, (unsigned) i, l->ncells, l->nhashes);
	}
	return value;
}

/*
 * Raise 54000: the layers of nleaves indexes do not fit in one bloom value.
 * Each partition's index has a layer at least, so a partitioned index of
 * more than BF_MAX_LAYERS partitions never fits, and REINDEX cannot help
 * it; one index that grew past them by inserts fits again once REINDEX
 * sizes its first layer for the table.
 */
pg_noreturn static void
too_many_layers(int nleaves)
{
	if (nleaves > 1)
		ereport(ERROR,
		        (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		         errmsg("bloomfilter index has more than %d layers over its %d partitions' "
		                "indexes, the most a bloom value holds",
		                BF_MAX_LAYERS, nleaves),
		         errdetail("Each partition's index is a layer at least."),
		         errhint("Take the filter of each partition's index (bloom_index_filter on it), "
		                 "or ask bloom_index_contains, which reads any number of partitions.")));
	ereport(ERROR,
	        (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
	         errmsg("bloomfilter index has more than %d layers, the most a bloom value holds",
	                BF_MAX_LAYERS),
	         errhint("Rebuild it with REINDEX: its first layer is then sized for the table.")));
}

/*
 * The value of the layers of indexes leaves (bloomfilter indexes, not
 * partitioned ones), whose keys hasher hashes; the caller checked the right
 * to read them.
 */
bytea *
bloom_index_snapshot(List *leaves, const BloomHasher *hasher)
{
	SourceLayer layers[BF_MAX_LAYERS];
	List *metas = NIL; /* each leaf's, freed at the end: a rescanned join takes many snapshots */
	int nlayers = 0;
	uint64 ncells = 0, nadded = 0, seed = 0;
	bf_params p;
	bytea *result;
	bf_view view;
	ListCell *lc;
	Size offset = 0;

	foreach (lc, leaves)
	{
		Oid table = IndexGetRelation(lfirst_oid(lc), false);
		Relation index;
		BloomIndexMeta *meta = palloc(sizeof(BloomIndexMeta));

		metas = lappend(metas, meta);

		LockRelationOid(table, AccessShareLock);
		index = index_open(lfirst_oid(lc), AccessShareLock);
		bloom_index_read_meta(index, meta);
		index_close(index, NoLock);
		if (foreach_current_index(lc) > 0 && meta->seed != seed)
			elog(ERROR, "bloomfilter indexes of one partitioned index have different seeds");
		seed = meta->seed;
		for (uint32 i = 0; i < meta->nlayers; i++)
		{
			if (nlayers == BF_MAX_LAYERS)
				too_many_layers(list_length(leaves));
			layers[nlayers].index = lfirst_oid(lc);
			layers[nlayers].layer = (int) i;
			layers[nlayers].meta = meta;
			ncells += meta->layers[i].ncells;
			nlayers++;
		}
	}
	p.layout = BF_LAYOUT_LAYERED;
	p.scheme = BF_SCHEME_DOUBLE_HASHING;
	p.seed = seed;
	p.nhashes = (uint16) Max(nlayers, 1);
	/* no layer yet (an unlogged index after a crash): one empty layer, which holds nothing */
	p.ncells = nlayers > 0 ? ncells : BF_BLOCK_BITS;
	if (nlayers == 0)
	{
		list_free_deep(metas);
		return new_value(&p, layers, 0, "", 0, true, &view);
	}

	result = new_value(&p, layers, nlayers, hasher->elem, hasher->elemlen, false, &view);
	for (int i = 0; i < nlayers; i++)
	{
		const BloomIndexLayer *l = &layers[i].meta->layers[layers[i].layer];
		Relation index = index_open(layers[i].index, AccessShareLock); /* locked above */

		nadded += copy_layer(index, layers[i].meta, layers[i].layer, view.data + offset);
		index_close(index, NoLock);
		offset += l->ncells / 8;
	}
	/*
	 * No key added means no bit set (a key is counted where it set one): the
	 * value holds nothing, and its element key is empty (bf_format.h).
	 */
	if (nadded == 0)
	{
		pfree(result);
		result = new_value(&p, layers, nlayers, "", 0, true, &view);
	}
	else
		bf_view_set_nadded(&view, Min(nadded, (uint64) PG_INT64_MAX));
	list_free_deep(metas);
	return result;
}
