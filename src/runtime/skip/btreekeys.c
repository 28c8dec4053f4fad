/*
 * btreekeys.c
 *	  Reading only the rows of the build's keys, through a B-tree index on
 *	  the outer table's key column, where that costs less than reading the
 *	  whole table: the BloomFilterScan's third way (exec/scan.c).
 *
 * The planner chose a hash join because it expected many outer rows to
 * match, or because it could not tell; at run time the build's distinct
 * keys are known exactly while there are no more than BLOOM_RF_EXACT_MAX
 * of them (filter/values.c).  Where the outer table has a B-tree index whose
 * leading column is the join key, with the join's equality (the join
 * operator in the index column's family; the join's collation the index's,
 * or deterministic), the rows that can match are those the index finds for
 * "column = ANY(keys)".  The cost model (../cost.c, core's
 * bf_rf_index_read_cost) weighs that against reading the table, from the
 * number of keys, the rows the column's statistics expect them to match
 * and how the column follows the table's order; the cheaper is read.
 *
 * Every row the index returns is one the whole table would have returned
 * (the same snapshot; the index's equality is the join's or, under a
 * nondeterministic index collation, coarser), and each once: the keys are
 * distinct under the join's equality, so a row equals at most one, and the
 * B-tree merges keys its collation makes equal.  The rows the whole table
 * has besides can match no key.  The join then matches as before; rows
 * come in index order, which a hash join's outer side does not promise
 * anyway.  Under SERIALIZABLE the index scan takes the predicate locks any
 * index scan takes.
 */
#include "skip.h"
#include "../cost.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "access/tableam.h"
#include "catalog/pg_index.h"
#include "utils/array.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

RuntimeKeyScanChoice
bloom_rf_keyscan_decide(RuntimeKeyScan *ks, Relation heap, const RuntimeKeyValues *k, Oid opno,
                        Oid collation)
{
	Relation index;
	AttrNumber attno;
	double rows, by_index, whole;
	bool pays;
	int strategy;
	Oid lefttype, righttype, family;
	int16 typlen;
	bool typbyval;
	char typalign;
	ArrayType *keys;
	MemoryContext old;

	Assert(ks->scan == NULL && OidIsValid(ks->index_oid) && MemoryContextIsValid(ks->context));
	MemoryContextReset(ks->context);
	ks->have_key = false;
	ks->can_look_up = false;
	ks->can_share = false;
	ks->bucket_keys = NULL;
	if (!OidIsValid(k->family) || k->overflow)
		return KEYSCAN_TOO_MANY; /* not every key was kept */
	if (k->nexact == 0)
		return KEYSCAN_READ; /* no key: no row (have_key stays false) */
	index = index_open(ks->index_oid, AccessShareLock);
	if (!index->rd_index->indisvalid || !index->rd_index->indisready)
	{
		/* being dropped since the plan was made */
		index_close(index, NoLock);
		return KEYSCAN_COSTLIER;
	}
	family = index->rd_opfamily[0];
	attno = index->rd_index->indkey.values[0];
	get_op_opfamily_properties(opno, family, false, &strategy, &lefttype, &righttype);
	Assert(strategy == BTEqualStrategyNumber);
	get_typlenbyvalalign(righttype, &typlen, &typbyval, &typalign);
	Assert(typlen == k->typlen && typbyval == k->typbyval);
	/* what a bucket's array needs, whatever the cost says (a parallel scan may follow another) */
	ks->can_look_up = true;
	ks->keytype = righttype;
	ks->typlen = typlen;
	ks->typbyval = typbyval;
	ks->typalign = typalign;
	ks->index_collation = index->rd_indcollation[0];
	ks->opcode = get_opcode(opno);
	ks->can_share = !OidIsValid(ks->index_collation) || ks->index_collation == collation ||
	                get_collation_isdeterministic(ks->index_collation);
	/* what the statistics' comparisons allocate goes with this decision's memory */
	old = MemoryContextSwitchTo(ks->context);
	pays = bloom_rf_cost_keys_by_index(heap, index, attno, k->exact, k->nexact, opno, k->family,
	                                   collation, &rows, &by_index, &whole);
	MemoryContextSwitchTo(old);
	if (!pays)
	{
		index_close(index, NoLock);
		return KEYSCAN_COSTLIER;
	}

	/* column = ANY(keys), the array as a ScalarArrayOpExpr's, in this decision's memory */
	old = MemoryContextSwitchTo(ks->context);
	keys = construct_array(k->exact, k->nexact, righttype, typlen, typbyval, typalign);
	ScanKeyEntryInitialize(&ks->key, SK_SEARCHARRAY, 1, BTEqualStrategyNumber, righttype,
	                       ks->index_collation, ks->opcode, PointerGetDatum(keys));
	MemoryContextSwitchTo(old);
	/* the lock is kept to the transaction's end, as the executor keeps its indexes' */
	index_close(index, NoLock);
	ks->have_key = true;
	return KEYSCAN_READ;
}

void
bloom_rf_keyscan_begin(RuntimeKeyScan *ks, Relation heap, Snapshot snapshot)
{
	Assert(ks->scan == NULL && ks->index == NULL && ks->have_key);
	ks->index = index_open(ks->index_oid, AccessShareLock);
	ks->scan = bloom_index_beginscan(heap, ks->index, snapshot, 1);
	index_rescan(ks->scan, &ks->key, 1, NULL, 0);
}

bool
bloom_rf_keyscan_bucket(RuntimeKeyScan *ks, const RuntimeKeyValues *k, uint32 nbuckets,
                        uint32 bucket)
{
	MemoryContext old;
	ArrayType *keys;
	int n = 0;

	Assert(ks->can_look_up && !k->overflow && nbuckets > 0 && bucket < nbuckets);
	old = MemoryContextSwitchTo(ks->context);
	if (ks->bucket_keys == NULL)
		ks->bucket_keys = palloc(Max(1, k->nexact) * sizeof(Datum));
	/* (exact is sorted: so is each bucket's share, which the index reads in order) */
	for (int e = 0; e < k->nexact; e++)
		if (k->hashes[e] % nbuckets == bucket)
			ks->bucket_keys[n++] = k->exact[e];
	if (n > 0)
	{
		if (ks->have_key)
			pfree(DatumGetPointer(ks->key.sk_argument));
		keys = construct_array(ks->bucket_keys, n, ks->keytype, ks->typlen, ks->typbyval,
		                       ks->typalign);
		ScanKeyEntryInitialize(&ks->key, SK_SEARCHARRAY, 1, BTEqualStrategyNumber, ks->keytype,
		                       ks->index_collation, ks->opcode, PointerGetDatum(keys));
		ks->have_key = true;
	}
	MemoryContextSwitchTo(old);
	return n > 0;
}

void
bloom_rf_keyscan_rescan(RuntimeKeyScan *ks)
{
	Assert(ks->scan != NULL && ks->have_key);
	index_rescan(ks->scan, &ks->key, 1, NULL, 0);
}

void
bloom_rf_keyscan_end(RuntimeKeyScan *ks)
{
	if (ks->scan != NULL)
		index_endscan(ks->scan);
	ks->scan = NULL;
	if (ks->index != NULL)
		index_close(ks->index, NoLock);
	ks->index = NULL;
}

const char *
bloom_rf_keyscan_why(RuntimeKeyScanChoice choice)
{
	switch (choice)
	{
		case KEYSCAN_READ:
			return "";
		case KEYSCAN_COSTLIER:
			return "reading the keys' rows through the B-tree would cost more";
		case KEYSCAN_TOO_MANY:
			return "too many keys to look up in the B-tree";
		case KEYSCAN_UNSHARED:
			return "the B-tree's collation equates keys the join tells apart: a parallel scan "
			       "cannot share them out";
		case KEYSCAN_CHOICES:
			break;
	}
	pg_unreachable();
}
