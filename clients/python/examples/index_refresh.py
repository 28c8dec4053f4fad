"""A bloomfilter index's filter kept current in the application, with psycopg 3.

IndexFilter.refresh() asks the server whether the filter changed since it
was fetched (bloom_index_refresh) and fetches it only then.  A False from
the copy is certain as of the last refresh.

    pip install psycopg pg_bloomfilter-1.12.0-py3-none-any.whl
    PGDATABASE=... python index_refresh.py
"""
import psycopg

from pg_bloomfilter import IndexFilter

with psycopg.connect(autocommit=True) as conn:
    conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    conn.execute("DROP TABLE IF EXISTS example_users")
    conn.execute("CREATE TABLE example_users (name text)")
    conn.execute("INSERT INTO example_users SELECT 'user' || g FROM generate_series(1, 100000) g")
    conn.execute("CREATE INDEX example_users_seen ON example_users USING bloomfilter (name)")

    seen = IndexFilter("example_users_seen", conn)
    assert seen.refresh()                      # the first call fetches
    assert "user42" in seen
    free = [name for name in ("alice", "bob", "carol") if name not in seen]   # certainly free
    print(f"{len(free)} of 3 names certainly free, {seen.filter.info.bytes} bytes fetched")

    assert not seen.refresh()                  # nothing changed: no filter sent

    conn.execute("INSERT INTO example_users SELECT 'late' || g FROM generate_series(1, 1000) g")
    before = seen.filter
    late = [f"late{g}" for g in range(1, 1001)]
    missed = sum(1 for name in late if name not in before)
    assert seen.refresh()                      # keys added: fetched again
    assert all(name in seen for name in late)
    print(f"after 1,000 inserts: the old copy called {missed} of them absent, the refreshed one 0")
    assert not seen.refresh()
    conn.execute("DROP TABLE example_users")
