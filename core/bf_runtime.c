/*
 * bf_runtime.c
 *	  Runtime join filters: the decision to plan one, its shape, and the
 *	  probe's adaptive switch (bf_runtime.h states the model).
 */
#include "bf_core.h"

#include <assert.h>
#include <math.h>

/* Bits of the largest runtime filter. */
#define MAX_BITS ((uint64_t) BF_RF_MAX_BYTES * 8)

double
bf_rf_saved_per_removed(double table_bytes)
{
	double share = table_bytes / BF_RF_CACHE_BYTES;

	if (!(share > 0))
		return 1.0;
	return 1.0 + (BF_RF_SAVED_PER_REMOVED - 1.0) * (share < 1.0 ? share : 1.0);
}

bool
bf_rf_worthwhile(double outer_rows, double inner_rows, double table_bytes, double pass)
{
	double removed, gain;

	if (!(outer_rows >= BF_RF_MIN_OUTER_ROWS) || !(inner_rows >= 0))
		return false;
	if (inner_rows > bf_rf_max_keys())
		return false;
	pass = pass < 0 ? 0 : (pass > 1 ? 1 : pass);
	removed = 1.0 - pass;
	gain =
	    outer_rows * (removed * bf_rf_saved_per_removed(table_bytes) - 1.0 - BF_RF_NODE_PER_OUTER) -
	    inner_rows * BF_RF_BUILD_PER_INNER;
	return gain > 0;
}

double
bf_rf_max_keys(void)
{
	static double max_keys = 0;

	/*
	 * Bits per key at the target rate barely change with n beyond a few
	 * thousand keys; measure them once at a million.
	 */
	if (max_keys == 0)
	{
		uint64_t ncells;
		int nhashes;
		bf_error err;
		bool ok = bf_size_for_layout(BF_LAYOUT_BLOCKED512, 1e6, BF_RF_TARGET_FPP, &ncells, &nhashes,
		                             &err);

		assert(ok);
		(void) ok;
		max_keys = floor((double) MAX_BITS / ((double) ncells / 1e6));
	}
	return max_keys;
}

void
bf_rf_shape(double n, uint64_t *ncells, int *nhashes)
{
	bf_error err;
	bool ok;

	assert(n >= 0);
	if (n > bf_rf_max_keys())
	{
		*ncells = MAX_BITS;
		*nhashes =
		    bf_layout_optimal_hashes(BF_LAYOUT_BLOCKED512, bf_rf_max_keys(), (double) MAX_BITS);
		return;
	}
	ok = bf_size_for_layout(BF_LAYOUT_BLOCKED512, n < 1 ? 1 : n, BF_RF_TARGET_FPP, ncells, nhashes,
	                        &err);
	assert(ok && *ncells <= MAX_BITS);
	(void) ok;
}

void
bf_rf_switch_init(bf_rf_switch *s, double saved)
{
	assert(saved >= 1.0);
	s->window_left = BF_RF_WINDOW;
	s->window_removed = 0;
	s->min_removed = (uint32_t) ceil(BF_RF_WINDOW / saved);
	s->skip_left = 0;
	s->pause = BF_RF_FIRST_PAUSE;
	s->probed = s->removed = s->skipped = s->pauses = 0;
}

void
bf_rf_switch_window_end(bf_rf_switch *s)
{
	bool pays = s->window_removed >= s->min_removed;

	assert(s->window_left == 0 && s->window_removed <= BF_RF_WINDOW);
	if (pays)
		s->pause = BF_RF_FIRST_PAUSE;
	else
	{
		s->skip_left = (uint64_t) s->pause * BF_RF_WINDOW;
		s->pauses++;
		if (s->pause < BF_RF_MAX_PAUSE)
			s->pause *= 2;
	}
	s->window_left = BF_RF_WINDOW;
	s->window_removed = 0;
}
