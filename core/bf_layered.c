/*
 * bf_layered.c
 *	  The layered layout: k layers, each a blocked512 filter of its own
 *	  shape over bits of its own (bf_format.h), as a bloomfilter index keeps
 *	  its scalable filter.  A value is held if some layer holds it, and is
 *	  added to the last layer; the bits are those of a blocked512 filter of
 *	  each layer's shape, so that a layer is read and written as one.
 */
#include "bf_bits.h"
#include "bf_format_layered.h"
#include "bf_layouts.h"
#include "bf_util.h"

bool
bf_layered_contains(const bf_view *view, uint64_t h)
{
	/* every layer starts from the same state: the value is hashed once */
	const bf_hash_state start = bf_hash_start(h);
	bf_layer_cursor c;

	assert(view->p.layout == BF_LAYOUT_LAYERED);
	for (bool more = bf_layer_first(view, &c); more; more = bf_layer_next(view, &c))
	{
		bf_hash_state s = start;
		const uint8_t *block =
		    view->data + c.offset + bf_hash_block(&s, c.layer.ncells) * (BF_BLOCK_BITS / 8);

		if (bf_bits_block_holds(block, &s, c.layer.nhashes))
			return true;
	}
	return false;
}

void
bf_layered_probe_init(const bf_view *view, bf_layered_probe *probe)
{
	bf_layer_cursor c;

	assert(view->p.layout == BF_LAYOUT_LAYERED && view->p.nhashes <= BF_MAX_LAYERS);
	probe->nlayers = 0;
	for (bool more = bf_layer_first(view, &c); more; more = bf_layer_next(view, &c))
	{
		probe->layer[probe->nlayers].nblocks = c.layer.ncells / BF_BLOCK_BITS;
		probe->layer[probe->nlayers].nhashes = c.layer.nhashes;
		probe->layer[probe->nlayers].bits = view->data + c.offset;
		probe->nlayers++;
	}
}

/* A read prefetch of the cache line at p, where the compiler has one. */
#if defined(__GNUC__) || defined(__clang__)
#define BF_PREFETCH_READ(p) __builtin_prefetch((p), 0, 3)
#else
#define BF_PREFETCH_READ(p) ((void) (p))
#endif

bool
bf_layered_probe_contains(const bf_layered_probe *probe, uint64_t h)
{
	const bf_hash_state start = bf_hash_start(h);
	const uint8_t *blocks[BF_MAX_LAYERS];

	assert(probe->nlayers >= 1 && probe->nlayers <= BF_MAX_LAYERS);
	/*
	 * Every layer's block is requested before any is tested: in a filter
	 * larger than the cache each is a miss, and a value not held (the
	 * usual probe) tests them all, so the misses overlap rather than follow
	 * one another.
	 */
	for (unsigned i = 0; i < probe->nlayers; i++)
	{
		blocks[i] = probe->layer[i].bits +
		            bf_reduce(start.x, probe->layer[i].nblocks) * (BF_BLOCK_BITS / 8);
		BF_PREFETCH_READ(blocks[i]);
	}
	for (unsigned i = 0; i < probe->nlayers; i++)
	{
		bf_hash_state s = start;

		if (bf_bits_block_holds(blocks[i], &s, probe->layer[i].nhashes))
			return true;
	}
	return false;
}

unsigned
bf_layered_add(bf_view *view, uint64_t h)
{
	bf_params layer;
	size_t offset;

	assert(view->p.layout == BF_LAYOUT_LAYERED);
	bf_layer(view, view->p.nhashes - 1u, &layer, &offset);
	return bf_bits_add(&layer, view->data + offset, h);
}

bool
bf_layered_check(const bf_view *view, uint64_t occupied, bf_error *err)
{
	unsigned most = 0; /* the largest k of a layer: no value sets more bits */
	bf_layer_cursor c;

	assert(view->p.layout == BF_LAYOUT_LAYERED);
	for (bool more = bf_layer_first(view, &c); more; more = bf_layer_next(view, &c))
		if (c.layer.nhashes > most)
			most = c.layer.nhashes;
	if (view->nadded == 0 && view->elemlen != 0)
		return bf_fail(err, BF_ERR_FORMAT, "element key is set but no values were added");
	if (view->nadded != 0 && view->elemlen == 0)
		return bf_fail(err, BF_ERR_FORMAT, "values were added but the element key is empty");
	if (view->nadded <= UINT64_MAX / most && occupied > view->nadded * most)
		return bf_fail(err, BF_ERR_FORMAT,
		               "%llu bits are set, more than the largest k of a layer (%u) times the %llu "
		               "values added",
		               (unsigned long long) occupied, most, (unsigned long long) view->nadded);
	return true;
}
