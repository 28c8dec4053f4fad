/*
 * bf_runtime.c
 *	  Runtime join filters: the decision to plan one, its shape, and the
 *	  probe's adaptive switch (bf_runtime.h states the model).
 */
#include "bf_core.h"

#include <assert.h>
#include <math.h>

/* Whether max_bytes is a size the functions below accept. */
#define VALID_MAX_BYTES(b) ((b) >= BF_RF_MIN_MAX_BYTES && (b) <= BF_RF_MAX_BYTES && (b) % 64 == 0)

double
bf_rf_saved_per_removed(double table_bytes)
{
	double share = table_bytes / BF_RF_CACHE_BYTES;

	if (!(share > 0))
		return 1.0;
	return 1.0 + (BF_RF_SAVED_PER_REMOVED - 1.0) * (share < 1.0 ? share : 1.0);
}

bool
bf_rf_can_pay(double saved)
{
	return saved > 1.0 + BF_RF_NODE_PER_OUTER;
}

bool
bf_rf_worthwhile(double outer_rows, double inner_rows, double table_bytes, double pass,
                 size_t max_bytes)
{
	double removed, gain;

	assert(VALID_MAX_BYTES(max_bytes));
	if (!(outer_rows >= BF_RF_MIN_OUTER_ROWS) || !(inner_rows >= 0))
		return false;
	if (inner_rows > bf_rf_max_keys(max_bytes))
		return false;
	pass = pass < 0 ? 0 : (pass > 1 ? 1 : pass);
	removed = 1.0 - pass;
	gain =
	    outer_rows * (removed * bf_rf_saved_per_removed(table_bytes) - 1.0 - BF_RF_NODE_PER_OUTER) -
	    inner_rows * BF_RF_BUILD_PER_INNER;
	return gain > 0;
}

double
bf_rf_max_keys(size_t max_bytes)
{
	assert(VALID_MAX_BYTES(max_bytes));

	/*
	 * Bits per key at the target rate barely change with n beyond a few
	 * thousand keys: those of a million keys serve, a constant (the search
	 * for that shape takes about 11 million instructions, which every
	 * backend's first hash join paid); the unit test checks that it is
	 * what bf_size_for_layout gives.
	 */
	return floor((double) max_bytes * 8 / (BF_RF_CELLS_PER_MILLION / 1e6));
}

/*
 * The search for a shape evaluates the blocked layout's rate (a Poisson sum)
 * a few hundred times, about 18 microseconds, at every build of a runtime
 * filter; and the same sizes come back (a query run again, a join rebuilt
 * under a nested loop).  The last SHAPE_MEMO answers are kept: an answer
 * depends on the arguments alone, so keeping it changes no result.  (The
 * server is single-threaded per process; a process's memo is its own.)
 */
#define SHAPE_MEMO 8

static struct
{
	bool used;
	double n;
	size_t max_bytes;
	uint64_t ncells;
	int nhashes;
} shape_memo[SHAPE_MEMO];
static unsigned shape_memo_next;

static void
compute_shape(double n, size_t max_bytes, uint64_t *ncells, int *nhashes)
{
	uint64_t max_bits = (uint64_t) max_bytes * 8;
	bf_error err;
	bool ok;

	if (n <= bf_rf_max_keys(max_bytes))
	{
		ok = bf_size_for_layout(BF_LAYOUT_BLOCKED512, n < 1 ? 1 : n, BF_RF_TARGET_FPP, ncells,
		                        nhashes, &err);
		assert(ok);
		(void) ok;
		/* bits per key vary a little with n: near the cap, the cap wins */
		if (*ncells <= max_bits)
			return;
	}
	*ncells = max_bits;
	*nhashes = bf_layout_optimal_hashes(BF_LAYOUT_BLOCKED512, bf_rf_max_keys(max_bytes),
	                                    (double) max_bits);
}

void
bf_rf_shape(double n, size_t max_bytes, uint64_t *ncells, int *nhashes)
{
	unsigned slot;

	assert(n >= 0 && VALID_MAX_BYTES(max_bytes));
	for (slot = 0; slot < SHAPE_MEMO; slot++)
		if (shape_memo[slot].used && shape_memo[slot].n == n &&
		    shape_memo[slot].max_bytes == max_bytes)
		{
			*ncells = shape_memo[slot].ncells;
			*nhashes = shape_memo[slot].nhashes;
			return;
		}
	compute_shape(n, max_bytes, ncells, nhashes);
	slot = shape_memo_next++ % SHAPE_MEMO;
	shape_memo[slot].used = true;
	shape_memo[slot].n = n;
	shape_memo[slot].max_bytes = max_bytes;
	shape_memo[slot].ncells = *ncells;
	shape_memo[slot].nhashes = *nhashes;
}

/* Whether removing `removed` of `rows` rows pays for probing them. */
static bool
pays(const bf_rf_switch *s, double removed, double rows)
{
	return removed * s->saved >= rows;
}

#define VALID_TABLE_READ(t)                                                                \
	((t)->tuples > 0 && (t)->pages > 0 && (t)->index_pages >= 0 && (t)->cache_pages > 0 && \
	 (t)->correlation >= -1 && (t)->correlation <= 1 && (t)->heap_cached >= 0 &&           \
	 (t)->heap_cached <= 1 && (t)->index_cached >= 0 && (t)->index_cached <= 1)

/*
 * The price of a page of which the fraction `cached` is in shared buffers,
 * the rest costing `uncached` (bf_rf_table_read's heap_cached).
 */
static double
page_price(const bf_rf_table_read *t, double cached, double uncached)
{
	double hit = fmin(t->cpu_tuple_cost, t->seq_page_cost);

	return cached * fmin(hit, uncached) + (1.0 - cached) * uncached;
}

double
bf_rf_seq_read_cost(const bf_rf_table_read *t)
{
	assert(VALID_TABLE_READ(t));
	return t->pages * page_price(t, t->heap_cached, t->seq_page_cost) +
	       t->tuples * t->cpu_tuple_cost;
}

/*
 * Pages of a table of `pages` pages read by `fetches` random fetches
 * through a cache of `cache` pages (Mackert and Lohman, "Index scans using
 * a finite LRU buffer", 1989), as costsize.c counts them: distinct pages
 * while the table fits in the cache, and pages read again beyond it.
 */
static double
pages_fetched(double fetches, double pages, double cache)
{
	double fetched;

	if (pages <= cache)
		return ceil(fmin(2.0 * pages * fetches / (2.0 * pages + fetches), pages));
	/* a table larger than the cache: past the limit, pages are fetched again (no cap) */
	{
		double limit = 2.0 * pages * cache / (2.0 * pages - cache);

		if (fetches <= limit)
			fetched = 2.0 * pages * fetches / (2.0 * pages + fetches);
		else
			fetched = cache + (fetches - limit) * (pages - cache) / pages;
	}
	return ceil(fetched);
}

double
bf_rf_index_read_cost(const bf_rf_table_read *t, double keys, double rows)
{
	double fraction, descents, leaves, uncorrelated, per_key, correlated, c2, heap, cpu;
	double index_random, heap_random, heap_seq;

	assert(VALID_TABLE_READ(t));
	assert(keys >= 1 && rows >= 0 && rows <= t->tuples);
	fraction = rows / t->tuples;
	index_random = page_price(t, t->index_cached, t->random_page_cost);
	heap_random = page_price(t, t->heap_cached, t->random_page_cost);
	heap_seq = page_price(t, t->heap_cached, t->seq_page_cost);
	/*
	 * The index: a leaf at random per key (the levels above stay cached),
	 * but no page twice, the keys being looked up in order; the comparisons
	 * down to each; then the leaves the entries fill.
	 */
	descents = fmin(keys, fmax(1.0, t->index_pages)) * index_random +
	           keys * (ceil(log2(t->tuples + 1)) + 150) * t->cpu_operator_cost;
	leaves = ceil(fraction * t->index_pages) * index_random;
	/*
	 * the heap in no order: each distinct page once, at random, from disk;
	 * from shared buffers, a lookup, pin and lock for each row fetched
	 */
	uncorrelated = (1.0 - t->heap_cached) * pages_fetched(rows, t->pages, t->cache_pages) *
	                   t->random_page_cost +
	               t->heap_cached * rows * BF_RF_CACHED_FETCH_ROWS * t->cpu_tuple_cost;
	/* in the key's order: per key, a random page and the rest of its run in sequence */
	per_key = fmax(1.0, ceil(fraction * t->pages / keys));
	/* (never dearer than no order: keys with a row or two each fall on that many pages anyway) */
	correlated = fmin(keys * (heap_random + (per_key - 1) * heap_seq), uncorrelated);
	c2 = t->correlation * t->correlation;
	heap = uncorrelated + c2 * (correlated - uncorrelated);
	cpu = rows * (t->cpu_tuple_cost + t->cpu_index_tuple_cost + t->cpu_operator_cost);
	return descents + leaves + heap + cpu;
}

void
bf_rf_switch_init(bf_rf_switch *s, double saved)
{
	assert(saved >= 1.0);
	s->paused = false;
	s->window_left = BF_RF_WINDOW;
	s->window_removed = 0;
	s->gap_left = 0;
	s->gap_mean = BF_RF_SAMPLE_GAP;
	s->saved = saved;
	s->random = 0x9E3779B97F4A7C15ull; /* any nonzero seed; fixed, so runs repeat */
	s->run_rows = s->run_removed = 0;
	s->probed = s->removed = s->skipped = s->pauses = 0;
}

void
bf_rf_switch_set_saved(bf_rf_switch *s, double saved)
{
	assert(saved >= 1.0);
	s->saved = saved;
}

uint32_t
bf_rf_switch_next_gap(bf_rf_switch *s)
{
	uint64_t x = s->random;

	/* xorshift64 (Marsaglia 2003): fast, and random enough to break periods */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	s->random = x;
	/* uniform in [1, 2 * mean - 1], mean `mean` (the modulo's bias is negligible) */
	assert(s->gap_mean >= BF_RF_SAMPLE_GAP && s->gap_mean <= BF_RF_SAMPLE_GAP_MAX);
	return 1 + (uint32_t) ((x >> 32) % (2 * s->gap_mean - 1));
}

void
bf_rf_switch_window_end(bf_rf_switch *s)
{
	uint32_t probes = s->paused ? BF_RF_SAMPLE_WINDOW : BF_RF_WINDOW;
	uint64_t weight = s->paused ? s->gap_mean : 1;
	bool window_pays, run_pays;

	assert(s->window_left == 0 && s->window_removed <= probes);
	s->run_rows += (uint64_t) probes * weight;
	s->run_removed += (uint64_t) s->window_removed * weight;
	if (s->run_rows > 2 * BF_RF_HORIZON)
	{
		s->run_rows /= 2;
		s->run_removed /= 2;
	}
	window_pays = pays(s, s->window_removed, probes);
	run_pays = pays(s, (double) s->run_removed, (double) s->run_rows);
	if (!s->paused && !window_pays && !run_pays)
	{
		s->paused = true;
		s->pauses++;
		s->gap_mean = BF_RF_SAMPLE_GAP;
		s->gap_left = bf_rf_switch_next_gap(s);
	}
	else if (s->paused && (window_pays || run_pays))
		s->paused = false;
	else if (s->paused)
	{
		/* still paused: sample less often while the samples remove nothing */
		if (s->window_removed > 0)
			s->gap_mean = BF_RF_SAMPLE_GAP;
		else if (s->gap_mean < BF_RF_SAMPLE_GAP_MAX)
			s->gap_mean *= 2;
	}
	s->window_left = s->paused ? BF_RF_SAMPLE_WINDOW : BF_RF_WINDOW;
	s->window_removed = 0;
}
