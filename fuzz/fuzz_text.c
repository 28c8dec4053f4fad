/*
 * fuzz_text.c
 *	  libFuzzer target: the text form parser (core/bf_text.c) on any bytes.
 *
 * Whatever the input, the parser must either reject it or produce a value
 * that passes bf_check_header_all() and bf_check_data(), and whose text form is
 * exactly the input (the form is canonical).  AddressSanitizer catches any
 * read or write outside the buffers.
 */
#include "../core/bf_core.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len;
	bf_error err;
	uint8_t *buf;
	bf_view view;
	char *again;

	if (!bf_text_parse((const char *) data, size, NULL, &len, &err))
		return 0;
	if (len > (64u << 20))
		return 0; /* valid but too large to be worth building here */
	buf = malloc(len);
	if (!bf_text_parse((const char *) data, size, buf, &len, &err))
		abort(); /* pass 2 must accept what pass 1 accepted */
	if (!bf_check_header_all(buf, len, &view, &err))
		abort(); /* what the parser builds is well-formed (another maker's filters too) */
	if (bf_check_data(&view, bf_occupied(&view, 0, view.nbytes), &err))
	{
		/* an accepted value prints back to exactly its input */
		again = malloc(bf_text_length(&view) + 1);
		bf_text_write(&view, again);
		if (strlen(again) != size || memcmp(again, data, size) != 0)
			abort();
		free(again);
	}
	free(buf);
	return 0;
}
