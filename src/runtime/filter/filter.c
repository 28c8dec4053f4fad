/*
 * filter.c
 *	  The filter of a runtime join filter: collected, sized, filled, probed.
 *
 * A build collects the 32-bit key hashes of the inner rows; at the end of
 * the inner side it sizes a blocked512 filter for the rows it read (the
 * planner's estimate can be far off) and adds them.  If more rows come than
 * MAX_PENDING, the hashes go straight into a filter of the largest size
 * instead (core/bf_runtime.h); if that ends up too full to be worth
 * probing, the filter is marked useless and probes pass every row.
 *
 * A filter taken from a bloomfilter index (source_index) collects nothing:
 * its finish takes the index's filter as it is then, a layered value.
 */
#include "filter.h"
#include "../settings.h"
#include "../../bloom_error.h"
#include "../../../core/bf_runtime.h"

#include "executor/hashjoin.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "portability/instr_time.h"
#include "storage/barrier.h"
#include "utils/memutils.h"

#define FIRST_PENDING 1024

/*
 * Under a Parallel Hash Join every participant reads a share of the inner
 * side.  There the filter is shared (shared.c): each participant collects
 * its share as a build of its own would, and publishes it at its end; the
 * first process to probe makes one filter of every share, sized for all of
 * them, and each process merges every share's key values.  The join's
 * build barrier tells when every participant is done: the probes and the
 * skips use the shared filter and values only once it has passed the
 * hashing of the inner side, which is also when the join starts reading
 * outer rows.  A Parallel Hash Join run without parallel workers' shared
 * memory (no DSM) builds its hash table alone: its filter is a private one.
 */
struct RuntimeFilter
{
	int id;
	struct HashJoinState *join; /* the join it serves; NULL if not wired */
	bool ready;                 /* this process's build is finished (its share, if shared) */
	bool useless;               /* too full to be worth probing */
	MemoryContext context;
	List *operators;  /* the join's hash operators (OidList; the build node's plan's, read only) */
	List *collations; /* their collations (likewise) */

	size_t max_bytes; /* the largest this filter may be: the setting when it was made */
	uint32 *pending;  /* hashes of the current build, until it is finished */
	size_t npending;
	size_t pending_size;
	uint8 *bytes; /* the filter, once sized */
	size_t bytes_size;
	bf_view view;

	/* shared (Parallel Hash Join; shared.c) */
	double shared_keys;     /* > 0: shared (the planner's estimate of all inner rows) */
	RuntimeSharedBuild *sb; /* the build node's shared memory, while attached */
	dsa_area *area;         /* the query's area: the shares, the filter */
	bool got;               /* the shared filter is made and seen (shared_view) */
	/* (area stays set once attached: the filter was shared, for EXPLAIN) */
	bf_view shared_view;
	bool checked;                /* the shared filter's fill has been read */
	RuntimeValues *merged;       /* every share's values, merged (once asked, if kept) */
	MemoryContext merged_memory; /* theirs: emptied at each new build */
	List *families;              /* what the values were made with (keep_values) */
	bool stretches;

	/*
	 * Taken from a bloomfilter index (source.h) rather than built: the build
	 * reads no key, and its finish takes the index's filter, a layered
	 * value (bytes is the bytea), whose probes hash key source_key as the
	 * index hashes (exec/probe.c).  source_missing: the index could not
	 * serve at the last build (the filter is useless then).
	 */
	Oid source_index;
	int source_key;
	bool source_missing;

	/* the build's key values, for skipping scans (values.c); NULL if not kept */
	RuntimeValues *values;
	/* scans its probes asked about (all builds), and skipped: for EXPLAIN ANALYZE */
	uint64 scans_checked;
	uint64 scans_skipped;

	/* for EXPLAIN ANALYZE: the last build */
	uint64 keys;     /* keys added */
	uint64 builds;   /* builds started (rescans rebuild) */
	double build_ms; /* from the first inner row to the finished filter */
	double fill;     /* fraction of bits set */
	instr_time started;
	bool timing;
};

static void allocate_filter(RuntimeFilter *f, double nkeys);
static void add_pending(RuntimeFilter *f);
static bool shared_ready(RuntimeFilter *f, HashJoinTable table);
static void measure_fill(const bf_view *view, double *fill, bool *useless);
static void take_source(RuntimeFilter *f);

RuntimeFilter *
bloom_rf_filter_create(int id, double shared_keys, List *operators, List *collations)
{
	RuntimeFilter *f = palloc0(sizeof(RuntimeFilter));

	Assert(shared_keys >= 0 && list_length(operators) == list_length(collations));
	f->id = id;
	f->context = CurrentMemoryContext;
	f->operators = operators;
	f->collations = collations;
	f->shared_keys = shared_keys;
	f->max_bytes = bloom_rf_max_bytes();
	f->source_key = -1;
	return f;
}

int
bloom_rf_filter_id(const RuntimeFilter *f)
{
	return f->id;
}

List *
bloom_rf_filter_operators(const RuntimeFilter *f)
{
	return f->operators;
}

List *
bloom_rf_filter_collations(const RuntimeFilter *f)
{
	return f->collations;
}

void
bloom_rf_filter_set_join(RuntimeFilter *f, struct HashJoinState *join)
{
	f->join = join;
}

RuntimeValues *
bloom_rf_filter_keep_values(RuntimeFilter *f, List *families, bool stretches)
{
	Assert(f->values == NULL && !OidIsValid(f->source_index));
	f->values = bloom_rf_values_create(list_length(f->operators), f->operators, f->collations,
	                                   families, stretches);
	f->families = families;
	f->stretches = stretches;
	return f->values;
}

const RuntimeValues *
bloom_rf_filter_values(const RuntimeFilter *f)
{
	/* a shared build's: every share's, once merged (bloom_rf_filter_built) */
	return f->sb != NULL ? f->merged : f->values;
}

Oid
bloom_rf_filter_source(const RuntimeFilter *f, int *key)
{
	*key = f->source_key;
	return f->source_index;
}

bool
bloom_rf_filter_ready(const RuntimeFilter *f)
{
	return f->ready;
}

bool
bloom_rf_filter_is_shared(const RuntimeFilter *f)
{
	return f->shared_keys > 0;
}

void
bloom_rf_filter_note_scan(RuntimeFilter *f, bool skipped)
{
	f->scans_checked++;
	if (skipped)
		f->scans_skipped++;
}

void
bloom_rf_filter_set_source(RuntimeFilter *f, Oid index, int key)
{
	Assert(OidIsValid(index) && key >= 0 && f->shared_keys <= 0 && f->values == NULL);
	f->source_index = index;
	f->source_key = key;
}

void
bloom_rf_filter_reset(RuntimeFilter *f)
{
	if (f->bytes)
		pfree(f->bytes);
	f->bytes = NULL;
	f->npending = 0;
	f->ready = false;
	f->useless = false;
	f->keys = 0;
	f->fill = 0;
	f->timing = false;
	f->checked = false;
	f->got = false;
	f->merged = NULL;
	if (f->merged_memory != NULL)
		MemoryContextReset(f->merged_memory);
	f->source_missing = false;
	if (f->values)
		bloom_rf_values_reset(f->values);
}

void
bloom_rf_filter_add(RuntimeFilter *f, uint32 hash)
{
	Assert(!f->ready);
	if (!f->timing)
	{
		INSTR_TIME_SET_CURRENT(f->started);
		f->timing = true;
		f->builds++;
	}
	f->keys++;
	if (f->bytes)
	{
		/* past the pending hashes' room: straight into the largest filter */
		bf_add_hash(&f->view, (uint64) hash);
		return;
	}
	if (f->npending == f->pending_size)
	{
		/* the pending hashes never take more memory than the largest filter */
		if (f->pending_size >= f->max_bytes / sizeof(uint32))
		{
			/* the count is unknown: the largest filter */
			allocate_filter(f, bf_rf_max_keys(f->max_bytes) + 1);
			add_pending(f);
			bf_add_hash(&f->view, (uint64) hash);
			return;
		}
		f->pending_size = f->pending_size == 0 ? FIRST_PENDING : 2 * f->pending_size;
		if (f->pending == NULL)
			f->pending = MemoryContextAlloc(f->context, f->pending_size * sizeof(uint32));
		else
			f->pending = repalloc(f->pending, f->pending_size * sizeof(uint32));
	}
	f->pending[f->npending++] = hash;
}

void
bloom_rf_filter_finish(RuntimeFilter *f)
{
	instr_time now;

	Assert(!f->ready);
	if (!f->timing)
	{
		/* an empty inner side (or share of it) */
		INSTR_TIME_SET_CURRENT(f->started);
		f->builds++;
	}
	if (f->values)
		bloom_rf_values_finish(f->values);
	if (f->sb != NULL)
	{
		/* this share is read: published (its hashes, or its filter if it grew to one) */
		bloom_rf_shared_build_publish(f->sb, f->area, f->pending, f->bytes ? 0 : f->npending,
		                              f->bytes, f->bytes ? f->bytes_size : 0, f->keys, f->values);
		f->npending = 0;
	}
	else if (OidIsValid(f->source_index))
		take_source(f);
	else
	{
		if (f->bytes == NULL)
		{
			allocate_filter(f, (double) f->npending);
			add_pending(f);
		}
		measure_fill(&f->view, &f->fill, &f->useless);
	}
	f->ready = true;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, f->started);
	f->build_ms = INSTR_TIME_GET_MILLISEC(now);
	f->timing = false;
}

const bf_view *
bloom_rf_filter_usable(RuntimeFilter *f, RuntimeBuildStamp *now)
{
	HashJoinTable table;

	if (f->join == NULL || (table = f->join->hj_HashTable) == NULL)
		return NULL;
	/* (a shared build's number is the build's, not this process's: it may have built nothing) */
	now->build = f->sb != NULL ? bloom_rf_shared_build_generation(f->sb) : f->builds;
	now->table = table;
	if (f->sb == NULL)
		return f->ready && !f->useless ? &f->view : NULL;
	if (!shared_ready(f, table))
		return NULL;
	if (!f->got)
	{
		Size size;
		const uint8 *bytes = bloom_rf_shared_build_get(f->sb, f->area, f->max_bytes, &size);
		bf_error err;

		if (!bf_check_header(bytes, size, &f->shared_view, &err))
			bloom_report(&err, BLOOM_FROM_STORAGE);
		f->got = true;
	}
	if (!f->checked)
	{
		measure_fill(&f->shared_view, &f->fill, &f->useless);
		f->checked = true;
	}
	return !f->useless ? &f->shared_view : NULL;
}

/*
 * Whether every participant of the Parallel Hash Join has hashed its share
 * of the inner side (the join's build barrier is past it): every share is
 * published.
 */
static bool
shared_ready(RuntimeFilter *f, HashJoinTable table)
{
	return table->parallel_state != NULL &&
	       BarrierPhase(&table->parallel_state->build_barrier) >= BLOOM_PHJ_BUILD_HASH_OUTER;
}

bool
bloom_rf_filter_built(RuntimeFilter *f, RuntimeBuildStamp *now)
{
	HashJoinTable table;

	if (f->join == NULL || (table = f->join->hj_HashTable) == NULL)
		return false;
	if (f->sb == NULL)
	{
		if (!f->ready)
			return false;
	}
	else
	{
		if (!shared_ready(f, table))
			return false;
		/* every share's values, merged into this process's copy (the same in each) */
		if (f->values != NULL && f->merged == NULL)
		{
			MemoryContext old;

			if (f->merged_memory == NULL)
				f->merged_memory = AllocSetContextCreate(f->context, "runtime filter merged values",
				                                         ALLOCSET_SMALL_SIZES);
			old = MemoryContextSwitchTo(f->merged_memory);
			f->merged = bloom_rf_values_create(list_length(f->operators), f->operators,
			                                   f->collations, f->families, f->stretches);
			bloom_rf_shared_build_values(f->sb, f->area, f->merged);
			MemoryContextSwitchTo(old);
		}
	}
	now->build = f->sb != NULL ? bloom_rf_shared_build_generation(f->sb) : f->builds;
	now->table = table;
	return true;
}

void
bloom_rf_filter_describe(const RuntimeFilter *f, RuntimeFilterFacts *counts)
{
	/* (a shared filter's memory may be gone: EXPLAIN runs after Gather's end) */
	const bf_view *view = f->area != NULL ? &f->shared_view : &f->view;

	memset(counts, 0, sizeof(*counts));
	counts->source_missing = f->source_missing;
	counts->keys = f->keys;
	counts->builds = f->builds;
	counts->scans_checked = f->scans_checked;
	counts->scans_skipped = f->scans_skipped;
	counts->ready = f->ready;
	if (f->area != NULL)
	{
		/* the filter of every share, if this process probed it (its fill read then) */
		counts->ready = f->got;
		counts->fill = f->fill;
		counts->useless = f->useless;
	}
	else if (f->ready)
	{
		counts->fill = f->fill;
		counts->useless = f->useless;
	}
	if (counts->ready)
	{
		counts->bytes = view->nbytes;
		counts->nhashes = view->p.nhashes;
		counts->build_ms = f->build_ms;
	}
}

bytea *
bloom_rf_filter_to_send(const RuntimeFilter *f)
{
	size_t len;
	bytea *out;

	Assert(f->ready);
	if (f->sb != NULL || f->useless || f->bytes == NULL)
		return NULL;
	len = (size_t) (f->view.data + f->view.nbytes - f->view.payload);
	if (len > (size_t) bloom_rf_ship_max_kb * 1024)
		return NULL;
	out = (bytea *) palloc(VARHDRSZ + len);
	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), f->view.payload, len);
	return out;
}

Size
bloom_rf_filter_shared_size(const RuntimeFilter *f)
{
	Assert(f->shared_keys > 0);
	return bloom_rf_shared_build_size();
}

void
bloom_rf_filter_shared_init(RuntimeFilter *f, void *mem, dsa_area *area)
{
	Assert(f->shared_keys > 0 && area != NULL);
	bloom_rf_shared_build_init(mem);
	bloom_rf_filter_shared_attach(f, mem, area);
}

void
bloom_rf_filter_shared_attach(RuntimeFilter *f, void *mem, dsa_area *area)
{
	Assert(f->shared_keys > 0 && area != NULL);
	f->sb = mem;
	f->area = area;
	f->got = false;
	f->checked = false;
	f->merged = NULL;
}

void
bloom_rf_filter_shared_reset(RuntimeFilter *f)
{
	Assert(f->sb != NULL);
	bloom_rf_shared_build_reinit(f->sb, f->area);
	f->got = false;
	f->checked = false;
	f->merged = NULL;
}

void
bloom_rf_filter_shared_detach(RuntimeFilter *f)
{
	f->sb = NULL;
}

/*
 * The index's filter, as it is now: the bloom value bloom_index_filter
 * would give, in the filter's memory.  An index that cannot serve now, or
 * whose filter is larger than the largest runtime filter, leaves the filter
 * useless: probes pass every row.
 */
static void
take_source(RuntimeFilter *f)
{
	MemoryContext old = MemoryContextSwitchTo(f->context);
	bytea *value = bloom_index_source_filter(f->source_index, f->max_bytes);
	bf_error err;

	MemoryContextSwitchTo(old);
	Assert(f->bytes == NULL);
	if (value == NULL)
	{
		f->source_missing = true;
		f->useless = true;
		return;
	}
	f->bytes = (uint8 *) value;
	if (!bf_check_header((uint8 *) VARDATA(value), VARSIZE(value) - VARHDRSZ, &f->view, &err))
		bloom_report(&err, BLOOM_FROM_STORAGE);
	Assert(f->view.p.layout == BF_LAYOUT_LAYERED);
	f->keys = f->view.nadded;
	measure_fill(&f->view, &f->fill, &f->useless);
}

/*
 * The rate of a filter whose bits set are occupied of ncells, k hashes; of
 * a layered one, the chance that some layer passes a key none holds.
 */
static double
current_fpp(const bf_view *view, uint64 occupied)
{
	bf_layer_cursor c;
	double clear = 1.0;

	if (view->p.layout != BF_LAYOUT_LAYERED)
		return bf_current_fpp(view->p.ncells, view->p.nhashes, occupied);
	for (bool more = bf_layer_first(view, &c); more; more = bf_layer_next(view, &c))
	{
		size_t bytes = (size_t) (c.layer.ncells / 8);

		clear *= 1.0 - bf_current_fpp(c.layer.ncells, c.layer.nhashes,
		                              bf_occupied(view, c.offset, c.offset + bytes));
	}
	return 1.0 - clear;
}

/* The fraction of a filter's bits set, and whether the rate they give is too high. */
static void
measure_fill(const bf_view *view, double *fill, bool *useless)
{
	uint64 occupied = bf_occupied(view, 0, view->nbytes);

	*fill = (double) occupied / (double) view->p.ncells;
	*useless = current_fpp(view, occupied) > BF_RF_MAX_USEFUL_FPP;
}

/* Allocate and zero the filter for nkeys keys, in the filter's context. */
static void
allocate_filter(RuntimeFilter *f, double nkeys)
{
	bf_params p;
	size_t size;

	Assert(f->bytes == NULL);
	bloom_rf_filter_shape(nkeys, f->max_bytes, &p, &size);
	f->bytes = MemoryContextAlloc(f->context, size);
	f->bytes_size = size;
	bf_init(f->bytes, &p, 0, "", 0, 0, &f->view);
}

/* Move the pending hashes into the filter. */
static void
add_pending(RuntimeFilter *f)
{
	bloom_rf_filter_add_hashes(&f->view, f->pending, f->npending);
	f->npending = 0;
}
