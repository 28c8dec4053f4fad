#!/usr/bin/env bash
# tests/interop/run.sh "VERSIONS": other systems' filters against their
# makers themselves (issue 51), with the harness of ../shared/interop
# (copied to a work folder: that folder is read-only):
#   - Guava 31.1 (Debian's libguava-java, OpenJDK 17): longFunnel,
#     integerFunnel, stringFunnel(UTF_8), unencodedCharsFunnel;
#   - Apache Spark's sketch module (../shared/vendor/spark-sketch, compiled
#     here), versions 1 and 2: putLong, putString, putBinary;
#   - DuckDB (npm @duckdb/node-api, pinned by the harness's package.json):
#     Parquet files of BIGINT, INTEGER, DOUBLE, VARCHAR and BLOB columns
#     (the harness's parquet.mjs), and of SMALLINT, DATE, TIMESTAMP,
#     TIMESTAMPTZ, FLOAT and UUID (parquet_types.mjs, .py), their split block
#     filters extracted; every key probed by the harness's independent
#     reader of the Parquet spec (sbbf.py, with each type's plain encoding),
#     and the first DUCKDB_PROBE_N (2,000) of each set by DuckDB's
#     parquet_bloom_probe, which must agree with it (but for UUID, which
#     DuckDB's probe never excludes).
# Each maker writes a filter of N (100,000) keys at 1 % and answers for
# those and N others; then on every version (tests/interop/check_version.sh,
# in its chroot for the others) bloom_import reads each filter and answers
# every key as its maker did, and bloom_agg in Spark's and Guava's formats
# gives the maker's bytes; on the host, bloom_agg(k, N, 0.01, 'parquet')
# exported is read by sbbf.py, which finds every key and answers the N
# others as the server does; and the client libraries (Python, JavaScript)
# read every maker's filter and answer the first 20,000 keys of each set as
# the maker (tests/interop/clients.py, clients.mjs), Python's bloom values
# being the server's bytes.
# Ends with "interop: P passed, F failed".  Run as root from the top folder,
# after tools/suite.sh installed the extension for each version.
set -uo pipefail
versions=$1
host_version=${HOST_VERSION:-15}
shared=${BLOOM_SHARED:-../shared}
n=${INTEROP_N:-100000}
fpp=0.01
duckdb_probe_n=${DUCKDB_PROBE_N:-2000}
python=/usr/bin/python3
guava_jar=/usr/share/java/guava.jar
passed=0
failed=0
work=$(mktemp -d /tmp/bloom-interop.XXXXXX)
trap 'rm -rf "$work"' EXIT
# (the servers, running as postgres, read the makers' files: mktemp made it 0700)
chmod 755 "$work"
check() { # NAME CMD...: run CMD, count it (and say how long it took)
	local name=$1 start=$SECONDS
	shift
	if "$@"; then
		echo "$name: ok ($((SECONDS - start)) s)"
		passed=$((passed + 1))
	else
		echo "$name: FAILED ($((SECONDS - start)) s)"
		failed=$((failed + 1))
		return 1
	fi
}
finish() {
	echo "interop: $passed passed, $failed failed"
	exit 0
}
[ -d "$shared/interop" ] && [ -d "$shared/vendor/spark-sketch/src" ] || {
	echo "interop: the harness is not at $shared/interop (and $shared/vendor/spark-sketch)"
	failed=$((failed + 1))
	finish
}
. tools/lib.sh
install_missing openjdk-17-jdk-headless libguava-java python3-xxhash nodejs
command -v npm >/dev/null || install_missing npm

h=$work/harness
files=$work/files
mkdir -p "$h" "$files/keys"
cp "$shared"/interop/{Guava.java,Spark.java,parquet.mjs,sbbf.py,gen_keys.py,package.json,package-lock.json} "$h/"
cp tests/interop/parquet_types.mjs "$h/"

# the makers, made ready: DuckDB from npm's registry (the harness's lock), the Java sources compiled
setup() {
	(cd "$h" && npm ci --no-audit --no-fund --silent >/dev/null 2>&1 || npm install --no-audit --no-fund --silent >/dev/null) &&
		javac -nowarn -d "$h/build" -cp "$guava_jar" "$h/Guava.java" 2>/dev/null &&
		mapfile -t spark_sources < <(find "$shared/vendor/spark-sketch/src" -name '*.java') &&
		javac -nowarn -d "$h/build" "${spark_sources[@]}" "$h/Spark.java" 2>/dev/null &&
		[ -f "$h/build/Guava.class" ] && [ -f "$h/build/Spark.class" ] &&
		"$python" "$h/gen_keys.py" "$files/keys" "$n"
}
check "interop: the makers (Guava, Spark's classes, DuckDB) set up" setup || finish
guava() { java -cp "$h/build:$guava_jar" Guava "$@"; }
spark() { java -cp "$h/build" Spark "$@"; }

# split_answers KEYS O: O.both, a maker's answers for KEYS_in.txt then
# KEYS_out.txt (one run of its JVM for both), split into O.in and O.out
split_answers() {
	local added
	added=$(wc -l <"$files/keys/$1_in.txt")
	head -n "$added" "$2.both" >"$2.in" && tail -n +"$((added + 1))" "$2.both" >"$2.out" &&
		[ "$(wc -l <"$2.out")" = "$(wc -l <"$files/keys/$1_out.txt")" ] && rm -f "$2.both"
}
# both_keys KEYS: a file of KEYS_in.txt then KEYS_out.txt (made once)
both_keys() {
	[ -s "$files/keys/$1_both.txt" ] || cat "$files/keys/$1_in.txt" "$files/keys/$1_out.txt" >"$files/keys/$1_both.txt"
	echo "$files/keys/$1_both.txt"
}
# write_guava FUNNEL KEYS: the filter of the keys and Guava's answers
write_guava() {
	local o=$files/guava_$1.bin
	guava write "$1" "$n" "$fpp" "$files/keys/$2_in.txt" "$o" &&
		guava probe "$1" "$o" "$(both_keys "$2")" >"$o.both" && split_answers "$2" "$o"
}
write_spark() { # VERSION TYPE KEYS
	local o=$files/spark_$1_$2.bin
	spark write "$1" "$n" "$fpp" "$2" "$files/keys/$3_in.txt" "$o" &&
		spark probe "$2" "$o" "$(both_keys "$3")" >"$o.both" && split_answers "$3" "$o"
}
# write_duckdb TYPE KEYS: a Parquet file, its filter, sbbf.py's answers for
# every key, DuckDB's for the first duckdb_probe_n of each set (the same)
write_duckdb() {
	local p=$work/duckdb_$1.parquet o=$files/duckdb_$1.sbbf s
	node "$h/parquet.mjs" write "$files/keys/$2_in.txt" "$1" "$p" &&
		node "$h/parquet.mjs" extract "$p" "$o" || return 1
	for s in in out; do
		"$python" "$h/sbbf.py" "$o" "$1" "$files/keys/$2_$s.txt" >"$o.$s" || return 1
		head -n "$duckdb_probe_n" "$files/keys/$2_$s.txt" >"$work/sub_$s.txt"
		node "$h/parquet.mjs" probe "$p" "$work/sub_$s.txt" >"$work/duck_$s" || return 1
		cmp -s "$work/duck_$s" <(head -n "$duckdb_probe_n" "$o.$s") || {
			echo "DuckDB's parquet_bloom_probe and sbbf.py disagree ($1, keys $s)"
			return 1
		}
	done
}
# write_duckdb_typed TYPE: the same for the types of parquet_types.py
# (keys, DuckDB's writer and probe, the spec's reader with their encodings);
# DuckDB's probe never excludes a UUID (it answers 1 for every key): there
# the reader alone answers, and finds every key added
write_duckdb_typed() {
	local p=$work/duckdb_$1.parquet o=$files/duckdb_$1.sbbf s
	node "$h/parquet_types.mjs" write "$files/keys/$1_in.txt" "$1" "$p" &&
		node "$h/parquet.mjs" extract "$p" "$o" || return 1
	for s in in out; do
		SBBF_PY=$h/sbbf.py "$python" tests/interop/parquet_types.py probe "$o" "$1" "$files/keys/$1_$s.txt" >"$o.$s" || return 1
		[ "$1" = UUID ] && continue
		head -n "$duckdb_probe_n" "$files/keys/$1_$s.txt" >"$work/sub_$s.txt"
		node "$h/parquet_types.mjs" probe "$p" "$1" "$work/sub_$s.txt" >"$work/duck_$s" || return 1
		cmp -s "$work/duck_$s" <(head -n "$duckdb_probe_n" "$o.$s") || {
			echo "DuckDB's parquet_bloom_probe and the spec's reader disagree ($1, keys $s)"
			return 1
		}
	done
}
# three groups of makers, side by side (each DuckDB group in a work folder
# of its own): the JVM's, DuckDB's for the harness's types, and DuckDB's for
# parquet_types'
jvm_makers() {
	local f v
	for f in long:int integer:int utf8:txt chars:txt; do
		write_guava "${f%%:*}" "${f##*:}" || return 1
	done
	for v in v1 v2; do
		for f in long:int string:txt binary:txt; do
			write_spark "$v" "${f%%:*}" "${f##*:}" || return 1
		done
	done
}
duckdb_makers() {
	local f work=$work/duckdb
	mkdir -p "$work"
	for f in BIGINT:int INTEGER:int DOUBLE:int VARCHAR:txt BLOB:txt; do
		write_duckdb "${f%%:*}" "${f##*:}" || return 1
	done
}
duckdb_typed_makers() {
	local f work=$work/duckdb_typed
	mkdir -p "$work"
	for f in SMALLINT DATE TIMESTAMP TIMESTAMPTZ FLOAT UUID; do
		write_duckdb_typed "$f" || return 1
	done
}
makers() {
	local f group status=0
	local -A pid=()
	# (the typed keys first, and the shared ones' both-files: nothing else writes keys/)
	"$python" tests/interop/parquet_types.py keys "$files/keys" "$n" || return 1
	for f in int txt; do both_keys "$f" >/dev/null; done
	for group in jvm_makers duckdb_makers duckdb_typed_makers; do
		"$group" >"$work/$group.log" 2>&1 &
		pid[$group]=$!
	done
	for group in jvm_makers duckdb_makers duckdb_typed_makers; do
		wait "${pid[$group]}" || status=1
		cat "$work/$group.log"
	done
	[ "$status" = 0 ] || return 1
	# every added key is in its maker's filter (the makers answer for themselves)
	for f in "$files"/*.in; do
		if grep -qv '^1$' "$f"; then
			echo "$(basename "$f"): its maker does not find a key it added"
			return 1
		fi
	done
}
check "interop: 21 filters written by their makers, $n keys each, answered for $((2 * n))" makers || finish

for v in $versions; do
	if [ "$v" = "$host_version" ]; then
		check "interop: PostgreSQL $v reads each and answers as its maker" \
			bash tests/interop/check_version.sh "$v" "$files" "$n" "$fpp"
	else
		check "interop: PostgreSQL $v reads each and answers as its maker" \
			env BLOOM_CHROOT_INPUT="$files" bash tools/chroot.sh run "$v" \
			bash tests/interop/check_version.sh "$v" /build/input "$n" "$fpp"
	fi
done

# bloom_agg in Parquet's format, read by the spec's independent reader:
# every key found, and the others answered as the server answers
parquet_export() {
	local t kind probe out
	for t in BIGINT:int:k::bigint VARCHAR:txt:k; do
		kind=${t#*:}
		probe=${kind#*:}
		kind=${kind%%:*}
		t=${t%%:*}
		out=$work/ours_$t
		pg_virtualenv -v "$host_version" -t psql -X -q -At -v ON_ERROR_STOP=1 -c "
			CREATE EXTENSION bloomfilter;
			CREATE TABLE k (k text);
			COPY k FROM '$files/keys/${kind}_in.txt';
			CREATE TABLE o (n int GENERATED ALWAYS AS IDENTITY, k text);
			COPY o (k) FROM '$files/keys/${kind}_out.txt';
			CREATE TABLE f AS SELECT bloom_agg($probe, $n, $fpp, 'parquet') AS f FROM k;
			SELECT 'hex:' || encode(bloom_export(f, 'parquet'), 'hex') FROM f;
			SELECT 'out:' || (f @> $probe)::int FROM f, o ORDER BY o.n;" >"$out.raw" 2>&1 || {
			cat "$out.raw"
			return 1
		}
		sed -n 's/^hex://p' "$out.raw" | "$python" -c 'import sys, binascii; sys.stdout.buffer.write(binascii.unhexlify(sys.stdin.read().strip()))' >"$out.sbbf"
		sed -n 's/^out://p' "$out.raw" >"$out.server_out"
		"$python" "$h/sbbf.py" "$out.sbbf" "$t" "$files/keys/${kind}_in.txt" >"$out.in" &&
			"$python" "$h/sbbf.py" "$out.sbbf" "$t" "$files/keys/${kind}_out.txt" >"$out.out" || return 1
		if grep -qv '^1$' "$out.in" || [ "$(wc -l <"$out.in")" != "$n" ]; then
			echo "sbbf.py does not find every key in bloom_agg's Parquet filter ($t)"
			return 1
		fi
		cmp -s "$out.out" "$out.server_out" || {
			echo "sbbf.py and the server answer the absent keys differently ($t)"
			return 1
		}
		echo "  $t: sbbf.py finds all $n keys of bloom_agg(k, $n, $fpp, 'parquet') ($(stat -c %s "$out.sbbf") bytes) and answers the $n others as the server: $(grep -c '^1$' "$out.out") maybe"
	done
}
check "interop: bloom_agg(k, n, fpp, 'parquet') read by the spec's own reader (sbbf.py)" parquet_export

# the client libraries read the makers' files likewise (the first
# clients_n keys of each set: Python's hashing is pure Python), and
# Python's bloom values are the server's bytes (bloom_import's, by md5)
clients_n=${INTEROP_CLIENTS_N:-20000}
python_client() {
	pg_virtualenv -v "$host_version" -t psql -X -q -At -v ON_ERROR_STOP=1 -F ' ' -c "
		CREATE EXTENSION bloomfilter;
		SELECT f, md5(bloom_send(bloom_import(pg_read_binary_file('$files/' || f), fmt, t::regtype)))
		FROM (VALUES ('guava_long.bin', 'guava', 'bigint'), ('guava_integer.bin', 'guava', 'integer'),
		             ('guava_utf8.bin', 'guava', 'text'), ('guava_chars.bin', 'guava_chars', 'text'),
		             ('spark_v1_long.bin', 'spark', 'bigint'), ('spark_v2_string.bin', 'spark', 'text'),
		             ('spark_v2_binary.bin', 'spark', 'bytea'), ('duckdb_BIGINT.sbbf', 'parquet', 'bigint'),
		             ('duckdb_DOUBLE.sbbf', 'parquet', 'float8'), ('duckdb_VARCHAR.sbbf', 'parquet', 'text'))
		     AS c (f, fmt, t);" 2>/dev/null | grep -E '^[a-zA-Z_0-9]+\.(bin|sbbf) [0-9a-f]{32}$' >"$work/server_md5" &&
		[ "$(wc -l <"$work/server_md5")" = 10 ] &&
		PYTHONPATH=clients/python/src "$python" tests/interop/clients.py "$files" "$clients_n" "$work/server_md5"
}
check "interop: Python's pg_bloomfilter.makers reads each as its maker (first $clients_n keys of each set)" python_client
check "interop: JavaScript's makers reads each as its maker (first $clients_n keys of each set)" \
	node tests/interop/clients.mjs "$files" "$clients_n"
finish
