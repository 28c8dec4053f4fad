/*
 * pages.h
 *	  The format of a bloomfilter index's pages (bloomindex.h tells what they
 *	  hold and why; amrebuild.c the rebuild that versions 2 added): the
 *	  special space of every page, a layer's description, and the metapage.
 *	  Formats are forever: a version 1 index (1.9 to 1.11) is read as it is.
 */
#ifndef BLOOM_INDEX_PAGES_H
#define BLOOM_INDEX_PAGES_H

#include "../../core/bf_core.h"
#include "storage/block.h"
#include "storage/bufpage.h"

/* The access method's name, as the install script creates it. */
#define BLOOM_INDEX_AM_NAME "bloomfilter"

#define BLOOM_INDEX_MAGIC 0x58494C42 /* "BLIX" */
/*
 * Version 2 (1.12) appended the rebuild's state to the metapage
 * (BloomIndexRebuildMeta); a version 1 metapage is read as one whose state
 * is zero, its free space past the last layer, and is written as version 2
 * at its first change.
 */
#define BLOOM_INDEX_VERSION 2
#define BLOOM_INDEX_VERSION_1 1
#define BLOOM_INDEX_METAPAGE 0

/* The last two bytes of every page's special space: this index's pages. */
#define BLOOM_INDEX_PAGE_ID 0xFB1F

/* BloomIndexOpaque.flags */
#define BLOOM_INDEX_META 0x0001
#define BLOOM_INDEX_DATA 0x0002

/* growth and tightening of each new layer (the header says why) */
#define BLOOM_INDEX_GROWTH 2.0
#define BLOOM_INDEX_TIGHTENING 0.5

/* Most layers: with a growth of 2, 2^40 times the first layer's keys. */
#define BLOOM_INDEX_MAX_LAYERS 40

/* A data page's blocks start here, on a cache line (64 bytes). */
#define BLOOM_INDEX_BLOCK_BYTES (BF_BLOCK_BITS / 8)
#define BLOOM_INDEX_DATA_OFFSET 64

/* The special space of every page. */
typedef struct BloomIndexOpaque
{
	uint64 nadded;  /* data page: keys whose add set a bit here */
	uint64 nset;    /* data page: bits set */
	uint16 layer;   /* data page: its layer */
	uint16 flags;   /* BLOOM_INDEX_META or BLOOM_INDEX_DATA */
	uint16 stamp;   /* data page: its layer's stamp (BloomIndexLayer.stamp) */
	uint16 page_id; /* BLOOM_INDEX_PAGE_ID */
} BloomIndexOpaque;

#define BloomIndexPageGetOpaque(page) ((BloomIndexOpaque *) PageGetSpecialPointer(page))

/* 512-bit blocks per data page. */
#define BLOOM_INDEX_BLOCKS_PER_PAGE                                            \
	((BLCKSZ - BLOOM_INDEX_DATA_OFFSET - MAXALIGN(sizeof(BloomIndexOpaque))) / \
	 BLOOM_INDEX_BLOCK_BYTES)

/* One layer: a blocked512 filter of ncells bits over npages pages from first. */
typedef struct BloomIndexLayer
{
	uint64 ncells;    /* m: bits, a multiple of 512 */
	uint64 capacity;  /* keys it was sized for */
	double rate;      /* its false-positive rate at capacity */
	double full_fill; /* the fraction of the layer's bits set at its capacity */
	BlockNumber first;
	uint32 npages;
	uint16 nhashes; /* k */
	/*
	 * What its pages carry (BloomIndexOpaque.stamp): the generation of the
	 * directory that made it.  A page whose stamp is not its layer's was
	 * given to another layer after a rebuild (amspace.c): a reader holding
	 * an old directory reads it as "maybe", never as its own bits.
	 */
	uint16 stamp;
	uint16 unused[2];
} BloomIndexLayer;

/* A run of pages. */
typedef struct BloomIndexExtent
{
	BlockNumber first;
	uint32 npages;
} BloomIndexExtent;

/* Pages a rebuild took out of its directory, free once no reader can hold it (amspace.c). */
typedef struct BloomIndexRetired
{
	BloomIndexExtent pages;
	uint64 xid; /* the next FullTransactionId when they were retired */
} BloomIndexRetired;

/* Most runs of free pages, and of retired ones, the metapage lists. */
#define BLOOM_INDEX_MAX_FREE 48
#define BLOOM_INDEX_MAX_RETIRED 48

/* BloomIndexRebuildMeta.last_reason: why the filter was last rebuilt */
typedef enum BloomIndexRebuildReason
{
	BLOOM_INDEX_REBUILT_NEVER = 0,
	BLOOM_INDEX_REBUILT_KEYS, /* keys added outgrew the live rows (rebuild_factor) */
	BLOOM_INDEX_REBUILT_RATE, /* the estimated rate passed rebuild_rate_factor times the declared */
	BLOOM_INDEX_REBUILT_MANUAL, /* bloom_index_rebuild() */
} BloomIndexRebuildReason;

/* BloomIndexRebuildMeta.flags */
#define BLOOM_INDEX_PENDING 0x0001    /* a rebuild's layer is being filled (inserts write it too) */
#define BLOOM_INDEX_GONE_KNOWN 0x0002 /* baseline_gone was read from the statistics */
#define BLOOM_INDEX_REBUILD_FLAGS (BLOOM_INDEX_PENDING | BLOOM_INDEX_GONE_KNOWN)

/*
 * The metapage's second part (version 2): where free pages are, and the
 * rebuild's state (amrebuild.c has the protocol).
 */
typedef struct BloomIndexRebuildMeta
{
	uint32 flags;      /* BLOOM_INDEX_PENDING */
	uint16 stamp;      /* the stamp of layers this directory adds (BloomIndexLayer.stamp) */
	uint16 last_stamp; /* the last stamp given (to the pending layer, or to the directory) */
	/* the layer a rebuild fills, while BLOOM_INDEX_PENDING; its index in the directory is 0 */
	BloomIndexLayer pending;
	BlockNumber high_water; /* no page at or past it is in use: a new layer may go there */
	uint32 nfree;
	uint32 nretired;
	uint32 last_reason;   /* BloomIndexRebuildReason */
	int64 last_rebuilt;   /* TimestampTz; 0 if never */
	uint64 rebuilds;      /* how many */
	uint64 baseline_keys; /* keys (page counts) right after the last build or rebuild, or 0 */
	double baseline_rows; /* rows with a key its scan read */
	int64 baseline_gone;  /* the table's rows deleted or moved then (amrebuild.c), if GONE_KNOWN */
	int64 baseline_added; /* and rows inserted or moved (each an add to the index) */
	BloomIndexExtent free[BLOOM_INDEX_MAX_FREE];
	BloomIndexRetired retired[BLOOM_INDEX_MAX_RETIRED];
} BloomIndexRebuildMeta;

/* The metapage's contents. */
typedef struct BloomIndexMeta
{
	uint32 magic;
	uint32 version;
	uint64 seed;       /* of the keys' hash function (bloom_agg's: 0) */
	double rate;       /* the declared false-positive rate, of all layers together */
	double growth;     /* BLOOM_INDEX_GROWTH when built */
	double tightening; /* BLOOM_INDEX_TIGHTENING when built */
	uint64 capacity;   /* keys of the first layer (the build's, or the option) */
	uint32 blocks_per_page;
	uint32 nlayers; /* 0 in an unlogged index's empty init fork: the first insert adds one */
	uint32 flags;   /* BLOOM_INDEX_CANNOT_GROW */
	uint32 unused;
	BloomIndexLayer layers[BLOOM_INDEX_MAX_LAYERS];
	/* (a version 1 metapage ends here) */
	BloomIndexRebuildMeta rebuild; /* version 2: zero in a version 1 metapage */
} BloomIndexMeta;

/*
 * BloomIndexMeta.flags: no layer can be added (BLOOM_INDEX_MAX_LAYERS, or
 * the next one's rate too fine to be met): the last takes every key, its
 * rate climbing past its share; REINDEX sizes the index anew.
 */
#define BLOOM_INDEX_CANNOT_GROW 0x0001

/*
 * Pages of at least 4 kB (a 2 kB build holds the directory but not the
 * rebuild's state).
 */
StaticAssertDecl(MAXALIGN(SizeOfPageHeaderData) + sizeof(BloomIndexMeta) +
                         MAXALIGN(sizeof(BloomIndexOpaque)) <=
                     BLCKSZ,
                 "the metapage's contents fit in a page");

/* The size of a version 1 metapage's contents. */
#define BLOOM_INDEX_META_V1_SIZE offsetof(BloomIndexMeta, rebuild)

#endif /* BLOOM_INDEX_PAGES_H */
