/*
 * bf_format_layered.h
 *	  A layered filter's layers (layout 5, bf_format.h): their entries
 *	  between the element key and the data, read and written here.
 */
#ifndef BF_FORMAT_LAYERED_H
#define BF_FORMAT_LAYERED_H

#include "bf_format.h"

/* Bytes of the layers' entries of a filter of p: 10 k for a layered one, else 0. */
extern size_t bf_layers_bytes(const bf_params *p);

/*
 * Layer i (< k) of a layered filter: its shape, a blocked512 filter's with
 * the filter's scheme and seed, and where its bits start in data.
 */
extern void bf_layer(const bf_view *view, unsigned i, bf_params *layer, size_t *offset);

/*
 * A walk over a layered filter's layers in order, each step O(1) where
 * bf_layer(i) sums the sizes of the i layers before it:
 *	 for (bool more = bf_layer_first(v, &c); more; more = bf_layer_next(v, &c))
 */
typedef struct bf_layer_cursor
{
	unsigned index;  /* the layer's number */
	bf_params layer; /* its shape, as bf_layer gives it */
	size_t offset;   /* where its bits start in data */
} bf_layer_cursor;

/* Stand on layer 0 of a layered filter (it has at least one). */
extern bool bf_layer_first(const bf_view *view, bf_layer_cursor *c);

/* Step to the next layer; false after the last. */
extern bool bf_layer_next(const bf_view *view, bf_layer_cursor *c);

/*
 * A layered filter decoded once for many probes: each layer's block count,
 * k and bits, so that a probe hashes the value once and reads no layer
 * entry (bf_layered_contains() decodes them per call).  It points into the
 * view's data, and lives as long as those bytes do.
 */
typedef struct bf_layered_probe
{
	unsigned nlayers;
	struct
	{
		uint64_t nblocks;    /* m_i / 512 */
		unsigned nhashes;    /* k_i */
		const uint8_t *bits; /* where its bits start */
	} layer[BF_MAX_LAYERS];
} bf_layered_probe;

/* Decode view, a layered filter that passed bf_check_header(), into probe. */
extern void bf_layered_probe_init(const bf_view *view, bf_layered_probe *probe);

/* Whether some layer holds the value of hash h: bf_contains_hash()'s answer. */
extern bool bf_layered_probe_contains(const bf_layered_probe *probe, uint64_t h);

/*
 * Write layer i's entry of a new layered filter (bf_init_header() left
 * them zero): m_i a multiple of 512, k_i 1 to 64; the writer sees that the
 * m_i sum to the filter's m.
 */
extern void bf_view_set_layer(bf_view *view, unsigned i, uint64_t ncells, uint16_t nhashes);

/*
 * Check the layers' entries of a layered filter whose header passed
 * (bf_check_header() calls it): each m_i a multiple of 512 within m, each
 * k_i 1 to 64, the m_i summing to m.
 */
extern bool bf_layers_check(const bf_view *view, bf_error *err);

#endif /* BF_FORMAT_LAYERED_H */
