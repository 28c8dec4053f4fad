"""contains_many computes in lanes of Python ints (_lanes.py); contains value
by value (filter.py).  Every answer must be the same, for every layout, k,
seed and kind of value, in batches of every size, and a value contains
refuses must be refused with contains's error.  Filters are random bits
(each set with a chance that makes about half the answers True) under
headers built field by field; the server's vectors (test_vectors.py) check
both paths against bloom_contains too."""

import random
import struct
import unittest

from pg_bloomfilter import BloomFilter, BloomFilterError
from pg_bloomfilter import filter as filter_module

INTEGER, TEXT, BYTEA = b"pg_catalog.integer_ops", b"pg_catalog.text_ops", b"pg_catalog.bytea_ops"
CLASSIC, COUNTING4, BLOCKED512, LAYERED = 1, 2, 3, 5


def random_bits(rng, nbytes, fill):
    # each bit set with probability fill: a byte's 8 bits from 8 draws would be slow,
    # so OR together random bytes until about fill of the bits are set
    data = 0
    while True:
        data |= rng.getrandbits(8 * nbytes)
        if bin(data).count("1") >= fill * 8 * nbytes:
            return data.to_bytes(nbytes, "little")


def make(rng, layout, elem, m, k, seed=0, layers=()):
    """A filter of layout with random bits (data sized as the format says), set with a
    chance that makes about half the answers True."""
    fill = 0.5 ** (1 / max([k] + [lk for _, lk in layers]))
    head = b"BLOM" + struct.pack("<BBBBHHQQQ", 1, layout, 1, 0, k, len(elem), seed, m, 10**9)
    if layout == CLASSIC:
        data = bytearray(random_bits(rng, (m + 7) // 8, fill))
        if m % 8:
            data[-1] &= (1 << (m % 8)) - 1  # no bit beyond m
    elif layout == COUNTING4:
        # counters of 0 to 15, fill of them not 0
        data = bytearray(0 if rng.random() >= fill else rng.randrange(1, 16) for _ in range(m))
        data = bytearray(data[i] | (data[i + 1] << 4 if i + 1 < m else 0) for i in range(0, m, 2))
    else:
        data = random_bits(rng, m // 8, fill)
    table = b"".join(struct.pack("<QH", lm, lk) for lm, lk in layers)
    return BloomFilter.from_bytes(head + elem + table + bytes(data))


def ints(rng, n):
    edges = [0, 1, -1, 2**31 - 1, -(2**31), 2**32, -(2**32), 2**63 - 1, -(2**63)]
    return edges + [rng.randrange(-(2**63), 2**63) if rng.random() < 0.5 else rng.randrange(-1000, 1000) for _ in range(n)]


def strs(rng, n):
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789 éß€漢字🙂"
    out = ["", "a", "x" * 11, "x" * 12, "x" * 13, "y" * 24, "z" * 100]
    for _ in range(n):
        length = rng.choice((rng.randrange(0, 40), rng.randrange(18, 22), rng.randrange(0, 300)))
        out.append("".join(rng.choice(alphabet) for _ in range(length)))
    return out


FILTERS = (
    # layout, m, k, layers
    (CLASSIC, 97, 1, ()),
    (CLASSIC, 1000, 7, ()),
    (CLASSIC, 4099, 13, ()),
    (COUNTING4, 1001, 7, ()),
    (COUNTING4, 4096, 3, ()),
    (BLOCKED512, 512, 1, ()),
    (BLOCKED512, 8192, 6, ()),
    (BLOCKED512, 8192, 7, ()),
    (BLOCKED512, 8192, 8, ()),
    (BLOCKED512, 16384, 14, ()),
    (BLOCKED512, 16384, 15, ()),
    (BLOCKED512, 65536, 30, ()),
    (LAYERED, 512 * 7, 3, ((1024, 7), (2048, 9), (512, 2))),
    (LAYERED, 1024, 1, ((1024, 8),)),
)


class LanesAnswerAsContains(unittest.TestCase):
    def check(self, f, values, where):
        many = f.contains_many(values)
        one = [f.contains(v) for v in values]
        self.assertEqual(len(many), len(values), where)
        wrong = [(v, a, b) for v, a, b in zip(values, one, many) if a != b]
        self.assertEqual(wrong[:5], [], f"{where}: {len(wrong)} answers differ")
        held = sum(1 for v, a in zip(values, one) if v is not None and a)
        # a test that could not fail: every answer the same one
        self.assertTrue(0 < held < sum(1 for v in values if v is not None), f"{where}: held {held}")

    def test_every_layout_seed_and_kind(self):
        rng = random.Random(30)
        for layout, m, k, layers in FILTERS:
            for seed in (0, rng.getrandbits(64), (1 << 64) - 1):
                for elem, values in (
                    (INTEGER, ints(rng, 600)),
                    (TEXT, strs(rng, 400)),
                    (BYTEA, [s.encode() for s in strs(rng, 200)] + [bytes(range(256))]),
                ):
                    f = make(rng, layout, elem, m, k, seed, layers)
                    where = f"layout {layout} m={m} k={k} seed={seed} {elem.decode()}"
                    self.check(f, values, where)
                    # None between the values: never held, the others' answers unmoved
                    with_none = [v for pair in zip(values, [None] * len(values)) for v in pair]
                    self.check(f, with_none, where + " with None")

    def test_floats_dates_and_uuids(self):
        import datetime as dt
        import math
        import uuid

        rng = random.Random(34)
        other_nan = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000001))[0]
        floats = [0.0, -0.0, math.nan, -math.nan, other_nan, math.inf, -math.inf, 5e-324, 1.5, -2.0]
        floats += [rng.uniform(-1e6, 1e6) for _ in range(300)] + [float(rng.randrange(100)) for _ in range(100)]
        dates = [dt.date.min, dt.date.max, dt.date(2000, 1, 1), dt.date(1999, 12, 31)]
        dates += [dt.date.fromordinal(rng.randrange(1, dt.date.max.toordinal())) for _ in range(400)]
        uuids = [uuid.UUID(int=0), uuid.UUID(int=(1 << 128) - 1)] + [uuid.UUID(int=rng.getrandbits(128)) for _ in range(400)]
        utc = dt.timezone.utc
        naive = [dt.datetime.min, dt.datetime.max, dt.datetime(2000, 1, 1), dt.datetime(1999, 12, 31, 23, 59, 59, 999999)]
        naive += [dt.datetime(2000, 1, 1) + dt.timedelta(microseconds=rng.randrange(-6 * 10**16, 6 * 10**16)) for _ in range(300)]
        aware = [d.replace(tzinfo=utc) for d in naive[2:]] + [dt.datetime(2000, 1, 1, 5, tzinfo=dt.timezone(dt.timedelta(hours=5)))]
        for layout, m, k in ((CLASSIC, 1000, 7), (BLOCKED512, 8192, 9), (COUNTING4, 999, 3)):
            for seed in (0, rng.getrandbits(64)):
                for elem, values in (
                    (b"pg_catalog.float_ops", floats),
                    (b"pg_catalog.date_ops", dates),
                    (b"pg_catalog.uuid_ops", uuids),
                    (b"pg_catalog.timestamp_ops", naive),
                    (b"pg_catalog.timestamptz_ops", aware),
                ):
                    f = make(rng, layout, elem, m, k, seed)
                    self.check(f, values + [None], f"layout {layout} seed={seed} {elem.decode()}")
        # -0 is 0 and every NaN is one key, in lanes as value by value
        f = make(rng, BLOCKED512, b"pg_catalog.float_ops", 512, 1, 7)
        self.assertEqual(len(set(f.contains_many([0.0, -0.0] * 50))), 1)
        self.assertEqual(f.contains_many([math.nan, -math.nan, other_nan]), [f.contains(math.nan)] * 3)
        # a datetime of the wrong kind is refused, as contains refuses it
        class NoOffset(dt.tzinfo):
            def utcoffset(self, d):
                return None

        for elem, values, fragment in (
            (b"pg_catalog.timestamp_ops", naive[:5] + [aware[0]], "time zone"),
            (b"pg_catalog.timestamp_ops", naive[:5] + [dt.datetime(2000, 1, 1, tzinfo=NoOffset())], "time zone"),
            (b"pg_catalog.timestamptz_ops", aware[:5] + [naive[0]], "naive"),
            (b"pg_catalog.timestamptz_ops", aware[:5] + [dt.datetime(2000, 1, 1, tzinfo=NoOffset())], "naive"),
        ):
            f = make(rng, BLOCKED512, elem, 8192, 9)
            with self.assertRaises(BloomFilterError) as cm:
                f.contains_many(values)
            self.assertIn(fragment, str(cm.exception))

    def test_batches_of_every_size(self):
        rng = random.Random(31)
        f = make(rng, BLOCKED512, INTEGER, 8192, 7)
        values = ints(rng, 3000)
        saved = filter_module._BATCH
        try:
            for batch in (1, 2, 3, 7, 64, 1000, 4096):
                filter_module._BATCH = batch
                self.check(f, values, f"batches of {batch}")
                # a batch of one value, of one None, and of Nones only
                self.assertEqual(f.contains_many(values[:1]), [f.contains(values[0])])
                self.assertEqual(f.contains_many([None]), [False])
                self.assertEqual(f.contains_many([None] * 5), [False] * 5)
        finally:
            filter_module._BATCH = saved

    def test_values_contains_refuses_are_refused(self):
        rng = random.Random(32)
        ints_f = make(rng, BLOCKED512, INTEGER, 8192, 7)
        text_f = make(rng, CLASSIC, TEXT, 1000, 7)
        for f, values, fragment in (
            (ints_f, [1, 2, 1 << 63, 3], "out of range"),
            (ints_f, [1, -(1 << 63) - 1], "out of range"),
            (ints_f, [1, True], "cannot be probed"),
            (ints_f, [1, 2.0], "cannot be probed"),
            (text_f, ["a", "b\ud800c"], "lone surrogate"),
            (text_f, ["a", "b\x00c", None], "NUL"),
            (text_f, ["a", b"b"], "cannot be probed"),
        ):
            with self.assertRaises(BloomFilterError, msg=repr(values)) as cm:
                f.contains_many(values)
            self.assertIn(fragment, str(cm.exception), repr(values))

    def test_other_kinds_of_value_go_value_by_value(self):
        # ints and strs mixed in a numeric filter, Decimals, a str subclass: no lanes,
        # contains's hash for each, probed in lanes
        from decimal import Decimal

        rng = random.Random(33)
        f = make(rng, BLOCKED512, b"pg_catalog.numeric_ops", 8192, 7)
        values = [1, "1.0", Decimal("2.50"), None] + [Decimal(rng.randrange(-10**6, 10**6)) / 100 for _ in range(300)]
        self.check(f, values, "numeric")

        class Name(str):
            pass

        g = make(rng, BLOCKED512, TEXT, 8192, 7)
        self.check(g, [Name(s) for s in strs(rng, 200)], "a str subclass")


if __name__ == "__main__":
    unittest.main()
