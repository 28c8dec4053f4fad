/*
 * cost.h
 *	  The runtime filters' cost model (cost.c), the one home of every
 *	  estimate it reads, as PostgreSQL's costsize.c owns every cost_*
 *	  function: at plan time, a filter on a hash join and our nodes; at run
 *	  time, a filter again once its hash table is built, and reading the
 *	  built keys' rows through a B-tree against reading the whole table.
 *
 * The formulas are the core's (core/bf_runtime.h); this room hands them the
 * planner's estimates and settings.  It is at the bottom of the runtime
 * filters' rooms: it knows no filter, plan information or node of ours.
 */
#ifndef BLOOM_RT_COST_H
#define BLOOM_RT_COST_H

#include "postgres.h"

#include "nodes/plannodes.h"
#include "utils/relcache.h"

/* What the cost model figures of a filter on one hash join (bloom_rf_cost_join). */
typedef struct RuntimeJoinCost
{
	double outer_rows;
	double inner_rows;
	double pass;        /* the fraction of outer rows expected to find a match */
	double table_bytes; /* the estimated size of the join's hash table */
	double saved;       /* what removing an outer row saves, in filter probes */
	double shared_keys; /* a Parallel Hash Join's shared filter is sized for these; else 0 */
	bool worthwhile;    /* the filter is expected to pay (or filters are forced) */
} RuntimeJoinCost;

/*
 * The cost figures of a filter on join (whose inner child is the Hash node
 * hash), and whether it is worthwhile, into *cost.
 */
extern void bloom_rf_cost_join(const HashJoin *join, const Hash *hash, RuntimeJoinCost *cost);

/* The cost and rows of a node of ours (probe or build) over child. */
extern void bloom_rf_cost_node(Plan *node, const Plan *child, int nkeys, double pass, bool probe);

/*
 * The price of a filter again, once its join's hash table is built with
 * table_bytes bytes: whether probing can pay at all, and if so what a
 * removed row saves (*saved).
 */
extern bool bloom_rf_cost_built_table(double table_bytes, double *saved);

/*
 * At run time: whether reading the rows of nkeys distinct key values keys
 * (at least one) through B-tree index on column attno of heap costs less
 * than reading the whole table.  opno is the join operator (column against
 * key), under collation; the keys are sorted in the order of B-tree family
 * family (InvalidOid: not sorted).  Fills *rows (expected), *by_index and
 * *whole (costs).
 */
extern bool bloom_rf_cost_keys_by_index(Relation heap, Relation index, AttrNumber attno,
                                        const Datum *keys, int nkeys, Oid opno, Oid family,
                                        Oid collation, double *rows, double *by_index,
                                        double *whole);

/*
 * At plan time: what reading the rows of nkeys keys (rows of them in all)
 * of table heap_oid through its B-tree index_oid costs, as a share of
 * reading the whole table, priced as the run time prices it (above); the
 * key column's correlation with the table's order as its statistics say.
 */
extern double bloom_rf_cost_keys_share(Oid heap_oid, Oid index_oid, double correlation,
                                       double nkeys, double rows);

#endif /* BLOOM_RT_COST_H */
