/*
 * bf_util.c
 *	  Errors and the host's tick (see bf_util.h).
 */
#include "bf_core.h"
#include "bf_util.h"

#include <stdarg.h>
#include <stdio.h>

static bf_tick_fn tick_fn;

bool
bf_fail(bf_error *err, bf_status status, const char *fmt, ...)
{
	va_list ap;

	assert(err != NULL && status != BF_OK);
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return false;
}

void
bf_set_tick(bf_tick_fn tick)
{
	tick_fn = tick;
}

void
bf_tick(void)
{
	if (tick_fn != NULL)
		tick_fn();
}
