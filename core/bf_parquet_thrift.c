/*
 * bf_parquet_thrift.c
 *	  The BloomFilterHeader that precedes a split block filter's bitset in a
 *	  Parquet file (bf_parquet.h): read from Thrift's compact protocol, with
 *	  bounds on every read, on nesting and on the header's length, fields a
 *	  later Parquet may add skipped; and written as parquet-java writes it.
 */
#include "bf_parquet.h"

/* ---- the Thrift header ---- */

/* Thrift compact protocol's element types */
enum
{
	TC_STOP = 0,
	TC_TRUE = 1,
	TC_FALSE = 2,
	TC_BYTE = 3,
	TC_I16 = 4,
	TC_I32 = 5,
	TC_I64 = 6,
	TC_DOUBLE = 7,
	TC_BINARY = 8,
	TC_LIST = 9,
	TC_SET = 10,
	TC_MAP = 11,
	TC_STRUCT = 12
};

/* nesting at most, in fields the reader skips: a header has two levels */
#define TC_MAX_DEPTH 16

typedef struct thrift_cursor
{
	const uint8_t *data;
	size_t len, pos;
} thrift_cursor;

static bool
tc_byte(thrift_cursor *c, uint8_t *out)
{
	if (c->pos >= c->len)
		return false;
	*out = c->data[c->pos++];
	return true;
}

/* An unsigned varint of at most 10 bytes (64 bits). */
static bool
tc_varint(thrift_cursor *c, uint64_t *out)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 70; shift += 7)
	{
		uint8_t b;

		if (!tc_byte(c, &b))
			return false;
		if (shift == 63 && b > 1)
			return false; /* more than 64 bits */
		v |= (uint64_t) (b & 0x7F) << shift;
		if (!(b & 0x80))
		{
			*out = v;
			return true;
		}
	}
	return false;
}

static int64_t
tc_unzigzag(uint64_t v)
{
	return (int64_t) (v >> 1) ^ -(int64_t) (v & 1);
}

static bool tc_skip(thrift_cursor *c, int type, int depth);

/* Skip a struct's fields up to its stop. */
static bool
tc_skip_struct(thrift_cursor *c, int depth)
{
	if (depth > TC_MAX_DEPTH)
		return false;
	for (;;)
	{
		uint8_t h;
		uint64_t id;

		if (!tc_byte(c, &h))
			return false;
		if (h == TC_STOP)
			return true;
		if ((h >> 4) == 0 && !tc_varint(c, &id))
			return false;
		if (!tc_skip(c, h & 0x0F, depth + 1))
			return false;
	}
}

/* Skip one value of a type (in a struct's field: booleans hold no byte). */
static bool
tc_skip(thrift_cursor *c, int type, int depth)
{
	uint8_t b;
	uint64_t n;

	if (depth > TC_MAX_DEPTH)
		return false;
	switch (type)
	{
		case TC_TRUE:
		case TC_FALSE:
			return true;
		case TC_BYTE:
			return tc_byte(c, &b);
		case TC_I16:
		case TC_I32:
		case TC_I64:
			return tc_varint(c, &n);
		case TC_DOUBLE:
			if (c->len - c->pos < 8)
				return false;
			c->pos += 8;
			return true;
		case TC_BINARY:
			if (!tc_varint(c, &n) || n > c->len - c->pos)
				return false;
			c->pos += (size_t) n;
			return true;
		case TC_LIST:
		case TC_SET:
		{
			int elem;

			if (!tc_byte(c, &b))
				return false;
			elem = b & 0x0F;
			n = b >> 4;
			if (n == 15 && !tc_varint(c, &n))
				return false;
			if (n > c->len - c->pos)
				return false; /* every element takes a byte at least */
			for (uint64_t i = 0; i < n; i++)
				/* a list's booleans take a byte each */
				if (!(elem == TC_TRUE || elem == TC_FALSE ? tc_byte(c, &b)
				                                          : tc_skip(c, elem, depth + 1)))
					return false;
			return true;
		}
		case TC_MAP:
		{
			uint8_t kv;

			if (!tc_varint(c, &n))
				return false;
			if (n == 0)
				return true;
			if (n > c->len - c->pos || !tc_byte(c, &kv))
				return false;
			for (uint64_t i = 0; i < n; i++)
				for (int half = 0; half < 2; half++)
				{
					int t = half == 0 ? kv >> 4 : kv & 0x0F;

					if (!(t == TC_TRUE || t == TC_FALSE ? tc_byte(c, &b)
					                                    : tc_skip(c, t, depth + 1)))
						return false;
				}
			return true;
		}
		case TC_STRUCT:
			return tc_skip_struct(c, depth + 1);
		default:
			return false;
	}
}

/*
 * The next field's header of a struct: its id (*id, from the one before it,
 * *last, which it updates) and type (*type), or *type TC_STOP at the
 * struct's end.  False if malformed: truncated, an id out of an i16's range.
 */
static bool
tc_field(thrift_cursor *c, int16_t *last, int64_t *id, int *type)
{
	uint8_t h;

	if (!tc_byte(c, &h))
		return false;
	*type = h & 0x0F;
	if (h == TC_STOP)
		return true;
	if (*type == TC_STOP)
		return false; /* a field of type 0: no type at all */
	if ((h >> 4) != 0)
		*id = *last + (h >> 4); /* the short form: a delta from the last id */
	else
	{
		uint64_t z;

		if (!tc_varint(c, &z))
			return false;
		*id = tc_unzigzag(z);
	}
	if (*id < INT16_MIN || *id > INT16_MAX)
		return false;
	*last = (int16_t) *id;
	return true;
}

/*
 * One of the header's unions (algorithm, hash, compression): a struct
 * whose only set field must be field 1, itself a struct (skipped: Parquet's
 * are empty).  *ok: it was so; false return: malformed.
 */
static bool
tc_read_union(thrift_cursor *c, bool *ok)
{
	int16_t last = 0;
	int fields = 0;

	*ok = true;
	for (;;)
	{
		int64_t id = 0;
		int type;

		if (!tc_field(c, &last, &id, &type))
			return false;
		if (type == TC_STOP)
			break;
		fields++;
		if (id != 1 || type != TC_STRUCT)
			*ok = false;
		if (!tc_skip(c, type, 1))
			return false;
	}
	if (fields != 1)
		*ok = false;
	return true;
}

bool
bf_parquet_looks_headed(const uint8_t *data, size_t len)
{
	return len > 0 && data[0] == ((1 << 4) | TC_I32);
}

/* A bitset's size Parquet's writers and readers take: a multiple of 32 bytes within the bounds. */
static bool
parquet_size_ok(uint64_t nbytes)
{
	return nbytes >= BF_PARQUET_MIN_BYTES && nbytes <= BF_PARQUET_MAX_BYTES &&
	       nbytes % BF_PARQUET_BLOCK_BYTES == 0;
}

bool
bf_parquet_read(const uint8_t *data, size_t len, bool with_header, size_t *header_len,
                size_t *nbytes, bf_error *err)
{
	thrift_cursor c = {data, len, 0};
	int16_t last = 0;
	int64_t num_bytes = -1;
	bool seen[5] = {false};
	static const char *const union_name[5] = {NULL, NULL, "algorithm", "hash", "compression"};
	static const char *const member_name[5] = {NULL, NULL, "BLOCK", "XXHASH", "UNCOMPRESSED"};

	assert(data != NULL || len == 0);
	if (!with_header)
	{
		if (!parquet_size_ok(len))
			return bf_fail(err, BF_ERR_FORMAT,
			               "a Parquet bitset of %zu bytes: it must be a multiple of 32 bytes, "
			               "from %d to %d",
			               len, BF_PARQUET_MIN_BYTES, BF_PARQUET_MAX_BYTES);
		*header_len = 0;
		*nbytes = len;
		return true;
	}
	for (;;)
	{
		int64_t id = 0;
		int type;

		if (c.pos >= BF_PARQUET_MAX_HEADER || !tc_field(&c, &last, &id, &type))
			return bf_fail(err, BF_ERR_FORMAT,
			               "the Parquet Bloom filter header is truncated, malformed or longer than "
			               "%d bytes",
			               BF_PARQUET_MAX_HEADER);
		if (type == TC_STOP)
			break;
		if (id >= 1 && id <= 4 && seen[id])
			return bf_fail(err, BF_ERR_FORMAT, "the Parquet Bloom filter header has field %d twice",
			               (int) id);
		if (id == 1)
		{
			uint64_t z;

			if (type != TC_I32 || !tc_varint(&c, &z))
				return bf_fail(err, BF_ERR_FORMAT,
				               "the Parquet Bloom filter header's numBytes is not an i32");
			num_bytes = tc_unzigzag(z);
			seen[1] = true;
		}
		else if (id >= 2 && id <= 4)
		{
			bool ok;

			if (type != TC_STRUCT || !tc_read_union(&c, &ok))
				return bf_fail(err, BF_ERR_FORMAT,
				               "the Parquet Bloom filter header's %s is malformed", union_name[id]);
			if (!ok)
				return bf_fail(err, BF_ERR_VERSION,
				               "the Parquet Bloom filter's %s is not %s, the only one Parquet "
				               "defines",
				               union_name[id], member_name[id]);
			seen[id] = true;
		}
		else if (!tc_skip(&c, type, 1)) /* a field a later Parquet may add */
			return bf_fail(err, BF_ERR_FORMAT, "the Parquet Bloom filter header is malformed");
	}
	for (int id = 1; id <= 4; id++)
		if (!seen[id])
			return bf_fail(err, BF_ERR_FORMAT, "the Parquet Bloom filter header lacks its %s",
			               id == 1 ? "numBytes" : union_name[id]);
	if (num_bytes < 0 || !parquet_size_ok((uint64_t) num_bytes))
		return bf_fail(err, BF_ERR_FORMAT,
		               "the Parquet Bloom filter header's numBytes %lld is not a multiple of 32 "
		               "bytes from %d to %d",
		               (long long) num_bytes, BF_PARQUET_MIN_BYTES, BF_PARQUET_MAX_BYTES);
	if ((uint64_t) num_bytes != len - c.pos)
		return bf_fail(err, BF_ERR_FORMAT,
		               "the Parquet Bloom filter header says %lld bytes, and %zu follow it",
		               (long long) num_bytes, len - c.pos);
	*header_len = c.pos;
	*nbytes = (size_t) num_bytes;
	return true;
}

/* Append an unsigned varint; returns its length. */
static size_t
put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80)
	{
		out[n++] = (uint8_t) (v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t) v;
	return n;
}

size_t
bf_parquet_write_header(uint8_t *out, size_t nbytes)
{
	size_t n = 0;

	assert(parquet_size_ok(nbytes));
	out[n++] = (1 << 4) | TC_I32;                     /* field 1, numBytes */
	n += put_varint(out + n, (uint64_t) nbytes << 1); /* zigzag of a positive i32 */
	for (int id = 2; id <= 4; id++)
	{
		out[n++] = (1 << 4) | TC_STRUCT; /* the next field, a union */
		out[n++] = (1 << 4) | TC_STRUCT; /* its field 1, an empty struct */
		out[n++] = TC_STOP;
		out[n++] = TC_STOP;
	}
	out[n++] = TC_STOP;
	assert(n <= BF_PARQUET_MAX_HEADER);
	return n;
}
