/*
 * keys.h
 *	  How a bloomfilter index hashes its keys (amkeys.c): as bloom_agg
 *	  hashes them, under the collation its column compares under.  Part of
 *	  the index's room: included by bloomindex.h, the room's header, after
 *	  what it needs (Relation, BloomHasher).
 */
#ifndef BLOOM_INDEX_KEYS_H
#define BLOOM_INDEX_KEYS_H

/* The support function of an operator class: the keys' hash function. */
#define BLOOM_INDEX_HASH_PROC 1

/*
 * The hasher of the index's column, which hashes as bloom_agg does, in the
 * current memory context; checks that the operator class's support
 * function is the one it uses (42P17).
 */
extern void bloom_index_hasher(Relation index, BloomHasher *hasher);

/* The same without raising: false if the operator class does not hash as bloom_agg does. */
extern bool bloom_index_try_hasher(Relation index, BloomHasher *hasher);

/*
 * The same, set up once per relcache entry (rd_amcache), copied into
 * *hasher, for inserts: with bloom_hasher_init_for_writes, so that an index
 * made before 1.12 on char(n) under a nondeterministic collation whose hash
 * counts trailing blanks takes keys as it did (its readers refuse it).
 */
extern void bloom_index_cached_hasher(Relation index, BloomHasher *hasher);

/*
 * Raise 42P21 if the index hashes under another collation than the
 * nondeterministic one its column compares under (its keys would hash
 * apart from values the column finds equal); building: the hint for CREATE.
 */
extern void bloom_index_check_collation(Relation index, bool building);

/*
 * Whether proc, an operator class's support function for type, hashes as
 * the type's default (hasher's), or is an earlier release's function that
 * does (pg_upgrade keeps those).
 */
extern bool bloom_index_hashes_as_default(Oid proc, Oid type, const BloomHasher *hasher);

#endif /* BLOOM_INDEX_KEYS_H */
