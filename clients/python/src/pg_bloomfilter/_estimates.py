"""What a filter's fill tells: bloom_info's bits_set, estimated_distinct and
estimated_fpp, as src/bloom_setops.c computes them (bloom_estimate_distinct,
bloom_effective_bits, bloom_current_fpp); the union of derived filters
(_write.py) reads them too."""

from __future__ import annotations

import math
from typing import Optional, Tuple

from . import _format as fmt
from ._sizing import bf_blocked_fpp, bf_estimate_distinct


def occupied(p: fmt.Parsed, data, start: int = 0, end: Optional[int] = None) -> int:
    """Cells set in data[start:end]: bits, counters not zero (counting4), or
    the hashes held (explicit, whatever the range)."""
    if p.layout == fmt.EXPLICIT:
        return p.ncells
    part = data[start:end]
    if p.layout == fmt.COUNTING4:
        return fmt._count_counters(memoryview(part))
    return fmt.popcount(part)


def _layered_estimates(p: fmt.Parsed, data) -> Tuple[float, float]:
    """A layered filter's distinct values (its layers' sum) and rate (that of
    a value passing one layer at least), layer by layer."""
    distinct = 0.0
    clear = 1.0
    for layer in p.layers:
        est = bf_estimate_distinct(
            layer.ncells, layer.nhashes, occupied(p, data, layer.offset, layer.offset + layer.ncells // 8)
        )
        distinct += est
        clear *= 1.0 - bf_blocked_fpp(est, float(layer.ncells), float(layer.nhashes))
    return distinct, 1.0 - clear


def estimate_distinct(p: fmt.Parsed, data, occ: int) -> float:
    """bloom_estimate_distinct: the distinct values added, at most n (occ: occupied(p, data))."""
    if p.layout == fmt.EXPLICIT:
        return float(p.ncells)  # exact
    if p.layout == fmt.LAYERED:
        est = _layered_estimates(p, data)[0]
    elif p.flags & fmt.FLAG_DERIVED:
        est = float(p.est_distinct)
    else:
        est = bf_estimate_distinct(p.ncells, p.nhashes, occ)
    nadded = float(p.nadded)
    return est if est < nadded else nadded  # C's Min(est, n)


def effective_bits(p: fmt.Parsed, occ: int) -> int:
    """bloom_effective_bits: the bits a value outside the set can meet (a derived filter's bound)."""
    return p.bound if p.flags & fmt.FLAG_DERIVED else occ


def current_fpp(p: fmt.Parsed, data, occ: int) -> float:
    """bloom_current_fpp: the filter's rate of false positives now."""
    if p.layout == fmt.EXPLICIT:
        return 0.0  # exact, up to collisions of 64-bit hashes
    if p.layout == fmt.LAYERED:
        return _layered_estimates(p, data)[1]
    if p.layout == fmt.BLOCKED512 and not p.flags & fmt.FLAG_DERIVED:
        return bf_blocked_fpp(estimate_distinct(p, data, occ), float(p.ncells), float(p.nhashes))
    return math.pow(effective_bits(p, occ) / p.ncells, p.nhashes)
