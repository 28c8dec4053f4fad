"""Window filters' sizing math: core/bf_window_sizing.c, operation for operation.

Only + - * / of floats (IEEE 754 doubles) in the C code's order, and powers
by squaring: each rounds alike everywhere, so that a window filter created
here has the server's shape (hashes, slice bits) for the same capacity,
rate and generations.
"""

from __future__ import annotations

import math
from typing import List, Sequence, Tuple

from . import _format as fmt
from .errors import BloomFilterError

MAX_HASHES = 64
MAX_GENERATIONS = 4096
FIXED_SIZE = 26
LN2 = 0.6931471805599453


def _power(base: float, e: int) -> float:
    result = 1.0
    while e > 0:
        if e & 1:
            result *= base
        base *= base
        e >>= 1
    return result


def fpp_of_fills(fill: Sequence[float], hashes: int) -> float:
    """bf_window_fpp_of_fills: the rate of a filter whose slice i (0 the newest) has fill[i] set."""
    run = [0.0] * hashes
    run[0] = 1.0
    fpp = 0.0
    for f in fill:
        fpp += run[hashes - 1] * f
        total = 0.0
        for r in range(hashes):
            total += run[r]
        for r in range(hashes - 1, 0, -1):
            run[r] = run[r - 1] * f
        run[0] = total * (1.0 - f)
    return fpp


def _fullest_fills(hashes: int, generations: int, slice_bits: int, capacity: int, certain: int) -> List[float]:
    slices = hashes + generations - 1
    fill = []
    for age in range(slices):
        written = age + 1 if age + 1 < hashes else hashes
        fill.append(1.0 if age >= certain else 1.0 - _power(1.0 - 1.0 / slice_bits, capacity * written))
    return fill


def window_fpp(hashes: int, generations: int, slice_bits: int, capacity: int) -> float:
    """bf_window_fpp: the rate at the filter's fullest."""
    slices = hashes + generations - 1
    return fpp_of_fills(_fullest_fills(hashes, generations, slice_bits, capacity, slices), hashes)


def window_recall(hashes: int, generations: int, slice_bits: int, capacity: int, age: int) -> float:
    """bf_window_recall: the chance a value added age generations ago is found, at the fullest."""
    slices = hashes + generations - 1
    if age < generations:
        return 1.0
    if age >= slices:
        return window_fpp(hashes, generations, slice_bits, capacity)
    return fpp_of_fills(_fullest_fills(hashes, generations, slice_bits, capacity, age), hashes)


def window_size_for(capacity: int, fpp: float, generations: int) -> Tuple[int, int]:
    """bf_window_size_for: (hashes, slice_bits) as bloom_window sizes it."""
    if not capacity >= 1 or capacity > fmt.INT64_MAX:
        raise BloomFilterError("capacity per generation must be at least 1")
    if not 0 < fpp < 1:
        raise BloomFilterError("false-positive rate must be between 0 and 1 (exclusive)")
    if not 1 <= generations <= MAX_GENERATIONS:
        raise BloomFilterError(f"generations must be between 1 and {MAX_GENERATIONS}")
    cap = float(capacity)
    for k in range(1, MAX_HASHES + 1):
        bits = math.ceil(float(k) * cap / LN2)
        slices = float(k + generations - 1)
        bits = math.ceil(bits / 64) * 64
        if float(bits) * slices > float(fmt.MAX_BITS) - 8.0 * (FIXED_SIZE + 8.0 * slices):
            raise BloomFilterError(
                f"a window filter of {capacity} values per generation over {generations} generations "
                f"at rate {fpp} needs more than the maximum of {fmt.MAX_BITS} bits (1 GB)"
            )
        if window_fpp(k, generations, bits, capacity) <= fpp:
            return k, bits
    raise BloomFilterError(
        f"no window filter of at most {MAX_HASHES} hashes per value meets a rate of {fpp} over "
        f"{generations} generations: ask for a higher rate or fewer generations"
    )
