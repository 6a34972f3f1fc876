"""SMTP/LMTP intake: accept mail for the judge, store it durably, then answer 250.

The handler is deliberately small (aiosmtpd hooks only).  Writes go through
:class:`InboundWriter`, which commits the messages of concurrent sessions together ("group
commit"): one fsync covers every message waiting at that moment, so durability costs one disk
flush per batch rather than per message.
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import contextmanager
from dataclasses import dataclass
from email import policy
from email.parser import BytesHeaderParser
from typing import Any, Callable, Iterator

from sqlalchemy import Connection, insert
from sqlalchemy.exc import OperationalError

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


def message_id_of(raw: bytes) -> str | None:
    try:
        headers = BytesHeaderParser(policy=policy.compat32).parsebytes(raw)
        value = headers.get("Message-ID")
    except Exception:  # a header we cannot even split: no id, no deduplication
        return None
    if not value:
        return None
    value = " ".join(str(value).split())
    return value[:998] or None


def store_arrivals(store: Store, arrivals: list[Arrival]) -> int:
    """Insert arrivals in one transaction; duplicates (Message-ID, recipient) are skipped.

    Returns how many rows were new.  The commit is durable when this returns.
    """
    now = utcnow()
    rows = [dict(message_id=a.message_id, recipient=a.recipient, envelope_sender=a.envelope_sender,
                 raw=a.raw, received_at=now, status="new", attempts=0) for a in arrivals]
    dialect = store.engine.dialect.name
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as dialect_insert
    elif dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as dialect_insert
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported
        dialect_insert = insert  # type: ignore[assignment]
    stmt = dialect_insert(InboundMessage).on_conflict_do_nothing(
        index_elements=["message_id", "recipient"])
    with _write_transaction(store) as conn:
        if dialect == "sqlite":  # sqlite3's executemany rowcount counts only the rows inserted
            return conn.execute(stmt, rows).rowcount or 0
        # One statement each, so rowcount tells duplicates apart.
        return sum(conn.execute(stmt, row).rowcount or 0 for row in rows)


# While another writer (the worker, the sender) holds SQLite's write lock, intake asks again
# every few milliseconds instead of backing off like SQLite's busy handler does (up to 100 ms a
# try): the handler's long naps let the other writers take the lock again and again first, and
# intake then waited seconds to commit a batch that needs well under one.
_SQLITE_INTAKE_POLL_MS = 3


@contextmanager
def _write_transaction(store: Store) -> Iterator[Connection]:
    if store.engine.dialect.name != "sqlite":
        with store.engine.begin() as conn:
            yield conn
        return
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        with store.engine.connect() as conn:
            raw = conn.connection.driver_connection
            raw.execute(f"PRAGMA busy_timeout={_SQLITE_INTAKE_POLL_MS}")
            try:
                trans = conn.begin()  # BEGIN IMMEDIATE: takes the write lock or fails busy
            except OperationalError as exc:
                if "locked" not in str(exc.orig) or time.monotonic() > deadline:
                    raise
                continue
            finally:
                raw.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            with trans:
                yield conn
            return


class InboundWriter:
    """Serialises intake writes and commits whatever is waiting in one transaction."""

    def __init__(self, store: Store, on_stored: Callable[[], None] | None = None) -> None:
        self._store = store
        self._on_stored = on_stored
        self._pending: list[tuple[list[Arrival], asyncio.Future[int]]] = []
        self._flushing = False

    async def write(self, arrivals: list[Arrival]) -> int:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self._pending.append((arrivals, future))
        if not self._flushing:
            self._flushing = True
            asyncio.ensure_future(self._flush())
        return await future

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                everything = [a for arrivals, _ in batch for a in arrivals]
                try:
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
