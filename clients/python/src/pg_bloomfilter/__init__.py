"""pg_bloomfilter: probe and write PostgreSQL bloomfilter values where the application runs.

    from pg_bloomfilter import BloomFilter

    f = BloomFilter.from_bytes(cur.execute("SELECT bloom_send(f) FROM ...").fetchone()[0])
    if "alice" in f:      # False: certainly not in the set; True: ask the server
        ...

    g = BloomFilter.create("bigint", expected_items=10_000, false_positive_rate=0.01)
    g.add_many(ids)       # bloom_agg(id, 10000, 0.01)'s filter, byte for byte
    cur.execute("SELECT o.* FROM orders o WHERE (SELECT %s::bytea::bloom) @> o.id", (g.to_bytes(),))

    seen = IndexFilter("users_name_seen", conn)   # an index's filter, kept current:
    seen.refresh()                                # fetched again only if it changed

The answers are the server's, bit for bit (bloom_contains), false positives
included; the library reads every layout of the server's own, and writes
classic, blocked512 and counting4 filters as the server does (create, add,
union; to_bytes and str give bloom_send's bytes and the text form).  Other
systems' filters (Spark's, Guava's, Parquet's), in their makers' bytes or
as the bloom values bloom_import makes, are pg_bloomfilter.makers's.  See
the extension's docs/clients.md and docs/interop.md.
"""

from .errors import BloomFilterError
from .filter import BloomFilter, FilterInfo
from .refresh import IndexFilter
from .window import WindowFilter, WindowInfo

__all__ = ["BloomFilter", "BloomFilterError", "FilterInfo", "IndexFilter", "WindowFilter", "WindowInfo"]
__version__ = "1.12.0"
