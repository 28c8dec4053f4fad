"""The scalar probe: whether a filter holds one 64-bit hash, bit for bit as the server answers.

Positions follow hash scheme 1 (core/bf_hash.h in the extension): from a
value's 64-bit hash h, x = fmix64(h) and y = fmix64(h ^ 0x9E3779B97F4A7C15);
classic and counting4 positions are floor(x_i * m / 2^64) with
x_{i+1} = x_i + y; blocked512 picks its block with x and the bits inside it
from y, 9 bits at a time from the top, refilling the word every 7 with
w = fmix64(w + 0xC2B2AE3D27D4EB4F); a layered filter holds a value if one
of its layers (each a blocked512 filter) does; an explicit filter holds the
hashes themselves.  (Many hashes at once: _lanes.py.)
"""

from __future__ import annotations

import bisect
import struct

from . import _format as fmt
from ._lanes import OFFSET_SHIFTS, REFILL_SALT, SECOND_SALT
from ._pghash import M64


def fmix64(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & M64
    k ^= k >> 33
    return k


def prober(p: fmt.Parsed, data):
    """The function of a 64-bit hash h that answers whether the filter holds
    it, for p's layout, with its parameters bound (the per-probe path: no
    attribute lookups).  data (bytes or a bytearray) is read at each probe:
    the function follows changes made to a bytearray in place."""
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
