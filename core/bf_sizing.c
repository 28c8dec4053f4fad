/*
 * bf_sizing.c
 *	  The sizing formulas: false-positive rate, optimal k, size for a target
 *	  rate, and the estimates read back from a filter's fill.
 *
 * After n distinct values are added to m bits with k hashes, a given bit is
 * still 0 with probability (1 - 1/m)^(kn), so a value never added finds all
 * of its k bits set with probability
 *
 *	  P = (1 - (1 - 1/m)^(kn))^k  ~=  (1 - e^(-kn/m))^k.
 *
 * P is smallest for k = (m/n) ln 2, where half of the bits are set and
 * P = 2^-k ~= 0.6185^(m/n); so m = -n ln P / (ln 2)^2 bits meet a target
 * rate P.  The exact form is used throughout (it differs from the
 * approximation only for tiny m), computed with log1p/expm1 so that it stays
 * accurate for m in the billions.
 */
#include "bf_core.h"
#include "bf_util.h"

#include <math.h>

#ifndef M_LN2
#define M_LN2 0.69314718055994530942
#endif

#define Max(a, b) ((a) > (b) ? (a) : (b))
#define Min(a, b) ((a) < (b) ? (a) : (b))

double
bf_fpp(double n, double ncells, double nhashes)
{
	/* probability that one given bit is still 0 */
	double zero = exp(nhashes * n * log1p(-1.0 / ncells));

	if (n <= 0)
		return 0.0;
	return pow(1.0 - zero, nhashes);
}

int
bf_optimal_hashes(double n, double ncells)
{
	double k_real = ncells / n * M_LN2;
	double k_lo = floor(k_real);
	double k_hi = k_lo + 1;

	if (k_lo < 1)
		k_lo = 1;
	if (k_lo > BF_MAX_HASHES)
		k_lo = BF_MAX_HASHES;
	if (k_hi > BF_MAX_HASHES)
		k_hi = BF_MAX_HASHES;
	/* P(k) is unimodal in k, so the best integer is one of the neighbours */
	return bf_fpp(n, ncells, k_hi) < bf_fpp(n, ncells, k_lo) ? (int) k_hi : (int) k_lo;
}

/* The lowest rate m bits (in the layout) can give n values, over integer k. */
static double
best_fpp(uint8_t layout, double n, uint64_t ncells)
{
	return bf_layout_fpp(layout, n, (double) ncells,
	                     bf_layout_optimal_hashes(layout, n, (double) ncells));
}

/*
 * The smallest multiple of unit bits, from lo units on, whose best rate for n
 * values meets fpp; units are 1 bit (classic) or 512 (blocked512).  The best
 * rate decreases as m grows, so: grow geometrically until the target is
 * met, then binary search.  Fails with BF_ERR_TOO_LARGE past BF_MAX_BITS.
 */
static bool
smallest_meeting(uint8_t layout, double n, double fpp, uint64_t lo, uint64_t unit, uint64_t *ncells,
                 bf_error *err)
{
	uint64_t max_units = BF_MAX_BITS / unit, hi;

	if (lo > max_units)
		goto too_large;
	if (best_fpp(layout, n, lo * unit) > fpp)
	{
		hi = lo;
		do
		{
			if (hi >= max_units)
				goto too_large;
			lo = hi;
			hi = hi + hi / 16 + 1;
			if (hi > max_units)
				hi = max_units;
		} while (best_fpp(layout, n, hi * unit) > fpp);
		/* invariant: best_fpp(lo) > fpp >= best_fpp(hi) */
		while (hi - lo > 1)
		{
			uint64_t mid = lo + (hi - lo) / 2;

			if (best_fpp(layout, n, mid * unit) > fpp)
				lo = mid;
			else
				hi = mid;
		}
		lo = hi;
	}
	*ncells = lo * unit;
	return true;

too_large:
	return bf_fail(err, BF_ERR_TOO_LARGE,
	               "a %s filter for %.0f values at rate %g needs more than the maximum of %llu "
	               "bits (1 GB)",
	               bf_layout_name(layout), n, fpp, (unsigned long long) BF_MAX_BITS);
}

bool
bf_size_for(double n, double fpp, uint64_t *ncells, int *nhashes, bf_error *err)
{
	double m_real;

	if (!(n >= 1))
		return bf_fail(err, BF_ERR_PARAM, "expected number of values must be at least 1");
	if (!(fpp > 0.0 && fpp < 1.0))
		return bf_fail(err, BF_ERR_PARAM,
		               "false-positive rate must be between 0 and 1 (exclusive)");

	m_real = ceil(-n * log(fpp) / (M_LN2 * M_LN2));
	if (m_real < 1)
		m_real = 1;
	if (m_real > (double) BF_MAX_BITS)
		return bf_fail(err, BF_ERR_TOO_LARGE,
		               "a filter for %.0f values at rate %g needs %.0f bits, more than the maximum "
		               "of %llu (1 GB)",
		               n, fpp, m_real, (unsigned long long) BF_MAX_BITS);

	/*
	 * With k rounded to an integer the real-valued optimum can miss the
	 * target by a hair: take the smallest m whose best integer k meets it.
	 */
	if (!smallest_meeting(BF_LAYOUT_CLASSIC, n, fpp, (uint64_t) m_real, 1, ncells, err))
		return false;
	*nhashes = bf_optimal_hashes(n, (double) *ncells);
	return true;
}

double
bf_blocked_fpp(double n, double ncells, double nhashes)
{
	double lambda = n * BF_BLOCK_BITS / ncells;
	double spread, lo, hi, sum = 0.0, weight = 0.0;

	if (n <= 0)
		return 0.0;

	/*
	 * Sum the Poisson terms within 12 standard deviations of the mean (the
	 * rest weigh less than 1e-30); beyond a million values per block every
	 * block holds about lambda of them.
	 */
	if (lambda > 1e6)
		return pow(-expm1(nhashes * lambda * log1p(-1.0 / BF_BLOCK_BITS)), nhashes);
	spread = 12.0 * sqrt(lambda) + 30.0;
	lo = floor(Max(0.0, lambda - spread));
	hi = ceil(lambda + spread);
	for (double i = lo; i <= hi; i += 1.0)
	{
		double pmf = exp(i * log(lambda) - lambda - lgamma(i + 1.0));
		double inner = pow(-expm1(nhashes * i * log1p(-1.0 / BF_BLOCK_BITS)), nhashes);

		sum += pmf * inner;
		weight += pmf;
	}
	return weight > 0 ? sum / weight : 1.0;
}

double
bf_blocked_fill(double n, double ncells, double nhashes)
{
	double lambda = n * BF_BLOCK_BITS / ncells;

	/*
	 * A given bit of a block stays clear after i values with probability
	 * (1 - 1/512)^(k i); i is Poisson(lambda), whose E[a^i] is
	 * exp(lambda (a - 1)).
	 */
	if (n <= 0)
		return 0.0;
	return -expm1(lambda * expm1(nhashes * log1p(-1.0 / BF_BLOCK_BITS)));
}

double
bf_blocked_page_full_fill(double n, double ncells, double nhashes, double page_blocks,
                          double npages)
{
	double mu, z = 0.0;

	assert(ncells >= BF_BLOCK_BITS && page_blocks >= 1 && page_blocks <= ncells / BF_BLOCK_BITS);
	assert(npages >= 1);
	if (n <= 0)
		return 0.0;
	mu = n * page_blocks / (ncells / BF_BLOCK_BITS);
	if (npages >= 3)
	{
		double r = sqrt(2.0 * log(npages));

		z = r - (log(log(npages)) + 2.5310242469692907 /* ln 4 pi */) / (2.0 * r);
		if (z < 0)
			z = 0;
	}
	return bf_blocked_fill(mu + z * sqrt(mu), page_blocks * BF_BLOCK_BITS, nhashes);
}

double
bf_layout_fpp(uint8_t layout, double n, double ncells, double nhashes)
{
	return layout == BF_LAYOUT_BLOCKED512 ? bf_blocked_fpp(n, ncells, nhashes)
	                                      : bf_fpp(n, ncells, nhashes);
}

int
bf_layout_optimal_hashes(uint8_t layout, double n, double ncells)
{
	int k0 = bf_optimal_hashes(n, ncells), best = k0;
	double best_fpp;

	if (layout != BF_LAYOUT_BLOCKED512)
		return k0;
	/* the blocked optimum sits near the classic one; search around it */
	best_fpp = bf_blocked_fpp(n, ncells, k0);
	for (int k = Max(1, k0 - 4); k <= Min(BF_MAX_HASHES, k0 + 4); k++)
	{
		double f = bf_blocked_fpp(n, ncells, k);

		if (f < best_fpp)
		{
			best_fpp = f;
			best = k;
		}
	}
	return best;
}

bool
bf_size_for_layout(uint8_t layout, double n, double fpp, uint64_t *ncells, int *nhashes,
                   bf_error *err)
{
	uint64_t classic_m;

	if (!bf_size_for(n, fpp, &classic_m, nhashes, err))
		return false;
	if (layout != BF_LAYOUT_BLOCKED512)
	{
		*ncells = classic_m;
		return true;
	}
	/* in blocks, from the classic size up: blocks never need fewer bits */
	if (!smallest_meeting(layout, n, fpp, (classic_m + BF_BLOCK_BITS - 1) / BF_BLOCK_BITS,
	                      BF_BLOCK_BITS, ncells, err))
		return false;
	*nhashes = bf_layout_optimal_hashes(layout, n, (double) *ncells);
	return true;
}

double
bf_estimate_distinct(uint64_t ncells, int nhashes, uint64_t occupied)
{
	double m = (double) ncells;

	if (occupied >= ncells)
		return INFINITY;
	return -(m / nhashes) * log1p(-(double) occupied / m);
}

double
bf_current_fpp(uint64_t ncells, int nhashes, uint64_t occupied)
{
	return pow((double) occupied / (double) ncells, nhashes);
}
