/*
 * fuzz_spark.c
 *	  libFuzzer target: the reader of Spark's serialized Bloom filters
 *	  (bf_spark_read) and every probe of an accepted one.
 *
 * Whatever the bytes, the reader must reject them or accept a filter whose
 * words lie inside the buffer: probes of longs and of byte strings (every
 * tail length) then run on it under AddressSanitizer, and a filter written
 * here of its shape must hold what is added to it (no false negative).
 */
#include "../core/bf_spark.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	bf_spark_view view;
	bf_error err;

	/* an exact-size copy, so that ASan sees a read past the end */
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	if (bf_spark_read(buf, size, &view, &err))
	{
		for (int64_t v = -3; v < 13; v++)
			(void) bf_spark_contains_long(&view, v * INT64_C(0x9E3779B97F4A7C15));
		for (size_t len = 0; len <= 9 && len <= size; len++)
			(void) bf_spark_contains_bytes(&view, len ? buf : NULL, len);
		/* the same shape, written here: what is added is held */
		if (view.nwords <= 64)
		{
			uint8_t *mine = malloc(bf_spark_size(view.version, view.nwords));

			bf_spark_write_empty(mine, view.version, view.k, view.seed, view.nwords);
			for (size_t len = 0; len <= 9 && len <= size; len++)
			{
				bf_spark_view check;

				bf_spark_add_bytes(mine, len ? buf : NULL, len);
				bf_spark_add_long(mine, (int64_t) len - 5);
				if (!bf_spark_read(mine, bf_spark_size(view.version, view.nwords), &check, &err) ||
				    !bf_spark_contains_bytes(&check, len ? buf : NULL, len) ||
				    !bf_spark_contains_long(&check, (int64_t) len - 5))
					abort();
			}
			free(mine);
		}
	}
	free(buf);
	return 0;
}
