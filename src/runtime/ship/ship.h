/*
 * ship.h
 *	  The shipping room: runtime filters sent into postgres_fdw scans, so
 *	  that the remote server drops what cannot match before it crosses the
 *	  network.
 *
 *	 pushdown.c   which scans take a filter, and their remote query
 *	 remotekey.c  a key hashed on the remote side as the local probe hashes it
 *	 remote.c     the SQL functions the remote server runs
 *
 * The planner part (plan/placement.c) asks bloom_rf_remote_sql of a scan,
 * then ships with bloom_rf_push_remote; the build node (exec/build.c) puts
 * the finished filter in the parameter the scans read.  Above the filter
 * room (its RuntimeJoinKeys); it knows no plan information of the planner
 * room.
 */
#ifndef BLOOM_RT_SHIP_H
#define BLOOM_RT_SHIP_H

#include "../filter/filter.h"

#include "nodes/plannodes.h"

/* A filter's shipping, as the planner decides it. */
typedef struct RuntimeShipment
{
	bool may_push;    /* the join does not read an outer row before its filter is built */
	int remote_param; /* the PARAM_EXEC carrying it, once a scan takes it; else -1 */
	int pushed;       /* scans it was pushed into */
} RuntimeShipment;

/*
 * The remote query of scan, a foreign scan of one table whose output
 * columns cols are the join's keys, with the filter's test, or NULL if it
 * is not postgres_fdw's or its server or its keys do not allow it
 * (pushdown.c's header); then *why_not says why for a postgres_fdw scan,
 * for EXPLAIN (else NULL).  stmt is the statement (its range table).  No
 * side effect: callers may ask for several scans before shipping to any.
 */
extern char *bloom_rf_remote_sql(ForeignScan *scan, const AttrNumber *cols,
                                 const RuntimeJoinKeys *keys, const RuntimeShipment *ship,
                                 PlannedStmt *stmt, const char **why_not);

/*
 * Ship the filter into scan, whose remote query becomes sql
 * (bloom_rf_remote_sql's); the first scan adds the statement's parameter
 * that carries it (ship->remote_param).
 */
extern void bloom_rf_push_remote(ForeignScan *scan, char *sql, RuntimeShipment *ship,
                                 PlannedStmt *stmt);

/*
 * For a join whose filter was pushed, make sure the join does not read an
 * outer row (which opens the remote cursor) before its filter is built.
 */
extern void bloom_rf_push_hold_outer(HashJoin *join, const Hash *hash);

/*
 * remotekey.c: the remote SQL of a join key of a filter shipped into a
 * postgres_fdw scan: the local column var, col the remote column's SQL in
 * the filtering query, remote_type a scalar subquery of the remote
 * column's type's oid (read from the remote catalog), compared by the join
 * operator opno under collation.  *hash is its 32-bit hash as the local
 * probe computes it on the value postgres_fdw makes of the remote value;
 * *exact a condition under which it is that (false for remote types whose
 * value it does not rebuild: then the row must pass).  Returns NULL, or
 * why the key is not shipped (remotekey.c's header).
 */
extern const char *bloom_rf_remote_key(const Var *var, const char *col, const char *remote_type,
                                       Oid opno, Oid collation, char **hash, char **exact);

#endif /* BLOOM_RT_SHIP_H */
