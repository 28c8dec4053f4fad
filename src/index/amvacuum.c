/*
 * amvacuum.c
 *	  VACUUM of a bloomfilter index: there is nothing to remove.
 *
 * The index keeps no row pointers, so no dead row can be found in it: a
 * Bloom filter cannot forget a key, and stays a superset of the table's
 * keys (no false negatives) until REINDEX.  The callback VACUUM passes is
 * not called.  (CREATE INDEX CONCURRENTLY asks the same function for the
 * row pointers the index holds: none, so it adds every row again, which
 * sets no bit twice: aminsert.c.)  The statistics reported are the index's
 * pages and, as its tuples, the table's, estimated.
 */
#include "am.h"

#include "storage/bufmgr.h"

IndexBulkDeleteResult *
bloom_index_bulk_delete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
                        IndexBulkDeleteCallback callback, void *callback_state)
{
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	return stats;
}

IndexBulkDeleteResult *
bloom_index_vacuum_cleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	stats->num_pages = RelationGetNumberOfBlocks(info->index);
	stats->num_index_tuples = info->num_heap_tuples;
	stats->estimated_count = true;
	return stats;
}
