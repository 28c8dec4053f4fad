/*
 * amsource.c
 *	  A bloomfilter index as the runtime filter of a hash join whose inner
 *	  side reads its whole table (source.h: the door, and why that is
 *	  correct).
 */
#include "am.h"
#include "source.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/transam.h"
#include "catalog/index.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/typcache.h"

BloomIndexUsability
bloom_index_usability(Relation index)
{
	if (!index->rd_index->indisvalid || !index->rd_index->indisready)
		return BLOOM_INDEX_NOT_VALID;
	/* built over broken HOT chains: not for snapshots older than it (as the planner rules) */
	if (index->rd_index->indcheckxmin &&
	    !TransactionIdPrecedes(HeapTupleHeaderGetXmin(index->rd_indextuple->t_data),
	                           TransactionXmin))
		return BLOOM_INDEX_TOO_NEW;
	return BLOOM_INDEX_USABLE;
}

/*
 * Whether an open relation is a bloomfilter index (not a partitioned one):
 * its access method's routine is this library's, whatever its name.
 */
static bool
is_bloom_index(Relation rel)
{
	return rel->rd_rel->relkind == RELKIND_INDEX && rel->rd_indam != NULL &&
	       rel->rd_indam->aminsert == bloom_index_insert;
}

/*
 * Whether probe values of probe_type under collation hash as index hashed
 * its keys (index_hasher), for keys equal under opno: NULL if so, else why
 * not.  The two hashers have the same element key when they are the same
 * hash operator family's functions under the same collation rule (every
 * deterministic collation hashes a string by its bytes; a nondeterministic
 * one is named in the key): the family's contract then makes values equal
 * under its operators hash alike, across its types.
 */
static const char *
probe_hashes_alike(const BloomHasher *index_hasher, Oid opno, Oid probe_type, Oid collation,
                   BloomHasher *probe_hasher)
{
	TypeCacheEntry *tc;

	/*
	 * A nondeterministic collation hashes a string by its sort key, which a
	 * new version of the collation may change: the index's keys, hashed when
	 * they were added, would no longer match (REINDEX mends an index; a
	 * runtime filter must not depend on it).
	 */
	if (OidIsValid(index_hasher->hashcoll) &&
	    !get_collation_isdeterministic(index_hasher->hashcoll))
		return "the index hashes under a nondeterministic collation";
	if (!bloom_hasher_init(probe_hasher, probe_type, collation, true))
		return "the join key's type has no extended hash function";
	if (!bf_elem_equal(index_hasher->elem, index_hasher->elemlen, probe_hasher->elem,
	                   probe_hasher->elemlen))
		return "the index hashes its keys with another operator family or collation than the join";
	tc = lookup_type_cache(index_hasher->typid, TYPECACHE_HASH_OPFAMILY);
	if (!OidIsValid(tc->hash_opf) || !op_in_opfamily(opno, tc->hash_opf))
		return "the join operator is not in the hash operator family the index hashes with";
	return NULL;
}

/*
 * Why index, a bloomfilter index of the table, cannot serve the join; NULL
 * if it can.  Raises nothing on a damaged index: the planner must not fail
 * a query that does not name it (*too_new: it may serve a later snapshot).
 */
static const char *
why_not_source(Relation index, AttrNumber attno, Oid opno, Oid probe_type, Oid collation,
               double max_rate, bool *too_new)
{
	BloomIndexMeta meta;
	BloomHasher index_hasher, probe_hasher;

	if (IndexRelationGetNumberOfAttributes(index) != 1 ||
	    index->rd_index->indkey.values[0] != attno)
		return "no bloomfilter index is on the join key's column alone";
	if (!heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, NULL))
		return "the bloomfilter index is partial";
	switch (bloom_index_usability(index))
	{
		case BLOOM_INDEX_USABLE:
			break;
		case BLOOM_INDEX_NOT_VALID:
			return "the bloomfilter index is not valid";
		case BLOOM_INDEX_TOO_NEW:
			*too_new = true;
			return "the bloomfilter index is too new for this snapshot";
	}
	if (!bloom_index_try_read_meta(index, &meta))
		return "the bloomfilter index's metapage is damaged or of another version";
	if (meta.rate > max_rate)
		return "the bloomfilter index's rate is higher than a runtime filter's";
	if (!bloom_index_try_hasher(index, &index_hasher))
		return "the bloomfilter index's operator class does not hash as bloom_agg does";
	return probe_hashes_alike(&index_hasher, opno, probe_type, collation, &probe_hasher);
}

Oid
bloom_index_source_find(Oid table, AttrNumber attno, Oid opno, Oid probe_type, Oid collation,
                        double max_rate, const char **why, bool *transient)
{
	Relation heap = table_open(table, NoLock); /* the planner holds its lock */
	List *indexes = RelationGetIndexList(heap);
	Oid found = InvalidOid;
	ListCell *lc;

	Assert(attno > 0 && OidIsValid(opno) && OidIsValid(probe_type));
	*why = NULL;
	foreach (lc, indexes)
	{
		Relation index = index_open(lfirst_oid(lc), AccessShareLock);

		if (is_bloom_index(index) &&
		    (*why = why_not_source(index, attno, opno, probe_type, collation, max_rate,
		                           transient)) == NULL)
			found = RelationGetRelid(index);
		/* the lock is kept to the transaction's end, as the planner keeps its indexes' */
		index_close(index, NoLock);
		if (OidIsValid(found))
			break;
	}
	list_free(indexes);
	table_close(heap, NoLock);
	return found;
}

/*
 * The bloomfilter index indexoid opened (AccessShareLock, kept to the
 * transaction's end: a REINDEX, or its replay on a standby, waits for the
 * query rather than rebuild the index under it), if it still exists and is
 * usable by this transaction's snapshot; else NULL.  Its table is locked by
 * the executor already.
 */
static Relation
open_source(Oid indexoid)
{
	Relation index = try_relation_open(indexoid, AccessShareLock);

	if (index == NULL)
		return NULL;
	if (!is_bloom_index(index) || bloom_index_usability(index) != BLOOM_INDEX_USABLE)
	{
		relation_close(index, NoLock);
		return NULL;
	}
	return index;
}

bool
bloom_index_source_probe_hash(Oid indexoid, Oid opno, Oid probe_type, Oid collation,
                              BloomIndexProbeHash *hash)
{
	Relation index = open_source(indexoid);
	BloomHasher index_hasher, probe_hasher;

	if (index == NULL)
		return false;
	if (!bloom_index_try_hasher(index, &index_hasher))
	{
		relation_close(index, NoLock);
		return false;
	}
	relation_close(index, NoLock);
	/* checked by the planner, but the catalogs may have changed since */
	if (probe_hashes_alike(&index_hasher, opno, probe_type, collation, &probe_hasher) != NULL)
		return false;
	fmgr_info_copy(&hash->fn, &probe_hasher.hashfn, CurrentMemoryContext);
	hash->collation = probe_hasher.hashcoll;
	return true;
}

bytea *
bloom_index_source_filter(Oid indexoid, Size max_bytes)
{
	Relation index = open_source(indexoid);
	BloomIndexMeta meta;
	BloomHasher hasher;
	Size bytes = 0;
	List *leaves;
	bytea *value;

	if (index == NULL)
		return NULL;
	/* a damaged index is reported (XX002), as a scan of any index would report it */
	bloom_index_read_meta(index, &meta);
	for (uint32 i = 0; i < meta.nlayers; i++)
		bytes += (Size) (meta.layers[i].ncells / 8);
	bloom_index_cached_hasher(index, &hasher);
	relation_close(index, NoLock);
	if (bytes > max_bytes)
		return NULL;
	leaves = list_make1_oid(indexoid);
	value = bloom_index_snapshot(leaves, &hasher);
	list_free(leaves);
	return value;
}
