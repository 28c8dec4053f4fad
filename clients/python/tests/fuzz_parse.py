"""Fuzz the parsers: mutated and random inputs, for a time, must load or raise
BloomFilterError, and a value that loads must answer probes without any
other error, contains_many as contains.  Seeds: the filters of a vectors file (BLOOM_VECTORS) if given,
else the values of tests/test_format.py.

    python3 tests/fuzz_parse.py SECONDS

Prints "fuzz_python: ok (N inputs)" or the first input that broke it, and
exits non-zero then.
"""

import json
import os
import random
import sys
import time

from pg_bloomfilter import BloomFilter, BloomFilterError

sys.path.insert(0, os.path.dirname(__file__))
from test_format import ONE, ONE_TEXT  # noqa: E402


def seeds():
    binary, text = [ONE], [ONE_TEXT]
    name = os.environ.get("BLOOM_VECTORS", "").split(":")[0]
    if name:
        with open(name, encoding="utf-8") as f:
            for line in f:
                for flt in json.loads(line)["filters"]:
                    if len(flt["hex"]) < 20000:  # small ones mutate faster
                        binary.append(bytes.fromhex(flt["hex"]))
                        text.append(flt["text"])
    return binary, text


def mutate(rng, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        if op == 0 and b:
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 1 and b:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif op == 2 and b:
            del b[rng.randrange(len(b)) :]
        elif op == 3:
            b[rng.randrange(len(b) + 1) : 0] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 4 and len(b) >= 36:
            # a header field set to an edge value
            at = rng.choice([4, 5, 6, 7, 8, 10, 12, 20, 28])
            size = {4: 1, 5: 1, 6: 1, 7: 1, 8: 2, 10: 2, 12: 8, 20: 8, 28: 8}[at]
            edge = rng.choice([0, 1, 2, 0xFF, 0xFFFF, (1 << (8 * size)) - 1, 1 << (8 * size - 1), 512, 64, 65])
            b[at : at + size] = (edge % (1 << (8 * size))).to_bytes(size, "little")
        else:
            b = bytearray(rng.randbytes(rng.randint(0, 80)))
    return bytes(b)


def exercise(f: BloomFilter, rng) -> None:
    """info, and probes of values of several kinds: contains_many (in lanes) must give
    contains's answers, or raise where contains raises."""
    f.info
    for kind in (
        lambda: rng.randrange(-(1 << 63), 1 << 63),
        lambda: rng.randbytes(rng.randrange(30)).hex(),
        lambda: rng.randbytes(rng.randrange(30)),
        lambda: rng.uniform(-10, 10),
    ):
        values = [kind() for _ in range(rng.randint(1, 6))] + [None]
        try:
            one = [f.contains(v) for v in values]
        except BloomFilterError:
            one = None
        try:
            many = f.contains_many(values)
        except BloomFilterError:
            many = None
        if one != many:
            raise AssertionError(f"contains answered {one}, contains_many {many}, for {values!r}")


def main() -> int:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    rng = random.Random(20261125)
    binary, text = seeds()
    end = time.monotonic() + seconds
    runs = 0
    while time.monotonic() < end:
        if rng.random() < 0.5:
            data = mutate(rng, rng.choice(binary))
            load = BloomFilter.from_bytes
            arg = data
        else:
            raw = mutate(rng, rng.choice(text).encode())
            arg = raw.decode("utf-8", "replace")
            load = BloomFilter.from_text
        try:
            f = load(arg)
        except BloomFilterError:
            runs += 1
            continue
        except Exception as e:  # anything else is a bug
            print(f"fuzz_python: FAILED: {type(e).__name__}: {e} on input {arg!r:.300}")
            return 1
        try:
            exercise(f, rng)
        except Exception as e:
            print(f"fuzz_python: FAILED: {type(e).__name__}: {e} probing {arg!r:.300}")
            return 1
        runs += 1
    print(f"fuzz_python: ok ({runs} inputs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
