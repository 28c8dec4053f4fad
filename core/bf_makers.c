/*
 * bf_makers.c
 *	  Other makers' filters as bloom values (bf_makers.h): their bytes read
 *	  and written, their values probed and added, their sizing; each by its
 *	  maker's own file.
 */
#include "bf_makers.h"
#include "bf_guava.h"
#include "bf_parquet.h"
#include "bf_spark.h"

#include <math.h>
#include <string.h>

/* The Spark filter a bloom value holds, its words its data. */
static bf_spark_view
spark_of(const bf_view *view, uint64_t recip)
{
	bf_spark_view s;

	assert(view->p.layout == BF_LAYOUT_SPARK);
	s.version = view->p.scheme == BF_SCHEME_SPARK_V1 ? BF_SPARK_V1 : BF_SPARK_V2;
	s.k = (int32_t) view->p.nhashes;
	s.seed = (int32_t) (int64_t) view->p.seed; /* sign-extended when stored */
	s.nwords = view->p.ncells / 64;
	s.words = view->data;
	s.recip = recip;
	return s;
}

static bf_guava_view
guava_of(const bf_view *view, uint64_t recip)
{
	bf_guava_view g;

	assert(view->p.layout == BF_LAYOUT_GUAVA);
	g.k = view->p.nhashes;
	g.nwords = view->p.ncells / 64;
	g.words = view->data;
	g.recip = recip;
	return g;
}

/* Whether the filter's key is Spark's long (putLong: every integral type), whose encoding is 8 bytes. */
static bool
spark_long_key(const bf_view *view)
{
	return view->elemlen == 10 && memcmp(view->elem, "spark:int8", 10) == 0;
}

bool
bf_maker_read(bf_maker_form form, const uint8_t *data, size_t len, bf_params *p,
              const uint8_t **bits, bf_error *err)
{
	memset(p, 0, sizeof(*p));
	switch (form)
	{
		case BF_FORM_SPARK:
		{
			bf_spark_view s;

			if (!bf_spark_read(data, len, &s, err))
				return false;
			p->layout = BF_LAYOUT_SPARK;
			p->scheme = s.version == BF_SPARK_V1 ? BF_SCHEME_SPARK_V1 : BF_SCHEME_SPARK_V2;
			p->nhashes = (uint16_t) s.k;
			p->seed = (uint64_t) (int64_t) s.seed;
			p->ncells = s.nwords * 64;
			*bits = s.words;
			break;
		}
		case BF_FORM_GUAVA:
		{
			bf_guava_view g;

			if (!bf_guava_read(data, len, &g, err))
				return false;
			p->layout = BF_LAYOUT_GUAVA;
			p->scheme = BF_SCHEME_GUAVA;
			p->nhashes = (uint16_t) g.k;
			p->ncells = g.nwords * 64;
			*bits = g.words;
			break;
		}
		default:
		{
			size_t header = 0, nbytes = 0;
			bf_error headed;

			assert(form == BF_FORM_PARQUET || form == BF_FORM_PARQUET_BITSET);
			if (form == BF_FORM_PARQUET_BITSET)
			{
				if (!bf_parquet_read(data, len, false, &header, &nbytes, err))
					return false;
			}
			else if (!bf_parquet_read(data, len, true, &header, &nbytes, &headed))
			{
				/*
				 * Not a header and its bitset: a bare bitset, if it can be one
				 * and does not start as a header does (then the header's error
				 * stands: a header with a byte too many or too few must not be
				 * read as bits, which would answer "absent" for what it holds).
				 */
				if (len % BF_PARQUET_BLOCK_BYTES != 0 || len == 0 ||
				    bf_parquet_looks_headed(data, len))
				{
					*err = headed;
					return false;
				}
				if (!bf_parquet_read(data, len, false, &header, &nbytes, err))
					return false;
			}
			p->layout = BF_LAYOUT_PARQUET;
			p->scheme = BF_SCHEME_PARQUET;
			p->nhashes = BF_MAKER_K_PARQUET;
			p->ncells = (uint64_t) nbytes * 8;
			*bits = data + header;
			break;
		}
	}
	if (p->ncells > BF_MAX_BITS)
		return bf_fail(err, BF_ERR_TOO_LARGE,
		               "a filter of %llu bits exceeds the largest a bloom value holds (%llu)",
		               (unsigned long long) p->ncells, (unsigned long long) BF_MAX_BITS);
	/* the makers' own bounds are within the format's, but for k (Spark's and Guava's limits) */
	return bf_params_check(p, 0, err);
}

size_t
bf_maker_write_size(const bf_view *view, bf_maker_form form)
{
	switch (view->p.layout)
	{
		case BF_LAYOUT_SPARK:
			if (form != BF_FORM_SPARK)
				return 0;
			return bf_spark_size(spark_of(view, 0).version, view->p.ncells / 64);
		case BF_LAYOUT_GUAVA:
			return form == BF_FORM_GUAVA ? bf_guava_size(view->p.ncells / 64) : 0;
		case BF_LAYOUT_PARQUET:
		{
			uint8_t header[BF_PARQUET_MAX_HEADER];

			if (form == BF_FORM_PARQUET_BITSET)
				return view->nbytes;
			if (form != BF_FORM_PARQUET)
				return 0;
			return bf_parquet_write_header(header, view->nbytes) + view->nbytes;
		}
	}
	return 0;
}

void
bf_maker_write(const bf_view *view, bf_maker_form form, uint8_t *out)
{
	size_t size = bf_maker_write_size(view, form);

	assert(size > 0 && size >= view->nbytes);
	switch (view->p.layout)
	{
		case BF_LAYOUT_SPARK:
		{
			bf_spark_view s = spark_of(view, 0);

			/* the header, then the words (written empty, then copied) */
			bf_spark_write_empty(out, s.version, s.k, s.seed, s.nwords);
			break;
		}
		case BF_LAYOUT_GUAVA:
			bf_guava_write_empty(out, view->p.nhashes, view->p.ncells / 64);
			break;
		default:
			if (form == BF_FORM_PARQUET)
				bf_parquet_write_header(out, view->nbytes);
			break;
	}
	memcpy(out + (size - view->nbytes), view->data, view->nbytes);
}

uint64_t
bf_maker_recip(const bf_view *view)
{
	assert(bf_layout_is_maker(view->p.layout));
	return view->p.layout == BF_LAYOUT_PARQUET ? 0 : bf_mod_recip(view->p.ncells);
}

bool
bf_maker_contains_recip(const bf_view *view, uint64_t recip, const uint8_t *in, size_t len)
{
	assert(bf_layout_is_maker(view->p.layout) && (in != NULL || len == 0));
	assert(recip == 0 || recip == bf_maker_recip(view));
	switch (view->p.layout)
	{
		case BF_LAYOUT_SPARK:
		{
			bf_spark_view s = spark_of(view, recip);

			if (spark_long_key(view))
			{
				assert(len == 8);
				return bf_spark_contains_long(&s, (int64_t) bf_load_le(in, 8));
			}
			return bf_spark_contains_bytes(&s, in, len);
		}
		case BF_LAYOUT_GUAVA:
		{
			bf_guava_view g = guava_of(view, recip);

			return bf_guava_contains(&g, in, len);
		}
		default:
			return bf_parquet_contains_hash(view->data, view->nbytes, bf_parquet_xxh64(in, len, 0));
	}
}

bool
bf_maker_contains(const bf_view *view, const uint8_t *in, size_t len)
{
	return bf_maker_contains_recip(view, 0, in, len);
}

bool
bf_maker_contains_long(const bf_view *view, uint64_t recip, int64_t v)
{
	uint8_t le[8];

	assert(bf_layout_is_maker(view->p.layout));
	if (view->p.layout == BF_LAYOUT_SPARK)
	{
		bf_spark_view s = spark_of(view, recip);

		assert(spark_long_key(view));
		return bf_spark_contains_long(&s, v);
	}
	/* (Parquet's hash of the value itself: no bytes stored and read back) */
	if (view->p.layout == BF_LAYOUT_PARQUET)
		return bf_parquet_contains_hash(view->data, view->nbytes,
		                                bf_parquet_xxh64_le64((uint64_t) v, 0));
	bf_store_le(le, (uint64_t) v, 8);
	return bf_maker_contains_recip(view, recip, le, 8);
}

void
bf_maker_add(bf_view *view, const uint8_t *in, size_t len)
{
	assert(bf_layout_is_maker(view->p.layout) && (in != NULL || len == 0));
	switch (view->p.layout)
	{
		case BF_LAYOUT_SPARK:
		{
			bf_spark_view s = spark_of(view, 0);

			if (spark_long_key(view))
			{
				assert(len == 8);
				bf_spark_set_long(&s, view->data, (int64_t) bf_load_le(in, 8));
			}
			else
				bf_spark_set_bytes(&s, view->data, in, len);
			break;
		}
		case BF_LAYOUT_GUAVA:
		{
			bf_guava_view g = guava_of(view, 0);

			bf_guava_set(&g, view->data, in, len);
			break;
		}
		default:
			bf_parquet_add_hash(view->data, view->nbytes, bf_parquet_xxh64(in, len, 0));
			break;
	}
}

bool
bf_maker_hashes_one(uint8_t layout)
{
	return layout == BF_LAYOUT_PARQUET;
}

uint64_t
bf_maker_hash(const bf_view *view, const uint8_t *in, size_t len)
{
	assert(bf_maker_hashes_one(view->p.layout) && (in != NULL || len == 0));
	return bf_parquet_xxh64(in, len, 0);
}

void
bf_maker_add_hashes(bf_view *view, const uint64_t *hashes, size_t n)
{
	assert(bf_maker_hashes_one(view->p.layout));
	bf_parquet_add_hashes(view->data, view->nbytes, hashes, n);
}

bool
bf_maker_sizing(uint8_t layout, uint8_t scheme, int64_t n, double fpp, bf_params *p, bf_error *err)
{
	int64_t bits = 0;

	memset(p, 0, sizeof(*p));
	p->layout = layout;
	p->scheme = scheme;
	switch (layout)
	{
		case BF_LAYOUT_SPARK:
		{
			int32_t k;

			if (!bf_spark_sizing(n, fpp, &bits, &k))
				return bf_fail(err, BF_ERR_PARAM,
				               "Spark sizes no filter for n = %lld at rate %g (n of at least 1, "
				               "a rate between 0 and 1, and k at most %d)",
				               (long long) n, fpp, BF_SPARK_MAX_K);
			p->nhashes = (uint16_t) k;
			break;
		}
		case BF_LAYOUT_GUAVA:
		{
			int k;

			if (!bf_guava_sizing(n, fpp, &bits, &k))
				return bf_fail(err, BF_ERR_PARAM,
				               "Guava sizes no filter for n = %lld at rate %g (n of at least 0, a "
				               "rate between 0 and 1, and k at most 255)",
				               (long long) n, fpp);
			p->nhashes = (uint16_t) k;
			break;
		}
		default:
		{
			size_t nbytes;

			assert(layout == BF_LAYOUT_PARQUET);
			if (!bf_parquet_sizing(n, fpp, &nbytes))
				return bf_fail(err, BF_ERR_PARAM,
				               "Parquet sizes no filter for n = %lld at rate %g (n of at least 0, "
				               "a rate between 0 and 1)",
				               (long long) n, fpp);
			p->nhashes = BF_MAKER_K_PARQUET;
			bits = (int64_t) nbytes * 8;
			break;
		}
	}
	/* whole 64-bit words: ceil(bits / 64), as Spark's and Guava's arrays are */
	p->ncells = ((uint64_t) bits + 63) / 64 * 64;
	if (p->ncells > BF_MAX_BITS)
		return bf_fail(err, BF_ERR_TOO_LARGE,
		               "a filter of %llu bits exceeds the largest a bloom value holds (%llu)",
		               (unsigned long long) p->ncells, (unsigned long long) BF_MAX_BITS);
	return bf_params_check(p, 0, err);
}

long
bf_utf8_to_utf16le(const uint8_t *utf8, size_t len, uint8_t *out)
{
	size_t i = 0, w = 0;

	while (i < len)
	{
		uint32_t c = utf8[i], min;
		int more;

		if (c < 0x80)
			more = 0, min = 0;
		else if ((c & 0xE0) == 0xC0)
			more = 1, c &= 0x1F, min = 0x80;
		else if ((c & 0xF0) == 0xE0)
			more = 2, c &= 0x0F, min = 0x800;
		else if ((c & 0xF8) == 0xF0)
			more = 3, c &= 0x07, min = 0x10000;
		else
			return -1;
		if (len - i - 1 < (size_t) more)
			return -1;
		for (int j = 1; j <= more; j++)
		{
			if ((utf8[i + j] & 0xC0) != 0x80)
				return -1;
			c = (c << 6) | (utf8[i + j] & 0x3F);
		}
		if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
			return -1;
		i += (size_t) more + 1;
		if (c >= 0x10000)
		{
			/* a surrogate pair: Java's chars of a supplementary character */
			c -= 0x10000;
			bf_store_le(out + w, 0xD800 + (c >> 10), 2);
			bf_store_le(out + w + 2, 0xDC00 + (c & 0x3FF), 2);
			w += 4;
		}
		else
		{
			bf_store_le(out + w, c, 2);
			w += 2;
		}
	}
	return (long) w;
}

double
bf_parquet_fpp(double lambda)
{
	double sum = 0.0, term, top;

	assert(lambda >= 0.0);
	/* past ~700 values a block, exp(-lambda) underflows: such a filter passes all but none */
	if (!(lambda <= 700.0))
		return 1.0;
	/* sum over i of Poisson(i; lambda) (1 - (31/32)^i)^8, to where the terms vanish */
	top = lambda + 12.0 * sqrt(lambda) + 30.0;
	term = exp(-lambda); /* Poisson(0) */
	for (double i = 0.0; i <= top; i += 1.0)
	{
		if (i > 0.0)
			term *= lambda / i;
		sum += term * pow(1.0 - pow(31.0 / 32.0, i), BF_MAKER_K_PARQUET);
	}
	return sum < 1.0 ? sum : 1.0;
}
