/*
 * shape.c
 *	  A runtime filter's shape for a number of keys, and key hashes added to
 *	  a filter: what a private build (filter.c) and a shared one (shared.c)
 *	  both do.
 */
#include "filter.h"
#include "../../bloom_error.h"
#include "../../../core/bf_runtime.h"

#include "miscadmin.h"

/*
 * The parameters of a runtime filter for nkeys keys, at most max_bytes
 * large (in bits; its header adds a few bytes), and its size in bytes
 * (the shape's payload, which the core computes; a shape it refuses would be
 * a bug here, reported as a bad argument).
 */
void
bloom_rf_filter_shape(double nkeys, size_t max_bytes, bf_params *p, size_t *size)
{
	uint64_t ncells;
	int nhashes;
	bf_error err;

	bf_rf_shape(nkeys, max_bytes, &ncells, &nhashes);
	memset(p, 0, sizeof(*p));
	p->layout = BF_LAYOUT_BLOCKED512;
	p->scheme = BF_SCHEME_DOUBLE_HASHING;
	p->nhashes = (uint16) nhashes;
	p->seed = 0;
	p->ncells = ncells;
	if (!bf_payload_size(p, 0, 0, size, &err))
		bloom_report(&err, BLOOM_FROM_ARGUMENT);
}

/* Add n key hashes to a filter, in batches for bf_add_hashes(). */
void
bloom_rf_filter_add_hashes(bf_view *view, const uint32 *hashes, size_t n)
{
	uint64_t batch[256];
	size_t i = 0;

	while (i < n)
	{
		size_t m = Min(lengthof(batch), n - i);

		for (size_t j = 0; j < m; j++)
			batch[j] = hashes[i + j];
		bf_add_hashes(view, batch, m);
		i += m;
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}
