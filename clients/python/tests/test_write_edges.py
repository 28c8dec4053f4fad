"""Edges of writing that a hostile review found: what a type cannot hold is
answered False, never refused, by a probe; text the server refuses is
refused; a union or a filter read back converts values only as its
values were converted; the sizing of a 1-bit first guess."""

import threading
import unittest
from decimal import Decimal

from pg_bloomfilter import BloomFilter, BloomFilterError, IndexFilter


class Edges(unittest.TestCase):
    def refused(self, fragment, fn, *args):
        with self.assertRaises(BloomFilterError) as cm:
            fn(*args)
        self.assertIn(fragment, str(cm.exception))

    def test_sizing_of_a_one_bit_guess(self):
        # bf_fpp of one cell: log1p(-1) is C's -inf; the server gives m = 2, k = 1
        info = BloomFilter.create("int8", 1, 0.7).info
        self.assertEqual((info.nbits, info.nhashes), (2, 1))
        self.assertEqual(BloomFilter.create("int8", 100, 0.999).info.nhashes, 1)

    def test_type_names(self):
        self.assertEqual(BloomFilter.create("decimal", 1).sql_type, "numeric")
        self.assertEqual(BloomFilter.create(" Double   Precision ", 1).sql_type, "float8")

    def test_text_the_server_refuses(self):
        for text in ("2000-01-01 00:00:00.1234567", "2000-01-01T00:00:00,9999995"):
            self.refused("more than 6 fractional digits", BloomFilter.create("timestamp", 10).add, text)
        self.refused("more than 6 fractional digits", BloomFilter.create("timestamptz", 10).add,
                     "2000-01-01 00:00:00.9999995+00:00")
        n = BloomFilter.create("numeric", 10)
        for text in ("1_000", "\u0661\u0662", "1e", "--1", "0x10", "\u00a01"):
            self.refused("is not a numeric value", n.add, text)
        n.add_many([" 1.50 ", "inf", "-Infinity", "NaN", ".5", "5.", "1e-3"])
        self.assertTrue(n.contains("1.5") and n.contains("0.001") and n.contains("0.5"))
        # numeric's bounds, each as PostgreSQL 15's numeric_in answered it (a
        # value past them is refused at once, not written out digit by digit)
        held = ["1e131071", "9999e131068", "10000e131067", "00001e131071", "0e-16383", "1e-16383", "0e999999",
                Decimal("1e131071"), 10**131071]
        refused = ["1e131072", "0.0001e131076", "0e-16384", "1e-16384", "0.5e-16383", "1.0000e-16380",
                   "0.00000e-16380", "0e1073741823", "1e-99999999999", "1e999999999", Decimal("1e131072"),
                   Decimal("0e-16384"), 10**131072]
        for value in held:
            self.assertFalse(n.contains(value), value)
        for value in refused:
            self.refused("out of range for a numeric key", n.contains, value)
            self.refused("out of range for a numeric key", n.add, value)

    def test_a_union_converts_only_what_both_sides_converted(self):
        f4 = BloomFilter.create("float4", 100)
        f4.add(1.5)
        read = BloomFilter.create("float8", 100)
        read.add(0.1)
        read = BloomFilter.from_bytes(read.to_bytes())  # no type: values as the family hashes them
        union = f4 | read
        self.assertIsNone(union.sql_type)
        self.assertTrue(union.contains(0.1) and union.contains(1.5))
        both = f4 | BloomFilter.create("float4", 100)
        self.assertEqual(both.sql_type, "float4")
        self.refused("create both with the same type", f4.union, BloomFilter.create("float8", 100))

    def test_a_filter_read_back_with_its_type(self):
        f = BloomFilter.create("float4", 100)
        f.add(0.1)
        self.assertFalse(BloomFilter.from_bytes(f.to_bytes()).contains(0.1))  # the double 0.1: not added
        for again in (BloomFilter.from_bytes(f.to_bytes(), type="float4"), BloomFilter.from_text(str(f), type="real")):
            self.assertTrue(again.contains(0.1))
            self.assertEqual(again.sql_type, "float4")
        self.refused("cannot hold values of type text", BloomFilter.from_bytes, f.to_bytes(), "text")
        self.refused("unknown type", BloomFilter.from_bytes, f.to_bytes(), "json")

    def test_an_empty_filter_refuses_what_a_full_one_refuses(self):
        # (JavaScript's empty int8 filter answered False to 2 ** 53 and "abc"
        # before 1.12; this library's never did: kept so)
        empty = BloomFilter.create("int8", 100)
        full = BloomFilter.create("int8", 100)
        full.add(1)
        read_typed = BloomFilter.from_bytes(empty.to_bytes(), type="bigint")
        for f in (empty, full, read_typed, BloomFilter.from_text(str(empty), type="int8")):
            for value, fragment in ((2 ** 64, "out of range"), ("abc", "cannot be probed"),
                                    (1.5, "cannot be probed"), (object(), "cannot be probed")):
                self.refused(fragment, f.contains, value)
                self.refused(fragment, f.contains_many, [1, value])
            self.assertEqual(f.contains_many([5, None, -7]), [False, False, False])
        # a value the type cannot hold: False, empty or not (never added)
        f = BloomFilter.create("int2", 10)
        for _ in ("empty", "holding 1"):
            self.assertEqual([f.contains(40000)] + f.contains_many([40000]), [False, False])
            f.add(1)
        # read without a type, an empty filter names no family: any value some
        # type holds answers False (2 ** 64 may be a numeric, "abc" a text)
        untyped = BloomFilter.from_bytes(empty.to_bytes())
        self.assertEqual(untyped.contains_many([2 ** 64, "abc", 1.5, True]), [False] * 4)
        self.refused("cannot be probed", untyped.contains, object())

    def test_refreshes_run_one_at_a_time(self):
        # a connection whose first answer comes late, with an older filter than the second's
        old, new = BloomFilter.create("int8", 10), BloomFilter.create("int8", 10)
        old.add(1)
        new.add_many([1, 2])
        answers = [("1", old.to_bytes()), ("2", new.to_bytes())]
        first_started, release = threading.Event(), threading.Event()

        class Cursor:
            def execute(self, sql, params):
                self.row = answers.pop(0)
                if self.row[0] == "1":
                    first_started.set()
                    release.wait(5)

            def fetchone(self):
                return self.row

            def close(self):
                pass

        class Connection:
            def cursor(self):
                return Cursor()

        seen = IndexFilter("idx", Connection())
        slow = threading.Thread(target=seen.refresh)
        slow.start()
        first_started.wait(5)
        fast = threading.Thread(target=seen.refresh)
        fast.start()
        release.set()
        slow.join(5)
        fast.join(5)
        # the second refresh ran after the first: the newer filter stays
        self.assertEqual(seen.stamp, "2")
        self.assertTrue(seen.contains(2))


if __name__ == "__main__":
    unittest.main()
