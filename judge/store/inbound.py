"""The inbound table's writer: received messages stored durably, each once.

Intake (judge.mail.intake) hands over rows ready to store; this module commits them.  On
PostgreSQL an ``INSERT … ON CONFLICT DO NOTHING`` per row; on SQLite a lean path of its own
(:class:`SqliteInbound`), because intake commits on the event loop while SMTP is parsed in the
same process.
"""

from __future__ import annotations

import sqlite3
import time
import weakref

from sqlalchemy.dialects.postgresql import insert as pg_insert

from judge.utc import utcnow
from judge.store.db import SQLITE_BUSY_TIMEOUT_MS, Store
from judge.store.models import InboundMessage, InboundStatus

# (dedupe_key, message_id, recipients, envelope_sender, raw), cleaned and cut to size
InboundRow = tuple[str, str | None, str, str, bytes]


def insert_inbound(store: Store, rows: list[InboundRow]) -> int:
    """Insert rows in one transaction; a message already stored (same key) is skipped.

    Returns how many rows were new.  The commit is durable when this returns.
    """
    if store.engine.dialect.name == "sqlite":
        new = SqliteInbound.of(store).insert(rows)
        assert new is not None  # waiting for the lock, it either stores or raises
        return new
    now = utcnow()
    stmt = pg_insert(InboundMessage).on_conflict_do_nothing(
        index_elements=["dedupe_key"]).returning(InboundMessage.id)
    with store.engine.begin() as conn:
        new = 0
        for key, message_id, recipients, sender, raw in rows:
            # One statement each; a duplicate returns no row.  (rowcount is not to be trusted
            # here: psycopg reports -1 for an INSERT that SQLAlchemy runs with RETURNING.)
            new += len(conn.execute(stmt, dict(
                dedupe_key=key, message_id=message_id, recipients=recipients,
                envelope_sender=sender, raw=raw, received_at=now, status=InboundStatus.NEW,
                attempts=0)).all())
        return new


class SqliteInbound:
    """Intake's own SQLite connection, with plain DB-API calls.

    Intake commits on every batch while the event loop parses SMTP in the same process, so its
    commit path is kept lean: one connection kept open (set up by the engine's connect hook:
    WAL, synchronous=FULL), one prepared INSERT, no ORM.  While another writer (the worker, the
    sender, a CLI command) holds the write lock, it asks again every few milliseconds instead of
    napping up to 100 ms a try as SQLite's busy handler does, so a burst of mail is not held up
    behind other writers.
    """

    POLL_MS = 1
    INSERT = ("INSERT INTO inbound (dedupe_key, message_id, recipients, envelope_sender, raw,"
              " received_at, status, attempts) VALUES (?, ?, ?, ?, ?, ?, 'new', 0)"
              " ON CONFLICT (dedupe_key) DO NOTHING")

    def __init__(self, store: Store) -> None:
        # Keep the pool's wrapper referenced: once it is collected the connection goes back to
        # the pool, short busy timeout and all, and another writer would get it.
        self._checked_out = store.engine.raw_connection()
        connection = self._checked_out.driver_connection
        assert isinstance(connection, sqlite3.Connection)
        self.connection = connection
        # No busy handler: insert() decides itself whether to wait for the lock or not.
        self.connection.execute("PRAGMA busy_timeout=0")

    @classmethod
    def of(cls, store: Store) -> "SqliteInbound":
        # One per store; InboundWriter never runs two flushes at once, so one connection serves.
        inbound = _SQLITE_INBOUND.get(store)
        if inbound is None:
            inbound = _SQLITE_INBOUND[store] = cls(store)
        return inbound

    def insert(self, rows: list[InboundRow], *, wait: bool = True) -> int | None:
        """Store and commit; with ``wait=False`` return None at once if another writer holds
        the lock (the event loop calls it so, and hands the batch to a thread instead)."""
        # SQLAlchemy's SQLite DateTime storage format, so the ORM reads these rows back.
        now = utcnow().strftime("%Y-%m-%d %H:%M:%S.%f")
        stamped = [(*row, now) for row in rows]
        db = self.connection
        deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                if not wait:
                    return None
                time.sleep(self.POLL_MS / 1000)
        try:
            before = db.total_changes
            db.executemany(self.INSERT, stamped)
            new = db.total_changes - before
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return new


_SQLITE_INBOUND: "weakref.WeakKeyDictionary[Store, SqliteInbound]" = weakref.WeakKeyDictionary()
