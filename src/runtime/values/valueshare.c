/*
 * valueshare.c
 *	  A build's key values flattened into shared memory, and the shares of
 *	  a Parallel Hash Join's build merged into one process's values
 *	  (shared.c).
 *
 * A share is written by the participant that read it, once its values are
 * finished, and read by every participant once every share is published.
 * Values are written as datumSerialize writes them; a key that kept its
 * distinct values gives each with its own hash, which the merge adds as a
 * row's key would be added (the merge keeps them exactly while there are no
 * more than BLOOM_RF_EXACT_MAX in all); a key past them gives its least and
 * greatest values and its stretches, which the merge widens its own by.
 * Every process merges the same shares in the same order into values made
 * with the same keys: they decide alike.
 *
 * The layout: int32 nkeys; then per key four flag bytes (any, overflow,
 * stretched, 0), int32 nexact, then [overflow] min and max, [else] nexact
 * times (uint32 hash, value), then [stretched] int32 n, n lower and n upper
 * ends (uint64).  Unaligned: every field is copied in and out.
 */
#include "values.h"

#include "utils/datum.h"

/* Write (or only count, out NULL) n bytes at *pos. */
static void
put(char **pos, const void *data, Size n, bool write)
{
	if (write)
		memcpy(*pos, data, n);
	*pos += n;
}

static void
put_datum(char **pos, const RuntimeKeyValues *k, Datum value, bool write)
{
	if (write)
		datumSerialize(value, false, k->typbyval, k->typlen, pos);
	else
		*pos += datumEstimateSpace(value, false, k->typbyval, k->typlen);
}

/* Walk v's values as the layout has them: writing at start, or counting from NULL. */
static Size
walk(const RuntimeValues *v, char *start, bool write)
{
	char *pos = start;
	int32 nkeys = v->nkeys;

	Assert(v->finished);
	put(&pos, &nkeys, sizeof(nkeys), write);
	for (int i = 0; i < v->nkeys; i++)
	{
		const RuntimeKeyValues *k = &v->keys[i];
		bool any = OidIsValid(k->family) && k->any;
		char flags[4] = {any, k->overflow, any && k->overflow && k->stretched, 0};
		int32 nexact = any && !k->overflow ? k->nexact : 0;

		put(&pos, flags, sizeof(flags), write);
		put(&pos, &nexact, sizeof(nexact), write);
		if (!any)
			continue;
		if (k->overflow)
		{
			put_datum(&pos, k, k->min, write);
			put_datum(&pos, k, k->max, write);
		}
		for (int e = 0; e < nexact; e++)
		{
			put(&pos, &k->hashes[e], sizeof(uint32), write);
			put_datum(&pos, k, k->exact[e], write);
		}
		if (flags[2])
		{
			int32 n = k->stretches.n;

			Assert(k->stretches.npending == 0);
			put(&pos, &n, sizeof(n), write);
			put(&pos, k->stretches.lo, n * sizeof(uint64), write);
			put(&pos, k->stretches.hi, n * sizeof(uint64), write);
		}
	}
	return (Size) (pos - start);
}

Size
bloom_rf_values_flat_size(const RuntimeValues *v)
{
	return walk(v, NULL, false);
}

void
bloom_rf_values_flatten(const RuntimeValues *v, char *buf, Size size)
{
	Size written PG_USED_FOR_ASSERTS_ONLY = walk(v, buf, true);

	Assert(written == size);
}

/* Read n bytes at *pos into data. */
static void
get(const char **pos, void *data, Size n)
{
	memcpy(data, *pos, n);
	*pos += n;
}

static Datum
get_datum(const char **pos)
{
	bool isnull;
	char *p = (char *) *pos;
	Datum value = datumRestore(&p, &isnull);

	Assert(!isnull);
	*pos = p;
	return value;
}

void
bloom_rf_values_add_flat(RuntimeValues *into, const char *buf, MemoryContext scratch)
{
	const char *pos = buf;
	MemoryContext old = MemoryContextSwitchTo(scratch);
	int32 nkeys;

	get(&pos, &nkeys, sizeof(nkeys));
	if (nkeys != into->nkeys)
		elog(ERROR, "bloomfilter: a share of a runtime filter's values has %d keys, not %d", nkeys,
		     into->nkeys);
	for (int i = 0; i < nkeys; i++)
	{
		char flags[4];
		int32 nexact;

		get(&pos, flags, sizeof(flags));
		get(&pos, &nexact, sizeof(nexact));
		if (!flags[0])
			continue;
		if (flags[1])
		{
			Datum min = get_datum(&pos);
			Datum max = get_datum(&pos);
			uint64 *lo = NULL, *hi = NULL;
			int32 n = 0;

			if (flags[2])
			{
				get(&pos, &n, sizeof(n));
				lo = palloc(Max(1, n) * sizeof(uint64));
				hi = palloc(Max(1, n) * sizeof(uint64));
				get(&pos, lo, n * sizeof(uint64));
				get(&pos, hi, n * sizeof(uint64));
			}
			bloom_rf_values_add_overflowed(into, i, min, max, lo, hi, n);
			continue;
		}
		for (int e = 0; e < nexact; e++)
		{
			uint32 hash;
			Datum value;

			get(&pos, &hash, sizeof(hash));
			value = get_datum(&pos);
			bloom_rf_values_add_key(into, i, value, hash);
		}
	}
	MemoryContextSwitchTo(old);
}
