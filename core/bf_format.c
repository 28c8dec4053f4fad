/*
 * bf_format.c
 *	  Serialization and validation of the on-disk / wire format.
 *
 * The layout is documented in bf_core.h.  Integers are read and written a
 * byte at a time, so the format is the same on every platform and no field
 * needs to be aligned.  Everything a reader may rely on is checked here:
 * after bf_check_header() accepted a buffer, every offset derived from the
 * header lies inside it.
 */
#include "bf_core.h"
#include "bf_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define OFF_MAGIC 0
#define OFF_VERSION 4
#define OFF_LAYOUT 5
#define OFF_SCHEME 6
#define OFF_FLAGS 7
#define OFF_NHASHES 8
#define OFF_ELEMLEN 10
#define OFF_SEED 12
#define OFF_NBITS 20
#define OFF_NADDED 28

bool
bf_fail(bf_error *err, bf_status status, const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	return false;
}

static uint64_t
get_le(const uint8_t *p, int nbytes)
{
	uint64_t v = 0;

	for (int i = nbytes - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static void
put_le(uint8_t *p, uint64_t v, int nbytes)
{
	for (int i = 0; i < nbytes; i++)
	{
		p[i] = (uint8_t) (v & 0xFF);
		v >>= 8;
	}
}

size_t
bf_data_bytes(uint8_t layout, uint64_t nbits)
{
	if (layout == BF_LAYOUT_EXPLICIT)
		return (size_t) (nbits * 8);
	return (size_t) (layout == BF_LAYOUT_COUNTING4 ? (nbits + 1) / 2 : (nbits + 7) / 8);
}

bool
bf_layout_is_bits(uint8_t layout)
{
	return layout == BF_LAYOUT_CLASSIC || layout == BF_LAYOUT_BLOCKED512;
}

const char *
bf_layout_name(uint8_t layout)
{
	switch (layout)
	{
		case BF_LAYOUT_CLASSIC:
			return "classic";
		case BF_LAYOUT_COUNTING4:
			return "counting4";
		case BF_LAYOUT_BLOCKED512:
			return "blocked512";
		case BF_LAYOUT_EXPLICIT:
			return "explicit";
	}
	return "unknown";
}

bool
bf_elem_valid(const char *elem, size_t len)
{
	if (len > BF_MAX_ELEM_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) elem[i];

		/* no control characters; names may hold spaces and UTF-8 */
		if (c < 0x20 || c == 0x7F)
			return false;
	}
	return true;
}

bool
bf_params_check(const bf_params *p, size_t elemlen, bf_error *err)
{
	uint64_t max = p->layout == BF_LAYOUT_COUNTING4 ? BF_MAX_COUNTERS : BF_MAX_BITS;

	if (p->layout != BF_LAYOUT_CLASSIC && p->layout != BF_LAYOUT_COUNTING4 &&
	    p->layout != BF_LAYOUT_BLOCKED512 && p->layout != BF_LAYOUT_EXPLICIT)
		return bf_fail(err, BF_ERR_VERSION,
		               "unknown layout %u (this version knows 1 = classic, 2 = counting4, 3 = "
		               "blocked512, 4 = explicit)",
		               (unsigned) p->layout);
	if (p->scheme != BF_SCHEME_PGHASH_EDH)
		return bf_fail(err, BF_ERR_VERSION, "unknown hash scheme %u (this version knows 1)",
		               (unsigned) p->scheme);
	if (p->layout == BF_LAYOUT_EXPLICIT)
	{
		/* a set of hashes: no positions yet, any number of hashes up to 1 GB */
		if (p->nhashes != 0)
			return bf_fail(err, BF_ERR_PARAM, "an explicit filter has k = 0, not %u",
			               (unsigned) p->nhashes);
		if (p->nbits > BF_MAX_EXPLICIT)
			return bf_fail(err, BF_ERR_TOO_LARGE,
			               "number of hashes m = %llu exceeds the maximum of %llu (1 GB)",
			               (unsigned long long) p->nbits, (unsigned long long) BF_MAX_EXPLICIT);
		if (elemlen > BF_MAX_ELEM_LEN)
			return bf_fail(err, BF_ERR_FORMAT, "element key is longer than %d bytes",
			               BF_MAX_ELEM_LEN);
		return true;
	}
	if (p->nhashes < 1 || p->nhashes > BF_MAX_HASHES)
		return bf_fail(err, BF_ERR_PARAM, "number of hashes k = %u is out of range (1 to %d)",
		               (unsigned) p->nhashes, BF_MAX_HASHES);
	if (p->nbits < 1)
		return bf_fail(err, BF_ERR_PARAM, "number of bits m must be at least 1");
	if (p->nbits > max)
		return bf_fail(err, BF_ERR_TOO_LARGE,
		               "number of %s m = %llu exceeds the maximum of %llu (1 GB)",
		               p->layout == BF_LAYOUT_COUNTING4 ? "counters" : "bits",
		               (unsigned long long) p->nbits, (unsigned long long) max);
	if (p->layout == BF_LAYOUT_BLOCKED512 && p->nbits % BF_BLOCK_BITS != 0)
		return bf_fail(err, BF_ERR_PARAM,
		               "number of bits m = %llu of a blocked512 filter is not a multiple of 512",
		               (unsigned long long) p->nbits);
	if (elemlen > BF_MAX_ELEM_LEN)
		return bf_fail(err, BF_ERR_FORMAT, "element key is longer than %d bytes", BF_MAX_ELEM_LEN);
	return true;
}

static size_t
ext_size(uint8_t flags)
{
	return ((flags & BF_FLAG_DERIVED) ? BF_DERIVED_SIZE : 0) +
	       ((flags & BF_FLAG_TARGET) ? BF_TARGET_SIZE : 0);
}

bool
bf_payload_size(const bf_params *p, uint8_t flags, size_t elemlen, size_t *size, bf_error *err)
{
	uint64_t total =
	    (uint64_t) BF_HEADER_SIZE + ext_size(flags) + elemlen + bf_data_bytes(p->layout, p->nbits);

	if (total > BF_MAX_PAYLOAD)
		return bf_fail(err, BF_ERR_TOO_LARGE, "filter of %llu bytes exceeds the 1 GB limit",
		               (unsigned long long) total);
	*size = (size_t) total;
	return true;
}

uint8_t *
bf_init_header(uint8_t *buf, const bf_params *p, uint8_t flags, const char *elem, size_t elemlen,
               uint64_t nadded)
{
	size_t ext = ext_size(flags);

	buf[OFF_MAGIC + 0] = BF_MAGIC_0;
	buf[OFF_MAGIC + 1] = BF_MAGIC_1;
	buf[OFF_MAGIC + 2] = BF_MAGIC_2;
	buf[OFF_MAGIC + 3] = BF_MAGIC_3;
	buf[OFF_VERSION] = BF_VERSION;
	buf[OFF_LAYOUT] = p->layout;
	buf[OFF_SCHEME] = p->scheme;
	buf[OFF_FLAGS] = flags;
	put_le(buf + OFF_NHASHES, p->nhashes, 2);
	put_le(buf + OFF_ELEMLEN, elemlen, 2);
	put_le(buf + OFF_SEED, p->seed, 8);
	put_le(buf + OFF_NBITS, p->nbits, 8);
	put_le(buf + OFF_NADDED, nadded, 8);
	memset(buf + BF_HEADER_SIZE, 0, ext);
	if (elemlen > 0)
		memcpy(buf + BF_HEADER_SIZE + ext, elem, elemlen);
	return buf + BF_HEADER_SIZE + ext + elemlen;
}

void
bf_init(uint8_t *buf, const bf_params *p, uint8_t flags, const char *elem, size_t elemlen,
        uint64_t nadded)
{
	uint8_t *data = bf_init_header(buf, p, flags, elem, elemlen, nadded);

	memset(data, 0, bf_data_bytes(p->layout, p->nbits));
}

void
bf_set_nadded(uint8_t *buf, uint64_t nadded)
{
	put_le(buf + OFF_NADDED, nadded, 8);
}

void
bf_set_target(uint8_t *buf, uint32_t target_ppb)
{
	put_le(buf + BF_HEADER_SIZE + ((buf[OFF_FLAGS] & BF_FLAG_DERIVED) ? BF_DERIVED_SIZE : 0),
	       target_ppb, 4);
}

void
bf_set_derived(uint8_t *buf, uint64_t bound, uint64_t est_distinct)
{
	put_le(buf + BF_HEADER_SIZE, bound, 8);
	put_le(buf + BF_HEADER_SIZE + 8, est_distinct, 8);
}

bool
bf_check_header(const uint8_t *buf, size_t len, bf_view *view, bf_error *err)
{
	size_t elemlen;
	size_t ext;
	size_t expected = 0;

	if (len < BF_HEADER_SIZE)
		return bf_fail(err, BF_ERR_FORMAT,
		               "value is truncated: %zu bytes, the header alone needs %d", len,
		               BF_HEADER_SIZE);
	if (buf[0] != BF_MAGIC_0 || buf[1] != BF_MAGIC_1 || buf[2] != BF_MAGIC_2 ||
	    buf[3] != BF_MAGIC_3)
		return bf_fail(err, BF_ERR_FORMAT, "bad magic number: not a bloom value");
	view->version = buf[OFF_VERSION];
	if (view->version != BF_VERSION)
		return bf_fail(err, BF_ERR_VERSION,
		               "unknown format version %u (this build reads version %d)",
		               (unsigned) view->version, BF_VERSION);

	view->p.layout = buf[OFF_LAYOUT];
	view->p.scheme = buf[OFF_SCHEME];
	view->flags = buf[OFF_FLAGS];
	view->p.nhashes = (uint16_t) get_le(buf + OFF_NHASHES, 2);
	view->p.seed = get_le(buf + OFF_SEED, 8);
	view->p.nbits = get_le(buf + OFF_NBITS, 8);
	view->nadded = get_le(buf + OFF_NADDED, 8);
	elemlen = (size_t) get_le(buf + OFF_ELEMLEN, 2);

	if ((view->flags & ~(BF_FLAG_DERIVED | BF_FLAG_TARGET)) != 0)
		return bf_fail(err, BF_ERR_FORMAT, "unknown flags 0x%02x (this build knows 0x01, 0x02)",
		               (unsigned) view->flags);
	/* SQL reports the count as a bigint */
	if (view->nadded > INT64_MAX)
		return bf_fail(err, BF_ERR_PARAM, "number of values added is out of range");
	if (!bf_params_check(&view->p, elemlen, err))
		return false;
	if ((view->flags & BF_FLAG_DERIVED) && !bf_layout_is_bits(view->p.layout))
		return bf_fail(err, BF_ERR_FORMAT, "%s filters cannot be derived",
		               bf_layout_name(view->p.layout));
	if ((view->flags & BF_FLAG_TARGET) &&
	    ((view->flags & BF_FLAG_DERIVED) ||
	     (view->p.layout != BF_LAYOUT_EXPLICIT && view->p.layout != BF_LAYOUT_CLASSIC)))
		return bf_fail(err, BF_ERR_FORMAT,
		               "only an explicit or classic filter that is not derived has a target");
	ext = ext_size(view->flags);

	if (!bf_payload_size(&view->p, view->flags, elemlen, &expected, err))
		return false;
	if (len != expected)
		return bf_fail(err, BF_ERR_FORMAT,
		               "value has %zu bytes, but its header (m = %llu, element key of %zu "
		               "bytes) implies %zu",
		               len, (unsigned long long) view->p.nbits, elemlen, expected);

	view->bound = (view->flags & BF_FLAG_DERIVED) ? get_le(buf + BF_HEADER_SIZE, 8) : 0;
	view->est_distinct = (view->flags & BF_FLAG_DERIVED) ? get_le(buf + BF_HEADER_SIZE + 8, 8) : 0;
	view->target_ppb =
	    (view->flags & BF_FLAG_TARGET) ? (uint32_t) get_le(buf + BF_HEADER_SIZE, 4) : 0;
	if ((view->flags & BF_FLAG_TARGET) &&
	    (view->target_ppb < 1 || view->target_ppb >= BF_TARGET_SCALE))
		return bf_fail(err, BF_ERR_PARAM,
		               "target rate of %u parts per billion is out of range (1 to 999999999)",
		               (unsigned) view->target_ppb);
	if (view->bound > view->p.nbits)
		return bf_fail(err, BF_ERR_FORMAT, "bound %llu exceeds m = %llu",
		               (unsigned long long) view->bound, (unsigned long long) view->p.nbits);
	if (view->est_distinct > INT64_MAX)
		return bf_fail(err, BF_ERR_PARAM, "estimated distinct count is out of range");

	view->elem = (const char *) buf + BF_HEADER_SIZE + ext;
	view->elemlen = elemlen;
	if (!bf_elem_valid(view->elem, elemlen))
		return bf_fail(err, BF_ERR_FORMAT, "element key holds a control character");
	view->bits = (uint8_t *) buf + BF_HEADER_SIZE + ext + elemlen;
	view->nbytes = bf_data_bytes(view->p.layout, view->p.nbits);
	return true;
}

/* Explicit: hashes in strictly increasing order, one value added per hash at least. */
static bool
check_hashes(const bf_view *view, bf_error *err)
{
	if (view->nadded < view->p.nbits)
		return bf_fail(err, BF_ERR_FORMAT, "%llu hashes are held, more than the %llu values added",
		               (unsigned long long) view->p.nbits, (unsigned long long) view->nadded);
	if (view->nadded == 0 && view->elemlen != 0)
		return bf_fail(err, BF_ERR_FORMAT, "element key is set but no values were added");
	if (view->nadded != 0 && view->elemlen == 0)
		return bf_fail(err, BF_ERR_FORMAT, "values were added but the element key is empty");
	for (uint64_t i = 1; i < view->p.nbits; i++)
	{
		if ((i & 0xFFFFF) == 0)
			bf_tick();
		if (bf_explicit_get(view, i - 1) >= bf_explicit_get(view, i))
			return bf_fail(err, BF_ERR_FORMAT,
			               "hashes are not in strictly increasing order (at hash %llu)",
			               (unsigned long long) i);
	}
	return true;
}

bool
bf_check_bits(const bf_view *view, uint64_t occupied, bf_error *err)
{
	uint8_t last;

	if (view->p.layout == BF_LAYOUT_EXPLICIT)
		return check_hashes(view, err);
	last = view->bits[view->nbytes - 1];
	if (view->p.layout == BF_LAYOUT_COUNTING4)
	{
		if (view->p.nbits % 2 != 0 && (last >> 4) != 0)
			return bf_fail(err, BF_ERR_FORMAT, "counters beyond m = %llu are set",
			               (unsigned long long) view->p.nbits);
		if (view->elemlen == 0 && (view->nadded != 0 || occupied != 0))
			return bf_fail(err, BF_ERR_FORMAT, "values were added but the element key is empty");
		return true;
	}

	if (view->p.nbits % 8 != 0 && (last >> (view->p.nbits % 8)) != 0)
		return bf_fail(err, BF_ERR_FORMAT, "bits beyond m = %llu are set",
		               (unsigned long long) view->p.nbits);
	if (view->nadded == 0 && view->elemlen != 0)
		return bf_fail(err, BF_ERR_FORMAT, "element key is set but no values were added");
	if (view->nadded != 0 && view->elemlen == 0)
		return bf_fail(err, BF_ERR_FORMAT, "values were added but the element key is empty");
	/* k * nadded may overflow; only compare when it cannot */
	if (view->nadded <= UINT64_MAX / view->p.nhashes && occupied > view->nadded * view->p.nhashes)
		return bf_fail(err, BF_ERR_FORMAT,
		               "%llu bits are set, more than k = %u times the %llu values added",
		               (unsigned long long) occupied, (unsigned) view->p.nhashes,
		               (unsigned long long) view->nadded);
	if ((view->flags & BF_FLAG_DERIVED) && occupied > view->bound)
		return bf_fail(err, BF_ERR_FORMAT, "%llu bits are set, more than the bound %llu",
		               (unsigned long long) occupied, (unsigned long long) view->bound);
	return true;
}

bool
bf_params_equal(const bf_params *a, const bf_params *b)
{
	return a->layout == b->layout && a->scheme == b->scheme && a->nhashes == b->nhashes &&
	       a->seed == b->seed && a->nbits == b->nbits;
}
