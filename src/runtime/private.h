/*
 * private.h
 *	  What the planner tells the runtime filters' three nodes: the layouts
 *	  of their custom_private lists, written and read only by private.c,
 *	  one make/read pair per node (as TimescaleDB's chunk_append keeps its
 *	  CAP_* indexes and their readers in one place).
 *
 * A plan is copied to parallel workers as text, so custom_private holds
 * nodes only: Integers, OidLists, IntLists, a String, and Floats as float8
 * Consts (no printing and parsing of numbers).  A plan over many partitions
 * has one node of ours per partition: each layout keeps its allocations
 * few.
 *
 * Each node stores only what it reads, and is made once its values are
 * final: the probes are placed before the filter is shipped and before the
 * build is made, so what only the build reads (the remote parameter,
 * whether to keep key values) is in the build's layout alone, and the
 * build is made last (plan/plan.c).  Nothing is written into a list once
 * it is made.
 *
 * custom_exprs of a build or probe holds the keys: expressions over the
 * child's output (Vars with varno OUTER_VAR), one per hash clause of the
 * join, in the join's order.
 */
#ifndef BLOOM_RT_PRIVATE_H
#define BLOOM_RT_PRIVATE_H

#include "postgres.h"

#include "access/attnum.h"
#include "nodes/pg_list.h"

/* What both a build and a probe are told: the head of both layouts. */
typedef struct RuntimeNodeHead
{
	int id;           /* the filter's number in the statement */
	List *operators;  /* OidList: the join's hash operators */
	List *collations; /* OidList: their collations */
} RuntimeNodeHead;

/*
 * What the join search priced a hash join's outer side at, for the skipping
 * its build's keys were expected to allow (paths/): carried by the marker
 * path's plan, then by the filter's build, for EXPLAIN.
 */
typedef enum RuntimePlannedKind
{
	PLANNED_NONE,       /* the join was not chosen for a skip */
	PLANNED_PARTITIONS, /* partitions skipped */
	PLANNED_BLOCKS,     /* block ranges skipped, by a BRIN index */
	PLANNED_KEYS,       /* only the keys' rows read, through a B-tree */
} RuntimePlannedKind;

typedef struct RuntimePlannedSkip
{
	int kind;          /* RuntimePlannedKind */
	double scans_read; /* partition scans expected to read (blocks; keys looked up) */
	double scans;      /* of these (the table's blocks) */
	double rows;       /* rows expected read */
	double cost;       /* the outer side's cost, as priced */
	double cost_whole; /* its cost reading everything (PostgreSQL's) */
} RuntimePlannedSkip;

/* BloomFilterBuild's. */
typedef struct RuntimeBuildPrivate
{
	RuntimeNodeHead head;
	double outer_rows; /* the planner's estimates, for EXPLAIN */
	double inner_rows;
	double pass;                /* the fraction of outer rows expected to match */
	double shared_keys;         /* keys a shared filter (Parallel Hash) is sized for, else 0 */
	int remote_param;           /* the PARAM_EXEC shipping it to remote scans, or -1 */
	bool collect;               /* keep the build's key values (for skipping scans) */
	bool stretch;               /* and an integer key's stretches (for testing ranges of keys) */
	List *families;             /* OidList: each key's B-tree family (its order), or InvalidOid */
	Oid source_index;           /* the bloomfilter index the filter is taken from, or InvalidOid */
	int source_key;             /* the key it holds (0-based), or -1 */
	RuntimePlannedSkip planned; /* the skip the join was chosen for, if any */
} RuntimeBuildPrivate;

/* BloomFilterProbe's. */
typedef struct RuntimeProbePrivate
{
	RuntimeNodeHead head;
	double saved;            /* what removing an outer row saves, in probes */
	bool probe_rows;         /* probes rows; false: it only skips the scan below */
	bool fallback;           /* placed for the scan below, which may skip; its rows are
	                          * probed where the scan reads them after all */
	List *skip_lineage;      /* OidList: the scanned partition, then its ancestors, or NIL */
	List *skip_attnos;       /* IntList: the keys' columns in that partition, or NIL */
	const char *not_shipped; /* why the postgres_fdw scan below did not take the filter, or NULL */
} RuntimeProbePrivate;

/* BloomFilterScan's. */
typedef struct RuntimeScanPrivate
{
	int id;            /* the filter's number */
	Oid brin_index;    /* a BRIN index on a key, or InvalidOid */
	int brin_key;      /* its join key (its position among the join's keys) */
	AttrNumber column; /* the BRIN index column of that key (1-based) */
	Oid btree_index;   /* a B-tree led by a key, or InvalidOid */
	int btree_key;     /* its join key */
	bool heap;         /* the table is heap (its slots are buffer heap ones) */
	List *partition;   /* OidList: the partition, then its ancestors, or NIL */
	List *attnos;      /* IntList: the keys' columns in the partition, or NIL */
} RuntimeScanPrivate;

extern List *bloom_rf_private_make_build(const RuntimeBuildPrivate *p);
extern void bloom_rf_private_read_build(List *private, RuntimeBuildPrivate *p);

extern List *bloom_rf_private_make_probe(const RuntimeProbePrivate *p);
extern void bloom_rf_private_read_probe(List *private, RuntimeProbePrivate *p);

/* The head of a build's or a probe's list. */
extern void bloom_rf_private_read_head(List *private, RuntimeNodeHead *head);

/* A marker path's plan (paths/marker.c): the skip it was priced for. */
extern List *bloom_rf_private_make_planned(const RuntimePlannedSkip *p);
extern void bloom_rf_private_read_planned(List *private, RuntimePlannedSkip *p);

extern List *bloom_rf_private_make_scan(const RuntimeScanPrivate *p);
extern void bloom_rf_private_read_scan(List *private, RuntimeScanPrivate *p);
/* Whether a BloomFilterScan's table is heap (read before its state is made). */
extern bool bloom_rf_private_scan_heap(List *private);

/* An IntList of column numbers as an array, in the current memory context. */
extern AttrNumber *bloom_rf_private_attnos(List *attnos);

#endif /* BLOOM_RT_PRIVATE_H */
