/*
 * amkeys.c
 *	  How a bloomfilter index hashes its keys: as bloom_agg does (the
 *	  extended hash function of the column type's default hash operator
 *	  family, under the column's collation), checked against its operator
 *	  class's support function, and kept in the index's relcache entry.
 */
#include "bloomindex.h"

#include "catalog/pg_namespace_d.h"
#include "catalog/pg_type_d.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"

/*
 * Functions of earlier releases that hash a type exactly as its own does
 * now: PostgreSQL 18 gave bytea, date, bool and timestamptz extended hash
 * functions of their own, wrappers of these (hashfunc.c: hashbyteaextended
 * calls hashvarlenaextended).  An operator class made on 15 or 17 and
 * carried over by pg_upgrade still names them.
 */
static const struct
{
	Oid type;
	const char *proc;
} earlier_hashes[] = {
    {BYTEAOID, "hashvarlenaextended"},
    {DATEOID, "hashint4extended"},
    {BOOLOID, "hashcharextended"},
    {TIMESTAMPTZOID, "timestamp_hash_extended"},
};

bool
bloom_index_hashes_as_default(Oid proc, Oid type, const BloomHasher *hasher)
{
	char *name;

	if (proc == hasher->hashfn.fn_oid)
		return true;
	if (get_func_namespace(proc) != PG_CATALOG_NAMESPACE || (name = get_func_name(proc)) == NULL)
		return false;
	for (size_t i = 0; i < lengthof(earlier_hashes); i++)
		if (earlier_hashes[i].type == type && strcmp(earlier_hashes[i].proc, name) == 0)
			return true;
	return false;
}

bool
bloom_index_try_hasher(Relation index, BloomHasher *hasher)
{
	Oid type = TupleDescAttr(RelationGetDescr(index), 0)->atttypid;
	Oid proc = index_getprocid(index, 1, BLOOM_INDEX_HASH_PROC);

	return bloom_hasher_init(hasher, type, index->rd_indcollation[0], true) &&
	       bloom_index_hashes_as_default(proc, type, hasher);
}

void
bloom_index_hasher(Relation index, BloomHasher *hasher)
{
	Oid type = TupleDescAttr(RelationGetDescr(index), 0)->atttypid;
	Oid proc = index_getprocid(index, 1, BLOOM_INDEX_HASH_PROC);

	bloom_hasher_init(hasher, type, index->rd_indcollation[0], false);
	if (!bloom_index_hashes_as_default(proc, type, hasher))
		ereport(ERROR,
		        (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
		         errmsg("operator class of bloomfilter index \"%s\" hashes with %s, not with %s",
		                RelationGetRelationName(index), format_procedure(proc),
		                format_procedure(hasher->hashfn.fn_oid)),
		         errdetail("A bloomfilter index hashes its keys as bloom_agg() does: with the "
		                   "extended hash function of the type's default hash operator class.")));
}

/*
 * The index's hasher, set up once per relcache entry (bloom_index_relcache),
 * copied into *hasher: a relcache invalidation taken in while the hash
 * function is looked up (a catalog read takes a lock, and a lock takes in
 * invalidations) frees rd_amcache, never the caller's copy; what the
 * hasher allocates lives in rd_indexcxt, which outlives rd_amcache.
 */
void
bloom_index_cached_hasher(Relation index, BloomHasher *hasher)
{
	BloomIndexCache *cache = bloom_index_relcache(index);

	if (!cache->hashed)
	{
		MemoryContext old = MemoryContextSwitchTo(index->rd_indexcxt);
		BloomHasher made;

		bloom_index_hasher(index, &made);
		MemoryContextSwitchTo(old);
		cache = bloom_index_relcache(index); /* made anew if an invalidation freed it */
		cache->hasher = made;
		cache->hashed = true;
	}
	*hasher = cache->hasher;
}
