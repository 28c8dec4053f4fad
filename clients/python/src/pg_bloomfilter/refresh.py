"""IndexFilter: a bloomfilter index's filter, kept current where the application runs.

The server's bloom_index_refresh(index, known) sends the filter with a stamp
of its bytes, or only the stamp when the copy's stamp is still the index's:
a check is one short round trip, and the filter crosses the network only
when it changed.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from .errors import BloomFilterError
from .filter import BloomFilter

_SQL = ("SELECT stamp::text, bloom_send(filter) "
        "FROM bloom_index_refresh(%s::regclass, %s::bigint)")

# libpq's PQtransactionStatus, as psycopg 3 (psycopg.pq.TransactionStatus, an
# IntEnum) and psycopg2 (psycopg2.extensions.TRANSACTION_STATUS_*) give it:
# idle, and in a transaction (its statements done), or in a failed one
_IDLE, _INTRANS, _INERROR = 0, 2, 3


def _transaction_status(connection: Any) -> Optional[int]:
    """The connection's transaction status (0 idle, 1 active, 2 in a
    transaction, 3 in a failed one, 4 unknown) where the driver says it:
    psycopg 3 and psycopg2 (conn.info.transaction_status; psycopg2 before
    2.8: conn.get_transaction_status()); None for another driver."""
    status = getattr(getattr(connection, "info", None), "transaction_status", None)
    if status is None:
        get = getattr(connection, "get_transaction_status", None)
        status = get() if callable(get) else None
    try:
        return int(status) if status is not None else None
    except (TypeError, ValueError):
        return None


class IndexFilter:
    """The filter of bloomfilter index ``index`` (its name, as regclass reads it).

    ``connection`` is a DB-API connection whose paramstyle is ``%s``
    (psycopg 3, psycopg2, pg8000): ``refresh()`` runs one statement on a
    cursor of it.  Nothing is fetched until ``refresh()``.

    Without autocommit, that statement opens a transaction.  With psycopg 3
    or psycopg2, a refresh on a connection that was idle (no transaction
    open) ends it (a rollback: it only read), so the connection is idle
    again, as before; inside a transaction the caller opened, the refresh
    is one more statement of it, and the transaction stays open, neither
    committed nor rolled back.  Another driver's connection is left in the
    transaction the refresh opened: use autocommit, or end it.
    """

    def __init__(self, index: str, connection: Any):
        if not isinstance(index, str):
            raise BloomFilterError("IndexFilter takes the index's name as a str")
        if not hasattr(connection, "cursor"):
            raise BloomFilterError("IndexFilter takes a DB-API connection (psycopg, psycopg2, pg8000)")
        self._index = index
        self._connection = connection
        self._stamp: Optional[str] = None
        self._filter: Optional[BloomFilter] = None
        # one refresh at a time: a slower, older answer must not replace a newer filter
        self._lock = threading.Lock()

    def refresh(self) -> bool:
        """Fetch the filter if it changed since the last fetch (always the first time).

        Returns True if a new filter was fetched.  Calls from several threads
        run one at a time, each after the one before.  A psycopg 3 or
        psycopg2 connection that was idle is idle again after it (the class's
        note on transactions).
        """
        with self._lock:
            return self._refresh()

    def _refresh(self) -> bool:
        connection = self._connection
        # idle before: the transaction the statement may open is the refresh's own
        idle_before = _transaction_status(connection) == _IDLE
        try:
            cur = connection.cursor()
            try:
                cur.execute(_SQL, (self._index, self._stamp))
                row = cur.fetchone()
            finally:
                cur.close()
        finally:
            # (also after an error: the failed transaction is the refresh's)
            if idle_before and _transaction_status(connection) in (_INTRANS, _INERROR):
                connection.rollback()
        if row is None:
            raise BloomFilterError("bloom_index_refresh returned no row")
        stamp, data = row[0], row[1]
        if data is None:
            if self._filter is None:
                raise BloomFilterError("bloom_index_refresh sent no filter on the first call")
            return False
        self._filter = BloomFilter.from_bytes(bytes(data))
        self._stamp = str(stamp)
        return True

    @property
    def filter(self) -> BloomFilter:
        """The filter as last fetched (``refresh()`` first)."""
        if self._filter is None:
            raise BloomFilterError("no filter yet: call refresh() first")
        return self._filter

    @property
    def stamp(self) -> Optional[str]:
        """The stamp of the filter as last fetched (a decimal string), or None."""
        return self._stamp

    def contains(self, value: object) -> bool:
        """filter.contains(value): False is certain as of the last refresh."""
        return self.filter.contains(value)

    def __contains__(self, value: object) -> bool:
        return self.contains(value)
