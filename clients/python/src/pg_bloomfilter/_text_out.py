"""The text form a filter prints as, byte for byte bf_text_write's (core/bf_text.c).

    v1 classic m=9586 k=7 scheme=1 seed=0 n=1000 elem=pg_catalog.integer_ops bits=AAQ...

The header's numbers in canonical decimal (the seed unsigned), "bound= est="
for a derived filter, "target=0.<digits>" (parts per billion, trailing
zeros dropped) for a target, the element key percent-escaped (every byte
but letters, digits and _.@$- as %XX, upper-case hex), a layered filter's
"layers=m:k,...", then the data in standard base64 with padding.
"""

from __future__ import annotations

import binascii

from . import _format as fmt

_PLAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@$-")
_DATA_LABEL = {fmt.COUNTING4: " counters=", fmt.EXPLICIT: " hashes="}


def _escaped_elem(elem: bytes) -> str:
    return "".join(chr(c) if c in _PLAIN else f"%{c:02X}" for c in elem)


def _target_text(ppb: int) -> str:
    """Parts per billion as the decimal fraction bf_text_write prints: 10000000 -> "0.01"."""
    digits = f"{ppb:09d}".rstrip("0") or "0"
    return f"0.{digits}"


def to_text(p: fmt.Parsed, elem: bytes, data) -> str:
    """The text form of a filter of header p (its nadded, flags, bound, est and
    target as they are now), element key elem and data (bytes-like)."""
    parts = [
        f"v{fmt.VERSION} {fmt.layout_name(p.layout)} m={p.ncells} k={p.nhashes} "
        f"scheme={p.scheme} seed={p.seed} n={p.nadded} "
    ]
    if p.flags & fmt.FLAG_DERIVED:
        parts.append(f"bound={p.bound} est={p.est_distinct} ")
    if p.flags & fmt.FLAG_TARGET:
        parts.append(f"target={_target_text(p.target_ppb)} ")
    parts.append("elem=" + _escaped_elem(elem))
    if p.layout == fmt.LAYERED:
        parts.append(" layers=" + ",".join(f"{layer.ncells}:{layer.nhashes}" for layer in p.layers))
    parts.append(_DATA_LABEL.get(p.layout, " bits="))
    parts.append(binascii.b2a_base64(bytes(data), newline=False).decode("ascii"))
    return "".join(parts)
