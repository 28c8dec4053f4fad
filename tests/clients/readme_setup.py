# The data the snippets of clients/python/README.md assume, as its "Use"
# says: a table users (names) with a bloomfilter index users_name_seen, a
# table orders (customer_id int8), an open psycopg 3 connection conn (no
# autocommit: psycopg's default), the application's candidates (names to
# check) and keys (int8 keys).  tests/clients/readme_examples.py puts this
# before each block it writes out; examples.sh runs them.
import psycopg as _setup_psycopg

with _setup_psycopg.connect(autocommit=True) as _setup:
    _setup.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
    _setup.execute("DROP TABLE IF EXISTS users, orders")
    _setup.execute("CREATE TABLE users (name text)")
    _setup.execute("INSERT INTO users SELECT 'user' || g FROM generate_series(1, 10000) g")
    _setup.execute("CREATE INDEX users_name_seen ON users USING bloomfilter (name)")
    _setup.execute("CREATE TABLE orders (id int8, customer_id int8)")
    _setup.execute("INSERT INTO orders SELECT g, (g * 7919) % 100003 FROM generate_series(1, 100000) g")
conn = _setup_psycopg.connect()
candidates = ["alice", "bob", "user1", "user42", "carol", "user10001"]
keys = [i * 97 for i in range(1000)]
