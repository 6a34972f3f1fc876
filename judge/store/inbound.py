"""The inbound table's writer: received messages stored durably, each once.

Intake (judge.mail.intake.accept) hands over rows ready to store; this module commits them.  On
PostgreSQL an ``INSERT … ON CONFLICT DO NOTHING`` per row; on SQLite a lean path of its own
(:class:`SqliteInbound`), because intake commits (in a thread of its own) while SMTP is parsed in
the same process, and a spool (:class:`Spool`) for the moments another writer holds the lock.
"""

from __future__ import annotations

import logging
import sqlite3
import weakref
from pathlib import Path

from sqlalchemy.dialects.postgresql import insert as pg_insert

from judge.basics.utc import utcnow
from judge.store.db import SQLITE_BUSY_TIMEOUT_MS, Store, begin_immediate
from judge.store.models import InboundMessage, InboundStatus

# (dedupe_key, message_id, recipients, envelope_sender, raw), cleaned and cut to size
InboundRow = tuple[str, str | None, str, str, bytes]
# the same and received_at, for SQLite (see stamped)
StampedRow = tuple[str, str | None, str, str, bytes, str]

log = logging.getLogger("judge.intake")


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

    Intake commits every batch while the event loop parses SMTP in the same process, so its
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
        the lock (the event loop calls it so, and spools the batch instead)."""
        return self.insert_stamped(stamped(rows), wait=wait)

    def insert_stamped(self, stamped: list[StampedRow], *, wait: bool = True) -> int | None:
        """:meth:`insert` of rows that carry their time of arrival (see :func:`stamp`)."""
        db = self.connection
        if not begin_immediate(db, wait=wait, poll=self.POLL_MS / 1000):
            return None
        try:
            before = db.total_changes
            db.executemany(self.INSERT, stamped)
            new = db.total_changes - before
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return new


def _locked(exc: sqlite3.DatabaseError) -> bool:
    """The error says only that another writer held the lock too long."""
    return "locked" in str(exc) or "busy" in str(exc)


_SQLITE_INBOUND: "weakref.WeakKeyDictionary[Store, SqliteInbound]" = weakref.WeakKeyDictionary()


def stamped(rows: list[InboundRow]) -> list[StampedRow]:
    """The rows with their time of arrival, now, in SQLAlchemy's SQLite DateTime storage
    format (so the ORM reads them back)."""
    now = utcnow().strftime("%Y-%m-%d %H:%M:%S.%f")
    return [(*row, now) for row in rows]


class Spool:
    """Messages intake accepted while another writer held SQLite's write lock.

    A SQLite file of its own beside the database (``judge.db`` → ``judge.db.spool``), written
    only by intake, so storing there never waits.  A message is answered 250 once it is
    committed here (WAL, synchronous=FULL, like the database), and moved into the inbound table
    as soon as the lock is free (:meth:`move`); while the spool holds anything every new
    arrival joins it, so messages reach the inbound table, and the worker, in the order they
    came.  A move commits the inbound rows first and then deletes them from the spool: a crash
    between the two moves them again, and the inbound table's duplicate check (the Message-ID
    key) keeps the second copy out, so each message is still stored, and executed, once.
    """

    COLUMNS = "dedupe_key, message_id, recipients, envelope_sender, raw, received_at"

    def __init__(self, path: Path) -> None:
        self.path = path
        # Spool rows the inbound table refused on their own (see move): kept in the spool,
        # tried again when the spool is next opened (the daemon restarted, say, once an
        # operator mended the database); the rest of the spool moves on without them.
        self.held: set[int] = set()
        self.connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db = self.connection
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        db.execute("CREATE TABLE IF NOT EXISTS spool (id INTEGER PRIMARY KEY, dedupe_key TEXT,"
                   " message_id TEXT, recipients TEXT, envelope_sender TEXT, raw BLOB,"
                   " received_at TEXT)")
        self.waiting = db.execute("SELECT count(*) FROM spool").fetchone()[0]

    @classmethod
    def beside(cls, store: Store) -> "Spool | None":
        """The spool of a SQLite database kept in a file; None for any other database."""
        url = store.engine.url
        if url.get_backend_name() != "sqlite" or not url.database \
                or url.database == ":memory:" or url.database.startswith("file:"):
            return None
        return cls(Path(url.database + ".spool"))

    def insert(self, stamped: list[StampedRow]) -> None:
        """Store and commit (durably: the caller answers 250 next)."""
        db = self.connection
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany(f"INSERT INTO spool ({self.COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                           stamped)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self.waiting += len(stamped)

    def move(self, inbound: SqliteInbound, also: list[StampedRow] | None = None, *,
             wait: bool = False) -> bool:
        """Move what the spool holds, oldest first, and then the rows ``also``, into the
        inbound table in one transaction (one disk flush); False, with nothing written, when
        the lock is taken and ``wait`` is False."""
        spooled = [row for row in self.connection.execute(
            f"SELECT id, {self.COLUMNS} FROM spool ORDER BY id") if row[0] not in self.held]
        try:
            if inbound.insert_stamped([row[1:] for row in spooled] + (also or []),
                                      wait=wait) is None:
                return False
        except sqlite3.DatabaseError as exc:
            if not spooled or _locked(exc):
                raise  # the caller's own rows (it answers for them), or only busy
            # A row the inbound table refuses must not keep every later message out of it
            # (while the spool holds anything, new mail joins it): move them one by one.
            if not self._move_one_by_one(inbound, spooled, wait):
                return False
            return also is None or self.move(inbound, also, wait=wait)
        self._forget([row[0] for row in spooled])
        return True

    def _move_one_by_one(self, inbound: SqliteInbound, spooled: list[tuple], wait: bool) -> bool:
        """Each spooled row in a transaction of its own; one refused is held back (logged).
        False when the lock was taken before all were tried (what moved is forgotten)."""
        moved: list[int] = []
        try:
            for row in spooled:
                try:
                    if inbound.insert_stamped([row[1:]], wait=wait) is None:
                        return False
                    moved.append(row[0])
                except sqlite3.DatabaseError as exc:
                    if _locked(exc):
                        raise
                    self.held.add(row[0])
                    log.error("spooled message %s (spool row %d) cannot be stored in the "
                              "inbound table (%s); it stays in %s, and is tried again when "
                              "the judge starts", row[2], row[0], exc, self.path)
        finally:
            self._forget(moved)
        return True

    def _forget(self, ids: list[int]) -> None:
        """Delete moved rows from the spool."""
        if ids:
            # Need not reach the disk: rows moved again after a crash are known by their key.
            db = self.connection
            db.execute("PRAGMA synchronous=NORMAL")
            try:
                db.executemany("DELETE FROM spool WHERE id = ?", [(i,) for i in ids])
            finally:
                db.execute("PRAGMA synchronous=FULL")
        self.waiting = self.connection.execute("SELECT count(*) FROM spool").fetchone()[0] \
            - len(self.held)

    def close(self) -> None:
        self.connection.close()
