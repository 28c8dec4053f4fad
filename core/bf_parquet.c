/*
 * bf_parquet.c
 *	  Parquet's split block Bloom filter (bf_parquet.h says what that is):
 *	  XXH64, the blocks and salts, parquet-java's sizing, and a reader and
 *	  writer of the BloomFilterHeader in Thrift's compact protocol.
 */
#include "bf_parquet.h"

#include <math.h>
#include <string.h>

/* ---- XXH64 ---- */

#define XXH_P1 UINT64_C(0x9E3779B185EBCA87)
#define XXH_P2 UINT64_C(0xC2B2AE3D27D4EB4F)
#define XXH_P3 UINT64_C(0x165667B19E3779F9)
#define XXH_P4 UINT64_C(0x85EBCA77C2B2AE63)
#define XXH_P5 UINT64_C(0x27D4EB2F165667C5)

/*
 * The little-endian 64- and 32-bit words at p: a plain load where the host
 * is little-endian (XXH64 reads its input so, and a probe hashes every
 * row), else a byte at a time.
 */
static inline uint64_t
xxh_read64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
#else
	return bf_load_le(p, 8);
#endif
}

static inline uint64_t
xxh_read32(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
#else
	return bf_load_le(p, 4);
#endif
}

static inline uint64_t
xxh_rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint64_t
xxh_round(uint64_t acc, uint64_t input)
{
	acc += input * XXH_P2;
	acc = xxh_rotl(acc, 31);
	return acc * XXH_P1;
}

static inline uint64_t
xxh_merge(uint64_t acc, uint64_t lane)
{
	acc ^= xxh_round(0, lane);
	return acc * XXH_P1 + XXH_P4;
}

/* XXH64's last steps: the avalanche */
static inline uint64_t
xxh_avalanche(uint64_t h)
{
	h ^= h >> 33;
	h *= XXH_P2;
	h ^= h >> 29;
	h *= XXH_P3;
	h ^= h >> 32;
	return h;
}

uint64_t
bf_parquet_xxh64_le64(uint64_t v, uint64_t seed)
{
	uint64_t h = seed + XXH_P5 + 8;

	h ^= xxh_round(0, v);
	return xxh_avalanche(xxh_rotl(h, 27) * XXH_P1 + XXH_P4);
}

uint64_t
bf_parquet_xxh64(const uint8_t *data, size_t len, uint64_t seed)
{
	size_t i = 0;
	uint64_t h;

	assert(data != NULL || len == 0);
	/*
	 * The INT64 and INT32 of a probe, every row: the steps the general loop
	 * below takes for 8 and 4 bytes, without its branches.
	 */
	if (len == 8)
		return bf_parquet_xxh64_le64(xxh_read64(data), seed);
	if (len == 4)
	{
		h = seed + XXH_P5 + 4;
		h ^= xxh_read32(data) * XXH_P1;
		return xxh_avalanche(xxh_rotl(h, 23) * XXH_P2 + XXH_P3);
	}
	if (len >= 32)
	{
		uint64_t v1 = seed + XXH_P1 + XXH_P2, v2 = seed + XXH_P2, v3 = seed, v4 = seed - XXH_P1;

		for (; i + 32 <= len; i += 32)
		{
			v1 = xxh_round(v1, xxh_read64(data + i));
			v2 = xxh_round(v2, xxh_read64(data + i + 8));
			v3 = xxh_round(v3, xxh_read64(data + i + 16));
			v4 = xxh_round(v4, xxh_read64(data + i + 24));
		}
		h = xxh_rotl(v1, 1) + xxh_rotl(v2, 7) + xxh_rotl(v3, 12) + xxh_rotl(v4, 18);
		h = xxh_merge(h, v1);
		h = xxh_merge(h, v2);
		h = xxh_merge(h, v3);
		h = xxh_merge(h, v4);
	}
	else
		h = seed + XXH_P5;
	h += (uint64_t) len;
	for (; i + 8 <= len; i += 8)
	{
		h ^= xxh_round(0, xxh_read64(data + i));
		h = xxh_rotl(h, 27) * XXH_P1 + XXH_P4;
	}
	if (i + 4 <= len)
	{
		h ^= xxh_read32(data + i) * XXH_P1;
		h = xxh_rotl(h, 23) * XXH_P2 + XXH_P3;
		i += 4;
	}
	for (; i < len; i++)
	{
		h ^= data[i] * XXH_P5;
		h = xxh_rotl(h, 11) * XXH_P1;
	}
	return xxh_avalanche(h);
}

/* ---- blocks ---- */

static const uint32_t parquet_salt[BF_PARQUET_K] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                                    0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                                    0x9efc4947U, 0x5c6bfb31U};

/* The first byte of the block of hash h in a bitset of nbytes bytes. */
static inline size_t
parquet_block(size_t nbytes, uint64_t h)
{
	uint64_t nblocks = nbytes / BF_PARQUET_BLOCK_BYTES;

	/* nblocks < 2^32 (at most 2^22 blocks), so the product fits */
	return (size_t) ((((h >> 32) * nblocks) >> 32) * BF_PARQUET_BLOCK_BYTES);
}

bool
bf_parquet_contains_hash(const uint8_t *bitset, size_t nbytes, uint64_t h)
{
	const uint8_t *block;
	uint32_t x = (uint32_t) h;

	assert(nbytes >= BF_PARQUET_BLOCK_BYTES && nbytes % BF_PARQUET_BLOCK_BYTES == 0);
	block = bitset + parquet_block(nbytes, h);
	for (int i = 0; i < BF_PARQUET_K; i++)
	{
		unsigned bit = (x * parquet_salt[i]) >> 27;

		if (!(block[4 * i + bit / 8] & (1u << (bit % 8))))
			return false;
	}
	return true;
}

void
bf_parquet_add_hash(uint8_t *bitset, size_t nbytes, uint64_t h)
{
	uint8_t *block;
	uint32_t x = (uint32_t) h;

	assert(nbytes >= BF_PARQUET_BLOCK_BYTES && nbytes % BF_PARQUET_BLOCK_BYTES == 0);
	block = bitset + parquet_block(nbytes, h);
	for (int i = 0; i < BF_PARQUET_K; i++)
	{
		unsigned bit = (x * parquet_salt[i]) >> 27;

		/* bit b of a little-endian 32-bit word is bit b % 8 of its byte b / 8 */
		block[4 * i + bit / 8] |= (uint8_t) (1u << (bit % 8));
	}
}

/* prefetch distance, in values, of bf_parquet_add_hashes (as bf_bits.c's, measured there) */
#define PARQUET_PREFETCH_AHEAD 16
#if defined(__GNUC__) || defined(__clang__)
#define PARQUET_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 0)
#else
#define PARQUET_PREFETCH_WRITE(p) ((void) (p))
#endif

void
bf_parquet_add_hashes(uint8_t *bitset, size_t nbytes, const uint64_t *hashes, size_t n)
{
	assert(nbytes >= BF_PARQUET_BLOCK_BYTES && nbytes % BF_PARQUET_BLOCK_BYTES == 0);
	/* the block of value i + AHEAD requested while value i's bits are set: misses overlap */
	for (size_t i = 0; i < n; i++)
	{
		if (i + PARQUET_PREFETCH_AHEAD < n)
			PARQUET_PREFETCH_WRITE(bitset +
			                       parquet_block(nbytes, hashes[i + PARQUET_PREFETCH_AHEAD]));
		bf_parquet_add_hash(bitset, nbytes, hashes[i]);
	}
}

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

/* ---- sizing ---- */

bool
bf_parquet_sizing(int64_t n, double fpp, size_t *nbytes)
{
	double m;
	int64_t bits;
	uint64_t bytes;

	if (!(fpp > 0.0 && fpp < 1.0) || n < 0)
		return false;
	/* optimalNumOfBits: m = -8 n / ln(1 - fpp^(1/8)), as a Java int, at most the upper bound */
	m = -8.0 * (double) n / log(1.0 - pow(fpp, 1.0 / 8.0));
	if (m < 0 || m > (double) BF_PARQUET_MAX_BYTES * 8)
		bits = (int64_t) BF_PARQUET_MAX_BYTES * 8;
	else
		bits = (int64_t) m;
	/*
	 * "rounded up to whole blocks" as parquet-java writes it:
	 * (numBits + BITS_PER_BLOCK - 1) & ~BITS_PER_BLOCK, which clears bit 8
	 * only (not bits 0 to 7); the power of two below makes up for it, but
	 * not always to the same size (n = 100 at 1 %: 256 bytes, where Arrow
	 * and DuckDB give 128).  Kept, to give parquet-java's bytes.
	 */
	bits = (bits + 255) & ~(int64_t) 256;
	if (bits < BF_PARQUET_MIN_BYTES * 8)
		bits = BF_PARQUET_MIN_BYTES * 8;
	/* BlockSplitBloomFilter(bits / 8): at least the lower bound, then up to a power of two */
	bytes = (uint64_t) bits / 8;
	if (bytes < BF_PARQUET_MIN_BYTES)
		bytes = BF_PARQUET_MIN_BYTES;
	if ((bytes & (bytes - 1)) != 0)
	{
		/* Integer.highestOneBit(bytes) << 1 */
		uint64_t p = 1;

		while (p <= bytes / 2)
			p <<= 1;
		bytes = p << 1;
	}
	if (bytes > BF_PARQUET_MAX_BYTES)
		bytes = BF_PARQUET_MAX_BYTES;
	*nbytes = (size_t) bytes;
	return true;
}
