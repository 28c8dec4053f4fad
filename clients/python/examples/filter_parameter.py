"""The application's side of a bloom join, with psycopg 3.

The application holds a set of keys (from a file, another service, another
database), writes a filter of them and sends it as one bytea parameter; the
server drops every row the filter rules out, and the application checks
the few rows that come back against its exact set.  The filter's bytes are
the server's own: bloom_agg of the same keys gives them.

    pip install psycopg pg_bloomfilter-1.12.0-py3-none-any.whl
    PGDATABASE=... python filter_parameter.py
"""
import psycopg

from pg_bloomfilter import BloomFilter

with psycopg.connect(autocommit=True) as conn:
    conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    conn.execute("DROP TABLE IF EXISTS example_orders")
    conn.execute("CREATE TABLE example_orders AS "
                 "SELECT g AS id, (g * 7919) % 1000003 AS customer_id FROM generate_series(1, 200000) g")

    keys = [i * 50 for i in range(20000)]
    wanted = set(keys)
    f = BloomFilter.create("int8", expected_items=len(keys), false_positive_rate=0.01)
    f.add_many(keys)
    data = f.to_bytes()

    # byte for byte what the server writes for the same keys
    server = conn.execute("SELECT bloom_send(bloom_agg(k, %s, 0.01, 'classic')) FROM unnest(%s::int8[]) k",
                          (len(keys), keys)).fetchone()[0]
    assert bytes(server) == data

    # the server drops the rows the filter rules out; the application keeps the exact matches
    rows = conn.execute("SELECT id, customer_id FROM example_orders WHERE (SELECT %s::bytea::bloom) @> customer_id",
                        (data,)).fetchall()
    matched = [r for r in rows if r[1] in wanted]
    exact = conn.execute("SELECT count(*) FROM example_orders WHERE customer_id = ANY(%s::int8[])",
                         (keys,)).fetchone()[0]
    assert len(matched) == exact               # no row lost
    # the same rows whether the server reads the bytes as %s::bloom or as
    # %s::bytea::bloom; bytes(f) is f.to_bytes() (psycopg does not adapt the
    # filter itself: to_bytes() is the parameter, or a dumper, README.md)
    for cast in ("%s::bloom", "%s::bytea::bloom"):
        again = conn.execute(f"SELECT count(*) FROM example_orders WHERE (SELECT {cast}) @> customer_id",
                             (bytes(f),)).fetchone()[0]
        assert again == len(rows), cast
    print(f"{len(data)} bytes sent for {len(keys)} keys; {len(rows)} rows came back, {len(matched)} matched exactly")
    conn.execute("DROP TABLE example_orders")
