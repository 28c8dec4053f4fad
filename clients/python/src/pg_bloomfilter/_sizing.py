"""The sizing formulas of core/bf_sizing.c, ported operation for operation.

BloomFilter.create sizes a filter as the server's bloom_agg(v, n, fpp,
layout) and bloom_empty(n, fpp, layout) do (bf_size_for_layout), so that
the filters it writes are the server's byte for byte.  Every function below
is the C function of the same name with the same floating-point operations
in the same order (C's Max and Min as the conditional expressions they
expand to), so that each double is the server's; only math.lgamma is
Python's own implementation, not the C library's, and can differ from the
server's in the last bits (see the tests' sizing check, which counts any
size that differs).  The estimates bloom_info reads back from a filter's
fill are here too.
"""

from __future__ import annotations

import math
from typing import Tuple

from . import _format as fmt
from .errors import BloomFilterError

M_LN2 = 0.69314718055994530942  # the C constant, to the same double


def bf_fpp(n: float, ncells: float, nhashes: float) -> float:
    """The classic rate (1 - (1 - 1/m)^(kn))^k of n values in m bits with k hashes."""
    # a given bit still 0 (one cell: log1p(-1) is C's -inf, where Python raises)
    zero = 0.0 if ncells <= 1 else math.exp(nhashes * n * math.log1p(-1.0 / ncells))
    if n <= 0:
        return 0.0
    return math.pow(1.0 - zero, nhashes)


def bf_optimal_hashes(n: float, ncells: float) -> int:
    """The integer k, 1 to 64, that gives n values in m bits the lowest classic rate."""
    k_real = ncells / n * M_LN2
    k_lo = math.floor(k_real)
    k_hi = k_lo + 1
    if k_lo < 1:
        k_lo = 1
    if k_lo > fmt.MAX_HASHES:
        k_lo = fmt.MAX_HASHES
    if k_hi > fmt.MAX_HASHES:
        k_hi = fmt.MAX_HASHES
    # the rate is unimodal in k: the best integer is one of the neighbours
    return int(k_hi) if bf_fpp(n, ncells, float(k_hi)) < bf_fpp(n, ncells, float(k_lo)) else int(k_lo)


def bf_blocked_fpp(n: float, ncells: float, nhashes: float) -> float:
    """The blocked512 rate: a Poisson mixture over the blocks' loads (terms
    within 12 standard deviations of the mean)."""
    lam = n * fmt.BLOCK_BITS / ncells
    if n <= 0:
        return 0.0
    if lam > 1e6:
        return math.pow(-math.expm1(nhashes * lam * math.log1p(-1.0 / fmt.BLOCK_BITS)), nhashes)
    spread = 12.0 * math.sqrt(lam) + 30.0
    low = lam - spread
    lo = math.floor(0.0 if 0.0 > low else low)
    hi = math.ceil(lam + spread)
    total = weight = 0.0
    i = float(lo)
    while i <= hi:
        pmf = math.exp(i * math.log(lam) - lam - math.lgamma(i + 1.0))
        inner = math.pow(-math.expm1(nhashes * i * math.log1p(-1.0 / fmt.BLOCK_BITS)), nhashes)
        total += pmf * inner
        weight += pmf
        i += 1.0
    return total / weight if weight > 0 else 1.0


def bf_layout_fpp(layout: int, n: float, ncells: float, nhashes: float) -> float:
    """The rate of n values in m cells with k hashes, by the layout's formula."""
    if layout == fmt.BLOCKED512:
        return bf_blocked_fpp(n, ncells, nhashes)
    return bf_fpp(n, ncells, nhashes)


def bf_layout_optimal_hashes(layout: int, n: float, ncells: float) -> int:
    """The best integer k for the layout: classic's, or for blocked512 the best
    within 4 of it (the first of equals)."""
    k0 = bf_optimal_hashes(n, ncells)
    if layout != fmt.BLOCKED512:
        return k0
    best = k0
    best_fpp = bf_blocked_fpp(n, ncells, float(k0))
    for k in range(max(1, k0 - 4), min(fmt.MAX_HASHES, k0 + 4) + 1):
        f = bf_blocked_fpp(n, ncells, float(k))
        if f < best_fpp:
            best_fpp = f
            best = k
    return best


def _best_fpp(layout: int, n: float, ncells: int) -> float:
    """best_fpp: the lowest rate m cells of the layout give n values, over integer k."""
    return bf_layout_fpp(layout, n, float(ncells), float(bf_layout_optimal_hashes(layout, n, float(ncells))))


def _too_large(layout: int, n: float, fpp: float) -> BloomFilterError:
    return BloomFilterError(
        f"a {fmt.layout_name(layout)} filter for {n:.0f} values at rate {fpp:g} needs more than "
        f"the maximum of {fmt.MAX_BITS} bits (1 GB)"
    )


def _smallest_meeting(layout: int, n: float, fpp: float, lo: int, unit: int) -> int:
    """smallest_meeting: the smallest multiple of unit bits, from lo units on,
    whose best rate for n values meets fpp (geometric growth, then a binary
    search).  Raises BloomFilterError past the 1 GB maximum."""
    max_units = fmt.MAX_BITS // unit
    if lo > max_units:
        raise _too_large(layout, n, fpp)
    if _best_fpp(layout, n, lo * unit) > fpp:
        hi = lo
        while True:
            if hi >= max_units:
                raise _too_large(layout, n, fpp)
            lo = hi
            hi = hi + hi // 16 + 1
            if hi > max_units:
                hi = max_units
            if not _best_fpp(layout, n, hi * unit) > fpp:
                break
        # invariant: best rate at lo > fpp >= best rate at hi
        while hi - lo > 1:
            mid = lo + (hi - lo) // 2
            if _best_fpp(layout, n, mid * unit) > fpp:
                lo = mid
            else:
                hi = mid
        lo = hi
    return lo * unit


def bf_size_for(n: float, fpp: float) -> Tuple[int, int]:
    """The classic filter's (m, k) for n values at rate fpp: the smallest m
    whose best integer k meets fpp.  Raises BloomFilterError with the
    server's message for a bad n or fpp, or past the 1 GB maximum."""
    if not n >= 1:
        raise BloomFilterError("expected number of values must be at least 1")
    if not (fpp > 0.0 and fpp < 1.0):
        raise BloomFilterError("false-positive rate must be between 0 and 1 (exclusive)")
    m_real = math.ceil(-n * math.log(fpp) / (M_LN2 * M_LN2))
    if m_real < 1:
        m_real = 1
    if m_real > float(fmt.MAX_BITS):
        raise BloomFilterError(
            f"a filter for {n:.0f} values at rate {fpp:g} needs {m_real:.0f} bits, more than "
            f"the maximum of {fmt.MAX_BITS} (1 GB)"
        )
    ncells = _smallest_meeting(fmt.CLASSIC, n, fpp, int(m_real), 1)
    return ncells, bf_optimal_hashes(n, float(ncells))


def bf_size_for_layout(layout: int, n: float, fpp: float) -> Tuple[int, int]:
    """(m, k) of a filter of the layout (classic or blocked512) for n values at
    rate fpp, as bloom_agg(v, n, fpp, layout) sizes it: blocked512 searches in
    blocks from the classic size up."""
    classic_m, nhashes = bf_size_for(n, fpp)
    if layout != fmt.BLOCKED512:
        return classic_m, nhashes
    ncells = _smallest_meeting(
        layout, n, fpp, (classic_m + fmt.BLOCK_BITS - 1) // fmt.BLOCK_BITS, fmt.BLOCK_BITS
    )
    return ncells, bf_layout_optimal_hashes(layout, n, float(ncells))


def bf_estimate_distinct(ncells: int, nhashes: int, occupied: int) -> float:
    """Distinct values that explain occupied of m cells set (Swamidass & Baldi)."""
    m = float(ncells)
    if occupied >= ncells:
        return math.inf
    return -(m / nhashes) * math.log1p(-float(occupied) / m)
