"""A window filter's serialized form (layout 9, 1.12), read, checked and written.

The one definition is core/bf_format.h and core/bf_format_window.h in the
extension's source (docs/format.md copies their tables): the header, the
element key, the window table (hashes, capacity, generation, interval, a
count per slice slot) and the slices' bits.  The checks are the server's
(bf_check_header with bf_window_table_check, bf_check_data with
bf_window_check), so that a value the server refuses is refused here; the
text form (core/bf_text.c, bf_text_tables.c) is parsed with _format's
cursor into the binary form, then checked as a received value is.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass
from typing import List

from . import _format as fmt
from ._elem import elem_text
from .errors import BloomFilterError

WINDOW = 9
FIXED_SIZE = 26
MAX_HASHES = 64
MAX_GENERATIONS = 4096
MAX_SLICES = MAX_HASHES + MAX_GENERATIONS - 1
SLICE_UNIT = 64
INT64_MIN = -(1 << 63)


@dataclass
class Window:
    """A window filter's fields: slices is the header's k, ncells its m."""

    slices: int
    ncells: int
    nadded: int
    elem: str
    elem_bytes: bytes
    hashes: int
    capacity: int
    generation: int
    interval: int
    counts: List[int]
    data: bytearray

    @property
    def slice_bits(self) -> int:
        return self.ncells // self.slices

    @property
    def generations(self) -> int:
        return self.slices - self.hashes + 1


def _fail(message: str) -> BloomFilterError:
    return BloomFilterError(message)


def payload_size(slices: int, ncells: int, elemlen: int) -> int:
    return fmt.HEADER_SIZE + elemlen + FIXED_SIZE + 8 * slices + ncells // 8


def _check_counts(w: Window) -> None:
    left = w.nadded
    for c in w.counts:
        if c > fmt.INT64_MAX:
            raise _fail(f"a window filter's count {c} is out of range")
        # (n stops at 2^63-1, each count on its own: past that, their sum is not bounded by n)
        if c > left and w.nadded != fmt.INT64_MAX:
            raise _fail(
                f"a window filter's counts of values per generation sum to more than its n = {w.nadded}"
            )
        left = 0 if c > left else left - c


def _check_data(w: Window) -> None:
    """bf_window_check: the counts, the element key, each slice's bits."""
    _check_counts(w)
    if (w.nadded == 0) != (len(w.elem_bytes) == 0):
        raise _fail("a window filter has an element key exactly when values were added")
    s, nbytes = w.slices, w.slice_bits // 8
    now = w.generation % s
    for age in range(s):
        slot = (now - age) % s
        wrote = sum(w.counts[(now - (age - j)) % s] for j in range(min(w.hashes, age + 1)))
        bits = fmt.popcount(memoryview(w.data)[slot * nbytes : (slot + 1) * nbytes])
        if bits > wrote:
            raise _fail(
                f"slice {slot} of a window filter has {bits} bits set, more than the {wrote} "
                "values added in the generations that wrote it"
            )


def parse_binary(buf: bytes) -> Window:
    """bf_check_header_all then bf_check_data, for a window filter."""
    if len(buf) < fmt.HEADER_SIZE:
        raise _fail(f"value is truncated: {len(buf)} bytes, the header alone needs {fmt.HEADER_SIZE}")
    if buf[:4] != fmt.MAGIC:
        raise _fail("bad magic number: not a bloom value")
    version, layout, scheme, flags, slices, elemlen, seed, m, n = struct.unpack_from(
        "<BBBBHHQQQ", buf, 4
    )
    if version != fmt.VERSION:
        raise _fail(f"unknown format version {version} (this build reads version 1)")
    if layout != WINDOW:
        raise _fail(f"a {fmt.layout_name(layout)} filter is not a window filter: read it with BloomFilter")
    if scheme != fmt.SCHEME_DOUBLE_HASHING:
        raise _fail(f"unknown hash scheme {scheme} (this version knows 1)")
    if flags != 0:
        raise _fail(f"a window filter has no flags, not 0x{flags:02x}")
    if n > fmt.INT64_MAX:
        raise _fail("number of values added is out of range")
    if not 1 <= slices <= MAX_SLICES:
        raise _fail(f"number of slices k = {slices} of a window filter is out of range (1 to {MAX_SLICES})")
    if m == 0 or m % (SLICE_UNIT * slices) != 0:
        raise _fail(
            f"number of bits m = {m} of a window filter of {slices} slices is not a positive "
            f"multiple of {SLICE_UNIT * slices}"
        )
    if m > fmt.MAX_BITS:
        raise _fail(f"number of bits m = {m} exceeds the maximum of {fmt.MAX_BITS} (1 GB)")
    if seed != 0:
        raise _fail(f"a window filter's seed is 0, not {seed}")
    if elemlen > fmt.MAX_ELEM_LEN:
        raise _fail(f"element key is longer than {fmt.MAX_ELEM_LEN} bytes")
    expected = payload_size(slices, m, elemlen)
    if expected > fmt.MAX_PAYLOAD:
        raise _fail(f"filter of {expected} bytes exceeds the 1 GB limit")
    if len(buf) != expected:
        raise _fail(
            f"value has {len(buf)} bytes, but its header (m = {m}, element key of {elemlen} "
            f"bytes) implies {expected}"
        )
    elem_bytes = bytes(buf[fmt.HEADER_SIZE : fmt.HEADER_SIZE + elemlen])
    elem = elem_text(elem_bytes)
    at = fmt.HEADER_SIZE + elemlen
    hashes, capacity, generation, interval = struct.unpack_from("<HQqq", buf, at)
    if not 1 <= hashes <= MAX_HASHES or hashes > slices:
        raise _fail(
            f"a window filter's hashes = {hashes} is out of range (1 to {MAX_HASHES}, at most its "
            f"{slices} slices)"
        )
    if slices - hashes + 1 > MAX_GENERATIONS:
        raise _fail(
            f"a window filter of {slices} slices and {hashes} hashes spans {slices - hashes + 1} "
            f"generations, more than {MAX_GENERATIONS}"
        )
    if not 1 <= capacity <= fmt.INT64_MAX:
        raise _fail(f"a window filter's capacity {capacity} is out of range")
    if interval < 0:
        raise _fail(f"a window filter's interval {interval} is negative")
    counts = list(struct.unpack_from(f"<{slices}Q", buf, at + FIXED_SIZE))
    data = bytearray(buf[at + FIXED_SIZE + 8 * slices :])
    w = Window(slices, m, n, elem, elem_bytes, hashes, capacity, generation, interval, counts, data)
    _check_data(w)
    return w


def to_binary(w: Window) -> bytes:
    """bloom_send's bytes of a window filter."""
    head = fmt.MAGIC + struct.pack(
        "<BBBBHHQQQ", fmt.VERSION, WINDOW, fmt.SCHEME_DOUBLE_HASHING, 0, w.slices,
        len(w.elem_bytes), 0, w.ncells, w.nadded,
    )
    table = struct.pack("<HQqq", w.hashes, w.capacity, w.generation, w.interval)
    table += struct.pack(f"<{w.slices}Q", *w.counts)
    return head + w.elem_bytes + table + bytes(w.data)


def _take_decimal(c, what: str, negative_ok: bool, most: int) -> int:
    negative = negative_ok and c.take(b"-")
    start = c.p
    while c.p < len(c.s) and 0x30 <= c.s[c.p] <= 0x39:
        c.p += 1
    digits = c.s[start : c.p]
    if not digits or (digits[0] == 0x30 and len(digits) > 1) or (negative and digits == b"0"):
        raise _fail(f"a window filter's {what} must be a decimal without leading zeros")
    if len(digits) > 20 or int(digits) > most + (1 if negative else 0):
        raise _fail(f"a window filter's {what} is out of range")
    return -int(digits) if negative else int(digits)


def text_to_binary(text: str) -> bytes:
    """bf_text_parse of a window filter's text form, to its binary form (then checked)."""
    c = fmt._Cursor(text.encode("utf-8"))
    if not c.take(b"v"):
        raise _fail('a bloom value starts with "v1 "')
    if not c.take(b"1 "):
        raise _fail('unknown format version (this build reads "v1")')
    if not c.take(b"window "):
        raise _fail("not a window filter's text form: read it with BloomFilter.from_text")
    m, slices = c.number("m"), c.number("k")
    scheme, seed, n = c.number("scheme"), c.number("seed"), c.number("n")
    elem_bytes = fmt._take_elem(c)
    if not 1 <= slices <= MAX_SLICES:
        raise _fail(f"number of slices k = {slices} of a window filter is out of range (1 to {MAX_SLICES})")
    if not c.take(b"window="):
        raise _fail('expected "window=" after the element key')
    fields = []
    for what, negative_ok, most, sep in (
        ("hashes", False, MAX_HASHES, b":"), ("capacity", False, fmt.INT64_MAX, b":"),
        ("generation", True, fmt.INT64_MAX, b":"), ("interval", False, fmt.INT64_MAX, None),
    ):
        fields.append(_take_decimal(c, what, negative_ok, most))
        if sep is not None and not c.take(sep):
            raise _fail(f'expected ":" after a window filter\'s {what}')
    hashes, capacity, generation, interval = fields
    if hashes < 1 or hashes > slices or slices - hashes + 1 > MAX_GENERATIONS or capacity < 1:
        raise _fail(
            f"a window filter of {slices} slices cannot have hashes = {hashes} and capacity = {capacity}"
        )
    if not c.take(b" counts="):
        raise _fail('expected " counts=" after the window')
    counts = []
    for slot in range(slices):
        if slot > 0 and not c.take(b","):
            raise _fail(f'expected {slices} counts, separated by ","')
        counts.append(_take_decimal(c, "count", False, fmt.INT64_MAX))
    if not c.take(b" "):
        raise _fail("expected a space after the counts")
    if scheme != fmt.SCHEME_DOUBLE_HASHING or seed != 0 or n > fmt.INT64_MAX:
        raise _fail("a window filter has hash scheme 1, seed 0 and n at most 2^63-1")
    if m == 0 or m % (SLICE_UNIT * slices) != 0 or m > fmt.MAX_BITS:
        raise _fail(f"number of bits m = {m} of a window filter of {slices} slices is out of range")
    if payload_size(slices, m, len(elem_bytes)) > fmt.MAX_PAYLOAD:
        raise _fail(f"filter of {payload_size(slices, m, len(elem_bytes))} bytes exceeds the 1 GB limit")
    data = fmt._take_data(c, "bits=", m // 8)
    w = Window(slices, m, n, "", elem_bytes, hashes, capacity, generation, interval, counts, bytearray(data))
    return to_binary(w)


def to_text(w: Window) -> str:
    """bf_text_write of a window filter."""
    from ._text_out import _escaped_elem

    counts = ",".join(str(c) for c in w.counts)
    return (
        f"v1 window m={w.ncells} k={w.slices} scheme=1 seed=0 n={w.nadded} "
        f"elem={_escaped_elem(w.elem_bytes)} window={w.hashes}:{w.capacity}:{w.generation}:"
        f"{w.interval} counts={counts} bits={base64.b64encode(bytes(w.data)).decode('ascii')}"
    )
