/*
 * am.h
 *	  The access method's callbacks that amhandler.c hands to PostgreSQL
 *	  (bloomfilter_index_handler), each defined in the file of its work:
 *	  ambuild.c (CREATE INDEX, an unlogged index's init fork), aminsert.c (a
 *	  row's key) and amvacuum.c (VACUUM: the filter rebuilt when due).
 *	  Those files include it, and amsource.c, which tells a bloomfilter
 *	  index by its aminsert, and rebuild.h; the rest of the room needs only
 *	  bloomindex.h.
 */
#ifndef BLOOM_INDEX_AM_H
#define BLOOM_INDEX_AM_H

#include "bloomindex.h"

/* ambuild.c */
extern IndexBuildResult *bloom_index_build(Relation heap, Relation index, IndexInfo *indexInfo);
extern void bloom_index_build_empty(Relation index);

/* aminsert.c */
extern bool bloom_index_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
                               Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
                               IndexInfo *indexInfo);

/* amvacuum.c */
extern IndexBulkDeleteResult *bloom_index_bulk_delete(IndexVacuumInfo *info,
                                                      IndexBulkDeleteResult *stats,
                                                      IndexBulkDeleteCallback callback,
                                                      void *callback_state);
extern IndexBulkDeleteResult *bloom_index_vacuum_cleanup(IndexVacuumInfo *info,
                                                         IndexBulkDeleteResult *stats);

#endif /* BLOOM_INDEX_AM_H */
