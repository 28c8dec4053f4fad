"""The SQL types a created filter holds, and what they do to a value first.

BloomFilter.create(type, ...) names the SQL type whose values the filter
holds, as the column of bloom_agg(column, ...) would have it: the type
gives the element key (its default hash operator family) and converts a
Python value as PostgreSQL converts a value to that type before hashing
it: smallint and integer refuse integers out of their range, real rounds a
float to single precision (and refuses one that overflows or underflows,
as float8 -> float4 does).  The other types take a value as its family
does (_values.py).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

from . import _values as v
from .errors import BloomFilterError


@dataclass(frozen=True)
class SqlType:
    """A type a created filter holds: its name (PostgreSQL's short one), its
    element key, and the conversion of a value to it (None: none needed)."""

    name: str
    family: str
    convert: Optional[Callable[[object], object]] = None  # one value (any Python value)
    convert_many: Optional[Callable[[list], list]] = None  # a batch of values of one Python type


class OutOfRange(BloomFilterError):
    """A value the type cannot hold: an add refuses it, a probe answers False."""


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _integer_range(name: str, bits: int):
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def convert(value):
        """value if it is no int or an int in range; else BloomFilterError."""
        if _is_int(value) and not low <= value <= high:
            raise OutOfRange(f"{name} out of range: {value}")
        return value

    def convert_many(values: list) -> list:
        if values and _is_int(values[0]) and not (low <= min(values) and max(values) <= high):
            for value in values:
                convert(value)  # raises for the first one out of range
        return values

    return convert, convert_many


def _to_float4(value):
    """A float rounded to single precision, as float8 -> float4 (PostgreSQL's
    dtof) rounds it, refusing a finite value that becomes infinite or a
    non-zero one that becomes zero; any other value as it is."""
    if not isinstance(value, float):
        return value
    try:
        single = struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        raise OutOfRange(f"{value!r} as real: value out of range: overflow") from None
    if single == 0.0 and value != 0.0:
        raise OutOfRange(f"{value!r} as real: value out of range: underflow")
    return single


def _to_float4_many(values: list) -> list:
    """_to_float4 of each value of a batch of floats, in two C calls."""
    if not values or not isinstance(values[0], float):
        return values
    n = len(values)
    try:
        singles = list(struct.unpack(f"<{n}f", struct.pack(f"<{n}f", *values)))
    except OverflowError:
        return [_to_float4(value) for value in values]  # raises for the first that overflows
    if 0.0 in singles and any(v != 0.0 for s, v in zip(singles, values) if s == 0.0):
        return [_to_float4(value) for value in values]  # raises for the first that underflows
    return singles


_INT2 = _integer_range("smallint", 16)
_INT4 = _integer_range("integer", 32)

TYPES: Dict[str, SqlType] = {
    t.name: t
    for t in (
        SqlType("int2", v.INTEGER_OPS, *_INT2),
        SqlType("int4", v.INTEGER_OPS, *_INT4),
        SqlType("int8", v.INTEGER_OPS),
        SqlType("text", v.TEXT_OPS),
        SqlType("varchar", v.TEXT_OPS),
        SqlType("bytea", v.BYTEA_OPS),
        SqlType("uuid", v.UUID_OPS),
        SqlType("numeric", v.NUMERIC_OPS),
        SqlType("float4", v.FLOAT_OPS, _to_float4, _to_float4_many),
        SqlType("float8", v.FLOAT_OPS),
        SqlType("date", v.DATE_OPS),
        SqlType("timestamp", v.TIMESTAMP_OPS),
        SqlType("timestamptz", v.TIMESTAMPTZ_OPS),
        SqlType("bool", v.BOOL_OPS),
    )
}

# PostgreSQL's other names of the same types (format_type's and the SQL standard's)
ALIASES = {
    "smallint": "int2",
    "integer": "int4",
    "int": "int4",
    "bigint": "int8",
    "real": "float4",
    "decimal": "numeric",
    "double precision": "float8",
    "boolean": "bool",
    "character varying": "varchar",
    "timestamp without time zone": "timestamp",
    "timestamp with time zone": "timestamptz",
}


def sql_type(name) -> SqlType:
    """The type a name means: one of TYPES' names or an alias, in any case,
    surrounding spaces ignored.  Raises BloomFilterError for another."""
    if not isinstance(name, str):
        raise BloomFilterError(f"type must be a str naming an SQL type, not {type(name).__name__}")
    key = " ".join(name.split()).lower()
    key = ALIASES.get(key, key)
    found = TYPES.get(key)
    if found is None:
        raise BloomFilterError(
            f'unknown type "{name}" (this library writes filters of {", ".join(TYPES)}, '
            f'and their aliases {", ".join(ALIASES)})'
        )
    return found


def converted_hasher(sql: SqlType, fn: Callable[[object, int], int]) -> Callable[[object, int], int]:
    """fn (a family's hasher) taking each value after sql's conversion."""
    convert = sql.convert
    if convert is None:
        return fn
    return lambda value, seed: fn(convert(value), seed)


def convert_batch(sql: Optional[SqlType], values: List) -> List:
    """A batch of values of one Python type converted to sql's type (as it is
    without a type or a conversion).  Raises BloomFilterError as the first
    value refused would."""
    if sql is None or sql.convert_many is None:
        return values
    return sql.convert_many(values)
