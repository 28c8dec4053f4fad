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
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/regproc.h"

/*
 * The collation the index's key compares under in the table: its column's,
 * or its expression's below the COLLATE clauses and relabelings at its top
 * ((name COLLATE "C") compares as name does wherever the query does not say
 * COLLATE "C" itself); InvalidOid for a type without collation.
 */
static Oid
column_collation(Relation index)
{
	AttrNumber attno = index->rd_index->indkey.values[0];
	Node *expr;

	if (attno != 0)
	{
		Oid type, collation;
		int32 typmod;

		get_atttypetypmodcoll(index->rd_index->indrelid, attno, &type, &typmod, &collation);
		return collation;
	}
	/* (planned: a COLLATE clause is a RelabelType there) */
	expr = linitial(RelationGetIndexExpressions(index));
	while (IsA(expr, RelabelType) || IsA(expr, CollateExpr))
		expr = IsA(expr, RelabelType) ? (Node *) ((RelabelType *) expr)->arg
		                              : (Node *) ((CollateExpr *) expr)->arg;
	return exprCollation(expr);
}

/*
 * Whether values equal under the column's collation hash alike under the
 * index's: always under the same collation, and under any other if the
 * column's is deterministic (equal values are equal bytes, which every
 * collation finds equal).  A nondeterministic column's collation finds
 * "alice" = "ALICE"; hashed under "C", they hash apart, and the index would
 * say "absent" of a key the column holds (issue 49).  The other way round
 * (a deterministic column, a nondeterministic index) only adds false
 * positives, and is allowed.
 */
void
bloom_index_check_collation(Relation index, bool building)
{
	BloomIndexCache *cache = bloom_index_relcache(index);
	Oid index_collation = index->rd_indcollation[0];
	Oid collation;

	if (cache->collation_checked)
		return;
	collation = column_collation(index);
	if (OidIsValid(collation) && collation != index_collation &&
	    !get_collation_isdeterministic(collation))
		ereport(
		    ERROR,
		    (errcode(ERRCODE_COLLATION_MISMATCH),
		     errmsg("bloomfilter index \"%s\" cannot hash its keys under collation \"%s\"",
		            RelationGetRelationName(index),
		            OidIsValid(index_collation) ? get_collation_name(index_collation) : "none"),
		     errdetail("Its key compares under the nondeterministic collation \"%s\": values "
		               "equal under it may hash apart under \"%s\", and the index would "
		               "answer \"absent\" for a key the table holds.",
		               get_collation_name(collation),
		               OidIsValid(index_collation) ? get_collation_name(index_collation) : "none"),
		     index->rd_rel->relispartition
		         ? errhint("It is a partition's index, made from a partitioned index's definition: "
		                   "create (or re-create) that one without COLLATE, or with COLLATE "
		                   "\"%s\".",
		                   get_collation_name(collation))
		     : building ? errhint("Create the index without COLLATE, or with COLLATE \"%s\".",
		                          get_collation_name(collation))
		                : errhint("Drop the index and create it without COLLATE, or with "
		                          "COLLATE \"%s\".",
		                          get_collation_name(collation))));
	/* (made anew if a lookup above took in an invalidation that freed it) */
	bloom_index_relcache(index)->collation_checked = true;
}

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

/* bloom_index_hasher; for_writes: bloom_hasher_init_for_writes (an insert's) */
static void
index_hasher(Relation index, BloomHasher *hasher, bool for_writes)
{
	Oid type = TupleDescAttr(RelationGetDescr(index), 0)->atttypid;
	Oid proc = index_getprocid(index, 1, BLOOM_INDEX_HASH_PROC);

	if (for_writes)
		bloom_hasher_init_for_writes(hasher, type, index->rd_indcollation[0]);
	else
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

void
bloom_index_hasher(Relation index, BloomHasher *hasher)
{
	index_hasher(index, hasher, false);
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

		index_hasher(index, &made, true);
		MemoryContextSwitchTo(old);
		cache = bloom_index_relcache(index); /* made anew if an invalidation freed it */
		cache->hasher = made;
		cache->hashed = true;
	}
	*hasher = cache->hasher;
}
