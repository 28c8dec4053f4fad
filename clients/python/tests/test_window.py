"""Window filters (WindowFilter) against the server's: BLOOM_WINDOWS names files
made by tests/clients/windows.sql (colon-separated).  For every case,
WindowFilter.create with the case's shape and clock, then its ops (adds, adds
at a time, advances), gives the server's bytes and text; the server's filter
read back prints as it came and answers every probe as bloom_contains did; a
union gives the server's bytes.  Then the API's edges."""

import datetime as dt
import json
import os
import unittest
import uuid
from decimal import Decimal

from pg_bloomfilter import BloomFilter, BloomFilterError, WindowFilter
from pg_bloomfilter._window_sizing import window_fpp, window_recall


def _time(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


# values as an application holds them (psycopg's types)
CONVERT = {
    "int4": int, "int8": int, "text": str, "uuid": uuid.UUID, "numeric": Decimal, "float8": float,
    "timestamptz": _time, "bytea": lambda t: bytes.fromhex(t[2:]),
}


def replay(c, ops):
    kwargs = {}
    if c["interval"]:
        kwargs = {"generation_length": dt.timedelta(microseconds=c["interval"]), "at": _time(c["at"])}
    f = WindowFilter.create(c["type"], c["capacity"], c["fpp"], c["generations"], **kwargs)
    conv = CONVERT[c["type"]]
    for op in ops:
        if op[0] == "add":
            f.add(conv(op[1]))
        elif op[0] == "add_at":
            f.add(conv(op[1]), _time(op[2]))
        elif op[0] == "advance":
            f.advance(op[1])
        else:
            f.advance(_time(op[1]))
    return f


class ServerCases(unittest.TestCase):
    def test_cases(self):
        names = [n for n in os.environ.get("BLOOM_WINDOWS", "").split(":") if n]
        if not names:
            self.skipTest("BLOOM_WINDOWS is not set (tests/clients/windows.sql's output)")
        checked = 0
        for name in names:
            with open(name, encoding="utf-8") as lines:
                for line in lines:
                    c = json.loads(line)
                    where = f"{name}: {c['case']}"
                    made = replay(c, c["ops"])
                    self.assertEqual(made.to_bytes().hex(), c["hex"], where)
                    self.assertEqual(str(made), c["text"], where)
                    read = WindowFilter.from_bytes(bytes.fromhex(c["hex"]))
                    self.assertEqual(read.to_bytes().hex(), c["hex"], where)
                    self.assertEqual(str(WindowFilter.from_text(c["text"])), c["text"], where)
                    conv = CONVERT[c["type"]]
                    for probe, answer in zip(c["probes"], c["answers"]):
                        self.assertEqual(read.contains(conv(probe)), answer == "1", f"{where}: {probe}")
                        self.assertEqual(made.contains(conv(probe)), answer == "1", f"{where}: {probe}")
                        checked += 2
                    if c["union_ops"] is not None:
                        other = replay(c, c["union_ops"])
                        self.assertEqual((made | other).to_bytes().hex(), c["union_hex"], where)
                        self.assertEqual(other.union(made).to_bytes().hex(), c["union_hex"], where)
        self.assertGreater(checked, 1000)


class Edges(unittest.TestCase):
    def setUp(self):
        self.f = WindowFilter.create("int8", 100, 0.01, 3)

    def test_refusals(self):
        f = self.f
        with self.assertRaises(BloomFilterError):
            BloomFilter.from_bytes(f.to_bytes())
        with self.assertRaises(BloomFilterError):
            WindowFilter.from_bytes(BloomFilter.create("int8", 10).to_bytes())
        with self.assertRaises(BloomFilterError):
            f.advance(-1)
        with self.assertRaises(BloomFilterError):
            f.add(1, dt.datetime.now(dt.timezone.utc))
        with self.assertRaises(BloomFilterError):
            WindowFilter.create("int8", 1, 0.01, 4097)
        with self.assertRaises(BloomFilterError):
            WindowFilter.create("int8", 10, 1e-18, 4096)
        with self.assertRaises(BloomFilterError):
            f.union(WindowFilter.create("int8", 100, 0.01, 4))
        f.add(1)
        with self.assertRaises(BloomFilterError):
            f.add("x")
        text = str(f)
        with self.assertRaises(BloomFilterError):
            WindowFilter.from_text(text.replace(":0:0 counts=", ":-0:0 counts="))
        with self.assertRaises(BloomFilterError):
            WindowFilter.from_text(text.replace("counts=1,", "counts=2,"))
        with self.assertRaises(BloomFilterError):
            WindowFilter.from_text(text.replace("seed=0", "seed=7"))

    def test_empty_and_window(self):
        f = self.f
        self.assertFalse(f.contains(5))
        self.assertIsNone(f.info.element_family)  # a probe gives no family
        f.add(5)
        self.assertTrue(5 in f)
        f.advance(2)
        self.assertTrue(5 in f)
        f.advance(f.info.slices)
        self.assertFalse(5 in f)
        self.assertEqual(f.info.values_in_window, 0)

    def test_review_edges(self):
        clocked = WindowFilter.create("int8", 10, 0.01, 3, generation_length=3_600_000_000, at=0)
        clocked.add(7, None)  # a NULL time adds nothing
        self.assertFalse(7 in clocked)
        for bad in (lambda: clocked.add(1, 2**63), lambda: clocked.advance(2**31),
                    lambda: WindowFilter.create("int8", 10, 0.01, 3, generation_length=2**64, at=0),
                    lambda: WindowFilter.create("int8", 10, 0.01, 3, generation_length=1.5)):
            with self.assertRaises(BloomFilterError):
                bad()
        self.assertEqual(clocked.info.generation, 0)
        self.assertEqual(clocked.to_bytes(), WindowFilter.from_bytes(clocked.to_bytes()).to_bytes())

    def test_recall(self):
        self.assertEqual(window_recall(9, 10, 259712, 20000, 9), 1.0)
        self.assertEqual(window_recall(9, 10, 259712, 20000, 30), window_fpp(9, 10, 259712, 20000))


if __name__ == "__main__":
    unittest.main()
