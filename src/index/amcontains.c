/*
 * amcontains.c
 *	  bloom_index_contains(index, value): may the table hold this key?
 *
 * A call site keeps what it learns in its fn_extra, in a memory context of
 * its own (freed whole when the call site turns to another index): the
 * index's identity, the hasher of the probe's type under the column's
 * collation (so that membership follows the column's equality, as the
 * index's own keys do), the indexes that hold the keys (the index, or its
 * partitions'), each one's directory of layers, and, after many calls, a
 * copy of each one's whole filter.
 *
 * All of that is kept only under one BloomIndexReadKey (reader.h): while
 * the key is equal, no transaction completed, this backend added no key to
 * any bloomfilter index and took in no catalog invalidation, the command
 * and the transaction are the same, and the user and row_security are.
 * When the key differs, the call site
 * revalidates before it answers: the current user's right to read the keys,
 * the list of partitions' indexes (a partition attached or detached), the
 * predicate locks of SERIALIZABLE, every copy dropped, and every directory
 * compared whole with its metapage before it is used (TRUNCATE of a table
 * created in the same transaction rewrites the index in place, in the same
 * file).  A key committed before the key was read was added before then, so
 * a directory or a copy read under the key holds it.  An index too new for
 * the snapshot (indcheckxmin) makes every answer under the key "maybe".
 *
 * Each call then takes the index's lock (held already: a local lookup), its
 * relcache entry, and one page per layer, each pinned through the buffer it
 * was in last time if it still is; it keeps no relcache reference across
 * calls, which an aborted subtransaction could release under it.
 */
#include "reader.h"

#include "access/genam.h"
#include "executor/nodeHash.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

PG_FUNCTION_INFO_V1(bloom_index_contains);
PG_FUNCTION_INFO_V1(bloom_index_contains_text);

/* What a call site keeps of one index it reads. */
typedef struct ContainsLeaf
{
	Oid index;
	/* its metapage's copy: compared whole with the metapage when stale */
	BloomIndexMeta meta;
	bool meta_valid;               /* meta holds a checked copy */
	bool stale;                    /* meta must be compared before it is used */
	Oid file;                      /* its relfilenode number */
	Buffer recent;                 /* the buffer the metapage was in last time */
	BloomIndexRecent page_buffers; /* the buffers its data pages were in */
	/* a copy of the whole filter (a layered bloom value), under the call site's key */
	bytea *copy;
	bf_layered_probe *probe; /* its layers, decoded once */
	uint64 copy_seed;        /* its seed */
	Size copy_charge;        /* what it counts against the memory limit */
	uint64 calls;            /* calls read from pages under the call site's key */
	BlockNumber pages;
} ContainsLeaf;

/* What a call site of bloom_index_contains keeps (fn_extra, in fn_mcxt). */
typedef struct ContainsCache
{
	MemoryContext cxt; /* everything below, reset when the index changes */
	bool valid;        /* set up for index */
	Oid index;
	bool partitioned;
	BloomHasher hasher; /* the probe's type, under the column's collation */
	/* text read as the column's type (bloom_index_contains_text): its input function */
	bool read_text;
	FmgrInfo input;
	Oid input_param;
	bool keyed; /* key holds: the leaves were revalidated under it */
	BloomIndexReadKey key;
	bool too_new;         /* an index is too new for this snapshot: every answer "maybe" */
	int nleaves;          /* the indexes read: index, or its partitions' */
	ContainsLeaf *leaves; /* in cxt */
	Size copied;          /* the copies' charges, summed */
} ContainsCache;

/* calls read from pages under one key before the filter may be copied, at least */
#define COPY_AFTER_CALLS 64

/* Drop leaf's copy of its filter, if it has one. */
static void
drop_copy(ContainsCache *cache, ContainsLeaf *leaf)
{
	if (leaf->copy != NULL)
	{
		pfree(leaf->copy);
		leaf->copy = NULL;
		Assert(cache->copied >= leaf->copy_charge);
		cache->copied -= leaf->copy_charge;
		leaf->copy_charge = 0;
	}
}

/* Make cache's leaves those of oids (in cxt), keeping what it knew of each. */
static void
set_leaves(ContainsCache *cache, List *oids)
{
	int n = list_length(oids);
	ContainsLeaf *leaves;
	ListCell *lc;

	if (n == cache->nleaves)
	{
		bool same = true;

		foreach (lc, oids)
			same = same && cache->leaves[foreach_current_index(lc)].index == lfirst_oid(lc);
		if (same)
			return;
	}
	leaves = MemoryContextAllocZero(cache->cxt, Max(n, 1) * sizeof(ContainsLeaf));
	foreach (lc, oids)
	{
		ContainsLeaf *leaf = &leaves[foreach_current_index(lc)];
		int old;

		for (old = 0; old < cache->nleaves; old++)
			if (cache->leaves[old].index == lfirst_oid(lc))
				break;
		if (old < cache->nleaves)
		{
			*leaf = cache->leaves[old];
			cache->leaves[old].index = InvalidOid; /* moved */
		}
		else
		{
			leaf->index = lfirst_oid(lc);
			leaf->recent = InvalidBuffer;
		}
	}
	for (int old = 0; old < cache->nleaves; old++)
		if (OidIsValid(cache->leaves[old].index))
		{
			drop_copy(cache, &cache->leaves[old]);
			if (cache->leaves[old].probe != NULL)
				pfree(cache->leaves[old].probe);
			if (cache->leaves[old].page_buffers.buffers != NULL)
				pfree(cache->leaves[old].page_buffers.buffers);
		}
	if (cache->leaves != NULL)
		pfree(cache->leaves);
	cache->leaves = leaves;
	cache->nleaves = n;
}

/*
 * Set up cache for indexoid: identity, the probe's hasher (the header).
 * from_text: the value is text (bloom_index_contains_text), hashed as text
 * where the column's type hashes as text does, else read as a value of the
 * column's type by its input function, as a literal compared with the
 * column would be (WHERE k = '42').
 */
static void
contains_setup(FunctionCallInfo fcinfo, ContainsCache *cache, Oid indexoid, bool from_text)
{
	Oid probe_type = from_text ? TEXTOID : get_fn_expr_argtype(fcinfo->flinfo, 1);
	BloomHasher column;
	MemoryContext old;
	Relation index;
	Oid table;
	bool too_new = false; /* (revalidate decides what it means) */

	if (!OidIsValid(probe_type))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("could not determine the type of the value to look up")));
	index = bloom_index_open_read(indexoid, &table, &too_new);
	old = MemoryContextSwitchTo(cache->cxt);
	bloom_index_hasher(index, &column);
	if (from_text &&
	    (!bloom_hasher_init(&cache->hasher, TEXTOID, index->rd_indcollation[0], true) ||
	     !bf_elem_equal(column.elem, column.elemlen, cache->hasher.elem, cache->hasher.elemlen)))
	{
		Oid input;

		/* (a domain's base type: WHERE compares a literal as its operator's type, unchecked) */
		probe_type = getBaseType(TupleDescAttr(RelationGetDescr(index), 0)->atttypid);
		getTypeInputInfo(probe_type, &input, &cache->input_param);
		fmgr_info_cxt(input, &cache->input, cache->cxt);
		cache->read_text = true;
	}
	bloom_hasher_init(&cache->hasher, probe_type, index->rd_indcollation[0], false);
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
	cache->partitioned = index->rd_rel->relkind != RELKIND_INDEX;
	index_close(index, NoLock);
}

/*
 * Under a new key (the header): the current user's right to read, the
 * leaves as the catalog has them now, SERIALIZABLE's predicate locks, every
 * copy dropped and every directory to be compared before use.
 */
static void
revalidate(ContainsCache *cache)
{
	Oid table;
	bool too_new = false;
	Relation index = bloom_index_open_read(cache->index, &table, &too_new);
	List *oids = bloom_index_leaves(index, &too_new);

	cache->too_new = too_new;
	set_leaves(cache, oids);
	bloom_index_lock_predicates(oids);
	for (int i = 0; i < cache->nleaves; i++)
	{
		drop_copy(cache, &cache->leaves[i]);
		cache->leaves[i].stale = true;
		cache->leaves[i].calls = 0;
	}
	Assert(cache->copied == 0);
	index_close(index, NoLock);
}

/*
 * Whether the layers meta names fit in one bloom value (its most layers,
 * its most bits), as a copy must: a larger index is read from its pages.
 */
static bool
fits_a_value(const BloomIndexMeta *meta)
{
	uint64 bits = 0;

	if (meta->nlayers > BF_MAX_LAYERS)
		return false;
	for (uint32 i = 0; i < meta->nlayers; i++)
		bits += meta->layers[i].ncells;
	return bits <= BF_MAX_BITS;
}

/*
 * After calls enough to pay for it under one key, copy leaf's whole
 * filter into the call site's memory, if it fits, beside the copies the
 * call site holds already, in the memory a hash join may take (work_mem
 * times hash_mem_multiplier, get_hash_memory_limit: the copies serve as a
 * hash join's table does, a probe per row): it is read then once, and the
 * calls under that key probe the copy, its layers decoded once
 * (bf_layered_probe).
 */
static void
maybe_copy(ContainsCache *cache, ContainsLeaf *leaf, Relation index)
{
	List *one;
	MemoryContext old;
	bytea *copy;
	bf_view view;
	bf_error err;
	Size charge;

	if (leaf->calls == COPY_AFTER_CALLS)
		leaf->pages = RelationGetNumberOfBlocks(index);
	charge = (Size) leaf->pages * BLCKSZ;
	if (leaf->calls < Max(COPY_AFTER_CALLS, (uint64) leaf->pages) ||
	    (uint64) cache->copied + charge > (uint64) get_hash_memory_limit() ||
	    !fits_a_value(&leaf->meta))
		return;
	one = list_make1_oid(leaf->index);
	old = MemoryContextSwitchTo(cache->cxt);
	copy = bloom_index_snapshot(one, &cache->hasher);
	if (leaf->probe == NULL)
		leaf->probe = palloc(sizeof(bf_layered_probe));
	MemoryContextSwitchTo(old);
	list_free(one);
	if (!bf_check_header((const uint8 *) VARDATA(copy), VARSIZE(copy) - VARHDRSZ, &view, &err))
		elog(ERROR, "bloomfilter index \"%s\": its copy is malformed: %s",
		     RelationGetRelationName(index), err.message);
	bf_layered_probe_init(&view, leaf->probe);
	leaf->copy_seed = view.p.seed;
	leaf->copy = copy;
	leaf->copy_charge = charge;
	cache->copied += charge;
	ereport(DEBUG1, (errmsg_internal("bloomfilter index \"%s\": this call site probes a copy of "
	                                 "its filter",
	                                 RelationGetRelationName(index))));
}

/*
 * Room in leaf->page_buffers for a buffer of each page its layers name (new
 * ones InvalidBuffer), as the directory grows.
 */
static void
keep_page_buffers(ContainsCache *cache, ContainsLeaf *leaf)
{
	const BloomIndexMeta *meta = &leaf->meta;
	BlockNumber end;

	end = meta->rebuild.high_water; /* every page a layer names lies before it */
	/* at most 4 MB of them (an index of 8 GB): pages past those are looked up */
	end = Min(end, (BlockNumber) 1 << 20);
	if (end <= leaf->page_buffers.n)
		return;
	if (leaf->page_buffers.buffers == NULL)
		leaf->page_buffers.buffers = MemoryContextAllocZero(cache->cxt, end * sizeof(Buffer));
	else
	{
		leaf->page_buffers.buffers = repalloc(leaf->page_buffers.buffers, end * sizeof(Buffer));
		memset(leaf->page_buffers.buffers + leaf->page_buffers.n, 0,
		       (end - leaf->page_buffers.n) * sizeof(Buffer));
	}
	leaf->page_buffers.n = end;
}

/*
 * Whether leaf's index may hold value, read from its pages: its directory
 * compared with the metapage first if stale (always, when keyed is false).
 */
static bool
leaf_from_pages(ContainsCache *cache, ContainsLeaf *leaf, Datum value, bool keyed)
{
	Oid table;
	Relation index;
	bool found;
	bool too_new = false; /* (revalidate found it, under this key) */

	/* the locks are held already: local lookups */
	index = cache->partitioned ? bloom_index_open_leaf(leaf->index, &table, &too_new)
	                           : index_open(leaf->index, AccessShareLock);
	if (leaf->file != BLOOM_REL_FILENUMBER(index))
	{
		/* a new file (REINDEX, TRUNCATE): nothing of the old one's holds */
		leaf->meta_valid = false;
		leaf->recent = InvalidBuffer;
		if (leaf->page_buffers.buffers != NULL)
			memset(leaf->page_buffers.buffers, 0, leaf->page_buffers.n * sizeof(Buffer));
	}
	leaf->file = BLOOM_REL_FILENUMBER(index);
	if (leaf->stale || !leaf->meta_valid)
	{
		bloom_index_refresh_meta(index, &leaf->meta, &leaf->meta_valid, &leaf->recent);
		leaf->stale = !keyed;
	}
	keep_page_buffers(cache, leaf);
	found = bloom_index_may_contain(index, &leaf->meta,
	                                bloom_hash_value(&cache->hasher, value, leaf->meta.seed),
	                                &leaf->page_buffers);
	if (keyed)
	{
		leaf->calls++;
		maybe_copy(cache, leaf, index);
	}
	index_close(index, NoLock);
	return found;
}

/*
 * bloom_index_contains(index, value), and (index, text): whether some layer
 * of the index (of each of its partitions' indexes) holds the value's key.
 * Each call reads one page per layer; after many calls under one key (a
 * statement probing many rows while no transaction completes and this
 * backend adds no key), the call site copies the whole filter, while the
 * copies fit in a hash join's memory, and probes the copy until the key
 * changes.
 */
static Datum
contains(FunctionCallInfo fcinfo, bool from_text)
{
	Oid indexoid = PG_GETARG_OID(0);
	ContainsCache *cache = fcinfo->flinfo->fn_extra;
	BloomIndexReadKey now;
	bool keyed;
	Datum value;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ContainsCache));
		cache->cxt = AllocSetContextCreate(fcinfo->flinfo->fn_mcxt, "bloom_index_contains",
		                                   ALLOCSET_SMALL_SIZES);
		fcinfo->flinfo->fn_extra = cache;
	}
	if (!cache->valid || cache->index != indexoid)
	{
		MemoryContext cxt = cache->cxt;

		/* another index: nothing of the last one's is kept */
		MemoryContextReset(cxt);
		memset(cache, 0, sizeof(*cache));
		cache->cxt = cxt;
		contains_setup(fcinfo, cache, indexoid, from_text);
		cache->valid = true;
	}
	value = PG_GETARG_DATUM(1);
	if (cache->read_text)
		value = InputFunctionCall(&cache->input, text_to_cstring(PG_GETARG_TEXT_PP(1)),
		                          cache->input_param, -1);
	keyed = bloom_index_read_key(&now, false);
	if (!keyed || !cache->keyed || !bloom_index_read_key_equal(&cache->key, &now))
	{
		cache->keyed = false; /* until revalidated */
		/* the key again, invalidations taken in: what revalidate checks is this fresh */
		keyed = bloom_index_read_key(&now, true);
		revalidate(cache);
		cache->key = now;
		cache->keyed = keyed;
	}
	/*
	 * An index built over broken HOT chains after this snapshot may lack the
	 * key of an older version of a row the snapshot sees: "maybe" is the
	 * answer then, not an error, until a snapshot for which it holds them.
	 */
	if (cache->too_new)
		PG_RETURN_BOOL(true);
	for (int i = 0; i < cache->nleaves; i++)
	{
		ContainsLeaf *leaf = &cache->leaves[i];
		bool found;

		if (leaf->copy != NULL)
			found = bf_layered_probe_contains(
			    leaf->probe, bloom_hash_value(&cache->hasher, value, leaf->copy_seed));
		else
			found = leaf_from_pages(cache, leaf, value, keyed);
		if (found)
			PG_RETURN_BOOL(true);
	}
	PG_RETURN_BOOL(false);
}

Datum
bloom_index_contains(PG_FUNCTION_ARGS)
{
	return contains(fcinfo, false);
}

/*
 * bloom_index_contains(index, text) (1.12): the same for a text value, and
 * for an untyped literal, which PostgreSQL resolves to text here (the
 * anyelement form cannot take one): read as the column's type where that
 * does not hash as text (contains_setup).
 */
Datum
bloom_index_contains_text(PG_FUNCTION_ARGS)
{
	return contains(fcinfo, true);
}
