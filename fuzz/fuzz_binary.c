/*
 * fuzz_binary.c
 *	  libFuzzer target: the binary decoder (bf_check_header, bf_check_data)
 *	  and every read the SQL layer makes of an accepted value.
 *
 * Whatever the bytes, the decoder must reject them or accept a value whose
 * every derived offset lies inside the buffer: the probe, the counters, the
 * population count and the text form are then run on it under
 * AddressSanitizer, and a set of hashes (explicit) must survive sorting and
 * merging with itself unchanged.
 */
#include "../core/bf_core.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;
	bf_view view;
	bf_error err;
	char *text;
	uint64_t occupied;

	/* an exact-size copy, so that ASan sees a read past the end */
	buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	if (bf_check_header(buf, size, &view, &err))
	{
		occupied = bf_occupied(&view, 0, view.nbytes);
		if (bf_check_data(&view, occupied, &err))
		{
			bf_layered_probe probe;

			if (view.p.layout == BF_LAYOUT_LAYERED)
				bf_layered_probe_init(&view, &probe);
			for (uint64_t h = 0; h < 16; h++)
			{
				bool held = bf_contains_hash(&view, h * UINT64_C(0x9E3779B97F4A7C15));

				/* a layered filter decoded once answers as the view does */
				if (view.p.layout == BF_LAYOUT_LAYERED &&
				    bf_layered_probe_contains(&probe, h * UINT64_C(0x9E3779B97F4A7C15)) != held)
					abort();
				if (view.p.layout == BF_LAYOUT_COUNTING4)
					(void) bf_count_hash(&view, h);
			}
			(void) bf_estimate_distinct(view.p.ncells, view.p.nhashes, occupied);
			if (bf_text_length(&view) < (64u << 20))
			{
				text = malloc(bf_text_length(&view) + 1);
				bf_text_write(&view, text);
				free(text);
			}
			/* an accepted set of hashes is sorted and distinct: merging or
			 * sorting it again must give it back unchanged */
			if (view.p.layout == BF_LAYOUT_EXPLICIT && view.p.ncells <= 4096)
			{
				size_t n = (size_t) view.p.ncells;
				uint64_t *a = malloc((2 * n + 1) * sizeof(uint64_t));
				uint64_t *b = malloc((n + 1) * sizeof(uint64_t));
				uint64_t *tmp = malloc((n + 1) * sizeof(uint64_t));

				bf_explicit_hashes(&view, a);
				memcpy(b, a, n * sizeof(uint64_t));
				if (bf_hashes_sort_unique(b, n, tmp) != n ||
				    memcmp(a, b, n * sizeof(uint64_t)) != 0 || bf_hashes_merge(a, n, b, n) != n ||
				    memcmp(a, b, n * sizeof(uint64_t)) != 0 || bf_hashes_retain(a, n, &view) != n)
					__builtin_trap();
				free(a);
				free(b);
				free(tmp);
			}
			/* adding to an accepted value stays inside it */
			if (view.p.layout == BF_LAYOUT_COUNTING4)
				bf_add_hash(&view, 12345);
			else
				(void) bf_add_hash(&view, 12345);
		}
	}
	free(buf);
	return 0;
}
