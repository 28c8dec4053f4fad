/*
 * shared.c
 *	  The shared build of a Parallel Hash Join's runtime filter: one filter
 *	  for every participant, sized for every participant's inner rows, and
 *	  the build's key values, merged, in every participant.
 *
 * Under a Parallel Hash Join each participant reads a share of the inner
 * side.  Each collects its share's key hashes and values as a serial build
 * does (filter.c, values.c): its hashes until they would take more memory
 * than the largest filter, then a filter of the largest size.  At the end
 * of its share (which every participant reaches before the join's build
 * barrier lets any of them probe) it publishes the share in the query's
 * dynamic shared memory area: its hashes or its filter, and its key values
 * flattened (valueshare.c), on a list in the build node's shared memory.
 *
 * The first process to need the filter once the barrier has passed the
 * inner side makes it: sized for every share's keys (the largest size if
 * some share gave a filter), every share's hashes added, every share's
 * filter ORed in, its fill measured.  The others wait for it (a condition
 * variable), then probe it where it is.  Each process merges every share's
 * key values into its own copy, the same in every process, for deciding
 * what a scan may skip (skip/).
 *
 * A rescan of Gather (workers not running) frees the shares and the filter
 * and empties the list: the next run builds again.
 */
#include "filter.h"
#include "../../bloom_error.h"
#include "../../../core/bf_runtime.h"

#include "miscadmin.h"
#include "storage/condition_variable.h"
#include "storage/spin.h"
#include "utils/memutils.h"
#include "utils/wait_event.h"

/* What a share gives: its hashes, or its filter of the largest size. */
typedef enum ShareKind
{
	SHARE_HASHES,
	SHARE_FILTER,
} ShareKind;

/* One participant's share, in the area: what it gives, then its flattened values. */
typedef struct SharedShare
{
	dsa_pointer next;
	ShareKind kind;
	uint64 count;       /* SHARE_HASHES: the hashes; SHARE_FILTER: the filter's bytes */
	uint64 keys;        /* the keys it added (the filter is sized for every share's) */
	Size values_offset; /* where its values are, from the share's start; 0: none */
	                    /* the hashes (uint32) or the filter's bytes follow, MAXALIGNed */
} SharedShare;

#define SHARE_DATA(share) ((char *) (share) + MAXALIGN(sizeof(SharedShare)))

/* The filter's state as the processes see it. */
typedef enum MadeState
{
	FILTER_UNMADE,
	FILTER_MAKING, /* a process is making it: the others wait */
	FILTER_MADE,
} MadeState;

struct RuntimeSharedBuild
{
	slock_t mutex;
	dsa_pointer shares; /* the published shares, a list */
	MadeState state;
	dsa_pointer filter; /* the made filter's bytes (bf_init'ed), once made */
	Size filter_bytes;
	uint64 generation;      /* the build's number: one more at each run of the Gather */
	ConditionVariable made; /* broadcast when the filter is made */
};

Size
bloom_rf_shared_build_size(void)
{
	return MAXALIGN(sizeof(RuntimeSharedBuild));
}

/* No share, no filter (the build's number is the caller's). */
static void
empty(RuntimeSharedBuild *sb)
{
	sb->shares = InvalidDsaPointer;
	sb->state = FILTER_UNMADE;
	sb->filter = InvalidDsaPointer;
	sb->filter_bytes = 0;
}

void
bloom_rf_shared_build_init(RuntimeSharedBuild *sb)
{
	SpinLockInit(&sb->mutex);
	ConditionVariableInit(&sb->made);
	empty(sb);
	sb->generation = 1;
}

void
bloom_rf_shared_build_reinit(RuntimeSharedBuild *sb, dsa_area *area)
{
	dsa_pointer p = sb->shares;

	/* (the workers are not running: nothing is read or written beside) */
	while (DsaPointerIsValid(p))
	{
		SharedShare *share = dsa_get_address(area, p);
		dsa_pointer next = share->next;

		dsa_free(area, p);
		p = next;
	}
	if (DsaPointerIsValid(sb->filter))
		dsa_free(area, sb->filter);
	empty(sb);
	sb->generation++;
}

uint64
bloom_rf_shared_build_generation(RuntimeSharedBuild *sb)
{
	/* (written by the leader while no worker runs) */
	return sb->generation;
}

void
bloom_rf_shared_build_publish(RuntimeSharedBuild *sb, dsa_area *area, const uint32 *hashes,
                              size_t nhashes, const uint8 *filter, size_t filter_bytes, uint64 keys,
                              const RuntimeValues *values)
{
	Size data = filter != NULL ? filter_bytes : nhashes * sizeof(uint32);
	Size head = MAXALIGN(sizeof(SharedShare)) + MAXALIGN(data);
	Size vsize = values != NULL ? bloom_rf_values_flat_size(values) : 0;
	dsa_pointer p;
	SharedShare *share;

	Assert(area != NULL);
	p = dsa_allocate_extended(area, head + vsize, DSA_ALLOC_HUGE);
	share = dsa_get_address(area, p);
	share->kind = filter != NULL ? SHARE_FILTER : SHARE_HASHES;
	share->count = filter != NULL ? filter_bytes : nhashes;
	share->keys = keys;
	share->values_offset = values != NULL ? head : 0;
	if (data > 0)
		memcpy(SHARE_DATA(share), filter != NULL ? (const void *) filter : (const void *) hashes,
		       data);
	if (values != NULL)
		bloom_rf_values_flatten(values, (char *) share + head, vsize);
	SpinLockAcquire(&sb->mutex);
	Assert(sb->state == FILTER_UNMADE);
	share->next = sb->shares;
	sb->shares = p;
	SpinLockRelease(&sb->mutex);
}

/*
 * Make the filter from every share (the caller alone, after every share is
 * published), in the area: sized for every share's keys as a serial build
 * is for its own (the largest size if a share gave a filter of it; the
 * same max_bytes in every process: a worker has its leader's settings).
 */
static void
make_filter(RuntimeSharedBuild *sb, dsa_area *area, size_t max_bytes)
{
	bool any_filter = false;
	uint64 keys = 0;
	bf_params params;
	size_t size;
	bf_view view;
	dsa_pointer p;

	for (p = sb->shares; DsaPointerIsValid(p);)
	{
		SharedShare *share = dsa_get_address(area, p);

		any_filter = any_filter || share->kind == SHARE_FILTER;
		keys += share->keys;
		p = share->next;
	}
	bloom_rf_filter_shape(any_filter ? bf_rf_max_keys(max_bytes) + 1 : (double) keys, max_bytes,
	                      &params, &size);
	sb->filter = dsa_allocate_extended(area, size, DSA_ALLOC_HUGE);
	sb->filter_bytes = size;
	bf_init(dsa_get_address(area, sb->filter), &params, 0, "", 0, 0, &view);
	for (p = sb->shares; DsaPointerIsValid(p);)
	{
		SharedShare *share = dsa_get_address(area, p);

		if (share->kind == SHARE_FILTER)
		{
			/* the same (largest) shape: its bits ORed in */
			bf_view theirs;
			bf_error err;

			if (!bf_check_header((const uint8 *) SHARE_DATA(share), share->count, &theirs, &err))
				bloom_report(&err, BLOOM_FROM_STORAGE);
			if (theirs.nbytes != view.nbytes)
				elog(ERROR, "bloomfilter: a share of a runtime filter has another shape");
			for (size_t i = 0; i < view.nbytes; i++)
				view.data[i] |= theirs.data[i];
		}
		else
			bloom_rf_filter_add_hashes(&view, (const uint32 *) SHARE_DATA(share), share->count);
		CHECK_FOR_INTERRUPTS();
		p = share->next;
	}
}

const uint8 *
bloom_rf_shared_build_get(RuntimeSharedBuild *sb, dsa_area *area, size_t max_bytes, Size *size)
{
	bool make = false;

	SpinLockAcquire(&sb->mutex);
	if (sb->state == FILTER_UNMADE)
	{
		sb->state = FILTER_MAKING;
		make = true;
	}
	SpinLockRelease(&sb->mutex);
	if (make)
	{
		/*
		 * (an error here fails the query: the processes waiting are
		 * interrupted with it, their wait checks for interrupts)
		 */
		make_filter(sb, area, max_bytes);
		SpinLockAcquire(&sb->mutex);
		sb->state = FILTER_MADE;
		SpinLockRelease(&sb->mutex);
		ConditionVariableBroadcast(&sb->made);
	}
	else
	{
		for (;;)
		{
			MadeState state;

			SpinLockAcquire(&sb->mutex);
			state = sb->state;
			SpinLockRelease(&sb->mutex);
			if (state == FILTER_MADE)
				break;
			ConditionVariableSleep(&sb->made, PG_WAIT_EXTENSION);
		}
		ConditionVariableCancelSleep();
	}
	*size = sb->filter_bytes;
	return dsa_get_address(area, sb->filter);
}

RuntimeValues *
bloom_rf_shared_build_values(RuntimeSharedBuild *sb, dsa_area *area, RuntimeValues *into)
{
	MemoryContext scratch = AllocSetContextCreate(CurrentMemoryContext, "runtime filter shares",
	                                              ALLOCSET_DEFAULT_SIZES);
	dsa_pointer p;

	/* (called once the barrier has passed the inner side: the list is final) */
	for (p = sb->shares; DsaPointerIsValid(p);)
	{
		SharedShare *share = dsa_get_address(area, p);

		if (share->values_offset > 0)
			bloom_rf_values_add_flat(into, (const char *) share + share->values_offset, scratch);
		MemoryContextReset(scratch);
		CHECK_FOR_INTERRUPTS();
		p = share->next;
	}
	MemoryContextDelete(scratch);
	bloom_rf_values_finish(into);
	return into;
}
