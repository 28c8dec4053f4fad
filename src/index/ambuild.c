/*
 * ambuild.c
 *	  CREATE INDEX ... USING bloomfilter: one pass over the table into
 *	  layers held in memory, then the pages written; and the empty index of
 *	  an unlogged table.
 *
 * The first layer is sized for the table's distinct keys: the pass keeps
 * the keys' hashes while they fit in maintenance_work_mem, and at its end
 * counts the distinct ones and sizes the layer for them, with
 * bloom_index_headroom for the inserts to come.  A table whose
 * hashes do not fit gets a first layer sized for the planner's estimate of
 * its rows (which needs no ANALYZE), or for the hashes kept so far if more,
 * with the same headroom, when they stop fitting, and the pass goes on
 * adding keys to it.  The
 * capacity option, when given, sizes the first layer instead (with the
 * same headroom where rebuilds are on: bloom_index_option_capacity), from the
 * start.  Either way a layer is at least one page's worth.
 *
 * Keys go into memory layers exactly as inserts go into pages (aminsert.c):
 * a key already held by some layer is not added again, and a layer whose
 * fill reaches its capacity's is followed by the next; so a size too small
 * costs layers, never the rate.  The pages are then written through shared
 * buffers and logged whole (generic WAL, as contrib/bloom does), four to a
 * record.
 */
#include "am.h"

#include "access/generic_xlog.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "miscadmin.h"
#include "optimizer/plancat.h"
#include "storage/bufmgr.h"
#include "storage/smgr.h"
#include "utils/memutils.h"

#include <math.h>

/* A layer being built in memory: its bits, and per page the keys added. */
typedef struct MemoryLayer
{
	uint8 *bits;        /* ncells / 8 bytes */
	uint64 *page_added; /* keys that set a bit, per page */
	uint64 set;         /* bits set, all pages */
} MemoryLayer;

typedef struct BuildState
{
	BloomIndexMeta meta;
	MemoryLayer layers[BLOOM_INDEX_MAX_LAYERS];
	BloomHasher hasher;
	Relation index;
	Relation heap;
	double rows; /* rows seen with a key */
	/* the hashes kept while no layer is sized (hashes non-NULL) */
	uint64 *hashes;
	Size nhashes;
	Size max_hashes;
	MemoryContext scratch; /* what hashing a row allocates, reset after it */
	double headroom;       /* bloom_index_headroom */
} BuildState;

static void add_layer(BuildState *state, uint64 capacity);
static void add_key(BuildState *state, uint64 h);
static void size_first_layer(BuildState *state, uint64 capacity);
static void build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool alive,
                           void *arg);
static void write_pages(BuildState *state);

/* Whether memory layer i holds the key with hash h; if add, also add it there. */
static bool
memory_test(BuildState *state, int i, uint64 h, bool add)
{
	const BloomIndexLayer *l = &state->meta.layers[i];
	MemoryLayer *ml = &state->layers[i];
	bf_params p = {BF_LAYOUT_BLOCKED512, BF_SCHEME_DOUBLE_HASHING, l->nhashes, state->meta.seed,
	               l->ncells};
	uint64 block = bf_blocked_block(&p, h);
	uint8 *bytes = ml->bits + block * BLOOM_INDEX_BLOCK_BYTES;
	unsigned newly;

	if (!add)
		return bf_blocked_block_holds(&p, bytes, h);
	newly = bf_blocked_block_add(&p, bytes, h);
	if (newly > 0)
	{
		ml->set += newly;
		ml->page_added[block / state->meta.blocks_per_page]++;
	}
	return newly == 0;
}

IndexBuildResult *
bloom_index_build(Relation heap, Relation index, IndexInfo *indexInfo)
{
	BloomIndexOptions *options = (BloomIndexOptions *) index->rd_options;
	double rate = options ? options->false_positive_rate : BLOOM_INDEX_DEFAULT_RATE;
	BuildState state;
	IndexBuildResult *result;
	double tuples;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));
	/* a filter of some rows would answer "absent" for the keys of the others */
	if (indexInfo->ii_Predicate != NIL)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("bloomfilter indexes cannot be partial"),
		                errdetail("Its filter answers for every row of the table: one of some "
		                          "rows would say \"absent\" of the others' keys.")));
	bloom_index_check_collation(index, true);
	memset(&state, 0, sizeof(state));
	state.index = index;
	state.heap = heap;
	state.headroom = bloom_index_headroom(index);
	state.scratch =
	    AllocSetContextCreate(CurrentMemoryContext, "bloomfilter build row", ALLOCSET_SMALL_SIZES);
	bloom_index_hasher(index, &state.hasher);
	bloom_index_new_meta(&state.meta, rate, bloom_index_option_capacity(index));
	if (state.meta.capacity > 0)
		size_first_layer(&state, state.meta.capacity);
	else
	{
		/* keep the hashes while they fit: the distinct ones size the first layer */
		state.max_hashes = Max((Size) maintenance_work_mem * 1024 / sizeof(uint64), 1024);
		state.hashes = palloc(Min(state.max_hashes, 65536) * sizeof(uint64));
	}

	tuples = table_index_build_scan(heap, index, indexInfo, true, true, build_callback,
	                                (void *) &state, NULL);
	if (state.hashes != NULL)
	{
		uint64 *tmp =
		    MemoryContextAllocHuge(CurrentMemoryContext, Max(state.nhashes, 1) * sizeof(uint64));
		Size distinct = bf_hashes_sort_unique(state.hashes, state.nhashes, tmp);

		pfree(tmp);
		size_first_layer(&state, (uint64) ceil(Max(distinct, 1) * state.headroom));
	}
	/* what a rebuild's trigger compares with (amvacuum.c) */
	state.meta.rebuild.baseline_rows = state.rows;
	if (bloom_index_row_counts(heap, &state.meta.rebuild.baseline_gone,
	                           &state.meta.rebuild.baseline_added))
		state.meta.rebuild.flags |= BLOOM_INDEX_GONE_KNOWN;
	for (uint32 i = 0; i < state.meta.nlayers; i++)
		for (uint32 p = 0; p < state.meta.layers[i].npages; p++)
			state.meta.rebuild.baseline_keys += state.layers[i].page_added[p];
	state.meta.rebuild.high_water = state.meta.nlayers == 0
	                                    ? BLOOM_INDEX_METAPAGE + 1
	                                    : state.meta.layers[state.meta.nlayers - 1].first +
	                                          state.meta.layers[state.meta.nlayers - 1].npages;
	write_pages(&state);

	result = palloc0(sizeof(IndexBuildResult));
	result->heap_tuples = tuples;
	result->index_tuples = state.rows;
	return result;
}

/*
 * Size the first layer for capacity keys (recorded in the metapage), and
 * add the hashes kept so far, which are then no longer kept.
 */
static void
size_first_layer(BuildState *state, uint64 capacity)
{
	uint64 *hashes = state->hashes;
	Size n = state->nhashes;

	Assert(state->meta.nlayers == 0);
	state->meta.capacity = capacity;
	add_layer(state, capacity);
	state->hashes = NULL;
	state->nhashes = 0;
	for (Size i = 0; i < n; i++)
	{
		if (i % 65536 == 0)
			CHECK_FOR_INTERRUPTS();
		add_key(state, hashes[i]);
	}
	if (hashes != NULL)
		pfree(hashes);
}

/* Append a memory layer after the last (capacity: the first layer's keys). */
static void
add_layer(BuildState *state, uint64 capacity)
{
	BloomIndexMeta *meta = &state->meta;
	BloomIndexLayer layer;
	BlockNumber first = meta->nlayers == 0 ? BLOOM_INDEX_METAPAGE + 1
	                                       : meta->layers[meta->nlayers - 1].first +
	                                             meta->layers[meta->nlayers - 1].npages;

	if (!bloom_index_next_layer(meta, capacity, first, &layer))
	{
		/* the first layer always can be (sized down to what a layer may hold) */
		if (meta->nlayers == 0)
			elog(ERROR, "bloomfilter index \"%s\": no first layer for %llu keys at rate %g",
			     RelationGetRelationName(state->index), (unsigned long long) capacity, meta->rate);
		/* as inserts do: the last layer takes every key (aminsert.c) */
		meta->flags |= BLOOM_INDEX_CANNOT_GROW;
		ereport(WARNING,
		        (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
		         errmsg("bloomfilter index \"%s\" cannot grow past %u layers",
		                RelationGetRelationName(state->index), meta->nlayers),
		         errdetail("Keys are added to its last layer, whose false-positive rate grows "
		                   "past its share of the declared one."),
		         errhint("Build it with a larger capacity option.")));
		return;
	}
	state->layers[meta->nlayers].bits =
	    MemoryContextAllocHuge(CurrentMemoryContext, layer.ncells / 8);
	memset(state->layers[meta->nlayers].bits, 0, layer.ncells / 8);
	state->layers[meta->nlayers].page_added = palloc0(layer.npages * sizeof(uint64));
	meta->layers[meta->nlayers++] = layer;
}

static void
build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool alive, void *arg)
{
	BuildState *state = (BuildState *) arg;
	uint64 h;

	if (isnull[0])
		return; /* no key: nothing to find */
	{
		MemoryContext old = MemoryContextSwitchTo(state->scratch);

		h = bloom_hash_value(&state->hasher, values[0], state->meta.seed);
		MemoryContextSwitchTo(old);
		MemoryContextReset(state->scratch);
	}
	state->rows++;
	if (state->hashes == NULL)
	{
		add_key(state, h);
		return;
	}
	if (state->nhashes == state->max_hashes)
	{
		/* too many to keep: size for the table's rows, or what was kept if more */
		BlockNumber pages;
		double tuples, allvisfrac;

		estimate_rel_size(state->heap, NULL, &pages, &tuples, &allvisfrac);
		/*
		 * With the headroom too: a layer sized for exactly the table's keys
		 * is full before it holds them all (its fullest page reaches the
		 * fill at capacity first), and would be followed by a second layer
		 * of twice its size (10,000,000 keys: 46 MB instead of 12).
		 */
		size_first_layer(state,
		                 (uint64) ceil(Max(tuples, (double) state->max_hashes) * state->headroom));
		add_key(state, h);
		return;
	}
	if (state->nhashes > 0 && (state->nhashes & (state->nhashes - 1)) == 0 &&
	    state->nhashes >= 65536)
		state->hashes = repalloc_huge(state->hashes,
		                              Min(state->nhashes * 2, state->max_hashes) * sizeof(uint64));
	state->hashes[state->nhashes++] = h;
}

/* Add a key to the memory layers, as aminsert.c adds one to the pages. */
static void
add_key(BuildState *state, uint64 h)
{
	int last = state->meta.nlayers - 1;

	/* held already (or a false positive, which stays one): nothing to add */
	for (int i = 0; i < last; i++)
		if (memory_test(state, i, h, false))
			return;
	if (memory_test(state, last, h, true))
		return;
	/* the whole layer's fill, not a page's: in memory it is known */
	if (!(state->meta.flags & BLOOM_INDEX_CANNOT_GROW) &&
	    (double) state->layers[last].set >=
	        state->meta.layers[last].full_fill * (double) state->meta.layers[last].ncells)
		add_layer(state, 0);
}

/* Copy memory layer i's page p into page (a new data page of the layer). */
static void
fill_page(BuildState *state, int i, uint32 p, Page page)
{
	const BloomIndexLayer *l = &state->meta.layers[i];
	MemoryLayer *ml = &state->layers[i];
	BloomIndexSpot spot =
	    bloom_index_spot(&state->meta, l, (uint64) p * state->meta.blocks_per_page);
	Size bytes = (Size) spot.blocks_in_page * BLOOM_INDEX_BLOCK_BYTES;
	const uint8 *from = ml->bits + (Size) p * state->meta.blocks_per_page * BLOOM_INDEX_BLOCK_BYTES;
	BloomIndexOpaque *opaque;
	uint64 set = 0;

	bloom_index_init_data_page(page, i, 0);
	memcpy((char *) page + spot.offset, from, bytes);
	set = pg_popcount((const char *) from, bytes);
	opaque = BloomIndexPageGetOpaque(page);
	opaque->nset = set;
	opaque->nadded = ml->page_added[p];
}

/* Write the metapage and every layer's pages, logged whole. */
static void
write_pages(BuildState *state)
{
	Buffer buffers[MAX_GENERIC_XLOG_PAGES];
	int pending = 0;
	GenericXLogState *xlog = NULL;
	BlockNumber next = BLOOM_INDEX_METAPAGE;

	for (int i = -1; i < (int) state->meta.nlayers; i++)
	{
		uint32 npages = i < 0 ? 1 : state->meta.layers[i].npages;

		if (i >= 0)
			Assert(state->meta.layers[i].first == next);
		for (uint32 p = 0; p < npages; p++)
		{
			Buffer buf = bloom_index_new_buffer(state->index, MAIN_FORKNUM);
			Page page;

			CHECK_FOR_INTERRUPTS();
			if (BufferGetBlockNumber(buf) != next)
				elog(ERROR, "bloomfilter index \"%s\": new page %u, expected %u",
				     RelationGetRelationName(state->index), BufferGetBlockNumber(buf), next);
			if (pending == 0)
				xlog = GenericXLogStart(state->index);
			page = GenericXLogRegisterBuffer(xlog, buf, GENERIC_XLOG_FULL_IMAGE);
			if (i < 0)
				bloom_index_init_meta_page(page, &state->meta);
			else
				fill_page(state, i, p, page);
			buffers[pending++] = buf;
			next++;
			if (pending == MAX_GENERIC_XLOG_PAGES)
			{
				GenericXLogFinish(xlog);
				for (int b = 0; b < pending; b++)
					UnlockReleaseBuffer(buffers[b]);
				pending = 0;
			}
		}
	}
	if (pending > 0)
	{
		GenericXLogFinish(xlog);
		for (int b = 0; b < pending; b++)
			UnlockReleaseBuffer(buffers[b]);
	}
}

/*
 * The init fork of an unlogged table's index: a metapage with no layer (the
 * table is empty after a crash; the first insert adds the first layer),
 * logged, since init forks must survive one.  The first layer it will add
 * is the one the build sized (the capacity option, or the table's keys at
 * CREATE INDEX or REINDEX, which PostgreSQL builds just before this), not
 * one for a single key: a table refilled after a crash would otherwise grow
 * a layer per doubling, each read by every probe.
 */
void
bloom_index_build_empty(Relation index)
{
	BloomIndexOptions *options = (BloomIndexOptions *) index->rd_options;
	BloomIndexMeta meta, built;
	uint64 capacity = 1;
	Buffer buf;

	if (bloom_index_option_capacity(index) > 0)
		capacity = bloom_index_option_capacity(index);
	else if (smgrexists(RelationGetSmgr(index), MAIN_FORKNUM) &&
	         RelationGetNumberOfBlocks(index) > BLOOM_INDEX_METAPAGE &&
	         bloom_index_try_read_meta(index, &built) && built.capacity > 0)
		capacity = built.capacity;
	buf = bloom_index_new_buffer(index, INIT_FORKNUM);
	bloom_index_new_meta(&meta, options ? options->false_positive_rate : BLOOM_INDEX_DEFAULT_RATE,
	                     capacity);
	START_CRIT_SECTION();
	bloom_index_init_meta_page(BufferGetPage(buf), &meta);
	MarkBufferDirty(buf);
	log_newpage_buffer(buf, true);
	END_CRIT_SECTION();
	UnlockReleaseBuffer(buf);
}
