/*
 * paths.h
 *	  The paths room: the join search prices what a hash join's keys will
 *	  let its outer side skip, so that PostgreSQL's own search picks the
 *	  join orders that skip.
 *
 *	 joinpaths.c  the set_join_pathlist_hook body: which joins, the hash
 *	              path it offers
 *	 keyrange.c   the inner side's keys: how many, and their least and
 *	              greatest values under its quals
 *	 keyprobe.c   or the keys themselves, read at plan time from a small
 *	              indexed dimension where the statistics cannot place them
 *	 keyquals.c   ... its quals that may run then, in the executor's order
 *	 partread.c   what of a partitioned outer side those keys let be read
 *	 tableread.c  what of a plain outer table: BRIN block ranges, or the
 *	              keys' rows through a B-tree
 *	 marker.c     the marker path wrapped around the outer side (its
 *	              plan is exec/'s BloomFilterCosted), and taking it out of
 *	              the finished plan
 *
 * For a join of a filtered base table (inner, hashed) to a partitioned
 * table keyed on the join column (outer), the outer path is wrapped in a
 * marker costing only the partitions the keys are expected to leave, and
 * a hash join over it is offered (add_path): where it is cheaper, it wins.
 * The marker is never added to the outer rel's own paths: only this hash
 * join earns its price.  After standard_planner the planner room's pass
 * (plan/plan.c) takes the marker out and gives the join a filter that
 * skips, with the expectation shown by EXPLAIN.  Above the exec room
 * (whose marker plan it makes) and below the planner room.
 */
#ifndef BLOOM_RT_PATHS_H
#define BLOOM_RT_PATHS_H

#include "../private.h"

#include "nodes/pathnodes.h"
#include "nodes/plannodes.h"

/* ---- the hook (joinpaths.c) ---- */

/* set_join_pathlist_hook's body (hooks.c chains it). */
extern void bloom_rf_paths_join(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
                                RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra);

/* ---- the inner side's keys (keyrange.c) ---- */

/* What the inner side's quals say of its join key's values. */
typedef struct RuntimeKeyRange
{
	double keys;       /* distinct keys expected (>= 1) */
	double inner_rows; /* the inner side's rows expected */
	bool has_lo;       /* every key is >= lo */
	bool has_hi;       /* every key is <= hi */
	Datum lo;          /* of the key's type, in the current memory */
	Datum hi;
	const char *source;   /* where the last bound came from, for DEBUG1 */
	bool from_statistics; /* a bound comes from the statistics, not from a qual on the key */
	/* read at plan time (keyprobe.c): every key within the outer side's bounds */
	bool probed;
	bool probed_default; /* keys beyond the bounds were not read: the default partition is read */
	int nvalues;
	Datum *values; /* sorted in the key's order, distinct */
	int nwithin;   /* the inner side's distinct keys within the bounds, its quals aside */
} RuntimeKeyRange;

/*
 * The keys of innerrel's column key (a Var of innerrel) under innerrel's
 * quals, bounded in the order of B-tree family family under collation
 * (the partitions', InvalidOid for a type without collations).
 */
extern void bloom_rf_key_range(PlannerInfo *root, RelOptInfo *innerrel, Var *key, Oid family,
                               Oid collation, RuntimeKeyRange *range);

/* var's correlation with its table's order (pg_stats), 0 if not known. */
extern double bloom_rf_column_correlation(PlannerInfo *root, Var *var);

/*
 * Read the keys of innerrel's column key (its quals run on its rows) that
 * lie within outerrel's partition bounds (a plain table: within the
 * histogram of its column outer_var), at plan time, into range (probed,
 * values), where that is cheap and safe (keyprobe.c's header); false if
 * not read.  family and collation: the keys' order (the partitions').
 */
extern bool bloom_rf_key_probe(PlannerInfo *root, RelOptInfo *innerrel, RelOptInfo *outerrel,
                               Var *outer_var, Var *key, Oid family, Oid collation,
                               RuntimeKeyRange *range);

/*
 * A planning begins (the planner hook, before PostgreSQL plans): the keys
 * read are kept until it ends (_end, with what _begin returned: the
 * enclosing planning's, when planning nests), on every exit path.
 */
extern List *bloom_rf_key_probes_begin(void);
extern void bloom_rf_key_probes_end(List *outer);

/*
 * innerrel's quals as keyprobe.c may run them at plan time (keyquals.c), in
 * the executor's order (createplan.c's order_qual_clauses: cheapest first,
 * ties as written), a custom plan's parameter values folded in; NIL if some
 * may not be run.  Folding may raise: call it where an error is caught.
 */
extern List *bloom_rf_plan_time_quals(PlannerInfo *root, RelOptInfo *innerrel);

/* ---- the outer side's read (partread.c) ---- */

/*
 * The cost of outer, a path of partitioned table outerrel whose single
 * partition column is partcol (0-based in its partition key), reading only
 * the partitions that may hold a key of range (compared by family's
 * comparison of the key's type to the column's, under collation), into
 * *planned; false if no estimate can be made.
 */
extern bool bloom_rf_partition_read(PlannerInfo *root, RelOptInfo *outerrel, Path *outer,
                                    const RuntimeKeyRange *range, Oid keytype, Oid family,
                                    Oid collation, RuntimePlannedSkip *planned);

/* ---- a plain outer table's read (tableread.c) ---- */

/*
 * The cost of outer, the cheapest path of plain table outerrel (a Seq
 * Scan), reading only the block ranges of a BRIN index on outer_var, or the
 * keys' rows through a B-tree led by it, that the keys of range (compared
 * by opno, outer_var's type on its left, in the order of B-tree family
 * family under collation) are expected to leave, into *planned; false if
 * no estimate says it costs less.
 */
extern bool bloom_rf_table_read(PlannerInfo *root, RelOptInfo *outerrel, Path *outer,
                                Var *outer_var, Oid opno, Oid family, Oid collation,
                                const RuntimeKeyRange *range, RuntimePlannedSkip *planned);

/* ---- the marker (marker.c) ---- */

/* A marker over outer (a path of outerrel), priced as planned says. */
extern Path *bloom_rf_marker_path(RelOptInfo *outerrel, Path *outer,
                                  const RuntimePlannedSkip *planned);

/*
 * If plan is a marker's plan, what replaces it (its child, or a Result
 * projecting the child's output to the marker's) and *planned; else NULL.
 */
extern Plan *bloom_rf_marker_take(Plan *plan, RuntimePlannedSkip *planned);

/* Whether plan is a marker's plan. */
extern bool bloom_rf_is_marker(const Plan *plan);

#endif /* BLOOM_RT_PATHS_H */
