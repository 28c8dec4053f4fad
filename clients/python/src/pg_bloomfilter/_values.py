"""Python values hashed as PostgreSQL hashes the SQL values they stand for.

A filter's element key names the hash operator family that hashed its
values; a Python value is hashed by the function of that family for the
SQL type it stands for, and refused (BloomFilterError) where the family is
not one that type belongs to, as the server refuses a probe of another
family.  Membership follows SQL equality: 1 (int2, int4, int8) is one key,
Decimal("1.0") and Decimal("1.00") are one key, -0.0 and 0.0 are one key,
every NaN is one key.
"""

from __future__ import annotations

import datetime as _dt
import re
import uuid as _uuid
from decimal import Decimal, InvalidOperation
from typing import Callable, Dict, Optional

from . import _pghash as h
from .errors import BloomFilterError

INTEGER_OPS = "pg_catalog.integer_ops"
NUMERIC_OPS = "pg_catalog.numeric_ops"
FLOAT_OPS = "pg_catalog.float_ops"
TEXT_OPS = "pg_catalog.text_ops"
BYTEA_OPS = "pg_catalog.bytea_ops"
UUID_OPS = "pg_catalog.uuid_ops"
DATE_OPS = "pg_catalog.date_ops"
TIMESTAMP_OPS = "pg_catalog.timestamp_ops"
TIMESTAMPTZ_OPS = "pg_catalog.timestamptz_ops"
BOOL_OPS = "pg_catalog.bool_ops"

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

_PG_EPOCH_DATE = _dt.date(2000, 1, 1)
_PG_EPOCH = _dt.datetime(2000, 1, 1)
_PG_EPOCH_UTC = _dt.datetime(2000, 1, 1, tzinfo=_dt.timezone.utc)


def _int8(v: int, seed: int) -> int:
    if not INT64_MIN <= v <= INT64_MAX:
        raise BloomFilterError(f"{v} is out of range for an integer key (bigint)")
    return h.hash_int8(v, seed)


# numeric_in's syntax: ASCII spaces around (isspace), a sign, digits with a
# point or not, an exponent; or NaN and the infinities, in any case.
# (Decimal() is looser: "1_000", other scripts' digits.)
_NUMERIC_TEXT = re.compile(
    r"[ \t\n\r\v\f]*(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|(?i:nan|[+-]?inf(?:inity)?))[ \t\n\r\v\f]*"
)


# numeric's bounds, as numeric_in keeps them (set_var_from_str, make_result):
# a written exponent under INT_MAX / 2 in size, at most 16383 digits after
# the point (the display scale, trailing zeros counted), and a value other
# than zero under 10^131072 (a weight of at most 32767 base-10000 digits).
# Checked before hashing, which writes out every digit: "1e999999999" would
# otherwise take minutes and gigabytes to be refused by no one.
_NUMERIC_EXPONENT_LIMIT = (2**31 - 1) // 2
_NUMERIC_MAX_SCALE = 16383
_NUMERIC_MAX_LEADING_EXPONENT = 131071
_NUMERIC_WRITTEN_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)")


def _numeric_refusal(d: Decimal, written_exponent: int) -> Optional[str]:
    """Why numeric_in would refuse d (finite), written with written_exponent;
    None when it holds it."""
    if abs(written_exponent) >= _NUMERIC_EXPONENT_LIMIT:
        return "its exponent is too large"
    if -d.as_tuple().exponent > _NUMERIC_MAX_SCALE:
        return f"numeric holds at most {_NUMERIC_MAX_SCALE} digits after the point"
    if d and d.adjusted() > _NUMERIC_MAX_LEADING_EXPONENT:
        return "numeric holds values under 10^131072"
    return None


def _decimal(v, seed: int) -> int:
    written_exponent = None
    if isinstance(v, str):
        if _NUMERIC_TEXT.fullmatch(v) is None:
            raise BloomFilterError(f"{v!r} is not a numeric value")
        m = _NUMERIC_WRITTEN_EXPONENT.search(v)
        written_exponent = int(m.group(1)) if m else 0
        try:
            v = Decimal(v.strip(" \t\n\r\v\f"))
        except InvalidOperation as e:
            raise BloomFilterError(f"{v!r} is not a numeric value") from e
    elif not isinstance(v, Decimal):
        v = Decimal(v)
    if v.is_snan():
        v = Decimal("NaN")
    if v.is_finite():
        # (a Decimal is sent as str(v), whose exponent is its own for zero)
        why = _numeric_refusal(v, v.as_tuple().exponent if written_exponent is None else written_exponent)
        if why is not None:
            raise BloomFilterError(f"{str(v)[:40]!r} is out of range for a numeric key: {why}")
    return h.hash_numeric(v, seed)


def _float(v: float, seed: int) -> int:
    return h.hash_float8(float(v), seed)


def _text(v: str, seed: int) -> int:
    try:
        data = v.encode("utf-8")
    except UnicodeEncodeError as e:
        raise BloomFilterError("text holds a character UTF-8 cannot encode (a lone surrogate)") from e
    if b"\x00" in data:
        raise BloomFilterError("text cannot hold the character NUL (0x00), as in PostgreSQL")
    return h.hash_bytes_extended(data, seed)


def _bytes(v, seed: int) -> int:
    return h.hash_bytes_extended(bytes(v), seed)


# PostgreSQL's uuid input (string_to_uuid in src/backend/utils/adt/uuid.c): 32
# hex digits, a "-" allowed after any group of 4 but the last, all of it in
# braces or none of it; nothing else, not even a space.  (uuid.UUID(str) is
# looser: it takes "urn:uuid:" and braces on one side only.)
_HEX4 = "[0-9A-Fa-f]{4}"
_UUID_DIGITS = f"{_HEX4}(?:-?{_HEX4}){{7}}"
_UUID_TEXT = re.compile(_UUID_DIGITS + "|" + r"\{" + _UUID_DIGITS + r"\}")


def uuid_bytes(text: str) -> bytes:
    """The 16 bytes of a uuid's text as PostgreSQL's uuid_in reads it; raises
    BloomFilterError with uuid_in's message for a text it refuses."""
    if _UUID_TEXT.fullmatch(text) is None:
        raise BloomFilterError(f'invalid input syntax for type uuid: "{text}"')
    return bytes.fromhex(text.strip("{}").replace("-", ""))


def _uuid_value(v, seed: int) -> int:
    data = uuid_bytes(v) if isinstance(v, str) else v.bytes
    return h.hash_bytes_extended(data, seed)


# PostgreSQL's infinite dates and timestamps (DATEVAL_NOBEGIN/NOEND, DT_NOBEGIN/NOEND)
_INFINITE_DATE = {"infinity": 0x7FFFFFFF, "-infinity": -0x80000000}
_INFINITE_TIMESTAMP = {"infinity": INT64_MAX, "-infinity": INT64_MIN}


def _date(v, seed: int) -> int:
    if isinstance(v, str):
        if v in _INFINITE_DATE:
            return h.hash_int4(_INFINITE_DATE[v], seed)
        v = _parse(v, _dt.date.fromisoformat, "date")
    return h.hash_int4((v - _PG_EPOCH_DATE).days, seed)


# more than 6 fractional digits: PostgreSQL rounds them to microseconds, and
# fromisoformat truncates (3.11) or refuses them (3.9, 3.10): refused here,
# as the JavaScript library refuses them
_SUBMICROSECOND = re.compile(r"[.,][0-9]{7,}")


def _parse(text: str, parse, what: str):
    if _SUBMICROSECOND.search(text):
        raise BloomFilterError(f"{text!r} has more than 6 fractional digits: give a {what} in microseconds")
    try:
        return parse(text)
    except ValueError as e:
        raise BloomFilterError(
            f"{text!r} is not a {what} (ISO 8601, or 'infinity' or '-infinity')"
        ) from e


def _microseconds(delta: _dt.timedelta) -> int:
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def _timestamp(v, seed: int) -> int:
    if isinstance(v, str):
        if v in _INFINITE_TIMESTAMP:
            return h.hash_int8(_INFINITE_TIMESTAMP[v], seed)
        v = _parse(v, _dt.datetime.fromisoformat, "timestamp")
    if v.tzinfo is not None:
        raise BloomFilterError(
            "a datetime with a time zone is a timestamptz; this filter holds timestamps without one"
        )
    return h.hash_int8(_microseconds(v - _PG_EPOCH), seed)


def _timestamptz(v, seed: int) -> int:
    if isinstance(v, str):
        if v in _INFINITE_TIMESTAMP:
            return h.hash_int8(_INFINITE_TIMESTAMP[v], seed)
        v = _parse(v, _dt.datetime.fromisoformat, "timestamptz")
    if v.tzinfo is None or v.tzinfo.utcoffset(v) is None:
        raise BloomFilterError(
            "a naive datetime has no time zone; this filter holds timestamptz values "
            "(give the datetime a tzinfo)"
        )
    return h.hash_int8(_microseconds(v - _PG_EPOCH_UTC), seed)


def _bool(v: bool, seed: int) -> int:
    return h.hash_int4(1 if v else 0, seed)


# per family: the Python types it takes, and how each is hashed
_BY_FAMILY: Dict[str, Dict[type, Callable]] = {
    INTEGER_OPS: {int: _int8},
    NUMERIC_OPS: {int: _decimal, Decimal: _decimal, str: _decimal},
    FLOAT_OPS: {float: _float},
    TEXT_OPS: {str: _text},
    BYTEA_OPS: {bytes: _bytes, bytearray: _bytes, memoryview: _bytes},
    UUID_OPS: {_uuid.UUID: _uuid_value, str: _uuid_value},
    DATE_OPS: {_dt.date: _date, str: _date},
    TIMESTAMP_OPS: {_dt.datetime: _timestamp, str: _timestamp},
    TIMESTAMPTZ_OPS: {_dt.datetime: _timestamptz, str: _timestamptz},
    BOOL_OPS: {bool: _bool},
}

# the Python types a filter can hold, and the family each stands for
_DEFAULT_FAMILY = (
    (bool, BOOL_OPS),
    (int, INTEGER_OPS),
    (float, FLOAT_OPS),
    (Decimal, NUMERIC_OPS),
    (str, TEXT_OPS),
    ((bytes, bytearray, memoryview), BYTEA_OPS),
    (_uuid.UUID, UUID_OPS),
    (_dt.datetime, TIMESTAMP_OPS),
    (_dt.date, DATE_OPS),
)


def default_family(value) -> str:
    """The family of value's default SQL type, which the first value added to a
    filter without an element key gives it (as bloom_add does): bool_ops for
    a bool, integer_ops for an int, float_ops, numeric_ops (Decimal),
    text_ops (str), bytea_ops (bytes, bytearray, memoryview), uuid_ops,
    date_ops, timestamp_ops for a naive datetime, timestamptz_ops for one
    with a tzinfo.  Raises BloomFilterError for a type no filter holds."""
    for types, family in _DEFAULT_FAMILY:
        if isinstance(value, types):
            if family == TIMESTAMP_OPS and value.tzinfo is not None:
                return TIMESTAMPTZ_OPS
            return family
    raise BloomFilterError(f"a value of Python type {type(value).__name__} cannot be added to a filter")


def _type_key(value) -> type:
    """The type the tables are keyed on: bool apart from int, datetime apart from date."""
    for t in (bool, _dt.datetime, _dt.date, Decimal, _uuid.UUID, int, float, str, bytes,
              bytearray, memoryview):
        if isinstance(value, t):
            return t
    return type(value)


def hasher(elem: str, value) -> Optional[Callable[[object, int], int]]:
    """The function that hashes value for a filter of element key elem; None
    for an empty filter (elem ""), which holds nothing."""
    if "@" in elem:
        raise BloomFilterError(
            f'the filter\'s values were hashed under a nondeterministic collation ("{elem}"): '
            "by ICU sort keys, which this library does not compute"
        )
    t = _type_key(value)
    family = elem
    if family == "":
        # no value was added (the format sees that every bit and counter is 0):
        # any value a filter can hold answers False
        if not any(isinstance(value, types) for types, _ in _DEFAULT_FAMILY):
            raise BloomFilterError(f"a value of Python type {type(value).__name__} cannot be probed")
        return None
    table = _BY_FAMILY.get(family)
    if table is None:
        raise BloomFilterError(
            f'the filter holds values of operator family "{family}", which this library does '
            "not hash"
        )
    fn = table.get(t)
    if fn is None:
        raise BloomFilterError(
            f"a value of Python type {type(value).__name__} cannot be probed in a filter of "
            f'"{family}" values (the server refuses a value of another type\'s family too)'
        )
    return fn


