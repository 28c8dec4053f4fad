/*
 * bloom_runtime_filter.c
 *	  The filter of a runtime join filter: collected, sized, filled, probed.
 *
 * A build collects the 32-bit key hashes of the inner rows; at the end of
 * the inner side it sizes a blocked512 filter for the rows it read (the
 * planner's estimate can be far off) and adds them.  If more rows come than
 * MAX_PENDING, the hashes go straight into a filter of the largest size
 * instead (core/bf_runtime.h); if that ends up too full to be worth
 * probing, the filter is marked useless and probes pass every row.
 */
#include "bloom_runtime.h"

#include "executor/hashjoin.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/barrier.h"

/* The pending hashes never take more memory than the largest filter. */
#define MAX_PENDING (BF_RF_MAX_BYTES / sizeof(uint32))
#define FIRST_PENDING 1024

static void allocate_filter(RuntimeFilter *f, double nkeys);
static void add_pending(RuntimeFilter *f);
static void merge_into_shared(RuntimeFilter *f);
static void read_fill(RuntimeFilter *f, const bf_view *view);
static void shape_params(double nkeys, bf_params *p);

void
bloom_rf_init(RuntimeFilter *f, int id)
{
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->context = CurrentMemoryContext;
}

void
bloom_rf_reset(RuntimeFilter *f)
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
}

void
bloom_rf_add(RuntimeFilter *f, uint32 hash)
{
	Assert(!f->ready);
	if (!f->timing)
	{
		INSTR_TIME_SET_CURRENT(f->started);
		f->timing = true;
		f->builds++;
	}
	f->keys++;
	if (f->shared && f->bytes == NULL)
		allocate_filter(f, f->planned_keys);
	if (f->bytes)
	{
		/* a share of a shared filter, or past MAX_PENDING rows: straight in */
		bf_add_hash(&f->view, (uint64) hash);
		return;
	}
	if (f->npending == f->pending_size)
	{
		if (f->pending_size >= MAX_PENDING)
		{
			/* the count is unknown: the largest filter */
			allocate_filter(f, bf_rf_max_keys() + 1);
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
bloom_rf_finish(RuntimeFilter *f)
{
	instr_time now;

	Assert(!f->ready);
	if (!f->timing)
	{
		/* an empty inner side (or share of it) */
		INSTR_TIME_SET_CURRENT(f->started);
		f->builds++;
	}
	if (f->shared)
	{
		/* this share is read: into the shared filter; its fill is read when probed */
		if (f->bytes != NULL)
			merge_into_shared(f);
	}
	else
	{
		if (f->bytes == NULL)
		{
			allocate_filter(f, (double) f->npending);
			add_pending(f);
		}
		read_fill(f, &f->view);
	}
	f->ready = true;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, f->started);
	f->build_ms = INSTR_TIME_GET_MILLISEC(now);
	f->timing = false;
}

bool
bloom_rf_usable(RuntimeFilter *f)
{
	HashJoinTable table;

	if (f->join == NULL || (table = f->join->hj_HashTable) == NULL)
		return false;
	if (f->shared == NULL)
		return f->ready && !f->useless;
	/* every participant has hashed its share of the inner side */
	if (table->parallel_state == NULL ||
	    BarrierPhase(&table->parallel_state->build_barrier) < BLOOM_PHJ_BUILD_HASH_OUTER)
		return false;
	if (!f->checked)
	{
		read_fill(f, &f->shared_view);
		f->checked = true;
	}
	return !f->useless;
}

Size
bloom_rf_shared_size(double planned_keys)
{
	bf_params p;
	size_t size;
	bf_error err;

	shape_params(planned_keys, &p);
	if (!bf_payload_size(&p, 0, 0, &size, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	return size;
}

void
bloom_rf_shared_init(RuntimeFilter *f, void *mem)
{
	bf_params p;

	Assert(f->planned_keys > 0);
	shape_params(f->planned_keys, &p);
	bf_init(mem, &p, 0, "", 0, 0, &f->shared_view);
	f->shared = mem;
	f->checked = false;
}

void
bloom_rf_shared_attach(RuntimeFilter *f, void *mem)
{
	bf_error err;

	if (!bf_check_header(mem, bloom_rf_shared_size(f->planned_keys), &f->shared_view, &err))
		bloom_report(&err, BLOOM_FROM_STORAGE);
	f->shared = mem;
	f->checked = false;
}

void
bloom_rf_shared_reset(RuntimeFilter *f)
{
	Assert(f->shared != NULL);
	memset(f->shared_view.data, 0, f->shared_view.nbytes);
	f->checked = false;
}

void
bloom_rf_shared_detach(RuntimeFilter *f)
{
	f->shared = NULL;
}

/*
 * OR this participant's filter into the shared one, 32 bits at a time with
 * atomic ORs (other participants merge at the same time).  Both have the
 * planned shape, and their data start 4-byte aligned in MAXALIGNed memory.
 */
static void
merge_into_shared(RuntimeFilter *f)
{
	const uint32 *mine = (const uint32 *) f->view.data;
	pg_atomic_uint32 *shared = (pg_atomic_uint32 *) f->shared_view.data;
	size_t nwords = f->view.nbytes / sizeof(uint32);

	Assert(f->view.nbytes == f->shared_view.nbytes && f->view.nbytes % sizeof(uint32) == 0);
	Assert((uintptr_t) mine % sizeof(uint32) == 0 && (uintptr_t) shared % sizeof(uint32) == 0);
	for (size_t i = 0; i < nwords; i++)
	{
		if (mine[i] != 0)
			pg_atomic_fetch_or_u32(&shared[i], mine[i]);
		if ((i & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* The fill of a finished filter, and whether it is too full to be worth probing. */
static void
read_fill(RuntimeFilter *f, const bf_view *view)
{
	uint64 occupied = bf_occupied(view, 0, view->nbytes);

	f->fill = (double) occupied / (double) view->p.ncells;
	f->useless = bf_current_fpp(view->p.ncells, view->p.nhashes, occupied) > BF_RF_MAX_USEFUL_FPP;
}

/* The parameters of a runtime filter for nkeys keys. */
static void
shape_params(double nkeys, bf_params *p)
{
	uint64_t ncells;
	int nhashes;

	bf_rf_shape(nkeys, &ncells, &nhashes);
	memset(p, 0, sizeof(*p));
	p->layout = BF_LAYOUT_BLOCKED512;
	p->scheme = BF_SCHEME_DOUBLE_HASHING;
	p->nhashes = (uint16) nhashes;
	p->seed = 0;
	p->ncells = ncells;
}

/* Allocate and zero the filter for nkeys keys, in the filter's context. */
static void
allocate_filter(RuntimeFilter *f, double nkeys)
{
	bf_params p;
	size_t size;
	bf_error err;

	Assert(f->bytes == NULL);
	shape_params(nkeys, &p);
	if (!bf_payload_size(&p, 0, 0, &size, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
	f->bytes = MemoryContextAlloc(f->context, size);
	bf_init(f->bytes, &p, 0, "", 0, 0, &f->view);
}

/* Move the pending hashes into the filter, in batches for bf_add_hashes(). */
static void
add_pending(RuntimeFilter *f)
{
	uint64_t batch[256];
	size_t i = 0;

	while (i < f->npending)
	{
		size_t n = Min(lengthof(batch), f->npending - i);

		for (size_t j = 0; j < n; j++)
			batch[j] = f->pending[i + j];
		bf_add_hashes(&f->view, batch, n);
		i += n;
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	f->npending = 0;
}
