/*
 * bf_internal.h
 *	  Helpers shared by the core's own files; not part of its interface.
 */
#ifndef BF_INTERNAL_H
#define BF_INTERNAL_H

#include "bf_core.h"

/* Fill err with a status and a printf-style message; always returns false. */
extern bool bf_fail(bf_error *err, bf_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Call the host's tick function (see bf_set_tick), if it set one. */
extern void bf_tick(void);

#endif /* BF_INTERNAL_H */
