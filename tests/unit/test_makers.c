/*
 * test_makers.c
 *	  Unit tests of the core's copies of other makers' Bloom filters
 *	  (core/bf_spark.c, core/bf_guava.c), against vectors their makers wrote
 *	  (tests/unit/makers/, made by make_vectors.sh with Spark's own classes
 *	  and with Guava).
 *
 * Each test is a function; CHECK records a failure with its line and goes
 * on.  The program ends with "unit: N passed, N failed" and exits non-zero
 * if anything failed.  Run from the repository's top folder (make
 * unitcheck), which the vectors are read from.
 */
#include "../../core/bf_guava.h"
#include "../../core/bf_spark.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILTER 4096
#define MAX_KEY 256

/*
 * One file of make_vectors.sh's: the maker's filter read here answers each
 * key as the maker did, and the first n keys, added to a filter sized here
 * as Spark sizes one, give the maker's bytes.
 */
static void
check_spark_file(const char *path, int32_t seed)
{
	FILE *f = fopen(path, "r");
	char version[8], type[16], hex[2 * MAX_FILTER + 2], key[2 * MAX_KEY + 4];
	uint8_t filter[MAX_FILTER], mine[MAX_FILTER], bytes[MAX_KEY];
	long filter_len, n, agreed = 0, disagreed = 0, keys = 0;
	double fpp;
	int answer;
	int64_t bits;
	int32_t k;
	bf_spark_view view;
	bf_error err;

	CHECK(f != NULL);
	if (f == NULL)
	{
		fprintf(stderr, "  cannot open %s (run from the top folder)\n", path);
		return;
	}
	CHECK(fscanf(f, "%7s %15s %ld %lf %8193s", version, type, &n, &fpp, hex) == 5);
	filter_len = from_hex(hex, filter, sizeof(filter));
	CHECK(filter_len > 0);
	CHECK(bf_spark_read(filter, (size_t) filter_len, &view, &err));
	CHECK(view.version == (strcmp(version, "v1") == 0 ? BF_SPARK_V1 : BF_SPARK_V2));
	CHECK(view.seed == seed);
	/* a filter sized and filled here, as Spark's create(n, fpp) and put */
	CHECK(bf_spark_sizing(n, fpp, &bits, &k));
	CHECK(k == view.k && (uint64_t) (bits + 63) / 64 == view.nwords);
	CHECK(bf_spark_size(view.version, view.nwords) == (size_t) filter_len);
	bf_spark_write_empty(mine, view.version, k, seed, view.nwords);
	while (fscanf(f, "%515s %d", key, &answer) == 2)
	{
		bool maybe;

		if (strcmp(type, "long") == 0)
		{
			int64_t v = strtoll(key, NULL, 10);

			if (keys < n)
				bf_spark_add_long(mine, v);
			maybe = bf_spark_contains_long(&view, v);
		}
		else
		{
			long len = from_hex(key + 1, bytes, sizeof(bytes));

			CHECK(key[0] == 'x' && len >= 0);
			if (keys < n)
				bf_spark_add_bytes(mine, bytes, (size_t) len);
			maybe = bf_spark_contains_bytes(&view, len > 0 ? bytes : NULL, (size_t) len);
		}
		if (maybe == (answer == 1))
			agreed++;
		else
			disagreed++;
		keys++;
	}
	fclose(f);
	CHECK(keys > n && disagreed == 0);
	CHECK(memcmp(mine, filter, (size_t) filter_len) == 0);
	printf("     %s: %ld of %ld answers as Spark's\n", path, agreed, keys);
}

static void
test_spark_vectors(void)
{
	check_spark_file("tests/unit/makers/spark-v1-long.txt", 0);
	check_spark_file("tests/unit/makers/spark-v1-string.txt", 0);
	check_spark_file("tests/unit/makers/spark-v2-long.txt", 0);
	check_spark_file("tests/unit/makers/spark-v2-string.txt", 0);
	check_spark_file("tests/unit/makers/spark-v2seed-long.txt", -123456789);
}

/* Spark's optimalNumOfBits and optimalNumOfHashFunctions, case by case. */
static void
test_spark_sizing(void)
{
	FILE *f = fopen("tests/unit/makers/spark-sizing.txt", "r");
	char line[256];
	int cases = 0;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		long long n, want_bits, want_words;
		double fpp;
		int want_k;
		int64_t bits;
		int32_t k;

		if (line[0] == '#')
			continue;
		CHECK(sscanf(line, "%lld %lf %lld %lld %d", &n, &fpp, &want_bits, &want_words, &want_k) ==
		      5);
		CHECK(bf_spark_sizing(n, fpp, &bits, &k));
		CHECK(bits == want_bits && (bits + 63) / 64 == want_words && k == want_k);
		cases++;
	}
	fclose(f);
	CHECK(cases > 50);
	/* what Spark refuses */
	{
		int64_t bits;
		int32_t k;

		CHECK(!bf_spark_sizing(0, 0.01, &bits, &k));
		CHECK(!bf_spark_sizing(10, 0.0, &bits, &k));
		CHECK(!bf_spark_sizing(10, 1.0, &bits, &k));
		CHECK(!bf_spark_sizing(10, -0.5, &bits, &k));
		/* 0.9: fewer than one bit */
		CHECK(!bf_spark_sizing(1, 0.9, &bits, &k));
	}
}

/* Malformed bytes: each refused with its status, never read past len. */
static void
test_spark_read_rejects(void)
{
	/* a version 2 filter of one word: version, k, seed, words, the word */
	uint8_t good[24] = {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1};
	uint8_t bad[24];
	bf_spark_view view;
	bf_error err;

	CHECK(bf_spark_read(good, sizeof(good), &view, &err));
	CHECK(view.version == 2 && view.k == 3 && view.seed == 9 && view.nwords == 1);
	/* every shorter prefix, and one byte more */
	for (size_t len = 0; len < sizeof(good); len++)
		CHECK(!bf_spark_read(good, len, &view, &err) && err.status == BF_ERR_FORMAT);
	{
		uint8_t longer[25];

		memcpy(longer, good, sizeof(good));
		longer[24] = 0;
		CHECK(!bf_spark_read(longer, sizeof(longer), &view, &err) && err.status == BF_ERR_FORMAT);
	}
	/* versions 0, 3 and -1 */
	for (int v = 0; v < 3; v++)
	{
		memcpy(bad, good, sizeof(good));
		bad[3] = v == 0 ? 0 : v == 1 ? 3 : 0xff;
		if (v == 2)
			bad[0] = bad[1] = bad[2] = 0xff;
		CHECK(!bf_spark_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_VERSION);
	}
	/* k of 0, -1 and BF_SPARK_MAX_K + 1 */
	for (int v = 0; v < 3; v++)
	{
		uint32_t k = v == 0 ? 0 : v == 1 ? 0xffffffffu : BF_SPARK_MAX_K + 1;

		memcpy(bad, good, sizeof(good));
		bad[4] = (uint8_t) (k >> 24);
		bad[5] = (uint8_t) (k >> 16);
		bad[6] = (uint8_t) (k >> 8);
		bad[7] = (uint8_t) k;
		CHECK(!bf_spark_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_PARAM);
	}
	/* a word count of 0, -1, and 2 with the bytes of 1 */
	memcpy(bad, good, sizeof(good));
	bad[15] = 0;
	CHECK(!bf_spark_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_PARAM);
	bad[12] = bad[13] = bad[14] = bad[15] = 0xff;
	CHECK(!bf_spark_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_PARAM);
	bad[12] = bad[13] = bad[14] = 0;
	bad[15] = 2;
	CHECK(!bf_spark_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_FORMAT);
	/* version 1 has no seed: the same bytes say 9 words (the seed) and hold 1.5 */
	memcpy(bad, good, sizeof(good));
	bad[3] = 1;
	CHECK(!bf_spark_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_FORMAT);
}

/* A Guava funnel's bytes for key: a long's 8 or an int's 4 little-endian, or the hex given. */
static long
funnel_bytes(const char *funnel, const char *key, uint8_t *out, size_t room)
{
	int nbytes = strcmp(funnel, "long") == 0 ? 8 : strcmp(funnel, "integer") == 0 ? 4 : 0;

	if (nbytes == 0)
		return key[0] == 'x' ? from_hex(key + 1, out, room) : -1;
	if (nbytes == 8)
		bf_store_le(out, (uint64_t) strtoll(key, NULL, 10), 8);
	else
		bf_store_le(out, (uint32_t) (int32_t) strtol(key, NULL, 10), 4);
	return nbytes;
}

/*
 * One guava-FUNNEL.txt: the maker's filter read here answers each key as
 * Guava did, and the first n keys, added to a filter sized here as Guava
 * sizes one, give Guava's bytes.
 */
static void
check_guava_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char maker[8], funnel[16], hex[2 * MAX_FILTER + 2], key[2 * MAX_KEY + 4];
	uint8_t filter[MAX_FILTER], mine[MAX_FILTER], bytes[MAX_KEY];
	long filter_len, n, agreed = 0, disagreed = 0, keys = 0;
	double fpp;
	int answer, k;
	int64_t bits;
	bf_guava_view view;
	bf_error err;

	CHECK(f != NULL);
	if (f == NULL)
	{
		fprintf(stderr, "  cannot open %s (run from the top folder)\n", path);
		return;
	}
	CHECK(fscanf(f, "%7s %15s %ld %lf %8193s", maker, funnel, &n, &fpp, hex) == 5);
	filter_len = from_hex(hex, filter, sizeof(filter));
	CHECK(filter_len > 0 && strcmp(maker, "guava") == 0);
	CHECK(bf_guava_read(filter, (size_t) filter_len, &view, &err));
	CHECK(bf_guava_sizing(n, fpp, &bits, &k));
	CHECK(k == view.k && (uint64_t) (bits + 63) / 64 == view.nwords);
	CHECK(bf_guava_size(view.nwords) == (size_t) filter_len);
	bf_guava_write_empty(mine, k, view.nwords);
	while (fscanf(f, "%515s %d", key, &answer) == 2)
	{
		long len = funnel_bytes(funnel, key, bytes, sizeof(bytes));
		bool maybe;

		CHECK(len >= 0);
		if (keys < n)
			bf_guava_add(mine, bytes, (size_t) len);
		maybe = bf_guava_contains(&view, len > 0 ? bytes : NULL, (size_t) len);
		if (maybe == (answer == 1))
			agreed++;
		else
			disagreed++;
		keys++;
	}
	fclose(f);
	CHECK(keys > n && disagreed == 0);
	CHECK(memcmp(mine, filter, (size_t) filter_len) == 0);
	printf("     %s: %ld of %ld answers as Guava's\n", path, agreed, keys);
}

static void
test_guava_vectors(void)
{
	check_guava_file("tests/unit/makers/guava-long.txt");
	check_guava_file("tests/unit/makers/guava-integer.txt");
	check_guava_file("tests/unit/makers/guava-utf8.txt");
	check_guava_file("tests/unit/makers/guava-chars.txt");
}

/*
 * MurmurHash3 x64 128 under seed 0 as published: the empty input, and
 * Guava's documented murmur3_128 of "The quick brown fox jumps over the
 * lazy dog" (its 16 bytes: h1 then h2, little-endian).
 */
static void
test_guava_murmur3(void)
{
	const char *fox = "The quick brown fox jumps over the lazy dog";
	uint8_t want[16], got[16];
	uint64_t h1, h2;

	bf_guava_hash(NULL, 0, &h1, &h2);
	CHECK(h1 == 0 && h2 == 0);
	bf_guava_hash((const uint8_t *) fox, strlen(fox), &h1, &h2);
	bf_store_le(got, h1, 8);
	bf_store_le(got + 8, h2, 8);
	CHECK(from_hex("6c1b07bc7bbc4be347939ac4a93c437a", want, sizeof(want)) == 16);
	CHECK(memcmp(got, want, 16) == 0);
}

/* Guava's sizing, case by case, and what it refuses. */
static void
test_guava_sizing(void)
{
	FILE *f = fopen("tests/unit/makers/guava-sizing.txt", "r");
	char line[256];
	int cases = 0, refusals = 0;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		long long n, want_words;
		double fpp;
		int want_k, k;
		int64_t bits;
		char word[16];

		if (line[0] == '#')
			continue;
		if (sscanf(line, "%lld %lf %15s", &n, &fpp, word) == 3 && strcmp(word, "refused") == 0)
		{
			CHECK(!bf_guava_sizing(n, fpp, &bits, &k));
			refusals++;
			continue;
		}
		CHECK(sscanf(line, "%lld %lf %lld %d", &n, &fpp, &want_words, &want_k) == 4);
		CHECK(bf_guava_sizing(n, fpp, &bits, &k));
		CHECK((bits + 63) / 64 == want_words && k == want_k);
		cases++;
	}
	fclose(f);
	CHECK(cases > 50 && refusals > 5);
}

/* Malformed bytes: each refused with its status. */
static void
test_guava_read_rejects(void)
{
	uint8_t good[14] = {1, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1};
	uint8_t bad[14];
	bf_guava_view view;
	bf_error err;

	CHECK(bf_guava_read(good, sizeof(good), &view, &err));
	CHECK(view.k == 3 && view.nwords == 1);
	for (size_t len = 0; len < sizeof(good); len++)
		CHECK(!bf_guava_read(good, len, &view, &err) && err.status == BF_ERR_FORMAT);
	memcpy(bad, good, sizeof(good));
	bad[0] = 0; /* MURMUR128_MITZ_32 */
	CHECK(!bf_guava_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_VERSION);
	bad[0] = 2;
	CHECK(!bf_guava_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_VERSION);
	memcpy(bad, good, sizeof(good));
	bad[1] = 0;
	CHECK(!bf_guava_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_PARAM);
	memcpy(bad, good, sizeof(good));
	bad[5] = 0;
	CHECK(!bf_guava_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_PARAM);
	bad[2] = 0x80; /* -2^31 words */
	CHECK(!bf_guava_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_PARAM);
	memcpy(bad, good, sizeof(good));
	bad[5] = 2;
	CHECK(!bf_guava_read(bad, sizeof(bad), &view, &err) && err.status == BF_ERR_FORMAT);
}

int
main(void)
{
	run("spark_vectors", test_spark_vectors);
	run("spark_sizing", test_spark_sizing);
	run("spark_read_rejects", test_spark_read_rejects);
	run("guava_vectors", test_guava_vectors);
	run("guava_murmur3", test_guava_murmur3);
	run("guava_sizing", test_guava_sizing);
	run("guava_read_rejects", test_guava_read_rejects);
	return unit_summary();
}
