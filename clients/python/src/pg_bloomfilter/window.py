"""WindowFilter: the server's window filters (bloom_window, 1.12), byte for byte.

An age-partitioned Bloom filter whose values fade after a window of
generations (core/bf_window.c): read (from_bytes, from_text), made
(create, sized as bloom_window sizes it), probed, added to (in the current
generation, or a time's), moved on (advance), joined (union, the one behind
moved on first) and written (to_bytes, str) here as the server does.

With G the current generation and S slices, the slice of age a is in slot
(G - a) mod S; a value's bit in slot p is floor((x + p y mod 2^64) *
slice_bits / 2^64), x and y as hash scheme 1 derives them (_probe.py).
"""

from __future__ import annotations

import datetime as dt
import operator
from dataclasses import dataclass
from typing import Optional, Union

from . import _format as fmt
from . import _types
from . import _window_format as wf
from . import _window_sizing as sizing
from ._pghash import M64
from ._probe import fmix64
from ._values import default_family, hasher
from .errors import BloomFilterError

_SECOND_SALT = 0x9E3779B97F4A7C15
_EPOCH_2000 = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
# the times a timestamptz holds, in microseconds from 2000 (MIN_TIMESTAMP, END_TIMESTAMP)
_MIN_TIME, _END_TIME = -211813488000000000, 9223371331200000000
_NO_TIME = object()  # add()'s default: the current generation (None is SQL's NULL: nothing added)
Time = Union[dt.datetime, int]


def _micros(at: Time) -> int:
    """A time as microseconds from 2000-01-01 00:00 UTC: an aware datetime, or an int of them."""
    if isinstance(at, bool):
        raise BloomFilterError("a time is an aware datetime or an int of microseconds, not bool")
    if isinstance(at, int):
        us = at
    elif isinstance(at, dt.datetime):
        if at.tzinfo is None or at.utcoffset() is None:
            raise BloomFilterError("a time is an aware datetime (a timestamptz): give it a tzinfo")
        delta = at - _EPOCH_2000
        us = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    else:
        raise BloomFilterError(f"a time is an aware datetime or an int of microseconds, not {type(at).__name__}")
    if not _MIN_TIME <= us < _END_TIME:
        raise BloomFilterError("a time out of the range of timestamptz is in no generation")
    return us


@dataclass(frozen=True)
class WindowInfo:
    """What bloom_window_info reports (generation_length in microseconds, or None)."""

    hashes: int
    generations: int
    slices: int
    slice_bits: int
    capacity: int
    generation: int
    generation_length: Optional[int]
    values_added: int
    values_in_window: int
    estimated_fpp: float
    element_family: Optional[str]


class WindowFilter:
    """A window filter: see the module's documentation."""

    def __init__(self, w: wf.Window, sql_type: Optional[_types.SqlType] = None):
        self._w = w
        self._type = sql_type

    @classmethod
    def from_bytes(cls, data, type: Optional[str] = None) -> "WindowFilter":
        """A window filter from bloom_send's bytes (raises BloomFilterError for another layout)."""
        return cls._typed(wf.parse_binary(bytes(data)), type)

    @classmethod
    def from_text(cls, text: str, type: Optional[str] = None) -> "WindowFilter":
        """A window filter from its text form (SELECT f::text)."""
        return cls._typed(wf.parse_binary(wf.text_to_binary(text)), type)

    @classmethod
    def _typed(cls, w: wf.Window, type: Optional[str]) -> "WindowFilter":
        sql = None if type is None else _types.sql_type(type)
        if sql is not None and w.elem and w.elem != sql.family:
            raise BloomFilterError(f'a filter of "{w.elem}" values cannot hold values of type {sql.name} ({sql.family})')
        return cls(w, sql)

    @classmethod
    def create(cls, type: str, capacity: int, false_positive_rate: float = 0.01, generations: int = 10,
               generation_length: Optional[Union[dt.timedelta, int]] = None,
               at: Optional[Time] = None) -> "WindowFilter":
        """An empty window filter, as bloom_window(capacity, false_positive_rate,
        generations [, generation_length, at]) makes it: generation_length a
        timedelta (or microseconds) makes its generations times, its current one
        holding at (an aware datetime, now by default)."""
        sql = _types.sql_type(type)
        if isinstance(capacity, bool) or isinstance(generations, bool):
            raise BloomFilterError("capacity and generations are ints, not bool")
        cap, gens = operator.index(capacity), operator.index(generations)
        hashes, slice_bits = sizing.window_size_for(cap, float(false_positive_rate), gens)
        interval = generation = 0
        if generation_length is not None:
            try:
                interval = (generation_length // dt.timedelta(microseconds=1)
                            if isinstance(generation_length, dt.timedelta) else operator.index(generation_length))
            except TypeError:
                raise BloomFilterError("a generation length is a timedelta or an int of microseconds") from None
            if not 0 < interval <= fmt.INT64_MAX:
                raise BloomFilterError("a generation length must be a positive interval (at most 2^63-1 microseconds)")
            generation = _micros(at if at is not None else dt.datetime.now(dt.timezone.utc)) // interval
        slices = hashes + gens - 1
        w = wf.Window(slices, slices * slice_bits, 0, "", b"", hashes, cap, generation, interval,
                      [0] * slices, bytearray(slices * slice_bits // 8))
        return cls(w, sql)

    # ---- probing ----

    def _hash(self, value, adding: bool) -> Optional[int]:
        """value's 64-bit hash as the filter's family hashes it (None: held by no filter of it)."""
        w = self._w
        family = w.elem or (self._type.family if self._type is not None else "")
        if not family:
            if not adding:
                default_family(value)  # a value no family takes is refused, as by a full filter
                return None
            family = default_family(value)
        fn = hasher(family, value)
        if fn is None:
            return None
        if self._type is not None:
            fn = _types.converted_hasher(self._type, fn)
        try:
            h = fn(value, 0)
        except _types.OutOfRange:
            if adding:
                raise
            return None
        if not w.elem:
            if not adding:
                return None  # an empty filter holds nothing (the value was checked as its type's)
            w.elem, w.elem_bytes = family, family.encode("utf-8")
        return h

    def _bit(self, x: int, y: int, slot: int) -> int:
        sb = self._w.slice_bits
        return slot * sb + ((((x + slot * y) & M64) * sb) >> 64)

    def contains(self, value) -> bool:
        """Whether value may have been added within the window; False is certain."""
        if value is None:
            return False
        h = self._hash(value, False)
        if h is None:
            return False
        w = self._w
        x, y = fmix64(h), fmix64(h ^ _SECOND_SALT)
        s, k, now, data = w.slices, w.hashes, w.generation % w.slices, w.data

        def held(age: int) -> bool:
            bit = self._bit(x, y, (now - age) % s)
            return bool(data[bit >> 3] >> (bit & 7) & 1)

        # a run of k set slices by age (bf_window_contains' skip scan)
        end = k - 1
        while end < s:
            if not held(end):
                end += k
                continue
            run, a = 1, end
            while a > 0 and run < k and held(a - 1):
                run, a = run + 1, a - 1
            a = end + 1
            while run < k and a < s and held(a):
                run, a = run + 1, a + 1
            if run >= k:
                return True
            end = a + k
        return False

    __contains__ = contains

    # ---- adding, moving on ----

    def add(self, value, at=_NO_TIME) -> None:
        """Add value in the current generation, or (generations that are times) in
        at's generation (an aware datetime, or an int of microseconds from
        2000-01-01 UTC), moving the filter on when that is later; a value older
        than every slice adds nothing.  A None value, or at=None (SQL's NULL:
        the server's bloom_add(f, v, at) and bloom_window_agg skip it), adds
        nothing."""
        if value is None or at is None:
            return
        w = self._w
        r = w.generation
        if at is not _NO_TIME:
            if w.interval == 0:
                raise BloomFilterError("this window filter's generations are not times: add(value) adds to its current one")
            r = _micros(at) // w.interval
            if r < w.generation and w.generation - r >= w.slices:
                return  # older than every slice
        h = self._hash(value, True)  # (first: a value refused leaves the filter as it was)
        if h is None:
            return
        if r > w.generation:
            self._advance_to(r)
        x, y = fmix64(h), fmix64(h ^ _SECOND_SALT)
        age, first = w.generation - r, r % w.slices
        for j in range(w.hashes):
            if age + j >= w.slices:
                break
            bit = self._bit(x, y, (first - j) % w.slices)
            w.data[bit >> 3] |= 1 << (bit & 7)
        w.counts[first] = min(w.counts[first] + 1, 2**63 - 1)
        w.nadded = min(w.nadded + 1, 2**63 - 1)

    def _advance_to(self, to: int) -> None:
        w = self._w
        steps = min(to - w.generation, w.slices)
        nbytes, now = w.slice_bits // 8, w.generation % w.slices
        for t in range(1, steps + 1):
            slot = (now + t) % w.slices
            w.data[slot * nbytes : (slot + 1) * nbytes] = bytes(nbytes)
            w.counts[slot] = 0
        w.generation = to

    def advance(self, by: Union[int, dt.datetime] = 1) -> None:
        """Move on by `by` generations (0 or more), or (generations that are times)
        to the generation holding a time (an aware datetime), if later."""
        w = self._w
        if isinstance(by, dt.datetime):
            if w.interval == 0:
                raise BloomFilterError("this window filter's generations are not times: advance(n) moves it on")
            to = _micros(by) // w.interval
            if to > w.generation:
                self._advance_to(to)
            return
        if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by <= 2**31 - 1:
            raise BloomFilterError(f"a window filter advances by 0 to 2147483647 generations (an int), not {by!r}")
        if w.generation + by > 2**63 - 1:
            raise BloomFilterError("generation number out of range")
        self._advance_to(w.generation + operator.index(by))

    def union(self, other: "WindowFilter") -> "WindowFilter":
        """Both filters' values, at the later generation (the server's f | g)."""
        if not isinstance(other, WindowFilter):
            raise BloomFilterError("union takes another WindowFilter")
        a, b = WindowFilter.from_bytes(self.to_bytes()), WindowFilter.from_bytes(other.to_bytes())
        wa, wb = a._w, b._w
        diff = []
        if wa.generations != wb.generations:
            diff.append(f"generations: {wa.generations} and {wb.generations}")
        if wa.capacity != wb.capacity or wa.hashes != wb.hashes or wa.ncells != wb.ncells:
            diff.append(f"capacity or rate ({wa.capacity} values, {wa.hashes} hashes and "
                        f"{wb.capacity} values, {wb.hashes} hashes)")
        if wa.interval != wb.interval:
            diff.append(f"generation length: {wa.interval} and {wb.interval} microseconds")
        if wa.elem and wb.elem and wa.elem != wb.elem:
            diff.append(f"element family: {wa.elem} and {wb.elem}")
        if diff:
            raise BloomFilterError("cannot combine bloom filters that differ in " + "; ".join(diff))
        if wa.generation < wb.generation:
            a._advance_to(wb.generation)
        if wb.generation < wa.generation:
            b._advance_to(wa.generation)
        sql = self._type if self._type is not None and other._type is not None and self._type.name == other._type.name else None
        if not wb.elem_bytes:
            return WindowFilter(wa, sql)
        if not wa.elem_bytes:
            return WindowFilter(wb, sql)
        wa.data = bytearray((int.from_bytes(wa.data, "little") | int.from_bytes(wb.data, "little"))
                            .to_bytes(len(wa.data), "little"))
        wa.counts = [min(c + d, 2**63 - 1) for c, d in zip(wa.counts, wb.counts)]
        wa.nadded = min(wa.nadded + wb.nadded, 2**63 - 1)
        return WindowFilter(wa, sql)

    __or__ = union

    # ---- writing, describing ----

    def to_bytes(self) -> bytes:
        """bloom_send's bytes: what $1::bytea::bloom reads."""
        return wf.to_binary(self._w)

    __bytes__ = to_bytes

    def __str__(self) -> str:
        return wf.to_text(self._w)

    @property
    def info(self) -> WindowInfo:
        w = self._w
        s, now, nbytes = w.slices, w.generation % w.slices, w.slice_bits // 8
        fills = []
        for age in range(s):
            slot = (now - age) % s
            fills.append(fmt.popcount(memoryview(w.data)[slot * nbytes : (slot + 1) * nbytes]) / w.slice_bits)
        in_window = min(sum(w.counts[(now - age) % s] for age in range(w.generations)), 2**63 - 1)
        return WindowInfo(w.hashes, w.generations, s, w.slice_bits, w.capacity, w.generation,
                          w.interval or None, w.nadded, in_window, sizing.fpp_of_fills(fills, w.hashes),
                          w.elem or None)

    def __eq__(self, other) -> bool:
        """The same bytes (n and the counts too): stricter than SQL's =, which
        sets them aside, as BloomFilter's == is."""
        if not isinstance(other, WindowFilter):
            return NotImplemented
        return self.to_bytes() == other.to_bytes()

    __hash__ = None  # type: ignore[assignment]  (mutable)

    def __repr__(self) -> str:
        i = self.info
        return (f"<WindowFilter {i.generations} generations of {i.capacity}, generation {i.generation}, "
                f"{i.values_in_window} values in the window>")


__all__ = ["WindowFilter", "WindowInfo"]
