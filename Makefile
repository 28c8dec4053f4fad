# bloomfilter: PGXS build.  `make`, `make install`, `make installcheck`,
# `make unitcheck` (the core's C unit tests, no server needed).

EXTENSION = bloomfilter
MODULE_big = bloomfilter
DATA = bloomfilter--1.0.sql bloomfilter--1.0--1.1.sql bloomfilter--1.1--1.2.sql \
	bloomfilter--1.2--1.3.sql bloomfilter--1.3--1.4.sql \
	bloomfilter--1.4--1.5.sql bloomfilter--1.5--1.6.sql bloomfilter--1.6--1.7.sql \
	bloomfilter--1.7--1.8.sql bloomfilter--1.8--1.9.sql \
	bloomfilter--1.9--1.10.sql bloomfilter--1.10--1.11.sql \
	bloomfilter--1.11--1.12.sql
PGFILEDESC = "bloomfilter - Bloom filter type for PostgreSQL"

CORE_OBJS = core/bf_util.o core/bf_format.o core/bf_format_layered.o core/bf_bits.o core/bf_classic.o core/bf_blocked.o \
	core/bf_counting.o core/bf_explicit.o core/bf_hashset.o core/bf_filter.o core/bf_sizing.o \
	core/bf_text.o core/bf_runtime.o core/bf_layered.o core/bf_stretches.o core/bf_spark.o \
	core/bf_guava.o core/bf_parquet.o core/bf_parquet_thrift.o core/bf_makers.o \
	core/bf_format_window.o core/bf_window.o core/bf_window_sizing.o core/bf_text_tables.o
CORE_HEADERS = core/bf_window_scan.h core/bf_core.h core/bf_format.h core/bf_format_layered.h core/bf_util.h core/bf_hash.h core/bf_bits.h \
	core/bf_layouts.h core/bf_runtime.h core/bf_stretches.h core/bf_spark.h core/bf_guava.h \
	core/bf_parquet.h core/bf_makers.h core/bf_format_window.h core/bf_window.h core/bf_text_tables.h
# the type's room (src/), the runtime filters' room (src/runtime/ and its
# sub-rooms, lowest first: ARCHITECTURE.md), the index's room (src/index/), the core
TYPE_OBJS = src/bloom_error.o src/bloom_functions.o src/bloom_datum.o src/bloom_value.o \
	src/bloom_io.o src/bloom_agg.o src/bloom_aggstate.o src/bloom_calc.o src/bloom_setops.o \
	src/bloom_counting.o src/bloom_selectivity.o src/bloom_explicit.o src/bloom_autostate.o src/bloom_auto.o \
	src/bloom_makers.o src/bloom_import.o src/bloom_window.o src/bloom_window_agg.o
RUNTIME_OBJS = src/runtime/settings.o src/runtime/private.o src/runtime/cost.o \
	src/runtime/values/values.o src/runtime/values/valueshare.o \
	src/runtime/filter/filter.o src/runtime/filter/keyhash.o src/runtime/filter/shape.o \
	src/runtime/filter/shared.o \
	src/runtime/skip/partitions.o src/runtime/skip/lineage.o src/runtime/skip/brinranges.o \
	src/runtime/skip/btreekeys.o \
	src/runtime/ship/pushdown.o src/runtime/ship/remotekey.o src/runtime/ship/remote.o \
	src/runtime/plan/plan.o src/runtime/plan/placement.o src/runtime/plan/scantarget.o \
	src/runtime/plan/plantree.o \
	src/runtime/exec/node.o src/runtime/exec/build.o src/runtime/exec/probe.o \
	src/runtime/exec/scan.o src/runtime/exec/scanshare.o src/runtime/exec/counts.o src/runtime/exec/passthrough.o \
	src/runtime/exec/appendskip.o \
	src/runtime/paths/joinpaths.o src/runtime/paths/keyrange.o src/runtime/paths/keyprobe.o src/runtime/paths/keyquals.o \
	src/runtime/paths/partread.o src/runtime/paths/tableread.o \
	src/runtime/paths/marker.o \
	src/runtime/hooks.o src/runtime/status.o
INDEX_OBJS = src/index/amhandler.o src/index/ampages.o src/index/ambuild.o src/index/aminsert.o \
	src/index/amvacuum.o src/index/amprobe.o src/index/amsql.o src/index/amcontains.o \
	src/index/amaccess.o src/index/amkeys.o src/index/amsnapshot.o \
	src/index/amsource.o src/index/amspace.o src/index/amrebuild.o src/index/amrebuild_scan.o
OBJS = bloomfilter.o $(TYPE_OBJS) $(RUNTIME_OBJS) $(INDEX_OBJS) $(CORE_OBJS)

REGRESS = bloom_type bloom_functions bloom_agg bloom_calc bloom_membership bloom_semijoin \
	bloom_badinput bloom_bpchar bloom_bytea bloom_setops bloom_counting bloom_planner bloom_blocked bloom_auto bloom_makers bloom_window runtime_filter \
	runtime_filter_right runtime_filter_edges runtime_skip runtime_skip_plans runtime_parallel bloom_index \
	bloom_index_visibility bloom_index_refresh bloom_index_rebuild runtime_index \
	bloom_upgrade
# two sessions or more (specs/, run by pg_isolation_regress after REGRESS):
# SERIALIZABLE readers, partitions attached beside a reader, who may lock
ISOLATION = index_ssi index_ssi_window index_own_adds index_attach index_privileges \
	index_too_new index_rebuild

# Our own files build with -Wextra -Werror.  PostgreSQL's headers need only
# -Wno-unused-parameter (their inline functions and fmgr macros).
PG_CFLAGS = -Wall -Wextra -Werror -Wno-unused-parameter
# no a * b + c fused into one rounding (GNU C's default where the target has
# FMA, as every aarch64 has): the sizing math must round as the clients'
# (JavaScript, Python) do, operation by operation (core/bf_window_sizing.c)
PG_CFLAGS += -ffp-contract=off
SHLIB_LINK = -lm

PG_CONFIG ?= pg_config

# The core states its preconditions with assert().  They are compiled in for
# the unit tests and the fuzzers, for `make ASSERTS=1` (what the test suite
# builds, tools/suite.sh) and against a server configured with
# --enable-cassert; otherwise out, as PostgreSQL's Assert() is, so that a
# broken precondition never aborts a production backend.
ifneq ($(ASSERTS),1)
ifeq ($(findstring --enable-cassert,$(shell $(PG_CONFIG) --configure)),)
PG_CPPFLAGS += -DNDEBUG
endif
endif

# No LLVM bitcode: the JIT gains nothing inlining these functions, and this
# keeps the build free of a clang version that must match the server's.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# ---- the core's unit tests, plain C, no PostgreSQL ----
UNIT_CFLAGS = -std=c99 -O2 -g -Wall -Wextra -Werror -Wpedantic -Wno-long-long -Icore
UNIT_SRCS = tests/unit/test_core.c $(CORE_OBJS:.o=.c)

tests/unit/test_core: $(UNIT_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -o $@ $(UNIT_SRCS) -lm

# the same tests with the portable 64x64 multiply, which must agree
tests/unit/test_core_portable: $(UNIT_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -DBF_PORTABLE_MULHI -o $@ $(UNIT_SRCS) -lm

# and under AddressSanitizer + UndefinedBehaviorSanitizer, stopping at the first report
tests/unit/test_core_sanitized: $(UNIT_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ $(UNIT_SRCS) -lm

# other makers' filters (core/bf_spark.c, core/bf_guava.c, core/bf_parquet.c, and as bloom
# values, core/bf_makers.c) against vectors their makers wrote (tests/unit/makers/), plainly
# and under the sanitizers
MAKERS_SRCS = tests/unit/test_makers.c $(CORE_OBJS:.o=.c)

tests/unit/test_makers: $(MAKERS_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -o $@ $(MAKERS_SRCS) -lm

tests/unit/test_makers_sanitized: $(MAKERS_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ $(MAKERS_SRCS) -lm

# Parquet's filter, and other makers' filters as bloom values (core/bf_parquet.c, core/bf_makers.c)
PARQUET_SRCS = tests/unit/test_parquet.c $(CORE_OBJS:.o=.c)

tests/unit/test_parquet: $(PARQUET_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -o $@ $(PARQUET_SRCS) -lm

tests/unit/test_parquet_sanitized: $(PARQUET_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ $(PARQUET_SRCS) -lm

# window filters (core/bf_window.c, bf_window_sizing.c, bf_format_window.c, bf_text_tables.c)
WINDOW_SRCS = tests/unit/test_window.c $(CORE_OBJS:.o=.c)

tests/unit/test_window: $(WINDOW_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -o $@ $(WINDOW_SRCS) -lm

tests/unit/test_window_sanitized: $(WINDOW_SRCS) $(CORE_HEADERS) tests/unit/unit.h
	$(CC) $(UNIT_CFLAGS) -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o $@ $(WINDOW_SRCS) -lm

UNIT_BINS = tests/unit/test_core tests/unit/test_core_portable tests/unit/test_core_sanitized \
	tests/unit/test_makers tests/unit/test_makers_sanitized \
	tests/unit/test_parquet tests/unit/test_parquet_sanitized \
	tests/unit/test_window tests/unit/test_window_sanitized

.PHONY: unitcheck
unitcheck: $(UNIT_BINS)
	tests/unit/test_core
	tests/unit/test_core_portable
	tests/unit/test_core_sanitized
	tests/unit/test_makers
	tests/unit/test_makers_sanitized
	tests/unit/test_parquet
	tests/unit/test_parquet_sanitized
	tests/unit/test_window
	tests/unit/test_window_sanitized

EXTRA_CLEAN = $(UNIT_BINS)

# PGXS tracks no header dependencies: rebuild everything when a header changes
$(OBJS): $(CORE_HEADERS) $(wildcard src/*.h src/runtime/*.h src/runtime/*/*.h src/index/*.h)

# ---- libFuzzer targets of the core's parsers (clang) ----
# `make fuzzcheck FUZZ_SECONDS=60` runs each target on a scratch copy of its
# seed corpus (fuzz/corpus/<target>) and fails on any crash, leak or sanitizer
# report.  For a long run: FUZZ_SECONDS=3600.
FUZZ_CC = clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Icore
FUZZ_TARGETS = fuzz/fuzz_text fuzz/fuzz_binary fuzz/fuzz_makers

fuzz/fuzz_%: fuzz/fuzz_%.c $(CORE_OBJS:.o=.c) $(CORE_HEADERS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(CORE_OBJS:.o=.c) -lm

.PHONY: fuzzcheck
fuzzcheck: $(FUZZ_TARGETS)
	@for f in $(FUZZ_TARGETS); do \
		t=$${f#fuzz/fuzz_}; work=$$(mktemp -d); cp fuzz/corpus/$$t/* $$work/; \
		echo "$$f: $(FUZZ_SECONDS) s"; \
		if ! $$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
			-artifact_prefix=fuzz/crash- $$work >$$work.log 2>&1; then \
			tail -n 40 $$work.log; rm -rf $$work $$work.log; exit 1; \
		fi; \
		grep "^Done" $$work.log; rm -rf $$work $$work.log; \
	done

EXTRA_CLEAN += $(FUZZ_TARGETS)

# ---- a PGXN release: make dist ----
# bloomfilter-<version>.zip of the committed tree (HEAD; .gitattributes
# leaves out what only this repository's CI needs), every file under
# bloomfilter-<version>/, the version read from META.json.  tools/pgxn_check.pl
# checks it against PGXN's META.json spec and against the tree.
DIST_VERSION = $(shell sed -n 's/^   "version": "\(.*\)",$$/\1/p' $(srcdir)/META.json)
DIST = $(EXTENSION)-$(DIST_VERSION)

.PHONY: dist
dist:
	git -C $(srcdir) archive --format zip --prefix=$(DIST)/ -o $(CURDIR)/$(DIST).zip HEAD
	perl $(srcdir)/tools/pgxn_check.pl $(CURDIR)/$(DIST).zip
