#!/usr/bin/env bash
# tests/unit/check_layers.sh: the core's layering, read from the built
# objects (nm -u: the functions each object calls in other files).
#   - bf_util calls nothing of the core; bf_format (and bf_format_layered,
#     its layered part) only bf_util and each other;
#   - bf_bits (what the bit layouts share) only bf_util and bf_format;
#   - the layout files, bf_hashset, bf_spark, bf_guava, bf_parquet and bf_parquet_thrift (the
#     makers' filters) only
#     bf_util, bf_format and bf_bits:
#     never each other, never the dispatch;
#   - the PostgreSQL layer (bloomfilter.o, src/*.o, src/runtime/*.o) only the interface,
#     the functions core/bf_core.h, core/bf_format.h, core/bf_format_layered.h, core/bf_runtime.h,
#     core/bf_stretches.h and core/bf_makers.h declare.
# Run from the top folder after `make`; prints "layers: ok" or what breaks
# a rule, and exits non-zero then.
set -euo pipefail

defined_in() { nm --defined-only "core/$1.o" | awk '$2 == "T" { print $3 }'; }
calls_of() { nm -u "$1" | awk '$2 ~ /^bf_/ { print $2 }'; }

status=0
# check OBJECT ALLOWED-SYMBOLS...: every bf_ function OBJECT calls is allowed
# (a lookup table, not `printf | grep -q`: grep quits at the first match, and
# under pipefail the printf still writing the rest then fails on SIGPIPE,
# which made this check fail now and then on a symbol that was allowed)
check() {
	local obj=$1 sym allowed_sym
	local -A allowed=()
	shift
	for allowed_sym in "$@"; do
		allowed[$allowed_sym]=1
	done
	for sym in $(calls_of "$obj"); do
		if [ -z "${allowed[$sym]:-}" ]; then
			echo "layers: $obj calls $sym, which its layer may not call"
			status=1
		fi
	done
}

util=$(defined_in bf_util)
format="$(defined_in bf_format) $(defined_in bf_format_layered) $(defined_in bf_format_window)"
bits=$(defined_in bf_bits)
# shellcheck disable=SC2086
{
	check core/bf_util.o
	check core/bf_format.o $util $format
	check core/bf_format_layered.o $util $format
	check core/bf_format_window.o $util $format
	check core/bf_bits.o $util $format
	for leaf in bf_classic bf_blocked bf_layered bf_counting bf_explicit bf_hashset bf_spark bf_guava bf_parquet bf_parquet_thrift bf_window; do
		check "core/$leaf.o" $util $format $bits
	done
}

interface=$(sed -n 's/^extern [^(]*[ *]\(bf_[a-z0-9_]*\)(.*/\1/p' core/bf_core.h core/bf_format.h core/bf_format_layered.h core/bf_format_window.h core/bf_window.h core/bf_runtime.h core/bf_stretches.h core/bf_makers.h)
[ -n "$interface" ] || {
	echo "layers: found no declarations in core/bf_core.h"
	exit 1
}
for obj in bloomfilter.o src/*.o src/runtime/*.o src/index/*.o; do
	# shellcheck disable=SC2086
	check "$obj" $interface
done
[ "$status" -eq 0 ] && echo "layers: ok"
exit "$status"
