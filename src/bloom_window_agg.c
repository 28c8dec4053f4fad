/*
 * bloom_window_agg.c
 *	  bloom_window_agg (1.12): a window filter built from rows with a time,
 *	  each row added in the generation its time falls in.
 *
 *	  bloom_window_agg(value, at, capacity, false_positive_rate, generations,
 *	                   generation_length [, window_end])
 *
 * The window ends at the generation holding window_end, or else at the
 * newest row's: a row of a later generation than window_end is not in the
 * window (skipped), and a row so old that none of its slices is left adds
 * nothing.  Every row is added exactly as if the filter had been built as
 * time went, one generation after another (bf_window_add): so the rows may
 * come in any order, and partial states (parallel workers) join by
 * bloom_union, which advances the one behind, into the bytes of a serial
 * build.
 *
 * The transition value is a bloom value (partial states travel as one, as
 * bloom_agg's do: bloom_agg.c), held inside the aggregate as an expanded
 * object (bloom_aggstate.c): the filter, its shape read once, and, for a
 * filter larger than WINDOW_BATCH_MIN_BYTES, the hashes of the last rows
 * with their generations, written BLOOM_BATCH at a time by
 * bf_window_add_many, which overlaps their k cache misses each.  Whoever
 * reads the state's flat form (a parallel worker's output, the combine
 * function, the result) gets them written first.
 */
#include "bloom_aggstate.h"
#include "bloom_window.h"

#include "../core/bf_window.h"

#include "utils/memutils.h"
#include "utils/timestamp.h"

PG_FUNCTION_INFO_V1(bloom_window_agg_trans);

/*
 * A smaller filter takes its rows one at a time: its lines stay in the
 * CPU's cache (a core's L2 is 256 kB to 2 MB), and the 4 kB of a batch
 * would be most of a small group's state under GROUP BY.
 */
#define WINDOW_BATCH_MIN_BYTES (128 * 1024)

typedef struct WindowAggState
{
	ExpandedObjectHeader hdr;
	BloomFilter f;             /* a window filter, allocated in hdr.eoh_context */
	bf_window_shape w;         /* f's, kept current */
	const BloomHasher *hasher; /* the hasher f's element key is known to match */
	BloomKeptHasher kept;      /* for callers without fn_extra across rows (bloom_value.h) */
	int npending;
	uint64 *hashes;     /* BLOOM_BATCH entries (NULL: no batch): the rows not yet written, */
	int64 *generations; /* and their generations (within the window: checked when queued) */
} WindowAggState;

static Size window_flat_size(ExpandedObjectHeader *eohptr);
static void window_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods window_agg_methods = {window_flat_size, window_flatten};

/* Write the queued rows into the filter, and count them in n. */
static void
write_pending(WindowAggState *st)
{
	Assert(st->npending >= 0 && st->npending <= BLOOM_BATCH);
	if (st->npending == 0)
		return;
	bf_view_set_nadded(&st->f.view, bloom_add_counts(st->f.view.nadded, (uint64) st->npending));
	bf_window_add_many(&st->f.view, st->hashes, st->generations, (size_t) st->npending);
	st->npending = 0;
}

static Size
window_flat_size(ExpandedObjectHeader *eohptr)
{
	WindowAggState *st = (WindowAggState *) eohptr;

	write_pending(st); /* how the state is held changes, not what it holds */
	return VARSIZE(st->f.raw);
}

static void
window_flatten(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	WindowAggState *st = (WindowAggState *) eohptr;

	write_pending(st);
	Assert(allocated_size == VARSIZE(st->f.raw));
	memcpy(result, st->f.raw, allocated_size);
}

/*
 * A new state in aggcontext: a copy of flat, or if flat is NULL a new empty
 * filter of the first row's parameters, its window ending at generation end.
 */
static WindowAggState *
state_new(FunctionCallInfo fcinfo, MemoryContext aggcontext, const BloomFilter *flat, int64 end,
          int64 len)
{
	WindowAggState *st =
	    bloom_agg_state_new(aggcontext, &window_agg_methods, sizeof(WindowAggState));
	MemoryContext old = MemoryContextSwitchTo(st->hdr.eoh_context);

	if (flat == NULL)
		bloom_window_make(PG_GETARG_INT64(3), PG_GETARG_FLOAT8(4), PG_GETARG_INT32(5), end, len,
		                  &st->f);
	else
		bloom_copy_as(flat, flat->view.flags, &st->f);
	if (VARSIZE(st->f.raw) >= WINDOW_BATCH_MIN_BYTES)
	{
		st->hashes = palloc(BLOOM_BATCH * sizeof(uint64));
		st->generations = palloc(BLOOM_BATCH * sizeof(int64));
	}
	MemoryContextSwitchTo(old);
	if (st->f.view.p.layout != BF_LAYOUT_WINDOW)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("bloom_window_agg's state is a %s filter, not a window filter",
		                       bf_layout_name(st->f.view.p.layout))));
	bf_window_get(&st->f.view, &st->w);
	return st;
}

/*
 * bloom_window_agg_trans(state bloom, value anyelement, at timestamptz,
 * capacity bigint, false_positive_rate float8, generations int,
 * generation_length interval [, window_end timestamptz]) -> bloom
 */
Datum
bloom_window_agg_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcontext;
	bool has_end = PG_NARGS() > 7;
	WindowAggState *st = NULL;
	BloomHasher *hasher;
	int64 len, r, end;

	/*
	 * A read-write state of ours reaches this function only from the
	 * aggregate that owns it (SQL cannot make one): no need to ask nodeAgg
	 * again on every row.
	 */
	if (!PG_ARGISNULL(0) && bloom_agg_state_is_rw(PG_GETARG_DATUM(0)) &&
	    (st = bloom_agg_state_of(PG_GETARG_DATUM(0), &window_agg_methods)) != NULL)
		aggcontext = MemoryContextGetParent(st->hdr.eoh_context);
	else
		aggcontext = bloom_agg_context(fcinfo, "bloom_window_agg_trans");
	/* no value or no time: nothing to add */
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	if (PG_ARGISNULL(3) || PG_ARGISNULL(4) || PG_ARGISNULL(5) || PG_ARGISNULL(6) ||
	    (has_end && PG_ARGISNULL(7)))
		ereport(ERROR, (errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
		                errmsg("bloom_window_agg needs a capacity, a rate, generations and a "
		                       "generation length%s",
		                       has_end ? ", and the window's end" : "")));
	len = bloom_window_generation_length(PG_GETARG_INTERVAL_P(6));
	r = bloom_window_generation_of(PG_GETARG_TIMESTAMPTZ(2), len);
	end = has_end ? bloom_window_generation_of(PG_GETARG_TIMESTAMPTZ(7), len) : r;
	hasher = bloom_agg_hasher(fcinfo, 1, st ? &st->kept : NULL);
	if (st == NULL)
	{
		BloomFilter flat;

		/* the first row: the window ends at window_end's generation, or for now at this row's */
		if (PG_ARGISNULL(0))
			st = state_new(fcinfo, aggcontext, NULL, end, len);
		else
		{
			/* a flat state (not one this function made): hold a checked copy */
			bloom_get_arg_any(fcinfo, 0, false, &flat);
			st = state_new(fcinfo, aggcontext, &flat, end, len);
		}
	}
	hasher = bloom_agg_keep_hasher(fcinfo, hasher, &st->kept, st->hdr.eoh_context);
	/* the filter's parameters are the first row's: a later row may not change them */
	if (st->w.interval != len || (int64) st->w.capacity != PG_GETARG_INT64(3) ||
	    (int32) st->w.generations != PG_GETARG_INT32(5) || (has_end && end != st->w.generation))
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("bloom_window_agg's capacity, generations, generation length or "
		                       "window end changed between rows"),
		                errhint("Pass the same values on every row (the rate too: the first "
		                        "row's sizes the filter).")));
	if (r > st->w.generation)
	{
		if (has_end)
			PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr)); /* after the window's end: not in it */
		/* a newer row: the window ends later (the queued rows written where they were) */
		write_pending(st);
		bf_window_advance(&st->f.view, r);
		bf_window_get(&st->f.view, &st->w);
	}
	else if ((uint64) st->w.generation - (uint64) r >= st->w.slices)
		PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr)); /* so old that none of its slices is left */
	/* the element key is checked (or taken, by the first value) once per hasher, not per row */
	if (st->hasher != hasher)
	{
		MemoryContext old = MemoryContextSwitchTo(st->hdr.eoh_context);
		struct varlena *was = st->f.raw;

		write_pending(st);
		bloom_window_take_elem(&st->f, hasher);
		if (st->f.raw != was)
			pfree(was);
		MemoryContextSwitchTo(old);
		st->hasher = hasher;
	}
	if (st->hashes == NULL)
	{
		bf_view_set_nadded(&st->f.view, bloom_add_counts(st->f.view.nadded, 1));
		bf_window_add(&st->f.view, bloom_hash_value(hasher, PG_GETARG_DATUM(1), st->f.view.p.seed),
		              r);
		PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
	}
	st->hashes[st->npending] = bloom_hash_value(hasher, PG_GETARG_DATUM(1), st->f.view.p.seed);
	st->generations[st->npending] = r;
	if (++st->npending == BLOOM_BATCH)
		write_pending(st);
	PG_RETURN_DATUM(EOHPGetRWDatum(&st->hdr));
}
