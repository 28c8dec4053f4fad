"""Many probes at once, in lanes of one Python int.

contains_many's path.  Python runs a bytecode in tens of nanoseconds but
adds, shifts or masks a thousand-digit int in about as long, so a batch of
n values is hashed and probed as a few hundred operations on ints that hold
one value per lane (SIMD within a register): lane i of a W-bit lane int is
bits [W*i, W*(i+1)).  Every operation below keeps each lane's result inside
its lane:
  - 32-bit arithmetic (lookup3) runs in 64-bit lanes: a sum or a shift left
    of at most 31 stays below 2^64; a difference x - y is taken as
    (x | 2^32) - y, which cannot borrow from the lane above; a shift right
    brings the next lane's low bits into this lane's high bits, which the
    mask that follows clears.
  - 64-bit arithmetic (fmix64, the block and position products) runs in
    128-bit lanes: a 64-bit lane times a constant below 2^64 stays below
    2^128.
The positions then become byte indexes into the filter's data, which
operator.itemgetter reads in one C call, and masks, tested together as two
ints.  Every answer is the scalar path's (filter.py), which the tests check
value by value.
"""

from __future__ import annotations

import datetime as _dt
import math
import struct
import uuid as _uuid
from itertools import repeat
from operator import attrgetter, itemgetter
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import _format as fmt
from . import _values as values_
from ._pghash import _INIT, _NAN8, M32, M64, hash_bytes_extended

# hash scheme 1's constants (core/bf_hash.h), for filter.py's scalar probe too
SECOND_SALT = 0x9E3779B97F4A7C15
REFILL_SALT = 0xC2B2AE3D27D4EB4F
FMIX_1 = 0xFF51AFD7ED558CCD
FMIX_2 = 0xC4CEB9FE1A85EC53
OFFSET_SHIFTS = (55, 46, 37, 28, 19, 10, 1)  # a blocked512 word's 7 offsets of 9 bits

# translate tables: a bit's number (0 to 7) to its mask; a counting4 cell's
# low bit to its nibble's mask; a tested byte to 1 if it is 0 (a bit or a
# counter the value needs is clear), else to 0
_BIT_MASK = bytes(1 << (i & 7) for i in range(256))
_NIBBLE_MASK = bytes(0xF0 if i & 1 else 0x0F for i in range(256))
_IS_ZERO = bytes([1]) + bytes(255)


class Lanes:
    """The lane constants of a batch of n values: ones (1 in every lane) and
    masks, for 64-bit and 128-bit lanes."""

    __slots__ = ("n", "ones64", "low32", "bit32", "ones128", "low64")

    def __init__(self, n: int):
        assert n > 0
        self.n = n
        self.ones64 = int.from_bytes(b"\x01\x00\x00\x00\x00\x00\x00\x00" * n, "little")
        self.low32 = self.ones64 * M32
        self.bit32 = self.ones64 << 32
        self.ones128 = int.from_bytes((b"\x01" + bytes(15)) * n, "little")
        self.low64 = self.ones128 * M64


_LANES = {}


def lanes_of(n: int) -> Lanes:
    """The Lanes of n values, kept for the few sizes a run of batches uses."""
    lanes = _LANES.get(n)
    if lanes is None:
        if len(_LANES) >= 8:
            _LANES.clear()
        lanes = _LANES[n] = Lanes(n)
    return lanes


# ---- lookup3 (hash_bytes_extended) in 64-bit lanes of 32-bit values ----


def _rot(x: int, k: int, low32: int) -> int:
    return ((x << k) | (x >> (32 - k))) & low32


def _mix(a: int, b: int, c: int, L: Lanes):
    """lookup3's mix; a, b and c below 2^32 in every lane."""
    low, bit = L.low32, L.bit32
    a = (((a | bit) - c) & low) ^ _rot(c, 4, low)
    c = (c + b) & low
    b = (((b | bit) - a) & low) ^ _rot(a, 6, low)
    a = (a + c) & low
    c = (((c | bit) - b) & low) ^ _rot(b, 8, low)
    b = (b + a) & low
    a = (((a | bit) - c) & low) ^ _rot(c, 16, low)
    c = (c + b) & low
    b = (((b | bit) - a) & low) ^ _rot(a, 19, low)
    a = (a + c) & low
    c = (((c | bit) - b) & low) ^ _rot(b, 4, low)
    b = (b + a) & low
    return a, b, c


def _final(a: int, b: int, c: int, L: Lanes) -> int:
    """lookup3's final, then each lane's 64-bit hash (b << 32 | c); a, b and
    c below 2^32 in every lane."""
    low, bit = L.low32, L.bit32
    c = (((c ^ b) | bit) - _rot(b, 14, low)) & low
    a = (((a ^ c) | bit) - _rot(c, 11, low)) & low
    b = (((b ^ a) | bit) - _rot(a, 25, low)) & low
    c = (((c ^ b) | bit) - _rot(b, 16, low)) & low
    a = (((a ^ c) | bit) - _rot(c, 4, low)) & low
    b = (((b ^ a) | bit) - _rot(a, 14, low)) & low
    c = (((c ^ b) | bit) - _rot(b, 24, low)) & low
    return (b << 32) | c


def _lookup3(init: int, words: Sequence[int], tail: Sequence[int], seed: int, L: Lanes) -> int:
    """hash_bytes_extended in lanes: init is each lane's (0x9E3779B9 + 3923095
    + length) mod 2^32; words the full 12-byte rounds' words, three lane ints
    a round; tail the last (up to 11) bytes' three words, the third shifted
    as lookup3 adds it to c.  Returns the 64-bit hashes in 64-bit lanes."""
    a = b = c = init
    if seed:
        # the seed is a round of its own
        a = (a + (seed >> 32) * L.ones64) & L.low32
        b = (b + (seed & M32) * L.ones64) & L.low32
        a, b, c = _mix(a, b, c, L)
    for i in range(0, len(words), 3):
        a = (a + words[i]) & L.low32
        b = (b + words[i + 1]) & L.low32
        c = (c + words[i + 2]) & L.low32
        a, b, c = _mix(a, b, c, L)
    a = (a + tail[0]) & L.low32
    b = (b + tail[1]) & L.low32
    c = (c + tail[2]) & L.low32
    return _final(a, b, c, L)


def _hash_uint32(keys: int, seed: int, L: Lanes) -> int:
    """hash_bytes_uint32_extended of each lane's 32-bit key (the hash of its 4
    bytes, little-endian), in 64-bit lanes."""
    return _lookup3(((_INIT + 4) & M32) * L.ones64, (), (keys, 0, 0), seed, L)


def hash_int8_lanes(values: List[int], seed: int) -> Optional[bytes]:
    """hashint8extended of each int; None if one is out of int8's range (the
    value-by-value path then says which)."""
    n = len(values)
    L = lanes_of(n)
    try:
        v = int.from_bytes(struct.pack(f"<{n}q", *values), "little")
    except struct.error:
        return None
    # the low word, xor the high word or (for a negative value) its complement
    negative = (v >> 63) & L.ones64
    keys = (v & L.low32) ^ ((v >> 32) & L.low32) ^ (negative * M32)
    return _hash_uint32(keys, seed, L).to_bytes(8 * n, "little")


_EPOCH_ORDINAL = _dt.date(2000, 1, 1).toordinal()


def hash_date_lanes(values: List[_dt.date], seed: int) -> bytes:
    """hashint4extended of each date's days since 2000-01-01 (date_ops)."""
    n = len(values)
    L = lanes_of(n)
    ordinals = int.from_bytes(struct.pack(f"<{n}Q", *map(_dt.date.toordinal, values)), "little")
    # ordinals are 1 to 3,652,059: the difference is the days' int32, mod 2^32
    days = ((ordinals | L.bit32) - _EPOCH_ORDINAL * L.ones64) & L.low32
    return _hash_uint32(days, seed, L).to_bytes(8 * n, "little")


_MICROSECOND = _dt.timedelta(microseconds=1)


def _hash_timestamps(epoch: _dt.datetime) -> Callable[[list, int], Optional[bytes]]:
    """hashint8extended of each datetime's microseconds since epoch (2000-01-01,
    naive for timestamp, UTC for timestamptz); None if one cannot be taken from
    epoch (a naive datetime for timestamptz, an aware one for timestamp), which
    the value-by-value path refuses."""

    naive = epoch.tzinfo is None

    def hash_timestamps(values: List[_dt.datetime], seed: int) -> Optional[bytes]:
        if naive and any(v is not None for v in map(attrgetter("tzinfo"), values)):
            return None  # (a tzinfo whose utcoffset is None still makes no timestamp)
        try:
            deltas = list(map(_dt.datetime.__sub__, values, repeat(epoch, len(values))))
        except TypeError:
            return None
        if NotImplemented in deltas:
            return None
        return hash_int8_lanes(list(map(_dt.timedelta.__floordiv__, deltas, repeat(_MICROSECOND, len(values)))), seed)

    return hash_timestamps


def hash_float8_lanes(values: List[float], seed: int) -> bytes:
    """hashfloat8extended of each float: the hash of its 8 bytes, every NaN's
    those of one NaN, and 0 and -0 hashed to the seed itself."""
    n = len(values)
    L = lanes_of(n)
    packed = bytearray(struct.pack(f"<{n}d", *values))
    if any(map(math.isnan, values)):
        for i, v in enumerate(values):
            if v != v:
                packed[8 * i : 8 * i + 8] = _NAN8
    v = int.from_bytes(packed, "little")
    init = ((_INIT + 8) & M32) * L.ones64
    hashes = bytearray(_lookup3(init, (), (v & L.low32, (v >> 32) & L.low32, 0), seed, L).to_bytes(8 * n, "little"))
    if 0.0 in values:
        for i, v in enumerate(values):
            if v == 0.0:
                hashes[8 * i : 8 * i + 8] = seed.to_bytes(8, "little")
    return bytes(hashes)


def hash_text_lanes(values: List[str], seed: int) -> Optional[bytes]:
    """hash_bytes_extended of each str's UTF-8; None if one holds a lone
    surrogate or NUL (which the value-by-value path refuses)."""
    try:
        datas = list(map(str.encode, values))
    except UnicodeEncodeError:
        return None
    if b"\0" in b"".join(datas):
        return None
    return hash_bytes_lanes(datas, seed)


def hash_uuid_lanes(values: List[_uuid.UUID], seed: int) -> bytes:
    """hash_bytes_extended of each uuid's 16 bytes."""
    n = len(values)
    return hash_bytes_lanes(list(map(int.to_bytes, map(attrgetter("int"), values), repeat(16, n), repeat("big", n))), seed)


_FEWEST = 16  # values of one number of rounds worth hashing in lanes


def hash_bytes_lanes(datas: List[bytes], seed: int) -> bytes:
    """hash_bytes_extended of each bytes value, as 64-bit lanes (little-endian
    bytes): values of the same number of full 12-byte rounds are hashed
    together."""
    n = len(datas)
    lengths = list(map(len, datas))
    shortest, longest = min(lengths), max(lengths)
    if shortest // 12 == longest // 12 and n >= _FEWEST:
        return _hash_same_rounds(datas, lengths, shortest // 12, seed).to_bytes(8 * n, "little")
    groups = {}
    for i, length in enumerate(lengths):
        groups.setdefault(length // 12, []).append(i)
    out = [0] * n
    for rounds, where in groups.items():
        if len(where) < _FEWEST:
            # a few values of their length: each round would cost as much as for thousands
            for i in where:
                out[i] = hash_bytes_extended(datas[i], seed)
            continue
        hashes = _hash_same_rounds([datas[i] for i in where], [lengths[i] for i in where], rounds, seed)
        for i, h in zip(where, struct.unpack(f"<{len(where)}Q", hashes.to_bytes(8 * len(where), "little"))):
            out[i] = h
    return struct.pack(f"<{n}Q", *out)


def _hash_same_rounds(datas: List[bytes], lengths: List[int], rounds: int, seed: int) -> int:
    """The hashes of values whose lengths are each from 12 * rounds to
    12 * rounds + 11 bytes, in 64-bit lanes."""
    n = len(datas)
    L = lanes_of(n)
    width = 12 * (rounds + 1)
    # each value zero-padded to width: the tail's missing bytes add nothing
    records = b"".join(map(bytes.ljust, datas, repeat(width, n), repeat(b"\0", n)))
    lane = bytearray(8 * n)

    def word(at: int) -> int:
        for t in range(4):
            lane[t::8] = records[at + t :: width]
        return int.from_bytes(lane, "little")

    words = [word(4 * w) for w in range(3 * rounds)]
    tail_at = 12 * rounds
    # bytes 8 to 10 of the tail go into c above its lowest byte
    tail = (word(tail_at), word(tail_at + 4), word(tail_at + 8) << 8)
    init = (int.from_bytes(struct.pack(f"<{n}Q", *lengths), "little") + _INIT * L.ones64) & L.low32
    return _lookup3(init, words, tail, seed, L)


# by (operator family, the values' exact Python type): what stands in for None
# (whose answer is False whatever its hash) and the batch's hasher in lanes,
# which gives each value's 64-bit hash as 64-bit lanes, little-endian bytes,
# or None where the value-by-value path must take the batch
LANE_HASHERS: Dict[Tuple[str, type], Tuple[object, Callable[[list, int], Optional[bytes]]]] = {
    (values_.INTEGER_OPS, int): (0, hash_int8_lanes),
    (values_.TEXT_OPS, str): ("", hash_text_lanes),
    (values_.BYTEA_OPS, bytes): (b"", hash_bytes_lanes),
    (values_.FLOAT_OPS, float): (1.0, hash_float8_lanes),
    (values_.DATE_OPS, _dt.date): (_dt.date(2000, 1, 1), hash_date_lanes),
    (values_.UUID_OPS, _uuid.UUID): (_uuid.UUID(int=0), hash_uuid_lanes),
    (values_.TIMESTAMP_OPS, _dt.datetime): (values_._PG_EPOCH, _hash_timestamps(values_._PG_EPOCH)),
    (values_.TIMESTAMPTZ_OPS, _dt.datetime): (values_._PG_EPOCH_UTC, _hash_timestamps(values_._PG_EPOCH_UTC)),
}


# ---- hash scheme 1's positions in 128-bit lanes of 64-bit values ----


def widen(lanes64: bytes, n: int) -> int:
    """n 64-bit lanes (little-endian bytes) as an int of 128-bit lanes."""
    wide = bytearray(16 * n)
    for t in range(8):
        wide[t::16] = lanes64[t::8]
    return int.from_bytes(wide, "little")


def _fmix64(k: int, low64: int) -> int:
    k ^= (k >> 33) & low64
    k = (k * FMIX_1) & low64
    k ^= (k >> 33) & low64
    k = (k * FMIX_2) & low64
    k ^= (k >> 33) & low64
    return k


class _Cells:
    """The k cells each of n values tests, value after value: each cell's
    byte index in the data (uint32) and what its mask is made from."""

    def __init__(self, n: int, k: int):
        self.n, self.k = n, k
        self.index = bytearray(4 * n * k)
        self.mask_of = bytearray(n * k)  # a translate table's input, a cell each

    def put(self, cell: int, byte_index: int, mask_of: int) -> None:
        """Cell number cell of every value, from two ints of 128-bit lanes:
        the low 32 bits of byte_index's lanes are the byte's index, the low
        8 bits of mask_of's the mask table's input (the bits above are not
        read, so neither needs a mask)."""
        n, k = self.n, self.k
        if n == 1:  # (one value, as add() gives: its two ints as they are)
            self.index[4 * cell : 4 * cell + 4] = (byte_index & 0xFFFFFFFF).to_bytes(4, "little")
            self.mask_of[cell] = mask_of & 0xFF
            return
        index = byte_index.to_bytes(16 * n, "little")
        for t in range(4):
            self.index[4 * cell + t :: 4 * k] = index[t::16]
        self.mask_of[cell::k] = mask_of.to_bytes(16 * n, "little")[0::16]

    def where(self) -> Tuple[int, ...]:
        """Every cell's byte index, value after value (k a value)."""
        return struct.unpack(f"<{self.n * self.k}I", self.index)  # (not a cast: little-endian on any machine)

    def masks(self, table: bytes) -> bytes:
        """Every cell's mask in its byte, value after value; table (mask_table)
        maps mask_of to the mask."""
        return self.mask_of.translate(table)

    def failed(self, data: bytes, table: bytes) -> int:
        """Byte i of the result is 1 if value i fails (a cell it tests is clear:
        its byte has none of its mask's bits), else 0.  table maps mask_of to
        the mask."""
        n, k = self.n, self.k
        where = self.where()
        read = itemgetter(*where)(data)  # one C call reads every cell's byte
        cells = bytes(read) if len(where) > 1 else bytes((read,))
        tested = int.from_bytes(cells, "little") & int.from_bytes(self.masks(table), "little")
        clear = tested.to_bytes(n * k, "little").translate(_IS_ZERO)
        failed = 0
        for cell in range(k):
            failed |= int.from_bytes(clear[cell::k], "little")
        return failed


def mask_table(layout: int) -> bytes:
    """The table _Cells.masks reads a layout's masks with: a bit's (classic,
    blocked512, layered) or a 4-bit counter's (counting4)."""
    return _NIBBLE_MASK if layout == fmt.COUNTING4 else _BIT_MASK


def cells_lanes(p: fmt.Parsed, hashes64: bytes, n: int) -> List[_Cells]:
    """The cells each of n hashes, given as 64-bit lanes (little-endian bytes),
    tests or sets in a filter of p's shape (classic, counting4, blocked512 or
    layered: not explicit): a _Cells per layer (one for the other layouts),
    each cell's byte index in the data and its mask (mask_table)."""
    assert p.layout != fmt.EXPLICIT and n > 0 and len(hashes64) == 8 * n
    L = lanes_of(n)
    low64 = L.low64
    h = widen(hashes64, n)
    x = _fmix64(h, low64)
    y = _fmix64(h ^ (SECOND_SALT * L.ones128), low64)
    if p.layout in (fmt.CLASSIC, fmt.COUNTING4):
        # position i = (x + i * y) * m / 2^64: a bit (classic), or a 4-bit
        # counter, two to a byte (counting4)
        counting = p.layout == fmt.COUNTING4
        cells = _Cells(n, p.nhashes)
        for i in range(p.nhashes):
            pos = ((x * p.ncells) >> 64) & low64
            cells.put(i, pos >> 1 if counting else pos >> 3, pos)
            x = (x + y) & low64
        return [cells]
    if p.layout == fmt.BLOCKED512:
        shapes = ((0, p.ncells, p.nhashes),)
    else:
        shapes = tuple((layer.offset, layer.ncells, layer.nhashes) for layer in p.layers)
    low6 = 63 * L.ones128
    out = []
    for offset, ncells, k in shapes:
        # the block from x; the bits inside it from y, 9 bits at a time from
        # the top, the word refilled every 7
        base = ((((x * (ncells >> 9)) >> 64) & low64) << 6) + offset * L.ones128
        cells = _Cells(n, k)
        word = y
        for cell in range(k):
            if cell and cell % 7 == 0:
                word = _fmix64((word + REFILL_SALT * L.ones128) & low64, low64)
            shift = OFFSET_SHIFTS[cell % 7]
            cells.put(cell, base + ((word >> (shift + 3)) & low6), word >> shift)
        out.append(cells)
    return out


def probe_lanes(p: fmt.Parsed, data: bytes, hashes64: bytes, n: int) -> bytes:
    """Whether the filter (classic, counting4, blocked512 or layered: not
    explicit) holds each of n hashes, given as 64-bit lanes (little-endian
    bytes): a byte a value, 1 if held, else 0 (held if held in one layer
    at least)."""
    table = mask_table(p.layout)
    held = 0
    for cells in cells_lanes(p, hashes64, n):
        failed = cells.failed(data, table)
        held |= int.from_bytes(failed.to_bytes(n, "little").translate(_IS_ZERO), "little")
    return held.to_bytes(n, "little")
