/*
 * bloomfilter.c
 *	  The module's front door: its magic block, _PG_init and settings, and a
 *	  map of where things live.  ARCHITECTURE.md tells the whole story.
 *
 * core/               the PostgreSQL-free core (no postgres.h): the format
 *                     (bf_format.h), cell positions (bf_hash.h), the four
 *                     layouts under one dispatch (bf_filter.c), sizing math,
 *                     the text form.  Its interface is core/bf_core.h.
 * src/                the thin PostgreSQL layer, by concern:
 *   bloom_functions.c   create, add, probe, inspect
 *   bloom_io.c          type input and output, text and binary
 *   bloom_agg.c         bloom_agg and counting_bloom_agg with sizing hints
 *   bloom_auto.c        bloom_agg(value) sized from the data
 *   bloom_aggstate.c    what the aggregates' states share (expanded object, batches)
 *   bloom_setops.c      union, intersection, equality, estimates
 *   bloom_counting.c    remove, count, subtract, the cast to bloom
 *   bloom_explicit.c    sets of hashes (the explicit layout) in SQL
 *   bloom_calc.c        the sizing calculator
 *   bloom_planner.c     selectivity and cost for the planner
 *   bloom_value.c       hashing SQL values, element families
 *   bloom_datum.c       datums to checked views, the TOAST cache, errors
 *   bloom_runtime*.c    runtime filters in hash joins (bloom_runtime.h):
 *                       the hooks, the planner's part, the build and probe
 *                       nodes, the filter, the keys
 *   bloom_compat.h      every difference between PostgreSQL versions
 */
#include "src/bloom_pg.h"
#include "src/bloom_runtime.h"

#include "miscadmin.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

void _PG_init(void);

/* The core's long loops (text codec, sorting, validation) stay cancellable. */
static void
bloom_tick(void)
{
	CHECK_FOR_INTERRUPTS();
}

void
_PG_init(void)
{
	bf_set_tick(bloom_tick);
	bloom_auto_define_guc(); /* bloomfilter.agg_explicit_limit */
	bloom_runtime_init();    /* bloomfilter.runtime_filter, its nodes and hooks */
	MarkGUCPrefixReserved("bloomfilter");
}
