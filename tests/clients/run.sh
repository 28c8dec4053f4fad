#!/usr/bin/env bash
# tests/clients/run.sh "VERSIONS": the client libraries (clients/), against
# vectors the servers make (tests/clients/vectors.sql, on each version: the
# host's, and the others in their chroots, tools/chroot.sh):
#   - vectors-N: every answer of every filter equals bloom_contains's on N,
#     and info equals bloom_info's (Python: each line, a type's, once; a
#     line the same as an earlier version's file's is not checked again);
#   - format: bad input raises the library's own error (Python);
#   - lanes: contains_many (computed in lanes of Python ints) answers as
#     contains, over every layout and kind of value;
#   - makers (1.12): other systems' filters (pg_bloomfilter.makers: Spark,
#     Guava, Parquet) read from the files their makers wrote
#     (tests/unit/makers/) answer every key as the maker, write the maker's
#     bytes, and round-trip through a bloom value's bytes (test_makers.py);
#     the JavaScript library reads them likewise (makers.mjs);
#   - fuzz_python: the parsers fed mutated inputs for FUZZ_SECONDS (60) s;
#   - refresh (1.12): IndexFilter.refresh on a psycopg 3 connection without
#     autocommit leaves an idle one idle and the caller's transaction open
#     and uncommitted (test_refresh_server.py, on a throwaway cluster);
#   - packaging: the clients' packages built once, offline (bash
#     tools/package.sh clients: the npm tarball, the Python sdist and
#     wheel), then checked and installed from those files
#     (tests/clients/python_package.sh: the wheel, the sdist, and the
#     checkout as its README says, each into a fresh venv with no package
#     index; and the wheel on the Python of each other version's chroot,
#     tests/clients/python_wheel_unpacked.sh);
#   - the same for JavaScript (Node; each filter probed in WebAssembly and in
#     JavaScript), and the WebAssembly module shipped rebuilt from its C
#     source and compared: vectors, format, filters of more than
#     2^32 bits against a BigInt reference (large), fuzz_js, the npm
#     tarball installed into a fresh project and used by import and by
#     require() (tests/clients/js_package.sh), its CommonJS entry (cjs/)
#     checked against src/ as tools/package.sh builds it; no module of
#     src/ importing another in a cycle (tests/clients/import_cycles.mjs);
#     and the vectors of the host's version answered in headless Chromium,
#     through a test page.
#   - window filters (1.12): for every version's windows-N.jsonl
#     (tests/clients/windows.sql), each library's WindowFilter.create and its
#     adds and advances give the server's bytes and text, the server's
#     filters read back answer every probe as bloom_contains, unions as
#     bloom_union (test_window.py, window.mjs);
#   - writing (1.11): for every vectors file, each library's create/add
#     give bloom_agg's bytes and text for every type and both layouts, a
#     derived filter takes an add and a union as the server's, and create
#     sizes every case of tests/clients/sizing.sql (made by the host's
#     server) as the server does; the writing API's edges (write-api.mjs,
#     test_write.py without a server);
#   - the examples (clients/*/examples: node-postgres, psycopg 3) run from
#     the installed packages against a throwaway cluster
#     (tests/clients/examples.sh): a filter sent as a bytea parameter, an
#     index's filter refreshed only when it changed; (1.12) and every code
#     block of clients/*/README.md marked to run (<!-- example: NAME -->,
#     tests/clients/readme_examples.py), after the data its snippets
#     assume (tests/clients/readme_setup.*); a block unmarked, or marked
#     <!-- not run: --> without a reason, fails the check.
# Ends with "clients: P passed, F failed".  Run as root from the top folder,
# after tools/suite.sh installed the extension for each version.
set -uo pipefail
python=${PYTHON:-/usr/bin/python3}
export PYTHON=$python
versions=$1
host_version=${HOST_VERSION:-15}
passed=0
failed=0
work=$(mktemp -d /tmp/bloom-clients.XXXXXX)
trap 'rm -rf "$work"' EXIT
check() { # NAME CMD...: run CMD, count it (and say how long it took)
	local name=$1 start=$SECONDS
	shift
	if "$@"; then
		echo "$name: ok ($((SECONDS - start)) s)"
		passed=$((passed + 1))
	else
		echo "$name: FAILED ($((SECONDS - start)) s)"
		failed=$((failed + 1))
	fi
}
py=clients/python
js=clients/js
files=()
windows=()
for v in $versions; do
	if [ "$v" = "$host_version" ]; then
		check "vectors made by $v" bash tests/clients/make_vectors.sh "$v" "$work/vectors"
	else
		check "vectors made by $v" env BLOOM_CHROOT_OUTPUT="$work/out-$v" \
			bash tools/chroot.sh run "$v" bash tests/clients/make_vectors.sh "$v" /build/output
		mkdir -p "$work/vectors"
		cp "$work/out-$v/vectors-$v.jsonl" "$work/out-$v/windows-$v.jsonl" "$work/vectors/" 2>/dev/null || true
	fi
	[ -s "$work/vectors/vectors-$v.jsonl" ] && files+=("$work/vectors/vectors-$v.jsonl")
	[ -s "$work/vectors/windows-$v.jsonl" ] && windows+=("$work/vectors/windows-$v.jsonl")
done
# the sizes the host's server gives filters (tests/clients/sizing.sql): the
# writers' create() must give the same m and k
make_sizing() {
	pg_virtualenv -v "$host_version" -t psql -X -q -At -v ON_ERROR_STOP=1 -f tests/clients/sizing.sql >"$work/sizing.raw" &&
		grep '^{' "$work/sizing.raw" >"$work/vectors/sizing.jsonl" && [ "$(wc -l <"$work/vectors/sizing.jsonl")" -gt 1000 ]
}
check "sizing cases made by $host_version" make_sizing
sizing=$work/vectors/sizing.jsonl
# A file's line is one type's filters and answers, and a check of a line
# (reading it, or writing its filters) depends on nothing else: a line the
# same as one of an earlier file (the versions' servers answer alike) asks
# nothing new, and each file's checks read only its lines that no earlier
# file has (new-N.jsonl; a file with none is not checked again).  "The
# same" reads each "estimated_fpp" to 12 significant digits: the libm of
# 18's Debian gives other last digits (4.55053732144647e-10 against
# 4.5505373214464696e-10), and the check allows 1e-9 of it.
same_lines='
function key(s,    out, num) {
	out = ""
	while (match(s, /"estimated_fpp": *[-+0-9.eE]+/)) {
		num = substr(s, RSTART, RLENGTH)
		sub(/^"estimated_fpp": */, "", num)
		out = out substr(s, 1, RSTART - 1) "\"estimated_fpp\":" sprintf("%.12g", num + 0)
		s = substr(s, RSTART + RLENGTH)
	}
	return out s
}
FILENAME != ARGV[ARGC - 1] { seen[key($0)] = 1; next }
!(key($0) in seen)'
declare -A new_lines=()
for ((i = 0; i < ${#files[@]}; i++)); do
	f=${files[$i]}
	new=$work/vectors/new-$(basename "$f")
	# (awk: the lines of f that none of the earlier files has; each is a few MB;
	# the first file's are all of its lines)
	if ! awk "$same_lines" "${files[@]:0:$i}" "$f" >"$new" ||
		{ [ "$i" -eq 0 ] && [ "$(wc -l <"$new")" -ne "$(wc -l <"$f")" ]; }; then
		new=failed
	fi
	new_lines[$f]=$new
done
# vectors_check FILE NAME CMD...: CMD with BLOOM_VECTORS set to FILE's lines
# that no earlier file has, counted as NAME; said, not counted, when it has none
vectors_check() {
	local f=$1 name=$2
	shift 2
	if [ "${new_lines[$f]}" = failed ]; then
		echo "$name: FAILED ($(basename "$f"): its lines that no earlier file has could not be told apart)"
		failed=$((failed + 1))
	elif [ ! -s "${new_lines[$f]}" ]; then
		echo "$name: every line is one of an earlier file's, checked there"
	else
		check "$name" env BLOOM_VECTORS="${new_lines[$f]}" "$@"
	fi
}
# Python's vector check takes three to five minutes a file, on one core: it,
# and then Python's and JavaScript's fuzz, run in the background, beside the
# rest, and are counted at the end.
(
	for f in "${files[@]}"; do
		log=$work/python-$(basename "$f" .jsonl).log
		if [ "${new_lines[$f]}" = failed ]; then
			echo "$(basename "$f"): its lines that no earlier file has could not be told apart" >"$log"
			echo 1 >"$log.status"
		elif [ ! -s "${new_lines[$f]}" ]; then
			echo "every line of $(basename "$f") is one of an earlier file's, checked there" >"$log"
			echo 0 >"$log.status"
		elif env BLOOM_VECTORS="${new_lines[$f]}" PYTHONPATH="$py/src" "$python" -m unittest -q "$py/tests/test_vectors.py" >"$log" 2>&1; then
			echo 0 >"$log.status"
		else
			echo 1 >"$log.status"
		fi
	done
	# then the parsers' fuzz, Python's and JavaScript's side by side (each
	# time-boxed), so that they do not take a minute each of the foreground
	start=$SECONDS
	(
		if env BLOOM_VECTORS="${files[0]:-}" node "$js/test/fuzz.mjs" "${FUZZ_SECONDS:-60}" >"$work/js-fuzz.log" 2>&1; then
			echo 0 >"$work/js-fuzz.log.status"
		else
			echo 1 >"$work/js-fuzz.log.status"
		fi
		echo "(ran $((SECONDS - start)) s in the background)" >>"$work/js-fuzz.log"
	) &
	if env BLOOM_VECTORS="${files[0]:-}" PYTHONPATH="$py/src" \
		"$python" "$py/tests/fuzz_parse.py" "${FUZZ_SECONDS:-60}" >"$work/python-fuzz.log" 2>&1; then
		echo 0 >"$work/python-fuzz.log.status"
	else
		echo 1 >"$work/python-fuzz.log.status"
	fi
	echo "(ran $((SECONDS - start)) s in the background)" >>"$work/python-fuzz.log"
	wait
) &
python_background=$!
# shown_log LOG: LOG's output, and its run's status
shown_log() {
	cat "$1"
	[ "$(cat "$1.status" 2>/dev/null)" = 0 ]
}
check "python: format" env PYTHONPATH="$py/src" "$python" -m unittest -q "$py/tests/test_format.py"
check "python: lanes (contains_many against contains)" env PYTHONPATH="$py/src" "$python" -m unittest -q "$py/tests/test_lanes.py"
check "python: writing's edges (probes of what a type cannot hold, text the server refuses, unions' types, refreshes one at a time)" \
	env PYTHONPATH="$py/src" "$python" -m unittest -q "$py/tests/test_write_edges.py"
check "python: other systems' filters (pg_bloomfilter.makers) against their makers' files" \
	env BLOOM_TOP="$PWD" PYTHONPATH="$py/src" "$python" -m unittest -q "$py/tests/test_makers.py"
check "python: IndexFilter's refresh leaves an idle connection idle and the caller's transaction open (psycopg 3, against a server)" \
	pg_virtualenv -v "$host_version" -t env BLOOM_REQUIRE_SERVER=1 PYTHONPATH="$py/src" "$python" -m unittest -q "$py/tests/test_refresh_server.py"
for f in "${windows[@]}"; do
	check "python: window filters of $(basename "$f" .jsonl), byte for byte" env BLOOM_WINDOWS="$f" \
		PYTHONPATH="$py/src" "$python" -m unittest -q "$py/tests/test_window.py"
done
for f in "${files[@]}"; do
	vectors_check "$f" "python: writes $(basename "$f" .jsonl)'s filters byte for byte, and the sizes" \
		env BLOOM_SIZING="$sizing" PYTHONPATH="$py/src" "$python" -m unittest -q "$py/tests/test_write.py"
done
# the packages, built once; the packaging checks install these files
packages=$work/packages
check "packages: built by tools/package.sh clients" bash tools/package.sh clients "$packages"
check "python: packaging" bash tests/clients/python_package.sh "$work/package" "$packages"
for v in $versions; do
	[ "$v" = "$host_version" ] && continue
	wheel=$(cd "$packages" && ls pg_bloomfilter-*-py3-none-any.whl 2>/dev/null || echo none.whl)
	check "python: the wheel on the Python of $v's chroot" env BLOOM_CHROOT_INPUT="$packages" \
		bash tools/chroot.sh run "$v" bash tests/clients/python_wheel_unpacked.sh "/build/input/$wheel"
done
# the WebAssembly shipped (src/probe_wasm.js) is the one wasm/probe.c makes
wasm_is_built() {
	bash "$js/wasm/build.sh" "$work/probe_wasm.js" && cmp "$work/probe_wasm.js" "$js/src/probe_wasm.js" ||
		{ echo "src/probe_wasm.js differs from what wasm/probe.c builds: run bash clients/js/wasm/build.sh"; return 1; }
}
check "js: src/probe_wasm.js built from wasm/probe.c" wasm_is_built
check "js: no module of src/ imports another in a cycle" node tests/clients/import_cycles.mjs "$js/src"
for f in "${files[@]}"; do
	vectors_check "$f" "js: $(basename "$f" .jsonl)" node "$js/test/vectors.mjs"
done
check "js: format" node "$js/test/format.mjs"
check "js: other systems' filters (SparkFilter, GuavaFilter, ParquetFilter) against their makers' files" \
	env BLOOM_TOP="$PWD" node "$js/test/makers.mjs"
check "js: writing's API (create, add, union, UUID text)" node "$js/test/write-api.mjs"
for f in "${files[@]}"; do
	vectors_check "$f" "js: writes $(basename "$f" .jsonl)'s filters byte for byte, and the sizes" \
		env BLOOM_SIZING="$sizing" node "$js/test/write.mjs"
done
for f in "${windows[@]}"; do
	check "js: window filters of $(basename "$f" .jsonl), byte for byte" env BLOOM_WINDOWS="$f" node "$js/test/window.mjs"
done
check "js: filters over 2^32 bits" node "$js/test/large.mjs"
check "js: packaging" bash tests/clients/js_package.sh "$work/js-package" "$packages"
check "js: in headless Chromium" bash tests/clients/browser_test.sh "${files[0]:-}" "$work/browser"
check "js: the examples (node-postgres), from the package" bash tests/clients/examples.sh js "$packages" "$work/examples-js" "$host_version"
check "python: the examples (psycopg 3), from the package" bash tests/clients/examples.sh python "$packages" "$work/examples-py" "$host_version"
wait "$python_background"
for f in "${files[@]}"; do
	name="python: $(basename "$f" .jsonl) ($(wc -l <"${new_lines[$f]}" 2>/dev/null) of its $(wc -l <"$f") types' lines not in an earlier file)"
	if [ -s "${new_lines[$f]}" ] || [ "${new_lines[$f]}" = failed ]; then
		check "$name" shown_log "$work/python-$(basename "$f" .jsonl).log"
	else
		echo "$name: every line is one of an earlier file's, checked there"
	fi
done
check "python: fuzz" shown_log "$work/python-fuzz.log"
check "js: fuzz" shown_log "$work/js-fuzz.log"
echo "clients: $passed passed, $failed failed"
