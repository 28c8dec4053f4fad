/*
 * skip.h
 *	  The skipping room: what a finished build lets a scan on the join's
 *	  outer side not read at all.
 *
 *	 partitions.c  a partition whose bounds hold no built key: its scan returns nothing
 *	 lineage.c     the planner's part: a scanned partition and its ancestry
 *	 brinranges.c  the block ranges a BRIN index says may hold a built key
 *	 btreekeys.c   only the keys' rows, through a B-tree led by a key
 *
 * Each decides from the build's key values (filter/values.c) and gives its
 * own answer; the nodes that act on them are the exec room's (a probe
 * above a scan skips a partition; a BloomFilterScan does all three).  The
 * planner's part of partitions (bloom_rf_skip_target, lineage.c) is here
 * too, beside the rules it applies; the planner room calls it.  Above the filter room
 * and the cost model; it knows no node of ours.
 */
#ifndef BLOOM_RT_SKIP_H
#define BLOOM_RT_SKIP_H

#include "../filter/filter.h"

#include "access/skey.h"
#include "nodes/plannodes.h"
#include "storage/block.h"
#include "utils/relcache.h"
#include "utils/snapshot.h"

struct ExplainState;

/* ---- partitions (partitions.c, lineage.c) ---- */

/*
 * What the planner's part keeps across the scans of one statement: each
 * range table entry's appendrel parent and each partitioned table's
 * ancestry, worked out once (NULL until asked).
 */
typedef struct RuntimeLineages
{
	PlannedStmt *stmt; /* the statement: its range table and AppendRelInfos */
	Index *parents;    /* each range table entry's appendrel parent, or 0 */
	List **lineages;   /* each partitioned table's ancestry once worked out, or NIL */
	int nparents;      /* entries of both */
} RuntimeLineages;

/* What one filter's planning keeps: the partitioned table asked about last, and its answer. */
typedef struct RuntimeSkipMemo
{
	Oid last_parent;
	bool last_usable;
} RuntimeSkipMemo;

/*
 * The planner: whether plan, the node a probe would sit on (with neither
 * volatile functions nor subqueries: the caller checks), scans a partition
 * whose bounds, at some level of its partitioned ancestors, are on one of
 * the keys (cols: the keys' columns in plan's output) in a way the build's
 * values can decide (partitions.c's header); if so, *partition (the
 * partition's OID, then its ancestors', up to the root) and attnos (the
 * keys' columns in that partition, 0 for none) say where.
 */
extern bool bloom_rf_skip_target(Plan *plan, const AttrNumber *cols, const RuntimeJoinKeys *keys,
                                 RuntimeLineages *lineages, RuntimeSkipMemo *memo, List **partition,
                                 AttrNumber *attnos);

/*
 * Whether some level of partition's ancestry (the partition, then its
 * ancestors, up to the root) can be decided by the keys, in the
 * partition's columns attnos (0 for none): partitions.c's rules.
 */
extern bool bloom_rf_partition_decidable(List *partition, const AttrNumber *attnos,
                                         const RuntimeJoinKeys *keys);

/*
 * The executor: what a scan of one partition (a probe on it, or a
 * BloomFilterScan) needs to ask whether it may be skipped, and its counts.
 */
typedef struct RuntimePartitionSkip
{
	List *partition;       /* the partition, then its ancestors (the plan's) */
	AttrNumber *attnos;    /* the keys' columns in the partition */
	List *operators;       /* the join's */
	List *collations;      /* their collations */
	bool have_outer;       /* a join on one key: list values are probed in the filter with */
	FmgrInfo outer_fn;     /* the join's hash function for the outer side */
	Oid outer_collation;   /* and its collation */
	MemoryContext scratch; /* what a decision allocates, reset after each; made at the first */
	uint64 checked;        /* decisions taken, and skips, for EXPLAIN */
	uint64 skips;
} RuntimePartitionSkip;

/*
 * Set up *s in the current (the query's) memory: partition and attnos (an
 * IntList) as the plan gives them, the join's operators and collations.
 */
extern void bloom_rf_partition_skip_init(RuntimePartitionSkip *s, List *partition, List *attnos,
                                         List *operators, List *collations);

/*
 * Whether the partition can hold no key of the build of filter f, which
 * is finished and keeps values (bloom_rf_filter_built first): false when
 * the bounds of some level of its partitioned ancestors hold no built key.
 * Counted here and in the filter (its build's EXPLAIN).  The caller decides
 * once per build (RuntimeBuildStamp).
 */
extern bool bloom_rf_partition_skip_decide(RuntimePartitionSkip *s, RuntimeFilter *f);

/* EXPLAIN (VERBOSE): the skip test of a scan of partition (the plan's; NIL: none). */
extern void bloom_rf_explain_skip_test(List *partition, struct ExplainState *es);

/* EXPLAIN ANALYZE: "Partition Scans Skipped: N of M", if any was asked. */
extern void bloom_rf_explain_scans_skipped(uint64 skipped, uint64 checked, struct ExplainState *es);

/* ---- BRIN block ranges (brinranges.c) ---- */

/* How a scan reads by a BRIN index's summaries. */
typedef enum RuntimeBrinChoice
{
	BRIN_READ_RUNS,  /* read only the runs of blocks that may hold a key (none: nothing) */
	BRIN_SMALL,      /* the whole table: no larger than two block ranges */
	BRIN_UNTESTABLE, /* the whole table: the index cannot test the keys */
	BRIN_MOST,       /* the whole table: most block ranges may hold a key */
	BRIN_CHOICES
} RuntimeBrinChoice;

/* Runs of consecutive blocks to read: [starts[i], ends[i]]. */
typedef struct RuntimeBlockRuns
{
	BlockNumber *starts;
	BlockNumber *ends;
	int nruns;
	int capacity;          /* of starts and ends */
	BlockNumber per_range; /* blocks of the index's ranges, which the runs are made of */
} RuntimeBlockRuns;

/*
 * Which runs of blocks of rel may hold a value of k (the build's values
 * of the key on BRIN index index_oid's column, compared by the join
 * operator opno), as the index says under snapshot; the runs are kept in
 * memory (as long as the scan).  Returns BRIN_READ_RUNS, or why the whole
 * table is read.
 */
extern RuntimeBrinChoice bloom_rf_brin_decide(Relation rel, Oid index_oid, AttrNumber column,
                                              Oid opno, const RuntimeKeyValues *k,
                                              Snapshot snapshot, MemoryContext memory,
                                              RuntimeBlockRuns *runs);

/* Why a choice reads the whole table, for EXPLAIN ("" for BRIN_READ_RUNS). */
extern const char *bloom_rf_brin_why(RuntimeBrinChoice choice);

/* ---- the keys' rows through a B-tree (btreekeys.c) ---- */

/* A BloomFilterScan's B-tree index and, once decided, its scan of the keys' rows. */
typedef struct RuntimeKeyScan
{
	Oid index_oid;         /* a B-tree whose leading column is a join key */
	MemoryContext context; /* the current decision's scan key and array of keys */
	bool have_key;         /* there is a key to look up */
	ScanKeyData key;       /* column = ANY(keys) */
	/* the array's element type and the "=" (set by a decision that kept every key) */
	bool can_look_up;
	/* and equal keys under the index's equality are equal under the join's (parallel buckets) */
	bool can_share;
	Oid keytype;
	int16 typlen;
	bool typbyval;
	char typalign;
	Oid index_collation;
	RegProcedure opcode;
	Datum *bucket_keys; /* a bucket's keys (bloom_rf_keyscan_bucket), in context */
	Relation index;     /* while scanning */
	struct IndexScanDescData *scan;
} RuntimeKeyScan;

typedef enum RuntimeKeyScanChoice
{
	KEYSCAN_READ,     /* read through the index (nothing, without have_key) */
	KEYSCAN_COSTLIER, /* reading the whole table costs less */
	KEYSCAN_TOO_MANY, /* more keys than are kept exactly */
	KEYSCAN_UNSHARED, /* a parallel scan, whose processes cannot share these keys out */
	KEYSCAN_CHOICES
} RuntimeKeyScanChoice;

/*
 * Whether the rows of k, the build's values of the index's key (the join
 * operator opno, under collation), are read through ks's index, which
 * costs less than reading heap; if so, ks's scan key is set.
 */
extern RuntimeKeyScanChoice bloom_rf_keyscan_decide(RuntimeKeyScan *ks, Relation heap,
                                                    const RuntimeKeyValues *k, Oid opno,
                                                    Oid collation);

/* Why a choice reads the whole table, for EXPLAIN ("" for KEYSCAN_READ). */
extern const char *bloom_rf_keyscan_why(RuntimeKeyScanChoice choice);

/* Start the index scan of the decided keys (have_key), under snapshot. */
extern void bloom_rf_keyscan_begin(RuntimeKeyScan *ks, Relation heap, Snapshot snapshot);

/*
 * Look up only the keys of k whose own hash (the join's) falls in bucket
 * (of nbuckets) instead: false if none does (the key is left as it was).
 * For a parallel scan, whose processes share the buckets out; after a
 * decision that kept every key (can_look_up), whatever it chose.
 */
extern bool bloom_rf_keyscan_bucket(RuntimeKeyScan *ks, const RuntimeKeyValues *k, uint32 nbuckets,
                                    uint32 bucket);

/* Start the scan again with the key as it is now (after bloom_rf_keyscan_bucket). */
extern void bloom_rf_keyscan_rescan(RuntimeKeyScan *ks);

/* End it, if started. */
extern void bloom_rf_keyscan_end(RuntimeKeyScan *ks);

#endif /* BLOOM_RT_SKIP_H */
