/*
 * settings.c
 *	  The runtime filters' settings (settings.h).  A file of its own, at the bottom of
 *	  the room: the planner and the probe read the settings, and the hooks
 *	  that call them define the settings, so the variables live in neither.
 */
#include "settings.h"

#include "../../core/bf_runtime.h"

#include "utils/guc.h"

bool bloom_rf_enabled = true;
bool bloom_rf_forced = false;
int bloom_rf_ship_max_kb = 4096;
int bloom_rf_max_size_kb = (int) (BF_RF_MAX_BYTES / 1024);
bool bloom_rf_skip_costing = true;

size_t
bloom_rf_max_bytes(void)
{
	return (size_t) bloom_rf_max_size_kb * 1024;
}

void
bloom_rf_define_settings(void)
{
	DefineCustomBoolVariable(
	    "bloomfilter.runtime_filter",
	    "Adds Bloom filters built from hash joins' inner sides to their outer sides.",
	    "Where the planner's estimates say a filter pays, the join keys of the inner side "
	    "are collected in a Bloom filter while the hash table is built, and outer rows "
	    "whose keys it does not hold are dropped as low in the plan as is correct.",
	    &bloom_rf_enabled, true, PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable(
	    "bloomfilter.runtime_filter_force",
	    "Adds a runtime filter to every hash join that can take one, whatever the estimates.",
	    "For testing: the filters' correctness does not depend on the cost model, and this "
	    "puts them into plans the model would leave alone.  Their probes pause only where "
	    "they remove less than a quarter of the rows, and a scan that can read the keys' "
	    "rows through a B-tree index reads them so.",
	    &bloom_rf_forced, false, PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomIntVariable(
	    "bloomfilter.runtime_filter_ship_max",
	    "The largest runtime filter sent to a postgres_fdw server with the remote query.",
	    "A filter travels in hex, twice its size, once per remote query.  A larger one is "
	    "not sent: the remote side sends every row, and the local probe filters them.  "
	    "0 sends none.",
	    &bloom_rf_ship_max_kb, 4096, 0, (int) (BF_RF_MAX_BYTES / 1024), PGC_USERSET, GUC_UNIT_KB,
	    NULL, NULL, NULL);
	DefineCustomIntVariable(
	    "bloomfilter.runtime_filter_max_size", "The largest runtime filter, per hash join.",
	    "A filter is sized for the inner rows at a 1% false-positive rate, up to this size: "
	    "16MB holds about 13 million keys, 64kB about 53,000.  The planner plans no filter "
	    "for more inner rows than this holds; a filter that ends up too full to remove rows "
	    "is not probed, and not sent to remote servers.",
	    &bloom_rf_max_size_kb, (int) (BF_RF_MAX_BYTES / 1024), (int) (BF_RF_MIN_MAX_BYTES / 1024),
	    (int) (BF_RF_MAX_BYTES / 1024), PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomBoolVariable(
	    "bloomfilter.runtime_filter_skip_costing",
	    "Lets the planner's join search price the partitions, block ranges and B-tree reads "
	    "that a hash join's keys will skip.",
	    "Where a filtered table is hashed and the other side of the join is partitioned, "
	    "BRIN-indexed or B-tree-indexed on the join key, the planner is offered a hash join "
	    "whose outer side costs only what the keys are expected to let it read, and picks it "
	    "when it is cheaper; EXPLAIN shows the expectation.  Off: plans are chosen as "
	    "PostgreSQL chooses them, and runtime filters are added to them as before.  Has no "
	    "effect while bloomfilter.runtime_filter is off.",
	    &bloom_rf_skip_costing, true, PGC_USERSET, 0, NULL, NULL, NULL);
}
