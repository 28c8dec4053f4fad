/*
 * keys.c
 *	  How a bloomfilter index hashes its keys: as bloom_agg does (the
 *	  extended hash function of the column type's default hash operator
 *	  family, under the column's collation), checked against its operator
 *	  class's support function, and kept in the index's relcache entry.
 */
#include "bloomindex.h"

#include "utils/memutils.h"
#include "utils/regproc.h"

void
bloom_index_hasher(Relation index, BloomHasher *hasher)
{
	Oid type = TupleDescAttr(RelationGetDescr(index), 0)->atttypid;
	Oid proc = index_getprocid(index, 1, BLOOM_INDEX_HASH_PROC);

	bloom_hasher_init(hasher, type, index->rd_indcollation[0], false);
	if (proc != hasher->hashfn.fn_oid)
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
		         errmsg("operator class of bloomfilter index \"%s\" hashes with %s, not with %s",
		                RelationGetRelationName(index), format_procedure(proc),
		                format_procedure(hasher->hashfn.fn_oid)),
		         errdetail("A bloomfilter index hashes its keys as bloom_agg() does: with the "
		                   "extended hash function of the type's default hash operator class.")));
}

/* What an index keeps in its relcache entry: its hasher. */
typedef struct BloomIndexCache
{
	BloomHasher hasher;
} BloomIndexCache;

/* The index's hasher, set up once per relcache entry (rd_amcache, in rd_indexcxt). */
BloomHasher *
bloom_index_cached_hasher(Relation index)
{
	if (index->rd_amcache == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(index->rd_indexcxt);
		BloomIndexCache *cache = palloc0(sizeof(BloomIndexCache));

		bloom_index_hasher(index, &cache->hasher);
		MemoryContextSwitchTo(old);
		index->rd_amcache = cache;
	}
	return &((BloomIndexCache *) index->rd_amcache)->hasher;
}
