"""pg_bloomfilter: probe a PostgreSQL bloomfilter value where the application runs.

    from pg_bloomfilter import BloomFilter

    f = BloomFilter.from_bytes(cur.execute("SELECT bloom_send(f) FROM ...").fetchone()[0])
    if "alice" in f:      # False: certainly not in the set; True: ask the server
        ...

The answers are the server's, bit for bit (bloom_contains), false positives
included; the library reads every layout the server writes and writes
nothing.  See the extension's docs/clients.md.
"""

from .errors import BloomFilterError
from .filter import BloomFilter, FilterInfo

__all__ = ["BloomFilter", "BloomFilterError", "FilterInfo"]
__version__ = "1.10.0"
