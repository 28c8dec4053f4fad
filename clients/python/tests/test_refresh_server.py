"""IndexFilter against a server, through psycopg 3: what a refresh leaves of
the connection's transaction.  Run inside pg_virtualenv (the test command:
tests/clients/run.sh), or with PG* pointing at a database where the
extension is installed; skipped when no server answers, unless
BLOOM_REQUIRE_SERVER is set (the test command sets it)."""

import os
import unittest

from pg_bloomfilter import BloomFilterError, IndexFilter

try:
    import psycopg
    from psycopg.pq import TransactionStatus
except ImportError:  # pragma: no cover - Debian's python3-psycopg is missing
    psycopg = None

IDLE = "IDLE"
INTRANS = "INTRANS"


def _connect(**kwargs):
    if psycopg is None:
        if os.environ.get("BLOOM_REQUIRE_SERVER"):
            raise RuntimeError("psycopg 3 is missing (Debian: apt-get install python3-psycopg)")
        raise unittest.SkipTest("psycopg 3 is missing")
    try:
        return psycopg.connect(**kwargs)
    except psycopg.OperationalError as e:
        if os.environ.get("BLOOM_REQUIRE_SERVER"):
            raise
        raise unittest.SkipTest(f"no server: {e}")


class RefreshTransactions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with _connect(autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS bloomfilter")
            conn.execute("DROP TABLE IF EXISTS refresh_tx")
            conn.execute("CREATE TABLE refresh_tx (name text)")
            conn.execute("INSERT INTO refresh_tx SELECT 'user' || g FROM generate_series(1, 1000) g")
            conn.execute("CREATE INDEX refresh_tx_seen ON refresh_tx USING bloomfilter (name)")

    @classmethod
    def tearDownClass(cls):
        with _connect(autocommit=True) as conn:
            conn.execute("DROP TABLE IF EXISTS refresh_tx")

    def setUp(self):
        self.conn = _connect()  # psycopg's default: no autocommit
        self.addCleanup(self.conn.close)

    def status(self):
        return TransactionStatus(self.conn.info.transaction_status).name

    def count(self, name):
        with _connect(autocommit=True) as other:
            return other.execute("SELECT count(*) FROM refresh_tx WHERE name = %s", (name,)).fetchone()[0]

    def test_an_idle_connection_is_idle_again(self):
        seen = IndexFilter("refresh_tx_seen", self.conn)
        self.assertEqual(self.status(), IDLE)
        self.assertTrue(seen.refresh())
        self.assertEqual(self.status(), IDLE)  # was INTRANS ("idle in transaction") before 1.12
        self.assertIn("user42", seen)
        self.assertFalse(seen.refresh())
        self.assertEqual(self.status(), IDLE)
        # the server sees no session idle in transaction
        with _connect(autocommit=True) as other:
            states = other.execute("SELECT state FROM pg_stat_activity WHERE pid = %s",
                                   (self.conn.info.backend_pid,)).fetchall()
        self.assertEqual(states, [("idle",)])

    def test_a_failed_refresh_leaves_an_idle_connection_idle(self):
        seen = IndexFilter("no_such_index", self.conn)
        with self.assertRaises(psycopg.Error):
            seen.refresh()
        self.assertEqual(self.status(), IDLE)
        self.assertEqual(self.conn.execute("SELECT 1").fetchone(), (1,))  # usable, not INERROR

    def test_the_callers_transaction_stays_open_and_uncommitted(self):
        self.conn.execute("INSERT INTO refresh_tx VALUES ('uncommitted')")
        self.assertEqual(self.status(), INTRANS)
        seen = IndexFilter("refresh_tx_seen", self.conn)
        self.assertTrue(seen.refresh())
        self.assertIn("uncommitted", seen)  # the refresh ran in the caller's transaction
        self.assertEqual(self.status(), INTRANS)
        self.assertEqual(self.count("uncommitted"), 0)  # not committed by the refresh
        self.conn.rollback()
        self.assertEqual(self.count("uncommitted"), 0)
        # nor rolled back by it: the caller's commit commits what it did before
        self.conn.execute("INSERT INTO refresh_tx VALUES ('committed')")
        seen.refresh()
        self.assertEqual(self.status(), INTRANS)
        self.conn.commit()
        self.assertEqual(self.count("committed"), 1)

    def test_a_transaction_block_stays_open(self):
        seen = IndexFilter("refresh_tx_seen", self.conn)
        with self.conn.transaction():
            self.conn.execute("INSERT INTO refresh_tx VALUES ('in block')")
            seen.refresh()
            self.assertEqual(self.status(), INTRANS)
            self.assertEqual(self.count("in block"), 0)
        self.assertEqual(self.count("in block"), 1)  # committed by the block, as the caller meant
        self.conn.execute("DELETE FROM refresh_tx WHERE name = 'in block'")
        self.conn.commit()

    def test_autocommit(self):
        with _connect(autocommit=True) as conn:
            seen = IndexFilter("refresh_tx_seen", conn)
            self.assertTrue(seen.refresh())
            self.assertEqual(TransactionStatus(conn.info.transaction_status).name, IDLE)


class OtherDrivers(unittest.TestCase):
    def test_a_connection_without_a_status_is_left_as_it_is(self):
        # a DB-API connection that says nothing of its transactions (pg8000's):
        # never rolled back or committed by a refresh
        from pg_bloomfilter import BloomFilter

        f = BloomFilter.create("text", 10)
        f.add("x")
        ended = []

        class Cursor:
            def execute(self, sql, params):
                pass

            def fetchone(self):
                return ("1", f.to_bytes())

            def close(self):
                pass

        class Connection:
            def cursor(self):
                return Cursor()

            def rollback(self):
                ended.append("rollback")

            def commit(self):
                ended.append("commit")

        seen = IndexFilter("idx", Connection())
        self.assertTrue(seen.refresh())
        self.assertEqual(ended, [])
        with self.assertRaises(BloomFilterError):
            IndexFilter("idx", object())


if __name__ == "__main__":
    unittest.main()
