/*
 * bloomindex.h
 *	  The bloomfilter index access method: one Bloom filter over a column of
 *	  a table, which PostgreSQL keeps current on every INSERT, UPDATE and
 *	  COPY.  The room's one header.
 *
 * What it is for: answering "may the table hold this key?" (a false answer
 * is certain) without reading the table, and handing that answer on as a
 * bloom value (bloom_index_filter).  What it is not: a way to find rows.  It
 * stores no row pointers and answers no WHERE clause; the planner never
 * builds a path through it (the AM has neither amgettuple nor amgetbitmap,
 * and its operator classes have no operators).
 *
 * The filter is a scalable Bloom filter (Almeida, Baquero, Preguiça and
 * Hutchison, "Scalable Bloom Filters", Information Processing Letters,
 * 2007): a list of layers, each a blocked512 filter (core/bf_hash.h: a
 * key's k bits lie in one 512-bit block) laid out over pages of its own.
 * A key is added to the last layer; when that layer is full, a new one is
 * added that holds BLOOM_INDEX_GROWTH times as many keys at
 * BLOOM_INDEX_TIGHTENING times its rate, so that the rates of all layers
 * sum to at most the declared one however far the table grows:
 * rate_i = P (1 - r) r^i, and the sum over i is below P.  A probe checks
 * every layer.  Why 2 and 0.5: the build sizes the first layer for the
 * table, so most keys usually live there, and a tightening of 0.5 costs the
 * first layer only one bit of rate (1.44 bits per key), where 0.8 or 0.9,
 * which would suit a filter that starts empty and grows a thousandfold,
 * cost it 2.3 or 3.3; with a growth of 2, a table grown 100-fold past its
 * build has 8 layers, one page read each per probe, and no layer more than
 * twice the size it needs.  (RedisBloom's defaults are the same.)
 *
 * Pages (every page has a BloomIndexOpaque in its special space; pages.h):
 *	 block 0     the metapage: the declared rate, the seed, and the layers'
 *	             directory (BloomIndexMeta), and (version 2) where free
 *	             pages are and the rebuild's state
 *	 then        each layer's data pages, a run of its own (amspace.c): BLOOM_INDEX_BLOCKS_PER_PAGE
 *	             blocks of 64 bytes from offset BLOOM_INDEX_DATA_OFFSET (a
 *	             cache line each); the layer's block b is block b % that in
 *	             its page b / that.  The last page of a layer may hold fewer.
 * A data page counts its own bits set and keys added (those that set a bit
 * there), so that concurrent inserts touch only the page of their key's
 * block: nothing global is written per insert.  A layer is full when one of
 * its pages' fraction of bits set reaches what the fullest of its pages
 * would have at its capacity (bf_blocked_page_full_fill: keys fall on pages
 * at random, so the fullest page of a layer at capacity holds a few percent
 * more than the mean), which happens when the layer holds about its
 * capacity.  (Earlier builds took a page as full at the mean, full_fill,
 * and so a layer of a hundred pages about 3 % short of its capacity.)
 * Counting bits set rather than inserts makes adding a key again change
 * nothing: an UPDATE that keeps a row's key, or the second pass of CREATE
 * INDEX CONCURRENTLY (which adds every row again, since this index keeps no
 * row pointers), fills nothing.
 *
 * Every change is logged through generic WAL (access/generic_xlog.h): an
 * insert logs the bytes of the one block it changed and the page's counts,
 * a new layer logs its new pages whole.  Recovery and standbys need nothing
 * of ours.  A new layer's pages are written (in a free run, or at the
 * high-water mark) before the metapage names them; a crash, an error or a cancel between the two
 * leaves pages that no layer names, which the next layer reuses.  Adding a layer is serialized by a
 * heavyweight lock on the metapage's block (LockPage), not by its buffer
 * lock, which is taken only to publish the new directory: adds and probes
 * go on while a large layer's pages are written.
 *
 * Keys are hashed exactly as bloom_agg hashes them (bloom_value.h: the
 * extended hash function of the column type's default hash operator
 * family, under the column's collation, with the index's seed), so the
 * index's bits are a bloom value's bits: bloom_index_contains and
 * bloom_contains on a snapshot answer alike.  The operator class's support
 * function 1 must be that function (checked when the index is built).
 *
 * Deletes are not seen: a Bloom filter cannot forget, so the filter stays a
 * superset of the table's keys (no false negatives) until a new one is made
 * from the table's rows: VACUUM does (1.12: amvacuum.c says when,
 * amrebuild.c how, online), and so does REINDEX.  bloom_index_info tells
 * how many keys were added against the table's live rows, and when and why
 * the filter was last rebuilt.
 *
 * The files:
 *	 amhandler.c   the handler (its callbacks: am.h), options, amvalidate,
 *	             the functions a scan would need (which refuse)
 *	 ampages.c     the metapage and data pages: reading, checking, writing
 *	 ambuild.c     CREATE INDEX and the empty index of an unlogged table
 *	 aminsert.c    adding a key; a new layer when the last is full
 *	 amkeys.c      how keys are hashed (as bloom_agg hashes them; keys.h),
 *	             under the collation the column compares under
 *	 amvacuum.c    VACUUM: when to rebuild the filter; bloom_index_rebuild()
 *	 amrebuild.c   the online rebuild (mark, scan, merge, switch)
 *	 amspace.c     where layers go: the high-water mark, free and retired runs
 *	 amprobe.c     whether the index may hold a key, for the SQL functions
 *	 amsnapshot.c  the filter as a layered bloom value
 *	 amaccess.c    who may read an index, its partitions' indexes, predicate
 *	             locks, and when a reader's knowledge holds (reader.h: the
 *	             readers' own header, and their visibility contract)
 *	 amcontains.c  bloom_index_contains, with what its call site keeps
 *	 amsql.c       bloom_index_info, bloom_index_verify, bloom_index_filter
 *
 * Every function the room exports is named bloom_index_*, its types
 * BloomIndex*.  From the rest of the PostgreSQL layer it uses bloom_error.h
 * and bloom_value.h (the hasher); tests/unit/check_rooms.sh keeps it so.
 */
#ifndef BLOOM_INDEX_H
#define BLOOM_INDEX_H

#include "../bloom_compat.h"
#include "../bloom_value.h"
#include "../../core/bf_core.h"

#include "access/amapi.h"
#include "nodes/execnodes.h"
#include "storage/block.h"
#include "storage/bufpage.h"
#include "utils/rel.h"

#include "access/transam.h"

#include "keys.h" /* hashing keys (amkeys.c) */

#include "pages.h" /* the format of the pages */

/* ---- options (amhandler.c) ---- */

typedef struct BloomIndexOptions
{
	int32 vl_len_;
	double false_positive_rate; /* declared rate */
	int capacity;               /* keys of the first layer; 0: the table's rows at build */
	double rebuild_factor;      /* VACUUM rebuilds past this many keys per live key; 0: never */
	double rebuild_rate_factor; /* or past this times the declared rate; 0: never */
} BloomIndexOptions;

#define BLOOM_INDEX_DEFAULT_RATE 0.01
#define BLOOM_INDEX_DEFAULT_REBUILD_FACTOR 1.2
#define BLOOM_INDEX_DEFAULT_REBUILD_RATE_FACTOR 2.0

/*
 * The keys a first layer is sized for, per distinct key of the table, at a
 * build or a rebuild (amhandler.c says why).
 */
extern double bloom_index_headroom(Relation index);

/*
 * The keys a first layer is sized for from the capacity option (0 if it is
 * not set): the option, with bloom_index_headroom's room where rebuilds are
 * on (the option names the keys the table keeps; the layer must also take
 * those added until the next rebuild).
 */
extern uint64 bloom_index_option_capacity(Relation index);

/* Register the options (from _PG_init, through bloom_index_module_init). */
extern void bloom_index_module_init(void);

/* ---- pages (ampages.c) ---- */

/* What an index's relcache entry keeps (rd_amcache, in rd_indexcxt). */
typedef struct BloomIndexCache
{
	bool hashed;              /* hasher is set up (amkeys.c) */
	bool collation_checked;   /* bloom_index_check_collation passed */
	BloomHasher hasher;       /* the column's, as bloom_agg hashes it */
	BlockNumber known_blocks; /* the file was seen to hold at least these */
} BloomIndexCache;

/* The index's BloomIndexCache, made (zeroed) at the first call after a relcache reset. */
extern BloomIndexCache *bloom_index_relcache(Relation index);

/*
 * The metapage's contents, copied (so that no lock need be held while they
 * are used); the index's first page checked (magic, version, counts, and
 * the layers' pages within the file) first: a page that is not ours or is
 * damaged is an error (XX002) naming the index.
 */
extern void bloom_index_read_meta(Relation index, BloomIndexMeta *meta);

/*
 * The same without raising: false if the first page is not a metapage of
 * this build's version that passes bloom_index_check_meta (for callers that
 * only look, such as the planner, which must not fail a query that does not
 * name the index).
 */
extern bool bloom_index_try_read_meta(Relation index, BloomIndexMeta *meta);

/*
 * Pin block blkno of index: in *recent, the buffer it was found in last
 * time (InvalidBuffer at first), if that still holds it, which spares a
 * lookup of its tag in the buffer table; else looked up, and *recent set.
 * Local buffers (a temporary index) are always looked up.
 */
extern Buffer bloom_index_pin_recent(Relation index, BlockNumber blkno, Buffer *recent);

/*
 * Bring *meta, a copy of the metapage (if *valid), up to date: reread and
 * checked only when the metapage's directory differs from the copy's in any
 * byte (a new file, by REINDEX or TRUNCATE, is the caller's to notice; the
 * same file rewritten in place is noticed here).  *recent: the buffer the metapage
 * was found in last time (InvalidBuffer at first), tried first.
 */
extern void bloom_index_refresh_meta(Relation index, BloomIndexMeta *meta, bool *valid,
                                     Buffer *recent);

/* Check the contents of a metapage; raises XX002 naming the index. */
extern void bloom_index_check_meta(Relation index, const BloomIndexMeta *meta);

/*
 * Check that page (its block number blkno) is a data page of layer, or raise
 * XX002 naming the index; false, and nothing raised, when it is a data page
 * stamped for another layer than stamp (pages.h): given to another layer
 * since the caller's directory was read, its bits none of the caller's.
 */
extern bool bloom_index_check_data_page(Relation index, Page page, BlockNumber blkno, int layer,
                                        uint16 stamp);

/* Initialize a metapage (an empty page of BLCKSZ) with meta's contents. */
extern void bloom_index_init_meta_page(Page page, const BloomIndexMeta *meta);

/*
 * The contents of page, a metapage registered for a change (generic WAL),
 * to change in place; a version 1 metapage is made a version 2 one first.
 */
extern BloomIndexMeta *bloom_index_meta_for_write(Page page);

/* Initialize an empty data page of layer, its pages stamped stamp. */
extern void bloom_index_init_data_page(Page page, int layer, uint16 stamp);

/* Where a key's block lies: its page and the byte offset of its block in it. */
typedef struct BloomIndexSpot
{
	BlockNumber blkno;
	uint32 offset;
	uint32 blocks_in_page; /* blocks of that page (the layer's last may hold fewer) */
} BloomIndexSpot;

/* The spot of the block with index block (< ncells / 512) of layer. */
extern BloomIndexSpot bloom_index_spot(const BloomIndexMeta *meta, const BloomIndexLayer *layer,
                                       uint64 block);

/*
 * What bloom_index_walk_layer hands on for each page of a layer: the page
 * (share-locked, checked), its spot (the spot of its first block) and its
 * bits there, spot.blocks_in_page blocks of BLOOM_INDEX_BLOCK_BYTES; bits
 * NULL when the page was given to another layer (a directory read before a
 * rebuild): its bits are unknown, every one of them "maybe".
 */
typedef void (*BloomIndexPageVisitor)(Relation index, Page page, const BloomIndexSpot *spot,
                                      const uint8 *bits, void *arg);

/*
 * Visit every data page of layer i of meta in order, each read under a
 * share lock and checked (bloom_index_check_data_page), with a check for
 * interrupts between pages.  The visitor may raise an error.
 */
extern void bloom_index_walk_layer(Relation index, const BloomIndexMeta *meta, int i,
                                   BloomIndexPageVisitor visit, void *arg);

/*
 * A new layer after the meta's last one (or the first, of capacity keys,
 * when there is none), at first, sized and described, not yet written.
 * False when no layer can be added (BLOOM_INDEX_MAX_LAYERS, or larger than
 * the format allows).
 */
extern bool bloom_index_next_layer(const BloomIndexMeta *meta, uint64 capacity, BlockNumber first,
                                   BloomIndexLayer *layer);

/* The metapage of a new index with no layer yet. */
extern void bloom_index_new_meta(BloomIndexMeta *meta, double rate, uint64 capacity);

/* A new page at the end of index's fork, pinned and locked exclusively. */
extern Buffer bloom_index_new_buffer(Relation index, ForkNumber fork);

/* ---- where layers go (amspace.c), under the growers' lock ---- */

/* The first page of a new run of npages: the first free run that holds it, else the high-water mark. */
extern BlockNumber bloom_index_place(const BloomIndexMeta *meta, uint32 npages);

/* Take the run bloom_index_place chose out of meta's free pages, or past its high-water mark. */
extern void bloom_index_take(BloomIndexMeta *meta, BlockNumber first, uint32 npages);

/* Give run back to meta's free pages (merged with its neighbours; lost if the list is full). */
extern void bloom_index_give(BloomIndexMeta *meta, BloomIndexExtent run);

/* Retire run, which readers may hold until transactions before next end; false if the list is full. */
extern bool bloom_index_retire(BloomIndexMeta *meta, BloomIndexExtent run, FullTransactionId next);

/* How many of meta's retired runs no reader can hold any more (heap: the index's table). */
extern uint32 bloom_index_recyclable(Relation heap, const BloomIndexMeta *meta);

/* Free the retired runs no reader can hold any more (heap: the index's table). */
extern void bloom_index_recycle(Relation heap, BloomIndexMeta *meta);

/*
 * Write layer's pages (at layer->first, where bloom_index_place put them)
 * empty, stamped, as layer layer_no, each logged whole, four to a record,
 * interruptible between records; before the metapage names them.
 */
extern void bloom_index_write_empty_layer(Relation index, const BloomIndexLayer *layer,
                                          int layer_no);

/* ---- hashing keys (amkeys.c): keys.h ---- */

/* ---- adding a key (aminsert.c) ---- */

/* Add a key (not NULL); a new layer if the last is full. */
extern void bloom_index_add(Relation index, Datum value);

/* This backend's adds that set a bit, and its new layers (aminsert.c says why). */
extern uint64 bloom_index_local_changes;

/* ---- rebuilding the filter (amrebuild.c; amvacuum.c decides when) ---- */

/*
 * Rebuild index's filter from heap's rows (heap locked against another
 * VACUUM: ShareUpdateExclusiveLock at least), online: one layer sized for
 * live_keys, filled by a scan while inserts write it too, then made the
 * directory in one step.  False, and the filter as it was, if it was not
 * rebuilt: no room in the metapage to retire the old directory's pages
 * yet, more keys than one layer holds, deleted rows with toasted values
 * not yet removed, or (reason not MANUAL: VACUUM) the table could not be
 * read; elevel: the level to say why (VACUUM's index messages: DEBUG2).
 */
extern bool bloom_index_rebuild_filter(Relation heap, Relation index, double live_keys,
                                       BloomIndexRebuildReason reason, int elevel);

/*
 * The statistics' counts of heap's rows: *gone, deleted or updated off
 * their page (their old version's key may be gone); *added, inserted or
 * updated off their page (an add to the index each).  False, and both -1,
 * if the statistics keep none.
 */
extern bool bloom_index_row_counts(Relation heap, int64 *gone, int64 *added);

/* Keys per row at the last build or rebuild (at most 1; 1 if unknown). */
extern double bloom_index_keys_per_row(const BloomIndexMeta *meta);

/*
 * Free what the last rebuild retired, if no reader can hold it any more, and
 * a pending layer an interrupted rebuild left; for a caller that holds the
 * table's ShareUpdateExclusiveLock (VACUUM), so that no rebuild is running.
 */
extern void bloom_index_tidy(Relation heap, Relation index);

/* The word for a BloomIndexRebuildReason ("keys", "rate", "manual"), NULL for none (amvacuum.c). */
extern const char *bloom_index_rebuild_reason_name(uint32 reason);

/* ---- probing (amprobe.c) ---- */

/*
 * What a caller probing many keys keeps across probes: the buffer each
 * page of the index was in last time (InvalidBuffer where none; n of them,
 * in memory of the caller's), so that a page still there is pinned without
 * a lookup of its tag (ReadRecentBuffer), as the metapage is.
 */
typedef struct BloomIndexRecent
{
	Buffer *buffers;
	BlockNumber n;
} BloomIndexRecent;

/*
 * Whether the index may hold the key with hash h: some layer has all its
 * bits set.  meta is a copy of the metapage; each layer's page is read
 * under a share lock and checked.  recent: the caller's buffers, or NULL.
 */
extern bool bloom_index_may_contain(Relation index, const BloomIndexMeta *meta, uint64 h,
                                    BloomIndexRecent *recent);

/* Whether the key with hash h is in layer (its page read under a share lock). */
extern bool bloom_index_layer_contains(Relation index, const BloomIndexMeta *meta, int layer,
                                       uint64 h, BloomIndexRecent *recent);

/* ---- the filter as a bloom value (amsnapshot.c) ---- */

/*
 * A layered bloom value holding the layers of the bloomfilter indexes
 * leaves (an index, or a partitioned index's partitions' indexes), in
 * order, bit for bit, their keys hashed by hasher (the caller checked the
 * right to read them).
 */
extern bytea *bloom_index_snapshot(List *leaves, const BloomHasher *hasher);

/* ---- whether an index may be read (amsource.c) ---- */

typedef enum BloomIndexUsability
{
	BLOOM_INDEX_USABLE,
	BLOOM_INDEX_NOT_VALID, /* its build did not finish (not valid, or not ready) */
	BLOOM_INDEX_TOO_NEW,   /* built over broken HOT chains after this snapshot (indcheckxmin) */
} BloomIndexUsability;

/*
 * Whether index holds every key of the rows this transaction's snapshot
 * sees: the rule the planner follows for any index.
 */
extern BloomIndexUsability bloom_index_usability(Relation index);

/* (the access method's callbacks: am.h) */

#endif /* BLOOM_INDEX_H */
