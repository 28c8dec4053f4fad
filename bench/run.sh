#!/usr/bin/env bash
# bench/run.sh [probe|semijoin|build|fpr|auto|runtime|runtime_order|tpch|index_runtime ...]: run benchmarks on a throwaway
# cluster (as root, like tools/run.sh) and write bench/results/<name>.txt
# (and fpr.png).  With no argument, all of them.  Not part of the test suite:
# they take minutes and report ratios measured in one run.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
dpkg-query -W -f='${Status}' gnuplot-nox 2>/dev/null | grep -q "install ok installed" ||
	{ apt-get update -qq && apt-get install -y -qq gnuplot-nox >/dev/null; }
make -s install >/dev/null
chmod -R a+rX . 2>/dev/null || true
mkdir -p bench/results
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(probe semijoin build fpr auto runtime runtime_order tpch index_runtime)
for name in "${names[@]}"; do
	echo "== $name"
	pg_virtualenv -t -o shared_buffers=2GB -o max_parallel_workers_per_gather=2 \
		psql -X -q -v ON_ERROR_STOP=1 -f "bench/$name.sql" >"bench/results/$name.txt" 2>&1 ||
		echo "$name FAILED: see bench/results/$name.txt"
	[ "$name" = fpr ] && gnuplot bench/fpr.gp
	grep -v '^#' "bench/results/$name.txt" | tail -n 40
done
