"""The server's answers, given back bit for bit.

BLOOM_VECTORS names files made by tests/clients/vectors.sql (one JSON object
per type and line, colon-separated for several servers): for every type and
every layout the server writes, a filter in both forms and bloom_contains's
answer for every value.  The library must give each answer, and say yes to
every value added.  A value Python cannot hold (a date before year 1 or
after 9999) is counted as skipped, never silently passed.
"""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # vector_values, beside this file
from vector_values import CONVERT, vector_files  # noqa: E402

from pg_bloomfilter import BloomFilter  # noqa: E402


# filters that are not made of the values added: "empty" holds none,
# "classic_wide" the first absent ones (what a union with a derived filter takes)
NOT_OF_THE_ADDED = ("empty", "classic_wide")


class ServerAnswers(unittest.TestCase):
    def test_vectors(self):
        files = vector_files()
        if not files:
            self.skipTest("BLOOM_VECTORS is not set (tests/clients/run.sh sets it)")
        checked = skipped = 0
        for name in files:
            with open(name, encoding="utf-8") as f:
                for line in f:
                    case = json.loads(line)
                    c, s = self.check_type(case, name)
                    checked += c
                    skipped += s
        print(f"\nvectors: {checked} answers checked, {skipped} values Python cannot hold skipped")
        self.assertGreater(checked, 0)

    def check_type(self, case, source):
        ty = case["type"]
        convert = CONVERT[ty]
        values = [convert(t) for t in case["values"]]
        added = case["added"]
        checked = skipped = 0
        for flt in case["filters"]:
            where = f"{source}: {ty} {flt['name']}"
            from_bytes = BloomFilter.from_bytes(bytes.fromhex(flt["hex"]))
            # the text form reads to the same filter: same header, same bits
            from_text = BloomFilter.from_text(flt["text"])
            self.assertEqual(from_text.info, from_bytes.info, where)
            self.assertEqual(from_text._data, from_bytes._data, where)
            if "info" in flt:
                self.check_info(from_bytes, flt["info"], where)
            answers = flt["answers"]
            wrong = []
            # contains_many over every value (None where Python cannot hold one: never
            # held), computed in lanes (_lanes.py): each answer checked as contains's
            many = from_text.contains_many(values)
            self.assertEqual(len(many), len(values), where)
            for i, v in enumerate(values):
                if v is None:
                    if many[i]:
                        wrong.append((case["values"][i], "None held by contains_many"))
                    skipped += 1
                    continue
                want = answers[i] == "1"
                got = from_bytes.contains(v)
                if got != want:
                    wrong.append((case["values"][i], want, got))
                if many[i] != want:
                    wrong.append((case["values"][i], want, "contains_many", many[i]))
                if i < added and flt["name"] not in NOT_OF_THE_ADDED and not got:
                    wrong.append((case["values"][i], "added", got))
                checked += 1
            self.assertEqual(wrong[:10], [], f"{where}: {len(wrong)} answers differ")
        return checked, skipped

    def check_info(self, f, info, where):
        mine = f.info
        self.assertEqual(mine.layout, info["layout"], where)
        self.assertEqual(mine.nbits, info["nbits"], where)
        self.assertEqual(mine.nhashes, info["nhashes"], where)
        self.assertEqual(mine.bytes, info["bytes"], where)
        self.assertEqual(mine.values_added, info["values_added"], where)
        self.assertEqual(mine.bits_set, info["bits_set"], where)
        self.assertEqual(mine.element_family, info["element_family"], where)
        self.assertEqual(mine.seed, info["seed"], where)
        self.assertEqual(mine.hash_scheme, info["hash_scheme"], where)
        for field in ("fill_ratio", "estimated_distinct", "estimated_fpp"):
            want, got = info[field], getattr(mine, field)
            if want is None or got is None:
                self.assertEqual(got, want, f"{where} {field}")
            else:
                self.assertAlmostEqual(got, want, delta=1e-9 * max(1.0, abs(want)), msg=f"{where} {field}")


if __name__ == "__main__":
    unittest.main()
