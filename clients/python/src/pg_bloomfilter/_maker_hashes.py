"""The makers' hash functions, as their makers compute them (the server's
core/bf_spark.c, core/bf_guava.c, core/bf_parquet.c): Spark's Murmur3 x86
32-bit (hashLong; hashUnsafeBytes, whose tail bytes are each mixed alone,
sign-extended), MurmurHash3 x64 128 under seed 0 (Guava), and XXH64
(Parquet)."""

import struct

from ._probe import fmix64 as _fmix64  # MurmurHash3's 64-bit finalizer, as the server's bf_fmix64

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def _rotl32(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & M32


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & M32
    k1 = _rotl32(k1, 15)
    return (k1 * 0x1B873593) & M32


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = _rotl32(h1, 13)
    return (h1 * 5 + 0xE6546B64) & M32


def _fmix32(h1: int, length: int) -> int:
    h1 ^= length
    h1 ^= h1 >> 16
    h1 = (h1 * 0x85EBCA6B) & M32
    h1 ^= h1 >> 13
    h1 = (h1 * 0xC2B2AE35) & M32
    h1 ^= h1 >> 16
    return h1


def _signed32(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def spark_hash_long(v: int, seed: int) -> int:
    """Spark's Murmur3_x86_32.hashLong(v, seed), as a signed int."""
    v &= M64
    h1 = _mix_h1(seed & M32, _mix_k1(v & M32))
    h1 = _mix_h1(h1, _mix_k1(v >> 32))
    return _signed32(_fmix32(h1, 8))


def spark_hash_bytes(data: bytes, seed: int) -> int:
    """Spark's Murmur3_x86_32.hashUnsafeBytes(data, seed), as a signed int."""
    n = len(data)
    aligned = n - n % 4
    h1 = seed & M32
    for (word,) in struct.iter_unpack("<I", data[:aligned]):
        h1 = _mix_h1(h1, _mix_k1(word))
    for b in data[aligned:]:
        # each tail byte alone, as a signed byte widened to an int
        h1 = _mix_h1(h1, _mix_k1((b - 256 if b >= 128 else b) & M32))
    return _signed32(_fmix32(h1, n))


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


_C1 = 0x87C37B91114253D5
_C2 = 0x4CF5AD432745937F


def murmur3_128(data: bytes):
    """MurmurHash3 x64 128 of data under seed 0: (h1, h2), Guava's first and last 8 bytes."""
    n = len(data)
    h1 = h2 = 0
    blocks = n // 16
    for i in range(blocks):
        k1, k2 = struct.unpack_from("<QQ", data, 16 * i)
        k1 = (_rotl64((k1 * _C1) & M64, 31) * _C2) & M64
        h1 ^= k1
        h1 = (_rotl64(h1, 27) + h2) & M64
        h1 = (h1 * 5 + 0x52DCE729) & M64
        k2 = (_rotl64((k2 * _C2) & M64, 33) * _C1) & M64
        h2 ^= k2
        h2 = (_rotl64(h2, 31) + h1) & M64
        h2 = (h2 * 5 + 0x38495AB5) & M64
    tail = data[16 * blocks :]
    if len(tail) > 8:
        k2 = int.from_bytes(tail[8:], "little")
        h2 ^= (_rotl64((k2 * _C2) & M64, 33) * _C1) & M64
    if tail:
        k1 = int.from_bytes(tail[:8], "little")
        h1 ^= (_rotl64((k1 * _C1) & M64, 31) * _C2) & M64
    h1 ^= n
    h2 ^= n
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1 = _fmix64(h1)
    h2 = _fmix64(h2)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    return h1, h2


_P1 = 0x9E3779B185EBCA87
_P2 = 0xC2B2AE3D27D4EB4F
_P3 = 0x165667B19E3779F9
_P4 = 0x85EBCA77C2B2AE63
_P5 = 0x27D4EB2F165667C5


def _xround(acc: int, lane: int) -> int:
    return (_rotl64((acc + lane * _P2) & M64, 31) * _P1) & M64


def xxh64(data: bytes, seed: int = 0) -> int:
    """XXH64 (xxHash, 64-bit) of data under seed."""
    n = len(data)
    i = 0
    if n >= 32:
        v1, v2, v3, v4 = (seed + _P1 + _P2) & M64, (seed + _P2) & M64, seed & M64, (seed - _P1) & M64
        while i + 32 <= n:
            a, b, c, d = struct.unpack_from("<QQQQ", data, i)
            v1, v2, v3, v4 = _xround(v1, a), _xround(v2, b), _xround(v3, c), _xround(v4, d)
            i += 32
        h = (_rotl64(v1, 1) + _rotl64(v2, 7) + _rotl64(v3, 12) + _rotl64(v4, 18)) & M64
        for v in (v1, v2, v3, v4):
            h = ((h ^ _xround(0, v)) * _P1 + _P4) & M64
    else:
        h = (seed + _P5) & M64
    h = (h + n) & M64
    while i + 8 <= n:
        (lane,) = struct.unpack_from("<Q", data, i)
        h = (_rotl64(h ^ _xround(0, lane), 27) * _P1 + _P4) & M64
        i += 8
    if i + 4 <= n:
        (lane,) = struct.unpack_from("<I", data, i)
        h = (_rotl64(h ^ ((lane * _P1) & M64), 23) * _P2 + _P3) & M64
        i += 4
    while i < n:
        h = (_rotl64(h ^ ((data[i] * _P5) & M64), 11) * _P1) & M64
        i += 1
    h ^= h >> 33
    h = (h * _P2) & M64
    h ^= h >> 29
    h = (h * _P3) & M64
    return h ^ (h >> 32)
