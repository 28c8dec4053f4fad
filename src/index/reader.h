/*
 * reader.h
 *	  What the SQL functions that read a bloomfilter index share (amaccess.c):
 *	  opening an index for a caller who may read its keys, the indexes that
 *	  hold a partitioned index's keys, the predicate locks of SERIALIZABLE,
 *	  and the key under which what a call site learned stays true
 *	  (BloomIndexReadKey).  Used by amcontains.c and amsql.c only: the room's
 *	  other files write or hand on the filter, and include bloomindex.h.
 *
 * The visibility contract every reader keeps: a false answer ("certainly
 * absent") is given only if no row the caller's snapshot may see holds the
 * key, and only to a caller who may read the table's keys now (its current
 * user's privileges and row security, checked on every call whose key
 * differs from the last).  Under SERIALIZABLE, the read takes the predicate
 * lock a scan of the table would, so that a concurrent transaction that
 * inserts the key is a conflict, as it is for EXISTS.
 */
#ifndef BLOOM_INDEX_READER_H
#define BLOOM_INDEX_READER_H

#include "bloomindex.h"

#include "nodes/pg_list.h"

/*
 * What a call site's cached knowledge (the directory of each index, a copy
 * of its filter, the list of partitions' indexes, the privilege decision)
 * depends on.  While the key is equal, nothing it was learned from has
 * changed in a way the caller could see:
 *	 - completions: no transaction completed (the shared count that
 *	   ProcArrayEndTransaction increments as a commit becomes visible;
 *	   GetSnapshotData reuses a snapshot by it), so another session's keys,
 *	   layers, TRUNCATE, partitions attached, privileges granted or revoked
 *	   are as they were;
 *	 - local_changes, curcid, lxid: this backend added no key to any
 *	   bloomfilter index (bloom_index_local_changes: every add, whether it
 *	   set a bit or not, however the command id moved: a volatile function
 *	   or a trigger of an INSERT sees the INSERT's later rows under one
 *	   command id), and this transaction's command is the same;
 *	 - invalidations: this backend took in no catalog invalidation
 *	   (SharedInvalidMessageCounter: a REVOKE or a policy is seen once its
 *	   messages are taken in, by a revalidation, which takes them in first,
 *	   or by anything else the backend does, even if its commit was counted
 *	   before its messages arrived);
 *	 - user, row_security: the privileges asked for are the same user's
 *	   (GetUserId(): a SECURITY DEFINER frame, SET ROLE and SET SESSION
 *	   AUTHORIZATION change it) under the same row_security setting.
 */
typedef struct BloomIndexReadKey
{
	uint64 completions;
	uint64 local_changes;
	uint64 invalidations;
	CommandId curcid;
	LocalTransactionId lxid;
	Oid user;
	bool row_security;
} BloomIndexReadKey;

/*
 * The key now, in *key, after taking in the invalidations that have arrived
 * if take_in (a revalidation: what it then checks is as fresh as the key;
 * a call that only compares keys takes in nothing, which would cost it a
 * tenth of a probe); false where no key holds (during recovery, where a
 * standby's snapshots follow replay, not that count: nothing may be kept
 * across calls then).
 */
extern bool bloom_index_read_key(BloomIndexReadKey *key, bool take_in);

extern bool bloom_index_read_key_equal(const BloomIndexReadKey *a, const BloomIndexReadKey *b);

/*
 * Open index for a reader of its keys, or raise: it does not exist (42P01),
 * is no bloomfilter index (42809), the current user may not read its keys
 * (42501: SELECT on the table or its indexed column, and no row-level
 * security applying: checked before any lock is taken, so that who may not
 * read cannot block the table), or it may lack keys (55000).  Returns it
 * opened with AccessShareLock, its table locked first; *table gets the
 * table.  With too_new, an index built over broken HOT chains after this
 * transaction's snapshot (which may lack the keys of rows it sees, until a
 * later snapshot) is no error: *too_new is set (and a caller that may
 * answer "maybe" answers that).
 */
extern Relation bloom_index_open_read(Oid indexoid, Oid *table, bool *too_new);

/*
 * The same for a partition's index, whose parent's the caller checked the
 * privileges of (as a query of a partitioned table checks only its own).
 */
extern Relation bloom_index_open_leaf(Oid indexoid, Oid *table, bool *too_new);

/*
 * The bloomfilter indexes that hold index's keys: itself, or, for a
 * partitioned index, its partitions' indexes (each opened and checked by
 * bloom_index_open_leaf, too_new passed on, in the current memory context),
 * as the catalog says now.  Raises 55000 if a partition that holds rows has
 * none.
 */
extern List *bloom_index_leaves(Relation index, bool *too_new);

/*
 * Under SERIALIZABLE, the predicate lock of a scan of the table of each
 * index in leaves (locked already), so that SSI sees the read; nothing in
 * other isolation levels.
 */
extern void bloom_index_lock_predicates(List *leaves);

#endif /* BLOOM_INDEX_READER_H */
