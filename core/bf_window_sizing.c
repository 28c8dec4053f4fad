/*
 * bf_window_sizing.c
 *	  The sizing math of window filters (bf_window.h): their rate of false
 *	  positives, the recall of values older than the window, and the shape
 *	  for a capacity, a rate and a window.
 *
 * The one function here that reads a filter, bf_window_current_fpp(),
 * counts its slices' bits with bf_window.c.
 *
 * Only +, -, * and / of doubles, in the order written here, and powers by
 * squaring: IEEE 754 rounds each of those the same everywhere, so the
 * clients' copies of these functions (clients/) give the same bits and
 * size a filter exactly as the server does.  (ceil() is exact too.)
 */
#include "bf_window.h"
#include "bf_util.h"

#include <math.h>

#define LN2 0.6931471805599453 /* the double nearest ln 2 */

/* base^e by squaring, e >= 0 */
static double
power(double base, uint64_t e)
{
	double result = 1.0;

	while (e > 0)
	{
		if (e & 1)
			result *= base;
		base *= base;
		e >>= 1;
	}
	return result;
}

/* the expected fraction of a slice of m bits set after n values: 1 - (1 - 1/m)^n */
static double
slice_fill(uint64_t n, uint64_t m)
{
	return 1.0 - power(1.0 - 1.0 / (double) m, n);
}

double
bf_window_fpp_of_fills(const double *fill, unsigned slices, unsigned hashes)
{
	/* run[r]: the chance that the last r slices, and not the one before, hold the bit */
	double run[BF_WINDOW_MAX_HASHES];
	double fpp = 0.0;

	assert(hashes >= 1 && hashes <= BF_WINDOW_MAX_HASHES);
	run[0] = 1.0;
	for (unsigned r = 1; r < hashes; r++)
		run[r] = 0.0;
	for (unsigned i = 0; i < slices; i++)
	{
		double f = fill[i], total = 0.0;

		fpp += run[hashes - 1] * f; /* a run of hashes: found */
		for (unsigned r = 0; r < hashes; r++)
			total += run[r];
		for (unsigned r = hashes - 1; r > 0; r--)
			run[r] = run[r - 1] * f;
		run[0] = total * (1.0 - f);
	}
	return fpp;
}

/*
 * The fills of a filter at its fullest, newest slice first; the slices of
 * ages from `certain` on hold the bit for sure (a value of that age still
 * has its bits there), for the recall; S for none.
 */
static void
fullest_fills(unsigned hashes, unsigned generations, uint64_t slice_bits, double capacity,
              unsigned certain, double *fill)
{
	unsigned slices = hashes + generations - 1;
	uint64_t per_generation = (uint64_t) capacity;

	for (unsigned age = 0; age < slices; age++)
	{
		unsigned written = age + 1 < hashes ? age + 1 : hashes;

		fill[age] = age >= certain ? 1.0 : slice_fill(per_generation * written, slice_bits);
	}
}

double
bf_window_fpp(unsigned hashes, unsigned generations, uint64_t slice_bits, double capacity)
{
	double fill[BF_WINDOW_MAX_SLICES];
	unsigned slices = hashes + generations - 1;

	assert(generations >= 1 && generations <= BF_WINDOW_MAX_GENERATIONS);
	assert(slice_bits >= 1 && capacity >= 1 && capacity <= (double) (UINT64_MAX / 64));
	fullest_fills(hashes, generations, slice_bits, capacity, slices, fill);
	return bf_window_fpp_of_fills(fill, slices, hashes);
}

double
bf_window_recall(unsigned hashes, unsigned generations, uint64_t slice_bits, double capacity,
                 unsigned age)
{
	double fill[BF_WINDOW_MAX_SLICES];
	unsigned slices = hashes + generations - 1;

	assert(generations >= 1 && generations <= BF_WINDOW_MAX_GENERATIONS);
	assert(slice_bits >= 1 && capacity >= 1 && capacity <= (double) (UINT64_MAX / 64));
	if (age < generations)
		return 1.0;
	if (age >= slices)
		return bf_window_fpp(hashes, generations, slice_bits, capacity);
	fullest_fills(hashes, generations, slice_bits, capacity, age, fill);
	return bf_window_fpp_of_fills(fill, slices, hashes);
}

bool
bf_window_size_for(double capacity, double fpp, unsigned generations, unsigned *hashes,
                   uint64_t *slice_bits, bf_error *err)
{
	if (!(capacity >= 1) || capacity > (double) INT64_MAX)
		return bf_fail(err, BF_ERR_PARAM, "capacity per generation must be at least 1");
	if (!(fpp > 0 && fpp < 1))
		return bf_fail(err, BF_ERR_PARAM,
		               "false-positive rate must be between 0 and 1 (exclusive)");
	if (generations < 1 || generations > BF_WINDOW_MAX_GENERATIONS)
		return bf_fail(err, BF_ERR_PARAM, "generations must be between 1 and %d",
		               BF_WINDOW_MAX_GENERATIONS);
	capacity = floor(capacity);
	for (unsigned k = 1; k <= BF_WINDOW_MAX_HASHES; k++)
	{
		/* each slice takes k generations of capacity values: about half its bits set then */
		double bits = ceil((double) k * capacity / LN2);
		double slices = (double) (k + generations - 1);
		uint64_t m;

		bits = ceil(bits / BF_WINDOW_SLICE_UNIT) * BF_WINDOW_SLICE_UNIT;
		/* (the table of counts takes its bytes from the most a value holds) */
		if (bits * slices > (double) BF_MAX_BITS - 8.0 * (BF_WINDOW_FIXED_SIZE + 8.0 * slices))
			return bf_fail(err, BF_ERR_TOO_LARGE,
			               "a window filter of %.0f values per generation over %u generations "
			               "at rate %g needs more than the maximum of %llu bits (1 GB)",
			               capacity, generations, fpp, (unsigned long long) BF_MAX_BITS);
		m = (uint64_t) bits;
		if (bf_window_fpp(k, generations, m, capacity) <= fpp)
		{
			*hashes = k;
			*slice_bits = m;
			return true;
		}
	}
	return bf_fail(err, BF_ERR_PARAM,
	               "no window filter of at most %d hashes per value meets a rate of %g over %u "
	               "generations: ask for a higher rate or fewer generations",
	               BF_WINDOW_MAX_HASHES, fpp, generations);
}

double
bf_window_current_fpp(const bf_view *view)
{
	bf_window_shape w;
	double fill[BF_WINDOW_MAX_SLICES];
	int64_t r;
	unsigned now;

	assert(view->p.layout == BF_LAYOUT_WINDOW);
	bf_window_get(view, &w);
	r = w.generation % (int64_t) w.slices;
	now = (unsigned) (r < 0 ? r + (int64_t) w.slices : r); /* G mod S: the newest slice's slot */
	for (unsigned age = 0; age < w.slices; age++)
		fill[age] = (double) bf_window_slice_bits_set(view, (now + w.slices - age) % w.slices) /
		            (double) w.slice_bits;
	return bf_window_fpp_of_fills(fill, w.slices, w.hashes);
}
