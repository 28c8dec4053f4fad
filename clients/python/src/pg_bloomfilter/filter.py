"""BloomFilter: a bloom value read once, probed locally, bit for bit as the server probes it.

Positions follow hash scheme 1 (core/bf_hash.h in the extension): from a
value's 64-bit hash h, x = fmix64(h) and y = fmix64(h ^ 0x9E3779B97F4A7C15);
classic and counting4 positions are floor(x_i * m / 2^64) with
x_{i+1} = x_i + y; blocked512 picks its block with x and the bits inside it
from y, 9 bits at a time from the top, refilling the word every 7 with
w = fmix64(w + 0xC2B2AE3D27D4EB4F); a layered filter holds a value if one
of its layers (each a blocked512 filter) does; an explicit filter holds the
hashes themselves.
"""

from __future__ import annotations

import bisect
import math
import struct
from dataclasses import dataclass
from itertools import islice
from typing import Iterable, List, Optional, Union

from . import _format as fmt
from . import _lanes
from ._lanes import OFFSET_SHIFTS, REFILL_SALT, SECOND_SALT
from ._pghash import M64
from ._values import hasher
from .errors import BloomFilterError

_BATCH = 4096  # contains_many's values at a time: lanes ints of 64 KB and less


def fmix64(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    k ^= k >> 33
    return k


@dataclass(frozen=True)
class FilterInfo:
    """What bloom_info reports of a filter (the same names)."""

    layout: str
    nbits: int  # m: bits, counters (counting4) or hashes (explicit)
    nhashes: Optional[int]  # k; None for a layered filter, whose layers each have their own
    bytes: int  # the value's size as the server stores it (bloom_info's bytes: with its 4-byte header)
    values_added: int
    bits_set: int
    fill_ratio: Optional[float]  # None for an explicit filter
    estimated_distinct: float
    estimated_fpp: float
    element_family: Optional[str]  # None while no value was added
    seed: int
    hash_scheme: int
    target_fpp: Optional[float] = None  # a partial state's target rate, if it carries one


class BloomFilter:
    """A read-only view of a bloom (or counting_bloom) value."""

    __slots__ = ("_p", "_data", "_seed", "_probe", "_fn_cache", "_binary")

    def __init__(self, parsed: fmt.Parsed, binary: bytes):
        self._binary = binary  # the binary form it was read from (pickling)
        self._p = parsed
        self._data = bytes(parsed.data)
        self._seed = parsed.seed
        self._probe = _prober(parsed, self._data)
        self._fn_cache = {}

    # ---- loading ----

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "BloomFilter":
        """The binary form: bloom_send's bytes, or a bytea as psycopg returns it."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise BloomFilterError(
                f"from_bytes takes bytes, not {type(data).__name__} (use from_text for the text form)"
            )
        binary = bytes(data)
        return cls(fmt.parse_binary(binary), binary)

    @classmethod
    def from_text(cls, text: str) -> "BloomFilter":
        """The text form: what SELECT f returns ("v1 classic m=... bits=...")."""
        if not isinstance(text, str):
            raise BloomFilterError(
                f"from_text takes a str, not {type(text).__name__} (use from_bytes for the binary form)"
            )
        binary = fmt.text_to_binary(text)
        return cls(fmt.parse_binary(binary), binary)

    # ---- probing ----

    def contains(self, value) -> bool:
        """Whether the filter may hold value; False is certain.  None is never held (SQL's
        NULL: bloom_contains is strict)."""
        if value is None:
            return False
        fn = self._fn_cache.get(type(value)) or self._hasher_of(value)
        if fn is None:
            return False  # an empty filter
        return self._probe(fn(value, self._seed))

    def contains_many(self, values: Iterable) -> List[bool]:
        """contains(v) for each v of values (a list or any other iterable, but not one str,
        bytes, bytearray or memoryview value alone), in order: the same answers, computed
        _BATCH values at a time in lanes of Python ints (_lanes.py), several times faster
        than a call per value."""
        refused = BloomFilterError(
            f"contains_many takes a list or another iterable of values, not {type(values).__name__}"
        )
        if isinstance(values, (str, bytes, bytearray, memoryview)):
            raise refused  # one value, most likely passed alone
        try:
            values = iter(values)
        except TypeError:
            raise refused from None
        out: List[bool] = []
        while True:
            batch = list(islice(values, _BATCH))
            if not batch:
                return out
            out += self._answer_batch(batch)

    def _answer_batch(self, batch: list) -> List[bool]:
        p = self._p
        if not p.elem or p.layout == fmt.EXPLICIT:
            # an empty filter answers False to any value it can hold (and refuses the
            # others); an explicit one, a sorted list of hashes, is searched
            return [self.contains(v) for v in batch]
        n = len(batch)
        types = set(map(type, batch))
        never = type(None) in types
        if never:
            types.discard(type(None))
        held = _lanes.probe_lanes(p, self._data, self._hashes(batch, types, never), n)
        if never:
            # None is never held (SQL's NULL): it was hashed as a stand-in
            return [v is not None and bool(b) for v, b in zip(batch, held)]
        return list(map(bool, held))

    def _hashes(self, batch: list, types: set, never: bool) -> bytes:
        """Each value's 64-bit hash, as contains computes it, in 64-bit lanes (little-endian
        bytes); None's is any.  A batch of one type its filter's family hashes in lanes
        (_lanes.LANE_HASHERS: ints, strs, bytes, floats, dates, UUIDs, datetimes) is hashed
        so; any other, or one the lanes cannot take (an int out of int8's range, a str with a
        lone surrogate or NUL), value by value, where a value the filter does not take raises
        contains's error."""
        seed = self._seed
        if len(types) == 1:
            lanes = _lanes.LANE_HASHERS.get((self._p.elem, next(iter(types))))
            if lanes is not None:
                stand_in, hash_lanes = lanes
                hashes = hash_lanes([stand_in if v is None else v for v in batch] if never else batch, seed)
                if hashes is not None:
                    return hashes
        cache = self._fn_cache
        hashes = [
            0 if v is None else (cache.get(type(v)) or self._hasher_of(v))(v, seed) for v in batch
        ]
        return struct.pack(f"<{len(batch)}Q", *hashes)

    def _hasher_of(self, value):
        """The function hashing value's type, cached by type; None for an empty filter
        (whose answer is always False).  Raises BloomFilterError for a type the filter's
        family does not hash."""
        fn = hasher(self._p.elem, value)
        if fn is not None:
            self._fn_cache[type(value)] = fn
        return fn

    __contains__ = contains

    def contains_hash(self, h: int) -> bool:
        """Whether the filter may hold the value whose 64-bit hash (with the filter's seed) is h."""
        return self._probe(h)

    # ---- describing ----

    @property
    def info(self) -> FilterInfo:
        p = self._p
        occupied = self._occupied()
        layered = p.layout == fmt.LAYERED
        return FilterInfo(
            layout=fmt.layout_name(p.layout),
            nbits=p.ncells,
            nhashes=None if layered else p.nhashes,
            bytes=p.size + 4,
            values_added=p.nadded,
            bits_set=occupied,
            fill_ratio=None if p.layout == fmt.EXPLICIT else occupied / p.ncells,
            estimated_distinct=self._estimate_distinct(occupied),
            estimated_fpp=self._current_fpp(occupied),
            element_family=p.elem or None,
            seed=p.seed if p.seed <= (1 << 63) - 1 else p.seed - (1 << 64),
            hash_scheme=p.scheme,
            target_fpp=fmt.optional_target(p),
        )

    @property
    def element_family(self) -> Optional[str]:
        return self._p.elem or None

    # ---- pickling and copying: a read-only value ----

    def __reduce__(self):
        """Pickled as its binary form (bloom_send's bytes), read back by from_bytes."""
        return (BloomFilter.from_bytes, (self._binary,))

    def __copy__(self) -> "BloomFilter":
        return self  # read-only: a copy would be the same value

    def __deepcopy__(self, memo) -> "BloomFilter":
        return self

    def __len__(self) -> int:
        """The values added (bloom_info's values_added)."""
        return self._p.nadded

    def __repr__(self) -> str:
        i = self.info
        return (
            f"<BloomFilter {i.layout} m={i.nbits} k={i.nhashes} n={i.values_added} "
            f"elem={i.element_family}>"
        )

    def _occupied(self, start: int = 0, end: Optional[int] = None) -> int:
        p = self._p
        data = self._data[start:end]
        if p.layout == fmt.COUNTING4:
            return fmt._count_counters(memoryview(data))
        if p.layout == fmt.EXPLICIT:
            return p.ncells
        return fmt.popcount(data)

    def _layered_estimates(self):
        distinct = 0.0
        clear = 1.0
        for layer in self._p.layers:
            occ = self._occupied(layer.offset, layer.offset + layer.ncells // 8)
            est = _estimate_distinct(layer.ncells, layer.nhashes, occ)
            distinct += est
            clear *= 1.0 - _blocked_fpp(est, layer.ncells, layer.nhashes)
        return distinct, 1.0 - clear

    def _estimate_distinct(self, occupied: int) -> float:
        p = self._p
        if p.layout == fmt.EXPLICIT:
            return float(p.ncells)
        if p.layout == fmt.LAYERED:
            return min(self._layered_estimates()[0], float(p.nadded))
        if p.flags & fmt.FLAG_DERIVED:
            est = float(p.est_distinct)
        else:
            est = _estimate_distinct(p.ncells, p.nhashes, occupied)
        return min(est, float(p.nadded))

    def _current_fpp(self, occupied: int) -> float:
        p = self._p
        if p.layout == fmt.EXPLICIT:
            return 0.0
        if p.layout == fmt.LAYERED:
            return self._layered_estimates()[1]
        if p.layout == fmt.BLOCKED512 and not p.flags & fmt.FLAG_DERIVED:
            return _blocked_fpp(self._estimate_distinct(occupied), p.ncells, p.nhashes)
        effective = p.bound if p.flags & fmt.FLAG_DERIVED else occupied
        return (effective / p.ncells) ** p.nhashes


def _prober(p: fmt.Parsed, data: bytes):
    """The function of a 64-bit hash h that answers whether the filter holds
    it, for p's layout, with its parameters bound (the per-probe path: no
    attribute lookups)."""
    if p.layout == fmt.EXPLICIT:
        hashes = struct.unpack_from(f"<{p.ncells}Q", data)

        def explicit(h: int) -> bool:
            i = bisect.bisect_left(hashes, h)
            return i < len(hashes) and hashes[i] == h

        return explicit

    if p.layout in (fmt.BLOCKED512, fmt.LAYERED):
        if p.layout == fmt.BLOCKED512:
            shapes = ((0, p.ncells, p.nhashes),)
        else:
            shapes = tuple((layer.offset, layer.ncells, layer.nhashes) for layer in p.layers)
        # per layer: where its bits start, its blocks, and its k offsets in
        # groups of up to 7, each group read from one 64-bit word (the first
        # y, then refilled) 9 bits at a time from the top: the right shifts
        layers = tuple(
            (offset, ncells >> 9, tuple((g > 0, OFFSET_SHIFTS[: min(7, k - 7 * g)]) for g in range((k + 6) // 7)))
            for offset, ncells, k in shapes
        )

        def holds(x: int, y: int) -> bool:
            for offset, nblocks, groups in layers:
                base = offset + (((x * nblocks) >> 64) << 6)
                word = y
                for refill, shifts in groups:
                    if refill:
                        word = fmix64((word + REFILL_SALT) & M64)
                    for shift in shifts:
                        pos = (word >> shift) & 511
                        if not (data[base + (pos >> 3)] >> (pos & 7)) & 1:
                            break
                    else:
                        continue
                    break  # a bit is clear: not in this layer
                else:
                    return True
            return False

    else:
        m, k = p.ncells, p.nhashes
        # classic: a bit per position; counting4: a 4-bit counter, two to a byte
        shift, cell, scale, mask = (1, 1, 2, 0x0F) if p.layout == fmt.COUNTING4 else (3, 7, 0, 1)

        def holds(x: int, y: int) -> bool:
            for _ in range(k):
                pos = (x * m) >> 64
                if not (data[pos >> shift] >> ((pos & cell) << scale)) & mask:
                    return False
                x = (x + y) & M64
            return True

    def probe(h: int) -> bool:
        # x = fmix64(h), y = fmix64(h ^ salt), written out
        x = h ^ (h >> 33)
        x = (x * 0xFF51AFD7ED558CCD) & M64
        x ^= x >> 33
        x = (x * 0xC4CEB9FE1A85EC53) & M64
        x ^= x >> 33
        y = h ^ SECOND_SALT
        y ^= y >> 33
        y = (y * 0xFF51AFD7ED558CCD) & M64
        y ^= y >> 33
        y = (y * 0xC4CEB9FE1A85EC53) & M64
        y ^= y >> 33
        return holds(x, y)

    return probe


def _estimate_distinct(ncells: int, nhashes: int, occupied: int) -> float:
    """bf_estimate_distinct (Swamidass & Baldi)."""
    if occupied >= ncells:
        return math.inf
    return -(ncells / nhashes) * math.log1p(-occupied / ncells)


def _blocked_fpp(n: float, ncells: int, nhashes: int) -> float:
    """bf_blocked_fpp: a Poisson mixture over the blocks' loads."""
    if n <= 0:
        return 0.0
    lam = n * 512 / ncells
    if lam > 1e6:
        return (-math.expm1(nhashes * lam * math.log1p(-1.0 / 512))) ** nhashes
    spread = 12.0 * math.sqrt(lam) + 30.0
    lo = math.floor(max(0.0, lam - spread))
    hi = math.ceil(lam + spread)
    total = weight = 0.0
    i = float(lo)
    log_lam = math.log(lam)
    while i <= hi:
        pmf = math.exp(i * log_lam - lam - math.lgamma(i + 1.0))
        inner = (-math.expm1(nhashes * i * math.log1p(-1.0 / 512))) ** nhashes
        total += pmf * inner
        weight += pmf
        i += 1.0
    return total / weight if weight > 0 else 1.0
