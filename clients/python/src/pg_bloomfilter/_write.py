"""Writing a filter's cells: adds and unions, as the server makes them.

The positions a hash sets are the ones a probe tests (_lanes.cells_lanes,
hash scheme 1), so that every value added is found.  A bit filter (classic,
blocked512) sets its k bits; a derived one also grows its bound by the bits
newly set (at most m) and its estimate by one if any was (bloom_set_hash in
src/bloom_explicit.c); a counting4 filter increments its k counters, each
stopping at 15 (bf_counting_add).  A union ORs the bits or adds the counters
(bf_union_bytes), and for derived inputs computes the bound and estimate as
bloom_union_in_place (src/bloom_setops.c) does.
"""

from __future__ import annotations

from typing import Tuple

from . import _estimates as est
from . import _format as fmt
from ._lanes import cells_lanes, mask_table
from .errors import BloomFilterError

COUNTER_MAX = 15  # BF_COUNTER_MAX: a counter saturates here


def set_hash(p: fmt.Parsed, data: bytearray, h: int) -> int:
    """Add the value of 64-bit hash h to data, the cells of a classic,
    blocked512 or counting4 filter of p's shape (bf_add_hash): returns how
    many cells went from 0 to set (a position met twice counts once; a
    counter met twice is incremented twice)."""
    cells = cells_lanes(p, h.to_bytes(8, "little"), 1)[0]
    where = cells.where()
    masks = cells.masks(mask_table(p.layout))
    changed = 0
    if p.layout == fmt.COUNTING4:
        for i, mask in zip(where, masks):
            shift = 0 if mask == 0x0F else 4
            counter = (data[i] >> shift) & 0x0F
            if counter < COUNTER_MAX:
                data[i] += 1 << shift
            changed += counter == 0
        return changed
    for i, mask in zip(where, masks):
        if not data[i] & mask:
            data[i] |= mask
            changed += 1
    return changed


def set_hashes(p: fmt.Parsed, data: bytearray, hashes64: bytes, n: int) -> None:
    """Set the bits of n values' hashes (64-bit lanes, little-endian bytes) in
    data, a classic or blocked512 filter's bits: what set_hash does to each,
    in any order (a bit set stays set), without counting."""
    cells = cells_lanes(p, hashes64, n)[0]
    # (a loop of Python: writing the bytes back in one C call, then finding
    # the bits lost where cells share a byte, measured no faster)
    for i, mask in zip(cells.where(), cells.masks(mask_table(p.layout))):
        data[i] |= mask


def derived_after_add(p: fmt.Parsed, changed: int) -> Tuple[int, int]:
    """A derived filter's (bound, est) after an add that set changed bits:
    the bound grows by them, at most m; the estimate by one if any was set."""
    return min(p.bound + changed, p.ncells), p.est_distinct + (changed > 0)


# counting4's union, a byte's two counters at a time: each counter of a
# byte (0 to 15 in a byte of its own), a sum of two (0 to 30) saturated at
# 15, and a saturated counter back in the high nibble
_LOW = bytes(b & 0x0F for b in range(256))
_HIGH = bytes(b >> 4 for b in range(256))
_SATURATED = bytes(min(s, COUNTER_MAX) for s in range(256))
_SATURATED_HIGH = bytes(min(s, COUNTER_MAX) << 4 & 0xF0 for s in range(256))


def _add_counters(a: bytes, b: bytes) -> bytes:
    """bf_counting_union_bytes: every counter of a plus b's, saturating at 15."""
    n = len(a)

    def summed(table: bytes) -> bytes:
        # a sum of two counters fits its byte: no carry into the next
        total = int.from_bytes(a.translate(table), "little") + int.from_bytes(b.translate(table), "little")
        return total.to_bytes(n, "little")

    low = summed(_LOW).translate(_SATURATED)
    high = summed(_HIGH).translate(_SATURATED_HIGH)
    return (int.from_bytes(low, "little") | int.from_bytes(high, "little")).to_bytes(n, "little")


def union_data(layout: int, a: bytes, b: bytes) -> bytearray:
    """bf_union_bytes: a's cells with b's (same shape) ORed in, or for
    counting4 added."""
    if layout == fmt.COUNTING4:
        return bytearray(_add_counters(bytes(a), bytes(b)))
    n = len(a)
    return bytearray((int.from_bytes(a, "little") | int.from_bytes(b, "little")).to_bytes(n, "little"))


def add_counts(a: int, b: int) -> int:
    """bloom_add_counts: a + b, saturating at 2^63 - 1."""
    return fmt.INT64_MAX if a > fmt.INT64_MAX - b else a + b


def _c_max(a: float, b: float) -> float:
    return a if a > b else b  # C's Max(a, b)


def _c_min(a: float, b: float) -> float:
    return a if a < b else b  # C's Min(a, b)


def union_derived(pa: fmt.Parsed, da, pb: fmt.Parsed, db, union: bytes, nadded: int) -> Tuple[int, int]:
    """The (bound, est) of the union of bit filters a and b of which one at
    least is derived, as bloom_union_in_place sets them: a value outside the
    union passes if its bits are among those that matter on either side (at
    most xa + xb, and m); the union holds at least the larger side and at
    most both, its own fill an upper estimate.  union: the ORed bits;
    nadded: the union's n."""
    xa = est.occupied(pa, da)
    xb = est.occupied(pb, db)
    ca = est.estimate_distinct(pa, da, xa)
    cb = est.estimate_distinct(pb, db, xb)
    xa = est.effective_bits(pa, xa)
    xb = est.effective_bits(pb, xb)
    fill_est = est.bf_estimate_distinct(pa.ncells, pa.nhashes, fmt.popcount(union))
    estimate = _c_min(_c_max(fill_est, _c_max(ca, cb)), ca + cb)
    # set_derived: the estimate rounded (rint: half to even, as round()), within 0 and n
    e = int(round(_c_max(0.0, _c_min(estimate, float(nadded)))))
    return _c_min(xa + xb, pa.ncells), e


def union_type(a, b):
    """The type of the union of filters of types a and b (_types.SqlType or
    None for a filter read from the server): the one they share, or None
    where one side has none.  A filter read holds values hashed as the
    family hashes them (a float8 among a float4 filter's family, say): the
    union converting probes to the other side's type could miss them.
    Raises BloomFilterError for two types (even of one family: each
    converts values as its own)."""
    if a is not None and b is not None and a != b:
        raise BloomFilterError(
            f"cannot combine a filter of type {a.name} with one of type {b.name}: create both "
            "with the same type"
        )
    return a if a == b else None


def _signed(seed: int) -> int:
    return seed - (1 << 64) if seed > fmt.INT64_MAX else seed


def check_union(a: fmt.Parsed, family_a: bytes, b: fmt.Parsed, family_b: bytes) -> None:
    """What the server checks before a | b: two bit filters or two counting4
    ones (bloom and counting_bloom are different SQL types), neither explicit
    nor layered (which this library does not combine), then
    bloom_check_compatible's checks (m, k, layout, hash scheme, seed, and the
    element families where both have one; a created filter's is its
    type's), with its message."""
    for p in (a, b):
        if p.layout in (fmt.EXPLICIT, fmt.LAYERED):
            raise BloomFilterError(
                f"this library does not combine {fmt.layout_name(p.layout)} filters: combine them "
                "on the server (bloom_union, or a | b)"
            )
    if (a.layout == fmt.COUNTING4) != (b.layout == fmt.COUNTING4):
        raise BloomFilterError(
            f"cannot combine a {fmt.layout_name(a.layout)} filter with a {fmt.layout_name(b.layout)} "
            "one: counting_bloom and bloom are different SQL types"
        )
    diff = []
    if a.ncells != b.ncells:
        diff.append(f"m: {a.ncells} and {b.ncells}")
    if a.nhashes != b.nhashes:
        diff.append(f"k: {a.nhashes} and {b.nhashes}")
    if a.layout != b.layout:
        diff.append(f"layout: {fmt.layout_name(a.layout)} and {fmt.layout_name(b.layout)}")
    if a.scheme != b.scheme:
        diff.append(f"hash scheme: {a.scheme} and {b.scheme}")
    if a.seed != b.seed:
        diff.append(f"seed: {_signed(a.seed)} and {_signed(b.seed)}")
    if family_a and family_b and family_a != family_b:
        diff.append(
            f"element family: {family_a.decode('utf-8', 'replace')} and {family_b.decode('utf-8', 'replace')}"
        )
    if diff:
        raise BloomFilterError(
            f"cannot combine bloom filters that differ in {'; '.join(diff)} (combine filters "
            "built with the same sizing from values of the same type family)"
        )
