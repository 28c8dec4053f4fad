/*
 * settings.h
 *	  The runtime filters' five settings (settings.c): the bottom of the
 *	  room, read by the planner, the filter and the probe, defined by the
 *	  module's start (hooks.c).
 */
#ifndef BLOOM_RT_SETTINGS_H
#define BLOOM_RT_SETTINGS_H

#include "postgres.h"

/* bloomfilter.runtime_filter */
extern bool bloom_rf_enabled;
/* bloomfilter.runtime_filter_force (for tests) */
extern bool bloom_rf_forced;
/* bloomfilter.runtime_filter_ship_max: the largest filter sent to a remote server, in kB */
extern int bloom_rf_ship_max_kb;
/* bloomfilter.runtime_filter_max_size: the largest runtime filter, in kB */
extern int bloom_rf_max_size_kb;
/* bloomfilter.runtime_filter_skip_costing: the join search prices what a hash join's keys skip */
extern bool bloom_rf_skip_costing;

/* bloomfilter.runtime_filter_max_size in bytes, as the core takes it (max_bytes). */
extern size_t bloom_rf_max_bytes(void);

/* Define the settings (from bloom_rf_module_init). */
extern void bloom_rf_define_settings(void);

#endif /* BLOOM_RT_SETTINGS_H */
