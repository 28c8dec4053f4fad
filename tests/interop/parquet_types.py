#!/usr/bin/python3
"""tests/interop/parquet_types.py keys DIR N | probe SBBF TYPE KEYS: the
Parquet types DuckDB writes beyond the harness's five (../shared/interop
parquet.mjs: BIGINT, INTEGER, DOUBLE, VARCHAR, BLOB), for tests/interop.

  keys DIR N     writes DIR/TYPE_in.txt and DIR/TYPE_out.txt (N keys each,
                 as text both DuckDB and PostgreSQL cast to the type) for
                 SMALLINT, DATE, TIMESTAMP, TIMESTAMPTZ, FLOAT and UUID;
  probe F T K    the Parquet spec read independently (the harness's sbbf.py:
                 its Thrift reader, XXH64 and salts) with T's plain
                 encoding: INT32 (SMALLINT; DATE as days since 1970-01-01),
                 INT64 (TIMESTAMP, TIMESTAMPTZ: microseconds since 1970),
                 FLOAT (IEEE single), FIXED_LEN_BYTE_ARRAY(16) (UUID, its
                 bytes in order); prints 1/0 per key of file K.
"""

import datetime as dt
import hashlib
import importlib.util
import os
import struct
import sys

TYPES = ("SMALLINT", "DATE", "TIMESTAMP", "TIMESTAMPTZ", "FLOAT", "UUID")
EPOCH = dt.datetime(1970, 1, 1)


def key_text(t, g):
    x = (g * 2654435761) % 1000000007
    if t == "SMALLINT":
        return str(x % 65536 - 32768)
    if t == "DATE":
        return (dt.date(1000, 1, 1) + dt.timedelta(days=x % 3000000)).isoformat()
    if t in ("TIMESTAMP", "TIMESTAMPTZ"):
        s = (EPOCH + dt.timedelta(microseconds=x * 1000003)).strftime("%Y-%m-%d %H:%M:%S.%f")
        return s + ("+00" if t == "TIMESTAMPTZ" else "")
    if t == "FLOAT":
        return repr((x % 16777216) / 8)
    h = hashlib.md5(str(g).encode()).hexdigest()
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def encode(t, s):
    if t == "SMALLINT":
        return struct.pack("<i", int(s))
    if t == "DATE":
        return struct.pack("<i", (dt.date.fromisoformat(s) - dt.date(1970, 1, 1)).days)
    if t in ("TIMESTAMP", "TIMESTAMPTZ"):
        d = dt.datetime.strptime(s[:26], "%Y-%m-%d %H:%M:%S.%f") - EPOCH
        return struct.pack("<q", (d.days * 86400 + d.seconds) * 1000000 + d.microseconds)
    if t == "FLOAT":
        return struct.pack("<f", float(s))
    return bytes.fromhex(s.replace("-", ""))


def main():
    if sys.argv[1] == "keys":
        d, n = sys.argv[2], int(sys.argv[3])
        for t in TYPES:
            for name, rng in (("in", range(1, n + 1)), ("out", range(n + 1, 2 * n + 1))):
                with open(os.path.join(d, "%s_%s.txt" % (t, name)), "w") as f:
                    f.writelines(key_text(t, g) + "\n" for g in rng)
        return
    sbbf_file, t, keys = sys.argv[2], sys.argv[3], sys.argv[4]
    spec = importlib.util.spec_from_file_location("sbbf", os.environ["SBBF_PY"])
    sbbf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sbbf)
    data = open(sbbf_file, "rb").read()
    hdr, off = sbbf.struct_(data, 0)
    bits = data[off : off + hdr[1]]
    words = struct.unpack("<%dI" % (len(bits) // 4), bits)
    nblocks = len(bits) // 32
    out = []
    for line in open(keys).read().split("\n")[:-1]:
        h = sbbf.xxh64_intdigest(encode(t, line), 0)
        blk, x = ((h >> 32) * nblocks) >> 32, h & 0xFFFFFFFF
        ok = all(words[blk * 8 + j] >> (((x * sbbf.SALT[j]) & 0xFFFFFFFF) >> 27) & 1 for j in range(8))
        out.append("1" if ok else "0")
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    main()
