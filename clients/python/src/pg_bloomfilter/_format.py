"""The serialized form of a bloom value, read and checked.

The one definition is core/bf_format.h in the extension's source (its
docs/format.md copies its table); this module follows it field
by field and applies the same checks as the server's bf_check_header and
bf_check_data, so that a value the server would refuse is refused here too,
with the library's own error.  Every integer is little-endian.  The text
form (core/bf_text.c) is parsed into the binary form, which is then checked
as a received value is.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ._elem import elem_text as _elem_text
from .errors import BloomFilterError

MAGIC = b"BLOM"
VERSION = 1
HEADER_SIZE = 36

CLASSIC, COUNTING4, BLOCKED512, EXPLICIT, LAYERED = 1, 2, 3, 4, 5
LAYOUT_NAMES = {
    CLASSIC: "classic",
    COUNTING4: "counting4",
    BLOCKED512: "blocked512",
    EXPLICIT: "explicit",
    LAYERED: "layered",
}
SCHEME_DOUBLE_HASHING = 1

FLAG_DERIVED = 0x01
FLAG_TARGET = 0x02
KNOWN_FLAGS = FLAG_DERIVED | FLAG_TARGET
DERIVED_SIZE = 16
TARGET_SIZE = 4
TARGET_SCALE = 1_000_000_000

BLOCK_BITS = 512
MAX_HASHES = 64
MAX_LAYERS = 64
LAYER_SIZE = 10
MAX_ELEM_LEN = 255

INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1
MAX_VARLENA = 0x3FFFFFFF
MAX_PAYLOAD = MAX_VARLENA - 4
MAX_DATA = MAX_PAYLOAD - HEADER_SIZE - MAX_ELEM_LEN
MAX_BITS = MAX_DATA * 8
MAX_COUNTERS = MAX_DATA * 2
MAX_EXPLICIT = MAX_DATA // 8


@dataclass(frozen=True)
class Layer:
    """One layer of a layered filter: a blocked512 filter of its own m and k."""

    ncells: int
    nhashes: int
    offset: int  # where its bits start in the data, in bytes


@dataclass
class Parsed:
    """A checked value: its header fields and where its data lie.  (Not
    frozen: a BloomFilter owns its Parsed and updates n, the element key and
    a derived filter's bound and estimate in place as values are added.)"""

    layout: int
    scheme: int
    flags: int
    nhashes: int
    seed: int
    ncells: int
    nadded: int
    bound: int
    est_distinct: int
    target_ppb: int
    elem: str
    layers: Tuple[Layer, ...]
    data: memoryview
    size: int  # bytes of the payload (bloom_info's bytes adds the 4-byte varlena header)
    elem_bytes: bytes = b""  # the element key as stored (elem is its text: valid UTF-8, since 1.12)


def _fail(message: str) -> BloomFilterError:
    return BloomFilterError(message)


def data_bytes(layout: int, ncells: int) -> int:
    if layout == COUNTING4:
        return (ncells + 1) // 2
    if layout == EXPLICIT:
        return ncells * 8
    return (ncells + 7) // 8


def _extension_bytes(flags: int) -> int:
    if flags & FLAG_DERIVED:
        return DERIVED_SIZE
    if flags & FLAG_TARGET:
        return TARGET_SIZE
    return 0


def _check_params(layout: int, scheme: int, nhashes: int, ncells: int, elemlen: int) -> None:
    """bf_params_check."""
    if layout in (6, 7, 8):
        raise _fail(
            "a %s filter (another system's, bloom_import's): read it with "
            "pg_bloomfilter.makers.from_bloom_bytes" % ("spark", "guava", "parquet")[layout - 6]
        )
    if layout == 9:
        raise _fail("a window filter (bloom_window's): read it with WindowFilter.from_bytes")
    if layout not in LAYOUT_NAMES:
        raise _fail(
            f"unknown layout {layout} (this version knows 1 = classic, 2 = counting4, "
            "3 = blocked512, 4 = explicit, 5 = layered)"
        )
    if scheme != SCHEME_DOUBLE_HASHING:
        raise _fail(f"unknown hash scheme {scheme} (this version knows 1)")
    if layout == EXPLICIT:
        if nhashes != 0:
            raise _fail(f"an explicit filter has k = 0, not {nhashes}")
        if ncells > MAX_EXPLICIT:
            raise _fail(
                f"number of hashes m = {ncells} exceeds the maximum of {MAX_EXPLICIT} (1 GB)"
            )
    else:
        if layout == LAYERED:
            if not 1 <= nhashes <= MAX_LAYERS:
                raise _fail(
                    f"number of layers k = {nhashes} of a layered filter is out of range "
                    f"(1 to {MAX_LAYERS})"
                )
            if ncells % BLOCK_BITS != 0 or ncells < nhashes * BLOCK_BITS:
                raise _fail(
                    f"number of bits m = {ncells} of a layered filter of {nhashes} layers is "
                    "not a multiple of 512 of at least 512 per layer"
                )
        elif not 1 <= nhashes <= MAX_HASHES:
            raise _fail(f"number of hashes k = {nhashes} is out of range (1 to {MAX_HASHES})")
        if ncells < 1:
            raise _fail("number of bits m must be at least 1")
        most = MAX_COUNTERS if layout == COUNTING4 else MAX_BITS
        if ncells > most:
            kind = "counters" if layout == COUNTING4 else "bits"
            raise _fail(f"number of {kind} m = {ncells} exceeds the maximum of {most} (1 GB)")
        if layout == BLOCKED512 and ncells % BLOCK_BITS != 0:
            raise _fail(
                f"number of bits m = {ncells} of a blocked512 filter is not a multiple of 512"
            )
    if elemlen > MAX_ELEM_LEN:
        raise _fail(f"element key is longer than {MAX_ELEM_LEN} bytes")


def _check_flags(layout: int, flags: int) -> None:
    """bf_flags_check."""
    if flags & ~KNOWN_FLAGS:
        raise _fail(f"unknown flags 0x{flags:02x} (this build knows 0x01, 0x02)")
    if flags & FLAG_DERIVED and layout not in (CLASSIC, BLOCKED512):
        raise _fail(f"{LAYOUT_NAMES[layout]} filters cannot be derived")
    if flags & FLAG_TARGET and (flags & FLAG_DERIVED or layout not in (EXPLICIT, CLASSIC)):
        raise _fail("only an explicit or classic filter that is not derived has a target")


def payload_size(layout: int, nhashes: int, ncells: int, flags: int, elemlen: int) -> int:
    total = (
        HEADER_SIZE
        + _extension_bytes(flags)
        + elemlen
        + (nhashes * LAYER_SIZE if layout == LAYERED else 0)
        + data_bytes(layout, ncells)
    )
    if total > MAX_PAYLOAD:
        raise _fail(f"filter of {total} bytes exceeds the 1 GB limit")
    return total


_BITS_SET = bytes(bin(b).count("1") for b in range(256))


def popcount(data) -> int:
    """Bits set in data (bytes-like)."""
    if not data:
        return 0
    n = int.from_bytes(data, "little")
    try:
        return n.bit_count()  # Python 3.10+
    except AttributeError:  # pragma: no cover - Python 3.9
        return sum(bytes(data).translate(_BITS_SET))


def _count_counters(data: memoryview) -> int:
    """Counters that are not zero (counting4)."""
    set_ = 0
    for byte in bytes(data).translate(_NIBBLES_SET):
        set_ += byte
    return set_


# for each byte, how many of its two nibbles are non-zero
_NIBBLES_SET = bytes(((b & 0x0F) != 0) + ((b >> 4) != 0) for b in range(256))


def parse_binary(buf: bytes) -> Parsed:
    """bf_check_header, then the layout's data check (bf_check_data)."""
    view = memoryview(buf)
    length = len(view)
    if length < HEADER_SIZE:
        raise _fail(
            f"value is truncated: {length} bytes, the header alone needs {HEADER_SIZE}"
        )
    if bytes(view[0:4]) != MAGIC:
        raise _fail("bad magic number: not a bloom value")
    version, layout, scheme, flags, nhashes, elemlen, seed, ncells, nadded = struct.unpack_from(
        "<BBBBHHQQQ", view, 4
    )
    if version != VERSION:
        raise _fail(f"unknown format version {version} (this build reads version {VERSION})")
    if flags & ~KNOWN_FLAGS:
        _check_flags(layout, flags)
    if nadded > INT64_MAX:
        raise _fail("number of values added is out of range")
    _check_params(layout, scheme, nhashes, ncells, elemlen)
    _check_flags(layout, flags)
    expected = payload_size(layout, nhashes, ncells, flags, elemlen)
    if length != expected:
        raise _fail(
            f"value has {length} bytes, but its header (m = {ncells}, element key of "
            f"{elemlen} bytes) implies {expected}"
        )
    bound = est = target = 0
    if flags & FLAG_DERIVED:
        bound, est = struct.unpack_from("<QQ", view, HEADER_SIZE)
    if flags & FLAG_TARGET:
        (target,) = struct.unpack_from("<I", view, HEADER_SIZE)
        if not 1 <= target < TARGET_SCALE:
            raise _fail(
                f"target rate of {target} parts per billion is out of range (1 to 999999999)"
            )
    if bound > ncells:
        raise _fail(f"bound {bound} exceeds m = {ncells}")
    if est > INT64_MAX:
        raise _fail("estimated distinct count is out of range")
    elem_at = HEADER_SIZE + _extension_bytes(flags)
    elem_raw = bytes(view[elem_at : elem_at + elemlen])
    elem = _elem_text(elem_raw)
    after = elem_at + elemlen
    layers: List[Layer] = []
    if layout == LAYERED:
        total = 0
        offset = 0
        for i in range(nhashes):
            m, k = struct.unpack_from("<QH", view, after + i * LAYER_SIZE)
            if m < BLOCK_BITS or m % BLOCK_BITS != 0 or m > ncells:
                raise _fail(
                    f"layer {i} has m = {m} bits, not a multiple of 512 within the filter's"
                )
            if not 1 <= k <= MAX_HASHES:
                raise _fail(f"layer {i} has k = {k}, out of range (1 to {MAX_HASHES})")
            layers.append(Layer(m, k, offset))
            offset += m // 8
            total += m
        if total != ncells:
            raise _fail(f"the layers' bits sum to {total}, not to m = {ncells}")
        after += nhashes * LAYER_SIZE
    data = view[after:]
    parsed = Parsed(
        layout, scheme, flags, nhashes, seed, ncells, nadded, bound, est, target, elem,
        tuple(layers), data, length, elem_raw,
    )
    _check_data(parsed)
    return parsed


def _check_data(p: Parsed) -> None:
    """bf_check_data: what the header cannot say of the data."""
    empty_elem = len(p.elem) == 0
    if p.layout == EXPLICIT:
        if p.nadded < p.ncells:
            raise _fail(f"{p.ncells} hashes are held, more than the {p.nadded} values added")
        _check_elem_and_added(p, empty_elem)
        if p.ncells > 1:
            hashes = struct.unpack_from(f"<{p.ncells}Q", p.data)
            for i in range(1, p.ncells):
                if hashes[i - 1] >= hashes[i]:
                    raise _fail(f"hashes are not in strictly increasing order (at hash {i})")
        return
    if p.layout == COUNTING4:
        if p.ncells % 2 != 0 and (p.data[-1] >> 4) != 0:
            raise _fail(f"counters beyond m = {p.ncells} are set")
        if empty_elem and (p.nadded != 0 or _count_counters(p.data) != 0):
            raise _fail("values were added but the element key is empty")
        return
    occupied = popcount(p.data)
    if p.layout == LAYERED:
        most = max(layer.nhashes for layer in p.layers)
    else:
        most = p.nhashes
        if p.ncells % 8 != 0 and (p.data[-1] >> (p.ncells % 8)) != 0:
            raise _fail(f"bits beyond m = {p.ncells} are set")
    _check_elem_and_added(p, empty_elem)
    if p.layout == LAYERED:
        if occupied > p.nadded * most:
            raise _fail(
                f"{occupied} bits are set, more than the largest k of a layer ({most}) times "
                f"the {p.nadded} values added"
            )
        return
    if occupied > p.nadded * p.nhashes:
        raise _fail(
            f"{occupied} bits are set, more than k = {p.nhashes} times the {p.nadded} "
            "values added"
        )
    if p.flags & FLAG_DERIVED and occupied > p.bound:
        raise _fail(f"{occupied} bits are set, more than the bound {p.bound}")


def _check_elem_and_added(p: Parsed, empty_elem: bool) -> None:
    if p.nadded == 0 and not empty_elem:
        raise _fail("element key is set but no values were added")
    if p.nadded != 0 and empty_elem:
        raise _fail("values were added but the element key is empty")


# ---- the text form (core/bf_text.c) ----

_PLAIN = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@$-"
)
_B64 = {c: i for i, c in enumerate(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}
_HEX = {c: i for i, c in enumerate(b"0123456789ABCDEF")}
_LAYOUT_WORDS = (
    (b"classic ", CLASSIC),
    (b"counting4 ", COUNTING4),
    (b"blocked512 ", BLOCKED512),
    (b"explicit ", EXPLICIT),
    (b"layered ", LAYERED),
)


class _Cursor:
    __slots__ = ("s", "p")

    def __init__(self, s: bytes):
        self.s = s
        self.p = 0

    def take(self, lit: bytes) -> bool:
        if self.s.startswith(lit, self.p):
            self.p += len(lit)
            return True
        return False

    def peek(self, lit: bytes) -> bool:
        return self.s.startswith(lit, self.p)

    def number(self, name: str) -> int:
        if not self.take(name.encode() + b"="):
            raise _fail(f'expected "{name}="')
        start = self.p
        while self.p < len(self.s) and 0x30 <= self.s[self.p] <= 0x39:
            self.p += 1
        digits = self.s[start : self.p]
        if not digits:
            raise _fail(f"{name} must be an unsigned decimal number")
        # (a long run of digits is out of range before it is converted: Python
        # limits the digits int() reads)
        significant = digits.lstrip(b"0") or b"0"
        if len(significant) > 20 or int(significant) > UINT64_MAX:
            raise _fail(f"value of {name} is out of range")
        if digits[0] == 0x30 and len(digits) > 1:
            raise _fail(f"{name} has leading zeros")
        if not self.take(b" "):
            raise _fail(f"expected a single space after {name}")
        return int(significant)


def _take_target(c: _Cursor) -> int:
    if not c.take(b"target=0."):
        raise _fail('expected "target=0." and the rate\'s digits')
    start = c.p
    while c.p < len(c.s) and 0x30 <= c.s[c.p] <= 0x39:
        if c.p - start >= 9:
            raise _fail("target has more than 9 digits after the point (parts per billion)")
        c.p += 1
    digits = c.s[start : c.p]
    if not digits or digits[-1] == 0x30:
        raise _fail("target must be a decimal fraction without trailing zeros, as 0.01")
    if not c.take(b" "):
        raise _fail("expected a single space after target")
    return int(digits) * 10 ** (9 - len(digits))


def _take_elem(c: _Cursor) -> bytes:
    if not c.take(b"elem="):
        raise _fail('expected "elem="')
    out = bytearray()
    s = c.s
    while c.p < len(s) and s[c.p] != 0x20:
        if len(out) >= MAX_ELEM_LEN:
            raise _fail(f"element key is longer than {MAX_ELEM_LEN} bytes")
        ch = s[c.p]
        if ch == 0x25:  # '%'
            hi = _HEX.get(s[c.p + 1]) if c.p + 1 < len(s) else None
            lo = _HEX.get(s[c.p + 2]) if c.p + 2 < len(s) else None
            if hi is None or lo is None:
                raise _fail("bad percent escape in element key (use %XX, upper-case hex)")
            ch = hi * 16 + lo
            if ch in _PLAIN or ch < 0x20 or ch == 0x7F:
                raise _fail(
                    "element key escapes a byte that must not be escaped, or a control character"
                )
            c.p += 3
        elif ch in _PLAIN:
            c.p += 1
        else:
            shown = f"'{chr(ch)}'" if 0x21 <= ch < 0x7F else f"byte \\x{ch:02X}"
            raise _fail(f"element key holds an unescaped {shown}")
        out.append(ch)
    if not c.take(b" "):
        raise _fail("expected a space after the element key")
    return bytes(out)


def _take_layers(c: _Cursor, nlayers: int, ncells: int) -> List[Tuple[int, int]]:
    if not 1 <= nlayers <= MAX_LAYERS:
        raise _fail(
            f"number of layers k = {nlayers} of a layered filter is out of range (1 to {MAX_LAYERS})"
        )
    if not c.take(b"layers="):
        raise _fail('expected "layers=" after the element key')
    out = []
    total = 0
    for i in range(nlayers):
        parts = []
        for part in (0, 1):
            start = c.p
            while c.p < len(c.s) and 0x30 <= c.s[c.p] <= 0x39:
                c.p += 1
            digits = c.s[start : c.p]
            name = "m" if part == 0 else "k"
            if not digits or (digits[0] == 0x30 and len(digits) > 1):
                raise _fail(
                    f"layer {i}'s {name} must be an unsigned decimal without leading zeros"
                )
            significant = digits.lstrip(b"0") or b"0"
            if len(significant) > 20 or int(significant) > UINT64_MAX:
                raise _fail(f"a layer's {name} is out of range")
            parts.append(int(significant))
            if part == 0 and not c.take(b":"):
                raise _fail('expected ":" between a layer\'s m and k')
        m, k = parts
        if m < BLOCK_BITS or m % BLOCK_BITS != 0 or m > ncells or m > MAX_BITS:
            raise _fail(f"layer {i} has m = {m} bits, not a multiple of 512 within the filter's")
        if not 1 <= k <= MAX_HASHES:
            raise _fail(f"layer {i} has k = {k}, out of range (1 to {MAX_HASHES})")
        out.append((m, k))
        total += m
        if i + 1 < nlayers and not c.take(b","):
            raise _fail(f'expected {nlayers} layers, separated by ","')
    if total != ncells:
        raise _fail(f"the layers' bits sum to {total}, not to m = {ncells}")
    if not c.take(b" "):
        raise _fail("expected a space after the layers")
    return out


def _take_data(c: _Cursor, label: str, nbytes: int) -> bytes:
    if not c.take(label.encode()):
        raise _fail(f'expected "{label}"')
    name = label[:-1]
    rest_text = c.s[c.p :]
    need = (nbytes + 2) // 3 * 4
    if len(rest_text) != need:
        raise _fail(
            f"{name} has {len(rest_text)} base64 characters, m requires exactly {need}"
        )
    full, rest = divmod(nbytes, 3)
    body = rest_text[: full * 4]
    if any(ch not in _B64 for ch in body):
        raise _fail(f"{name} holds a character that is not base64")
    out = bytearray(_b64decode(body))
    if rest:
        q = rest_text[full * 4 :]
        a, b = _B64.get(q[0], -1), _B64.get(q[1], -1)
        d = _B64.get(q[2], -1) if rest == 2 else 0
        if a < 0 or b < 0 or (rest == 2 and q[2] != 0x3D and d < 0) or (
            q[3] != 0x3D and _B64.get(q[3], -1) < 0
        ):
            raise _fail(f"{name} holds a character that is not base64")
        if (rest == 1 and q[2] != 0x3D) or d < 0 or q[3] != 0x3D:
            raise _fail(f"{name} has wrong base64 padding for {nbytes} bytes of data")
        v = (a << 18) | (b << 12) | (d << 6)
        if (rest == 1 and v & 0xFFFF) or (rest == 2 and v & 0xFF):
            raise _fail(f"{name} has non-zero base64 padding bits")
        out.append((v >> 16) & 0xFF)
        if rest == 2:
            out.append((v >> 8) & 0xFF)
    return bytes(out)


def _b64decode(body: bytes) -> bytes:
    import binascii

    return binascii.a2b_base64(body) if body else b""


def text_to_binary(text: str) -> bytes:
    """bf_text_parse: the canonical text form to the binary form (then parse_binary)."""
    try:
        s = text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise _fail("a bloom value's text is not UTF-8") from e
    c = _Cursor(s)
    if not c.take(b"v"):
        raise _fail('a bloom value starts with "v1 "')
    if not c.take(b"1 "):
        raise _fail('unknown format version (this build reads "v1")')
    for word, layout in _LAYOUT_WORDS:
        if c.take(word):
            break
    else:
        raise _fail(
            'unknown layout (this build reads "classic", "counting4", "blocked512", '
            '"explicit" and "layered")'
        )
    ncells = c.number("m")
    nhashes = c.number("k")
    scheme = c.number("scheme")
    seed = c.number("seed")
    nadded = c.number("n")
    flags = 0
    bound = est = target = 0
    if c.peek(b"bound="):
        bound = c.number("bound")
        est = c.number("est")
        flags = FLAG_DERIVED
    if c.peek(b"target="):
        target = _take_target(c)
        flags |= FLAG_TARGET
    elem = _take_elem(c)
    layers = _take_layers(c, nhashes, ncells) if layout == LAYERED else []
    if nadded > INT64_MAX:
        raise _fail(f"number of values added n = {nadded} is out of range (0 to {INT64_MAX})")
    if nhashes > MAX_HASHES:
        raise _fail(f"number of hashes k = {nhashes} is out of range (1 to {MAX_HASHES})")
    scheme = 0 if scheme > 255 else scheme
    _check_params(layout, scheme, nhashes, ncells, len(elem))
    _check_flags(layout, flags)
    if bound > ncells:
        raise _fail(f"bound {bound} exceeds m = {ncells}")
    if est > INT64_MAX:
        raise _fail("estimated distinct count is out of range")
    payload_size(layout, nhashes, ncells, flags, len(elem))
    label = {COUNTING4: "counters=", EXPLICIT: "hashes="}.get(layout, "bits=")
    data = _take_data(c, label, data_bytes(layout, ncells))
    return build_binary(
        layout, scheme, flags, nhashes, seed, ncells, nadded, bound, est, target, elem, layers, data
    )


def build_binary(layout: int, scheme: int, flags: int, nhashes: int, seed: int, ncells: int,
                 nadded: int, bound: int, est: int, target: int, elem: bytes,
                 layers: List[Tuple[int, int]], data) -> bytes:
    """The binary form of a value of these fields (bf_init_header's bytes, then
    the data): the caller checked them.  layers: a layered filter's (m, k)s."""
    header = MAGIC + struct.pack(
        "<BBBBHHQQQ", VERSION, layout, scheme, flags, nhashes, len(elem), seed, ncells, nadded
    )
    ext = b""
    if flags & FLAG_DERIVED:
        ext = struct.pack("<QQ", bound, est)
    elif flags & FLAG_TARGET:
        ext = struct.pack("<I", target)
    layer_bytes = b"".join(struct.pack("<QH", m, k) for m, k in layers)
    return b"".join((header, ext, elem, layer_bytes, data))


def layout_name(layout: int) -> str:
    return LAYOUT_NAMES.get(layout, "unknown")


def optional_target(p: Parsed) -> Optional[float]:
    return p.target_ppb / TARGET_SCALE if p.flags & FLAG_TARGET else None
