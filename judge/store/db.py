"""Engine and sessions: how the judge talks to its SQL store.

On SQLite every connection runs in WAL mode with foreign keys on, a busy timeout and
``synchronous=FULL`` (so a commit is fsync'd before intake answers 250), and every transaction
starts with ``BEGIN IMMEDIATE`` so two writers never deadlock on a lock upgrade -- except those
of :meth:`Store.reading`, which only read and so take no write lock at all.  The threads of one
process that write to one SQLite file queue on a mutex of their own before ``BEGIN IMMEDIATE``
(:class:`_QueuedWriters`), so the next writer starts the moment the last one commits.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, cast

from sqlalchemy import Connection, CursorResult, Engine, Result, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 30_000
# How often a write transaction of a Store made with polls_for_lock asks for the lock again.
LOCK_POLL = 0.0005
# Execution option of the engine behind Store.reading(): its transactions only read.
READ_ONLY = "judge_read_only"


class _QueuedWriters(sqlite3.Connection):
    """A SQLite connection whose write transactions queue on a mutex shared by the connections
    of one engine, taken before ``BEGIN IMMEDIATE`` and given back when the transaction ends.

    Why: SQLite lets one writer in at a time, and one that finds the file locked sleeps and
    tries again, sleeping up to 100 ms between tries.  The worker process's worker, sender and
    scheduler are threads of one process writing to one file: while the sender slept in that
    loop the worker, done with its batch, waited for the sender -- both idle (measured in a
    storm of hostile mail: a third of the worker process's time asleep in ``BEGIN IMMEDIATE``).
    On a mutex the next thread wakes the moment the lock is free.  Writers in other processes
    (intake's own writer, a command run by hand) still meet SQLite's busy timeout."""

    write_lock: threading.Lock  # one per engine: set on the subclass made_for() makes
    holds_write_lock = False

    @classmethod
    def made_for(cls) -> type["_QueuedWriters"]:
        return type("QueuedWriters", (cls,), {"write_lock": threading.Lock()})

    def take_write_lock(self) -> None:
        if not self.write_lock.acquire(timeout=SQLITE_BUSY_TIMEOUT_MS / 1000):
            raise sqlite3.OperationalError("database is locked (by a writer of this process)")
        self.holds_write_lock = True

    def give_back_write_lock(self) -> None:
        if self.holds_write_lock:
            self.holds_write_lock = False
            self.write_lock.release()

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.give_back_write_lock()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.give_back_write_lock()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.give_back_write_lock()


def make_engine(url: str, polls_for_lock: bool = False) -> Engine:
    """The engine for ``url``.  ``polls_for_lock`` (SQLite): a write transaction that finds
    the lock taken asks again every half millisecond instead of through SQLite's busy handler,
    which sleeps 1, 2, 5, 10, … up to 100 ms between tries and so seldom wakes in the short gaps
    between another process's transactions (the sender's, between the worker's).  It costs a
    little CPU while it waits, the price of getting in within a millisecond of a gap."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"check_same_thread": False,
                                                  "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
                                                  "factory": _QueuedWriters.made_for()})
        _tune_sqlite(engine, polls_for_lock)
    else:
        engine = create_engine(url, pool_pre_ping=True)
    _plain_savepoints(engine)
    return engine


def _plain_savepoints(engine: Engine) -> None:
    """Send ``engine``'s SAVEPOINT, RELEASE and ROLLBACK TO statements straight to the driver.

    The worker puts each message of a batch in a savepoint of its own (``begin_nested``), so
    that one that fails is undone alone.  SQLAlchemy builds each of those statements as an
    expression that its statement cache does not keep, and compiles it anew every time: the
    pair cost about a tenth of the worker's CPU per mail.  Written out here they are the same
    statements, with the name SQLAlchemy chose (quoted as its compiler would), sent on the same
    connection; the session's bookkeeping of nested transactions is unchanged.  These are the
    dialect's documented hooks for emitting them (``Dialect.do_savepoint`` and its siblings),
    set on this engine's dialect only."""
    dialect = engine.dialect
    name_of = dialect.identifier_preparer.format_savepoint

    def emit(statement: str) -> Callable[[Connection, str], None]:
        def run(connection: Connection, name: str) -> None:
            driver = connection.connection.dbapi_connection
            assert driver is not None  # SQLAlchemy calls the hook on an open connection only
            cursor = driver.cursor()
            try:
                cursor.execute(f"{statement} {name_of(None, name)}")
            finally:
                cursor.close()
        return run

    for hook, statement in (("do_savepoint", "SAVEPOINT"),
                            ("do_release_savepoint", "RELEASE SAVEPOINT"),
                            ("do_rollback_to_savepoint", "ROLLBACK TO SAVEPOINT")):
        setattr(dialect, hook, emit(statement))


def begin_immediate(db: sqlite3.Connection, *, wait: bool = True,
                    poll: float = LOCK_POLL) -> bool:
    """``BEGIN IMMEDIATE`` on a connection whose busy handler is off, asking again every
    ``poll`` seconds while another writer holds the lock, up to ``SQLITE_BUSY_TIMEOUT_MS``;
    with ``wait=False``, False at once if the lock is taken.  True when it began."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.execute("BEGIN IMMEDIATE")
            return True
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            if not wait:
                return False
        time.sleep(poll)


def _begin_polling(db: sqlite3.Connection) -> None:
    """:func:`begin_immediate` with the busy handler off for that statement only: any other
    that meets a busy file (a rare read while the log is checkpointed) still waits as usual."""
    db.execute("PRAGMA busy_timeout=0")
    try:
        begin_immediate(db)
    finally:
        db.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")


def _tune_sqlite(engine: Engine, polls_for_lock: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        # Take transaction control away from the sqlite3 module so we can say BEGIN IMMEDIATE.
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        if engine.url.database not in (None, "", ":memory:"):
            cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        if conn.get_execution_options().get(READ_ONLY, False):
            conn.exec_driver_sql("BEGIN")
            return
        dbapi_connection = conn.connection.dbapi_connection
        dbapi_connection.take_write_lock()
        try:
            if polls_for_lock:
                _begin_polling(dbapi_connection)
            else:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            dbapi_connection.give_back_write_lock()
            raise


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def rows_changed(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE touched (its result is a cursor result)."""
    return cast(CursorResult[Any], result).rowcount


def _keep_loaded(session: Session, instance: object) -> None:
    """Hold every row a session loads until the session ends.

    SQLAlchemy's identity map holds unchanged rows weakly: a game looked up for one order line
    of a mail, and let go, was gone by the next line, so every line read it again (measured:
    about a quarter of an order mail's statements).  A session here is one short transaction,
    so keeping what it loaded costs little; within it, ``session.get`` now finds a row it has
    read, as it would have if the caller had kept it (a fresh read is asked for explicitly,
    as ``lock_game`` does).
    """
    session.info.setdefault("loaded", []).append(instance)


class Store:
    """The engine plus a session factory; ``with store.transaction() as s:`` is one unit of work."""

    def __init__(self, url: str, polls_for_lock: bool = False) -> None:
        self.url = url
        self.engine = make_engine(url, polls_for_lock)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._readers = sessionmaker(self.engine.execution_options(**{READ_ONLY: True}),
                                     expire_on_commit=False)
        for factory in (self._sessions, self._readers):
            event.listen(factory, "loaded_as_persistent", _keep_loaded)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        with self._sessions() as session, session.begin():
            yield session

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A transaction that only reads: on SQLite it takes no write lock, so slow work
        (checking passwords) done in it never holds up other writers."""
        with self._readers() as session, session.begin():
            yield session

    def session(self) -> Session:
        return self._sessions()

    def dispose(self) -> None:
        self.engine.dispose()
