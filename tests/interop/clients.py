#!/usr/bin/python3
"""tests/interop/clients.py DIR COUNT [SERVER_MD5S]: the Python library
(pg_bloomfilter.makers) reads each filter the makers wrote in DIR
(tests/interop/run.sh) and answers the first COUNT keys of each set as the
maker answered; with SERVER_MD5S (lines "file md5" of the server's
bloom_send(bloom_import(...))), its to_bloom_bytes() are the server's bytes.
Prints a line per file; exits 1 on any disagreement."""

import datetime as dt
import hashlib
import sys
import uuid

from pg_bloomfilter.makers import GuavaFilter, ParquetFilter, SparkFilter

CASES = [
    ("guava_long.bin", GuavaFilter, "int8", "int"), ("guava_integer.bin", GuavaFilter, "int4", "int"),
    ("guava_utf8.bin", GuavaFilter, "text", "txt"), ("guava_chars.bin", GuavaFilter, "chars", "txt"),
    ("spark_v1_long.bin", SparkFilter, "int8", "int"), ("spark_v1_string.bin", SparkFilter, "text", "txt"),
    ("spark_v1_binary.bin", SparkFilter, "bytea", "txt"), ("spark_v2_long.bin", SparkFilter, "int8", "int"),
    ("spark_v2_string.bin", SparkFilter, "text", "txt"), ("spark_v2_binary.bin", SparkFilter, "bytea", "txt"),
    ("duckdb_BIGINT.sbbf", ParquetFilter, "int8", "int"), ("duckdb_INTEGER.sbbf", ParquetFilter, "int4", "int"),
    ("duckdb_DOUBLE.sbbf", ParquetFilter, "float8", "int"), ("duckdb_VARCHAR.sbbf", ParquetFilter, "text", "txt"),
    ("duckdb_BLOB.sbbf", ParquetFilter, "bytea", "txt"),
    ("duckdb_SMALLINT.sbbf", ParquetFilter, "int4", "SMALLINT"), ("duckdb_DATE.sbbf", ParquetFilter, "date", "DATE"),
    ("duckdb_TIMESTAMP.sbbf", ParquetFilter, "timestamp", "TIMESTAMP"),
    ("duckdb_TIMESTAMPTZ.sbbf", ParquetFilter, "timestamptz", "TIMESTAMPTZ"),
    ("duckdb_FLOAT.sbbf", ParquetFilter, "float4", "FLOAT"), ("duckdb_UUID.sbbf", ParquetFilter, "uuid", "UUID"),
]


def value(kind, line):
    if kind in ("int8", "int4"):
        return int(line)
    if kind in ("float8", "float4"):
        return float(line)
    if kind == "date":
        return dt.date.fromisoformat(line)
    if kind in ("timestamp", "timestamptz"):
        t = dt.datetime.strptime(line[:26], "%Y-%m-%d %H:%M:%S.%f")
        return t if kind == "timestamp" else t.replace(tzinfo=dt.timezone.utc)
    if kind == "uuid":
        return uuid.UUID(line)
    return line.encode() if kind == "bytea" else line


def main():
    d, count = sys.argv[1], int(sys.argv[2])
    server = {}
    if len(sys.argv) > 3:
        with open(sys.argv[3]) as fh:
            server = dict(line.split() for line in fh if line.strip())
    status = 0
    for name, cls, kind, keys in CASES:
        with open("%s/%s" % (d, name), "rb") as fh:
            f = cls.from_bytes(fh.read(), kind)
        agreed = total = 0
        for s in ("in", "out"):
            with open("%s/keys/%s_%s.txt" % (d, keys, s)) as fk, open("%s/%s.%s" % (d, name, s)) as fa:
                for _, key, answer in zip(range(count), fk, fa):
                    total += 1
                    agreed += f.might_contain(value(kind, key.rstrip("\n"))) == (answer.strip() == "1")
        same = ""
        if name in server:
            same = ", bloom value the server's: %s" % (hashlib.md5(f.to_bloom_bytes()).hexdigest() == server[name])
        # (every key: a short file of keys or answers must not shrink the check)
        ok = agreed == total == 2 * count and "False" not in same
        status |= not ok
        print("  %s: %d of %d keys answered as the maker%s%s" % (name, agreed, total, same, "" if ok else " (FAILED)"))
    sys.exit(status)


if __name__ == "__main__":
    main()
