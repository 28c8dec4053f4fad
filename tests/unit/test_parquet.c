/*
 * test_parquet.c
 *	  Unit tests of Parquet's split block filter (core/bf_parquet.c) and of
 *	  other makers' filters as bloom values (core/bf_makers.c): XXH64
 *	  against Debian's libxxhash, the filter apache/parquet-testing keeps
 *	  (tests/unit/makers/parquet-testing-bloom_filter.xxhash.bin, written by
 *	  parquet-mr), parquet-java's sizing, the Thrift header's edges, Guava's
 *	  own BloomFilterTest's false-positive counts, and the
 *	  Spark and Guava files of tests/unit/makers/ read into bloom values,
 *	  probed there and written back byte for byte.
 *
 * Run from the repository's top folder (make unitcheck).  Ends with
 * "unit: N passed, N failed".
 */
#include "../../core/bf_core.h"
#include "../../core/bf_makers.h"
#include "../../core/bf_parquet.h"
#include "../../core/bf_util.h"
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* XXH64 (seed 0) of the bytes 0, 1, ..., len - 1 (mod 256), from Debian's libxxhash 0.8 */
static void
test_xxh64(void)
{
	static const struct
	{
		size_t len;
		uint64_t hash;
	} cases[] = {
	    {0, UINT64_C(0xef46db3751d8e999)},    {1, UINT64_C(0xe934a84adb052768)},
	    {2, UINT64_C(0x4865a00ba85b7cd6)},    {3, UINT64_C(0xe5c7bb4533bc65dd)},
	    {4, UINT64_C(0xffced8604453cc1e)},    {7, UINT64_C(0x14cc643f630c72d2)},
	    {8, UINT64_C(0x884a173614b81b8d)},    {9, UINT64_C(0x67d85784a7c78c5b)},
	    {15, UINT64_C(0xa948f5f0f6abac2d)},   {16, UINT64_C(0x44b6ef2fb84169f7)},
	    {31, UINT64_C(0xc346d2b59b4d8ee1)},   {32, UINT64_C(0xcbf59c5116ff32b4)},
	    {33, UINT64_C(0x0c535d1acafb8ead)},   {40, UINT64_C(0xf5da40f1b11741e9)},
	    {63, UINT64_C(0xe26aa9e2a95f8e4f)},   {64, UINT64_C(0xf7c67301db6713f0)},
	    {65, UINT64_C(0xc31eb63b2ae4465b)},   {100, UINT64_C(0x6ac1e58032166597)},
	    {1000, UINT64_C(0x6ef436b00eba4078)},
	};
	uint8_t bytes[1000];
	uint8_t le[8];

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t) i;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(bf_parquet_xxh64(cases[i].len ? bytes : NULL, cases[i].len, 0) == cases[i].hash);
	CHECK(bf_parquet_xxh64((const uint8_t *) "hello", 5, 12345) == UINT64_C(0x4e19bc814f608c71));
	CHECK(bf_parquet_xxh64((const uint8_t *) "abc", 3, 0) == UINT64_C(0x44bc2cf5ad770999));
	/* the plain encodings: INT32 42, INT64 42, FLOAT 1.0, DOUBLE -0.0 (not 0.0's hash) */
	bf_store_le(le, 42, 4);
	CHECK(bf_parquet_xxh64(le, 4, 0) == UINT64_C(0xd756d7b62fc50bf1));
	bf_store_le(le, 42, 8);
	CHECK(bf_parquet_xxh64(le, 8, 0) == UINT64_C(0xb556806fb6d14353));
	CHECK(bf_parquet_xxh64_le64(42, 0) == UINT64_C(0xb556806fb6d14353));
	bf_store_le(le, 0x3f800000, 4);
	CHECK(bf_parquet_xxh64(le, 4, 0) == UINT64_C(0x7b54265d12bf1ccd));
	bf_store_le(le, UINT64_C(0x8000000000000000), 8);
	CHECK(bf_parquet_xxh64(le, 8, 0) == UINT64_C(0x3f425eacf01544e0));
}

/* apache/parquet-testing's data/bloom_filter.xxhash.bin: read, probed, and made again here */
static void
test_parquet_testing_file(void)
{
	static const char *const present[] = {"hello", "parquet", "bloom", "filter"};
	static const char *const absent[] = {"",    "a",          "abc",
	                                     "foo", "NOT_EXISTS", "parquet_not_present"};
	FILE *f = fopen("tests/unit/makers/parquet-testing-bloom_filter.xxhash.bin", "rb");
	uint8_t file[2048], mine[2048];
	size_t len = 0, header = 0, nbytes = 0;
	bf_error err;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	len = fread(file, 1, sizeof(file), f);
	fclose(f);
	CHECK(len == 1040);
	CHECK(bf_parquet_looks_headed(file, len));
	CHECK(bf_parquet_read(file, len, true, &header, &nbytes, &err));
	CHECK(header == 16 && nbytes == 1024);
	for (size_t i = 0; i < 4; i++)
		CHECK(bf_parquet_contains_hash(
		    file + header, nbytes,
		    bf_parquet_xxh64((const uint8_t *) present[i], strlen(present[i]), 0)));
	for (size_t i = 0; i < 6; i++)
		CHECK(!bf_parquet_contains_hash(
		    file + header, nbytes,
		    bf_parquet_xxh64((const uint8_t *) absent[i], strlen(absent[i]), 0)));
	/* as parquet-mr made it: a 1024-byte filter, the four strings, its header */
	memset(mine, 0, sizeof(mine));
	CHECK(bf_parquet_write_header(mine, 1024) == 16);
	for (size_t i = 0; i < 4; i++)
		bf_parquet_add_hash(mine + 16, 1024,
		                    bf_parquet_xxh64((const uint8_t *) present[i], strlen(present[i]), 0));
	CHECK(memcmp(mine, file, 1040) == 0);
	/* the bitset alone is read as one */
	CHECK(bf_parquet_read(file + 16, 1024, false, &header, &nbytes, &err));
	CHECK(header == 0 && nbytes == 1024);
}

/* parquet-java's BlockSplitBloomFilter(optimalNumOfBits(n, fpp) / 8), by a model of its code */
static void
test_parquet_sizing(void)
{
	static const struct
	{
		int64_t n;
		double fpp;
		size_t bytes;
	} cases[] = {
	    {0, 0.01, 32},        {1, 0.01, 32},          {10, 0.01, 32},
	    {100, 0.01, 256}, /* parquet-java's "& ~BITS_PER_BLOCK" (Arrow, DuckDB: 128) */
	    {256, 0.01, 512},     {1000, 0.01, 2048},     {1024, 0.01, 2048},
	    {10000, 0.01, 16384}, {100000, 0.01, 131072}, {1000000, 0.01, 2097152},
	    {1000, 0.05, 1024},   {26214, 0.0126, 32768}, {INT64_MAX, 0.01, BF_PARQUET_MAX_BYTES},
	};
	size_t nbytes;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		CHECK(bf_parquet_sizing(cases[i].n, cases[i].fpp, &nbytes));
		CHECK(nbytes == cases[i].bytes);
	}
	CHECK(!bf_parquet_sizing(10, 0.0, &nbytes));
	CHECK(!bf_parquet_sizing(10, 1.0, &nbytes));
	CHECK(!bf_parquet_sizing(-1, 0.01, &nbytes));
	/* the rate of the spec's own example: 1024 blocks of 26,214 values, about 1.26 % */
	CHECK(bf_parquet_fpp(26214.0 / 1024) > 0.0125 && bf_parquet_fpp(26214.0 / 1024) < 0.0128);
	CHECK(bf_parquet_fpp(0.0) == 0.0 && bf_parquet_fpp(1e9) == 1.0);
}

/* Read header+bitset bytes; the status, or BF_OK. */
static bf_status
read_status(const uint8_t *data, size_t len)
{
	size_t header, nbytes;
	bf_error err;

	return bf_parquet_read(data, len, true, &header, &nbytes, &err) ? BF_OK : err.status;
}

static void
test_parquet_header_edges(void)
{
	uint8_t buf[256];
	size_t header, nbytes;
	bf_error err;
	/* numBytes 32; then the three unions */
	static const uint8_t good[] = {0x15, 0x40, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c,
	                               0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00};

	memset(buf, 0, sizeof(buf));
	memcpy(buf, good, sizeof(good));
	CHECK(read_status(buf, sizeof(good) + 32) == BF_OK);
	/* every prefix of the header, and one bitset byte too many or too few */
	for (size_t len = 0; len < sizeof(good); len++)
		CHECK(read_status(buf, len) == BF_ERR_FORMAT);
	CHECK(read_status(buf, sizeof(good) + 31) == BF_ERR_FORMAT);
	CHECK(read_status(buf, sizeof(good) + 33) == BF_ERR_FORMAT);
	/* another algorithm, hash or compression: the union's field 2 */
	for (size_t at = 3; at <= 11; at += 4)
	{
		memcpy(buf, good, sizeof(good));
		buf[at] = 0x2c;
		CHECK(read_status(buf, sizeof(good) + 32) == BF_ERR_VERSION);
	}
	/* a union with no member */
	{
		static const uint8_t none[] = {0x15, 0x40, 0x1c, 0x00, 0x1c, 0x1c, 0x00,
		                               0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00};

		memset(buf, 0, sizeof(buf));
		memcpy(buf, none, sizeof(none));
		CHECK(read_status(buf, sizeof(none) + 32) == BF_ERR_VERSION);
	}
	/* numBytes of 33, of 16, and negative */
	{
		uint8_t odd[sizeof(good)];

		memcpy(odd, good, sizeof(good));
		odd[1] = 0x42; /* 33 */
		memset(buf, 0, sizeof(buf));
		memcpy(buf, odd, sizeof(odd));
		CHECK(read_status(buf, sizeof(odd) + 33) == BF_ERR_FORMAT);
		odd[1] = 0x20; /* 16 */
		memcpy(buf, odd, sizeof(odd));
		CHECK(read_status(buf, sizeof(odd) + 16) == BF_ERR_FORMAT);
		odd[1] = 0x3f; /* -32 */
		memcpy(buf, odd, sizeof(odd));
		CHECK(read_status(buf, sizeof(odd) + 32) == BF_ERR_FORMAT);
	}
	/* a field a later Parquet may add (5: a binary of 3 bytes) is skipped; field 1 twice is not */
	{
		static const uint8_t extra[] = {0x15, 0x40, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00,
		                                0x1c, 0x1c, 0x00, 0x00, 0x18, 0x03, 'a',  'b',  'c',  0x00};
		static const uint8_t twice[] = {0x15, 0x40, 0x05, 0x02, 0x40, 0x1c, 0x1c, 0x00, 0x00,
		                                0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00};

		memset(buf, 0, sizeof(buf));
		memcpy(buf, extra, sizeof(extra));
		CHECK(read_status(buf, sizeof(extra) + 32) == BF_OK);
		memset(buf, 0, sizeof(buf));
		memcpy(buf, twice, sizeof(twice));
		CHECK(read_status(buf, sizeof(twice) + 32) == BF_ERR_FORMAT);
	}
	/* a field header in the long form (delta 0, then the id) */
	{
		static const uint8_t longform[] = {0x05, 0x02, 0x40, 0x1c, 0x1c, 0x00, 0x00, 0x1c,
		                                   0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00};

		memset(buf, 0, sizeof(buf));
		memcpy(buf, longform, sizeof(longform));
		CHECK(read_status(buf, sizeof(longform) + 32) == BF_OK);
	}
	/* nesting past the reader's depth, in a field it skips */
	{
		size_t n = 0;

		buf[n++] = 0x15;
		buf[n++] = 0x40;
		for (int i = 0; i < 40 && n < 60; i++)
			buf[n++] = 0x1c; /* field 2, 3, ...: structs in structs */
		CHECK(read_status(buf, n) == BF_ERR_FORMAT);
	}
	/* a bare bitset: a multiple of 32 bytes within the bounds */
	CHECK(bf_parquet_read(buf, 64, false, &header, &nbytes, &err) && nbytes == 64);
	CHECK(!bf_parquet_read(buf, 48, false, &header, &nbytes, &err));
	CHECK(!bf_parquet_read(buf, 0, false, &header, &nbytes, &err));
}

#define MAX_FILTER 4096

/*
 * A file of tests/unit/makers/ (Spark's or Guava's filter, then keys and
 * the maker's answers) read into a bloom value with element key elem: it
 * passes the header's and the data's checks, answers every key as the
 * maker did, is refused by the checks of code that does not know it, and
 * is written back in its maker's bytes.
 */
static void
check_as_value(const char *path, bf_maker_form form, const char *elem)
{
	FILE *f = fopen(path, "r");
	char maker[8], type[16], hex[2 * MAX_FILTER + 2], key[600];
	uint8_t filter[MAX_FILTER], value[MAX_FILTER + 512], back[MAX_FILTER], bytes[300];
	long filter_len, n, keys = 0, disagreed = 0;
	double fpp;
	int answer;
	size_t size;
	const uint8_t *bits;
	bf_params p;
	bf_view view, checked;
	bf_error err;
	bool is_long = strcmp(elem, "spark:int8") == 0 || strcmp(elem, "guava:int8") == 0;
	bool is_int = strcmp(elem, "guava:int4") == 0;

	CHECK(f != NULL);
	if (f == NULL)
		return;
	CHECK(fscanf(f, "%7s %15s %ld %lf %8193s", maker, type, &n, &fpp, hex) == 5);
	filter_len = from_hex(hex, filter, sizeof(filter));
	CHECK(filter_len > 0);
	CHECK(bf_maker_read(form, filter, (size_t) filter_len, &p, &bits, &err));
	CHECK(bf_payload_size(&p, BF_FLAG_N_UNKNOWN, strlen(elem), &size, &err) &&
	      size <= sizeof(value));
	bf_init_header(value, &p, BF_FLAG_N_UNKNOWN, elem, strlen(elem), 0, &view);
	memcpy(view.data, bits, view.nbytes);
	CHECK(bf_check_header_all(value, size, &checked, &err));
	CHECK(bf_check_data(&checked, bf_occupied(&checked, 0, checked.nbytes), &err));
	CHECK(!bf_check_header(value, size, &checked, &err) && err.status == BF_ERR_PARAM);
	while (fscanf(f, "%599s %d", key, &answer) == 2)
	{
		long len;

		if (is_long || is_int)
		{
			len = is_long ? 8 : 4;
			bf_store_le(bytes,
			            is_long ? (uint64_t) strtoll(key, NULL, 10)
			                    : (uint32_t) (int32_t) strtol(key, NULL, 10),
			            (int) len);
		}
		else
			len = key[0] == 'x' ? from_hex(key + 1, bytes, sizeof(bytes)) : -1;
		CHECK(len >= 0);
		if (bf_maker_contains(&view, len > 0 ? bytes : NULL, (size_t) len) != (answer == 1))
			disagreed++;
		/* the probes without a division answer alike */
		if (bf_maker_contains_recip(&view, bf_maker_recip(&view), len > 0 ? bytes : NULL,
		                            (size_t) len) != (answer == 1))
			disagreed++;
		if (is_long && bf_maker_contains_long(&view, bf_maker_recip(&view),
		                                      (int64_t) bf_load_le(bytes, 8)) != (answer == 1))
			disagreed++;
		keys++;
	}
	fclose(f);
	CHECK(keys > n && disagreed == 0);
	CHECK(bf_maker_write_size(&view, form) == (size_t) filter_len);
	bf_maker_write(&view, form, back);
	CHECK(memcmp(back, filter, (size_t) filter_len) == 0);
	/* no other maker's form */
	CHECK(bf_maker_write_size(&view, form == BF_FORM_SPARK ? BF_FORM_GUAVA : BF_FORM_SPARK) == 0);
	printf("     %s as a bloom value (%s): %ld answers as its maker's\n", path, elem, keys);
}

static void
test_makers_as_values(void)
{
	check_as_value("tests/unit/makers/spark-v1-long.txt", BF_FORM_SPARK, "spark:int8");
	check_as_value("tests/unit/makers/spark-v2-string.txt", BF_FORM_SPARK, "spark:text");
	check_as_value("tests/unit/makers/spark-v2seed-long.txt", BF_FORM_SPARK, "spark:int8");
	check_as_value("tests/unit/makers/guava-long.txt", BF_FORM_GUAVA, "guava:int8");
	check_as_value("tests/unit/makers/guava-integer.txt", BF_FORM_GUAVA, "guava:int4");
	check_as_value("tests/unit/makers/guava-chars.txt", BF_FORM_GUAVA, "guava:chars");
}

/* The values' adds give the maker's bytes; text round-trips; unions of one shape OR. */
static void
test_maker_values_write(void)
{
	bf_params p;
	bf_view view, back;
	bf_error err;
	uint8_t value[4096], parsed[4096], le[8];
	char text[8192];
	size_t size, parsed_len;

	/* a Parquet filter for 100 values at 1 %, as parquet-java sizes it: 256 bytes */
	CHECK(bf_maker_sizing(BF_LAYOUT_PARQUET, BF_SCHEME_PARQUET, 100, 0.01, &p, &err));
	CHECK(p.ncells == 2048 && p.nhashes == 8 && p.seed == 0);
	CHECK(bf_payload_size(&p, 0, 12, &size, &err) && size < sizeof(value));
	bf_init(value, &p, 0, "parquet:int8", 12, 0, &view);
	for (int64_t v = 1; v <= 100; v++)
	{
		bf_store_le(le, (uint64_t) v, 8);
		bf_maker_add(&view, le, 8);
	}
	bf_view_set_nadded(&view, 100);
	for (int64_t v = 1; v <= 100; v++)
	{
		bf_store_le(le, (uint64_t) v, 8);
		CHECK(bf_maker_contains(&view, le, 8));
	}
	CHECK(bf_check_header_all(value, size, &back, &err));
	CHECK(bf_check_data(&back, bf_occupied(&back, 0, back.nbytes), &err));
	/* more bits than 8 per value added: refused */
	bf_view_set_nadded(&view, 1);
	CHECK(bf_check_header_all(value, size, &back, &err));
	CHECK(!bf_check_data(&back, bf_occupied(&back, 0, back.nbytes), &err));
	bf_view_set_nadded(&view, 100);
	/* the text form names the layout and parses back to the same bytes */
	CHECK(bf_text_length(&view) < sizeof(text));
	bf_text_write(&view, text);
	/* (the key's colon percent-encoded, as any byte outside [A-Za-z0-9_.@$-]) */
	CHECK(strncmp(text, "v1 parquet m=2048 k=8 scheme=5 seed=0 n=100 elem=parquet%3Aint8 bits=",
	              69) == 0);
	CHECK(bf_text_parse(text, strlen(text), NULL, &parsed_len, &err) && parsed_len == size);
	CHECK(bf_text_parse(text, strlen(text), parsed, &parsed_len, &err));
	CHECK(memcmp(parsed, value, size) == 0);
	/* a key of another maker, an unknown key, an unknown n with a count */
	{
		char bad[8192];
		const char *at = strstr(text, "elem=");

		snprintf(bad, sizeof(bad), "%.*selem=spark%%3Aint8%s", (int) (at - text), text,
		         strstr(text, " bits="));
		CHECK(!bf_text_parse(bad, strlen(bad), NULL, &parsed_len, &err) &&
		      err.status == BF_ERR_FORMAT);
		snprintf(bad, sizeof(bad), "%.*selem=parquet%%3Aint16%s", (int) (at - text), text,
		         strstr(text, " bits="));
		CHECK(!bf_text_parse(bad, strlen(bad), NULL, &parsed_len, &err));
	}
	/* n unknown: written and read as "n=unknown"; only another maker's filter has it */
	{
		uint8_t unknown[4096];
		bf_view u;

		bf_init(unknown, &p, BF_FLAG_N_UNKNOWN, "parquet:int8", 12, 0, &u);
		memcpy(u.data, view.data, view.nbytes);
		bf_text_write(&u, text);
		CHECK(strstr(text, " n=unknown elem=") != NULL);
		CHECK(bf_text_parse(text, strlen(text), parsed, &parsed_len, &err));
		CHECK(memcmp(parsed, unknown, parsed_len) == 0);
		CHECK(bf_check_header_all(unknown, size, &back, &err));
		CHECK(bf_check_data(&back, bf_occupied(&back, 0, back.nbytes), &err));
		/* with a count besides: refused */
		bf_store_le(unknown + BF_OFF_NADDED, 5, 8);
		CHECK(!bf_check_header_all(unknown, size, &back, &err));
		CHECK(!bf_flags_check(BF_LAYOUT_CLASSIC, BF_FLAG_N_UNKNOWN, &err));
	}
	/* shapes the format refuses */
	{
		bf_params q = p;

		q.nhashes = 7;
		CHECK(!bf_params_check(&q, 12, &err));
		q = p;
		q.ncells = 2048 + 64;
		CHECK(!bf_params_check(&q, 12, &err));
		q = p;
		q.seed = 1;
		CHECK(!bf_params_check(&q, 12, &err));
		q = p;
		q.scheme = BF_SCHEME_GUAVA;
		CHECK(!bf_params_check(&q, 12, &err));
		q.layout = BF_LAYOUT_SPARK;
		q.scheme = BF_SCHEME_SPARK_V2;
		q.seed = (uint64_t) (int64_t) INT32_MIN;
		CHECK(bf_params_check(&q, 12, &err));
		q.seed = (uint64_t) INT32_MAX + 1;
		CHECK(!bf_params_check(&q, 12, &err));
		q.scheme = BF_SCHEME_SPARK_V1;
		q.seed = (uint64_t) (int64_t) -1;
		CHECK(!bf_params_check(&q, 12, &err));
		q.layout = BF_LAYOUT_GUAVA;
		q.scheme = BF_SCHEME_GUAVA;
		q.seed = 0;
		q.nhashes = 256;
		CHECK(!bf_params_check(&q, 12, &err));
	}
}

/*
 * Guava's own BloomFilterTest (MURMUR128_MITZ_64): a filter created for a
 * million values at 3 % holding the even numbers below two million, as
 * strings, passes exactly 30104 of the odd ones (unencodedCharsFunnel) or
 * 29763 (stringFunnel(UTF_8)), and below 900 exactly the ones it lists.
 */
static void
guava_known_false_positives(bool chars, long expected, const int *below_900, size_t nbelow)
{
	bf_params p;
	bf_error err;
	uint8_t *value;
	size_t size, fp_small = 0;
	long fp = 0;
	bf_view view;
	const char *elem = chars ? "guava:chars" : "guava:text";

	CHECK(bf_maker_sizing(BF_LAYOUT_GUAVA, BF_SCHEME_GUAVA, 1000000, 0.03, &p, &err));
	CHECK(bf_payload_size(&p, 0, strlen(elem), &size, &err));
	value = malloc(size);
	bf_init(value, &p, 0, elem, strlen(elem), 0, &view);
	for (int pass = 0; pass < 2; pass++)
		for (int i = pass; i < 2000000; i += 2)
		{
			char digits[16];
			uint8_t units[32];
			int n = snprintf(digits, sizeof(digits), "%d", i);
			const uint8_t *in = (const uint8_t *) digits;
			size_t len = (size_t) n;

			if (chars)
			{
				len = (size_t) bf_utf8_to_utf16le(in, len, units);
				in = units;
			}
			if (pass == 0)
				bf_maker_add(&view, in, len);
			else if (bf_maker_contains(&view, in, len))
			{
				fp++;
				if (i < 900)
				{
					bool listed = false;

					for (size_t j = 0; j < nbelow; j++)
						listed = listed || below_900[j] == i;
					CHECK(listed);
					fp_small++;
				}
			}
		}
	CHECK(fp == expected);
	CHECK(fp_small == nbelow);
	printf("     Guava's BloomFilterTest, %s: %ld false positives (Guava's: %ld)\n",
	       chars ? "unencodedCharsFunnel" : "stringFunnel(UTF_8)", fp, expected);
	free(value);
}

static void
test_guava_published(void)
{
	static const int chars_fp[] = {15, 25, 287, 319, 381, 399, 421, 465, 529, 697, 767, 857};
	static const int utf8_fp[] = {129, 471, 723, 89, 751, 835, 871};

	guava_known_false_positives(true, 30104, chars_fp, sizeof(chars_fp) / sizeof(chars_fp[0]));
	guava_known_false_positives(false, 29763, utf8_fp, sizeof(utf8_fp) / sizeof(utf8_fp[0]));
}

/* bf_mod (a multiply-high and at most two subtractions) is a mod m, for every size of m and a */
static void
test_mod(void)
{
	static const uint64_t ms[] = {1,
	                              3,
	                              64,
	                              640,
	                              1000003,
	                              UINT64_C(1) << 31,
	                              (UINT64_C(1) << 33) - 64,
	                              (UINT64_C(1) << 37) - 1,
	                              UINT64_C(0xFFFFFFFFFFFFFFFF) / 3};
	uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
	long wrong = 0;

	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
	{
		uint64_t recip = bf_mod_recip(ms[i]);

		for (int j = 0; j < 200000; j++)
		{
			uint64_t a;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			a = j % 4 == 0 ? x >> 1 : j % 4 == 1 ? x >> 33 : j % 4 == 2 ? x : (uint64_t) j;
			wrong += bf_mod(a, ms[i], recip) != a % ms[i];
		}
		wrong += bf_mod(UINT64_MAX, ms[i], recip) != UINT64_MAX % ms[i];
		wrong += bf_mod(ms[i] - 1, ms[i], recip) != (ms[i] - 1) % ms[i];
		wrong += bf_mod(ms[i], ms[i], recip) != 0;
	}
	CHECK(wrong == 0);
}

static void
test_utf16(void)
{
	uint8_t out[64];
	/* "a", U+00E9, U+20AC, U+1D11E (a surrogate pair) */
	static const uint8_t utf8[] = {'a', 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9d, 0x84, 0x9e};
	static const uint8_t utf16[] = {'a', 0, 0xe9, 0, 0xac, 0x20, 0x34, 0xd8, 0x1e, 0xdd};
	static const uint8_t *const bad[] = {
	    (const uint8_t *) "\xc3",         (const uint8_t *) "\xc0\x80",
	    (const uint8_t *) "\xed\xa0\x80", (const uint8_t *) "\xf4\x90\x80\x80",
	    (const uint8_t *) "\xff",         (const uint8_t *) "\xe2\x28\xa1",
	};

	CHECK(bf_utf8_to_utf16le(utf8, sizeof(utf8), out) == (long) sizeof(utf16));
	CHECK(memcmp(out, utf16, sizeof(utf16)) == 0);
	CHECK(bf_utf8_to_utf16le(utf8, 0, out) == 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(bf_utf8_to_utf16le(bad[i], strlen((const char *) bad[i]), out) == -1);
}

int
main(void)
{
	run("xxh64", test_xxh64);
	run("parquet_testing_file", test_parquet_testing_file);
	run("parquet_sizing", test_parquet_sizing);
	run("parquet_header_edges", test_parquet_header_edges);
	run("makers_as_values", test_makers_as_values);
	run("maker_values_write", test_maker_values_write);
	run("guava_published", test_guava_published);
	run("mod", test_mod);
	run("utf16", test_utf16);
	return unit_summary();
}
