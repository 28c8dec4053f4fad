/*
 * amrebuild_scan.c
 *	  The rebuild's scan of the table (amrebuild.c has the protocol): every
 *	  tuple there is, whatever its visibility (SnapshotAny), hashed into the
 *	  memory image of the layer being rebuilt, the index's expressions run
 *	  as the table's owner.
 *
 * Which tuples: all but those whose insert aborted (no snapshot anywhere
 * sees them, and an index expression may fail on them: a failed insert
 * leaves its tuple until it is pruned; an INSERT ... ON CONFLICT that lost
 * its race leaves one with no inserter at all).  Dead tuples are read:
 * a standby may still show one to a query until the record that removes
 * it, which conflicts with that query, is replayed; that record comes
 * before the switch's.  But the toasted values of a deleted row may be
 * gone (its TOAST table is vacuumed, and pruned, on its own): a row dead
 * to every snapshot whose index columns are toasted defers the rebuild to
 * a VACUUM that has removed it; one still seen is read (its values go only
 * once no snapshot sees it; an error reading them, if that came meanwhile,
 * gives the rebuild up under VACUUM's guard), except in a parallel VACUUM,
 * which may catch no error: there it defers too.  The columns that count
 * are the index's (its column, or those its expressions read).
 */
#include "rebuild.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/tableam.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "commands/vacuum.h"
#include "executor/executor.h"
#include "optimizer/optimizer.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/procarray.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

/*
 * The keys read and not yet in the image, added IMAGE_BATCH at a time: the
 * image is the size of the filter, larger than the CPU's cache for any
 * table worth a rebuild, and a batch overlaps its keys' cache misses (one
 * key at a time, they were half of a rebuild's time).
 */
#define IMAGE_BATCH 256

typedef struct ImageBatch
{
	uint64 hashes[IMAGE_BATCH];
	int n;
} ImageBatch;

/* Add the batch's keys to the memory image, counting per page those that set a bit. */
static void
image_write(RebuildImage *image, ImageBatch *batch)
{
	const BloomIndexLayer *l = image->layer;
	bf_params p = {BF_LAYOUT_BLOCKED512, BF_SCHEME_DOUBLE_HASHING, l->nhashes, image->meta.seed,
	               l->ncells};

	Assert(batch->n >= 0 && batch->n <= IMAGE_BATCH);
	bf_blocked_add_many_counted(&p, image->bits, batch->hashes, (size_t) batch->n,
	                            image->meta.blocks_per_page, image->page_added);
	batch->n = 0;
}

/* Add the key with hash h to the memory image (through the batch). */
static inline void
image_add(RebuildImage *image, ImageBatch *batch, uint64 h)
{
	batch->hashes[batch->n++] = h;
	if (batch->n == IMAGE_BATCH)
		image_write(image, batch);
}

/* What a tuple is to the scan. */
typedef enum TupleKind
{
	TUPLE_LIVE,    /* live, being inserted, or being deleted: read, a row */
	TUPLE_DELETED, /* deleted or updated away, still seen by some snapshot: read (deleted_kept) */
	TUPLE_OLD_VERSION,  /* a HOT update's old version: read (its key is its row's), no row */
	TUPLE_SKIPPED,      /* its insert aborted: no one sees it */
	TUPLE_TOASTED,      /* deleted, still seen, its index's columns toasted: may go meanwhile */
	TUPLE_TOASTED_DEAD, /* the same, dead to every snapshot: the values may be gone already */
} TupleKind;

/* Whether a column of cols (attribute numbers offset as pull_varattnos does) is toasted out of line. */
static bool
reads_toasted(TupleTableSlot *slot, Bitmapset *cols)
{
	int col = -1;

	while ((col = bms_next_member(cols, col)) >= 0)
	{
		AttrNumber attno = col + FirstLowInvalidHeapAttributeNumber;
		bool isnull;
		Datum value;

		if (attno <= 0 || TupleDescAttr(slot->tts_tupleDescriptor, attno - 1)->attlen != -1)
			continue;
		value = slot_getattr(slot, attno, &isnull);
		if (!isnull && VARATT_IS_EXTERNAL_ONDISK(DatumGetPointer(value)))
			return true;
	}
	return false;
}

/*
 * Which kind slot's tuple is, oldest_xmin the horizon of the table's
 * snapshots, cols the columns the index reads (a tuple of another table
 * access method is live).
 */
static TupleKind
classify(TupleTableSlot *slot, TransactionId oldest_xmin, Bitmapset *cols)
{
	BufferHeapTupleTableSlot *heap_slot = (BufferHeapTupleTableSlot *) slot;
	HeapTuple tuple;
	HTSV_Result state;
	TransactionId xmin;

	if (!TTS_IS_BUFFERTUPLE(slot))
		return TUPLE_LIVE;
	tuple = heap_slot->base.tuple;
	/* an insert that aborted, or that lost an INSERT ... ON CONFLICT race (its xmin made invalid) */
	if (!HeapTupleHeaderXminCommitted(tuple->t_data) && !HeapTupleHeaderXminFrozen(tuple->t_data))
	{
		xmin = HeapTupleHeaderGetRawXmin(tuple->t_data);
		if (HeapTupleHeaderXminInvalid(tuple->t_data) || !TransactionIdIsValid(xmin) ||
		    (TransactionIdIsNormal(xmin) && TransactionIdDidAbort(xmin)))
			return TUPLE_SKIPPED;
	}
	/*
	 * Its insert known committed (or frozen) and no delete or lock ever
	 * set: live, as HeapTupleSatisfiesVacuum would say, without its buffer
	 * lock (most rows of a table worth a rebuild).  The hint bits are read
	 * with the pin alone: a delete that comes meanwhile (under the lock)
	 * may be missed, which only reads the row's key as a live row's, as
	 * the scan does for a delete after it.
	 */
	if ((HeapTupleHeaderXminCommitted(tuple->t_data) || HeapTupleHeaderXminFrozen(tuple->t_data)) &&
	    (tuple->t_data->t_infomask & HEAP_XMAX_INVALID))
		return TUPLE_LIVE;
	LockBuffer(heap_slot->buffer, BUFFER_LOCK_SHARE);
	state = HeapTupleSatisfiesVacuum(tuple, oldest_xmin, heap_slot->buffer);
	LockBuffer(heap_slot->buffer, BUFFER_LOCK_UNLOCK);
	if (state != HEAPTUPLE_DEAD && state != HEAPTUPLE_RECENTLY_DEAD)
		return TUPLE_LIVE;
	if (HeapTupleHasExternal(tuple) && reads_toasted(slot, cols))
		return state == HEAPTUPLE_DEAD ? TUPLE_TOASTED_DEAD : TUPLE_TOASTED;
	/* (a HOT update's old version: the statistics count it gone no more than its key) */
	return HeapTupleIsHotUpdated(tuple) ? TUPLE_OLD_VERSION : TUPLE_DELETED;
}

/*
 * The columns index reads (pull_varattnos' offsets): its column, or those
 * its expressions read.
 */
static Bitmapset *
index_columns(IndexInfo *info)
{
	Bitmapset *cols = NULL;

	if (info->ii_IndexAttrNumbers[0] != 0)
		return bms_make_singleton(info->ii_IndexAttrNumbers[0] -
		                          FirstLowInvalidHeapAttributeNumber);
	pull_varattnos((Node *) info->ii_Expressions, 1, &cols);
	return cols;
}

/* scan_heap, its expressions run as the table's owner in a security-restricted operation. */
static RebuildScan
scan_heap(Relation heap, Relation index, RebuildImage *image, bool for_vacuum)
{
	IndexInfo *info = BuildIndexInfo(index);
	EState *estate = CreateExecutorState();
	ExprContext *econtext = GetPerTupleExprContext(estate);
	TupleTableSlot *slot = table_slot_create(heap, NULL);
	TransactionId oldest_xmin = GetOldestNonRemovableTransactionId(heap);
	Bitmapset *cols = index_columns(info);
	BloomHasher hasher;
	TableScanDesc scan;
	Datum values[INDEX_MAX_KEYS];
	bool isnull[INDEX_MAX_KEYS];
	Oid caller;
	int caller_context;
	int guc_level;
	BlockNumber block = InvalidBlockNumber;
	ImageBatch batch = {.n = 0};
	RebuildScan outcome = REBUILD_SCANNED;

	bloom_index_hasher(index, &hasher);
	GetUserIdAndSecContext(&caller, &caller_context);
	SetUserIdAndSecContext(heap->rd_rel->relowner, caller_context | SECURITY_RESTRICTED_OPERATION);
	guc_level = NewGUCNestLevel();
	BLOOM_RESTRICT_SEARCH_PATH();
	econtext->ecxt_scantuple = slot;
	/* every tuple there is (the header says why); a ring of buffers, from block 0 */
	scan = table_beginscan_strat(heap, SnapshotAny, 0, NULL, true, false);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		MemoryContext old;
		TupleKind kind;

		/* VACUUM's pace: a delay point a page (and CHECK_FOR_INTERRUPTS) */
		if (ItemPointerGetBlockNumber(&slot->tts_tid) != block)
		{
			block = ItemPointerGetBlockNumber(&slot->tts_tid);
			BLOOM_VACUUM_DELAY_POINT();
		}
		kind = classify(slot, oldest_xmin, cols);
		if (kind == TUPLE_SKIPPED)
			continue;
		/*
		 * A deleted row whose index values are toasted: they may be gone
		 * already, or go while the scan runs (the TOAST table is vacuumed
		 * and pruned on its own).  One dead to every snapshot defers the
		 * rebuild to a VACUUM that has removed it; one still seen is read,
		 * unless no error may be caught (a parallel VACUUM).
		 */
		if (kind == TUPLE_TOASTED_DEAD || (kind == TUPLE_TOASTED && IsInParallelMode()))
		{
			outcome = REBUILD_DEFERRED;
			break;
		}
		MemoryContextReset(econtext->ecxt_per_tuple_memory);
		old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
		FormIndexDatum(info, slot, estate, values, isnull);
		if (!isnull[0])
		{
			image_add(image, &batch, bloom_hash_value(&hasher, values[0], image->meta.seed));
			if (kind == TUPLE_LIVE)
				image->rows++;
			else if (kind != TUPLE_OLD_VERSION)
				image->deleted_kept++;
		}
		MemoryContextSwitchTo(old);
	}
	image_write(image, &batch);
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	AtEOXact_GUC(false, guc_level);
	SetUserIdAndSecContext(caller, caller_context);
	return outcome;
}

RebuildScan
bloom_index_rebuild_scan(Relation heap, Relation index, RebuildImage *image, bool for_vacuum)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	volatile RebuildScan outcome = REBUILD_SCANNED;

	/*
	 * bloom_index_rebuild lets an error through (it was asked for), and so
	 * does a parallel VACUUM, which may start no subtransaction (its
	 * leader cleans this index up while workers run): there only an index
	 * expression that is not truly immutable fails, as it would REINDEX.
	 */
	if (!for_vacuum || IsInParallelMode())
		return scan_heap(heap, index, image, for_vacuum);
	/*
	 * VACUUM: an error reading the table gives the rebuild up with a
	 * WARNING, the old filter whole, instead of failing the VACUUM.  A
	 * cancel or a shutdown is still the VACUUM's.
	 */
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		outcome = scan_heap(heap, index, image, for_vacuum);
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		ErrorData *error;

		MemoryContextSwitchTo(cxt);
		error = CopyErrorData();
		if (error->sqlerrcode == ERRCODE_QUERY_CANCELED ||
		    error->sqlerrcode == ERRCODE_ADMIN_SHUTDOWN || !IsTransactionState())
			PG_RE_THROW();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		ereport(WARNING,
		        (errcode(error->sqlerrcode),
		         errmsg("bloomfilter index \"%s\": its filter was not rebuilt",
		                RelationGetRelationName(index)),
		         errdetail("Reading the table's rows failed: %s", error->message),
		         errhint("The filter is the one before; bloom_index_rebuild() shows the error.")));
		FreeErrorData(error);
		outcome = REBUILD_FAILED;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return outcome;
}
