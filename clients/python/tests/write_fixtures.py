"""Values the server made, and filters built field by field, for test_write.py.

The server's values are PostgreSQL 15's, with this extension (the queries
above each); the filters built by hand follow the format's table
(core/bf_format.h).
"""

import struct

from pg_bloomfilter import BloomFilter

INTEGER = b"pg_catalog.integer_ops"

# the server's (PostgreSQL 15): D a derived filter of int8 values,
#   (SELECT bloom_agg(v, 40, 0.01) FROM generate_series(1, 20) v)
#   & (SELECT bloom_agg(v, 40, 0.01) FROM 1..10 and 100..109);
# D_ADD_1000 = bloom_add(D, 1000::int8) (6 new bits), D_ADD_1 = bloom_add(D, 1::int8)
# (none new); WIDE = bloom_agg(v, 40, 0.01) of 500..530; D_UNION_WIDE = D | WIDE
D = bytes.fromhex(
    "424c4f4d010101010700160000000000000000008101000000000000140000000000000076000000000000000a"
    "0000000000000070675f636174616c6f672e696e74656765725f6f7073144800008402c00012008d9a00044300"
    "00cd00401323c2000040c8000600603400480012020494804e0092100601206000"
)
D_TEXT = (
    "v1 classic m=385 k=7 scheme=1 seed=0 n=20 bound=118 est=10 elem=pg_catalog.integer_ops "
    "bits=FEgAAIQCwAASAI2aAARDAADNAEATI8IAAEDIAAYAYDQASAASAgSUgE4AkhAGASBgAA=="
)
D_ADD_1000 = bytes.fromhex(
    "424c4f4d01010101070016000000000000000000810100000000000015000000000000007c000000000000000b"
    "0000000000000070675f636174616c6f672e696e74656765725f6f7073144800008402c00012808d9a00054300"
    "00cd00401323c2000040c800060061340048001202049480ce0092100701206200"
)
D_ADD_1 = bytes.fromhex(
    "424c4f4d010101010700160000000000000000008101000000000000150000000000000076000000000000000a"
    "0000000000000070675f636174616c6f672e696e74656765725f6f7073144800008402c00012008d9a00044300"
    "00cd00401323c2000040c8000600603400480012020494804e0092100601206000"
)
WIDE = bytes.fromhex(
    "424c4f4d0101010007001600000000000000000081010000000000001f0000000000000070675f636174616c6f"
    "672e696e74656765725f6f7073223e45d26e30eb2cc4281a000fda6381120a94c4d60223b80559beacac6c8404"
    "3707290a799ab9a5c84272613bc57c6100"
)
D_UNION_WIDE = bytes.fromhex(
    "424c4f4d010101010700160000000000000000008101000000000000330000000000000019010000000000002800"
    "00000000000070675f636174616c6f672e696e74656765725f6f7073367e45d2ee32eb2cd6289f9a0fde638112cf"
    "94c4d723e3b80559feacae6ce434374f291a7b9ebda5ce42f2713fc57c6100"
)
# bloom_empty(100, 0.01)::text: 960 bits, all clear
EMPTY_100_TEXT = "v1 classic m=960 k=7 scheme=1 seed=0 n=0 elem= bits=" + "A" * 160
# bloom_empty(n, fpp, layout)'s m and k (tests/clients/sizing.sql)
SIZES = [
    (1, 0.01, "classic", 11, 7), (1, 0.01, "blocked512", 512, 60),
    (100, 0.01, "classic", 960, 7), (100, 0.01, "blocked512", 1024, 7),
    (1000, 0.01, "classic", 9594, 7), (1000, 0.01, "blocked512", 10240, 7),
    (1000000, 1e-9, "classic", 43132919, 30), (1000000, 0.0123, "blocked512", 9409536, 6),
    (1000000, 0.3, "classic", 2520609, 2),
]
UUID_ACCEPTED = [
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11",
    "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
    "a0eebc999c0b4ef8bb6d6bb9bd380a11",
    "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11",
    "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
]
UUID_REFUSED = [
    "urn:uuid:a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 ",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11-",
    "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}",
    "a0e-ebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "a0eebc99--9c0b-4ef8-bb6d-6bb9bd380a11",
    "-a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1",
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\n",
    "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "",
]


def header(layout=1, flags=0, k=7, elem=INTEGER, seed=0, m=97, n=1):
    return b"BLOM" + struct.pack("<BBBBHHQQQ", 1, layout, 1, flags, k, len(elem), seed, m, n)


def empty_like(binary):
    """A filter of the shape of the server's filter binary (layout, k, seed, m), empty:
    bloom_empty_mk's, to which the same values are then added."""
    layout, k, seed, m = binary[5], *struct.unpack_from("<H", binary, 8), *struct.unpack_from("<QQ", binary, 12)
    nbytes = (m + 1) // 2 if layout == 2 else (m + 7) // 8
    return BloomFilter.from_bytes(header(layout=layout, k=k, elem=b"", seed=seed, m=m, n=0) + bytes(nbytes))
