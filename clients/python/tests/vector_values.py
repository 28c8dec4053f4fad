"""The server's test vectors read into Python values (shared by test_vectors.py and test_write.py).

BLOOM_VECTORS names files made by tests/clients/vectors.sql (one JSON object
per type and line, colon-separated for several servers).  A value's text is
PostgreSQL's output (DateStyle ISO, time zone UTC, extra_float_digits 3; a
bytea as hex without the \\x); CONVERT reads it into the Python value that
stands for it, or None where Python cannot hold it (a date before year 1 or
after 9999), whose hash pg_hash_of_text computes from the text itself.
"""

import datetime as dt
import json
import os
import re
import struct
import uuid
from decimal import Decimal

from pg_bloomfilter import _pghash


def _float4(text):
    return struct.unpack("<f", struct.pack("<f", float(text)))[0]


def _timestamp(text):
    if text in ("infinity", "-infinity"):
        return text
    if text.endswith(" BC"):
        return None
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None  # beyond year 9999


def _timestamptz(text):
    if text in ("infinity", "-infinity"):
        return text
    if text.endswith(" BC"):
        return None
    if len(text) > 3 and text[-3] in "+-" and text[-2:].isdigit():
        text += ":00"
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        return None


def _date(text):
    if text in ("infinity", "-infinity"):
        return text
    if text.endswith(" BC"):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


CONVERT = {
    "int2": int,
    "int4": int,
    "int8": int,
    "text": str,
    "varchar": str,
    "bytea": bytes.fromhex,
    "uuid": uuid.UUID,
    "numeric": Decimal,
    "float4": _float4,
    "float8": float,
    "date": _date,
    "timestamp": _timestamp,
    "timestamptz": _timestamptz,
    "bool": lambda t: t == "true",
}


def vector_files():
    names = os.environ.get("BLOOM_VECTORS", "")
    return [n for n in names.split(":") if n]


def vector_cases():
    """Every (file name, case) of the BLOOM_VECTORS files: a case per type."""
    for name in vector_files():
        with open(name, encoding="utf-8") as f:
            for line in f:
                yield name, json.loads(line)


# ---- the hash of a date or timestamp Python cannot hold, from its text ----

_DATETIME_TEXT = re.compile(
    r"(\d+)-(\d\d)-(\d\d)(?: (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?(?:\+00)?( BC)?"
)


def _date2j(y, m, d):
    """PostgreSQL's date2j: the Julian day of a proleptic Gregorian date (year 0 is 1 BC)."""
    if m > 2:
        m += 1
        y += 4800
    else:
        m += 13
        y += 4799
    century = y // 100
    julian = y * 365 - 32167
    julian += y // 4 - century + century // 4
    julian += 7834 * m // 256 + d
    return julian


_EPOCH_J = _date2j(2000, 1, 1)


def pg_hash_of_text(ty, text, seed=0):
    """The server's hash of a date, timestamp or timestamptz (in UTC) given
    by its text, for the values CONVERT cannot hold: days (date_ops) or
    microseconds (timestamp_ops) since 2000-01-01."""
    found = _DATETIME_TEXT.fullmatch(text)
    if ty not in ("date", "timestamp", "timestamptz") or found is None:
        raise ValueError(f"no hash of {ty} {text!r} here")
    year, month, day, hh, mm, ss, frac, bc = found.groups()
    year = int(year)
    if bc:
        year = 1 - year
    days = _date2j(year, int(month), int(day)) - _EPOCH_J
    if ty == "date":
        return _pghash.hash_int4(days, seed)
    seconds = int(hh or 0) * 3600 + int(mm or 0) * 60 + int(ss or 0)
    micros = int((frac or "0").ljust(6, "0"))
    return _pghash.hash_int8(days * 86_400_000_000 + seconds * 1_000_000 + micros, seed)
