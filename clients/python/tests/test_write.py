"""Filters written as the server writes them: created, added to, combined, printed.

Without the environment: the API's edges, checked against values the server
made (write_fixtures.py, from PostgreSQL 15 and this extension).  With
BLOOM_VECTORS (tests/clients/vectors.sql's files): for every type and both
layouts, BloomFilter.create + add_many / add gives bloom_agg(v, n, 0.01,
layout)'s bytes and text exactly, every filter prints as the server printed
it, unions and adds of loaded filters are the server's.  With BLOOM_SIZING
(tests/clients/sizing.sql's output): create sizes every line's filter to the
server's m and k.
"""

import copy
import datetime as dt
import json
import math
import os
import pickle
import struct
import sys
import unittest
import uuid
from decimal import Decimal

from pg_bloomfilter import BloomFilter, BloomFilterError, _sizing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the modules beside this file
from vector_values import CONVERT, pg_hash_of_text, vector_cases, vector_files  # noqa: E402
from write_fixtures import (  # noqa: E402
    D, D_ADD_1, D_ADD_1000, D_TEXT, D_UNION_WIDE, EMPTY_100_TEXT, INTEGER, SIZES, UUID_ACCEPTED, UUID_REFUSED,
    WIDE, empty_like, header,
)


def refused(test, fragment, fn, *args):
    with test.assertRaises(BloomFilterError) as cm:
        fn(*args)
    test.assertIn(fragment, str(cm.exception))


class Creating(unittest.TestCase):
    def test_sizes_are_the_servers(self):
        for n, fpp, layout, m, k in SIZES:
            info = BloomFilter.create("int8", n, fpp, layout).info
            self.assertEqual((info.nbits, info.nhashes, info.layout), (m, k, layout), (n, fpp, layout))
        self.assertEqual(BloomFilter.create("int8", 100, 0.01, "blocked").info.layout, "blocked512")

    def test_an_empty_filter_is_bloom_empty(self):
        f = BloomFilter.create("int8", 100)
        self.assertEqual(str(f), EMPTY_100_TEXT)
        self.assertEqual(f.to_bytes(), BloomFilter.from_text(EMPTY_100_TEXT).to_bytes())
        self.assertEqual((len(f), f.element_family, f.sql_type), (0, None, "int8"))
        self.assertFalse(f.contains(1))

    def test_bad_parameters(self):
        create = BloomFilter.create
        refused(self, "at least 1", create, "int8", 0)
        refused(self, "at least 1", create, "int8", -5)
        refused(self, "must be an int, not bool", create, "int8", True)
        refused(self, "must be an int, not float", create, "int8", 10.0)
        refused(self, "must be an int, not str", create, "int8", "10")
        refused(self, "out of range for bigint", create, "int8", 1 << 63)
        for fpp in (0, 0.0, 1, 1.0, -0.5, 1.5, math.nan, math.inf):
            refused(self, "between 0 and 1 (exclusive)", create, "int8", 10, fpp)
        refused(self, "must be a float, not str", create, "int8", 10, "0.01")
        refused(self, "must be a float, not bool", create, "int8", 10, False)
        for layout in ("bitmap", "Classic", "counting4", None):
            refused(self, "unknown bloom filter layout", create, "int8", 10, 0.01, layout)
        for name in ("int16", "", "json", "timestamp(3)"):
            refused(self, "unknown type", create, name, 10)
        refused(self, "must be a str", create, 20, 10)
        # past the 1 GB maximum: the server's message
        refused(self, "more than the maximum of 8589932224 (1 GB)", create, "int8", 10**12, 1e-9)
        self.assertEqual(_sizing.bf_size_for(880e6, 0.01), (8441800152, 7))  # a blocked512 one needs more
        refused(self, "a blocked512 filter for 880000000 values at rate 0.01 needs more than the maximum of "
                "8589932224 bits (1 GB)", create, "int8", 880_000_000, 0.01, "blocked")

    def test_type_names_and_aliases(self):
        families = {
            "int2": "integer_ops", "smallint": "integer_ops", "int4": "integer_ops", "integer": "integer_ops",
            "int": "integer_ops", "int8": "integer_ops", "bigint": "integer_ops", "text": "text_ops",
            "varchar": "text_ops", "character varying": "text_ops", "bytea": "bytea_ops", "uuid": "uuid_ops",
            "numeric": "numeric_ops", "float4": "float_ops", "real": "float_ops", "float8": "float_ops",
            "double precision": "float_ops", "date": "date_ops", "timestamp": "timestamp_ops",
            "timestamp without time zone": "timestamp_ops", "timestamptz": "timestamptz_ops",
            "timestamp with time zone": "timestamptz_ops", "bool": "bool_ops", "boolean": "bool_ops",
        }
        canonical = {"smallint": "int2", "integer": "int4", "int": "int4", "bigint": "int8", "real": "float4",
                     "double precision": "float8", "boolean": "bool", "character varying": "varchar",
                     "timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz"}
        sample = {"integer_ops": 1, "text_ops": "a", "bytea_ops": b"a", "uuid_ops": uuid.UUID(int=1),
                  "numeric_ops": Decimal(1), "float_ops": 1.0, "date_ops": dt.date(2000, 1, 1),
                  "timestamp_ops": dt.datetime(2000, 1, 1),
                  "timestamptz_ops": dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc), "bool_ops": True}
        for name, family in families.items():
            for spelled in (name, name.upper(), f"  {name.title()} "):
                f = BloomFilter.create(spelled, 10)
                self.assertEqual(f.sql_type, canonical.get(name, name), spelled)
                f.add(sample[family])
                self.assertEqual(f.element_family, "pg_catalog." + family, spelled)
                self.assertTrue(f.contains(sample[family]))


class Printing(unittest.TestCase):
    def test_text_forms_read_and_printed_back(self):
        # the server's text form is canonical (core/bf_text.c): read, then printed, it is itself
        bits = "CACAAAAEAEAAAAIAAA=="  # 1::int8 in m = 97, k = 7
        for head in (
            "v1 classic m=97 k=7 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops",
            "v1 classic m=97 k=7 scheme=1 seed=18446744073709551615 n=9223372036854775807 "
            "target=0.001 elem=%22My%20Schema%22.integer_ops",
            "v1 classic m=97 k=7 scheme=1 seed=5 n=3 bound=97 est=3 elem=caf%C3%A9.ops%2B%25%7E",
            "v1 classic m=97 k=7 scheme=1 seed=5 n=3 target=0.000000001 elem=a",
            "v1 classic m=97 k=7 scheme=1 seed=5 n=3 target=0.123456789 elem=a@b$c-d_e.f",
        ):
            text = f"{head} bits={bits}"
            f = BloomFilter.from_text(text)
            self.assertEqual(str(f), text)
            self.assertEqual(BloomFilter.from_bytes(f.to_bytes()).to_bytes(), f.to_bytes())
            self.assertEqual(str(BloomFilter.from_bytes(f.to_bytes())), text)
        self.assertEqual(BloomFilter.from_text(f"{head} bits={bits}").element_family, "a@b$c-d_e.f")
        # (1.12) a key that is not UTF-8 (Latin-1's é) is refused: it was read before
        with self.assertRaises(BloomFilterError) as cm:
            BloomFilter.from_text(f"v1 classic m=97 k=7 scheme=1 seed=5 n=3 target=0.5 elem=latin%E9.ops bits={bits}")
        self.assertEqual(str(cm.exception), 'element key "latin\\xE9.ops" is not valid UTF-8')
        counting = "v1 counting4 m=5 k=1 scheme=1 seed=0 n=2 elem=x counters=IAAB"
        self.assertEqual(str(BloomFilter.from_text(counting)), counting)


class Converting(unittest.TestCase):
    def test_smallint_and_integer_ranges(self):
        for name, bits, word in (("int2", 16, "smallint"), ("smallint", 16, "smallint"), ("int4", 32, "integer")):
            low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
            f = BloomFilter.create(name, 100)
            f.add_many([low, high, 0])
            f.add(high)
            self.assertTrue(all(f.contains_many([low, high, 0])))
            for bad in (low - 1, high + 1):
                refused(self, f"{word} out of range: {bad}", f.add, bad)
                # a probe of a value the type cannot hold: never added, so False
                self.assertFalse(f.contains(bad))
                self.assertEqual(f.contains_many(list(range(20)) + [bad, low]), [True] + [False] * 20 + [True])
            # add_many: the values before the one refused are added
            before = list(range(100, 150))
            refused(self, f"{word} out of range: {high + 1}", f.add_many, before + [high + 1, 7])
            self.assertEqual(len(f), 4 + len(before))
            self.assertFalse(f.contains(7) and f.contains(8) and f.contains(9))
        g = BloomFilter.create("int8", 10)
        refused(self, "out of range for an integer key (bigint)", g.add, 1 << 63)

    def test_real_rounds_to_single_precision(self):
        single = struct.unpack("<f", struct.pack("<f", 0.1))[0]
        f4, f8 = BloomFilter.create("float4", 100), BloomFilter.create("float8", 100)
        f4.add(0.1)
        f8.add(single)  # the server's 0.1::float4, widened to float8 to be hashed (float_ops)
        self.assertEqual(f4.to_bytes(), f8.to_bytes())
        self.assertTrue(f4.contains(0.1) and f4.contains(single) and f8.contains(single))
        f4.add_many([0.25 * i + 0.1 for i in range(50)])
        self.assertTrue(all(f4.contains_many([struct.unpack("<f", struct.pack("<f", 0.25 * i + 0.1))[0]
                                              for i in range(50)])))
        for ok in (math.inf, -math.inf, math.nan, 1e-45, -0.0, 3.4028235e38):
            f4.add(ok)
            self.assertTrue(f4.contains(ok), ok)
        refused(self, "value out of range: overflow", f4.add, 1e39)
        self.assertFalse(f4.contains(-1e300))  # no float4: never added
        refused(self, "value out of range: underflow", f4.add, 1e-50)
        n = len(f4)
        refused(self, "value out of range: overflow", f4.add_many, [1.0] * 20 + [1e39])
        self.assertEqual(len(f4), n + 20)
        self.assertEqual(f4.contains_many([1.0] * 20 + [1e39]), [True] * 20 + [False])
        self.assertEqual(f4.contains_many([0.0, -0.0] * 10 + [-1e-50]), [f4.contains(0.0)] * 20 + [False])
        refused(self, "cannot be probed", f4.add, 1)  # float_ops takes floats, as contains

    def test_none_is_ignored(self):
        f = BloomFilter.create("int8", 10)
        empty = f.to_bytes()
        f.add(None)
        f.add_many([None] * 10)
        self.assertEqual(f.to_bytes(), empty)
        f.add_many([1, None, 2] * 5)
        self.assertEqual(len(f), 10)
        loaded = BloomFilter.from_text(EMPTY_100_TEXT)
        loaded.add_many([None, None])
        self.assertEqual((len(loaded), loaded.element_family), (0, None))

    def test_uuid_text_as_uuid_in_reads_it(self):
        one = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
        want = BloomFilter.create("uuid", 10)
        for _ in UUID_ACCEPTED:
            want.add(one)
        for make in (lambda: BloomFilter.create("uuid", 10), lambda: BloomFilter.from_text(EMPTY_100_TEXT)):
            f = make()
            f.add(one)  # (a read filter's first value must be a UUID: a str would make it text_ops)
            g = copy.copy(f)
            for text in UUID_ACCEPTED[1:]:
                f.add(text)
            g.add_many(UUID_ACCEPTED[1:] * 3)
            self.assertTrue(all(f.contains(t) for t in UUID_ACCEPTED))
            self.assertTrue(all(g.contains_many(UUID_ACCEPTED)))
            saved = f.to_bytes()
            for text in UUID_REFUSED:
                for fn, arg in ((f.add, text), (f.contains, text), (f.add_many, [text]), (f.contains_many, [text])):
                    refused(self, "invalid input syntax for type uuid", fn, arg)
            self.assertEqual(f.to_bytes(), saved)
        f = BloomFilter.create("uuid", 10)
        f.add_many(UUID_ACCEPTED)
        self.assertEqual(f.to_bytes(), want.to_bytes())

    def test_a_read_filter_takes_the_first_values_family(self):
        cases = [(1, "integer_ops"), (True, "bool_ops"), (1.5, "float_ops"), (Decimal("1.5"), "numeric_ops"),
                 ("a", "text_ops"), (b"a", "bytea_ops"), (bytearray(b"a"), "bytea_ops"),
                 (uuid.UUID(int=7), "uuid_ops"), (dt.date(2020, 1, 2), "date_ops"),
                 (dt.datetime(2020, 1, 2), "timestamp_ops"),
                 (dt.datetime(2020, 1, 2, tzinfo=dt.timezone.utc), "timestamptz_ops")]
        for value, family in cases:
            for many in (False, True):
                f = BloomFilter.from_text(EMPTY_100_TEXT)
                f.add_many([None, value] * 10) if many else f.add(value)
                self.assertEqual(f.element_family, "pg_catalog." + family, value)
                self.assertTrue(f.contains(value))
                other = b"a" if family != "bytea_ops" else 1
                refused(self, "pg_catalog." + family, f.add, other)
                refused(self, "pg_catalog." + family, f.contains, other)
        f = BloomFilter.from_text(EMPTY_100_TEXT)
        refused(self, "cannot be added", f.add, object())
        refused(self, "add a value first", f.add_hash, 5)
        self.assertEqual(len(f), 0)


class Mutating(unittest.TestCase):
    def filled(self, layout="classic"):
        f = BloomFilter.create("int2", 1000, 0.01, layout)
        f.add_many(range(0, 3000, 3))
        return f

    def test_every_value_added_is_found(self):
        values = {
            "int8": [i * 7919 - 10**6 for i in range(3000)] + [-(1 << 63), (1 << 63) - 1],
            "text": [f"user{i}" for i in range(2000)] + ["", "é" * 30],
            "bytea": [i.to_bytes(4, "little") * (i % 5) for i in range(2000)],
            "float8": [i * 0.37 for i in range(2000)] + [math.nan, -0.0],
            "date": [dt.date(2000, 1, 1) + dt.timedelta(days=i) for i in range(2000)],
            "timestamptz": [dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=i)
                            for i in range(2000)],
            "uuid": [uuid.UUID(int=i * 2**70 + i) for i in range(2000)],
            "numeric": [Decimal(i) / 8 for i in range(2000)],
        }
        for ty, vals in values.items():
            for layout in ("classic", "blocked512"):
                for many in (True, False):
                    f = BloomFilter.create(ty, len(vals), 0.01, layout)
                    if many:
                        f.add_many(vals)
                    else:
                        for v in vals:
                            f.add(v)
                    where = f"{ty} {layout} {'add_many' if many else 'add'}"
                    self.assertTrue(all(f.contains_many(vals)), where)
                    self.assertTrue(all(map(f.contains, vals)), where)
                    self.assertEqual(len(f), len(vals), where)
                    self.assertEqual(f.info.values_added, len(vals), where)
                    self.assertEqual(BloomFilter.from_bytes(f.to_bytes()).to_bytes(), f.to_bytes(), where)
                    self.assertEqual(BloomFilter.from_text(str(f)).to_bytes(), f.to_bytes(), where)

    def test_the_rate_is_the_one_asked(self):
        for layout in ("classic", "blocked512"):
            f = BloomFilter.create("int8", 3000, 0.01, layout)
            f.add_many(range(3000))
            false_positives = sum(f.contains_many(range(10**9, 10**9 + 20000)))
            self.assertLess(false_positives, 20000 * 0.02, layout)
            self.assertGreater(false_positives, 0, layout)

    def test_add_many_is_add_one_by_one(self):
        for layout in ("classic", "blocked512"):
            a, b = BloomFilter.create("int8", 500, 0.01, layout), BloomFilter.create("int8", 500, 0.01, layout)
            values = [i * i for i in range(700)] * 2
            a.add_many(iter(values))
            for v in values:
                b.add(v)
            self.assertEqual(a.to_bytes(), b.to_bytes())
            self.assertEqual(len(a), 1400)
        for bad in (None, 1, "12", b"12", bytearray(b"1"), memoryview(b"1")):
            refused(self, "add_many takes", a.add_many, bad)

    def test_info_follows_adds(self):
        f = BloomFilter.create("int8", 1000)
        before = f.info
        f.add_many(range(500))
        after = f.info
        self.assertEqual((before.values_added, before.bits_set, before.element_family), (0, 0, None))
        self.assertEqual((after.values_added, after.element_family), (500, "pg_catalog.integer_ops"))
        self.assertGreater(after.bits_set, 2800)  # 500 values of 7 bits, in 9,594
        self.assertAlmostEqual(after.estimated_distinct, 500, delta=25)
        self.assertEqual(after.bytes, len(f.to_bytes()) + 4)

    def test_copies_are_independent(self):
        for layout in ("classic", "blocked512"):
            f = self.filled(layout)
            saved = f.to_bytes()
            for g in (copy.copy(f), copy.deepcopy(f), copy.deepcopy([f])[0]):
                self.assertIsNot(g, f)
                self.assertEqual(g, f)
                g.add(1)
                self.assertEqual(len(g), len(f) + 1)
                self.assertNotEqual(g, f)
                self.assertEqual(g.sql_type, "int2")
                refused(self, "smallint out of range", g.add, 1 << 20)
            self.assertEqual(f.to_bytes(), saved)

    def test_pickling_keeps_the_bytes_and_the_type(self):
        f = self.filled()
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            g = pickle.loads(pickle.dumps(f, protocol))
            self.assertEqual(g, f)
            self.assertEqual((g.to_bytes(), g.sql_type, str(g)), (f.to_bytes(), "int2", str(f)))
            refused(self, "smallint out of range", g.add, 40000)
            g.add(3001)
            self.assertTrue(g.contains(3001))
        loaded = BloomFilter.from_bytes(f.to_bytes())
        self.assertIsNone(loaded.sql_type)
        self.assertNotEqual(loaded, f)  # the same bytes, but no type
        self.assertEqual(pickle.loads(pickle.dumps(loaded)).to_bytes(), f.to_bytes())

    def test_equality_and_hashing(self):
        f, g = self.filled(), self.filled()
        self.assertEqual(f, g)
        self.assertNotEqual(f, f.to_bytes())
        with self.assertRaises(TypeError):
            hash(f)
        g.add(0)  # held already: the bits are the same, n is not
        self.assertNotEqual(f, g)
        self.assertNotIn("bits=", repr(f))
        self.assertIn("type=int2", repr(f))

    def test_add_is_refused_on_explicit_and_layered(self):
        explicit = BloomFilter.from_bytes(header(layout=4, k=0, m=1, n=1) + INTEGER + struct.pack("<Q", 5))
        layered = BloomFilter.from_bytes(
            header(layout=5, k=1, m=512, n=0, elem=b"") + struct.pack("<QH", 512, 7) + bytes(64)
        )
        for f, fragment in ((explicit, "add to an explicit filter on the server (bloom_add)"),
                            (layered, "bloomfilter index's filter, which the index keeps")):
            saved = f.to_bytes()
            for fn, arg in ((f.add, 1), (f.add_many, [1]), (f.add_hash, 1)):
                refused(self, fragment, fn, arg)
            self.assertEqual(f.to_bytes(), saved)
            refused(self, "does not combine", f.union, f)

    def test_a_derived_filter_grows_its_bound(self):
        self.assertEqual(str(BloomFilter.from_bytes(D)), D_TEXT)
        f = BloomFilter.from_bytes(D)
        before = f.info.bits_set
        f.add(1000)
        self.assertEqual(f.to_bytes(), D_ADD_1000)
        self.assertEqual(f._p.bound - 118, f.info.bits_set - before)  # the bits newly set: 6
        self.assertEqual(f._p.est_distinct, 11)
        g = BloomFilter.from_bytes(D)
        g.add_many([1])  # held: no bit changes, neither do bound and estimate
        self.assertEqual(g.to_bytes(), D_ADD_1)

    def test_counting4_counters_stop_at_15(self):
        f = BloomFilter.from_bytes(header(layout=2, k=3, m=9, n=0, elem=b"") + bytes(5))
        for i in range(20):
            f.add(42)
        counters = [(b >> s) & 15 for b in f._data for s in (0, 4)][:9]
        self.assertEqual(sorted(c for c in counters if c), [15] * len([c for c in counters if c]))
        self.assertEqual(len(f), 20)
        self.assertTrue(f.contains(42))


class Combining(unittest.TestCase):
    def test_the_union_is_the_filter_of_both(self):
        for layout in ("classic", "blocked512"):
            a, b, both = (BloomFilter.create("int8", 1000, 0.01, layout) for _ in range(3))
            a.add_many(range(0, 600))
            b.add_many(range(400, 1000))
            both.add_many(list(range(0, 600)) + list(range(400, 1000)))
            self.assertEqual((a | b).to_bytes(), both.to_bytes())
            self.assertEqual(a.union(b), b | a)
            empty = BloomFilter.create("int8", 1000, 0.01, layout)
            self.assertEqual((a | empty).to_bytes(), a.to_bytes())
            self.assertEqual((empty | a).to_bytes(), a.to_bytes())
            self.assertEqual((empty | a).sql_type, "int8")
            # a union is a filter of its own: adding to it changes neither side
            saved = a.to_bytes(), empty.to_bytes()
            for u in (a | empty, empty | a, a | b):
                u.add(10**6)
            self.assertEqual((a.to_bytes(), empty.to_bytes()), saved)

    def test_derived_unions_are_the_servers(self):
        d, wide = BloomFilter.from_bytes(D), BloomFilter.from_bytes(WIDE)
        self.assertEqual((d | wide).to_bytes(), D_UNION_WIDE)
        self.assertEqual((wide | d).to_bytes(), D_UNION_WIDE)

    def test_counters_add_up_and_saturate(self):
        def counting(counters, n=1):
            data = bytes(counters[i] | (counters[i + 1] << 4) for i in range(0, len(counters), 2))
            return BloomFilter.from_bytes(header(layout=2, k=1, m=len(counters), n=n) + INTEGER + data)

        a, b = counting([0, 1, 7, 15, 8, 3]), counting([1, 0, 9, 3, 8, 0])
        u = a | b
        self.assertEqual(u._data, counting([1, 1, 15, 15, 15, 3])._data)
        self.assertEqual(len(u), 2)

    def test_what_the_server_refuses(self):
        f = BloomFilter.create("int8", 100)
        f.add(1)
        text_filter = BloomFilter.create("text", 100)
        text_filter.add("a")
        text_filter = BloomFilter.from_bytes(text_filter.to_bytes())  # (no type: the families differ)
        cases = [
            (BloomFilter.create("int8", 1000), "differ in m: 960 and 9594"),
            (BloomFilter.from_bytes(header(m=960, k=6, n=0, elem=b"") + bytes(120)), "k: 7 and 6"),
            (BloomFilter.from_bytes(header(m=960, seed=(1 << 64) - 1, n=0, elem=b"") + bytes(120)), "seed: 0 and -1"),
            (BloomFilter.from_bytes(header(layout=3, m=1024, n=0, elem=b"") + bytes(128)),
             "m: 960 and 1024; layout: classic and blocked512"),
            (text_filter, "element family: pg_catalog.integer_ops and pg_catalog.text_ops"),
            (BloomFilter.from_bytes(header(layout=2, m=960, n=0, elem=b"") + bytes(480)),
             "counting_bloom and bloom are different SQL types"),
            (BloomFilter.create("int4", 100), "type int8 with one of type int4"),
        ]
        for other, fragment in cases:
            refused(self, fragment, f.union, other)
            refused(self, "cannot combine", other.union, f)  # (the other way round: the sides named so)
        refused(self, "union takes a BloomFilter", f.union, 1)
        with self.assertRaises(TypeError):
            f | 1


class ServerVectors(unittest.TestCase):
    """The filters of tests/clients/vectors.sql, written here."""

    def setUp(self):
        if not vector_files():
            self.skipTest("BLOOM_VECTORS is not set (tests/clients/run.sh sets it)")

    @staticmethod
    def added(case):
        """The values added: Python values, and the hashes of those Python cannot hold."""
        texts = case["values"][: case["added"]]
        values = [CONVERT[case["type"]](t) for t in texts]
        missing = [t for t, v in zip(texts, values) if v is None]
        return values, missing

    @staticmethod
    def fill(f, ty, values, missing, one_by_one=False):
        if one_by_one:
            for v in values:
                f.add(v)
        else:
            f.add_many(values)
        for text in missing:
            f.add_hash(pg_hash_of_text(ty, text, f._seed))

    def test_created_filters_are_bloom_aggs(self):
        checked = unholdable = 0
        for source, case in vector_cases():
            ty, n = case["type"], case["added"]
            values, missing = self.added(case)
            unholdable += len(missing)
            filters = {flt["name"]: flt for flt in case["filters"]}
            # the server's text of the values, converted by the filter's type (float4: rounded
            # from the float8 nearest its text; uuid: read from its text as uuid_in reads it)
            typed = None
            if ty == "float4":
                typed = [float(t) for t in case["values"][:n]]
            elif ty == "uuid":
                typed = case["values"][:n]
            for layout in ("classic", "blocked512"):
                want = filters[layout]
                where = f"{source}: {ty} {layout}"
                for variant in ("add_many", "add", "typed"):
                    if variant == "typed" and typed is None:
                        continue
                    f = BloomFilter.create(ty, n, 0.01, layout)
                    self.fill(f, ty, typed if variant == "typed" else values, missing, variant == "add")
                    self.assertEqual(f.to_bytes().hex(), want["hex"], f"{where} {variant}")
                    self.assertEqual(str(f), want["text"], f"{where} {variant}")
                    checked += 1
                if typed is not None:
                    # probes converted as adds are: the server's answers, absent values too
                    answers = [a == "1" for a in want["answers"]]
                    probes = [float(t) for t in case["values"]] if ty == "float4" else case["values"]
                    self.assertEqual(f.contains_many(probes), answers, where)
                    self.assertEqual([f.contains(v) for v in probes], answers, where)
        print(f"\nwrite vectors: {checked} filters written as the server's; values added by "
              f"their hash (Python cannot hold them): {unholdable}")
        self.assertGreater(checked, 0)

    def test_every_filter_prints_as_the_server(self):
        for source, case in vector_cases():
            for flt in case["filters"]:
                f = BloomFilter.from_bytes(bytes.fromhex(flt["hex"]))
                where = f"{source}: {case['type']} {flt['name']}"
                self.assertEqual(str(f), flt["text"], where)
                self.assertEqual(f.to_bytes().hex(), flt["hex"], where)
                self.assertEqual(copy.copy(f).to_bytes().hex(), flt["hex"], where)

    def test_loaded_filters_take_adds_and_unions(self):
        for source, case in vector_cases():
            ty, n = case["type"], case["added"]
            values, missing = self.added(case)
            filters = {flt["name"]: bytes.fromhex(flt["hex"]) for flt in case["filters"]}
            where = f"{source}: {ty}"
            # a union with an empty created filter: a copy, either way round
            classic = BloomFilter.from_bytes(filters["classic"])
            empty = BloomFilter.create(ty, n, 0.01)
            self.assertEqual((classic | empty).to_bytes(), filters["classic"], where)
            self.assertEqual((empty | classic).to_bytes(), filters["classic"], where)
            # its own values added again: the same bits, n doubled
            for name in ("classic", "blocked512"):
                f = BloomFilter.from_bytes(filters[name])
                self.fill(f, ty, values, missing)
                self.assertEqual(f._data, BloomFilter.from_bytes(filters[name])._data, f"{where} {name}")
                self.assertEqual(len(f), 2 * n, f"{where} {name}")
            # filters of other shapes and seeds (bloom_empty_mk, then bloom_add), and counting4
            for name in ("seed_all_ones", "seed_blocked", "blocked_k12", "counting4"):
                f = empty_like(filters[name])
                self.fill(f, ty, values, missing, one_by_one=name == "counting4")
                self.assertEqual(f.to_bytes(), filters[name], f"{where} {name}")
            # counting4 once more: every counter doubled, stopping at 15
            f = BloomFilter.from_bytes(filters["counting4"])
            self.fill(f, ty, values, missing)
            server = BloomFilter.from_bytes(filters["counting4"])._data
            want = bytes(min(2 * (b & 15), 15) | min(2 * (b >> 4), 15) << 4 for b in server)
            self.assertEqual(bytes(f._data), want, f"{where} counting4 doubled")
            self.assertEqual(len(f), 2 * n)
            # a derived filter: one value added (bloom_add), and its union with a classic one
            if "derived_added" in filters:
                d = BloomFilter.from_bytes(filters["derived"])
                first_absent = case["values"][n]
                v = CONVERT[ty](first_absent)
                d.add(v) if v is not None else d.add_hash(pg_hash_of_text(ty, first_absent))
                self.assertEqual(d.to_bytes(), filters["derived_added"], f"{where} derived_added")
                union = BloomFilter.from_bytes(filters["derived"]) | BloomFilter.from_bytes(filters["classic_wide"])
                self.assertEqual(union.to_bytes(), filters["derived_union"], f"{where} derived_union")


class ServerSizes(unittest.TestCase):
    def test_every_size_of_sizing_sql(self):
        name = os.environ.get("BLOOM_SIZING")
        if not name:
            self.skipTest("BLOOM_SIZING is not set (tests/clients/sizing.sql's output)")
        # create's sizing (Creating.test_sizes_are_the_servers checks create uses it), without
        # allocating the filters: some are hundreds of megabytes
        layouts = {"classic": 1, "blocked512": 3}
        matched, differ = 0, []
        with open(name, encoding="utf-8") as lines:
            for line in lines:
                size = json.loads(line)
                m, k = _sizing.bf_size_for_layout(layouts[size["layout"]], float(size["n"]), size["fpp"])
                if (m, k) == (size["m"], size["k"]):
                    matched += 1
                else:
                    differ.append((size, m, k))
        print(f"\nsizing: {matched} of {matched + len(differ)} sizes the server's")
        self.assertEqual(differ[:10], [])
        self.assertGreater(matched, 0)


if __name__ == "__main__":
    unittest.main()
