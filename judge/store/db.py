"""Engine and sessions: how the judge talks to its SQL store.

On SQLite every connection runs in WAL mode with foreign keys on, a busy timeout and
``synchronous=FULL`` (so a commit is fsync'd before intake answers 250), and every transaction
starts with ``BEGIN IMMEDIATE`` so two writers never deadlock on a lock upgrade -- except those
of :meth:`Store.reading`, which only read and so take no write lock at all.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, cast

from sqlalchemy import CursorResult, Engine, Result, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 30_000
# Execution option of the engine behind Store.reading(): its transactions only read.
READ_ONLY = "judge_read_only"


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"check_same_thread": False,
                                                  "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
        _tune_sqlite(engine)
        return engine
    return create_engine(url, pool_pre_ping=True)


def _tune_sqlite(engine: Engine) -> None:
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
        reading = conn.get_execution_options().get(READ_ONLY, False)
        conn.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")


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

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
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
