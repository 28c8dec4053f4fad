"""Parquet's BloomFilterHeader in Thrift's compact protocol (as the server's
core/bf_parquet.c reads and writes it): numBytes (field 1, i32), then the
algorithm, hash and compression unions, each of which must hold its field 1
(BLOCK, XXHASH, UNCOMPRESSED), an empty struct.  A field a later Parquet adds
is skipped; nesting past 16 levels, a truncated header, one longer than 64
bytes, or a size that disagrees with the bitset is refused."""

from .errors import BloomFilterError

MIN_BYTES = 32
MAX_BYTES = 128 * 1024 * 1024
_MAX_HEADER = 64
_MAX_DEPTH = 16


def parquet_header(nbytes: int) -> bytes:
    """The header parquet-java writes for a bitset of nbytes bytes."""
    z = nbytes << 1
    varint = bytearray()
    while z >= 0x80:
        varint.append((z & 0x7F) | 0x80)
        z >>= 7
    varint.append(z)
    return b"\x15" + bytes(varint) + b"\x1c\x1c\x00\x00" * 3 + b"\x00"


class _Bad(Exception):
    pass


class _Cursor:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise _Bad("truncated")
        self.pos += 1
        return self.data[self.pos - 1]

    def varint(self) -> int:
        v = shift = 0
        while shift < 70:
            b = self.byte()
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                if v >> 64:
                    raise _Bad("varint")
                return v
            shift += 7
        raise _Bad("varint")

    def skip(self, t: int, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise _Bad("depth")
        if t in (1, 2):
            return
        if t == 3:
            self.byte()
        elif t in (4, 5, 6):
            self.varint()
        elif t == 7:
            self.take(8)
        elif t == 8:
            self.take(self.varint())
        elif t in (9, 10):
            h = self.byte()
            n = h >> 4
            if n == 15:
                n = self.varint()
            if n > len(self.data) - self.pos:
                raise _Bad("list")
            for _ in range(n):
                self.byte() if h & 15 in (1, 2) else self.skip(h & 15, depth + 1)
        elif t == 11:
            n = self.varint()
            if n:
                if n > len(self.data) - self.pos:
                    raise _Bad("map")
                kv = self.byte()
                for _ in range(n):
                    for et in (kv >> 4, kv & 15):
                        self.byte() if et in (1, 2) else self.skip(et, depth + 1)
        elif t == 12:
            self.skip_struct(depth + 1)
        else:
            raise _Bad("type")

    def take(self, n: int) -> None:
        if n > len(self.data) - self.pos:
            raise _Bad("truncated")
        self.pos += n

    def skip_struct(self, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise _Bad("depth")
        while True:
            h = self.byte()
            if h == 0:
                return
            if not h >> 4:
                self.varint()
            self.skip(h & 15, depth + 1)

    def field(self, last: int):
        """(field id, type), or (None, 0) at the struct's end."""
        h = self.byte()
        if h == 0:
            return None, 0
        if h >> 4:
            fid = last + (h >> 4)
        else:
            z = self.varint()
            fid = (z >> 1) ^ -(z & 1)
        if not -32768 <= fid <= 32767:
            raise _Bad("field id")
        return fid, h & 15


def _union_ok(c: _Cursor) -> bool:
    last, fields, ok = 0, 0, True
    while True:
        fid, t = c.field(last)
        if fid is None:
            return ok and fields == 1
        last = fid
        fields += 1
        ok = ok and fid == 1 and t == 12
        c.skip(t, 1)


_NAMES = {2: ("algorithm", "BLOCK"), 3: ("hash", "XXHASH"), 4: ("compression", "UNCOMPRESSED")}


def _size_ok(n: int) -> bool:
    return MIN_BYTES <= n <= MAX_BYTES and n % 32 == 0


def read_parquet(data: bytes, bitset_only: bool) -> bytes:
    """The bitset of a Parquet filter's bytes (see the module's doc)."""
    if not bitset_only:
        try:
            return _read_headed(data)
        except BloomFilterError:
            # a bare bitset only if it cannot be a header with a byte too many or
            # too few (whose bits, read as a bitset, would answer "absent" wrongly)
            if len(data) % 32 or not data or data[0] == 0x15:
                raise
    if not _size_ok(len(data)):
        raise BloomFilterError(
            "a Parquet bitset of %d bytes: it must be a multiple of 32 bytes, from %d to %d"
            % (len(data), MIN_BYTES, MAX_BYTES)
        )
    return data


def _read_headed(data: bytes) -> bytes:
    c = _Cursor(data)
    seen = {}
    last = 0
    try:
        while True:
            if c.pos >= _MAX_HEADER:
                raise _Bad("long")
            fid, t = c.field(last)
            if fid is None:
                break
            last = fid
            if fid in seen and fid in (1, 2, 3, 4):
                raise BloomFilterError("the Parquet Bloom filter header has field %d twice" % fid)
            if fid == 1:
                if t != 5:
                    raise _Bad("numBytes")
                z = c.varint()
                seen[1] = (z >> 1) ^ -(z & 1)
            elif fid in _NAMES:
                if t != 12:
                    raise _Bad("union")
                if not _union_ok(c):
                    raise BloomFilterError(
                        "the Parquet Bloom filter's %s is not %s, the only one Parquet defines" % _NAMES[fid]
                    )
                seen[fid] = True
            else:
                c.skip(t, 1)
    except _Bad:
        raise BloomFilterError("the Parquet Bloom filter header is malformed or truncated") from None
    for fid in (1, 2, 3, 4):
        if fid not in seen:
            raise BloomFilterError("the Parquet Bloom filter header lacks its %s" % ("numBytes" if fid == 1 else _NAMES[fid][0]))
    n = seen[1]
    if not _size_ok(n):
        raise BloomFilterError("the Parquet Bloom filter header's numBytes %d is not a multiple of 32 bytes from 32 to %d" % (n, MAX_BYTES))
    if n != len(data) - c.pos:
        raise BloomFilterError("the Parquet Bloom filter header says %d bytes, and %d follow it" % (n, len(data) - c.pos))
    return data[c.pos :]
