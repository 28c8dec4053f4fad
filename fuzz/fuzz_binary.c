/*
 * fuzz_binary.c
 *	  libFuzzer target: the binary decoder (bf_check_header, bf_check_data)
 *	  and every read the SQL layer makes of an accepted value.
 *
 * Whatever the bytes, the decoder must reject them or accept a value whose
 * every derived offset lies inside the buffer: the probe, the counters, the
 * population count and the text form are then run on it under
 * AddressSanitizer, and a set of hashes (explicit) must survive sorting and
 * merging with itself unchanged.  Another maker's filter (1.12) is probed,
 * added to and written in its maker's bytes, as bf_makers.h does.
 */
#include "../core/bf_core.h"
#include "../core/bf_makers.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Another maker's filter: probes of its key's encodings (a fixed width, or
 * every length up to 17), then each added and found, and its maker's bytes
 * read back to the same shape.
 */
static void
maker(bf_view *view, const uint8_t *buf, size_t size)
{
	static const bf_maker_form forms[] = {BF_FORM_SPARK, BF_FORM_GUAVA, BF_FORM_PARQUET,
	                                      BF_FORM_PARQUET_BITSET};
	const bf_maker_key *key = bf_maker_key_find(view->p.layout, view->elem, view->elemlen);
	uint8_t in[17] = {0};

	if (key == NULL)
		abort(); /* bf_check_header_all() checked it */
	memcpy(in, buf, size < sizeof(in) ? size : sizeof(in));
	for (size_t len = 0; len <= sizeof(in); len++)
	{
		size_t width = key->width ? key->width : len;

		if (width > sizeof(in))
			break;
		(void) bf_maker_contains(view, width ? in : NULL, width);
		bf_maker_add(view, width ? in : NULL, width);
		if (!bf_maker_contains(view, width ? in : NULL, width))
			abort(); /* no false negative */
	}
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
	{
		size_t out_size = bf_maker_write_size(view, forms[i]);
		uint8_t *out;
		const uint8_t *bits;
		bf_params p;
		bf_error err;

		if (out_size == 0 || out_size > (64u << 20))
			continue;
		out = malloc(out_size);
		bf_maker_write(view, forms[i], out);
		if (!bf_maker_read(forms[i], out, out_size, &p, &bits, &err) ||
		    !bf_params_equal(&p, &view->p) || memcmp(bits, view->data, view->nbytes) != 0)
			abort(); /* what is written reads back */
		free(out);
	}
}

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
	if (bf_check_header_all(buf, size, &view, &err))
	{
		occupied = bf_occupied(&view, 0, view.nbytes);
		if (bf_layout_is_maker(view.p.layout) && bf_check_data(&view, occupied, &err))
			maker(&view, buf, size);
		else if (bf_check_data(&view, occupied, &err))
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
