/*
 * rebuild.h
 *	  What the rebuild's two files share (amrebuild.c: mark, merge, switch;
 *	  amrebuild_scan.c: the scan of the table): the memory image of the
 *	  layer being rebuilt, and the scan's outcome.
 */
#ifndef BLOOM_INDEX_REBUILD_H
#define BLOOM_INDEX_REBUILD_H

#include "am.h"

/* The pending layer's copy in memory, which the scan fills. */
typedef struct RebuildImage
{
	BloomIndexMeta meta;    /* the metapage as the mark wrote it */
	BloomIndexLayer *layer; /* its pending layer (&meta.rebuild.pending) */
	uint8 *bits;            /* layer->ncells / 8 bytes */
	uint64 *page_added;     /* keys that set a bit, per page */
	double rows;            /* tuples with a key */
	/*
	 * Tuples of rows deleted (or updated off their page) that the scan read
	 * all the same (a snapshot may still see them): the statistics count
	 * them gone, and the next trigger must not take their keys for live
	 * ones (amvacuum.c's live_keys_estimate).
	 */
	double deleted_kept;
} RebuildImage;

/* How the scan ended. */
typedef enum RebuildScan
{
	REBUILD_SCANNED,  /* every tuple read */
	REBUILD_FAILED,   /* for VACUUM: reading the table failed (a WARNING said why) */
	REBUILD_DEFERRED, /* deleted rows with toasted values are not yet removed */
} RebuildScan;

/*
 * Read every tuple of heap into image (amrebuild_scan.c says which, and
 * why).  for_vacuum: an error reading the table gives the rebuild up
 * instead of failing the VACUUM; otherwise (bloom_index_rebuild) it is
 * raised.
 */
extern RebuildScan bloom_index_rebuild_scan(Relation heap, Relation index, RebuildImage *image,
                                            bool for_vacuum);

#endif /* BLOOM_INDEX_REBUILD_H */
