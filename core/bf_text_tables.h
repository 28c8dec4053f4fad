/*
 * bf_text_tables.h
 *	  Internal to the text form (bf_text.c): the tables some layouts print
 *	  between the element key and the data, and the cursor its parser reads
 *	  with.
 *
 *	  layered:  " layers=<m>:<k>,<m>:<k>"
 *	  window:   " window=<hashes>:<capacity>:<generation>:<interval> counts=<c>,<c>,..."
 *
 * Canonical decimals (a generation may be negative: "-12", never "-0"), one
 * count per slice slot, in slot order.
 */
#ifndef BF_TEXT_TABLES_H
#define BF_TEXT_TABLES_H

#include "bf_format.h"

#include <string.h>

typedef struct bf_text_cursor
{
	const char *p;
	const char *end;
} bf_text_cursor;

/* Take the literal lit if the text goes on with it. */
static inline bool
bf_text_take_literal(bf_text_cursor *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t) (c->end - c->p) < n || memcmp(c->p, lit, n) != 0)
		return false;
	c->p += n;
	return true;
}

/*
 * Write the view's table's text (nothing for a layout without one) into
 * out, or with out NULL only count it; returns its length.
 */
extern size_t bf_text_table_write(const bf_view *view, char *out);

/*
 * Read a layered filter's "layers=m:k,m:k" (then the space before its
 * bits): nlayers entries, each m a multiple of 512 (at least 512) and k 1
 * to 64, the m summing to ncells; canonical decimals.  The header's counts
 * are checked before they are used to size anything.
 */
extern bool bf_text_layers_take(bf_text_cursor *c, uint64_t nlayers, uint64_t ncells,
                                uint64_t *cells, uint16_t *hashes, bf_error *err);

/*
 * Read a window filter's "window=... counts=..." (then the space before
 * its bits) for a filter of `slices` slices (1 to BF_WINDOW_MAX_SLICES,
 * checked here first).  With view NULL (the first pass) it only checks the
 * text; else it writes the table into view, a window filter of that many
 * slices just initialized.  Its counts may sum to at most nadded, the
 * filter's n.
 */
extern bool bf_text_window_take(bf_text_cursor *c, uint64_t slices, uint64_t nadded, bf_view *view,
                                bf_error *err);

#endif /* BF_TEXT_TABLES_H */
