/*
 * bf_layered.c
 *	  The layered layout: k layers, each a blocked512 filter of its own
 *	  shape over bits of its own (bf_format.h), as a bloomfilter index keeps
 *	  its scalable filter.  A value is held if some layer holds it, and is
 *	  added to the last layer; the bits are those of a blocked512 filter of
 *	  each layer's shape, so that a layer is read and written as one.
 */
#include "bf_bits.h"
#include "bf_layouts.h"
#include "bf_util.h"

bool
bf_layered_contains(const bf_view *view, uint64_t h)
{
	bf_layer_cursor c;

	assert(view->p.layout == BF_LAYOUT_LAYERED);
	for (bool more = bf_layer_first(view, &c); more; more = bf_layer_next(view, &c))
		if (bf_bits_blocked_contains(&c.layer, view->data + c.offset, h))
			return true;
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
