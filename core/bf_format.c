/*
 * bf_format.c
 *	  Reading, writing and validating the serialized format (bf_format.h).
 *
 * Integers are read and written a byte at a time, so the format is the
 * same on every platform and no field needs to be aligned.  Everything a
 * reader may rely on is checked here: after bf_check_header() accepted a
 * buffer, every offset derived from the header lies inside it.  The data
 * are each layout's business (bf_check_data() in bf_core.h).
 */
#include "bf_format.h"
#include "bf_format_layered.h"
#include "bf_format_window.h"
#include "bf_makers.h"
#include "bf_util.h"

#include <string.h>

size_t
bf_data_bytes(uint8_t layout, uint64_t ncells)
{
	switch (layout)
	{
		case BF_LAYOUT_EXPLICIT:
			return (size_t) (ncells * 8);
		case BF_LAYOUT_COUNTING4:
			return (size_t) ((ncells + 1) / 2);
		default:
			return (size_t) ((ncells + 7) / 8);
	}
}

size_t
bf_extension_bytes(uint8_t flags)
{
	return ((flags & BF_FLAG_DERIVED) ? BF_DERIVED_SIZE : 0) +
	       ((flags & BF_FLAG_TARGET) ? BF_TARGET_SIZE : 0);
}

bool
bf_layout_is_bits(uint8_t layout)
{
	return layout == BF_LAYOUT_CLASSIC || layout == BF_LAYOUT_BLOCKED512;
}

bool
bf_layout_is_maker(uint8_t layout)
{
	return layout == BF_LAYOUT_SPARK || layout == BF_LAYOUT_GUAVA || layout == BF_LAYOUT_PARQUET;
}

bool
bf_layout_is_opt_in(uint8_t layout)
{
	return bf_layout_is_maker(layout) || layout == BF_LAYOUT_WINDOW;
}

/*
 * Other makers' element keys (bf_format.h).  Formats are forever: a key,
 * once released, keeps its name and meaning.
 */
static const bf_maker_key maker_keys[] = {
    /* Spark: putLong (every integral type), putString (UTF-8), putBinary */
    {"spark:int8", BF_LAYOUT_SPARK, 8},
    {"spark:text", BF_LAYOUT_SPARK, 0},
    {"spark:bytea", BF_LAYOUT_SPARK, 0},
    /* Guava: longFunnel, integerFunnel, stringFunnel(UTF_8), unencodedCharsFunnel, byteArrayFunnel */
    {"guava:int8", BF_LAYOUT_GUAVA, 8},
    {"guava:int4", BF_LAYOUT_GUAVA, 4},
    {"guava:text", BF_LAYOUT_GUAVA, 0},
    {"guava:chars", BF_LAYOUT_GUAVA, 0},
    {"guava:bytea", BF_LAYOUT_GUAVA, 0},
    /* Parquet: the plain encoding of each physical type (date: INT32 days, timestamps: INT64 us) */
    {"parquet:int4", BF_LAYOUT_PARQUET, 4},
    {"parquet:int8", BF_LAYOUT_PARQUET, 8},
    {"parquet:date", BF_LAYOUT_PARQUET, 4},
    {"parquet:timestamp", BF_LAYOUT_PARQUET, 8},
    {"parquet:timestamptz", BF_LAYOUT_PARQUET, 8},
    {"parquet:float4", BF_LAYOUT_PARQUET, 4},
    {"parquet:float8", BF_LAYOUT_PARQUET, 8},
    {"parquet:text", BF_LAYOUT_PARQUET, 0},
    {"parquet:bytea", BF_LAYOUT_PARQUET, 0},
    {"parquet:uuid", BF_LAYOUT_PARQUET, 16},
};

const bf_maker_key *
bf_maker_key_find(uint8_t layout, const char *elem, size_t len)
{
	for (size_t i = 0; i < sizeof(maker_keys) / sizeof(maker_keys[0]); i++)
		if (maker_keys[i].layout == layout && strlen(maker_keys[i].name) == len &&
		    memcmp(maker_keys[i].name, elem, len) == 0)
			return &maker_keys[i];
	return NULL;
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
		case BF_LAYOUT_LAYERED:
			return "layered";
		case BF_LAYOUT_SPARK:
			return "spark";
		case BF_LAYOUT_GUAVA:
			return "guava";
		case BF_LAYOUT_PARQUET:
			return "parquet";
		case BF_LAYOUT_WINDOW:
			return "window";
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

/*
 * bf_params_check() of another maker's filter: its scheme, k, m and seed
 * as bf_format.h gives them.
 */
static bool
maker_params_check(const bf_params *p, size_t elemlen, bf_error *err)
{
	const char *name = bf_layout_name(p->layout);
	unsigned kmin = 1, kmax = BF_MAKER_MAX_K_SPARK;
	uint64_t unit = 64, mmax = BF_MAX_BITS;
	bool scheme_ok, seed_ok = p->seed == 0;

	switch (p->layout)
	{
		case BF_LAYOUT_SPARK:
			scheme_ok = p->scheme == BF_SCHEME_SPARK_V1 || p->scheme == BF_SCHEME_SPARK_V2;
			/* version 2's seed is a Java int, kept sign-extended */
			if (p->scheme == BF_SCHEME_SPARK_V2)
				seed_ok = (int64_t) p->seed >= INT32_MIN && (int64_t) p->seed <= INT32_MAX;
			break;
		case BF_LAYOUT_GUAVA:
			scheme_ok = p->scheme == BF_SCHEME_GUAVA;
			kmax = BF_MAKER_MAX_K_GUAVA;
			break;
		default:
			scheme_ok = p->scheme == BF_SCHEME_PARQUET;
			kmin = kmax = BF_MAKER_K_PARQUET;
			unit = 256;
			mmax = BF_MAKER_MAX_BITS_PARQUET;
			break;
	}
	if (!scheme_ok)
		return bf_fail(err, BF_ERR_FORMAT, "a %s filter does not take hash scheme %u", name,
		               (unsigned) p->scheme);
	if (p->nhashes < kmin || p->nhashes > kmax)
		return bf_fail(err, BF_ERR_PARAM,
		               "number of hashes k = %u of a %s filter is out of range (%u to %u)",
		               (unsigned) p->nhashes, name, kmin, kmax);
	if (p->ncells < unit || p->ncells % unit != 0 || p->ncells > mmax)
		return bf_fail(err, BF_ERR_PARAM,
		               "number of bits m = %llu of a %s filter is not a multiple of %llu from "
		               "%llu to %llu",
		               (unsigned long long) p->ncells, name, (unsigned long long) unit,
		               (unsigned long long) unit, (unsigned long long) mmax);
	if (!seed_ok)
		return bf_fail(err, BF_ERR_PARAM, "seed %llu is not one a %s filter of scheme %u has",
		               (unsigned long long) p->seed, name, (unsigned) p->scheme);
	if (elemlen > BF_MAX_ELEM_LEN)
		return bf_fail(err, BF_ERR_FORMAT, "element key is longer than %d bytes", BF_MAX_ELEM_LEN);
	return true;
}

bool
bf_params_check(const bf_params *p, size_t elemlen, bf_error *err)
{
	uint64_t max = p->layout == BF_LAYOUT_COUNTING4 ? BF_MAX_COUNTERS : BF_MAX_BITS;

	if (bf_layout_is_maker(p->layout))
		return maker_params_check(p, elemlen, err);
	if (p->layout != BF_LAYOUT_CLASSIC && p->layout != BF_LAYOUT_COUNTING4 &&
	    p->layout != BF_LAYOUT_BLOCKED512 && p->layout != BF_LAYOUT_EXPLICIT &&
	    p->layout != BF_LAYOUT_LAYERED && p->layout != BF_LAYOUT_WINDOW)
		return bf_fail(err, BF_ERR_VERSION,
		               "unknown layout %u (this version knows 1 = classic, 2 = counting4, 3 = "
		               "blocked512, 4 = explicit, 5 = layered, 6 = spark, 7 = guava, 8 = parquet, "
		               "9 = window)",
		               (unsigned) p->layout);
	if (p->scheme != BF_SCHEME_DOUBLE_HASHING)
		return bf_fail(err, BF_ERR_VERSION, "unknown hash scheme %u (this version knows 1)",
		               (unsigned) p->scheme);
	if (p->layout == BF_LAYOUT_EXPLICIT)
	{
		/* a set of hashes: no positions yet, any number of hashes up to 1 GB */
		if (p->nhashes != 0)
			return bf_fail(err, BF_ERR_PARAM, "an explicit filter has k = 0, not %u",
			               (unsigned) p->nhashes);
		if (p->ncells > BF_MAX_EXPLICIT)
			return bf_fail(err, BF_ERR_TOO_LARGE,
			               "number of hashes m = %llu exceeds the maximum of %llu (1 GB)",
			               (unsigned long long) p->ncells, (unsigned long long) BF_MAX_EXPLICIT);
		if (elemlen > BF_MAX_ELEM_LEN)
			return bf_fail(err, BF_ERR_FORMAT, "element key is longer than %d bytes",
			               BF_MAX_ELEM_LEN);
		return true;
	}
	if (p->layout == BF_LAYOUT_LAYERED)
	{
		/* k layers of at least 512 bits each (their entries are checked with the header) */
		if (p->nhashes < 1 || p->nhashes > BF_MAX_LAYERS)
			return bf_fail(err, BF_ERR_PARAM,
			               "number of layers k = %u of a layered filter is out of range (1 to %d)",
			               (unsigned) p->nhashes, BF_MAX_LAYERS);
		if (p->ncells % BF_BLOCK_BITS != 0 || p->ncells < (uint64_t) p->nhashes * BF_BLOCK_BITS)
			return bf_fail(err, BF_ERR_PARAM,
			               "number of bits m = %llu of a layered filter of %u layers is not a "
			               "multiple of 512 of at least 512 per layer",
			               (unsigned long long) p->ncells, (unsigned) p->nhashes);
	}
	else if (p->layout == BF_LAYOUT_WINDOW)
	{
		/* k slices of a positive multiple of 64 bits each (the table is checked with the header) */
		if (p->nhashes < 1 || p->nhashes > BF_WINDOW_MAX_SLICES)
			return bf_fail(err, BF_ERR_PARAM,
			               "number of slices k = %u of a window filter is out of range (1 to %d)",
			               (unsigned) p->nhashes, BF_WINDOW_MAX_SLICES);
		if (p->ncells % ((uint64_t) p->nhashes * BF_WINDOW_SLICE_UNIT) != 0 || p->ncells == 0)
			return bf_fail(err, BF_ERR_PARAM,
			               "number of bits m = %llu of a window filter of %u slices is not a "
			               "positive multiple of %u",
			               (unsigned long long) p->ncells, (unsigned) p->nhashes,
			               (unsigned) p->nhashes * BF_WINDOW_SLICE_UNIT);
		if (p->seed != 0)
			return bf_fail(err, BF_ERR_PARAM, "a window filter's seed is 0, not %llu",
			               (unsigned long long) p->seed);
	}
	else if (p->nhashes < 1 || p->nhashes > BF_MAX_HASHES)
		return bf_fail(err, BF_ERR_PARAM, "number of hashes k = %u is out of range (1 to %d)",
		               (unsigned) p->nhashes, BF_MAX_HASHES);
	if (p->ncells < 1)
		return bf_fail(err, BF_ERR_PARAM, "number of bits m must be at least 1");
	if (p->ncells > max)
		return bf_fail(err, BF_ERR_TOO_LARGE,
		               "number of %s m = %llu exceeds the maximum of %llu (1 GB)",
		               p->layout == BF_LAYOUT_COUNTING4 ? "counters" : "bits",
		               (unsigned long long) p->ncells, (unsigned long long) max);
	if (p->layout == BF_LAYOUT_BLOCKED512 && p->ncells % BF_BLOCK_BITS != 0)
		return bf_fail(err, BF_ERR_PARAM,
		               "number of bits m = %llu of a blocked512 filter is not a multiple of 512",
		               (unsigned long long) p->ncells);
	if (elemlen > BF_MAX_ELEM_LEN)
		return bf_fail(err, BF_ERR_FORMAT, "element key is longer than %d bytes", BF_MAX_ELEM_LEN);
	return true;
}

bool
bf_flags_check(uint8_t layout, uint8_t flags, bf_error *err)
{
	if ((flags & ~BF_KNOWN_FLAGS) != 0)
		return bf_fail(err, BF_ERR_FORMAT,
		               "unknown flags 0x%02x (this build knows 0x01, 0x02, 0x04)",
		               (unsigned) flags);
	if ((flags & BF_FLAG_N_UNKNOWN) && !bf_layout_is_maker(layout))
		return bf_fail(err, BF_ERR_FORMAT,
		               "only another maker's filter may have an unknown count of values");
	if ((flags & BF_FLAG_DERIVED) && !bf_layout_is_bits(layout))
		return bf_fail(err, BF_ERR_FORMAT, "%s filters cannot be derived", bf_layout_name(layout));
	if ((flags & BF_FLAG_TARGET) && ((flags & BF_FLAG_DERIVED) ||
	                                 (layout != BF_LAYOUT_EXPLICIT && layout != BF_LAYOUT_CLASSIC)))
		return bf_fail(err, BF_ERR_FORMAT,
		               "only an explicit or classic filter that is not derived has a target");
	return true;
}

bool
bf_payload_size(const bf_params *p, uint8_t flags, size_t elemlen, size_t *size, bf_error *err)
{
	uint64_t total = (uint64_t) BF_HEADER_SIZE + bf_extension_bytes(flags) + elemlen +
	                 bf_layers_bytes(p) + bf_window_table_bytes(p) +
	                 bf_data_bytes(p->layout, p->ncells);

	if (total > BF_MAX_PAYLOAD)
		return bf_fail(err, BF_ERR_TOO_LARGE, "filter of %llu bytes exceeds the 1 GB limit",
		               (unsigned long long) total);
	*size = (size_t) total;
	return true;
}

bool
bf_elem_equal(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

bool
bf_params_equal(const bf_params *a, const bf_params *b)
{
	return a->layout == b->layout && a->scheme == b->scheme && a->nhashes == b->nhashes &&
	       a->seed == b->seed && a->ncells == b->ncells;
}

bool
bf_same_shape(const bf_view *a, const bf_view *b)
{
	if (!bf_params_equal(&a->p, &b->p))
		return false;
	if (a->p.layout == BF_LAYOUT_WINDOW)
		return bf_window_same_clock(a, b);
	return a->p.layout != BF_LAYOUT_LAYERED ||
	       memcmp(a->layers, b->layers, bf_layers_bytes(&a->p)) == 0;
}

/* Point view's pointers into buf, for a header already decoded into it. */
static void
locate(uint8_t *buf, bf_view *view)
{
	size_t ext = bf_extension_bytes(view->flags);
	uint8_t *after_elem = buf + BF_HEADER_SIZE + ext + view->elemlen;

	view->payload = buf;
	view->elem = (const char *) buf + BF_HEADER_SIZE + ext;
	view->layers = view->p.layout == BF_LAYOUT_LAYERED ? after_elem : NULL;
	view->window = view->p.layout == BF_LAYOUT_WINDOW ? after_elem : NULL;
	view->data = after_elem + bf_layers_bytes(&view->p) + bf_window_table_bytes(&view->p);
	view->nbytes = bf_data_bytes(view->p.layout, view->p.ncells);
}

void
bf_init_header(uint8_t *buf, const bf_params *p, uint8_t flags, const char *elem, size_t elemlen,
               uint64_t nadded, bf_view *view)
{
#ifndef NDEBUG
	bf_error err;

	assert(bf_params_check(p, elemlen, &err) && bf_flags_check(p->layout, flags, &err));
	assert(bf_elem_valid(elem, elemlen) && nadded <= INT64_MAX);
#endif
	memcpy(buf + BF_OFF_MAGIC, BF_MAGIC, 4);
	buf[BF_OFF_VERSION] = BF_VERSION;
	buf[BF_OFF_LAYOUT] = p->layout;
	buf[BF_OFF_SCHEME] = p->scheme;
	buf[BF_OFF_FLAGS] = flags;
	bf_store_le(buf + BF_OFF_NHASHES, p->nhashes, 2);
	bf_store_le(buf + BF_OFF_ELEMLEN, elemlen, 2);
	bf_store_le(buf + BF_OFF_SEED, p->seed, 8);
	bf_store_le(buf + BF_OFF_NCELLS, p->ncells, 8);
	bf_store_le(buf + BF_OFF_NADDED, nadded, 8);
	memset(buf + BF_HEADER_SIZE, 0, bf_extension_bytes(flags));

	{
		bf_params shape = *p; /* p may point into *view */

		memset(view, 0, sizeof(*view));
		view->p = shape;
	}
	view->version = BF_VERSION;
	view->flags = flags;
	view->nadded = nadded;
	view->elemlen = elemlen;
	locate(buf, view);
	if (elemlen > 0)
		memcpy(buf + (view->elem - (const char *) buf), elem, elemlen);
	if (view->layers != NULL)
		memset((uint8_t *) view->layers, 0, bf_layers_bytes(&view->p));
	if (view->window != NULL)
		memset(view->window, 0, bf_window_table_bytes(&view->p));
}

void
bf_init(uint8_t *buf, const bf_params *p, uint8_t flags, const char *elem, size_t elemlen,
        uint64_t nadded, bf_view *view)
{
	bf_init_header(buf, p, flags, elem, elemlen, nadded, view);
	memset(view->data, 0, view->nbytes);
}

void
bf_view_set_nadded(bf_view *view, uint64_t nadded)
{
	assert(nadded <= INT64_MAX);
	view->nadded = nadded;
	bf_store_le(view->payload + BF_OFF_NADDED, nadded, 8);
}

void
bf_view_set_n_unknown(bf_view *view)
{
	assert(bf_layout_is_maker(view->p.layout));
	view->flags |= BF_FLAG_N_UNKNOWN;
	view->payload[BF_OFF_FLAGS] = view->flags;
	bf_view_set_nadded(view, 0);
}

void
bf_view_set_derived(bf_view *view, uint64_t bound, uint64_t est_distinct)
{
	assert((view->flags & BF_FLAG_DERIVED) && bound <= view->p.ncells && est_distinct <= INT64_MAX);
	view->bound = bound;
	view->est_distinct = est_distinct;
	bf_store_le(view->payload + BF_HEADER_SIZE, bound, 8);
	bf_store_le(view->payload + BF_HEADER_SIZE + 8, est_distinct, 8);
}

void
bf_view_set_target(bf_view *view, uint32_t target_ppb)
{
	/* derived and target are never both set: the target is the only extension */
	assert((view->flags & BF_FLAG_TARGET) && !(view->flags & BF_FLAG_DERIVED));
	assert(target_ppb >= 1 && target_ppb < BF_TARGET_SCALE);
	view->target_ppb = target_ppb;
	bf_store_le(view->payload + BF_HEADER_SIZE, target_ppb, 4);
}

/* The header's fixed fields after the version, into view (unchecked). */
static void
read_fields(const uint8_t *buf, bf_view *view)
{
	view->p.layout = buf[BF_OFF_LAYOUT];
	view->p.scheme = buf[BF_OFF_SCHEME];
	view->flags = buf[BF_OFF_FLAGS];
	view->p.nhashes = (uint16_t) bf_load_le(buf + BF_OFF_NHASHES, 2);
	view->p.seed = bf_load_le(buf + BF_OFF_SEED, 8);
	view->p.ncells = bf_load_le(buf + BF_OFF_NCELLS, 8);
	view->nadded = bf_load_le(buf + BF_OFF_NADDED, 8);
	view->elemlen = (size_t) bf_load_le(buf + BF_OFF_ELEMLEN, 2);
}

/* The extensions the flags call for (derived: bound, est; target), into view (unchecked). */
static void
read_extension(const uint8_t *buf, bf_view *view)
{
	if (view->flags & BF_FLAG_DERIVED)
	{
		view->bound = bf_load_le(buf + BF_HEADER_SIZE, 8);
		view->est_distinct = bf_load_le(buf + BF_HEADER_SIZE + 8, 8);
	}
	if (view->flags & BF_FLAG_TARGET)
		view->target_ppb = (uint32_t) bf_load_le(buf + BF_HEADER_SIZE, 4);
}

/*
 * bf_check_header() and bf_check_header_all(): with_opt_in, whether another
 * maker's filter and a window filter are taken (bf_layout_is_opt_in()).
 */
static bool
check_header(const uint8_t *buf, size_t len, bool with_opt_in, bf_view *view, bf_error *err)
{
	size_t expected = 0;

	if (len < BF_HEADER_SIZE)
		return bf_fail(err, BF_ERR_FORMAT,
		               "value is truncated: %zu bytes, the header alone needs %d", len,
		               BF_HEADER_SIZE);
	if (memcmp(buf + BF_OFF_MAGIC, BF_MAGIC, 4) != 0)
		return bf_fail(err, BF_ERR_FORMAT, "bad magic number: not a bloom value");
	memset(view, 0, sizeof(*view));
	view->version = buf[BF_OFF_VERSION];
	if (view->version != BF_VERSION)
		return bf_fail(err, BF_ERR_VERSION,
		               "unknown format version %u (this build reads version %d)",
		               (unsigned) view->version, BF_VERSION);

	read_fields(buf, view);

	/* unknown flags first, before the fields they could change the meaning of */
	if ((view->flags & ~BF_KNOWN_FLAGS) != 0)
		return bf_flags_check(view->p.layout, view->flags, err);
	/* SQL reports the count as a bigint */
	if (view->nadded > INT64_MAX)
		return bf_fail(err, BF_ERR_PARAM, "number of values added is out of range");
	if (!bf_params_check(&view->p, view->elemlen, err) ||
	    !bf_flags_check(view->p.layout, view->flags, err))
		return false;

	if (!bf_payload_size(&view->p, view->flags, view->elemlen, &expected, err))
		return false;
	if (len != expected)
		return bf_fail(err, BF_ERR_FORMAT,
		               "value has %zu bytes, but its header (m = %llu, element key of %zu "
		               "bytes) implies %zu",
		               len, (unsigned long long) view->p.ncells, view->elemlen, expected);

	read_extension(buf, view);
	if (view->flags & BF_FLAG_TARGET)
	{
		if (view->target_ppb < 1 || view->target_ppb >= BF_TARGET_SCALE)
			return bf_fail(err, BF_ERR_PARAM,
			               "target rate of %u parts per billion is out of range (1 to 999999999)",
			               (unsigned) view->target_ppb);
	}
	if (view->bound > view->p.ncells)
		return bf_fail(err, BF_ERR_FORMAT, "bound %llu exceeds m = %llu",
		               (unsigned long long) view->bound, (unsigned long long) view->p.ncells);
	if (view->est_distinct > INT64_MAX)
		return bf_fail(err, BF_ERR_PARAM, "estimated distinct count is out of range");

	locate((uint8_t *) buf, view);
	if (!bf_elem_valid(view->elem, view->elemlen))
		return bf_fail(err, BF_ERR_FORMAT, "element key holds a control character");
	if (view->p.layout == BF_LAYOUT_LAYERED && !bf_layers_check(view, err))
		return false;
	if (view->p.layout == BF_LAYOUT_WINDOW)
	{
		if (!with_opt_in)
			return bf_fail(err, BF_ERR_PARAM,
			               "a window filter (one whose values fade, bloom_window) is not taken "
			               "here");
		if (!bf_window_table_check(view, err))
			return false;
	}
	if (bf_layout_is_maker(view->p.layout))
	{
		if (!with_opt_in)
			return bf_fail(err, BF_ERR_PARAM,
			               "a %s filter (another system's, read by bloom_import) is not taken here",
			               bf_layout_name(view->p.layout));
		if (bf_maker_key_find(view->p.layout, view->elem, view->elemlen) == NULL)
			return bf_fail(err, BF_ERR_FORMAT,
			               "a %s filter's element key is not one of its encodings",
			               bf_layout_name(view->p.layout));
		if ((view->flags & BF_FLAG_N_UNKNOWN) && view->nadded != 0)
			return bf_fail(err, BF_ERR_FORMAT,
			               "a filter whose count of values is unknown has n = 0, not %llu",
			               (unsigned long long) view->nadded);
	}
	return true;
}

void
bf_view_decode_trusted(uint8_t *buf, size_t len, bf_view *view)
{
#ifndef NDEBUG
	bf_error err;

	assert(check_header(buf, len, true, view, &err));
#endif
	(void) len;
	memset(view, 0, sizeof(*view));
	view->version = buf[BF_OFF_VERSION];
	read_fields(buf, view);
	read_extension(buf, view);
	locate(buf, view);
}

bool
bf_check_header(const uint8_t *buf, size_t len, bf_view *view, bf_error *err)
{
	return check_header(buf, len, false, view, err);
}

bool
bf_check_header_all(const uint8_t *buf, size_t len, bf_view *view, bf_error *err)
{
	return check_header(buf, len, true, view, err);
}
