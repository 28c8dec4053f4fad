/*
 * amsql.c
 *	  The SQL functions that read a whole bloomfilter index:
 *	    bloom_index_info(index)             layers, keys, size, rates, staleness, rebuilds
 *	    bloom_index_verify(index)           every page checked, every row's key found
 *	    bloom_index_filter(index)           the filter as a bloom value (amsnapshot.c)
 *	    bloom_index_refresh(index, known)   the same with its stamp, or the stamp alone if known
 *	  (bloom_index_contains, which reads a key's pages, is amcontains.c.)
 *
 * Each needs what every reader needs (amaccess.c): SELECT on the table or on
 * the indexed column, checked before any lock is taken, and no row-level
 * security applying to the caller.  bloom_index_info tells counts, among
 * them how many distinct keys were added, which pg_stats shows only under
 * the same rule.  bloom_index_filter and bloom_index_refresh take
 * SERIALIZABLE's predicate locks, as a scan of the table would.
 */
#include "reader.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "common/hashfn.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(bloom_index_info);
PG_FUNCTION_INFO_V1(bloom_index_verify);
PG_FUNCTION_INFO_V1(bloom_index_filter);
PG_FUNCTION_INFO_V1(bloom_index_refresh);

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

	if (bits == NULL)
		return; /* given to another layer since the directory was read: not this one's */
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
	double rate;        /* the declared rate (the first index's) */
	double all_clear;   /* the chance that no layer answers wrongly */
	double live;        /* live rows of the tables, or -1 if one is unknown */
	int64 last_rebuilt; /* the latest rebuild's time (TimestampTz), 0 if none */
	uint32 last_reason; /* and its BloomIndexRebuildReason */
	uint64 rebuilds;
} InfoSums;

/* Add index leaf's figures, and its table's live rows, to sums. */
static void
info_add(Oid leaf, InfoSums *sums)
{
	Oid table;
	Relation index = bloom_index_open_leaf(leaf, &table, NULL);
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
	sums->rebuilds += meta.rebuild.rebuilds;
	if (meta.rebuild.rebuilds > 0 && meta.rebuild.last_rebuilt >= sums->last_rebuilt)
	{
		sums->last_rebuilt = meta.rebuild.last_rebuilt;
		sums->last_reason = meta.rebuild.last_reason;
	}
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
	Relation index = bloom_index_open_read(PG_GETARG_OID(0), &table, NULL);
	InfoSums sums = {0, 0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0};
	TupleDesc desc;
	Datum values[12];
	bool nulls[12] = {false};
	const char *reason;
	ListCell *lc;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	foreach (lc, bloom_index_leaves(index, NULL))
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
	/* (1.12's columns; a 1.11 definition has the first 9) */
	reason = bloom_index_rebuild_reason_name(sums.last_reason);
	values[9] = TimestampTzGetDatum((TimestampTz) sums.last_rebuilt);
	nulls[9] = sums.rebuilds == 0;
	values[10] = reason != NULL ? CStringGetTextDatum(reason) : (Datum) 0;
	nulls[10] = reason == NULL;
	values[11] = Int64GetDatum((int64) sums.rebuilds);
	if (desc->natts != 9 && desc->natts != 12)
		elog(ERROR, "bloom_index_info: a result of %d columns, not 9 or 12", desc->natts);
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
	uint64 set, counted;

	/*
	 * Given to another layer since the directory was read (the caller's
	 * snapshot keeps a primary from that; a standby's replay does not): the
	 * page is that layer's, checked by a verify that reads its directory.
	 */
	if (bits == NULL)
		return;
	set = pg_popcount((const char *) bits, (Size) spot->blocks_in_page * BLOOM_INDEX_BLOCK_BYTES);
	counted = BloomIndexPageGetOpaque(page)->nset;

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
	Relation index = bloom_index_open_leaf(leaf, &table, NULL);
	Relation heap;
	IndexInfo *indexInfo;
	TableScanDesc scan;
	Snapshot snapshot;
	int64 pages = 1;
	Oid caller;
	int caller_context;
	int guc_level;

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
	/*
	 * The index's expressions and predicate are the table owner's code: run
	 * them as the owner, in a security-restricted operation, as REINDEX,
	 * ANALYZE and amcheck do, never as the caller (who may be a superuser).
	 */
	GetUserIdAndSecContext(&caller, &caller_context);
	SetUserIdAndSecContext(heap->rd_rel->relowner, caller_context | SECURITY_RESTRICTED_OPERATION);
	guc_level = NewGUCNestLevel();
	BLOOM_RESTRICT_SEARCH_PATH();
	indexInfo = BuildIndexInfo(index);
	indexInfo->ii_Concurrent = true; /* only what the snapshot sees */
	scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, false);
	table_index_build_scan(heap, index, indexInfo, true, false, verify_callback, state, scan);
	AtEOXact_GUC(false, guc_level);
	SetUserIdAndSecContext(caller, caller_context);
	UnregisterSnapshot(snapshot);
	table_close(heap, NoLock);
	index_close(index, NoLock);
	return pages;
}

Datum
bloom_index_verify(PG_FUNCTION_ARGS)
{
	Oid table;
	Relation index = bloom_index_open_read(PG_GETARG_OID(0), &table, NULL);
	VerifyState state;
	TupleDesc desc;
	Datum values[3];
	bool nulls[3] = {false};
	int64 pages = 0;
	ListCell *lc;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	memset(&state, 0, sizeof(state));
	state.scratch =
	    AllocSetContextCreate(CurrentMemoryContext, "bloomfilter verify row", ALLOCSET_SMALL_SIZES);
	foreach (lc, bloom_index_leaves(index, NULL))
		pages += verify_leaf(lfirst_oid(lc), &state);
	values[0] = Int64GetDatum(pages);
	values[1] = Int64GetDatum(state.rows);
	values[2] = Int64GetDatum(state.missing);
	index_close(index, NoLock);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}

/* The filter of index indexoid, its caller's right to read it checked, its predicate locks taken. */
static bytea *
index_filter(Oid indexoid)
{
	Oid table;
	Relation index = bloom_index_open_read(indexoid, &table, NULL);
	BloomHasher hasher;
	List *indexes;

	bloom_index_hasher(index, &hasher);
	indexes = bloom_index_leaves(index, NULL);
	bloom_index_lock_predicates(indexes);
	index_close(index, NoLock);
	return bloom_index_snapshot(indexes, &hasher);
}

Datum
bloom_index_filter(PG_FUNCTION_ARGS)
{
	PG_RETURN_BYTEA_P(index_filter(PG_GETARG_OID(0)));
}

/*
 * bloom_index_refresh(index, known) -> (stamp, filter): the filter
 * bloom_index_filter gives, and its stamp, a 64-bit hash of its bytes; the
 * filter NULL where the stamp is known (not NULL and equal), so that a
 * client whose copy carries that stamp learns in one round trip, without
 * the filter crossing the network, that its copy holds every key the
 * index holds.  The stamp is of the very bytes returned, so no key added
 * meanwhile can fall between the two; a hash, not a count of keys added,
 * so that REINDEX or TRUNCATE followed by as many keys is a change too.
 * The same privileges and predicate locks as bloom_index_filter, even when
 * the filter is not sent: the caller reads the keys through its copy.
 */
Datum
bloom_index_refresh(PG_FUNCTION_ARGS)
{
	TupleDesc desc;
	Datum values[2];
	bool nulls[2] = {false, false};
	bytea *filter;
	int64 stamp;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	filter = index_filter(PG_GETARG_OID(0));
	Assert(VARSIZE(filter) - VARHDRSZ <= (Size) PG_INT32_MAX);
	stamp = (int64) hash_bytes_extended((const unsigned char *) VARDATA(filter),
	                                    (int) (VARSIZE(filter) - VARHDRSZ), 0);
	values[0] = Int64GetDatum(stamp);
	if (!PG_ARGISNULL(1) && PG_GETARG_INT64(1) == stamp)
		nulls[1] = true;
	else
		values[1] = PointerGetDatum(filter);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
