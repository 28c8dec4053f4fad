/*
 * bloomfilter.c
 *	  The module's front door: its magic block and _PG_init, which defines
 *	  the settings and starts the runtime filters' room.  The map of the
 *	  source tree (core/, src/, src/runtime/) is ARCHITECTURE.md's, the one
 *	  map; each file's header says what it is for.
 */
#include "src/bloom_autostate.h"
#include "src/index/bloomindex.h"
#include "src/runtime/runtime.h"

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
	bloom_auto_define_guc();   /* bloomfilter.agg_explicit_limit */
	bloom_rf_module_init();    /* bloomfilter.runtime_filter, its nodes and hooks */
	bloom_index_module_init(); /* the bloomfilter index's options */
	MarkGUCPrefixReserved("bloomfilter");
}
