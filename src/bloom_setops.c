/*
 * bloom_setops.c
 *	  Union, intersection and equality of filters, and the estimates that
 *	  must stay honest through them.
 *
 * Filters of the same parameters (m, k, layout, hash scheme and seed) and
 * element family combine bit by bit (Broder & Mitzenmacher, "Network
 * Applications of Bloom Filters: A Survey", 2004; [Kukhtina], chapter 5,
 * references in ARCHITECTURE.md): the union of the filters of A and B is
 * exactly the filter of A u B; the intersection of the filters contains
 * the filter of A n B, and equals it only with probability
 * (1 - 1/m)^(k^2 |A - B| |B - A|).  The difference
 * matters: a value of A - B has all of its bits set in A, so it passes the
 * intersection as soon as its bits are set in B, which happens with
 * probability (fill of B)^k, not (fill of the intersection)^k.  An
 * intersection is therefore marked "derived" and carries the bound and an
 * estimate of |A n B| (see core/bf_format.h).
 *
 * An explicit filter (a set of hashes) combines with any filter of the same
 * seed and element family, see bloom_explicit.c.
 *
 * Inside an aggregate (bloom_union_agg, bloom_intersect_agg, and the
 * combine functions) the first argument is the aggregate's own state and is
 * updated in place; called as plain functions they return a new value.
 */
#include "bloom_setops.h"
#include "bloom_window.h"

#include "../core/bf_makers.h"
#include "bloom_explicit.h"

#include <math.h>

#include "miscadmin.h"

PG_FUNCTION_INFO_V1(bloom_union);
PG_FUNCTION_INFO_V1(bloom_intersect);
PG_FUNCTION_INFO_V1(bloom_agg_combine);
PG_FUNCTION_INFO_V1(bloom_eq);
PG_FUNCTION_INFO_V1(bloom_ne);

/*
 * A layered filter's estimates, layer by layer (each a blocked512 filter):
 * the distinct values of all its layers, and the rate of a value that no
 * layer holds passing one.
 */
static void
layered_estimates(const bf_view *v, double *distinct, double *fpp)
{
	double clear = 1.0;
	bf_layer_cursor c;

	*distinct = 0;
	for (bool more = bf_layer_first(v, &c); more; more = bf_layer_next(v, &c))
	{
		double est = bf_estimate_distinct(
		    c.layer.ncells, c.layer.nhashes,
		    bloom_count_occupied_range(v, c.offset, (size_t) (c.layer.ncells / 8)));

		*distinct += est;
		clear *= 1.0 - bf_blocked_fpp(est, (double) c.layer.ncells, c.layer.nhashes);
	}
	*fpp = 1.0 - clear;
}

double
bloom_estimate_distinct(const bf_view *v, uint64 occupied)
{
	double est;

	if (v->p.layout == BF_LAYOUT_EXPLICIT)
		return (double) v->p.ncells; /* exact */
	if (v->p.layout == BF_LAYOUT_WINDOW)
		return (double) bloom_window_values_in_window(v); /* counted: duplicates too */
	if (v->p.layout == BF_LAYOUT_LAYERED)
	{
		double fpp;

		layered_estimates(v, &est, &fpp);
		return Min(est, (double) v->nadded);
	}
	if (v->flags & BF_FLAG_DERIVED)
		est = (double) v->est_distinct;
	else
		est = bf_estimate_distinct(v->p.ncells, v->p.nhashes, occupied);
	if (v->flags & BF_FLAG_N_UNKNOWN)
		return est; /* another maker's filter, read from its bytes: no count bounds it */
	return Min(est, (double) v->nadded);
}

uint64
bloom_effective_bits(const bf_view *v, uint64 occupied)
{
	return (v->flags & BF_FLAG_DERIVED) ? v->bound : occupied;
}

double
bloom_current_fpp(const bf_view *v, uint64 occupied)
{
	if (v->p.layout == BF_LAYOUT_EXPLICIT)
		return 0.0; /* exact, up to collisions of 64-bit hashes */
	if (v->p.layout == BF_LAYOUT_WINDOW)
		return bf_window_current_fpp(v); /* from each slice's fill */
	if (v->p.layout == BF_LAYOUT_LAYERED)
	{
		double distinct, fpp;

		layered_estimates(v, &distinct, &fpp);
		return fpp;
	}
	if (v->p.layout == BF_LAYOUT_BLOCKED512 && !(v->flags & BF_FLAG_DERIVED))
		return bf_blocked_fpp(bloom_estimate_distinct(v, occupied), (double) v->p.ncells,
		                      v->p.nhashes);
	/* Parquet's blocks: values per block from the fill, each value one bit per 32-bit word */
	if (v->p.layout == BF_LAYOUT_PARQUET)
		return bf_parquet_fpp(-32.0 * log1p(-(double) occupied / (double) v->p.ncells));
	return bf_current_fpp(v->p.ncells, v->p.nhashes, bloom_effective_bits(v, occupied));
}

/* Store a derived filter's bound and estimate, in the value and its view. */
static void
set_derived(BloomFilter *f, uint64 bound, double est)
{
	uint64 e = (uint64) rint(Max(0.0, Min(est, (double) f->view.nadded)));

	bf_view_set_derived(&f->view, Min(bound, f->view.p.ncells), e);
}

/* a := a | b (bit layouts) or a + b (counting); a modifiable, may be reallocated. */
static void
bloom_union_in_place(BloomFilter *a, const BloomFilter *b)
{
	bf_view *va = &a->view;
	const bf_view *vb = &b->view;
	bool derived = ((va->flags | vb->flags) & BF_FLAG_DERIVED) != 0;
	uint64 xa = 0, xb = 0;
	double ca = 0, cb = 0;

	bloom_check_compatible(va, vb, "combine");
	if (va->p.layout == BF_LAYOUT_WINDOW)
	{
		bloom_window_union_in_place(a, b); /* their clocks aligned first */
		return;
	}
	if (vb->elemlen == 0)
		return; /* b holds nothing */
	if (va->elemlen == 0)
	{
		bloom_copy_as(b, vb->flags, a); /* a holds nothing */
		return;
	}
	if (va->p.layout == BF_LAYOUT_EXPLICIT || vb->p.layout == BF_LAYOUT_EXPLICIT)
	{
		bloom_explicit_union(a, b);
		return;
	}

	/* counters are added (bf_union_bytes); only bit filters can be derived */
	if (derived)
	{
		xa = bloom_count_occupied(va);
		xb = bloom_count_occupied(vb);
		ca = bloom_estimate_distinct(va, xa);
		cb = bloom_estimate_distinct(vb, xb);
		xa = bloom_effective_bits(va, xa);
		xb = bloom_effective_bits(vb, xb);
		if (!(va->flags & BF_FLAG_DERIVED))
			bloom_copy_as(a, BF_FLAG_DERIVED, a);
	}
	bloom_bytes_op(va, vb, bf_union_bytes);
	/* (another maker's filters: a count unknown on either side is unknown in the union) */
	if ((va->flags | vb->flags) & BF_FLAG_N_UNKNOWN)
		bf_view_set_n_unknown(&a->view);
	else
		bf_view_set_nadded(&a->view, bloom_add_counts(va->nadded, vb->nadded));
	if (derived)
	{
		/*
		 * A value outside the union passes if its bits are among those of
		 * either side that matter: at most xa + xb of them.  The union holds
		 * at least the larger side and at most both; its own fill, inflated
		 * by the intersection's extra bits, is an upper estimate.
		 */
		double fill_est =
		    bf_estimate_distinct(va->p.ncells, va->p.nhashes, bloom_count_occupied(va));
		double est = Min(Max(fill_est, Max(ca, cb)), ca + cb);

		set_derived(a, xa + xb, est);
	}
}

/* a := a & b (classic); a modifiable, may be reallocated. */
static void
intersect_in_place(BloomFilter *a, const BloomFilter *b)
{
	bf_view *va = &a->view;
	const bf_view *vb = &b->view;
	uint64 xa, xb, xc;
	double ca, cb, n_union, est;
	uint64 bound;

	bloom_check_compatible(va, vb, "intersect");
	if (va->elemlen == 0)
		return; /* a holds nothing: so does the intersection */
	if (vb->elemlen == 0)
	{
		bloom_copy_as(b, vb->flags, a);
		return;
	}
	if (va->p.layout == BF_LAYOUT_EXPLICIT || vb->p.layout == BF_LAYOUT_EXPLICIT)
	{
		bloom_explicit_intersect(a, b);
		return;
	}
	/* an AND of layers would need a derived bound per layer, which the format has not */
	if (va->p.layout == BF_LAYOUT_LAYERED)
		ereport(ERROR,
		        (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		         errmsg("cannot intersect layered bloom filters"),
		         errdetail("A layered filter (a bloomfilter index's snapshot) can be probed, "
		                   "combined by union and stored, not intersected."),
		         errhint("Intersect it with a set of values: bloom_agg(value) of the other side "
		                 "gives one while it is small.")));

	xa = bloom_count_occupied(va);
	xb = bloom_count_occupied(vb);
	ca = bloom_estimate_distinct(va, xa);
	cb = bloom_estimate_distinct(vb, xb);
	bound = Max(bloom_effective_bits(va, xa), bloom_effective_bits(vb, xb));
	if (!(va->flags & BF_FLAG_DERIVED))
		bloom_copy_as(a, BF_FLAG_DERIVED, a);
	bloom_bytes_op(va, vb, bf_intersect_bytes);
	xc = bloom_count_occupied(va);

	/*
	 * |A n B| = |A| + |B| - |A u B|, with |A u B| estimated from the bits of
	 * the union, which are xa + xb - xc (Swamidass & Baldi).  When the union
	 * is saturated nothing is known beyond min(|A|, |B|).
	 */
	n_union = bf_estimate_distinct(va->p.ncells, va->p.nhashes, xa + xb - xc);
	est = isfinite(n_union) ? ca + cb - n_union : Min(ca, cb);
	est = Max(0.0, Min(est, Min(ca, cb)));
	bf_view_set_nadded(&a->view, Min(va->nadded, vb->nadded));
	set_derived(a, bound, est);
}

/*
 * The shared body of bloom_union, bloom_intersect and bloom_agg_combine:
 * in place when called as an aggregate's transition or combine function.
 */
static Datum
combine(FunctionCallInfo fcinfo, bool intersect, bool require_agg)
{
	MemoryContext aggcontext;
	MemoryContext old = CurrentMemoryContext;
	bool in_agg = AggCheckCallContext(fcinfo, &aggcontext) != 0;
	BloomFilter a, b;

	if (require_agg && !in_agg)
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("bloom_agg_combine called in non-aggregate context")));
	if (in_agg)
		old = MemoryContextSwitchTo(aggcontext);
	/* the aggregate's state is its own: no copy needed */
	bloom_get_arg_any(fcinfo, 0, !in_agg, &a);
	bloom_get_arg_any(fcinfo, 1, false, &b);
	/*
	 * another maker's filters and window filters combine by union only: an
	 * AND of theirs is no filter of theirs
	 */
	if (intersect)
	{
		bloom_refuse_opt_in(fcinfo, &a.view);
		bloom_refuse_opt_in(fcinfo, &b.view);
	}
	if (intersect)
		intersect_in_place(&a, &b);
	else
		bloom_union_in_place(&a, &b);
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(a.raw);
}

/*
 * bloom_union(a, b), a | b: the filter of the union.  For counting filters
 * the counters add up (saturating at 15).
 */
Datum
bloom_union(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, false, false);
}

/* bloom_intersect(a, b), a & b: a filter of the intersection (derived). */
Datum
bloom_intersect(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, true, false);
}

/* The combine function of the bloom_agg aggregates: the union, in place. */
Datum
bloom_agg_combine(PG_FUNCTION_ARGS)
{
	return combine(fcinfo, false, true);
}

/*
 * Equal filters: the same parameters, the same element family (an empty
 * filter has none and matches any), the same bits.  The counts of values
 * added do not matter: two filters of the same set are equal however many
 * duplicates went into each.
 */
static bool
filters_equal(FunctionCallInfo fcinfo)
{
	BloomFilter a, b;
	const bf_view *va, *vb;

	/* (another maker's filters too: the same shape, key and bits) */
	bloom_get_arg_any(fcinfo, 0, false, &a);
	bloom_get_arg_any(fcinfo, 1, false, &b);
	va = &a.view;
	vb = &b.view;
	if (!bf_params_equal(&va->p, &vb->p))
		return false;
	if (va->p.layout == BF_LAYOUT_WINDOW)
	{
		/* two window filters: the same clock and generation too (their counts, as n, aside) */
		bf_window_shape wa, wb;

		bf_window_get(va, &wa);
		bf_window_get(vb, &wb);
		if (!bf_window_same_clock(va, vb) || wa.generation != wb.generation)
			return false;
	}
	if (va->elemlen != 0 && vb->elemlen != 0 &&
	    !bf_elem_equal(va->elem, va->elemlen, vb->elem, vb->elemlen))
		return false;
	for (size_t from = 0; from < va->nbytes; from += BLOOM_CHUNK)
	{
		size_t len = Min(va->nbytes - from, (size_t) BLOOM_CHUNK);

		CHECK_FOR_INTERRUPTS();
		if (memcmp(va->data + from, vb->data + from, len) != 0)
			return false;
	}
	return true;
}

Datum
bloom_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(filters_equal(fcinfo));
}

Datum
bloom_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!filters_equal(fcinfo));
}
