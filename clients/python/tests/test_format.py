"""Bad input gets the library's own error, with the server's message; the
API's edges.  Values are built here by hand, field by field, from the
format's table (core/bf_format.h), so that a check the parser lost fails."""

import datetime as dt
import struct
import unittest
from decimal import Decimal

from pg_bloomfilter import BloomFilter, BloomFilterError

ELEM = b"pg_catalog.integer_ops"
# 1 added to a classic filter of m = 97, k = 7 (the server's bloom_agg(1::int8, 10, 0.01))
ONE = bytes.fromhex(
    "424c4f4d010101000700160000000000000000006100000000000000010000000000000070675f"
    "636174616c6f672e696e74656765725f6f707308008000000400400000020000"
)
ONE_TEXT = (
    "v1 classic m=97 k=7 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops bits=CACAAAAEAEAAAAIAAA=="
)


def header(layout=1, scheme=1, flags=0, k=7, elem=ELEM, seed=0, m=97, n=1, version=1):
    return b"BLOM" + struct.pack("<BBBBHHQQQ", version, layout, scheme, flags, k, len(elem), seed, m, n)


class Loading(unittest.TestCase):
    def test_the_servers_value(self):
        f = BloomFilter.from_bytes(ONE)
        g = BloomFilter.from_text(ONE_TEXT)
        self.assertTrue(f.contains(1) and g.contains(1))
        self.assertFalse(f.contains(2) or g.contains(2))
        self.assertEqual(f.info, g.info)
        self.assertEqual(f.info.bytes, len(ONE) + 4)
        self.assertEqual(len(f), 1)

    def test_pickling_and_copying(self):
        import copy
        import pickle

        for f in (BloomFilter.from_bytes(ONE), BloomFilter.from_text(ONE_TEXT)):
            for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
                g = pickle.loads(pickle.dumps(f, protocol))
                self.assertIsNot(g, f)
                self.assertEqual(g.info, f.info)
                self.assertEqual([g.contains(v) for v in range(-5, 50)],
                                 [f.contains(v) for v in range(-5, 50)])
            # filters are mutable (add): a copy is another filter, equal until one changes
            for g in (copy.copy(f), copy.deepcopy(f)):
                self.assertIsNot(g, f)
                self.assertEqual(g, f)
                g.add(2)
                self.assertNotEqual(g, f)
                self.assertFalse(f.contains(2))
            self.assertTrue(copy.deepcopy({"f": f})["f"].contains(1))

    def refused(self, data, fragment):
        with self.assertRaises(BloomFilterError) as cm:
            BloomFilter.from_bytes(data)
        self.assertIn(fragment, str(cm.exception))

    def test_every_truncation_is_refused(self):
        for cut in range(len(ONE)):
            with self.assertRaises(BloomFilterError):
                BloomFilter.from_bytes(ONE[:cut])
        self.refused(ONE + b"\x00", "implies")

    def test_header_fields(self):
        body = ONE[36:]
        self.refused(b"BLOB" + ONE[4:], "bad magic")
        self.refused(header(version=2) + body, "unknown format version 2")
        self.refused(header(layout=10) + body, "unknown layout 10")
        self.refused(header(layout=9) + body, "read it with WindowFilter.from_bytes")
        self.refused(header(scheme=2) + body, "unknown hash scheme 2")
        self.refused(header(flags=0x80) + body, "unknown flags 0x80")
        self.refused(header(k=0) + body, "k = 0 is out of range")
        self.refused(header(k=65) + body, "k = 65 is out of range")
        self.refused(header(m=0) + body, "m must be at least 1")
        self.refused(header(m=200) + body, "implies")
        self.refused(header(m=1 << 62) + body, "exceeds the maximum")
        self.refused(header(n=1 << 63) + body, "values added is out of range")
        self.refused(header(layout=3, m=97) + body, "not a multiple of 512")
        self.refused(header(layout=2) + body, "implies")  # counting4: m counters take m / 2 bytes
        self.refused(header(flags=1) + body, "implies")  # derived: 16 more bytes
        self.refused(header(layout=4, flags=1, k=0, m=0) + ELEM, "cannot be derived")

    def test_data_checks(self):
        bits = bytearray(ONE[36 + len(ELEM) :])
        self.refused(header() + ELEM + bytes(bits[:-1]) + b"\x02", "bits beyond m = 97 are set")
        self.refused(header(n=0) + ELEM + bytes(bits), "no values were added")
        self.refused(header(elem=b"") + bytes(bits), "element key is empty")
        self.refused(header(elem=b"a\x01b") + b"a\x01b" + bytes(bits), "control character")
        self.refused(header(k=1) + ELEM + bytes(bits), "more than k = 1 times")
        # explicit: strictly increasing hashes, no more than the values added
        two = struct.pack("<QQ", 5, 5)
        self.refused(header(layout=4, k=0, m=2, n=2) + ELEM + two, "strictly increasing")
        self.refused(header(layout=4, k=0, m=2, n=1) + ELEM + struct.pack("<QQ", 1, 2), "more than the 1 values")
        # layered: the layers' entries
        layer = struct.pack("<QH", 512, 7)
        self.refused(header(layout=5, k=1, m=1024) + ELEM + layer + bytes(128), "sum to 512")
        self.refused(
            header(layout=5, k=1, m=512) + ELEM + struct.pack("<QH", 512, 0) + bytes(64), "k = 0, out of range"
        )

    def test_text_is_canonical(self):
        for bad, fragment in [
            (ONE_TEXT.replace("v1", "v2"), "unknown format version"),
            (ONE_TEXT.replace("classic", "classy"), "unknown layout"),
            (ONE_TEXT.replace("m=97", "m=097"), "leading zeros"),
            (ONE_TEXT.replace("k=7 ", "k=7  "), 'expected "scheme="'),
            (ONE_TEXT.replace("bits=", "bitz="), 'expected "bits="'),
            (ONE_TEXT[:-1], "base64 characters"),
            (ONE_TEXT.replace("AA==", "AB=="), "non-zero base64 padding bits"),
            (ONE_TEXT.replace("elem=pg_catalog", "elem=pg%5Fcatalog"), "must not be escaped"),
            (ONE_TEXT.replace("elem=pg_catalog", "elem=pg catalog"), 'expected "bits="'),
            (ONE_TEXT.replace("n=1 ", "n=9223372036854775808 "), "out of range"),
            (ONE_TEXT.replace("m=97", "m=" + "9" * 100000), "out of range"),
            (ONE_TEXT.replace("m=97", "m=" + "0" * 100000 + "97"), "leading zeros"),
            ("", 'starts with "v1 "'),
        ]:
            with self.assertRaises(BloomFilterError, msg=bad) as cm:
                BloomFilter.from_text(bad)
            self.assertIn(fragment, str(cm.exception), bad)

    def test_wrong_kinds_of_input(self):
        with self.assertRaises(BloomFilterError):
            BloomFilter.from_bytes(ONE_TEXT)
        with self.assertRaises(BloomFilterError):
            BloomFilter.from_text(ONE)
        # a bytea as psycopg returns it: bytes, or a memoryview
        self.assertTrue(BloomFilter.from_bytes(memoryview(ONE)).contains(1))
        self.assertTrue(BloomFilter.from_bytes(bytearray(ONE)).contains(1))


class Probing(unittest.TestCase):
    def setUp(self):
        self.f = BloomFilter.from_bytes(ONE)

    def test_sql_equality_of_integers(self):
        self.assertTrue(self.f.contains(1) and 1 in self.f)
        self.assertFalse(self.f.contains(None))
        with self.assertRaises(BloomFilterError) as cm:
            self.f.contains(1 << 63)
        self.assertIn("out of range", str(cm.exception))

    def test_values_of_another_family_are_refused(self):
        for value in ("1", 1.0, Decimal(1), b"\x01", dt.date(2000, 1, 1), [1], True):
            with self.assertRaises(BloomFilterError, msg=repr(value)) as cm:
                self.f.contains(value)
            self.assertIn("pg_catalog.integer_ops", str(cm.exception))

    def test_contains_many_answers_as_contains(self):
        f = self.f
        self.assertEqual(f.contains_many([1, 2, None, -1]), [True, False, False, False])
        self.assertEqual(f.contains_many([]), [])
        self.assertEqual(f.contains_many(v for v in (2, 1)), [False, True])
        self.assertEqual(f.contains_many(range(3)), [f.contains(v) for v in range(3)])
        for bad in (None, 1, "12", b"12"):
            with self.assertRaises(BloomFilterError, msg=repr(bad)) as cm:
                f.contains_many(bad)
            self.assertIn("contains_many takes", str(cm.exception))
        with self.assertRaises(BloomFilterError) as cm:
            f.contains_many([1, "1"])
        self.assertIn("pg_catalog.integer_ops", str(cm.exception))
        empty = BloomFilter.from_bytes(header(elem=b"", n=0) + bytes(13))
        self.assertEqual(empty.contains_many([1, "a", None]), [False, False, False])

    def test_nondeterministic_collation(self):
        elem = b"pg_catalog.text_ops@public.ci"
        f = BloomFilter.from_bytes(header(elem=elem) + elem + bytes(13))
        with self.assertRaises(BloomFilterError) as cm:
            f.contains("a")
        self.assertIn("nondeterministic collation", str(cm.exception))

    def test_an_empty_filter_holds_nothing(self):
        empty = BloomFilter.from_bytes(header(elem=b"", n=0) + bytes(13))
        for value in (1, "a", b"", 1.5, Decimal("1"), dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)):
            self.assertFalse(empty.contains(value))
        with self.assertRaises(BloomFilterError):
            empty.contains(object())
        self.assertIsNone(empty.info.element_family)



class ElementKeys(unittest.TestCase):
    """(1.12) An element key is valid UTF-8, in both forms; a message shows
    its bytes escaped, never raw."""

    BITS = ONE[36 + len(ELEM):]

    @staticmethod
    def text(key: bytes) -> str:
        plain = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.@$-"
        pct = "".join(chr(c) if c in plain else f"%{c:02X}" for c in key)
        return ONE_TEXT.replace("elem=pg_catalog.integer_ops", "elem=" + pct)

    def binary(self, key: bytes) -> bytes:
        return header(elem=key) + key + self.BITS

    def test_invalid_keys_are_refused_with_their_bytes_escaped(self):
        for key, shown in (
            (b"pg_c\xFFtalog.integer_ops", "pg_c\\xFFtalog.integer_ops"),  # the key
            (b"pg_catalog.integer_ops\xC3", "pg_catalog.integer_ops\\xC3"),  # truncated
            (b"pg_catalog.\xC0\x80x", "pg_catalog.\\xC0\\x80x"),  # overlong NUL
            (b"s\xED\xA0\x80.x", "s\\xED\\xA0\\x80.x"),  # a surrogate
            (b"s\xF4\x90\x80\x80.x", "s\\xF4\\x90\\x80\\x80.x"),  # past U+10FFFF
            (b"latin\xE9.ops", "latin\\xE9.ops"),  # Latin-1, read before 1.12
            (b'"q"\\\xFF', '"q"\\x5C\\xFF'),  # as the server shows it: " kept, \ escaped
        ):
            for load, data in ((BloomFilter.from_bytes, self.binary(key)), (BloomFilter.from_text, self.text(key))):
                with self.assertRaises(BloomFilterError) as cm:
                    load(data)
                message = str(cm.exception)
                self.assertEqual(message, f'element key "{shown}" is not valid UTF-8', load.__name__)
                self.assertTrue(message.isascii(), message)  # no raw byte, no character decoded from one

    def test_control_characters_are_still_refused_first(self):
        with self.assertRaises(BloomFilterError) as cm:
            BloomFilter.from_bytes(self.binary(b"a\x01\xFF"))
        self.assertIn("control character", str(cm.exception))

    def test_a_valid_non_ascii_key_is_read_and_written_back(self):
        for key in ("données.integer_ops".encode(), b"\xEF\xBB\xBFs.x"):  # (a BOM is kept)
            for f in (BloomFilter.from_bytes(self.binary(key)), BloomFilter.from_text(self.text(key))):
                self.assertEqual(f.element_family, key.decode("utf-8"))
                self.assertEqual(f.to_bytes(), self.binary(key))
                self.assertEqual(str(f), self.text(key))
        self.assertIn(" elem=donn%C3%A9es.integer_ops ", self.text("données.integer_ops".encode()))

    def test_text_refused_before_decoding_shows_the_byte_escaped(self):
        with self.assertRaises(BloomFilterError) as cm:
            BloomFilter.from_text(ONE_TEXT.replace("elem=pg_catalog", "elem=pg_cätalog"))
        self.assertEqual(str(cm.exception), "element key holds an unescaped byte \\xC3")

if __name__ == "__main__":
    unittest.main()
