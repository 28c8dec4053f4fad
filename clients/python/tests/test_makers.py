"""Other systems' filters (pg_bloomfilter.makers) against the files their makers
wrote (tests/unit/makers/ of the extension: Spark's own classes, Guava; and
apache/parquet-testing's bloom_filter.xxhash.bin, written by parquet-mr): every
key answered as the maker answered, the first n keys put into a filter created
here give the maker's bytes, and a bloom value's bytes round-trip."""

import datetime as dt
import os
import struct
import unittest
import uuid

from pg_bloomfilter import BloomFilterError
from pg_bloomfilter.makers import GuavaFilter, ParquetFilter, SparkFilter, from_bloom_bytes
from pg_bloomfilter._maker_hashes import xxh64

TOP = os.environ.get("BLOOM_TOP", os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MAKERS = os.path.join(TOP, "tests", "unit", "makers")


def read_file(name):
    with open(os.path.join(MAKERS, name)) as f:
        head = f.readline().split()
        keys = [line.split() for line in f if line.strip()]
    return head, keys


def key_value(kind, key):
    if kind in ("int8", "int4"):
        return int(key)
    raw = bytes.fromhex(key[1:])
    if kind == "bytea":
        return raw
    if kind == "chars":
        return raw.decode("utf-16-le", "surrogatepass")
    return raw.decode("utf-8")


CASES = [
    ("spark-v1-long.txt", SparkFilter, "int8", {"version": 1}),
    ("spark-v1-string.txt", SparkFilter, "text", {"version": 1}),
    ("spark-v2-long.txt", SparkFilter, "int8", {}),
    ("spark-v2-string.txt", SparkFilter, "text", {}),
    ("spark-v2-string.txt", SparkFilter, "bytea", {}),
    ("spark-v2seed-long.txt", SparkFilter, "int8", None),
    ("guava-long.txt", GuavaFilter, "int8", {}),
    ("guava-integer.txt", GuavaFilter, "int4", {}),
    ("guava-utf8.txt", GuavaFilter, "text", {}),
    ("guava-chars.txt", GuavaFilter, "chars", {}),
]


class MakersFiles(unittest.TestCase):
    def test_answers_and_bytes(self):
        for name, cls, kind, create in CASES:
            with self.subTest(file=name, type=kind):
                head, keys = read_file(name)
                data = bytes.fromhex(head[4])
                f = cls.from_bytes(data, kind)
                values = [key_value(kind, k) for k, _ in keys]
                self.assertEqual([f.might_contain(v) for v in values], [a == "1" for _, a in keys])
                self.assertEqual(f.to_bytes(), data)
                self.assertIsNone(f.count)
                # a bloom value's bytes, and back
                g = from_bloom_bytes(f.to_bloom_bytes())
                self.assertEqual(g, f)
                self.assertEqual(g.to_bytes(), data)
                if create is None:
                    continue  # (a seed Spark's create does not take)
                n, fpp = int(head[2]), float(head[3])
                mine = cls.create(kind, n, fpp, **create)
                mine.put_all(values[:n])
                self.assertEqual(mine.to_bytes(), data)
                self.assertEqual(mine.count, n)

    def test_parquet_testing_file(self):
        with open(os.path.join(MAKERS, "parquet-testing-bloom_filter.xxhash.bin"), "rb") as fh:
            data = fh.read()
        f = ParquetFilter.from_bytes(data, "text")
        for s in ("hello", "parquet", "bloom", "filter"):
            self.assertTrue(f.might_contain(s))
        for s in ("", "a", "abc", "NOT_EXISTS", "parquet_not_present"):
            self.assertFalse(f.might_contain(s))
        self.assertEqual(f.to_bytes(), data)
        self.assertEqual(f.to_bytes(header=False), data[16:])
        self.assertEqual(ParquetFilter.from_bytes(data[16:], "text"), f)
        mine = ParquetFilter("text", bytearray(1024), 0)
        mine.put_all(["hello", "parquet", "bloom", "filter"])
        self.assertEqual(mine.to_bytes(), data)

    def test_xxh64(self):
        # Debian's libxxhash 0.8: the bytes 0, 1, ... of each length
        for n, h in ((0, 0xEF46DB3751D8E999), (31, 0xC346D2B59B4D8EE1), (32, 0xCBF59C5116FF32B4),
                     (65, 0xC31EB63B2AE4465B), (1000, 0x6EF436B00EBA4078)):
            self.assertEqual(xxh64(bytes(i % 256 for i in range(n))), h)


class ParquetTypes(unittest.TestCase):
    def test_sizing_as_parquet_java(self):
        for n, fpp, nbytes in ((0, 0.01, 32), (100, 0.01, 256), (1000, 0.01, 2048), (1000000, 0.01, 2097152),
                               (26214, 0.0126, 32768)):
            self.assertEqual(ParquetFilter.create("int8", n, fpp).nbits // 8, nbytes)

    def test_every_type_put_and_found(self):
        values = {
            "int4": [1, -7, 2**31 - 1],
            "int8": [1, -(2**63), 2**40],
            "date": [dt.date(2024, 2, 29), dt.date(1969, 12, 31)],
            "timestamp": [dt.datetime(2024, 2, 29, 12, 0, 0, 5)],
            "timestamptz": [dt.datetime(2024, 2, 29, 12, tzinfo=dt.timezone.utc)],
            "float4": [0.5, 1.25],
            "float8": [1 / 3, -0.0],
            "text": ["k1", "é"],
            "bytea": [b"\x00\x01"],
            "uuid": [uuid.UUID("00000000-0000-4000-8000-000000000001")],
        }
        for kind, vs in values.items():
            f = ParquetFilter.create(kind, 100, 0.01)
            f.put_all(vs)
            self.assertTrue(all(f.might_contain(v) for v in vs), kind)
            self.assertEqual(f.count, len(vs))
        # 0 = -0; a bigint past an int's range is in no int4 filter; a double no float equals
        f = ParquetFilter.create("float8", 100, 0.01)
        f.put(-0.0)
        self.assertTrue(f.might_contain(0.0))
        self.assertFalse(ParquetFilter.create("int4", 10, 0.01).might_contain(2**40))
        self.assertFalse(ParquetFilter.create("float4", 10, 0.01).might_contain(0.1))
        self.assertFalse(ParquetFilter.create("float4", 10, 0.01).might_contain(1e300))
        self.assertFalse(ParquetFilter.create("float8", 10, 0.01).might_contain(10**400))
        with self.assertRaises(BloomFilterError):
            ParquetFilter.create("float4", 10, 0.01).put(1e300)
        # every NaN is one
        f = ParquetFilter.create("float8", 100, 0.01)
        f.put(float("nan"))
        self.assertTrue(f.might_contain(struct.unpack("<d", bytes.fromhex("000000000000f8ff"))[0]))
        # date: INT32 days since 1970
        f = ParquetFilter.create("date", 10, 0.01)
        f.put(dt.date(1970, 1, 11))
        g = ParquetFilter.create("int4", 10, 0.01)
        g.put(10)
        self.assertEqual(f.to_bytes(), g.to_bytes())


class Refusals(unittest.TestCase):
    def test_bad_bytes(self):
        bad = [
            (SparkFilter, b"\x00"),
            (SparkFilter, struct.pack(">iiii", 3, 1, 1, 0) + bytes(8)),
            (SparkFilter, struct.pack(">iii", 1, 0, 1) + bytes(8)),
            (SparkFilter, struct.pack(">iii", 1, 1, 2) + bytes(8)),
            (GuavaFilter, b"\x00\x01" + struct.pack(">i", 1) + bytes(8)),
            (GuavaFilter, b"\x01\x00" + struct.pack(">i", 1) + bytes(8)),
            (ParquetFilter, bytes(48)),
            (ParquetFilter, b"\x15\x40\x2c\x1c\x00\x00\x1c\x1c\x00\x00\x1c\x1c\x00\x00\x00" + bytes(32)),
            (ParquetFilter, b"\x15\x40\x1c\x1c\x00\x00\x1c\x1c\x00\x00\x1c\x1c\x00\x00\x00" + bytes(31)),
            # a header with bytes too many, whose length is a multiple of 32: not a bitset
            (ParquetFilter, b"\x15\x40\x1c\x1c\x00\x00\x1c\x1c\x00\x00\x1c\x1c\x00\x00\x00" + bytes(49)),
        ]
        for cls, data in bad:
            with self.subTest(cls=cls.__name__, data=data[:16].hex()):
                with self.assertRaises(BloomFilterError):
                    cls.from_bytes(data, "int8")

    def test_bad_values_and_types(self):
        with self.assertRaises(BloomFilterError):
            SparkFilter.create("uuid", 10, 0.01)
        with self.assertRaises(BloomFilterError):
            SparkFilter.create("int8", 10, 0.01).put("x")
        with self.assertRaises(BloomFilterError):
            ParquetFilter.create("int4", 10, 0.01).put(2**40)
        with self.assertRaises(BloomFilterError):
            ParquetFilter.create("timestamptz", 10, 0.01).put(dt.datetime(2024, 1, 1))
        with self.assertRaises(BloomFilterError):
            from_bloom_bytes(b"BLOM" + bytes(40))


if __name__ == "__main__":
    unittest.main()
