"""SMTP/LMTP intake: accept mail for the judge, store it durably, then answer 250.

The handler is deliberately small (aiosmtpd hooks only).  Writes go through
:class:`InboundWriter`, which commits the messages of concurrent sessions together ("group
commit"): one fsync covers every message waiting at that moment, so durability costs one disk
flush per batch rather than per message.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
import time
import weakref
from dataclasses import dataclass
from typing import Any, Callable

from sqlalchemy.dialects.postgresql import insert as pg_insert

from judge.clock import utcnow
from judge.mail.addresses import is_judge_address, normalise
from judge.store.db import SQLITE_BUSY_TIMEOUT_MS, Store
from judge.store.models import InboundMessage

log = logging.getLogger("judge.intake")


@dataclass(frozen=True)
class Arrival:
    """One received message for one judge recipient, as intake stores it."""

    recipient: str
    envelope_sender: str
    raw: bytes
    message_id: str | None


_HEADER_END = re.compile(rb"\r?\n\r?\n")
_MESSAGE_ID = re.compile(rb"^message-id[ \t]*:(.*(?:\r?\n[ \t].*)*)", re.IGNORECASE | re.MULTILINE)


def message_id_of(raw: bytes) -> str | None:
    """The Message-ID header, whitespace folded away; None if there is none.

    A regular expression over the header block: intake runs this for every message on the
    event loop, and a full header parse costs as much as the rest of the SMTP session.
    """
    end = _HEADER_END.search(raw)
    match = _MESSAGE_ID.search(raw, 0, end.start() if end else len(raw))
    if match is None:
        return None
    value = "".join(match.group(1).decode("utf-8", "replace").split())
    return value[:998] or None


def store_arrivals(store: Store, arrivals: list[Arrival]) -> int:
    """Insert arrivals in one transaction; duplicates (Message-ID, recipient) are skipped.

    Returns how many rows were new.  The commit is durable when this returns.
    """
    if store.engine.dialect.name == "sqlite":
        return _SqliteInbound.of(store).insert(arrivals)
    now = utcnow()
    stmt = pg_insert(InboundMessage).on_conflict_do_nothing(
        index_elements=["message_id", "recipient"]).returning(InboundMessage.id)
    with store.engine.begin() as conn:
        # One statement each; a duplicate returns no row.  (rowcount is not to be trusted here:
        # psycopg reports -1 for an INSERT that SQLAlchemy runs with RETURNING.)
        return sum(len(conn.execute(stmt, dict(
            message_id=a.message_id, recipient=a.recipient, envelope_sender=a.envelope_sender,
            raw=a.raw, received_at=now, status="new", attempts=0)).all())
            for a in arrivals)


class _SqliteInbound:
    """Intake's own SQLite connection, with plain DB-API calls.

    Intake commits on every batch while the event loop parses SMTP in the same process, so its
    commit path is kept lean: one connection kept open (set up by the engine's connect hook:
    WAL, synchronous=FULL), one prepared INSERT, no ORM.  While another writer (the worker, the
    sender, a CLI command) holds the write lock, it asks again every few milliseconds instead of
    napping up to 100 ms a try as SQLite's busy handler does, so a burst of mail is not held up
    behind other writers.
    """

    POLL_MS = 3
    INSERT = ("INSERT INTO inbound (message_id, recipient, envelope_sender, raw, received_at,"
              " status, attempts) VALUES (?, ?, ?, ?, ?, 'new', 0)"
              " ON CONFLICT (message_id, recipient) DO NOTHING")

    def __init__(self, store: Store) -> None:
        # Keep the pool's wrapper referenced: once it is collected the connection goes back to
        # the pool, short busy timeout and all, and another writer would get it.
        self._checked_out = store.engine.raw_connection()
        self.connection = self._checked_out.driver_connection
        # No busy handler: insert() decides itself whether to wait for the lock or not.
        self.connection.execute("PRAGMA busy_timeout=0")

    @classmethod
    def of(cls, store: Store) -> "_SqliteInbound":
        # One per store; InboundWriter never runs two flushes at once, so one connection serves.
        inbound = _SQLITE_INBOUND.get(store)
        if inbound is None:
            inbound = _SQLITE_INBOUND[store] = cls(store)
        return inbound

    def insert(self, arrivals: list[Arrival], *, wait: bool = True) -> int | None:
        """Store and commit; with ``wait=False`` return None at once if another writer holds
        the lock (the event loop calls it so, and hands the batch to a thread instead)."""
        # SQLAlchemy's SQLite DateTime storage format, so the ORM reads these rows back.
        now = utcnow().strftime("%Y-%m-%d %H:%M:%S.%f")
        rows = [(a.message_id, a.recipient, a.envelope_sender, a.raw, now) for a in arrivals]
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
            db.executemany(self.INSERT, rows)
            new = db.total_changes - before
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return new


_SQLITE_INBOUND: "weakref.WeakKeyDictionary[Store, _SqliteInbound]" = weakref.WeakKeyDictionary()


class InboundWriter:
    """Serialises intake writes and commits whatever is waiting in one transaction."""

    def __init__(self, store: Store, on_stored: Callable[[], None] | None = None) -> None:
        self._store = store
        self._on_stored = on_stored
        self._pending: list[tuple[list[Arrival], asyncio.Future[int]]] = []
        self._flushing = False
        self.last_write = 0.0  # event-loop time of the latest write() call
        self._sqlite = _SqliteInbound.of(store) if store.engine.dialect.name == "sqlite" else None

    @property
    def busy(self) -> bool:
        return self._flushing or bool(self._pending)

    async def write(self, arrivals: list[Arrival]) -> int:
        loop = asyncio.get_running_loop()
        self.last_write = loop.time()
        future: asyncio.Future[int] = loop.create_future()
        self._pending.append((arrivals, future))
        if not self._flushing:
            self._flushing = True
            # Scheduled, not run now: the sessions whose data is already read join this batch.
            loop.call_soon(lambda: asyncio.ensure_future(self._flush()))
        return await future

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                everything = [a for arrivals, _ in batch for a in arrivals]
                try:
                    # SQLite: commit right here on the loop when the lock is free.  A commit is
                    # a fraction of a millisecond, far less than handing the batch to a thread
                    # and back (each hand-over waits for the GIL); only when another writer
                    # holds the lock does the batch go to a thread to wait for it.
                    if self._sqlite is None or self._sqlite.insert(everything, wait=False) is None:
                        await loop.run_in_executor(None, store_arrivals, self._store, everything)
                except Exception as exc:
                    log.exception("could not store %d incoming message(s)", len(batch))
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for arrivals, future in batch:
                    if not future.done():
                        future.set_result(len(arrivals))
                if self._on_stored:
                    self._on_stored()
        finally:
            self._flushing = False


class IntakeHandler:
    """aiosmtpd handler: judge recipients only, store before 250, 451 on any failure."""

    def __init__(self, writer: InboundWriter, judge_address: str, lmtp: bool = False) -> None:
        self.writer = writer
        self.judge_address = judge_address
        self.lmtp = lmtp
        self.in_flight = 0

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        if not is_judge_address(address, self.judge_address):
            log.info("refused recipient %s from %s", address, session.peer)
            return f"550 5.1.1 <{address}>: no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.in_flight += 1
        try:
            raw = envelope.original_content or b""
            if isinstance(raw, str):  # pragma: no cover - decode_data is off
                raw = raw.encode("utf-8", "surrogateescape")
            message_id = message_id_of(raw)
            recipients = sorted({normalise(r) for r in envelope.rcpt_tos})
            sender = normalise(envelope.mail_from or "")
            await self.writer.write([Arrival(r, sender, raw, message_id) for r in recipients])
            log.info("stored message %s from <%s> for %s", message_id, sender, ", ".join(recipients))
            ok = "250 2.0.0 OK: stored"
            return "\r\n".join([ok] * len(envelope.rcpt_tos)) if self.lmtp else ok
        except Exception:
            log.exception("intake failed; answered 451")
            fail = "451 4.3.0 Temporary failure, please try again later"
            return "\r\n".join([fail] * max(1, len(envelope.rcpt_tos))) if self.lmtp else fail
        finally:
            self.in_flight -= 1
