# tests/citus/cluster.sh: a throwaway Citus cluster on loopback -- a
# coordinator and two workers, each a server of PostgreSQL $citus_version
# running as postgres on a data folder under $citus_work -- for the Citus
# test and benchmark.  Source it, set citus_version (and citus_port, the
# coordinator's port; the workers take the next two), then call citus_start;
# citus_stop (also on EXIT) stops the servers and removes the folder.
# Needs Citus installed into that server (tests/citus/build.sh) and the
# extension installed.  citus_sql [NODE] runs psql on node 0 (coordinator),
# 1 or 2, reading SQL from standard input; citus_ms and citus_map_tasks
# measure and inspect statements on the coordinator.

citus_port=${citus_port:-56100}
citus_work=

citus_as_pg() { su postgres -s /bin/bash -c "$*"; }

citus_stop() {
	local n
	[ -n "$citus_work" ] || return 0
	for n in 0 1 2; do
		[ -d "$citus_work/node$n" ] &&
			citus_as_pg "/usr/lib/postgresql/$citus_version/bin/pg_ctl -D $citus_work/node$n -m immediate stop >/dev/null 2>&1" || true
	done
	rm -rf "$citus_work"
	citus_work=
}

# citus_start [SETTING=VALUE ...]: extra server settings for every node.
citus_start() {
	local bin=/usr/lib/postgresql/$citus_version/bin n opts setting
	citus_work=$(mktemp -d /tmp/bloom-citus.XXXXXX)
	chown postgres "$citus_work"
	trap citus_stop EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	for n in 0 1 2; do
		citus_as_pg "$bin/initdb -D $citus_work/node$n -A trust >/dev/null"
		opts="-p $((citus_port + n)) -k $citus_work -c listen_addresses=localhost"
		opts+=" -c shared_preload_libraries=citus -c jit=off -c max_connections=100"
		for setting in "$@"; do
			opts+=" -c $setting"
		done
		citus_as_pg "$bin/pg_ctl -D $citus_work/node$n -l $citus_work/node$n.log -w -o \"$opts\" start >/dev/null"
	done
	for n in 0 1 2; do
		citus_sql "$n" <<<"CREATE EXTENSION citus;" >/dev/null
	done
	citus_sql 0 >/dev/null <<SQL
SELECT citus_set_coordinator_host('localhost', $citus_port);
SELECT citus_add_node('localhost', $((citus_port + 1)));
SELECT citus_add_node('localhost', $((citus_port + 2)));
SQL
}

citus_sql() {
	local n=${1:-0}
	PGHOST=$citus_work PGPORT=$((citus_port + n)) PGUSER=postgres \
		psql -X -q -At -v ON_ERROR_STOP=1 -d postgres
}

# citus_ms SQL: the time of SQL's last statement in milliseconds (psql's
# \timing), in a new session on the coordinator; "error" if it failed.
citus_ms() {
	local t
	t=$(citus_sql 2>/dev/null <<SQL | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1
\\timing on
$1;
SQL
	)
	echo "${t:-error}"
}

# citus_map_tasks SQL: run SQL on the coordinator with repartition joins on
# and print the query of each repartition map task it sent to a worker
# (citus.log_remote_commands), one a line, quotes doubled as Citus sent them.
citus_map_tasks() {
	citus_sql 2>&1 >/dev/null <<SQL |
SET citus.enable_repartition_joins = on;
SET citus.log_remote_commands = on;
SET client_min_messages = notice;
$1;
SQL
		sed -n "s/.*worker_partition_query_result('[^']*','\(.*\)',[0-9]*,'hash'.*/\1/p" || true
}
