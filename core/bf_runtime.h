/*
 * bf_runtime.h
 *	  The arithmetic of runtime join filters, without PostgreSQL: when a hash
 *	  join should get a filter, how large the filter is, and when a probe
 *	  that removes too few rows pauses.
 *
 * A runtime filter is a blocked512 filter of the join keys of a hash join's
 * inner (build) side, probed on its outer side so that rows that cannot
 * match are dropped early.  The filter costs a probe for every outer row it
 * sees and an insert for every inner row; it saves the work those rows
 * would cost above the probe: a hash-table probe at the least, and often a
 * write to a batch file, other joins, or a network hop.  Everything here is
 * in units of one filter probe:
 *
 *	 gain = outer_rows * (removed * saved - 1 - BF_RF_NODE_PER_OUTER)
 *	        - inner_rows * BF_RF_BUILD_PER_INNER
 *
 * where removed = 1 - pass is the fraction of outer rows without a match and
 * saved what removing one saves: a hash-table probe, which costs about one
 * filter probe while the hash table is in the CPU cache and about
 * BF_RF_SAVED_PER_REMOVED of them once it is well beyond
 * (BF_RF_CACHE_BYTES); in between, proportionally.  Every outer row also
 * passes through one more executor node, probed or not.  The constants are
 * measured (bench/runtime.sql, bench/tpch.sql, bench/README.md); they are
 * deliberately the cheap end of what a removed row saves, so that a filter
 * is planned only where it pays for the plainest join.
 */
#ifndef BF_RUNTIME_H
#define BF_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What removing one outer row saves, in filter probes, at most. */
#define BF_RF_SAVED_PER_REMOVED 4.0
/* A hash table this large (bytes) or larger misses the CPU cache on nearly every probe. */
#define BF_RF_CACHE_BYTES (4.0 * 1024 * 1024)
/*
 * What the probe node itself costs an outer row, in filter probes: a call
 * through the executor and a few branches.  Without it, a filter in front of
 * a hash table in the cache looks like a small gain (removed * saved just
 * above 1) that the node eats: TPC-H's Q9 and Q8 at scale 0.2, 7% and 19% slower
 * with such filters (bench/README.md).
 */
#define BF_RF_NODE_PER_OUTER 0.25
/* What adding one inner row costs, in filter probes. */
#define BF_RF_BUILD_PER_INNER 1.0
/* Joins whose outer side is estimated below this many rows get no filter. */
#define BF_RF_MIN_OUTER_ROWS 1000.0
/* Target false-positive rate of a runtime filter sized for its inner rows. */
#define BF_RF_TARGET_FPP 0.01

/*
 * Cells (bits) of the blocked layout's filter for a million keys at
 * BF_RF_TARGET_FPP, as bf_size_for_layout sizes it: bf_rf_max_keys's
 * bits per key.
 */
#define BF_RF_CELLS_PER_MILLION 9895936
/*
 * Largest runtime filter, in bytes.  A larger one would miss the CPU cache
 * on nearly every probe; 16 MB holds about 13 million keys at the target.
 * A user may cap it lower, down to BF_RF_MIN_MAX_BYTES (about 53,000 keys);
 * the functions below take that cap as max_bytes.
 */
#define BF_RF_MAX_BYTES ((size_t) 16 * 1024 * 1024)
#define BF_RF_MIN_MAX_BYTES ((size_t) 64 * 1024)
/* A filter whose rate for a random probe exceeds this is not probed at all. */
#define BF_RF_MAX_USEFUL_FPP 0.5

/*
 * What removing one outer row saves, in filter probes, for a hash table of
 * table_bytes: from 1 (in the cache) to BF_RF_SAVED_PER_REMOVED.
 */
extern double bf_rf_saved_per_removed(double table_bytes);

/*
 * Whether removing outer rows can pay at all where removing one saves
 * `saved` probes: even a filter that removes every row costs a probe and
 * the node's own work per row, 1 + BF_RF_NODE_PER_OUTER.  The probe node
 * asks this again once the join's hash table is built, with its real size:
 * a table the planner believed large may fit in the cache after all.
 */
extern bool bf_rf_can_pay(double saved);

/*
 * Whether a filter is expected to pay: outer_rows and inner_rows are the
 * planner's estimates, table_bytes its hash table's, pass its estimate of
 * the fraction of outer rows that find a match (clamped to [0, 1]).  False
 * for fewer than BF_RF_MIN_OUTER_ROWS outer rows, for more inner rows than
 * a filter of max_bytes holds, and whenever the gain above is not positive.
 */
extern bool bf_rf_worthwhile(double outer_rows, double inner_rows, double table_bytes, double pass,
                             size_t max_bytes);

/*
 * The largest number of keys a filter of max_bytes holds at the target
 * rate.  max_bytes is a multiple of 64 in [BF_RF_MIN_MAX_BYTES, BF_RF_MAX_BYTES].
 */
extern double bf_rf_max_keys(size_t max_bytes);

/*
 * The shape of a runtime filter for n keys (n >= 0): a blocked512 filter
 * meeting BF_RF_TARGET_FPP, or, where that would take more than max_bytes,
 * the filter of max_bytes with the k best for bf_rf_max_keys() keys.
 * Fills *ncells (at most max_bytes * 8) and *nhashes.
 */
extern void bf_rf_shape(double n, size_t max_bytes, uint64_t *ncells, int *nhashes);

/* ---- reading a few keys' rows through a B-tree instead of the whole table ---- */

/*
 * What a row fetched at random from a page in shared buffers costs, in rows
 * of a sequential scan (cpu_tuple_cost each): a buffer lookup, pin and lock
 * per row, where a sequential scan pays them once a page (measured about 7,
 * bench/btree_cache.sh; the lower figure keeps the whole table where the
 * two are close, which is never slower than no filter).
 */
#define BF_RF_CACHED_FETCH_ROWS 5.0

/*
 * A table and its B-tree index as the cost of reading it is figured, in the
 * planner's units and with its settings (PostgreSQL's costsize.c).
 */
typedef struct bf_rf_table_read
{
	double tuples;        /* rows of the table (> 0) */
	double pages;         /* its pages (> 0) */
	double index_pages;   /* the index's pages (>= 0) */
	double correlation;   /* of the key column with the table's order, -1 to 1 (0: unknown) */
	double cache_pages;   /* effective_cache_size, in pages (> 0) */
	double seq_page_cost; /* the planner's settings */
	double random_page_cost;
	double cpu_tuple_cost;
	double cpu_index_tuple_cost;
	double cpu_operator_cost;
	/*
	 * The fractions of the table's and the index's pages found in shared
	 * buffers (0 to 1; 0: none, or not known).  A page found there costs
	 * what processing a row does (cpu_tuple_cost: a lookup and a pin), at
	 * most a sequential page; but rows fetched at random, each from another
	 * page, cost BF_RF_CACHED_FETCH_ROWS rows of a sequential scan each.
	 * Measured on 61 partitions of 50,000 rows (bench/btree_cache.sh): the
	 * rows of 180 keys (about 500 a partition) read through the B-trees
	 * take a quarter of the whole tables' time when cached, while those of
	 * 100 keys take 2.5 times as long when read from disk; cached, a row
	 * through the B-tree costs about 7 times a row of the whole table.
	 */
	double heap_cached;
	double index_cached;
} bf_rf_table_read;

/*
 * What reading the whole table costs: every page in sequence, every row
 * processed (a Seq Scan's cost without its quals, which an index scan would
 * evaluate on fewer rows: leaving them out only favors the whole table).
 * Pages in shared buffers are priced as heap_cached says.
 */
extern double bf_rf_seq_read_cost(const bf_rf_table_read *t);

/*
 * What reading the rows of `keys` distinct keys (>= 1), `rows` of them in
 * all (0 <= rows <= tuples), through the index costs; cost_index and
 * btcostestimate in outline:
 *	 - one descent of the index per key: a leaf page at random (the levels
 *	   above stay cached) and the comparisons on the way down; then the
 *	   leaf pages the rows' index entries fill;
 *	 - the heap pages the rows are on: where the column follows the table's
 *	   order (correlation 1 or -1), each key's rows lie together, a random
 *	   page then sequential ones; where it follows none, Mackert and
 *	   Lohman's count of the distinct pages fetched through a cache of
 *	   cache_pages, each at random; in between, by the correlation squared;
 *	 - each row's processing, with its index entry.
 */
extern double bf_rf_index_read_cost(const bf_rf_table_read *t, double keys, double rows);

/* ---- the probe's adaptive switch ---- */

/*
 * A probe that removes too few rows costs more than it saves, so the probe
 * node pauses it; but whether it pays can change along the scan (time-ordered
 * facts whose matches come in runs, keys sorted, a table whose first half
 * matches and second half does not).  The switch therefore judges on two
 * measures and keeps measuring while paused:
 *
 *	 - the last window: BF_RF_WINDOW probes while probing every row, or
 *	   BF_RF_SAMPLE_WINDOW sampled probes while paused;
 *	 - the long run: the fraction of rows removed over the scan so far,
 *	   estimated from every probe (a sampled probe stands for the rows it
 *	   was drawn from) and halved past 2 * BF_RF_HORIZON rows, so that it
 *	   covers the last 262,144 to 524,288 rows: long enough to see through
 *	   runs of matches shorter than that, short enough to follow a table
 *	   whose halves differ.
 *
 * Either pays when its removed fraction reaches the break-even point
 * 1 / saved (saved from bf_rf_saved_per_removed()).  A probing filter pauses
 * only when neither pays; a paused one resumes as soon as either does.
 * While paused, one row in BF_RF_SAMPLE_GAP on average is still probed (and
 * dropped if the filter rejects it), at gaps drawn at random between 1 and
 * twice the mean gap less one, so that no period in the data lines up with
 * the samples.  Each sampled window that removes no row at all doubles the
 * mean gap, up to BF_RF_SAMPLE_GAP_MAX; one that removes any row brings it
 * back to BF_RF_SAMPLE_GAP.  The back-off is for the filter that removes
 * nothing (a misestimated join: every outer row matches), whose probes are
 * pure cost, and a costly one, since a filter the hash table's traffic
 * evicts from the cache misses on nearly every probe: after its first window
 * and three sampled ones it costs one probe per BF_RF_SAMPLE_GAP_MAX rows.
 * One that pays overall is paused by a run of matches only before the long
 * run has seen it pay (a run at the start of the scan) or when the run is
 * longer than the long run covers, and then resumes within a sampled window
 * (1,088 to 8,704 rows) of the next rows it removes.
 */
#define BF_RF_WINDOW 4096u
#define BF_RF_SAMPLE_WINDOW 64u
#define BF_RF_SAMPLE_GAP 17u
#define BF_RF_SAMPLE_GAP_MAX (8u * BF_RF_SAMPLE_GAP)
#define BF_RF_HORIZON ((uint64_t) 1 << 18)

/* The state of a probe's switch. */
typedef struct bf_rf_switch
{
	bool paused;
	uint32_t window_left;    /* probes still to make in this window */
	uint32_t window_removed; /* rows this window's probes removed */
	uint32_t gap_left;       /* paused: rows to pass before the next sampled probe */
	uint32_t gap_mean;       /* paused: the mean gap, BF_RF_SAMPLE_GAP to BF_RF_SAMPLE_GAP_MAX */
	double saved;            /* what a removed row saves, in probes (>= 1) */
	uint64_t random;         /* the sampling's generator state (xorshift64) */
	/* the long run, in rows: a probe counts 1, a sampled probe its mean gap */
	uint64_t run_rows;
	uint64_t run_removed;
	/* totals, for EXPLAIN ANALYZE */
	uint64_t probed;
	uint64_t removed;
	uint64_t skipped;
	uint64_t pauses;
} bf_rf_switch;

/* A switch that probes, for a filter where removing a row saves `saved` probes (>= 1). */
extern void bf_rf_switch_init(bf_rf_switch *s, double saved);

/* Change what a removed row saves (>= 1), keeping the switch's state and totals. */
extern void bf_rf_switch_set_saved(bf_rf_switch *s, double saved);

/* Called at a window's end: pause, resume or go on (bf_runtime.c). */
extern void bf_rf_switch_window_end(bf_rf_switch *s);

/* Called when a paused switch's gap is over: the next gap (bf_runtime.c). */
extern uint32_t bf_rf_switch_next_gap(bf_rf_switch *s);

/*
 * Whether to probe the next row.  If it returns false the row passes
 * unchecked (and is counted); if true, the caller probes and reports the
 * outcome with bf_rf_switch_record().
 */
static inline bool
bf_rf_switch_probing(bf_rf_switch *s)
{
	if (!s->paused)
		return true;
	if (--s->gap_left > 0)
	{
		s->skipped++;
		return false;
	}
	s->gap_left = bf_rf_switch_next_gap(s);
	return true;
}

/* The outcome of a probe: removed or not. */
static inline void
bf_rf_switch_record(bf_rf_switch *s, bool removed)
{
	s->probed++;
	if (removed)
	{
		s->removed++;
		s->window_removed++;
	}
	if (--s->window_left == 0)
		bf_rf_switch_window_end(s);
}

#endif /* BF_RUNTIME_H */
