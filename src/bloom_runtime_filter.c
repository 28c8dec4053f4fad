/*
 * bloom_runtime_filter.c
 *	  The filter of a runtime join filter: collected, sized, filled, probed.
 *
 * A build collects the 32-bit key hashes of the inner rows; at the end of
 * the inner side it sizes a blocked512 filter for the rows it read (the
 * planner's estimate can be far off) and adds them.  If more rows come than
 * the largest filter holds, the hashes go straight into a filter of the
 * largest size instead (core/bf_runtime.h); if that ends up too full to be
 * worth probing, the filter is marked useless and probes pass every row.
 */
#include "bloom_runtime.h"

#include "executor/hashjoin.h"
#include "miscadmin.h"

/* The pending hashes never take more memory than the largest filter. */
#define MAX_PENDING (BF_RF_MAX_BYTES / sizeof(uint32))
#define FIRST_PENDING 1024

static void allocate_filter(RuntimeFilter *f, double nkeys);
static void add_pending(RuntimeFilter *f);

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
	if (f->bytes)
	{
		/* past the largest filter's capacity: straight in */
		bf_add_hash(&f->view, (uint64) hash);
		return;
	}
	if (f->npending == f->pending_size)
	{
		if (f->pending_size >= MAX_PENDING)
		{
			allocate_filter(f, (double) MAX_PENDING + 1);
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
	uint64 occupied;

	Assert(!f->ready);
	if (!f->timing)
	{
		/* an empty inner side */
		INSTR_TIME_SET_CURRENT(f->started);
		f->builds++;
	}
	if (f->bytes == NULL)
	{
		allocate_filter(f, (double) f->npending);
		add_pending(f);
	}
	occupied = bf_occupied(&f->view, 0, f->view.nbytes);
	f->fill = (double) occupied / (double) f->view.p.ncells;
	f->useless =
	    bf_current_fpp(f->view.p.ncells, f->view.p.nhashes, occupied) > BF_RF_MAX_USEFUL_FPP;
	f->ready = true;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, f->started);
	f->build_ms = INSTR_TIME_GET_MILLISEC(now);
	f->timing = false;
}

bool
bloom_rf_usable(const RuntimeFilter *f)
{
	return f->ready && !f->useless && f->join != NULL && f->join->hj_HashTable != NULL;
}

/* Allocate and zero the filter for nkeys keys, in the filter's context. */
static void
allocate_filter(RuntimeFilter *f, double nkeys)
{
	bf_params p = {0};
	uint64_t ncells;
	int nhashes;
	size_t size;
	bf_error err;

	Assert(f->bytes == NULL);
	bf_rf_shape(nkeys, &ncells, &nhashes);
	p.layout = BF_LAYOUT_BLOCKED512;
	p.scheme = BF_SCHEME_DOUBLE_HASHING;
	p.nhashes = (uint16) nhashes;
	p.seed = 0;
	p.ncells = ncells;
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
