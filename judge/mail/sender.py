"""The sender: delivers due outbox rows, retrying temporary failures with exponential backoff.

Rows are claimed with a short lease (``FOR UPDATE SKIP LOCKED`` where the database has it), so
two daemons on one database never send the same row twice at the same time.

Delivery is at-least-once: a row is marked sent in its own short transaction right after the
relay accepted it (before the connection's QUIT, see judge.mail.transports); a crash in
between sends it again after the restart.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import or_, select, update

from judge.clock import utcnow
from judge.config import Config
from judge.mail.pictures import with_pictures
from judge.mail.transports import PermanentFailure, TemporaryFailure, Transport
from judge.store.db import Store
from judge.store.leases import owner_id
from judge.store.models import OutboxMessage

log = logging.getLogger("judge.sender")

LEASE = timedelta(minutes=5)
MAX_BACKOFF = timedelta(hours=6)


def backoff(attempts: int, base_seconds: float) -> timedelta:
    return min(MAX_BACKOFF, timedelta(seconds=base_seconds * (2 ** max(0, attempts - 1))))


def _claim(store: Store, limit: int) -> list[OutboxMessage]:
    now = utcnow()
    with store.transaction() as session:
        rows = list(session.scalars(
            select(OutboxMessage)
            .where(OutboxMessage.status == "pending", OutboxMessage.next_attempt_at <= now,
                   or_(OutboxMessage.lease_until.is_(None), OutboxMessage.lease_until < now))
            .order_by(OutboxMessage.id).limit(limit)
            .with_for_update(skip_locked=True)))
        for row in rows:
            row.lease_until = now + LEASE
            row.lease_owner = owner_id()
        return rows


def deliver_due(store: Store, transport: Transport, config: Config, limit: int = 100) -> int:
    """Send what is due; returns how many rows were handled (sent or failed)."""
    handled = 0
    try:
        while True:
            rows = _claim(store, limit)
            if not rows:
                return handled
            for row in rows:
                _deliver(store, transport, config, row)
                handled += 1
    finally:
        transport.close()


def _deliver(store: Store, transport: Transport, config: Config, row: OutboxMessage) -> None:
    recipients = [r for r in row.recipients.split(",") if r]
    status, error, note = "sent", None, None
    # pictures are drawn now, never in the transaction that queued the mail
    raw = with_pictures(row.raw, row.attachment) if row.attachment and row.raw else row.raw
    try:
        if not row.raw:  # its text was deleted ([retention] raw_mail_days): nothing to send
            raise PermanentFailure("no text to send any more")
        note = transport.send(row.mail_from, recipients, raw, key=row.message_id)
    except PermanentFailure as exc:
        status, error = "failed", f"permanent: {exc}"
    except TemporaryFailure as exc:
        status, error = "pending", f"temporary: {exc}"
    except Exception as exc:  # a transport bug must not kill the sender; retry later
        log.exception("outbox %s: unexpected error while sending", row.id)
        status, error = "pending", f"unexpected: {exc!r}"
    now = utcnow()
    if status == "sent":
        # The relay has it: record that at once, in one statement (the at-least-once window).
        with store.transaction() as session:
            session.execute(update(OutboxMessage).where(OutboxMessage.id == row.id).values(
                status="sent", sent_at=now, attempts=OutboxMessage.attempts + 1,
                lease_until=None, lease_owner=None, last_error=note))
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
        if status == "pending" and fresh.attempts >= config.outbound.max_attempts:
            fresh.status = "failed"
            log.warning("outbox %s gave up after %d attempts: message %s to %s, %r: %s", row.id,
                        fresh.attempts, row.message_id, row.recipients, row.subject, error)
        elif status == "pending":
            fresh.next_attempt_at = now + backoff(fresh.attempts, config.outbound.retry_base_seconds)
            log.info("outbox %s will retry at %s: %s", row.id, fresh.next_attempt_at, error)
        else:
            fresh.status = "failed"
            log.warning("outbox %s failed for good: message %s to %s, %r: %s", row.id,
                        row.message_id, row.recipients, row.subject, error)
