/*
 * bf_format_layered.c
 *	  A layered filter's layers' entries (bf_format_layered.h).
 */
#include "bf_format_layered.h"
#include "bf_util.h"

#include <assert.h>

size_t
bf_layers_bytes(const bf_params *p)
{
	return p->layout == BF_LAYOUT_LAYERED ? (size_t) p->nhashes * BF_LAYER_SIZE : 0;
}

/* Read layer entry c->index into c->layer. */
static void
read_layer_entry(const bf_view *view, bf_layer_cursor *c)
{
	const uint8_t *entry = view->layers + (size_t) c->index * BF_LAYER_SIZE;

	c->layer.layout = BF_LAYOUT_BLOCKED512;
	c->layer.scheme = view->p.scheme;
	c->layer.seed = view->p.seed;
	c->layer.ncells = bf_load_le(entry, 8);
	c->layer.nhashes = (uint16_t) bf_load_le(entry + 8, 2);
}

bool
bf_layer_first(const bf_view *view, bf_layer_cursor *c)
{
	assert(view->p.layout == BF_LAYOUT_LAYERED && view->p.nhashes >= 1);
	c->index = 0;
	c->offset = 0;
	read_layer_entry(view, c);
	return true;
}

bool
bf_layer_next(const bf_view *view, bf_layer_cursor *c)
{
	assert(view->p.layout == BF_LAYOUT_LAYERED && c->index < view->p.nhashes);
	if (c->index + 1u >= view->p.nhashes)
		return false;
	c->offset += (size_t) (c->layer.ncells / 8);
	c->index++;
	read_layer_entry(view, c);
	return true;
}

void
bf_layer(const bf_view *view, unsigned i, bf_params *layer, size_t *offset)
{
	bf_layer_cursor c;

	assert(view->p.layout == BF_LAYOUT_LAYERED && i < view->p.nhashes);
	for (bool more = bf_layer_first(view, &c); more && c.index < i; more = bf_layer_next(view, &c))
		;
	*layer = c.layer;
	*offset = c.offset;
}

void
bf_view_set_layer(bf_view *view, unsigned i, uint64_t ncells, uint16_t nhashes)
{
	uint8_t *entry = (uint8_t *) view->layers + (size_t) i * BF_LAYER_SIZE;

	assert(view->p.layout == BF_LAYOUT_LAYERED && i < view->p.nhashes);
	assert(ncells >= BF_BLOCK_BITS && ncells % BF_BLOCK_BITS == 0 && ncells <= view->p.ncells);
	assert(nhashes >= 1 && nhashes <= BF_MAX_HASHES);
	bf_store_le(entry, ncells, 8);
	bf_store_le(entry + 8, nhashes, 2);
}

bool
bf_layers_check(const bf_view *view, bf_error *err)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < view->p.nhashes; i++)
	{
		uint64_t m = bf_load_le(view->layers + (size_t) i * BF_LAYER_SIZE, 8);
		unsigned k = (unsigned) bf_load_le(view->layers + (size_t) i * BF_LAYER_SIZE + 8, 2);

		if (m < BF_BLOCK_BITS || m % BF_BLOCK_BITS != 0 || m > view->p.ncells)
			return bf_fail(err, BF_ERR_FORMAT,
			               "layer %u has m = %llu bits, not a multiple of 512 within the filter's",
			               i, (unsigned long long) m);
		if (k < 1 || k > BF_MAX_HASHES)
			return bf_fail(err, BF_ERR_FORMAT, "layer %u has k = %u, out of range (1 to %d)", i, k,
			               BF_MAX_HASHES);
		sum += m; /* no overflow: each m is at most the filter's, and there are at most 64 */
	}
	if (sum != view->p.ncells)
		return bf_fail(err, BF_ERR_FORMAT, "the layers' bits sum to %llu, not to m = %llu",
		               (unsigned long long) sum, (unsigned long long) view->p.ncells);
	return true;
}
