"""Writers of one process queue on a mutex before SQLite's write lock (judge.store.db): the
mutex is held exactly while a write transaction is open, however it ends, and reading
transactions never take it."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from sqlalchemy import text

from judge.store import db
from judge.store.db import Store


@pytest.fixture
def sqlite_store(tmp_path: Path):
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    with store.transaction() as s:
        s.execute(text("CREATE TABLE t (n INTEGER)"))
    yield store
    store.dispose()


def mutex_of(store: Store) -> threading.Lock:
    with store.engine.connect() as conn:
        return conn.connection.dbapi_connection.write_lock  # type: ignore[union-attr]


def test_the_mutex_is_held_while_a_write_transaction_is_open(sqlite_store: Store) -> None:
    mutex = mutex_of(sqlite_store)
    assert not mutex.locked()
    with sqlite_store.transaction() as s:
        s.execute(text("INSERT INTO t VALUES (1)"))
        assert mutex.locked()
    assert not mutex.locked()
    with pytest.raises(RuntimeError):
        with sqlite_store.transaction() as s:
            s.execute(text("INSERT INTO t VALUES (2)"))
            raise RuntimeError("rolled back")
    assert not mutex.locked()
    with sqlite_store.reading() as s:
        assert s.execute(text("SELECT count(*) FROM t")).scalar() == 1
        assert not mutex.locked()


def test_a_second_writer_waits_on_the_mutex_and_goes_on_when_the_first_commits(
        sqlite_store: Store) -> None:
    first_in, second_done = threading.Event(), threading.Event()
    release = threading.Event()
    order: list[str] = []

    def first() -> None:
        with sqlite_store.transaction() as s:
            s.execute(text("INSERT INTO t VALUES (1)"))
            first_in.set()
            release.wait(10)
            order.append("first commits")

    def second() -> None:
        first_in.wait(10)
        with sqlite_store.transaction() as s:
            s.execute(text("INSERT INTO t VALUES (2)"))  # BEGIN IMMEDIATE comes with it
            order.append("second wrote")
        second_done.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    first_in.wait(10)
    assert not second_done.wait(0.2)  # the second writer is queued, not failed
    release.set()
    for t in threads:
        t.join(10)
    assert order == ["first commits", "second wrote"]
    with sqlite_store.reading() as s:
        assert s.execute(text("SELECT count(*) FROM t")).scalar() == 2


def test_a_begin_that_fails_gives_the_mutex_back(sqlite_store: Store, tmp_path: Path) -> None:
    # Another process holds SQLite's write lock past the busy timeout.
    other = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    with sqlite_store.engine.connect() as conn:
        conn.connection.dbapi_connection.execute("PRAGMA busy_timeout=50")  # type: ignore
    mutex = mutex_of(sqlite_store)
    with pytest.raises(Exception, match="locked"):
        with sqlite_store.transaction() as s:
            s.execute(text("INSERT INTO t VALUES (1)"))
    assert not mutex.locked()
    other.execute("ROLLBACK")
    other.close()
    with sqlite_store.transaction() as s:
        s.execute(text("INSERT INTO t VALUES (1)"))


def test_a_store_that_polls_for_the_lock_gets_in_soon_after_another_process_commits(
        sqlite_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sender's store asks for the lock itself, every half millisecond, instead of through
    SQLite's busy handler; with the handler back on for every other statement."""
    polling = Store(f"sqlite:///{tmp_path / 'w.db'}", polls_for_lock=True)
    other = sqlite3.connect(tmp_path / "w.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    pauses: list[float] = []

    def pause(seconds: float) -> None:  # between two tries that found the lock taken
        pauses.append(seconds)
        if len(pauses) == 4:
            other.execute("COMMIT")  # the other writer is done after a few tries

    monkeypatch.setattr(db, "time", SimpleNamespace(monotonic=time.monotonic, sleep=pause))
    with polling.transaction() as s:
        s.execute(text("INSERT INTO t VALUES (7)"))
        timeout = s.connection().exec_driver_sql("PRAGMA busy_timeout").scalar()
    assert pauses == [db.LOCK_POLL] * 4  # asked again and again, then got in
    assert timeout == db.SQLITE_BUSY_TIMEOUT_MS  # the busy handler is back for the rest
    with sqlite_store.transaction() as s:
        assert s.execute(text("SELECT n FROM t")).scalars().all() == [7]
    other.close()
    polling.dispose()
