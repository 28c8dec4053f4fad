"""Other systems' Bloom filters, read and written in their makers' bytes and
probed exactly as their makers probe them: Apache Spark's
(org.apache.spark.util.sketch.BloomFilter, versions 1 and 2), Guava's
(MURMUR128_MITZ_64) and Parquet's split block filter.

    from pg_bloomfilter.makers import SparkFilter, ParquetFilter, from_bloom_bytes

    f = SparkFilter.from_bytes(blob, "int8")     # what Spark's writeTo wrote
    f.might_contain(42)                          # mightContainLong(42), bit for bit
    cur.execute("SELECT o.* FROM orders o WHERE %s::bytea::bloom @> o.customer_id",
                (f.to_bloom_bytes(),))           # as bloom_import(blob, 'spark', 'bigint')

    g = ParquetFilter.create("text", expected_items=10_000, false_positive_rate=0.01)
    g.put("alice")                               # as bloom_agg(t, 10000, 0.01, 'parquet')
    g.to_bytes()                                 # the Thrift header and the bitset

A filter's type is the server's element key without its maker (how a value
becomes the bytes the maker hashed): Spark "int8" (putLong: every int),
"text" (putString: UTF-8), "bytea" (putBinary); Guava "int8" (longFunnel),
"int4" (integerFunnel), "text" (stringFunnel(UTF_8)), "chars"
(unencodedCharsFunnel), "bytea" (byteArrayFunnel); Parquet the plain
encoding of "int4", "int8", "date" (INT32 days since 1970), "timestamp" and
"timestamptz" (INT64 microseconds since 1970), "float4", "float8", "text",
"bytea", "uuid".  The server's docs/interop.md says more.
"""

import datetime as _dt
import math
import struct
import uuid as _uuid
from typing import Optional, Union

from . import _maker_hashes as mh
from ._parquet_header import parquet_header, read_parquet
from .errors import BloomFilterError

__all__ = ["SparkFilter", "GuavaFilter", "ParquetFilter", "from_bloom_bytes"]

_Bytes = Union[bytes, bytearray, memoryview]
_EPOCH_DATE = _dt.date(1970, 1, 1)
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_UTC = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
_INT32 = (-(1 << 31), (1 << 31) - 1)
_INT64 = (-(1 << 63), (1 << 63) - 1)
_MAX_BITS = 8589932224  # the largest m a bloom value holds (core/bf_format.h)


def _int(value, lo_hi, name):
    if isinstance(value, bool) or not isinstance(value, int):
        raise BloomFilterError("a %s filter takes int values, not %s" % (name, type(value).__name__))
    return lo_hi[0] <= value <= lo_hi[1]


def _encode(kind: str, value):
    """The bytes the maker hashed for value, or None if its encoding has none for it
    (an int past an int's range, a float no float32 equals).  Also the other
    zero's bytes for a float zero (0 = -0, as the server and DuckDB probe)."""
    if kind in ("int8", "int4"):
        if not _int(value, _INT64 if kind == "int8" else _INT32, kind):
            return None, None
        return value.to_bytes(8 if kind == "int8" else 4, "little", signed=True), None
    if kind == "date":
        if isinstance(value, _dt.datetime) or not isinstance(value, _dt.date):
            raise BloomFilterError("a date filter takes datetime.date values")
        return ((value - _EPOCH_DATE).days).to_bytes(4, "little", signed=True), None
    if kind in ("timestamp", "timestamptz"):
        if not isinstance(value, _dt.datetime) or (value.tzinfo is None) != (kind == "timestamp"):
            raise BloomFilterError(
                "a %s filter takes %s datetime values" % (kind, "naive" if kind == "timestamp" else "aware")
            )
        delta = value - (_EPOCH if kind == "timestamp" else _EPOCH_UTC)
        us = (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds
        return us.to_bytes(8, "little", signed=True), None
    if kind in ("float4", "float8"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BloomFilterError("a %s filter takes float values" % kind)
        try:
            d = float(value)
            fmt = "<f" if kind == "float4" else "<d"
            if kind == "float4" and not math.isnan(d) and struct.unpack("<f", struct.pack("<f", d))[0] != d:
                return None, None
        except OverflowError:
            return None, None  # past a float's (or a double's) range: no such value in the filter
        if math.isnan(d):
            # every NaN is one: Java's Double.NaN added, it and its sign-flipped twin asked
            b = b"\x00\x00\xc0\x7f" if kind == "float4" else b"\x00\x00\x00\x00\x00\x00\xf8\x7f"
            return b, b[:-1] + bytes([b[-1] | 0x80])
        b = struct.pack(fmt, d)
        return b, (struct.pack(fmt, -d) if d == 0.0 else None)
    if kind in ("text", "chars"):
        if not isinstance(value, str):
            raise BloomFilterError("a %s filter takes str values" % kind)
        return (value.encode("utf-8") if kind == "text" else value.encode("utf-16-le", "surrogatepass")), None
    if kind == "bytea":
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise BloomFilterError("a bytea filter takes bytes values")
        return bytes(value), None
    if kind == "uuid":
        if not isinstance(value, _uuid.UUID):
            raise BloomFilterError("a uuid filter takes uuid.UUID values")
        return value.bytes, None
    raise BloomFilterError("unknown type %r" % kind)


class _MakerFilter:
    """What the three makers' filters share: their bits, k, type, and a count of
    the values put (None when read from a maker's bytes: unknown)."""

    _maker = ""
    _layout = 0
    _types = ()

    def __init__(self, kind: str, k: int, bits: bytearray, count: Optional[int]):
        if kind not in self._types:
            raise BloomFilterError(
                "a %s filter has no type %r (it has %s)" % (self._maker, kind, ", ".join(self._types))
            )
        self.type = kind
        self.k = k
        self._bits = bits
        self.count = count

    @property
    def nbits(self) -> int:
        return 8 * len(self._bits)

    def might_contain(self, value) -> bool:
        """False: the maker's filter certainly does not hold the value; True: it may."""
        enc, alt = _encode(self.type, value)
        if enc is None:
            return False
        return self._test(enc) or (alt is not None and self._test(alt))

    __contains__ = might_contain

    def put(self, value) -> None:
        """Add the value as its maker's put does."""
        enc, _ = _encode(self.type, value)
        if enc is None:
            raise BloomFilterError("a %s %s filter cannot hold %r" % (self._maker, self.type, value))
        self._set(enc)
        if self.count is not None:
            self.count += 1

    def put_all(self, values) -> None:
        for v in values:
            self.put(v)

    def _scheme(self) -> int:
        raise NotImplementedError

    def _seed(self) -> int:
        return 0

    def to_bloom_bytes(self) -> bytes:
        """The bloom value holding this filter, as the server sends it (bloom_send):
        what bloom_import gives for the maker's bytes (its count unknown), or
        bloom_agg in the maker's format (its count known)."""
        elem = ("%s:%s" % (self._maker.lower(), self.type)).encode()
        flags = 0x04 if self.count is None else 0
        header = b"BLOM" + struct.pack(
            "<BBBBHHQQQ",
            1,
            self._layout,
            self._scheme(),
            flags,
            self.k,
            len(elem),
            self._seed() & mh.M64,
            self.nbits,
            self.count or 0,
        )
        return header + elem + bytes(self._bits)

    def __eq__(self, other) -> bool:
        """The same maker's filter: its form, type, k, seed and bits (not its count)."""
        return type(other) is type(self) and (self.type, self.k, self._seed(), self._scheme(), self._bits) == (
            other.type,
            other.k,
            other._seed(),
            other._scheme(),
            other._bits,
        )

    def __repr__(self) -> str:
        return "<%s type=%s m=%d k=%d count=%s>" % (type(self).__name__, self.type, self.nbits, self.k, self.count)


def _big_endian_bit(words: bytearray, i: int) -> int:
    """(byte, mask) of bit i of big-endian 64-bit words: bit i % 64 of word i // 64."""
    return (i // 64) * 8 + 7 - (i % 64) // 8, 1 << (i % 8)


def _java_round(x: float) -> int:
    return math.floor(x + 0.5)


class SparkFilter(_MakerFilter):
    """Apache Spark's BloomFilter, version 1 or 2 (Spark 4.1's default)."""

    _maker = "Spark"
    _layout = 6
    _types = ("int8", "text", "bytea")

    def __init__(self, kind, k, bits, count, version=2, seed=0):
        super().__init__(kind, k, bits, count)
        if version not in (1, 2) or (version == 1 and seed != 0):
            raise BloomFilterError("a Spark filter has version 1 (seed 0) or 2")
        self.version = version
        self.seed = seed

    def _scheme(self) -> int:
        return 2 if self.version == 1 else 3

    def _seed(self) -> int:
        return self.seed

    @classmethod
    def create(cls, type: str, expected_items: int, false_positive_rate: float, version: int = 2) -> "SparkFilter":
        """BloomFilter.create(expected_items, false_positive_rate) (version 2, seed 0), or version 1."""
        n, p = expected_items, false_positive_rate
        if n < 1 or not 0.0 < p < 1.0:
            raise BloomFilterError("Spark sizes no filter for n = %r at rate %r" % (n, p))
        bits = int(-n * math.log(p) / (math.log(2) * math.log(2)))
        k = max(1, _java_round(bits / n * math.log(2)))
        if bits < 1 or k > 1024 or bits > _MAX_BITS:
            raise BloomFilterError("Spark sizes no filter this library takes for n = %r at rate %r" % (n, p))
        return cls(type, k, bytearray(8 * ((bits + 63) // 64)), 0, version, 0)

    @classmethod
    def from_bytes(cls, data: _Bytes, type: str) -> "SparkFilter":
        """A filter Spark's writeTo wrote (either version)."""
        b = bytes(data)
        if len(b) < 4:
            raise BloomFilterError("a Spark filter takes at least 4 bytes, not %d" % len(b))
        (version,) = struct.unpack_from(">i", b)
        if version not in (1, 2):
            raise BloomFilterError("Spark filter version %d is not known (1 and 2 are)" % version)
        head = 12 if version == 1 else 16
        if len(b) < head:
            raise BloomFilterError("a Spark version %d filter takes at least %d bytes" % (version, head))
        k = struct.unpack_from(">i", b, 4)[0]
        seed = struct.unpack_from(">i", b, 8)[0] if version == 2 else 0
        (words,) = struct.unpack_from(">i", b, head - 4)
        if not 1 <= k <= 1024:
            raise BloomFilterError("a Spark filter's number of hash functions, %d, is not between 1 and 1024" % k)
        if words < 1 or 64 * words > _MAX_BITS:
            raise BloomFilterError("a Spark filter's word count, %d, is out of range" % words)
        if len(b) != head + 8 * words:
            raise BloomFilterError("a Spark filter of %d words takes %d bytes, not %d" % (words, head + 8 * words, len(b)))
        return cls(type, k, bytearray(b[head:]), None, version, seed)

    def to_bytes(self) -> bytes:
        """The filter as Spark's writeTo writes it."""
        head = struct.pack(">ii", self.version, self.k)
        if self.version == 2:
            head += struct.pack(">i", self.seed)
        return head + struct.pack(">i", len(self._bits) // 8) + bytes(self._bits)

    def _positions(self, enc: bytes):
        if self.type == "int8":
            v = int.from_bytes(enc, "little", signed=True)
            h1 = mh.spark_hash_long(v, self.seed)
            h2 = mh.spark_hash_long(v, h1)
        else:
            h1 = mh.spark_hash_bytes(enc, self.seed)
            h2 = mh.spark_hash_bytes(enc, h1)
        m = self.nbits
        if self.version == 1:
            for i in range(1, self.k + 1):
                c = (h1 + i * h2) & mh.M32
                c = c - (1 << 32) if c & 0x80000000 else c
                yield (~c if c < 0 else c) % m
        else:
            c = (h1 * 0x7FFFFFFF) & mh.M64
            for _ in range(self.k):
                c = (c + h2) & mh.M64
                s = c - (1 << 64) if c >> 63 else c
                yield (~s if s < 0 else s) % m

    def _test(self, enc: bytes) -> bool:
        for i in self._positions(enc):
            at, mask = _big_endian_bit(self._bits, i)
            if not self._bits[at] & mask:
                return False
        return True

    def _set(self, enc: bytes) -> None:
        for i in self._positions(enc):
            at, mask = _big_endian_bit(self._bits, i)
            self._bits[at] |= mask


class GuavaFilter(_MakerFilter):
    """Guava's BloomFilter, strategy MURMUR128_MITZ_64 (its funnel is the type)."""

    _maker = "Guava"
    _layout = 7
    _types = ("int8", "int4", "text", "chars", "bytea")

    def _scheme(self) -> int:
        return 4

    @classmethod
    def create(cls, type: str, expected_items: int, false_positive_rate: float) -> "GuavaFilter":
        """BloomFilter.create(funnel, expected_items, false_positive_rate)."""
        n, p = max(expected_items, 1), false_positive_rate
        if expected_items < 0 or not 0.0 < p < 1.0:
            raise BloomFilterError("Guava sizes no filter for n = %r at rate %r" % (expected_items, p))
        bits = int(-n * math.log(p) / (math.log(2) * math.log(2)))
        k = max(1, _java_round(bits / n * math.log(2)))
        if bits < 1 or k > 255 or bits > _MAX_BITS:
            raise BloomFilterError("Guava sizes no filter this library takes for n = %r at rate %r" % (n, p))
        return cls(type, k, bytearray(8 * ((bits + 63) // 64)), 0)

    @classmethod
    def from_bytes(cls, data: _Bytes, type: str) -> "GuavaFilter":
        """A filter Guava's writeTo wrote (the funnel is not in the bytes: type names it)."""
        b = bytes(data)
        if len(b) < 6:
            raise BloomFilterError("a Guava filter takes at least 6 bytes, not %d" % len(b))
        if b[0] != 1:
            raise BloomFilterError("Guava strategy %d is not taken (1, MURMUR128_MITZ_64, is)" % struct.unpack("b", b[:1])[0])
        (words,) = struct.unpack_from(">i", b, 2)
        if b[1] == 0:
            raise BloomFilterError("a Guava filter's number of hash functions is 0")
        if words < 1 or 64 * words > _MAX_BITS:
            raise BloomFilterError("a Guava filter's word count, %d, is out of range" % words)
        if len(b) != 6 + 8 * words:
            raise BloomFilterError("a Guava filter of %d words takes %d bytes, not %d" % (words, 6 + 8 * words, len(b)))
        return cls(type, b[1], bytearray(b[6:]), None)

    def to_bytes(self) -> bytes:
        """The filter as Guava's writeTo writes it."""
        return struct.pack(">bBi", 1, self.k, len(self._bits) // 8) + bytes(self._bits)

    def _positions(self, enc: bytes):
        h1, h2 = mh.murmur3_128(enc)
        m = self.nbits
        c = h1
        for _ in range(self.k):
            yield (c & 0x7FFFFFFFFFFFFFFF) % m
            c = (c + h2) & mh.M64

    _test = SparkFilter._test
    _set = SparkFilter._set


_SALT = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)


class ParquetFilter(_MakerFilter):
    """Parquet's split block Bloom filter (XXH64 of a value's plain encoding)."""

    _maker = "Parquet"
    _layout = 8
    _types = ("int4", "int8", "date", "timestamp", "timestamptz", "float4", "float8", "text", "bytea", "uuid")

    def __init__(self, kind, bits, count):
        super().__init__(kind, 8, bits, count)

    def _scheme(self) -> int:
        return 5

    @classmethod
    def create(cls, type: str, expected_items: int, false_positive_rate: float) -> "ParquetFilter":
        """new BlockSplitBloomFilter(optimalNumOfBits(n, fpp) / 8), as parquet-java sizes it."""
        n, p = expected_items, false_positive_rate
        if n < 0 or not 0.0 < p < 1.0:
            raise BloomFilterError("Parquet sizes no filter for n = %r at rate %r" % (n, p))
        upper = 128 * 1024 * 1024
        m = -8.0 * n / math.log(1.0 - p ** (1.0 / 8.0))
        bits = upper * 8 if m < 0 or m > upper * 8 else int(m)
        bits = (bits + 255) & ~256  # parquet-java's rounding (clears bit 8 only)
        bits = max(bits, 256)
        nbytes = max(bits // 8, 32)
        if nbytes & (nbytes - 1):
            nbytes = 1 << nbytes.bit_length()  # Integer.highestOneBit(n) << 1
        return cls(type, bytearray(min(nbytes, upper)), 0)

    @classmethod
    def from_bytes(cls, data: _Bytes, type: str, bitset_only: bool = False) -> "ParquetFilter":
        """A Parquet file's filter: its Thrift header and bitset, or (bitset_only, or
        bytes that are no header but a multiple of 32 long) the bitset alone."""
        b = bytes(data)
        return cls(type, bytearray(read_parquet(b, bitset_only)), None)

    def to_bytes(self, header: bool = True) -> bytes:
        """The header and the bitset as a Parquet file holds them, or the bitset alone."""
        return (parquet_header(len(self._bits)) if header else b"") + bytes(self._bits)

    def _block(self, enc: bytes):
        h = mh.xxh64(enc)
        block = (((h >> 32) * (len(self._bits) // 32)) >> 32) * 32
        x = h & mh.M32
        return block, [((x * s) & mh.M32) >> 27 for s in _SALT]

    def _test(self, enc: bytes) -> bool:
        block, bits = self._block(enc)
        return all(self._bits[block + 4 * i + b // 8] >> (b % 8) & 1 for i, b in enumerate(bits))

    def _set(self, enc: bytes) -> None:
        block, bits = self._block(enc)
        for i, b in enumerate(bits):
            self._bits[block + 4 * i + b // 8] |= 1 << (b % 8)


def from_bloom_bytes(data: _Bytes):
    """The other system's filter a bloom value holds (bloom_send's bytes of a filter
    bloom_import read, or bloom_agg built in a maker's format)."""
    b = bytes(data)
    if len(b) < 36 or b[:4] != b"BLOM":
        raise BloomFilterError("not a bloom value")
    version, layout, scheme, flags, k, elemlen, seed, m, n = struct.unpack_from("<BBBBHHQQQ", b, 4)
    if version != 1 or layout not in (6, 7, 8):
        raise BloomFilterError("not another system's filter (layout %d): read it with BloomFilter" % layout)
    if len(b) != 36 + elemlen + m // 8 or m % 64 or flags & ~0x04 or (flags & 0x04 and n):
        raise BloomFilterError("a malformed bloom value")
    maker, _, kind = b[36 : 36 + elemlen].decode("ascii", "replace").partition(":")
    bits = bytearray(b[36 + elemlen :])
    count = None if flags & 0x04 else n
    if layout == 6 and maker == "spark" and scheme in (2, 3):
        s = seed - (1 << 64) if seed >> 63 else seed
        return SparkFilter(kind, k, bits, count, 1 if scheme == 2 else 2, s)
    if layout == 7 and maker == "guava" and scheme == 4 and seed == 0:
        return GuavaFilter(kind, k, bits, count)
    if layout == 8 and maker == "parquet" and scheme == 5 and k == 8 and seed == 0 and m % 256 == 0:
        return ParquetFilter(kind, bits, count)
    raise BloomFilterError("a malformed bloom value of layout %d" % layout)
