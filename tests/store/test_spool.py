"""Intake's spool on SQLite: mail that arrives while another writer holds the write lock is
committed to the spool and answered at once, reaches the inbound table in the order it came as
soon as the lock is free, survives a stop or a crash in between, and is stored once."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from conftest import RunningJudge, free_port, judge_env, make_mail
from judge.mail.intake.accept import Arrival, InboundWriter, message_id_of
from judge.store.db import Store
from judge.store.inbound import SqliteInbound, Spool, stamped
from judge.store.schema import ensure_schema

# The spool is SQLite's: every test here uses a SQLite file of its own, whichever database
# the rest of the run uses.


def arrival(n: int, msgid: str | None = None) -> Arrival:
    raw = make_mail("VERSION", sender=f"p{n}@example.org",
                    msgid=msgid or f"<spool-{n}@example.org>").as_bytes()
    return Arrival("judge@example.org", f"p{n}@example.org", raw, message_id_of(raw))


def senders(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [r[0] for r in db.execute("SELECT envelope_sender FROM inbound ORDER BY id")]


class Lock:
    """Another writer holding SQLite's write lock (the worker, say)."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("BEGIN IMMEDIATE")

    def release(self) -> None:
        self.db.execute("COMMIT")
        self.db.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "judge.db"
    store = Store(f"sqlite:///{path}")
    ensure_schema(store.engine)
    store.dispose()
    return path


def test_mail_is_spooled_while_the_lock_is_taken_and_moved_in_order(db: Path) -> None:
    store = Store(f"sqlite:///{db}")
    asked: list[str] = []

    async def scenario() -> None:
        writer = InboundWriter(store, on_stored=lambda: asked.append("stored"),
                               on_lock_wanted=lambda: asked.append("lock"))
        lock = Lock(db)
        # Answered while the lock is held: the message is in the spool, durably.
        await asyncio.wait_for(writer.write([arrival(1)]), 5)
        assert writer.spooled == 1 and senders(db) == []
        assert "lock" in asked  # the writer holding the lock was asked to step aside
        await asyncio.sleep(0.02)
        assert writer.spooled == 1  # still taken: still there
        lock.release()
        # The next message comes after the spooled one, in one transaction with it.
        await writer.write([arrival(2)])
        assert writer.spooled == 0
        assert senders(db) == ["p1@example.org", "p2@example.org"]
        assert asked[-1] == "stored"  # the worker is woken
        await writer.close()

    asyncio.run(scenario())
    store.dispose()


def test_the_spool_is_moved_without_new_mail_once_the_lock_is_free(db: Path) -> None:
    store = Store(f"sqlite:///{db}")

    async def scenario() -> None:
        writer = InboundWriter(store)
        lock = Lock(db)
        await writer.write([arrival(1)])
        lock.release()
        for _ in range(200):  # the writer tries again every few milliseconds
            if not writer.spooled:
                break
            await asyncio.sleep(0.005)
        assert senders(db) == ["p1@example.org"]
        await writer.close()

    asyncio.run(scenario())
    store.dispose()


def test_a_move_cut_short_by_a_crash_stores_each_message_once(db: Path) -> None:
    store = Store(f"sqlite:///{db}")
    inbound = SqliteInbound(store)
    spool = Spool(Path(str(db) + ".spool"))
    spool.insert(stamped([arrival(1).row(), arrival(2).row()]))
    # The crash: the inbound rows committed, the spool's delete never happened.
    inbound.insert_stamped(spool.connection.execute(
        f"SELECT {Spool.COLUMNS} FROM spool ORDER BY id").fetchall())
    spool.close()
    again = Spool(Path(str(db) + ".spool"))
    assert again.waiting == 2
    assert again.move(inbound, wait=True)
    assert again.waiting == 0
    assert senders(db) == ["p1@example.org", "p2@example.org"]
    again.close()
    store.dispose()


def test_no_spool_beside_a_database_in_memory() -> None:
    store = Store("sqlite://")
    assert Spool.beside(store) is None
    store.dispose()


def test_mail_left_in_the_spool_is_answered_after_a_restart(tmp_path: Path, db: Path) -> None:
    spool = Spool(Path(str(db) + ".spool"))
    spool.insert(stamped([arrival(1).row()]))
    spool.close()
    port = free_port()
    judge = RunningJudge(tmp_path, port, judge_env(tmp_path, port, f"sqlite:///{db}")).start()
    try:
        reply, = judge.wait_replies(1)
        assert str(reply["To"]) == "p1@example.org"
        assert "moved 1 message(s) accepted before the last stop from the spool" in judge.log()
        assert senders(db) == ["p1@example.org"]
    finally:
        assert judge.stop() == 0


def test_a_spooled_message_the_database_refuses_is_held_back_and_the_rest_move_on(
        db: Path, caplog: pytest.LogCaptureFixture) -> None:
    # A row the inbound table will not take (here a trigger refuses it; in life, whatever
    # the database refuses) must not keep every later message in the spool for good.
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TRIGGER poison BEFORE INSERT ON inbound WHEN NEW.envelope_sender"
                     " = 'p2@example.org' BEGIN SELECT RAISE(ABORT, 'poisoned'); END")
    store = Store(f"sqlite:///{db}")

    async def scenario() -> None:
        writer = InboundWriter(store)
        lock = Lock(db)
        for n in (1, 2, 3):  # answered: durably in the spool
            await asyncio.wait_for(writer.write([arrival(n)]), 5)
        assert writer.spooled == 3
        lock.release()
        await writer.write([arrival(4)])
        assert senders(db) == ["p1@example.org", "p3@example.org", "p4@example.org"]
        assert writer.spooled == 0  # new mail no longer joins the spool
        await writer.write([arrival(5)])
        assert senders(db)[-1] == "p5@example.org"
        await writer.close()

    asyncio.run(scenario())
    store.dispose()
    assert "spool row 2" in caplog.text and "cannot be stored" in caplog.text
    # Still in the spool file; once the database is mended, the next start moves it.
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER poison")
    store = Store(f"sqlite:///{db}")
    spool = Spool(Path(str(db) + ".spool"))
    assert spool.waiting == 1
    assert spool.move(SqliteInbound(store), wait=True) and spool.waiting == 0
    assert senders(db)[-1] == "p2@example.org"
    spool.close()
    store.dispose()
