/*
 * unit.h
 *	  What the core's unit-test programs share (test_core.c, test_makers.c):
 *	  CHECK, which records a failure with its line and goes on; run, which
 *	  runs one test and says whether it passed; from_hex, the vectors'
 *	  hex read into bytes; table_of, a table a document copies; and the
 *	  closing line,
 *	  "unit: N passed, N failed", which tools/suite.sh counts.
 *
 * Each program includes it once: its counters are the program's.
 */
#ifndef BF_UNIT_H
#define BF_UNIT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks_failed;
static int tests_passed, tests_failed;

#define CHECK(cond)                                                                    \
	do                                                                                 \
	{                                                                                  \
		if (!(cond))                                                                   \
		{                                                                              \
			fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			checks_failed++;                                                           \
		}                                                                              \
	} while (0)

/* Run one test, and say whether every CHECK in it held. */
static void
run(const char *name, void (*fn)(void))
{
	int before = checks_failed;

	fn();
	if (checks_failed == before)
	{
		tests_passed++;
		printf("ok   %s\n", name);
	}
	else
	{
		tests_failed++;
		printf("FAIL %s\n", name);
	}
}

/* hex (even length, lower or upper case) into out; its byte count, or -1 */
static inline long
from_hex(const char *hex, uint8_t *out, size_t room)
{
	size_t n = strlen(hex);

	if (n % 2 != 0 || n / 2 > room)
		return -1;
	for (size_t i = 0; i < n / 2; i++)
	{
		unsigned int byte;

		if (sscanf(hex + 2 * i, "%2x", &byte) != 1)
			return -1;
		out[i] = (uint8_t) byte;
	}
	return (long) (n / 2);
}

/*
 * The rows of the table between the lines holding "BEGIN <name>" and
 * "END <name>" in a file, each from its first '|' to its end, concatenated
 * (malloc'd); NULL if the file or the markers are missing.  For the tests
 * that a document's copy of a table is its definition's.
 */
static inline char *
table_of(const char *path, const char *name)
{
	FILE *fp = fopen(path, "r");
	char line[1024], begin[64], end[64];
	char *out;
	size_t len = 0;
	int inside = 0, closed = 0;

	if (fp == NULL)
		return NULL;
	snprintf(begin, sizeof(begin), "BEGIN %s", name);
	snprintf(end, sizeof(end), "END %s", name);
	out = calloc(1, 65536);
	while (out != NULL && fgets(line, sizeof(line), fp) != NULL)
	{
		char *bar = strchr(line, '|');

		if (strstr(line, begin) != NULL)
			inside = 1;
		else if (strstr(line, end) != NULL)
		{
			closed = inside;
			break;
		}
		else if (inside && bar != NULL && len + strlen(bar) < 65536)
		{
			memcpy(out + len, bar, strlen(bar));
			len += strlen(bar);
		}
	}
	fclose(fp);
	if (!closed || len == 0)
	{
		free(out);
		return NULL;
	}
	return out;
}

/* The closing line, and the program's exit status: non-zero if a test failed. */
static int
unit_summary(void)
{
	printf("unit: %d passed, %d failed\n", tests_passed, tests_failed);
	return tests_failed == 0 ? 0 : 1;
}

#endif /* BF_UNIT_H */
