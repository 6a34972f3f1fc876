"""SMTP/LMTP intake: accept mail for the judge, store it durably, then answer 250.

The handler is deliberately small (aiosmtpd hooks only).  Writes go through
:class:`InboundWriter` (the rows themselves are written by judge.store.inbound), which commits
the messages of concurrent sessions together ("group commit"): one fsync covers every message
waiting at that moment, so durability costs one disk flush per batch rather than per message;
on SQLite, a batch that would have to wait for the write lock is committed to a spool instead.
A batch the database refuses is stored again session by session, so only the session whose
message cannot be stored is answered 451.

A message is one row, however many judge addresses it names, and is recognised when it comes
again by a hash of its whole Message-ID (:func:`message_key`); so it is executed once.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import secrets
from concurrent.futures import ThreadPoolExecutor
from email import policy
from email.parser import BytesHeaderParser
from email.utils import parseaddr
from dataclasses import dataclass
from typing import Any, Callable

from judge.basics.addresses import is_judge_address, normalise
from judge.mail.clean import clean_line, has_control
from judge.store.db import Store
from judge.store.inbound import SqliteInbound, Spool, StampedRow, insert_inbound, stamped

log = logging.getLogger("judge.intake")


# Addresses longer than this are refused at MAIL and RCPT (RFC 5321 allows a path of 256
# octets with its angle brackets; 254 is the longest addr-spec that fits).
MAX_ADDRESS_LENGTH = 254
# The longest Message-ID kept as text (a header line's limit); duplicates are found by a hash
# of the whole id, so a longer one is only shortened for the log and the operator.
MAX_MESSAGE_ID_LENGTH = 998


def message_key(message_id: str | None) -> str:
    """The duplicate check's key: a hash of the whole Message-ID, however long.

    A message without a Message-ID cannot be recognised when it comes again: each arrival
    gets a key of its own (random), so it is stored, and executed, once per SMTP transaction.
    """
    if message_id is None:
        return "none:" + secrets.token_hex(16)
    return hashlib.sha256(message_id.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Arrival:
    """One received message as intake stores it: once, whatever the number of recipients.

    ``recipients`` is the judge addresses it was for, comma-separated; ``message_id`` the whole
    Message-ID (None without one).  ``key`` (see :func:`message_key`) is worked out when not
    given; text fields are cleaned of control characters and cut to their columns' size when the
    row is written, so no value a sender chooses can make the insert fail.
    """

    recipients: str
    envelope_sender: str
    raw: bytes
    message_id: str | None
    key: str = ""

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", message_key(self.message_id))

    def row(self) -> tuple[str, str | None, str, str, bytes]:
        """(dedupe_key, message_id, recipients, envelope_sender, raw) as they are stored."""
        message_id = (None if self.message_id is None
                      else clean_line(self.message_id)[:MAX_MESSAGE_ID_LENGTH])
        return (self.key, message_id, clean_line(self.recipients),
                clean_line(self.envelope_sender)[:MAX_ADDRESS_LENGTH], self.raw)


_HEADER_END = re.compile(rb"\r?\n\r?\n")
_MESSAGE_ID = re.compile(rb"^message-id[ \t]*:(.*(?:\r?\n[ \t].*)*)", re.IGNORECASE | re.MULTILINE)


def message_id_of(raw: bytes) -> str | None:
    """The whole Message-ID header, whitespace folded away; None if there is none.

    A regular expression over the header block: intake runs this for every message on the
    event loop, and a full header parse costs as much as the rest of the SMTP session.
    """
    end = _HEADER_END.search(raw)
    match = _MESSAGE_ID.search(raw, 0, end.start() if end else len(raw))
    if match is None:
        return None
    value = "".join(match.group(1).decode("utf-8", "replace").split())
    return value or None


def envelope_sender_of(raw: bytes) -> str:
    """Without an SMTP envelope (``judge inject``, the mailbox), Return-Path (or else From)
    stands in for MAIL FROM."""
    headers = BytesHeaderParser(policy=policy.compat32).parsebytes(raw)
    for name in ("Return-Path", "From"):
        value = headers.get(name)
        if value is not None:
            return normalise(parseaddr(str(value))[1])
    return ""


def store_arrivals(store: Store, arrivals: list[Arrival]) -> int:
    """Insert arrivals in one transaction; a message already stored (same key) is skipped.

    Returns how many rows were new.  The commit is durable when this returns.
    """
    return insert_inbound(store, [a.row() for a in arrivals])


class InboundWriter:
    """Serialises intake writes and commits whatever is waiting in one transaction.

    On SQLite a batch that finds the write lock taken (the worker is committing, say) is
    committed to the spool instead (judge.store.inbound.Spool) and answered at once; the spool
    is moved into the inbound table as soon as the lock is free, and meanwhile the writer
    holding it is asked to step aside (``on_lock_wanted``; judge.store.turns).  ``on_stored``
    is called whenever mail reached the inbound table.
    """

    MOVE_RETRY = 0.002  # seconds between tries to move the spool while the lock is taken

    def __init__(self, store: Store, on_stored: Callable[[], None] | None = None,
                 on_lock_wanted: Callable[[], None] | None = None) -> None:
        self._store = store
        self._on_stored = on_stored
        self._on_lock_wanted = on_lock_wanted
        self._pending: list[tuple[list[Arrival], asyncio.Future[int]]] = []
        self._flushing = False
        self._stored = False  # mail reached the inbound table since on_stored was last called
        self._retry: asyncio.TimerHandle | None = None
        self._sqlite = SqliteInbound.of(store) if store.engine.dialect.name == "sqlite" else None
        self._spool = Spool.beside(store) if self._sqlite is not None else None
        self._committer = ThreadPoolExecutor(1, thread_name_prefix="intake-commit")

    @property
    def busy(self) -> bool:
        return self._flushing or bool(self._pending)

    @property
    def spooled(self) -> int:
        """Messages accepted and waiting in the spool for the inbound table."""
        return self._spool.waiting if self._spool is not None else 0

    def recover(self) -> int:
        """Move what an earlier run left in the spool (waiting for the lock); how many."""
        if self._spool is None or self._sqlite is None or not self._spool.waiting:
            return 0
        waiting = self._spool.waiting
        self._spool.move(self._sqlite, wait=True)
        return waiting

    async def close(self) -> None:
        """Move the spool into the inbound table before the daemon stops (waiting for the
        lock; the worker is asked to step aside), and close it."""
        if self._retry is not None:
            self._retry.cancel()
        try:
            await self._close_spool()
        finally:
            self._committer.shutdown()

    async def _close_spool(self) -> None:
        if self._spool is None:
            return
        if self._spool.waiting and self._on_lock_wanted is not None:
            self._on_lock_wanted()
        try:
            # in the committing thread: after any commit still in hand, never beside it
            if await asyncio.get_running_loop().run_in_executor(self._committer, self.recover):
                self._tell_stored()
        except Exception:
            log.exception("could not move the spool into the database; it is moved at the "
                          "next start")
        self._spool.close()

    async def write(self, arrivals: list[Arrival]) -> int:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self._pending.append((arrivals, future))
        self._start_flush()
        return await future

    def _start_flush(self) -> None:
        if not self._flushing:
            self._flushing = True
            # Scheduled, not run now: the sessions whose data is already read join this batch.
            asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self._flush()))

    async def _flush(self) -> None:
        try:
            # Sessions keep arriving while a commit runs in its thread: they are taken up here
            # (writers only ever add to _pending while a flush runs, never start another).
            while self._pending or self.spooled:
                while self._pending:
                    batch, self._pending = self._pending, []
                    await self._store_sessions(batch)
                    self._tell_stored()
                if self.spooled:
                    await asyncio.get_running_loop().run_in_executor(self._committer,
                                                                     self._move_spool)
                    self._tell_stored()
                if self.spooled and not self._pending:
                    if self._on_lock_wanted is not None:
                        self._on_lock_wanted()
                    self._move_later()
                    break
        finally:
            self._flushing = False

    async def _store_sessions(self, batch: list[tuple[list[Arrival], asyncio.Future[int]]]
                              ) -> None:
        """Store the arrivals of several sessions in one commit and answer each session."""
        try:
            await self._store_batch([a for arrivals, _ in batch for a in arrivals])
        except Exception as exc:
            if len(batch) == 1:
                log.exception("could not store an incoming message")
                _fail(batch[0][1], exc)
                return
            # One session's message must not cost the others theirs: store each session's
            # arrivals on its own, and answer 451 only to those that fail.
            log.warning("could not store %d incoming messages together (%s); storing them "
                        "one by one", len(batch), exc)
            for arrivals, future in batch:
                try:
                    await self._store_batch(arrivals)
                except Exception as one:
                    log.exception("could not store an incoming message")
                    _fail(future, one)
        for arrivals, future in batch:
            if not future.done():
                future.set_result(len(arrivals))

    def _tell_stored(self) -> None:
        if self._stored and self._on_stored is not None:
            self._on_stored()
        self._stored = False

    def _move_spool(self) -> None:
        """Move the spool into the inbound table if the lock is free (never waits)."""
        if self._spool is None or self._sqlite is None or not self._spool.waiting:
            return
        before = self._spool.waiting
        try:
            self._spool.move(self._sqlite, wait=False)
        except Exception:
            log.exception("could not move the spool into the database; will try again")
        self._stored = self._stored or self._spool.waiting < before

    def _move_later(self) -> None:
        if self._retry is None:
            self._retry = asyncio.get_running_loop().call_later(self.MOVE_RETRY, self._moving)

    def _moving(self) -> None:
        self._retry = None
        self._start_flush()  # a flush moves the spool at its end

    async def _store_batch(self, arrivals: list[Arrival]) -> None:
        # SQLite: commit in intake's own thread (one, so commits keep their order), never
        # waiting for the lock: while the disk flushes, the loop goes on reading the other
        # sessions' mail, which the next commit takes together (~13 % more accepts a second
        # in a burst than committing on the loop, which stood still for every flush).  When
        # another writer holds the lock, the batch goes to the spool (nobody else writes it),
        # so a burst of mail is never held up behind the worker; and while the spool holds
        # mail, new mail joins it.
        if self._sqlite is not None:
            rows = stamped([a.row() for a in arrivals])
            where = await asyncio.get_running_loop().run_in_executor(
                self._committer, self._commit_sqlite, rows)
            if where == "inbound":
                self._stored = True
                return
            if where == "spool":
                # ask the writer holding the lock to step aside now, not after the move fails
                if self._on_lock_wanted is not None:
                    self._on_lock_wanted()
                return
            if self._on_lock_wanted is not None:
                self._on_lock_wanted()
        await asyncio.get_running_loop().run_in_executor(None, store_arrivals, self._store,
                                                         arrivals)
        self._stored = True


    def _commit_sqlite(self, rows: list[StampedRow]) -> str:
        """Commit ``rows`` (in the committing thread): "inbound", "spool", or "" when neither
        could take them."""
        assert self._sqlite is not None
        if self._spool is not None and self._spool.waiting:
            stored = self._spool.move(self._sqlite, rows)  # the spool first, in order
        else:
            stored = self._sqlite.insert_stamped(rows, wait=False) is not None
        if stored:
            return "inbound"
        if self._spool is not None:
            self._spool.insert(rows)
            return "spool"
        return ""


def _fail(future: "asyncio.Future[int]", exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


def for_log(value: str, limit: int = 200) -> str:
    """A value a sender chose, fit for one log line: no control characters, not too long."""
    value = clean_line(value)
    return value if len(value) <= limit else value[:limit] + "…"


class IntakeHandler:
    """aiosmtpd handler: judge recipients only, store before 250, 451 on any failure.

    Addresses a sender gives at MAIL and RCPT are checked there: one too long for the store
    (or holding control characters) is refused with a 5xx at once, never stored to fail later.
    A transaction takes at most ``max_recipients`` recipients (RFC 5321 asks for at least
    100); the message is stored once however many there are.
    """

    def __init__(self, writer: InboundWriter, judge_address: str, lmtp: bool = False,
                 max_recipients: int = 100) -> None:
        self.writer = writer
        self.judge_address = judge_address
        self.lmtp = lmtp
        self.max_recipients = max_recipients
        self.in_flight = 0

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str,
                          mail_options: list[str]) -> str:
        problem = _address_problem(address)
        if problem:
            log.info("refused sender %s from %s: %s", for_log(address), session.peer, problem)
            return f"553 5.1.7 Sender address {problem}"
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 2.1.0 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        problem = _address_problem(address)
        if problem:
            log.info("refused recipient %s from %s: %s", for_log(address), session.peer,
                     problem)
            return f"553 5.1.3 Recipient address {problem}"
        if not is_judge_address(address, self.judge_address):
            log.info("refused recipient %s from %s", for_log(address), session.peer)
            return f"550 5.1.1 <{address}>: no such mailbox here"
        if len(envelope.rcpt_tos) >= self.max_recipients:
            return "452 4.5.3 Too many recipients"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.in_flight += 1
        # While its message is being stored, a session is not cut off by its time limit.
        session.judge_storing = True
        try:
            raw = envelope.original_content or b""
            if isinstance(raw, str):  # pragma: no cover - decode_data is off
                raw = raw.encode("utf-8", "surrogateescape")
            message_id = message_id_of(raw)
            recipients = sorted({normalise(r) for r in envelope.rcpt_tos})
            sender = normalise(envelope.mail_from or "")
            # One row per message, whatever the number of judge recipients.
            await self.writer.write([Arrival(",".join(recipients), sender, raw, message_id)])
            log.info("stored message %s from <%s> for %s", for_log(message_id or "(no id)"),
                     for_log(sender), for_log(", ".join(recipients)))
            ok = "250 2.0.0 OK: stored"
            # LMTP (RFC 2033) answers once per accepted recipient.
            return "\r\n".join([ok] * len(envelope.rcpt_tos)) if self.lmtp else ok
        except Exception:
            log.exception("intake failed; answered 451")
            fail = "451 4.3.0 Temporary failure, please try again later"
            return "\r\n".join([fail] * max(1, len(envelope.rcpt_tos))) if self.lmtp else fail
        finally:
            session.judge_storing = False
            self.in_flight -= 1


def _address_problem(address: str) -> str | None:
    """Why an envelope address cannot be taken (None when it can); ``<>`` is fine at MAIL."""
    if len(address) > MAX_ADDRESS_LENGTH:
        return f"too long (more than {MAX_ADDRESS_LENGTH} characters)"
    if has_control(address) or any(c.isspace() for c in address):
        return "holds control characters or spaces"
    return None
