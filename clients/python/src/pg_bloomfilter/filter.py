"""BloomFilter: a bloom value read, probed and written locally, bit for bit as the server does.

A filter is read from the server's binary or text form (from_bytes,
from_text) or created empty, sized as bloom_agg(v, n, fpp, layout) sizes
one (create); values are added as bloom_add adds them and filters combined
as the server's | combines them, so that to_bytes() and str() give the
bytes and the text the server would hold.  Positions follow hash scheme 1
(_probe.py one hash at a time, _lanes.py many); values are hashed as
PostgreSQL hashes them (_values.py, _pghash.py).
"""

from __future__ import annotations

import builtins
import dataclasses
import operator
import struct
from dataclasses import dataclass
from itertools import islice
from typing import Iterable, List, Optional, Union

from . import _estimates as estimates
from . import _format as fmt
from . import _lanes
from . import _sizing
from . import _text_out
from . import _types
from . import _write
from ._probe import prober
from ._values import default_family, hasher
from .errors import BloomFilterError

_BATCH = 4096  # contains_many's and add_many's values at a time: lanes ints of 64 KB and less

_LAYOUTS = {"classic": fmt.CLASSIC, "blocked": fmt.BLOCKED512, "blocked512": fmt.BLOCKED512}


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
    """A bloom (or counting_bloom) value: probed, added to and combined as the server does.

    A filter made by create() holds values of one SQL type, which converts
    each value added or probed as PostgreSQL would (sql_type).  Filters are
    mutable (add, add_many); a copy (copy.copy, copy.deepcopy) is
    independent; a filter pickles as its binary form (and its type).  Two
    filters are == when their binary forms and types are equal (the server's
    = compares the bits alone); a filter is not hashable.
    """

    __slots__ = ("_p", "_data", "_seed", "_probe", "_fn_cache", "_type")

    def __init__(self, parsed: fmt.Parsed, sql_type: Optional[_types.SqlType] = None,
                 data: Optional[bytearray] = None):
        """A filter of the checked value parsed (fmt.parse_binary), holding
        values of sql_type if given, its cells data (a bytearray it takes as
        its own) or else a copy of parsed.data; use from_bytes, from_text or
        create."""
        self._data = data if data is not None else bytearray(parsed.data)
        self._p = dataclasses.replace(parsed, data=memoryview(self._data))
        self._seed = parsed.seed
        self._probe = prober(self._p, self._data)  # reads self._data as adds change it
        self._fn_cache = {}
        self._type = sql_type
        if sql_type is not None and parsed.elem not in ("", sql_type.family):
            raise BloomFilterError(
                f'a filter of "{parsed.elem}" values cannot hold values of type {sql_type.name} '
                f"({sql_type.family})"
            )

    # ---- loading and creating ----

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview], type: Optional[str] = None) -> "BloomFilter":
        """The binary form: bloom_send's bytes, or a bytea as psycopg returns it.

        The form names the values' family, not their SQL type: type (as
        create's) makes the filter convert values to it again, as a created
        filter does (float4 rounds a float, int2 and int4 refuse adds out of
        range); it must be of the filter's family."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise BloomFilterError(
                f"from_bytes takes bytes, not {data.__class__.__name__} (use from_text for the text form)"
            )
        return cls(fmt.parse_binary(bytes(data)), None if type is None else _types.sql_type(type))

    @classmethod
    def from_text(cls, text: str, type: Optional[str] = None) -> "BloomFilter":
        """The text form: what SELECT f returns ("v1 classic m=... bits=..."); type as from_bytes's."""
        if not isinstance(text, str):
            raise BloomFilterError(
                f"from_text takes a str, not {text.__class__.__name__} (use from_bytes for the binary form)"
            )
        return cls(fmt.parse_binary(fmt.text_to_binary(text)), None if type is None else _types.sql_type(type))

    @classmethod
    def create(
        cls, type: str, expected_items: int, false_positive_rate: float = 0.01, layout: str = "classic"
    ) -> "BloomFilter":
        """An empty filter for values of SQL type type (int2, int4, int8, text,
        varchar, bytea, uuid, numeric, float4, float8, date, timestamp,
        timestamptz, bool, or an alias such as bigint), sized as
        bloom_agg(v, expected_items, false_positive_rate, layout) sizes it
        (bf_size_for_layout: seed 0, hash scheme 1); layout "classic", or
        "blocked" ("blocked512").  Raises BloomFilterError for a bad
        parameter, or a filter past the server's 1 GB maximum."""
        sql = _types.sql_type(type)
        if isinstance(expected_items, bool):
            raise BloomFilterError("expected_items must be an int, not bool")
        try:
            n = operator.index(expected_items)
        except TypeError:
            raise BloomFilterError(
                f"expected_items must be an int, not {builtins.type(expected_items).__name__}"
            ) from None
        if n < 1:
            raise BloomFilterError("expected number of values must be at least 1")
        if n > fmt.INT64_MAX:
            raise BloomFilterError(f"expected_items {n} is out of range for bigint")
        fpp = false_positive_rate
        if isinstance(fpp, bool) or not isinstance(fpp, (int, float)):
            raise BloomFilterError(
                f"false_positive_rate must be a float, not {builtins.type(fpp).__name__}"
            )
        code = _LAYOUTS.get(layout) if isinstance(layout, str) else None
        if code is None:
            raise BloomFilterError(
                f'unknown bloom filter layout "{layout}" (the layouts are "classic" and "blocked" '
                '("blocked512"))'
            )
        m, k = _sizing.bf_size_for_layout(code, float(n), float(fpp))
        # (the sizing keeps m and k in their ranges: the header needs no check)
        parsed = fmt.Parsed(
            layout=code, scheme=fmt.SCHEME_DOUBLE_HASHING, flags=0, nhashes=k, seed=0, ncells=m,
            nadded=0, bound=0, est_distinct=0, target_ppb=0, elem="", layers=(), data=memoryview(b""),
            size=fmt.payload_size(code, k, m, 0, 0), elem_bytes=b"",
        )
        return cls(parsed, sql, bytearray(fmt.data_bytes(code, m)))

    @classmethod
    def _restore(cls, binary: bytes, type_name: str) -> "BloomFilter":
        """A created filter from its pickle: its binary form and its type's name."""
        return cls(fmt.parse_binary(binary), _types.sql_type(type_name))

    @property
    def sql_type(self) -> Optional[str]:
        """The SQL type the filter holds values of (create's, as "int8"); None
        for a filter read from the server, which takes values as its element key does."""
        return self._type.name if self._type is not None else None

    # ---- probing ----

    def contains(self, value) -> bool:
        """Whether the filter may hold value; False is certain.  None is never held (SQL's
        NULL: bloom_contains is strict)."""
        if value is None:
            return False
        fn = self._fn_cache.get(type(value)) or self._hasher_of(value)
        if fn is None:
            return False  # an empty filter
        try:
            h = fn(value, self._seed)
        except _types.OutOfRange:
            return False  # a value the filter's type cannot hold was never added
        return self._probe(h)

    def contains_many(self, values: Iterable) -> List[bool]:
        """contains(v) for each v of values (a list or any other iterable, but not one str,
        bytes, bytearray or memoryview value alone), in order: the same answers, computed
        _BATCH values at a time in lanes of Python ints (_lanes.py), several times faster
        than a call per value."""
        out: List[bool] = []
        for batch in _batches(values, "contains_many"):
            out += self._answer_batch(batch)
        return out

    def _answer_batch(self, batch: list) -> List[bool]:
        p = self._p
        if not p.elem or p.layout == fmt.EXPLICIT:
            # an empty filter answers False to any value it can hold (and refuses the
            # others); an explicit one, a sorted list of hashes, is searched
            return [self.contains(v) for v in batch]
        try:
            return self._probe_batch(batch)
        except _types.OutOfRange:
            return self._probe_batch(self._out_of_range_as_none(batch))

    def _probe_batch(self, batch: list) -> List[bool]:
        """contains's answers for a batch, hashed and probed in lanes; raises
        what hashing a value raises (_types.OutOfRange for a value the filter's
        type cannot hold)."""
        n = len(batch)
        types = set(map(type, batch))
        never = type(None) in types
        if never:
            types.discard(type(None))
        held = _lanes.probe_lanes(self._p, self._data, self._hashes(batch, types, never), n)
        if never:
            # None is never held (SQL's NULL): it was hashed as a stand-in
            return [v is not None and bool(b) for v, b in zip(batch, held)]
        return list(map(bool, held))

    def _out_of_range_as_none(self, batch: list) -> list:
        """batch, where a value the filter's type cannot hold (an int out of
        int2's or int4's range, a float that overflows a float4) is None: never
        added, so never held.  Only after a batch raised OutOfRange, so the
        filter has a type."""
        convert = self._type.convert
        out = []
        for v in batch:
            try:
                if v is not None:
                    convert(v)
                out.append(v)
            except _types.OutOfRange:
                out.append(None)
            except BloomFilterError:
                out.append(v)  # another refusal: hashing the value says why
        return out

    def _hashes(self, batch: list, types: set, never: bool) -> bytes:
        """Each value's 64-bit hash, as contains computes it, in 64-bit lanes (little-endian
        bytes); None's is any.  A batch of one type its filter's family hashes in lanes
        (_lanes.LANE_HASHERS: ints, strs, bytes, floats, dates, UUIDs, datetimes) is hashed
        so, after the filter's type converted it; any other, or one the lanes cannot take
        (an int out of int8's or the type's range, a str with a lone surrogate or NUL),
        value by value, where a value the filter does not take raises contains's error."""
        seed = self._seed
        if len(types) == 1:
            lanes = _lanes.LANE_HASHERS.get((self._family(), next(iter(types))))
            if lanes is not None:
                stand_in, hash_lanes = lanes
                values = [stand_in if v is None else v for v in batch] if never else batch
                try:
                    values = _types.convert_batch(self._type, values)
                except BloomFilterError:
                    values = None  # the value-by-value path says which value is refused
                hashes = hash_lanes(values, seed) if values is not None else None
                if hashes is not None:
                    return hashes
        cache = self._fn_cache
        hashes = [
            0 if v is None else (cache.get(type(v)) or self._hasher_of(v))(v, seed) for v in batch
        ]
        return struct.pack(f"<{len(batch)}Q", *hashes)

    def _family(self) -> str:
        """The family values are hashed by: the element key, or before the first
        add a created filter's type's ("" for a read filter that holds nothing)."""
        return self._p.elem or (self._type.family if self._type is not None else "")

    def _family_bytes(self) -> bytes:
        """_family() as the element key's bytes (the server compares those)."""
        return self._p.elem_bytes or self._family().encode("utf-8")

    def _hasher_of(self, value):
        """The function hashing value's type (after the filter's type converted
        the value), cached by type; None for an empty filter read from the server
        (whose answer is always False).  Raises BloomFilterError for a type the
        filter's family does not hash."""
        fn = hasher(self._family(), value)
        if fn is not None:
            if self._type is not None:
                fn = _types.converted_hasher(self._type, fn)
            self._fn_cache[type(value)] = fn
        return fn

    __contains__ = contains

    def contains_hash(self, h: int) -> bool:
        """Whether the filter may hold the value whose 64-bit hash (with the filter's seed) is h."""
        return self._probe(h)

    # ---- adding ----

    def add(self, value) -> None:
        """Add value, as bloom_add(f, value) does: its cells set (counting4: its
        counters incremented, each stopping at 15), n + 1 even for a value
        already held.  None is ignored (aggregates skip NULLs).  The first value
        added to a filter read without an element key gives it the family of
        the value's default type (int: integer_ops, str: text_ops, ...).  Raises
        BloomFilterError for a value of another family, or an explicit or
        layered filter."""
        if value is None:
            return
        self._check_writable()
        if self._family():
            fn = self._fn_cache.get(type(value)) or self._hasher_of(value)
            self._add_hashed(fn(value, self._seed), 1, None)
        else:
            family = default_family(value)
            self._add_hashed(hasher(family, value)(value, self._seed), 1, family)

    def add_many(self, values: Iterable) -> None:
        """add(v) for each v of values (a list or any other iterable, but not one
        str, bytes, bytearray or memoryview value alone), hashed _BATCH at a time
        in lanes (as contains_many) and their bits set together: the same filter.
        A value refused raises add's error, the values before it added."""
        batches = _batches(values, "add_many")
        self._check_writable()
        for batch in batches:
            batch = [v for v in batch if v is not None]
            if batch and not self._family():
                self.add(batch[0])  # the first value gives the filter its family
                batch = batch[1:]
            p = self._p
            if len(batch) < 8 or p.layout == fmt.COUNTING4 or p.flags & fmt.FLAG_DERIVED:
                # counters, and a derived filter's bound and estimate, follow each value
                for v in batch:
                    self.add(v)
                continue
            try:
                hashes = self._hashes(batch, set(map(type, batch)), False)
            except BloomFilterError:
                for v in batch:
                    self.add(v)  # raises at the value refused, the values before it added
                raise  # pragma: no cover - add refused what _hashes refused
            self._add_hashed(None, len(batch), None, hashes)

    def add_hash(self, h: int) -> None:
        """Add the value whose 64-bit hash (with the filter's seed) is h, as add
        would (contains_hash's counterpart): for a value this library cannot
        hold, such as a date before year 1.  The filter must have an element
        key, or a type (create)."""
        if not isinstance(h, int) or isinstance(h, bool) or not 0 <= h <= fmt.UINT64_MAX:
            raise BloomFilterError("a hash is an int from 0 to 2^64 - 1")
        self._check_writable()
        if not self._family():
            raise BloomFilterError(
                "the filter has no element key yet: add a value first, or create() it with a type"
            )
        self._add_hashed(h, 1, None)

    def _check_writable(self) -> None:
        layout = self._p.layout
        if layout == fmt.EXPLICIT:
            raise BloomFilterError(
                "add to an explicit filter on the server (bloom_add): this library adds to "
                "classic, blocked512 and counting4 filters"
            )
        if layout == fmt.LAYERED:
            raise BloomFilterError(
                "a layered filter is a bloomfilter index's filter, which the index keeps: add "
                "values to the index's table, not to its filter"
            )

    def _add_hashed(self, h: Optional[int], count: int, family: Optional[str],
                    hashes: Optional[bytes] = None) -> None:
        """Add one value of hash h, or count values of hashes (64-bit lanes;
        then the filter is not derived), as bloom_add_datum does: a filter
        without an element key takes family's (else its type's) and starts
        anew (a derived one's bound and estimate at 0); the cells set; n +
        count, saturating at 2^63 - 1."""
        p = self._p  # this filter's own (__init__ made it): changed in place
        if not p.elem:
            family = family or self._type.family
            p.elem, p.elem_bytes = family, family.encode("utf-8")
            p.bound = p.est_distinct = 0
            p.size = fmt.payload_size(p.layout, p.nhashes, p.ncells, p.flags, len(p.elem_bytes))
            self._fn_cache.clear()
        if hashes is not None:
            _write.set_hashes(p, self._data, hashes, count)
        else:
            changed = _write.set_hash(p, self._data, h)
            if p.flags & fmt.FLAG_DERIVED:
                p.bound, p.est_distinct = _write.derived_after_add(p, changed)
        p.nadded = _write.add_counts(p.nadded, count)

    # ---- writing ----

    def to_bytes(self) -> bytes:
        """The binary form, as bloom_send gives it (and from_bytes reads it):
        the query parameter a driver sends as bytea, read as %s::bloom or
        %s::bytea::bloom (a filter itself is no parameter psycopg adapts)."""
        return self._header_bytes() + self._data

    def __bytes__(self) -> bytes:
        """bytes(f): to_bytes()."""
        return self.to_bytes()

    def _header_bytes(self) -> bytes:
        """The binary form up to the cells: header, extension, element key, layers."""
        p = self._p
        return fmt.build_binary(
            p.layout, p.scheme, p.flags, p.nhashes, p.seed, p.ncells, p.nadded, p.bound,
            p.est_distinct, p.target_ppb, p.elem_bytes, [(x.ncells, x.nhashes) for x in p.layers], b"",
        )

    def __str__(self) -> str:
        """The text form, as the server prints the filter (f::text; from_text reads it)."""
        return _text_out.to_text(self._p, self._p.elem_bytes, self._data)

    def union(self, other: "BloomFilter") -> "BloomFilter":
        """A new filter, the union of this one and other as the server's a | b
        makes it (bloom_union): the same layout, m, k, seed and hash scheme,
        and the same element key unless one side holds nothing (whose union
        is a copy of the other); bits ORed or counters added (each stopping
        at 15), n summed; a derived side makes the union derived, its bound
        and estimate as the server computes them.  Raises BloomFilterError
        as the server would, and for an explicit or layered filter."""
        if not isinstance(other, BloomFilter):
            raise BloomFilterError(f"union takes a BloomFilter, not {type(other).__name__}")
        sql = _write.union_type(self._type, other._type)
        pa, pb = self._p, other._p
        _write.check_union(pa, self._family_bytes(), pb, other._family_bytes())
        if not pb.elem:
            return self._from_parts(pa, bytearray(self._data), sql)  # other holds nothing
        if not pa.elem:
            return self._from_parts(pb, bytearray(other._data), sql)  # this one holds nothing
        data = _write.union_data(pa.layout, self._data, other._data)
        nadded = _write.add_counts(pa.nadded, pb.nadded)
        if not (pa.flags | pb.flags) & fmt.FLAG_DERIVED:
            return self._from_parts(_with(pa, nadded=nadded), data, sql)
        bound, est = _write.union_derived(pa, self._data, pb, other._data, data, nadded)
        p = _with(pa, flags=fmt.FLAG_DERIVED, nadded=nadded, bound=bound, est_distinct=est, target_ppb=0)
        return self._from_parts(p, data, sql)

    def __or__(self, other):
        if not isinstance(other, BloomFilter):
            return NotImplemented
        return self.union(other)

    @classmethod
    def _from_parts(cls, p: fmt.Parsed, data: bytearray, sql: Optional[_types.SqlType]) -> "BloomFilter":
        """A new filter of header p and cells data, which it takes as its own."""
        return cls(p, sql, data)

    # ---- describing ----

    @property
    def info(self) -> FilterInfo:
        p, data = self._p, self._data
        occupied = estimates.occupied(p, data)
        layered = p.layout == fmt.LAYERED
        return FilterInfo(
            layout=fmt.layout_name(p.layout),
            nbits=p.ncells,
            nhashes=None if layered else p.nhashes,
            bytes=p.size + 4,
            values_added=p.nadded,
            bits_set=occupied,
            fill_ratio=None if p.layout == fmt.EXPLICIT else occupied / p.ncells,
            estimated_distinct=estimates.estimate_distinct(p, data, occupied),
            estimated_fpp=estimates.current_fpp(p, data, occupied),
            element_family=p.elem or None,
            seed=p.seed if p.seed <= (1 << 63) - 1 else p.seed - (1 << 64),
            hash_scheme=p.scheme,
            target_fpp=fmt.optional_target(p),
        )

    @property
    def element_family(self) -> Optional[str]:
        return self._p.elem or None

    # ---- pickling, copying, comparing ----

    def __reduce__(self):
        """Pickled as its binary form (bloom_send's bytes), and a created filter's type."""
        if self._type is None:
            return (BloomFilter.from_bytes, (self.to_bytes(),))
        return (BloomFilter._restore, (self.to_bytes(), self._type.name))

    def __copy__(self) -> "BloomFilter":
        """An independent copy: adding to one does not change the other."""
        return self._from_parts(self._p, bytearray(self._data), self._type)

    def __deepcopy__(self, memo) -> "BloomFilter":
        return self.__copy__()

    def __eq__(self, other) -> bool:
        """The same binary form (header, element key and cells) and type."""
        if not isinstance(other, BloomFilter):
            return NotImplemented
        return (
            self._type == other._type
            and self._header_bytes() == other._header_bytes()
            and self._data == other._data
        )

    __hash__ = None  # mutable

    def __len__(self) -> int:
        """The values added (bloom_info's values_added)."""
        return self._p.nadded

    def __repr__(self) -> str:
        p = self._p
        typed = f" type={self._type.name}" if self._type is not None else ""
        return (
            f"<BloomFilter {fmt.layout_name(p.layout)} m={p.ncells} k={p.nhashes} n={p.nadded} "
            f"elem={p.elem or None}{typed}>"
        )


def _with(p: fmt.Parsed, **changes) -> fmt.Parsed:
    """A copy of p with changes to its header fields, its payload size
    recomputed if its flags or element key change."""
    if "flags" in changes or "elem_bytes" in changes:
        flags = changes.get("flags", p.flags)
        elem_bytes = changes.get("elem_bytes", p.elem_bytes)
        changes["size"] = fmt.payload_size(p.layout, p.nhashes, p.ncells, flags, len(elem_bytes))
    return dataclasses.replace(p, **changes)


def _batches(values: Iterable, name: str) -> Iterable[list]:
    """values (an iterable, but not one str, bytes, bytearray or memoryview
    alone) in lists of _BATCH.  Raises BloomFilterError at once for another."""
    refused = BloomFilterError(f"{name} takes a list or another iterable of values, not {type(values).__name__}")
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        raise refused  # one value, most likely passed alone
    try:
        iterator = iter(values)
    except TypeError:
        raise refused from None

    def batches():
        while True:
            batch = list(islice(iterator, _BATCH))
            if not batch:
                return
            yield batch

    return batches()
