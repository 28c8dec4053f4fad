/*
 * runtime.h
 *	  Runtime Bloom filters inside PostgreSQL's hash joins: the door of the
 *	  room, for the module's _PG_init.
 *
 * With bloomfilter.runtime_filter on, the planner hook looks at every hash
 * join of a finished plan.  Where a filter is expected to pay, it puts two
 * custom scan nodes into the plan:
 *
 *	 Hash Join                           the join the filter serves
 *	   ->  BloomFilterProbe              drops outer rows whose keys the
 *	         ->  ... (outer side)        filter does not hold; as low in the
 *	                                     outer side as is correct
 *	   ->  Hash
 *	         ->  BloomFilterBuild        adds the key of every inner row
 *	               ->  ... (inner side)  as the Hash node reads them
 *
 * Both nodes pass their child's tuples through unchanged.  They hash the keys
 * with the join operators' own hash functions and collations (the left one
 * on the outer side, the right one on the inner side), combined as the hash
 * join combines them, so a row that the join would match always passes:
 * the filter has no false negatives.  A filter also decides what is not read
 * at all: a partition whose bounds hold no built key, the BRIN block ranges
 * that hold none, every row but the keys' through a B-tree (a
 * BloomFilterScan in place of a Seq Scan); and it is shipped into
 * postgres_fdw scans.  A hash join whose inner side reads a whole table
 * with a bloomfilter index on the key takes its filter from the index.
 *
 * The rooms, lowest first (ARCHITECTURE.md draws the way a plan goes
 * through them).  Each folder has one header, the only one the others
 * include; a room calls only the rooms below it (tests/unit/check_rooms.sh):
 *
 *	 settings.h, private.h, cost.h   the five settings; what the planner tells
 *	                                 each node (custom_private, make/read pairs);
 *	                                 the cost model, every estimate it reads
 *	 values/values.h   the build's key values, and a shared build's merged
 *	 filter/filter.h   the filter (opaque; shared under a Parallel Hash Join),
 *	                   the keys hashed as the join hashes them, the build stamp
 *	 skip/skip.h       partitions, BRIN block ranges, B-tree keys: what a build
 *	                   lets a scan not read
 *	 ship/ship.h       postgres_fdw: the filter in the remote query
 *	 exec/exec.h       the nodes (never calls paths/ or plan/)
 *	 paths/paths.h     the join search: a hash join priced at what its keys
 *	                   will let a partitioned outer side skip
 *	 plan/plan.h       which joins get a filter, where its nodes go
 *	 hooks.c           the door's side: the hooks, node registration, and
 *	                   the wiring of filters to nodes at executor start
 *	 status.c          ... and whether filters are active in a session
 *	                   (bloom_runtime_status), CREATE EXTENSION's advice
 *
 * From the rest of the PostgreSQL layer the room uses only bloom_error.h
 * and the index room's door, src/index/source.h.  Every function it exports
 * is named bloom_rf_*; its types Runtime*.
 */
#ifndef BLOOM_RUNTIME_H
#define BLOOM_RUNTIME_H

/* Define the settings, register the nodes, install the hooks (from _PG_init). */
extern void bloom_rf_module_init(void);

/*
 * Record how the library was loaded into this process, for
 * bloom_runtime_status (status.c; from bloom_rf_module_init, in _PG_init).
 */
extern void bloom_rf_status_loaded(void);

#endif /* BLOOM_RUNTIME_H */
