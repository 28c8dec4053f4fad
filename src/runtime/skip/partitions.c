/*
 * partitions.c
 *	  Skipping the scan of a partition that can hold no key of the build:
 *	  the partition's bounds against the build's key values (filter/values.c)
 *	  and its Bloom filter.
 *
 * The scan of a partition (a BloomFilterScan in place of a Seq Scan,
 * exec/scan.c; a probe right above any other scan, exec/probe.c) asks, once the
 * build is finished and before it reads a row, whether the partition may
 * hold a row that matches; if not, it returns no row and reads nothing of
 * the table.  Every level of the partition's ancestors is asked (a
 * sub-partition's rows lie within its parent's bounds too), and one level
 * that rules out every key is enough:
 *	 - range: the level's first partition column is a key: the build's
 *	   values against the partition's bounds on that column (lower <= v <
 *	   upper; <= upper for a key of several columns, whose first column may
 *	   reach its upper bound);
 *	 - list: each listed value against the build's values, or, past
 *	   BLOOM_RF_EXACT_MAX distinct values, against their range and the Bloom
 *	   filter (a join on one key, where the partition's collation keeps a
 *	   listed value's bytes); the NULL value matches nothing;
 *	 - hash: every partition column is a key and the build's distinct values
 *	   are all kept: the partition each combination hashes to;
 *	 - the default partition of a range level on one column or of a list
 *	   level: only when some built key falls outside every other partition
 *	   (a range gap; a value no partition lists);
 *	 - NULL keys: the join's operators are strict, so they match nothing.
 *
 * A level is used only when the partition column is the key itself (not an
 * expression) with the join's semantics: the join operator is in the
 * partition's operator family (so "equal" is the same, across types too,
 * int8 = int4), and the join's collation is the partition's or
 * deterministic (equal values are then the same bytes, which any collation
 * places alike).  A comparison (range, list) or hash (hash) support
 * function between the key's type and the partition's must exist in that
 * family.  The least and greatest built values are used only where the
 * partition orders values as the build did (same family and collation).
 *
 * The partition's bounds are read at each decision from the partitioned
 * table's descriptor without detached partitions, so that a partition being
 * detached counts as a gap: the default partition is then scanned.
 *
 * The planner's part (which scans read a partition, its ancestry) is
 * lineage.c, which asks bloom_rf_partition_decidable here.  The decision,
 * its counts and its EXPLAIN lines are the same for a probe and for a
 * BloomFilterScan (RuntimePartitionSkip); each decides once per build
 * (RuntimeBuildStamp).
 */
#include "skip.h"
#include "../private.h"

#include "access/hash.h"
#include "access/nbtree.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/partcache.h"
#include "utils/rel.h"

#include BLOOM_EXPLAIN_STATE_H
#include BLOOM_EXPLAIN_FORMAT_H

/* combinations of distinct values hashed for a hash partition of several columns, at most */
#define MAX_HASH_COMBINATIONS 4096

/* What one level tells of the keys: which key each partition column is, or -1. */
typedef struct Level
{
	Relation parent;
	PartitionKey key;
	int keymap[PARTITION_MAX_KEYS];
	bool usable; /* the level's strategy can be decided by the keys it maps */
} Level;

static char **key_names(Oid relid, const AttrNumber *attnos, int nkeys);
static bool level_init(Level *level, Oid child, Oid parent, char **names, int nkeys,
                       List *operators, List *collations, const Oid *orders);
static bool level_may_hold(Level *level, Oid child, RuntimeFilter *filter, RuntimePartitionSkip *s);
static bool range_may_hold(Level *level, PartitionBoundInfo bi, int index, const RuntimeValues *v,
                           List *operators);
static bool list_may_hold(Level *level, PartitionBoundInfo bi, int index, RuntimeFilter *filter,
                          RuntimePartitionSkip *s);
static bool hash_may_hold(Level *level, PartitionBoundInfo bi, int index, const RuntimeValues *v,
                          List *operators);

bool
bloom_rf_partition_decidable(List *partition, const AttrNumber *attnos, const RuntimeJoinKeys *keys)
{
	char **names = key_names(linitial_oid(partition), attnos, keys->nkeys);

	for (int l = 0; l + 1 < list_length(partition); l++)
	{
		Level level;
		bool usable =
		    level_init(&level, list_nth_oid(partition, l), list_nth_oid(partition, l + 1), names,
		               keys->nkeys, keys->operators, keys->collations, keys->orders);

		table_close(level.parent, NoLock);
		if (usable)
			return true;
	}
	return false;
}

void
bloom_rf_partition_skip_init(RuntimePartitionSkip *s, List *partition, List *attnos,
                             List *operators, List *collations)
{
	Assert(list_length(partition) >= 2 && list_length(attnos) == list_length(operators));
	memset(s, 0, sizeof(*s));
	s->partition = partition;
	s->attnos = bloom_rf_private_attnos(attnos);
	s->operators = operators;
	s->collations = collations;
	if (list_length(operators) == 1)
	{
		Oid left_fn, right_fn;

		if (!get_op_hash_functions(linitial_oid(operators), &left_fn, &right_fn))
			elog(ERROR, "could not find hash function for hash operator %u",
			     linitial_oid(operators));
		fmgr_info(left_fn, &s->outer_fn);
		s->outer_collation = linitial_oid(collations);
		s->have_outer = true;
	}
}

bool
bloom_rf_partition_skip_decide(RuntimePartitionSkip *s, RuntimeFilter *f)
{
	const RuntimeValues *v = bloom_rf_filter_values(f);
	MemoryContext old;
	Oid *orders;
	char **names;
	bool may = true;

	Assert(v != NULL && v->finished && (!s->have_outer || v->nkeys == 1));
	/* what a decision allocates (names, the orders) goes when it is taken */
	if (s->scratch == NULL)
		s->scratch = AllocSetContextCreate(CurrentMemoryContext, "bloomfilter partition skip",
		                                   ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(s->scratch);
	orders = palloc(v->nkeys * sizeof(Oid));
	names = key_names(linitial_oid(s->partition), s->attnos, v->nkeys);
	for (int i = 0; i < v->nkeys; i++)
		orders[i] = v->keys[i].family;
	for (int l = 0; may && l + 1 < list_length(s->partition); l++)
	{
		Oid child = list_nth_oid(s->partition, l);
		Level level;

		if (level_init(&level, child, list_nth_oid(s->partition, l + 1), names, v->nkeys,
		               s->operators, s->collations, orders))
			may = level_may_hold(&level, child, f, s);
		table_close(level.parent, NoLock);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(s->scratch);
	s->checked++;
	if (!may)
		s->skips++;
	bloom_rf_filter_note_scan(f, !may);
	return !may;
}

void
bloom_rf_explain_skip_test(List *partition, ExplainState *es)
{
	if (partition != NIL && es->verbose)
		ExplainPropertyText("Skip Test", "partition bounds", es);
}

void
bloom_rf_explain_scans_skipped(uint64 skipped, uint64 checked, ExplainState *es)
{
	if (checked > 0)
		ExplainPropertyText("Partition Scans Skipped",
		                    psprintf(UINT64_FORMAT " of " UINT64_FORMAT, skipped, checked), es);
}

/*
 * The names of the keys' columns (attnos) in the scanned partition relid,
 * NULL for none.  Columns are matched by name up the levels: a column's
 * name is the same in every partition, its number may not be.
 */
static char **
key_names(Oid relid, const AttrNumber *attnos, int nkeys)
{
	char **names = palloc0(nkeys * sizeof(char *));

	for (int i = 0; i < nkeys; i++)
		if (attnos[i] != InvalidAttrNumber)
			names[i] = get_attname(relid, attnos[i], true);
	return names;
}

/*
 * Open child's parent (parent) and map its partition columns to the keys
 * (names: the keys' columns, key_names).  Returns whether the level can be decided by
 * them.  The parent is locked as a reader until the transaction ends: the
 * query locks it already when it is in its range table, but not when the
 * query names a partition below it.
 */
static bool
level_init(Level *level, Oid child, Oid parent, char **names, int nkeys, List *operators,
           List *collations, const Oid *orders)
{
	PartitionKey key;
	int mapped = 0;

	level->parent = table_open(parent, AccessShareLock);
	level->key = key = RelationGetPartitionKey(level->parent);
	level->usable = false;
	for (int j = 0; j < key->partnatts; j++)
	{
		bool hash = key->strategy == PARTITION_STRATEGY_HASH;

		level->keymap[j] = -1;
		if (key->partattrs[j] == 0)
			continue; /* an expression */
		for (int i = 0; i < nkeys; i++)
		{
			Oid opno = list_nth_oid(operators, i);
			Oid collation = list_nth_oid(collations, i);
			Oid left, right;

			if (names[i] == NULL || !OidIsValid(orders[i]) ||
			    get_attnum(parent, names[i]) != key->partattrs[j])
				continue;
			if (!op_in_opfamily(opno, key->partopfamily[j]))
				continue;
			if (OidIsValid(collation) && collation != key->partcollation[j] &&
			    !get_collation_isdeterministic(collation))
				continue;
			op_input_types(opno, &left, &right);
			if (!OidIsValid(get_opfamily_proc(key->partopfamily[j], right,
			                                  hash ? right : key->partopcintype[j],
			                                  hash ? HASHEXTENDED_PROC : BTORDER_PROC)))
				continue;
			level->keymap[j] = i;
			mapped++;
			break;
		}
	}
	switch (key->strategy)
	{
		case PARTITION_STRATEGY_RANGE:
		case PARTITION_STRATEGY_LIST:
			level->usable = level->keymap[0] >= 0;
			break;
		case PARTITION_STRATEGY_HASH:
			level->usable = mapped == key->partnatts;
			break;
	}
	return level->usable;
}

static bool
level_may_hold(Level *level, Oid child, RuntimeFilter *filter, RuntimePartitionSkip *s)
{
	PartitionDesc desc = RelationGetPartitionDesc(level->parent, true);
	PartitionBoundInfo bi = desc->boundinfo;
	int index = -1;

	for (int k = 0; k < desc->nparts; k++)
		if (desc->oids[k] == child)
			index = k;
	if (index < 0 || bi == NULL)
		return true; /* being detached: not one of the level's partitions now */
	switch (level->key->strategy)
	{
		case PARTITION_STRATEGY_RANGE:
			return range_may_hold(level, bi, index, bloom_rf_filter_values(filter), s->operators);
		case PARTITION_STRATEGY_LIST:
			return list_may_hold(level, bi, index, filter, s);
		case PARTITION_STRATEGY_HASH:
			return hash_may_hold(level, bi, index, bloom_rf_filter_values(filter), s->operators);
	}
	return true;
}

/*
 * The comparison function between key i's values and partition column j's,
 * and whether the build ordered its values the same way.
 */
static void
column_compare(Level *level, int j, const RuntimeValues *v, List *operators, FmgrInfo *cmp,
               bool *same_order)
{
	int i = level->keymap[j];
	Oid left, right;

	op_input_types(list_nth_oid(operators, i), &left, &right);
	fmgr_info(get_opfamily_proc(level->key->partopfamily[j], right, level->key->partopcintype[j],
	                            BTORDER_PROC),
	          cmp);
	*same_order = v->keys[i].family == level->key->partopfamily[j] &&
	              v->keys[i].collation == level->key->partcollation[j];
}

/* A range bound's first column, or NULL where it is unbounded (MINVALUE, MAXVALUE). */
static const Datum *
range_bound(PartitionBoundInfo bi, int b)
{
	if (b < 0 || b >= bi->ndatums || bi->kind[b][0] != PARTITION_RANGE_DATUM_VALUE)
		return NULL;
	return &bi->datums[b][0];
}

static bool
range_may_hold(Level *level, PartitionBoundInfo bi, int index, const RuntimeValues *v,
               List *operators)
{
	int i = level->keymap[0];
	bool several = level->key->partnatts > 1;
	FmgrInfo cmp;
	bool same_order;

	column_compare(level, 0, v, operators, &cmp, &same_order);
	if (index == bi->default_index)
	{
		/* the gaps between the other partitions: below the first bound, above the last, holes */
		if (several)
			return true;
		if (bi->ndatums == 0)
		{
			/* the default partition alone (or with partitions being detached): any key */
			return bloom_rf_values_between(v, i, &cmp, level->key->partcollation[0], same_order,
			                               NULL, NULL, false);
		}
		for (int b = 0; b <= bi->ndatums; b++)
		{
			if (b < bi->ndatums && bi->indexes[b] >= 0)
				continue;
			if (b == 0 && bi->kind[0][0] == PARTITION_RANGE_DATUM_MINVALUE)
				continue;
			if (b == bi->ndatums && bi->kind[b - 1][0] == PARTITION_RANGE_DATUM_MAXVALUE)
				continue;
			if (bloom_rf_values_between(v, i, &cmp, level->key->partcollation[0], same_order,
			                            b > 0 ? range_bound(bi, b - 1) : NULL,
			                            b < bi->ndatums ? range_bound(bi, b) : NULL, false))
				return true;
		}
		return false;
	}
	for (int b = 1; b < bi->ndatums; b++)
		if (bi->indexes[b] == index)
			return bloom_rf_values_between(v, i, &cmp, level->key->partcollation[0], same_order,
			                               range_bound(bi, b - 1), range_bound(bi, b), several);
	return true;
}

static bool
list_may_hold(Level *level, PartitionBoundInfo bi, int index, RuntimeFilter *filter,
              RuntimePartitionSkip *s)
{
	const bf_view *view;
	RuntimeBuildStamp now;
	const RuntimeValues *v = bloom_rf_filter_values(filter);
	List *operators = s->operators;
	int i = level->keymap[0];
	Oid collation = level->key->partcollation[0];
	FmgrInfo cmp;
	bool same_order;

	column_compare(level, 0, v, operators, &cmp, &same_order);
	if (index == bi->default_index)
	{
		/* some key listed by no partition */
		const RuntimeKeyValues *k = &v->keys[i];

		if (!bloom_rf_values_exact(v, i))
			return true;
		for (int e = 0; e < k->nexact; e++)
		{
			bool listed = false;

			CHECK_FOR_INTERRUPTS();
			for (int b = 0; b < bi->ndatums && !listed; b++)
				listed = DatumGetInt32(FunctionCall2Coll(&cmp, collation, k->exact[e],
				                                         bi->datums[b][0])) == 0;
			if (!listed)
				return true;
		}
		return false;
	}
	for (int b = 0; b < bi->ndatums; b++)
	{
		Datum value = bi->datums[b][0];

		if (bi->indexes[b] != index ||
		    !bloom_rf_values_between(v, i, &cmp, collation, same_order, &value, &value, true))
			continue;
		if (bloom_rf_values_exact(v, i))
			return true;
		/*
		 * Past the distinct values: the filter says whether value may be a
		 * key, if the values this partition holds for it are the bytes of
		 * value (the partition's collation is deterministic, or the join's):
		 * under a case-insensitive partition collation, 'A' also lists 'a',
		 * whose hash differs.
		 */
		if (!s->have_outer ||
		    (OidIsValid(collation) && collation != s->outer_collation &&
		     !get_collation_isdeterministic(collation)) ||
		    (view = bloom_rf_filter_usable(filter, &now)) == NULL ||
		    bloom_rf_view_may_contain(
		        view, DatumGetUInt32(FunctionCall1Coll(&s->outer_fn, s->outer_collation, value))))
			return true;
	}
	return false; /* none of its values (NULL matches nothing) */
}

static bool
hash_may_hold(Level *level, PartitionBoundInfo bi, int index, const RuntimeValues *v,
              List *operators)
{
	PartitionKey key = level->key;
	int n = key->partnatts;
	FmgrInfo fns[PARTITION_MAX_KEYS];
	Datum values[PARTITION_MAX_KEYS];
	bool isnull[PARTITION_MAX_KEYS] = {0};
	int at[PARTITION_MAX_KEYS] = {0};
	int greatest_modulus = get_hash_partition_greatest_modulus(bi);
	double combinations = 1;

	for (int j = 0; j < n; j++)
	{
		int i = level->keymap[j];
		Oid left, right;

		if (!bloom_rf_values_exact(v, i))
			return true;
		combinations *= v->keys[i].nexact;
		op_input_types(list_nth_oid(operators, i), &left, &right);
		fmgr_info(get_opfamily_proc(key->partopfamily[j], right, right, HASHEXTENDED_PROC),
		          &fns[j]);
	}
	if (combinations == 0)
		return false;
	if (combinations > MAX_HASH_COMBINATIONS)
		return true;
	/* every combination of the columns' values, as an odometer */
	for (;;)
	{
		uint64 hash;
		int j;

		for (j = 0; j < n; j++)
			values[j] = v->keys[level->keymap[j]].exact[at[j]];
		hash = compute_partition_hash_value(n, fns, key->partcollation, values, isnull);
		if (bi->indexes[hash % greatest_modulus] == index)
			return true;
		for (j = 0; j < n; j++)
		{
			if (++at[j] < v->keys[level->keymap[j]].nexact)
				break;
			at[j] = 0;
		}
		if (j == n)
			return false;
	}
}
