"""PostgreSQL's extended (64-bit, seeded) hash functions, as the server runs them.

A bloom value's hashes are those of the value's type's default hash
operator family (its element key names the family): hash_bytes_extended
(Bob Jenkins' lookup3, as src/common/hashfn.c has it, little-endian) for
bytes, text, bytea and uuid; hash_bytes_uint32_extended for the integer
types, dates and timestamps; hash_numeric_extended's reduction of a
numeric to its base-10000 digits.  Only little-endian servers are matched:
PostgreSQL's hashes of some types differ on big-endian machines (the
extension's docs/format.md, "Portability").
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
_INIT = (0x9E3779B9 + 3923095) & M32


# lookup3 in Python ints, masked to 32 bits only where it matters: a rotation
# needs its operand clean (the bits above 32 would come back in), while the
# low 32 bits of a sum, a difference or an exclusive or depend only on the
# low 32 bits of its operands, so those take the mask when their result is
# next rotated.  Each step below rotates the value the step before masked.
# (Fewer operations on Python ints: this is the per-probe path.)


def _final64(a: int, b: int, c: int) -> int:
    """lookup3's final(a, b, c), then the 64-bit result: b, then c.  b must be
    below 2^32; a and c may carry bits above."""
    c = ((c ^ b) - ((b << 14) | (b >> 18))) & M32
    a = ((a ^ c) - ((c << 11) | (c >> 21))) & M32
    b = ((b ^ a) - ((a << 25) | (a >> 7))) & M32
    c = ((c ^ b) - ((b << 16) | (b >> 16))) & M32
    a = ((a ^ c) - ((c << 4) | (c >> 28))) & M32
    b = ((b ^ a) - ((a << 14) | (a >> 18))) & M32
    c = ((c ^ b) - ((b << 24) | (b >> 8))) & M32
    return (b << 32) | c


_UNPACK = {}  # by a length n, the function unpacking n // 4 little-endian uint32
_UNPACK_MOST = 1200  # ... kept for lengths up to this: a hundred at most


def hash_bytes_extended(k: bytes, seed: int) -> int:
    """hash_bytes_extended(k, len(k), seed): 64 bits, b then c."""
    length = len(k)
    a = b = c = (_INIT + length) & M32
    full = length - length % 12
    words = ()
    if full:
        unpack = _UNPACK.get(full)
        if unpack is None:
            unpack = struct.Struct(f"<{full >> 2}I").unpack_from
            if full <= _UNPACK_MOST:
                _UNPACK[full] = unpack
        words = unpack(k)
    if seed:
        # the seed is a round of its own
        words = (seed >> 32, seed & M32, 0) + words
    for i in range(0, len(words), 3):
        # lookup3's mix, each line's rotated operand masked by the line before
        a += words[i]
        b += words[i + 1]
        c = (c + words[i + 2]) & M32
        a = ((a - c) ^ (c << 4) ^ (c >> 28)) & M32
        c += b
        b = ((b - a) ^ (a << 6) ^ (a >> 26)) & M32
        a += c
        c = ((c - b) ^ (b << 8) ^ (b >> 24)) & M32
        b += a
        a = ((a - c) ^ (c << 16) ^ (c >> 16)) & M32
        c += b
        b = ((b - a) ^ (a << 19) ^ (a >> 13)) & M32
        a += c
        c = ((c - b) ^ (b << 4) ^ (b >> 28)) & M32
        b += a
    rest = length - full
    if rest:
        tail = int.from_bytes(k[full:], "little")
        a += tail & M32
        b += (tail >> 32) & M32
        # the lowest byte of c is reserved for the length: the tail's bytes 8..10 go above it
        c += (tail >> 56) & 0xFFFFFF00
    return _final64(a, b & M32, c)


_INIT4 = (_INIT + 4) & M32


def hash_uint32_extended(k: int, seed: int) -> int:
    """hash_bytes_uint32_extended(k, seed) of k's low 32 bits: on a
    little-endian server, the hash_bytes_extended of those 4 bytes."""
    k &= M32
    if seed:
        return hash_bytes_extended(k.to_bytes(4, "little"), seed)
    return _final64(_INIT4 + k, _INIT4, _INIT4)


def hash_int8(v: int, seed: int) -> int:
    """hashint8extended; int2 and int4 hash alike (integer_ops)."""
    lo = v & M32
    hi = (v >> 32) & M32
    lo ^= hi if v >= 0 else (~hi & M32)
    return hash_uint32_extended(lo, seed)


def hash_int4(v: int, seed: int) -> int:
    """hashint4extended (date_ops, bool_ops' char): the value as an int32."""
    return hash_uint32_extended(v & M32, seed)


_NAN8 = struct.pack("<Q", 0x7FF8000000000000)


def hash_float8(v: float, seed: int) -> int:
    """hashfloat8extended (float4 values are widened to float8 first: float_ops)."""
    if v == 0.0:
        return seed
    if math.isnan(v):
        return hash_bytes_extended(_NAN8, seed)
    return hash_bytes_extended(struct.pack("<d", v), seed)


def numeric_digits(d: Decimal):
    """A finite Decimal as PostgreSQL's numeric: its weight and base-10000 digits."""
    sign, digits, exp = d.as_tuple()
    if not any(digits):
        return 0, []
    # the decimal digits, aligned so that the point falls on a base-10000 boundary
    text = "".join(map(str, digits))
    if exp >= 0:
        text += "0" * exp
        frac = 0
    else:
        frac = -exp
        if frac > len(text):
            text = "0" * (frac - len(text)) + text
    int_len = len(text) - frac
    pad_left = (-int_len) % 4
    pad_right = (-frac) % 4
    text = "0" * pad_left + text + "0" * pad_right
    groups = [int(text[i : i + 4]) for i in range(0, len(text), 4)]
    weight = (int_len + pad_left) // 4 - 1
    return weight, groups


def hash_numeric(value, seed: int) -> int:
    """hash_numeric_extended: leading and trailing zero digits stripped, scale ignored."""
    d = value if isinstance(value, Decimal) else Decimal(value)
    if not d.is_finite():
        return seed  # NaN and the infinities
    weight, groups = numeric_digits(d)
    start = 0
    while start < len(groups) and groups[start] == 0:
        start += 1
        weight -= 1
    if start == len(groups):
        return (seed - 1) & M64
    end = len(groups)
    while groups[end - 1] == 0:
        end -= 1
    digit_bytes = struct.pack(f"<{end - start}h", *groups[start:end])
    return hash_bytes_extended(digit_bytes, seed) ^ (weight & M64)
