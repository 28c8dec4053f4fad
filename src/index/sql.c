/*
 * sql.c
 *	  The SQL functions that read a bloomfilter index:
 *	    bloom_index_contains(index, value)  may the table hold this key?
 *	    bloom_index_info(index)             layers, keys, size, rates, staleness
 *	    bloom_index_verify(index)           every page checked, every row's key found
 *	    bloom_index_filter(index)           the filter as a bloom value (snapshot.c)
 *
 * Reading the filter is reading the column: which keys the table holds.  So
 * bloom_index_contains, bloom_index_filter and bloom_index_verify need
 * SELECT on the table or on
 * the indexed column, and refuse on a table whose row-level security applies
 * to the caller (the filter holds the keys of rows the policies hide).
 * bloom_index_info tells counts only, as pg_relation_size does, and needs
 * nothing.
 *
 * bloom_index_contains keeps what it learns at its first call in its call
 * site's fn_extra: the index's identity and checks, and the hasher of the
 * probe's type under the column's collation (so that membership follows the
 * column's equality, as the index's own keys do).  Each call then takes the
 * index's lock (held already: a local lookup), its relcache entry, the
 * metapage (while no transaction completes and in one command, only once)
 * and one page per layer, each pinned through the buffer it was in last
 * time if it still is; it keeps no relcache reference across calls, which
 * an aborted subtransaction could release under it.
 */
#include "bloomindex.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/transam.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "commands/defrem.h"
#include "executor/nodeHash.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "storage/procarray.h"

PG_FUNCTION_INFO_V1(bloom_index_contains);
PG_FUNCTION_INFO_V1(bloom_index_info);
PG_FUNCTION_INFO_V1(bloom_index_verify);
PG_FUNCTION_INFO_V1(bloom_index_filter);

/*
 * When a copy of the filter holds every key a snapshot may see: no
 * transaction completed since it was made (the shared count that
 * ProcArrayEndTransaction increments, under ProcArrayLock, as a commit
 * becomes visible: GetSnapshotData reuses a snapshot by it), in the same
 * command of the same transaction (so with the same own changes).  A
 * committed key was added before its transaction completed, so before the
 * count was read for the copy, and the copy's pages were read after.
 */
typedef struct CopyKey
{
	uint64 completions;
	CommandId curcid;
	LocalTransactionId lxid;
} CopyKey;

/* What a call site keeps of one index it reads. */
typedef struct ContainsLeaf
{
	Oid index;
	/* its metapage's copy, kept while its file and its layers are the same */
	BloomIndexMeta meta;
	bool current;
	Oid file;                      /* its relfilenode number */
	Buffer recent;                 /* the buffer the metapage was in last time */
	CopyKey meta_key;              /* the key meta was last read under */
	BloomIndexRecent page_buffers; /* the buffers its data pages were in, in fn_mcxt */
	/* a copy of the whole filter (a layered bloom value), for many calls under one key */
	bytea *copy;
	bf_layered_probe *probe; /* its layers, decoded once, in fn_mcxt */
	uint64 copy_seed;        /* its seed */
	CopyKey copy_key;        /* the key it was made under */
	CopyKey calls_key;
	uint64 calls; /* calls read from pages under calls_key */
	BlockNumber pages;
} ContainsLeaf;

/* What a call site of bloom_index_contains keeps (fn_extra, in fn_mcxt). */
typedef struct ContainsCache
{
	bool valid; /* set up for index */
	Oid index;
	int nleaves;          /* the indexes read: index, or its partitions' (leaves()) */
	ContainsLeaf *leaves; /* in fn_mcxt */
	BloomHasher hasher;   /* the probe's type, under the column's collation */
} ContainsCache;

/* calls read from pages under one key before the filter may be copied, at least */
#define COPY_AFTER_CALLS 64

/*
 * Whether index holds the keys of every row this transaction may see, or
 * raise (55000): not valid or not ready (an interrupted CREATE INDEX
 * CONCURRENTLY; a partitioned index made ON ONLY its table, not yet
 * attached everywhere), or built over broken HOT chains for snapshots newer
 * than this one's (indcheckxmin: the rule the planner follows).
 */
static void
check_usable(Relation index)
{
	switch (bloom_index_usability(index))
	{
		case BLOOM_INDEX_USABLE:
			return;
		case BLOOM_INDEX_NOT_VALID:
			ereport(
			    ERROR,
			    (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			     errmsg("bloomfilter index \"%s\" is not valid", RelationGetRelationName(index)),
			     errdetail("Its build did not finish (an interrupted CREATE INDEX "
			               "CONCURRENTLY, or an index made ON ONLY a partitioned table): it "
			               "may lack keys."),
			     errhint("REINDEX it, or drop it and create it again.")));
			break;
		case BLOOM_INDEX_TOO_NEW:
			ereport(ERROR,
			        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			         errmsg("bloomfilter index \"%s\" is too new for this transaction's snapshot",
			                RelationGetRelationName(index)),
			         errhint("Ask it in a new transaction.")));
			break;
	}
}

/*
 * Open index (its table locked first, as PostgreSQL does) as a bloomfilter
 * index, or raise: not an index (42809), not a bloomfilter one (42809).
 * Returns it opened with AccessShareLock; *table gets its table.  A
 * partitioned index has no pages: leaves() gives the indexes to read.
 */
static Relation
open_bloom_index(Oid indexoid, Oid *table)
{
	Relation index;
	Oid heap = IndexGetRelation(indexoid, true);

	if (!OidIsValid(heap))
	{
		char *name = get_rel_name(indexoid);

		if (name == NULL)
			ereport(ERROR, (errcode(ERRCODE_UNDEFINED_TABLE),
			                errmsg("relation with OID %u does not exist", indexoid)));
		ereport(ERROR,
		        (errcode(ERRCODE_WRONG_OBJECT_TYPE), errmsg("\"%s\" is not an index", name)));
	}
	LockRelationOid(heap, AccessShareLock);
	index = index_open(indexoid, AccessShareLock);
	if (index->rd_rel->relam != get_index_am_oid(BLOOM_INDEX_AM_NAME, false) ||
	    (index->rd_rel->relkind != RELKIND_INDEX &&
	     index->rd_rel->relkind != RELKIND_PARTITIONED_INDEX))
	{
		char *name = pstrdup(RelationGetRelationName(index));

		index_close(index, AccessShareLock);
		ereport(ERROR, (errcode(ERRCODE_WRONG_OBJECT_TYPE),
		                errmsg("\"%s\" is not a bloomfilter index", name)));
	}
	/* the index is its table's still (its OID was not reused meanwhile) */
	if (IndexGetRelation(indexoid, false) != heap)
		ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		                errmsg("index \"%s\" changed while it was opened",
		                       RelationGetRelationName(index))));
	check_usable(index);
	*table = heap;
	return index;
}

/*
 * The bloomfilter indexes that hold index's keys: itself, or, for a
 * partitioned index, its partitions' indexes (in the current memory
 * context).  The partitions' indexes are locked when read, each after its
 * table (open_bloom_index).
 */
static List *
leaves(Relation index)
{
	List *all, *result = NIL, *covered = NIL;
	ListCell *lc;

	if (index->rd_rel->relkind == RELKIND_INDEX)
		return list_make1_oid(RelationGetRelid(index));
	all = find_all_inheritors(RelationGetRelid(index), NoLock, NULL);
	foreach (lc, all)
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_INDEX)
		{
			Oid table;
			Relation leaf = open_bloom_index(lfirst_oid(lc), &table); /* usable too */

			index_close(leaf, NoLock);
			result = lappend_oid(result, lfirst_oid(lc));
			covered = lappend_oid(covered, table);
		}
	/*
	 * Every partition that holds rows must have its index here: a foreign
	 * partition gets none, and its rows would be keys the filter never saw.
	 */
	foreach (lc, find_all_inheritors(index->rd_index->indrelid, NoLock, NULL))
	{
		char kind = get_rel_relkind(lfirst_oid(lc));

		if ((kind == RELKIND_RELATION || kind == RELKIND_FOREIGN_TABLE ||
		     kind == RELKIND_MATVIEW) &&
		    !list_member_oid(covered, lfirst_oid(lc)))
			ereport(ERROR,
			        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			         errmsg("partition \"%s\" has no index of bloomfilter index \"%s\"",
			                get_rel_name(lfirst_oid(lc)), RelationGetRelationName(index)),
			         errdetail("Its rows' keys are in no filter%s.",
			                   kind == RELKIND_FOREIGN_TABLE
			                       ? ": a foreign table gets no index of its partitioned table's"
			                       : "")));
	}
	return result;
}

/*
 * Whether the caller may read index's keys: SELECT on the table or on the
 * indexed column, and no row-level security applying to the caller (the
 * header); raises 42501 if not.
 */
static void
check_may_read(Relation index, Oid table)
{
	AttrNumber column = index->rd_index->indkey.values[0];
	Oid user = GetUserId();

	if (pg_class_aclcheck(table, user, ACL_SELECT) != ACLCHECK_OK &&
	    (column == 0 || pg_attribute_aclcheck(table, column, user, ACL_SELECT) != ACLCHECK_OK))
		ereport(ERROR,
		        (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
		         errmsg("permission denied for bloomfilter index \"%s\"",
		                RelationGetRelationName(index)),
		         errdetail("Reading it reads the keys of table \"%s\": SELECT on the table or on "
		                   "its indexed column is needed.",
		                   get_rel_name(table))));
	if (check_enable_rls(table, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
		        (errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
		         errmsg("bloomfilter index \"%s\" cannot be read under row-level security",
		                RelationGetRelationName(index)),
		         errdetail("Row-level security applies to table \"%s\", and the filter holds the "
		                   "keys of rows its policies hide.",
		                   get_rel_name(table))));
}

/* Set up cache for index: checks, hasher, leaves (the header). */
static void
contains_setup(FunctionCallInfo fcinfo, ContainsCache *cache, Oid indexoid)
{
	Oid probe_type = get_fn_expr_argtype(fcinfo->flinfo, 1);
	BloomHasher column;
	MemoryContext old;
	Relation index;
	Oid table;

	if (!OidIsValid(probe_type))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("could not determine the type of the value to look up")));
	index = open_bloom_index(indexoid, &table);
	check_may_read(index, table);
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	bloom_index_hasher(index, &column);
	bloom_hasher_init(&cache->hasher, probe_type, index->rd_indcollation[0], false);
	{
		List *oids = leaves(index);
		ListCell *lc;

		for (int i = 0; i < cache->nleaves; i++)
		{
			if (cache->leaves[i].copy != NULL)
				pfree(cache->leaves[i].copy);
			if (cache->leaves[i].probe != NULL)
				pfree(cache->leaves[i].probe);
			if (cache->leaves[i].page_buffers.buffers != NULL)
				pfree(cache->leaves[i].page_buffers.buffers);
		}
		if (cache->leaves != NULL)
			pfree(cache->leaves);
		cache->nleaves = list_length(oids);
		cache->leaves = palloc0(Max(cache->nleaves, 1) * sizeof(ContainsLeaf));
		foreach (lc, oids)
		{
			cache->leaves[foreach_current_index(lc)].index = lfirst_oid(lc);
			cache->leaves[foreach_current_index(lc)].recent = InvalidBuffer;
		}
	}
	MemoryContextSwitchTo(old);
	if (!bf_elem_equal(column.elem, column.elemlen, cache->hasher.elem, cache->hasher.elemlen))
		ereport(ERROR,
		        (errcode(ERRCODE_DATATYPE_MISMATCH),
		         errmsg("bloomfilter index \"%s\" holds values hashed by %s, not values of type %s "
		                "(hashed by %s)",
		                RelationGetRelationName(index), column.elem, format_type_be(probe_type),
		                cache->hasher.elem),
		         errhint("Look up a value of the indexed column's type family, or cast it.")));
	cache->index = indexoid;
	index_close(index, NoLock);
}

/*
 * The key now; false where no copy is kept: during recovery, where a
 * standby's snapshots follow replay, not that count.
 */
static bool
current_key(CopyKey *key)
{
	if (RecoveryInProgress())
		return false;
	/* after this backend's latest snapshot was taken: it sees no later completion */
	pg_memory_barrier();
	key->completions = BLOOM_XACT_COMPLETIONS();
	key->curcid = GetCurrentCommandId(false);
	key->lxid = BLOOM_MY_LXID();
	return true;
}

static bool
key_equal(const CopyKey *a, const CopyKey *b)
{
	return a->completions == b->completions && a->curcid == b->curcid && a->lxid == b->lxid;
}

/*
 * After calls enough to pay for it under one key, copy leaf's whole
 * filter into the call site's memory, if it fits in the memory a hash
 * join may take (work_mem times hash_mem_multiplier, get_hash_memory_limit:
 * the copy serves as a hash join's table does, a probe per row): it is read
 * then once, and the calls under that snapshot probe the copy, its layers
 * decoded once (bf_layered_probe).
 */
static void
maybe_copy(FunctionCallInfo fcinfo, ContainsCache *cache, ContainsLeaf *leaf, Relation index,
           const CopyKey *now)
{
	MemoryContext old;
	bytea *copy;
	bf_view view;
	bf_error err;

	if (leaf->calls == COPY_AFTER_CALLS)
		leaf->pages = RelationGetNumberOfBlocks(index);
	if (leaf->calls < Max(COPY_AFTER_CALLS, (uint64) leaf->pages) ||
	    (uint64) leaf->pages * BLCKSZ > (uint64) get_hash_memory_limit())
		return;
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	copy = bloom_index_snapshot(list_make1_oid(leaf->index), &cache->hasher);
	if (leaf->probe == NULL)
		leaf->probe = palloc(sizeof(bf_layered_probe));
	MemoryContextSwitchTo(old);
	if (!bf_check_header((const uint8 *) VARDATA(copy), VARSIZE(copy) - VARHDRSZ, &view, &err))
		elog(ERROR, "bloomfilter index \"%s\": its copy is malformed: %s",
		     RelationGetRelationName(index), err.message);
	bf_layered_probe_init(&view, leaf->probe);
	leaf->copy_seed = view.p.seed;
	if (leaf->copy != NULL)
		pfree(leaf->copy);
	leaf->copy = copy;
	leaf->copy_key = *now;
	ereport(DEBUG1, (errmsg_internal("bloomfilter index \"%s\": this call site probes a copy of "
	                                 "its filter",
	                                 RelationGetRelationName(index))));
}

/*
 * Room in leaf->page_buffers for a buffer of each page its layers name (new ones
 * InvalidBuffer), as the directory grows.
 */
static void
keep_page_buffers(FunctionCallInfo fcinfo, ContainsLeaf *leaf)
{
	const BloomIndexMeta *meta = &leaf->meta;
	BlockNumber end;

	if (meta->nlayers == 0)
		return;
	end = meta->layers[meta->nlayers - 1].first + meta->layers[meta->nlayers - 1].npages;
	/* at most 4 MB of them (an index of 8 GB): pages past those are looked up */
	end = Min(end, (BlockNumber) 1 << 20);
	if (end <= leaf->page_buffers.n)
		return;
	if (leaf->page_buffers.buffers == NULL)
		leaf->page_buffers.buffers =
		    MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, end * sizeof(Buffer));
	else
	{
		leaf->page_buffers.buffers = repalloc(leaf->page_buffers.buffers, end * sizeof(Buffer));
		memset(leaf->page_buffers.buffers + leaf->page_buffers.n, 0,
		       (end - leaf->page_buffers.n) * sizeof(Buffer));
	}
	leaf->page_buffers.n = end;
}

/*
 * bloom_index_contains(index, value): whether some layer of the index (of
 * each of its partitions' indexes) holds the value's key.  Each call reads
 * the metapage (its directory kept while its layers are the same) and one
 * page per layer; after many calls while no transaction completes (a
 * statement probing many rows), the call site copies the whole filter,
 * while it fits in a hash join's memory, and probes the copy in memory
 * until one does.
 * The copy is made after the count of completed transactions was read, so
 * it holds the key of every row a transaction completed before then added
 * (CopyKey); once another completes, or this transaction's next command
 * begins, the pages are read again.
 */
Datum
bloom_index_contains(PG_FUNCTION_ARGS)
{
	Oid indexoid = PG_GETARG_OID(0);
	ContainsCache *cache = fcinfo->flinfo->fn_extra;
	CopyKey now;
	bool keyed;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ContainsCache));
		fcinfo->flinfo->fn_extra = cache;
	}
	if (!cache->valid || cache->index != indexoid)
	{
		cache->valid = false; /* until checked */
		contains_setup(fcinfo, cache, indexoid);
		cache->valid = true;
	}
	keyed = current_key(&now);
	for (int i = 0; i < cache->nleaves; i++)
	{
		ContainsLeaf *leaf = &cache->leaves[i];
		Relation index;
		Oid table;
		bool found;

		if (keyed && leaf->copy != NULL && key_equal(&leaf->copy_key, &now))
		{
			found = bf_layered_probe_contains(
			    leaf->probe, bloom_hash_value(&cache->hasher, PG_GETARG_DATUM(1), leaf->copy_seed));
			if (found)
				PG_RETURN_BOOL(true);
			continue;
		}
		/* the locks are held already: local lookups */
		index = cache->nleaves == 1 && leaf->index == indexoid
		            ? index_open(indexoid, AccessShareLock)
		            : open_bloom_index(leaf->index, &table);
		/* the metapage reread only when it changed (a new file: REINDEX, TRUNCATE) */
		if (leaf->file != BLOOM_REL_FILENUMBER(index))
		{
			leaf->current = false;
			leaf->recent = InvalidBuffer;
		}
		leaf->file = BLOOM_REL_FILENUMBER(index);
		/*
		 * Under the key it was last read under, the directory names every
		 * layer a key this snapshot may see is in (CopyKey: such a key was
		 * added before the count was read, so its layer was named then).
		 */
		if (!keyed || !leaf->current || !key_equal(&leaf->meta_key, &now))
		{
			bloom_index_refresh_meta(index, &leaf->meta, &leaf->current, &leaf->recent);
			if (keyed)
				leaf->meta_key = now;
		}
		keep_page_buffers(fcinfo, leaf);
		found = bloom_index_may_contain(
		    index, &leaf->meta,
		    bloom_hash_value(&cache->hasher, PG_GETARG_DATUM(1), leaf->meta.seed),
		    &leaf->page_buffers);
		if (keyed)
		{
			if (!key_equal(&leaf->calls_key, &now))
			{
				leaf->calls_key = now;
				leaf->calls = 0;
			}
			leaf->calls++;
			maybe_copy(fcinfo, cache, leaf, index, &now);
		}
		index_close(index, NoLock);
		if (found)
			PG_RETURN_BOOL(true);
	}
	PG_RETURN_BOOL(false);
}

/* Sums over a layer's pages. */
typedef struct LayerCounts
{
	uint64 added;
	uint64 set;
} LayerCounts;

/* bloom_index_walk_layer's visitor for count_layer: add a page's counts. */
static void
count_page(Relation index, Page page, const BloomIndexSpot *spot, const uint8 *bits, void *arg)
{
	LayerCounts *counts = arg;

	counts->added += BloomIndexPageGetOpaque(page)->nadded;
	counts->set += BloomIndexPageGetOpaque(page)->nset;
}

/* The counts of layer i's pages, each checked. */
static LayerCounts
count_layer(Relation index, const BloomIndexMeta *meta, int i)
{
	LayerCounts counts = {0, 0};

	bloom_index_walk_layer(index, meta, i, count_page, &counts);
	return counts;
}

/* What bloom_index_info adds up over the indexes it reads. */
typedef struct InfoSums
{
	uint32 layers;
	uint64 added;
	uint64 set;
	uint64 capacity;
	uint64 bytes;
	double rate;      /* the declared rate (the first index's) */
	double all_clear; /* the chance that no layer answers wrongly */
	double live;      /* live rows of the tables, or -1 if one is unknown */
} InfoSums;

/* Add index leaf's figures, and its table's live rows, to sums. */
static void
info_add(Oid leaf, InfoSums *sums)
{
	Oid table;
	Relation index = open_bloom_index(leaf, &table);
	BloomIndexMeta meta;
	PgStat_StatTabEntry *stats;
	Relation heap;
	double live;

	bloom_index_read_meta(index, &meta);
	for (uint32 i = 0; i < meta.nlayers; i++)
	{
		LayerCounts c = count_layer(index, &meta, (int) i);

		sums->added += c.added;
		sums->set += c.set;
		sums->capacity += meta.layers[i].capacity;
		sums->all_clear *= 1.0 - bf_blocked_fpp((double) c.added, (double) meta.layers[i].ncells,
		                                        meta.layers[i].nhashes);
	}
	sums->layers += meta.nlayers;
	sums->bytes += (uint64) RelationGetNumberOfBlocks(index) * BLCKSZ;
	if (sums->rate == 0)
		sums->rate = meta.rate;
	/* the table's live rows: the statistics' count, else the planner's */
	stats = pgstat_fetch_stat_tabentry(table);
	heap = table_open(table, NoLock);
	live =
	    stats != NULL ? (double) BLOOM_STAT_LIVE_TUPLES(stats) : (double) heap->rd_rel->reltuples;
	table_close(heap, NoLock);
	if (live < 0 || sums->live < 0)
		sums->live = -1;
	else
		sums->live += live;
	index_close(index, NoLock);
}

Datum
bloom_index_info(PG_FUNCTION_ARGS)
{
	Oid table;
	Relation index = open_bloom_index(PG_GETARG_OID(0), &table);
	InfoSums sums = {0, 0, 0, 0, 0, 0, 1.0, 0};
	TupleDesc desc;
	Datum values[9];
	bool nulls[9] = {false};
	ListCell *lc;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	foreach (lc, leaves(index))
		info_add(lfirst_oid(lc), &sums);
	values[0] = Int32GetDatum((int32) sums.layers);
	values[1] = Int64GetDatum((int64) sums.added);
	values[2] = Int64GetDatum((int64) sums.capacity);
	values[3] = Int64GetDatum((int64) sums.bytes);
	values[4] = Int64GetDatum((int64) sums.set);
	values[5] = Float8GetDatum(sums.rate);
	values[6] = Float8GetDatum(1.0 - sums.all_clear);
	values[7] = Float8GetDatum(sums.live);
	nulls[7] = sums.live < 0;
	values[8] = Float8GetDatum(sums.live > 0 ? (double) sums.added / sums.live : 0);
	nulls[8] = !(sums.live > 0);
	index_close(index, NoLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/* bloom_index_verify's pass over the table. */
typedef struct VerifyState
{
	BloomIndexMeta meta;
	BloomHasher hasher;
	MemoryContext scratch; /* what hashing a row allocates, reset after it */
	int64 rows;
	int64 missing;
} VerifyState;

static void
verify_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull, bool alive, void *arg)
{
	VerifyState *state = (VerifyState *) arg;
	MemoryContext old;
	uint64 h;

	if (isnull[0])
		return;
	state->rows++;
	old = MemoryContextSwitchTo(state->scratch);
	h = bloom_hash_value(&state->hasher, values[0], state->meta.seed);
	MemoryContextSwitchTo(old);
	MemoryContextReset(state->scratch);
	if (!bloom_index_may_contain(index, &state->meta, h, NULL))
	{
		if (state->missing == 0)
			ereport(WARNING, (errcode(ERRCODE_INDEX_CORRUPTED),
			                  errmsg("bloomfilter index \"%s\" lacks the key of row (%u,%u)",
			                         RelationGetRelationName(index), ItemPointerGetBlockNumber(tid),
			                         ItemPointerGetOffsetNumber(tid))));
		state->missing++;
	}
}

/* bloom_index_walk_layer's visitor for verify_layer: a page's count of bits set against its bits. */
static void
verify_page(Relation index, Page page, const BloomIndexSpot *spot, const uint8 *bits, void *arg)
{
	uint64 set =
	    pg_popcount((const char *) bits, (Size) spot->blocks_in_page * BLOOM_INDEX_BLOCK_BYTES);
	uint64 counted = BloomIndexPageGetOpaque(page)->nset;

	if (set != counted)
		ereport(ERROR, (errcode(ERRCODE_INDEX_CORRUPTED),
		                errmsg("bloomfilter index \"%s\" is corrupt at block %u",
		                       RelationGetRelationName(index), spot->blkno),
		                errdetail("The page counts %llu bits set, and holds %llu.",
		                          (unsigned long long) counted, (unsigned long long) set),
		                errhint("Rebuild it with REINDEX.")));
}

/* Check every page of layer i: its counts against its bits. */
static int64
verify_layer(Relation index, const BloomIndexMeta *meta, int i)
{
	bloom_index_walk_layer(index, meta, i, verify_page, NULL);
	return meta->layers[i].npages;
}

/* Verify index leaf (its pages, then its table's rows) into *state's counts; returns pages. */
static int64
verify_leaf(Oid leaf, VerifyState *state)
{
	Oid table;
	Relation index = open_bloom_index(leaf, &table);
	Relation heap;
	IndexInfo *indexInfo;
	TableScanDesc scan;
	Snapshot snapshot;
	int64 pages = 1;

	/*
	 * Every row this snapshot sees was added before it committed: its key
	 * must be found (the scan computes keys as the build did, expressions
	 * too; amcheck's heapallindexed pass reads the table the same way).
	 * The snapshot is taken before the directory is read, so that a row it
	 * sees went into a layer the directory names.
	 */
	snapshot = RegisterSnapshot(GetTransactionSnapshot());
	bloom_index_read_meta(index, &state->meta);
	bloom_index_hasher(index, &state->hasher);
	for (uint32 i = 0; i < state->meta.nlayers; i++)
		pages += verify_layer(index, &state->meta, (int) i);
	heap = table_open(table, NoLock);
	indexInfo = BuildIndexInfo(index);
	indexInfo->ii_Concurrent = true; /* only what the snapshot sees */
	scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, false);
	table_index_build_scan(heap, index, indexInfo, true, false, verify_callback, state, scan);
	UnregisterSnapshot(snapshot);
	table_close(heap, NoLock);
	index_close(index, NoLock);
	return pages;
}

Datum
bloom_index_verify(PG_FUNCTION_ARGS)
{
	Oid table;
	Relation index = open_bloom_index(PG_GETARG_OID(0), &table);
	VerifyState state;
	TupleDesc desc;
	Datum values[3];
	bool nulls[3] = {false};
	int64 pages = 0;
	ListCell *lc;

	check_may_read(index, table);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	memset(&state, 0, sizeof(state));
	state.scratch =
	    AllocSetContextCreate(CurrentMemoryContext, "bloomfilter verify row", ALLOCSET_SMALL_SIZES);
	foreach (lc, leaves(index))
		pages += verify_leaf(lfirst_oid(lc), &state);
	values[0] = Int64GetDatum(pages);
	values[1] = Int64GetDatum(state.rows);
	values[2] = Int64GetDatum(state.missing);
	index_close(index, NoLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

Datum
bloom_index_filter(PG_FUNCTION_ARGS)
{
	Oid table;
	Relation index = open_bloom_index(PG_GETARG_OID(0), &table);
	BloomHasher hasher;
	List *indexes;

	check_may_read(index, table);
	bloom_index_hasher(index, &hasher);
	indexes = leaves(index);
	index_close(index, NoLock);
	PG_RETURN_BYTEA_P(bloom_index_snapshot(indexes, &hasher));
}
