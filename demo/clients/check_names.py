"""The seeds' first use of a Bloom filter (seed 000): "has this user name
been registered?", asked before an expensive lookup.

An application checks CANDIDATES candidate user names against the
`users` table. It fetches the table's filter once (bloom_index_filter of
the bloomfilter index on users.name, in its binary form) and asks the
server only about the names the filter may hold; every "no" is certain and
costs no round trip. At the end it checks its answers against the server's
(one query over all the candidates) and prints how many round trips the
filter saved.

    python3 check_names.py            (libpq's environment: PGHOST, PGPORT, ...)
"""

import sys
import time

import psycopg

from pg_bloomfilter import BloomFilter

CANDIDATES = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000


def main() -> None:
    with psycopg.connect(autocommit=True) as conn:
        t0 = time.perf_counter()
        data = conn.execute("SELECT bloom_send(bloom_index_filter('users_name_seen'))").fetchone()[0]
        registered = BloomFilter.from_bytes(data)
        info = registered.info
        print(f"filter: {info.layout}, {info.values_added:,} names, {info.bytes / 1e6:.1f} MB, "
              f"estimated rate {info.estimated_fpp:.4%}, fetched and loaded in "
              f"{(time.perf_counter() - t0) * 1000:.0f} ms")

        # the candidates: every tenth a registered name, the others new
        candidates = [f"user{(i * 7919) % 100_000_000}" if i % 10 == 0 else f"new{i}"
                      for i in range(CANDIDATES)]
        t0 = time.perf_counter()
        taken = set()
        round_trips = 0
        lookup = "SELECT EXISTS (SELECT FROM users WHERE name = %s)"
        for name in candidates:
            if name not in registered:
                continue  # certainly free
            round_trips += 1
            if conn.execute(lookup, (name,)).fetchone()[0]:
                taken.add(name)
        elapsed = time.perf_counter() - t0

        # the server's own answer, in one query, to check ours
        truth = {row[0] for row in conn.execute(
            "SELECT name FROM users WHERE name = ANY(%s)", (candidates,))}
        assert taken == truth, "the filter lost a registered name"
        saved = len(candidates) - round_trips
        print(f"{len(candidates):,} candidates, {len(taken):,} taken: {round_trips:,} round trips "
              f"instead of {len(candidates):,} ({saved:,} saved, {saved / len(candidates):.1%}); "
              f"{round_trips - len(taken):,} of them false positives; {elapsed:.1f} s")
        print("every answer agrees with the server's")


if __name__ == "__main__":
    main()
