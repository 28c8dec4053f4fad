#!/usr/bin/env bash
# bench/tpch_kit.sh [SF]: runtime filters on real TPC-H, from the official kit
# (gregrahn/tpch-kit, vendored in ../shared/vendor): dbgen's data at scale
# factor SF (default 1) and qgen's 22 queries with the default substitution
# parameters, whose answers at scale factor 1 are the kit's dbgen/answers.
#
#   1. builds dbgen and qgen; generates the data once (cached with the kit
#      in $BLOOM_TPCH_CACHE, default /var/cache/bloomfilter/tpch);
#   2. loads it into a cluster of its own the usual way: the kit's dss.ddl,
#      primary keys, an index on every foreign-key column, VACUUM ANALYZE;
#      the loaded cluster is kept in the cache too, and reused;
#   3. checks every query's answer with the setting on and off against the
#      kit's answers (its check_answers/cmpq.pl, which allows the rounding
#      the TPC-H specification allows) -- at scale factor 1 only;
#   4. times every query at work_mem 4MB and 64MB, in one process and with
#      2 workers, 5 times per setting, alternating off and on
#      (bench/tpch_kit.sql), and compares the medians;
#   5. for every hash join without a filter, the planner's reason (its DEBUG1
#      line), and the joins where rows could be dropped early but are not.
#
# The server preloads bloomfilter (shared_preload_libraries), JIT off,
# shared_buffers 4GB.  Run as root from the repository, after `make install`
# against the host's PostgreSQL (bench/run.sh does it).  Output goes to
# standard output (bench/results/tpch_kit.txt is `bash bench/tpch_kit.sh >
# bench/results/tpch_kit.txt`).
# Knobs: BLOOM_TPCH_REPS (5), BLOOM_TPCH_QUERIES ("1 2 ... 22"),
# BLOOM_TPCH_CONFIGS ("4MB:0 4MB:2 64MB:0 64MB:2", work_mem:workers).
set -euo pipefail
cd "$(dirname "$0")/.."
. tools/lib.sh
top=$(pwd)
sf=${1:-1}
reps=${BLOOM_TPCH_REPS:-5}
queries=${BLOOM_TPCH_QUERIES:-$(seq -s ' ' 1 22)}
configs=${BLOOM_TPCH_CONFIGS:-4MB:0 4MB:2 64MB:0 64MB:2}
cache=${BLOOM_TPCH_CACHE:-/var/cache/bloomfilter/tpch}
bindir=$(/usr/lib/postgresql/15/bin/pg_config --bindir)
port=54499

# ---- 1. the kit and the data ----
tarball=$(ls "$top"/../shared/vendor/tpch-kit-*.tar.gz 2>/dev/null | head -n 1 || true)
[ -n "$tarball" ] || {
	echo "tpch_kit: no tpch-kit tarball in ../shared/vendor" >&2
	exit 1
}
kit=$cache/kit-$(basename "$tarball" .tar.gz)
if [ ! -x "$kit/dbgen/qgen" ]; then
	rm -rf "$kit" && mkdir -p "$kit"
	tar -C "$kit" --strip-components=1 -xzf "$tarball"
	make -s -C "$kit/dbgen" MACHINE=LINUX DATABASE=POSTGRESQL >/dev/null 2>&1
fi
data=$cache/data-sf$sf
if [ ! -f "$data/ready" ]; then
	echo "== dbgen: scale factor $sf into $data"
	rm -rf "$data" && mkdir -p "$data"
	(cd "$kit/dbgen" && ./dbgen -s "$sf" -f -b dists.dss >/dev/null 2>&1 && mv ./*.tbl "$data/")
	# each line ends with a '|' that COPY does not expect
	for f in "$data"/*.tbl; do sed -i 's/|$//' "$f"; done
	touch "$data/ready"
fi
chmod a+rX "$cache"
chmod -R a+rX "$kit" "$data"

# ---- the queries, as qgen writes them, made valid for PostgreSQL ----
qdir=$cache/queries-sf$sf
rm -rf "$qdir" && mkdir -p "$qdir"
for n in $(seq 1 22); do
	# qgen's templates put "limit N;" after the statement's ";" (-1: none),
	# and write interval '90' day (3), which PostgreSQL does not accept
	(cd "$kit/dbgen" && DSS_QUERY=queries ./qgen -s "$sf" -d "$n") |
		sed -e 's/day (3)/day/' -e '/^--/d' |
		perl -0pe 's/;\s*limit -1;/;/; s/;\s*limit (\d+);/\nlimit $1;/' >"$qdir/$n.sql"
done
chmod -R a+rX "$qdir"

# ---- 2. the cluster, loaded once ----
cluster=$cache/cluster-sf$sf
as_pg() { su postgres -s /bin/bash -c "$*"; }
stop() { as_pg "$bindir/pg_ctl -D $cluster -m fast stop >/dev/null 2>&1" || true; }
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ ! -f "$cluster/loaded" ]; then
	rm -rf "$cluster"
	mkdir -p "$cluster" && chown postgres "$cluster"
	as_pg "$bindir/initdb -D $cluster -A trust --no-sync >/dev/null"
fi
cat >"$cluster/postgresql.auto.conf" <<CONF
shared_preload_libraries = 'bloomfilter'
shared_buffers = '4GB'
jit = off
max_parallel_workers_per_gather = 2
max_worker_processes = 8
listen_addresses = ''
port = $port
unix_socket_directories = '$cluster'
CONF
chown postgres "$cluster/postgresql.auto.conf"
as_pg "$bindir/pg_ctl -D $cluster -l $cluster/server.log -w start >/dev/null"
psql_() { psql -X -q -h "$cluster" -p "$port" -U postgres -v ON_ERROR_STOP=1 "$@"; }
if [ ! -f "$cluster/loaded" ]; then
	t0=$(date +%s)
	echo "== loading scale factor $sf"
	psql_ -f "$kit/dbgen/dss.ddl" >/dev/null
	for t in region nation part supplier partsupp customer orders lineitem; do
		psql_ -c "COPY $t FROM '$data/$t.tbl' WITH (FORMAT text, DELIMITER '|')"
	done
	psql_ <<'SQL'
ALTER TABLE region ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);
ALTER TABLE part ADD PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
-- the foreign-key columns that no primary key leads with
CREATE INDEX ON nation (n_regionkey);
CREATE INDEX ON supplier (s_nationkey);
CREATE INDEX ON partsupp (ps_suppkey);
CREATE INDEX ON customer (c_nationkey);
CREATE INDEX ON orders (o_custkey);
CREATE INDEX ON lineitem (l_partkey, l_suppkey);
CREATE INDEX ON lineitem (l_suppkey);
VACUUM ANALYZE;
SQL
	touch "$cluster/loaded"
	echo "== loaded in $(($(date +%s) - t0)) s"
fi
psql_ -c "SELECT 'server ' || version()"

# Q15's view, as its template creates it (kept for the whole run)
perl -0ne 'print "$1;\n" if /(create view revenue0.*?);/s' "$qdir/15.sql" >"$qdir/15_view.sql"
perl -0ne 'print "$1\n" if /(select\s+s_suppkey.*?);/s' "$qdir/15.sql" >"$qdir/15_select.sql"
psql_ -c "DROP VIEW IF EXISTS revenue0" -f "$qdir/15_view.sql"

# query N's SELECT, without its final ";"
select_of() {
	if [ "$1" = 15 ]; then cat "$qdir/15_select.sql"; else perl -0pe 's/;\s*$/\n/' "$qdir/$1.sql"; fi
}

# ---- 3. the answers ----
if [ "$sf" = 1 ]; then
	echo "== answers against the kit's (dbgen/answers), the setting off and on"
	ans=$(mktemp -d)
	cp "$kit/dbgen/check_answers/cmpq.pl" "$kit/dbgen/check_answers/colprecision.txt" "$ans/"
	wrong=0
	for n in $queries; do
		for s in off on; do
			{
				echo "SET bloomfilter.runtime_filter = $s;"
				echo "SET max_parallel_workers_per_gather = 0;"
				select_of "$n"
				echo ";"
			} | psql_ -A -F '|' -P footer=off -f - >"$ans/q$n-$s.out"
			verdict=$(cd "$ans" && perl cmpq.pl "$n" "$kit/dbgen/answers/q$n.out" "q$n-$s.out" 2>&1 || true)
			if [ "$verdict" != "Query $n 0 unacceptable missmatches" ]; then
				wrong=$((wrong + 1))
				echo "q$n ($s): WRONG: ${verdict:-$(cat "$ans/analysis_$n.log")}"
			fi
		done
	done
	echo "answers: $((2 * $(echo "$queries" | wc -w) - wrong)) right, $wrong wrong"
	rm -rf "$ans"
fi

# ---- 4. timings, and 5. the joins without filters ----
{
	echo "CREATE TEMP TABLE tpch_queries (n int, q text);"
	for n in $queries; do
		echo "INSERT INTO tpch_queries VALUES ($n, \$q\$$(select_of "$n")\$q\$);"
	done
} >"$qdir/load_queries.sql"
PGOPTIONS="-c tpch.reps=$reps -c tpch.configs=${configs// /\\ }" psql_ -f "$qdir/load_queries.sql" -f bench/tpch_kit.sql

echo "== every hash join's decision, with the planner's estimates (DEBUG1; 64MB, one process and 2 workers)"
for workers in 0 2; do
	for n in $queries; do
		{
			echo "SET work_mem = '64MB'; SET max_parallel_workers_per_gather = $workers;"
			echo "SET client_min_messages = debug1;"
			echo "EXPLAIN"
			select_of "$n"
			echo ";"
		} | psql_ -f - 2>&1 >/dev/null | grep -o 'bloomfilter: .*' |
			sed -E "s/^bloomfilter: /q$n, $workers workers: /" || true
	done
done
