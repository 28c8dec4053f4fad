/*
 * am.h
 *	  The access method's callbacks that handler.c hands to PostgreSQL
 *	  (bloomfilter_index_handler), each defined in the file of its work:
 *	  build.c (CREATE INDEX, an unlogged index's init fork), insert.c (a
 *	  row's key) and vacuum.c (nothing to remove).  Those files include it,
 *	  and source.c, which tells a bloomfilter index by its aminsert; the
 *	  rest of the room needs only bloomindex.h.
 */
#ifndef BLOOM_INDEX_AM_H
#define BLOOM_INDEX_AM_H

#include "bloomindex.h"

/* build.c */
extern IndexBuildResult *bloom_index_build(Relation heap, Relation index, IndexInfo *indexInfo);
extern void bloom_index_build_empty(Relation index);

/* insert.c */
extern bool bloom_index_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
                               Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
                               IndexInfo *indexInfo);

/* vacuum.c */
extern IndexBulkDeleteResult *bloom_index_bulk_delete(IndexVacuumInfo *info,
                                                      IndexBulkDeleteResult *stats,
                                                      IndexBulkDeleteCallback callback,
                                                      void *callback_state);
extern IndexBulkDeleteResult *bloom_index_vacuum_cleanup(IndexVacuumInfo *info,
                                                         IndexBulkDeleteResult *stats);

#endif /* BLOOM_INDEX_AM_H */
