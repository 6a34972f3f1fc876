"""The sender: delivers due outbox rows, retrying temporary failures with exponential backoff.

Rows are claimed with a short lease (``FOR UPDATE SKIP LOCKED`` where the database has it), so
two daemons on one database never send the same row twice at the same time.

Delivery is at-least-once: a row the relay accepted is marked sent soon after, in a short
transaction that marks the others accepted just before it too (:class:`SentMarks`: at most
``MARK_EVERY`` mails or ``MARK_SECONDS`` of sending go unrecorded, and always fewer than the
mails of one :func:`deliver_batch`), and always before the connection's QUIT (see
judge.mail.sending.transports).  A crash in between sends those mails again after the restart: with an
SMTP relay that window is the duplicate window; a Maildir recognises them by name.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, bindparam, or_, select, update

from judge.basics.utc import utcnow
from judge.basics.config import Config
from judge.mail.writing.attached_maps import with_pictures
from judge.mail.sending.return_paths import Envelopes
from judge.mail.sending.transports import (MaildirTransport, PermanentFailure, TemporaryFailure,
                                           Transport)
from judge.store.db import Store
from judge.store.leases import owner_id
from judge.store.models import OutboxMessage, OutboxStatus

log = logging.getLogger("judge.sender")

LEASE = timedelta(minutes=5)
MAX_BACKOFF = timedelta(hours=6)
# Sent-marks are committed together (one disk flush for many mails), but never more than this
# many mails, or this many seconds of sending, after the first one the relay took.
MARK_EVERY = 32
MARK_SECONDS = 0.05


def backoff(attempts: int, base_seconds: float) -> timedelta:
    return min(MAX_BACKOFF, timedelta(seconds=base_seconds * (2 ** max(0, attempts - 1))))


def _claim(store: Store, limit: int) -> list[OutboxMessage]:
    now = utcnow()
    with store.transaction() as session:
        rows = list(session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.status == OutboxStatus.PENDING, OutboxMessage.next_attempt_at <= now,
                   or_(OutboxMessage.lease_until.is_(None), OutboxMessage.lease_until < now))
            .order_by(OutboxMessage.id).limit(limit)
            .with_for_update(skip_locked=True)))
        for row in rows:
            row.lease_until = now + LEASE
            row.lease_owner = owner_id()
        return rows


_OUTBOX = cast(Table, OutboxMessage.__table__)
_MARK_SENT = (update(_OUTBOX)
              .where(_OUTBOX.c.id == bindparam("row_id"))
              .values(status=OutboxStatus.SENT, sent_at=bindparam("at"),
                      attempts=_OUTBOX.c.attempts + 1, lease_until=None,
                      lease_owner=None, last_error=bindparam("note")))


@dataclass
class SentMarks:
    """Rows the relay took, not yet recorded as sent; :meth:`flush` records them in one
    transaction."""

    store: Store
    transport: Transport
    waiting: list[dict[str, object]] = field(default_factory=list)
    oldest: float = 0.0

    def add(self, row: OutboxMessage, note: str | None, at: datetime) -> None:
        if not self.waiting:
            self.oldest = time.monotonic()
        self.waiting.append(dict(row_id=row.id, at=at, note=note))
        if len(self.waiting) >= MARK_EVERY or time.monotonic() - self.oldest >= MARK_SECONDS:
            self.flush()

    def flush(self) -> None:
        if not self.waiting:
            return
        # Made safe first (a Maildir's fsyncs); if that fails nothing is recorded, and the
        # rows, still leased, are sent again when the lease runs out.
        self.transport.flush()
        with self.store.transaction() as session:
            session.connection().execute(_MARK_SENT, self.waiting)
        self.waiting = []


def deliver_batch(store: Store, transport: Transport, config: Config, limit: int = 100) -> int:
    """Claim up to ``limit`` due rows and send them; returns how many were handled (sent or
    failed), 0 when nothing was due.  Every mail the relay took is recorded before this
    returns; the caller closes the transport (the relay's QUIT) when it is done sending."""
    rows = _claim(store, limit)
    envelopes = _envelopes(store, transport, config, rows)
    marks = SentMarks(store, transport)
    try:
        for row in rows:
            _deliver(store, transport, config, row, marks, envelopes)
    finally:
        marks.flush()
    return len(rows)


def _envelopes(store: Store, transport: Transport, config: Config,
               rows: list[OutboxMessage]) -> Envelopes:
    """The rows' return paths and failing recipients (judge.mail.sending.return_paths); should the
    database not answer, the mail goes out with the plain return path rather than wait."""
    if not rows:
        return Envelopes(config)
    try:
        return Envelopes.of(store, config, rows, tokens=not isinstance(transport, MaildirTransport))
    except Exception:
        log.exception("cannot look up the return paths of %d mail(s); sending them with the "
                      "judge's own", len(rows))
        return Envelopes(config)


def deliver_due(store: Store, transport: Transport, config: Config, limit: int = 100) -> int:
    """Send what is due; returns how many rows were handled (sent or failed)."""
    handled = 0
    try:
        while True:
            done = deliver_batch(store, transport, config, limit)
            if not done:
                return handled
            handled += done
    finally:
        transport.close()


def _deliver(store: Store, transport: Transport, config: Config, row: OutboxMessage,
             marks: SentMarks, envelopes: Envelopes) -> None:
    recipients = [r for r in row.recipients.split(",") if r]
    status, error, note = OutboxStatus.SENT, None, None
    # pictures are drawn now, never in the transaction that queued the mail
    raw = with_pictures(row.raw, row.attachment) if row.attachment and row.raw else row.raw
    try:
        if not row.raw:  # its text was deleted ([retention] raw_mail_days): nothing to send
            raise PermanentFailure("no text to send any more")
        failing = envelopes.failing(row)
        if failing:  # until a mail from it comes (judge.mail.guards.dead_addresses)
            raise PermanentFailure(f"not sent: {', '.join(failing)} is marked failing "
                                   "(its mail bounced)")
        note = transport.send(envelopes.mail_from(row), recipients, raw, key=row.message_id)
    except PermanentFailure as exc:
        status, error = OutboxStatus.FAILED, f"permanent: {exc}"
    except TemporaryFailure as exc:
        status, error = OutboxStatus.PENDING, f"temporary: {exc}"
    except Exception as exc:  # a transport bug must not kill the sender; retry later
        log.exception("outbox %s: unexpected error while sending", row.id)
        status, error = OutboxStatus.PENDING, f"unexpected: {exc!r}"
    now = utcnow()
    if status == OutboxStatus.SENT:
        # The relay has it: recorded with the next few (the at-least-once window).
        marks.add(row, note, now)
        log.info("outbox %s sent to %s: message %s, %r (inbound %s)", row.id,
                 row.recipients, row.message_id, row.subject, row.inbound_id)
        return
    with store.transaction() as session:
        fresh = session.get(OutboxMessage, row.id)
        if fresh is None:
            return
        fresh.attempts += 1
        fresh.lease_until = fresh.lease_owner = None
        fresh.last_error = error
        if status == OutboxStatus.PENDING and fresh.attempts >= config.outbound.max_attempts:
            fresh.status = OutboxStatus.FAILED
            log.warning("outbox %s gave up after %d attempts: message %s to %s, %r: %s", row.id,
                        fresh.attempts, row.message_id, row.recipients, row.subject, error)
        elif status == OutboxStatus.PENDING:
            fresh.next_attempt_at = now + backoff(fresh.attempts, config.outbound.retry_base_seconds)
            log.info("outbox %s will retry at %s: %s", row.id, fresh.next_attempt_at, error)
        else:
            fresh.status = OutboxStatus.FAILED
            log.warning("outbox %s failed for good: message %s to %s, %r: %s", row.id,
                        row.message_id, row.recipients, row.subject, error)
