/*
 * bf_text_tables.c
 *	  The tables of the text form (bf_text_tables.h): a layered filter's
 *	  layers, a window filter's shape, clock and counts.
 */
#include "bf_core.h"
#include "bf_text_tables.h"
#include "bf_util.h"

#include <stdio.h>

/* A layered filter's " layers=m:k,m:k" (else ""), at most BF_MAX_LAYERS * 27 + 8 bytes. */
#define LAYERS_TEXT_MAX (BF_MAX_LAYERS * 27 + 8)

static size_t
layers_text(const bf_view *view, char *out)
{
	size_t len = 0;
	bf_layer_cursor c;

	for (bool more = bf_layer_first(view, &c); more; more = bf_layer_next(view, &c))
		len += (size_t) snprintf(out + len, LAYERS_TEXT_MAX - len, "%s%llu:%u",
		                         c.index == 0 ? " layers=" : ",",
		                         (unsigned long long) c.layer.ncells, (unsigned) c.layer.nhashes);
	return len;
}

/* A window filter's " window=h:c:g:i counts=c,c,...", into out (or only counted, out NULL). */
static size_t
window_text(const bf_view *view, char *out)
{
	char one[96];
	bf_window_shape w;
	size_t len;

	bf_window_get(view, &w);
	len = (size_t) snprintf(one, sizeof(one), " window=%u:%llu:%lld:%lld counts=", w.hashes,
	                        (unsigned long long) w.capacity, (long long) w.generation,
	                        (long long) w.interval);
	if (out)
		memcpy(out, one, len);
	for (unsigned slot = 0; slot < w.slices; slot++)
	{
		size_t n = (size_t) snprintf(one, sizeof(one), "%s%llu", slot == 0 ? "" : ",",
		                             (unsigned long long) bf_window_count(view, slot));

		if (out)
			memcpy(out + len, one, n);
		len += n;
	}
	return len;
}

size_t
bf_text_table_write(const bf_view *view, char *out)
{
	char layers[LAYERS_TEXT_MAX];

	if (view->p.layout == BF_LAYOUT_WINDOW)
		return window_text(view, out);
	if (view->p.layout != BF_LAYOUT_LAYERED)
		return 0;
	if (out)
		return layers_text(view, out);
	return layers_text(view, layers);
}

bool
bf_text_layers_take(bf_text_cursor *c, uint64_t nlayers, uint64_t ncells, uint64_t *cells,
                    uint16_t *hashes, bf_error *err)
{
	uint64_t sum = 0;

	if (nlayers < 1 || nlayers > BF_MAX_LAYERS)
		return bf_fail(err, BF_ERR_PARAM,
		               "number of layers k = %llu of a layered filter is out of range (1 to %d)",
		               (unsigned long long) nlayers, BF_MAX_LAYERS);
	if (!bf_text_take_literal(c, "layers="))
		return bf_fail(err, BF_ERR_FORMAT, "expected \"layers=\" after the element key");
	for (uint64_t i = 0; i < nlayers; i++)
	{
		uint64_t v[2] = {0, 0};

		for (int part = 0; part < 2; part++)
		{
			const char *start = c->p;

			while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
			{
				unsigned d = (unsigned) (*c->p - '0');

				if (v[part] > (UINT64_MAX - d) / 10)
					return bf_fail(err, BF_ERR_PARAM, "a layer's %s is out of range",
					               part == 0 ? "m" : "k");
				v[part] = v[part] * 10 + d;
				c->p++;
			}
			if (c->p == start || (*start == '0' && c->p - start > 1))
				return bf_fail(err, BF_ERR_FORMAT,
				               "layer %llu's %s must be an unsigned decimal without leading zeros",
				               (unsigned long long) i, part == 0 ? "m" : "k");
			if (part == 0 && !bf_text_take_literal(c, ":"))
				return bf_fail(err, BF_ERR_FORMAT, "expected \":\" between a layer's m and k");
		}
		if (v[0] < BF_BLOCK_BITS || v[0] % BF_BLOCK_BITS != 0 || v[0] > ncells ||
		    v[0] > BF_MAX_BITS)
			return bf_fail(
			    err, BF_ERR_PARAM,
			    "layer %llu has m = %llu bits, not a multiple of 512 within the filter's",
			    (unsigned long long) i, (unsigned long long) v[0]);
		if (v[1] < 1 || v[1] > BF_MAX_HASHES)
			return bf_fail(err, BF_ERR_PARAM, "layer %llu has k = %llu, out of range (1 to %d)",
			               (unsigned long long) i, (unsigned long long) v[1], BF_MAX_HASHES);
		cells[i] = v[0];
		hashes[i] = (uint16_t) v[1];
		sum += v[0];
		if (i + 1 < nlayers && !bf_text_take_literal(c, ","))
			return bf_fail(err, BF_ERR_FORMAT, "expected %llu layers, separated by \",\"",
			               (unsigned long long) nlayers);
	}
	if (sum != ncells)
		return bf_fail(err, BF_ERR_FORMAT, "the layers' bits sum to %llu, not to m = %llu",
		               (unsigned long long) sum, (unsigned long long) ncells);
	if (!bf_text_take_literal(c, " "))
		return bf_fail(err, BF_ERR_FORMAT, "expected a space after the layers");
	return true;
}

/*
 * Read a canonical decimal, a '-' before it if negative is allowed (never
 * "-0"), of at most max in magnitude (for a negative one, max + 1).
 */
static bool
take_decimal(bf_text_cursor *c, const char *what, bool negative_ok, uint64_t max, bool *negative,
             uint64_t *value, bf_error *err)
{
	const char *start;
	uint64_t v = 0;

	*negative = negative_ok && bf_text_take_literal(c, "-");
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
	{
		unsigned d = (unsigned) (*c->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return bf_fail(err, BF_ERR_PARAM, "a window filter's %s is out of range", what);
		v = v * 10 + d;
		c->p++;
	}
	if (c->p == start || (*start == '0' && c->p - start > 1) || (*negative && v == 0))
		return bf_fail(err, BF_ERR_FORMAT,
		               "a window filter's %s must be a decimal without leading zeros", what);
	if (v > max + (*negative ? 1 : 0))
		return bf_fail(err, BF_ERR_PARAM, "a window filter's %s is out of range", what);
	*value = v;
	return true;
}

bool
bf_text_window_take(bf_text_cursor *c, uint64_t slices, uint64_t nadded, bf_view *view,
                    bf_error *err)
{
	uint64_t hashes, capacity, generation, interval, left = nadded;
	bool negative, neg_generation;

	if (slices < 1 || slices > BF_WINDOW_MAX_SLICES)
		return bf_fail(err, BF_ERR_PARAM,
		               "number of slices k = %llu of a window filter is out of range (1 to %d)",
		               (unsigned long long) slices, BF_WINDOW_MAX_SLICES);
	if (!bf_text_take_literal(c, "window="))
		return bf_fail(err, BF_ERR_FORMAT, "expected \"window=\" after the element key");
	if (!take_decimal(c, "hashes", false, BF_WINDOW_MAX_HASHES, &negative, &hashes, err))
		return false;
	if (!bf_text_take_literal(c, ":"))
		return bf_fail(err, BF_ERR_FORMAT, "expected \":\" after a window filter's hashes");
	if (!take_decimal(c, "capacity", false, INT64_MAX, &negative, &capacity, err))
		return false;
	if (!bf_text_take_literal(c, ":"))
		return bf_fail(err, BF_ERR_FORMAT, "expected \":\" after a window filter's capacity");
	if (!take_decimal(c, "generation", true, INT64_MAX, &neg_generation, &generation, err))
		return false;
	if (!bf_text_take_literal(c, ":"))
		return bf_fail(err, BF_ERR_FORMAT, "expected \":\" after a window filter's generation");
	if (!take_decimal(c, "interval", false, INT64_MAX, &negative, &interval, err))
		return false;
	if (hashes < 1 || hashes > slices || slices - hashes + 1 > BF_WINDOW_MAX_GENERATIONS ||
	    capacity < 1)
		return bf_fail(err, BF_ERR_PARAM,
		               "a window filter of %llu slices cannot have hashes = %llu and capacity = "
		               "%llu",
		               (unsigned long long) slices, (unsigned long long) hashes,
		               (unsigned long long) capacity);
	if (view)
		bf_view_set_window(view, (unsigned) hashes, capacity,
		                   neg_generation ? (int64_t) (0 - generation) : (int64_t) generation,
		                   (int64_t) interval);
	if (!bf_text_take_literal(c, " counts="))
		return bf_fail(err, BF_ERR_FORMAT, "expected \" counts=\" after the window");
	for (uint64_t slot = 0; slot < slices; slot++)
	{
		uint64_t count;

		if (slot > 0 && !bf_text_take_literal(c, ","))
			return bf_fail(err, BF_ERR_FORMAT, "expected %llu counts, separated by \",\"",
			               (unsigned long long) slices);
		if (!take_decimal(c, "count", false, INT64_MAX, &negative, &count, err))
			return false;
		if (count > left && nadded != INT64_MAX)
			return bf_fail(err, BF_ERR_FORMAT,
			               "a window filter's counts of values per generation sum to more than "
			               "its n = %llu",
			               (unsigned long long) nadded);
		left = count > left ? 0 : left - count;
		if (view)
			bf_window_set_count(view, (unsigned) slot, count);
	}
	if (!bf_text_take_literal(c, " "))
		return bf_fail(err, BF_ERR_FORMAT, "expected a space after the counts");
	return true;
}
