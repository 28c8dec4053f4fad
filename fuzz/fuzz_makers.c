/*
 * fuzz_makers.c
 *	  libFuzzer target: the readers of other makers' serialized Bloom
 *	  filters (bf_spark_read, bf_guava_read, bf_parquet_read with and without
 *	  its Thrift header, and bf_maker_read of each form) and every probe of
 *	  an accepted one.
 *
 * Whatever the bytes, each reader must reject them or accept a filter
 * whose words lie inside the buffer: probes (of longs and of byte strings
 * of every tail length) then run on it under AddressSanitizer, and a
 * filter written here of its shape must hold what is added to it (no false
 * negative).
 */
#include "../core/bf_guava.h"
#include "../core/bf_makers.h"
#include "../core/bf_parquet.h"
#include "../core/bf_spark.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Spark's reader, its probes, and a filter of its shape written and probed here. */
static void
spark(const uint8_t *buf, size_t size)
{
	bf_spark_view view, check;
	bf_error err;
	uint8_t *mine;

	if (!bf_spark_read(buf, size, &view, &err))
		return;
	for (int64_t v = -3; v < 13; v++)
		(void) bf_spark_contains_long(&view, v * INT64_C(0x9E3779B97F4A7C15));
	for (size_t len = 0; len <= 9 && len <= size; len++)
		(void) bf_spark_contains_bytes(&view, len ? buf : NULL, len);
	if (view.nwords > 64)
		return;
	mine = malloc(bf_spark_size(view.version, view.nwords));
	bf_spark_write_empty(mine, view.version, view.k, view.seed, view.nwords);
	for (size_t len = 0; len <= 9 && len <= size; len++)
	{
		bf_spark_add_bytes(mine, len ? buf : NULL, len);
		bf_spark_add_long(mine, (int64_t) len - 5);
		if (!bf_spark_read(mine, bf_spark_size(view.version, view.nwords), &check, &err) ||
		    !bf_spark_contains_bytes(&check, len ? buf : NULL, len) ||
		    !bf_spark_contains_long(&check, (int64_t) len - 5))
			abort();
	}
	free(mine);
}

/* Guava's reader, its probes, and a filter of its shape written and probed here. */
static void
guava(const uint8_t *buf, size_t size)
{
	bf_guava_view view, check;
	bf_error err;
	uint8_t *mine;

	if (!bf_guava_read(buf, size, &view, &err))
		return;
	for (size_t len = 0; len <= 17 && len <= size; len++)
		(void) bf_guava_contains(&view, len ? buf : NULL, len);
	if (view.nwords > 64)
		return;
	mine = malloc(bf_guava_size(view.nwords));
	bf_guava_write_empty(mine, view.k, view.nwords);
	for (size_t len = 0; len <= 17 && len <= size; len++)
	{
		bf_guava_add(mine, len ? buf : NULL, len);
		if (!bf_guava_read(mine, bf_guava_size(view.nwords), &check, &err) ||
		    !bf_guava_contains(&check, len ? buf : NULL, len))
			abort();
	}
	free(mine);
}

/* Parquet's reader (both ways), probes of the bitset it accepts, and adds found. */
static void
parquet(const uint8_t *buf, size_t size)
{
	for (int headed = 0; headed <= 1; headed++)
	{
		size_t header, nbytes;
		bf_error err;
		uint8_t *mine;

		if (!bf_parquet_read(buf, size, headed, &header, &nbytes, &err))
			continue;
		if (header + nbytes != size || nbytes % BF_PARQUET_BLOCK_BYTES != 0)
			abort();
		for (size_t len = 0; len <= 9 && len <= size; len++)
			(void) bf_parquet_contains_hash(buf + header, nbytes,
			                                bf_parquet_xxh64(len ? buf : NULL, len, 0));
		if (nbytes > 4096)
			continue;
		mine = malloc(nbytes);
		memcpy(mine, buf + header, nbytes);
		for (size_t len = 0; len <= 9 && len <= size; len++)
		{
			uint64_t h = bf_parquet_xxh64(len ? buf : NULL, len, 0);

			bf_parquet_add_hash(mine, nbytes, h);
			if (!bf_parquet_contains_hash(mine, nbytes, h))
				abort();
		}
		free(mine);
	}
}

/* bf_maker_read of each form: what it accepts has a shape the format takes. */
static void
makers(const uint8_t *buf, size_t size)
{
	static const bf_maker_form forms[] = {BF_FORM_SPARK, BF_FORM_GUAVA, BF_FORM_PARQUET,
	                                      BF_FORM_PARQUET_BITSET};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
	{
		bf_params p;
		const uint8_t *bits;
		bf_error err;

		if (!bf_maker_read(forms[i], buf, size, &p, &bits, &err))
			continue;
		if (!bf_params_check(&p, 0, &err) || bits < buf || bits + p.ncells / 8 > buf + size)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so that ASan sees a read past the end */
	uint8_t *buf = malloc(size ? size : 1);

	memcpy(buf, data, size);
	spark(buf, size);
	guava(buf, size);
	parquet(buf, size);
	makers(buf, size);
	free(buf);
	return 0;
}
