"""The worker: claims stored messages and processes each in one transaction.

Claiming commits ``attempts + 1`` and a lease first, so a message that crashes the daemon is
still counted; after ``[worker] max_attempts`` it is set aside (status ``failed``) for the
operator (``judge inbound list|retry``).  Processing commits the message's effects, its outbox
rows and its ``done`` mark together, so each message takes effect exactly once.
"""

from __future__ import annotations

import logging
import traceback
from datetime import timedelta
from typing import Callable

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from judge.clock import utcnow
from judge.config import Config
from judge.store.db import Store
from judge.store.leases import owner_id
from judge.store.models import InboundMessage

log = logging.getLogger("judge.worker")

Processor = Callable[[Session, InboundMessage], str]


def claim_next(store: Store, config: Config) -> int | None:
    """Lease the oldest waiting message; returns its id, or None when nothing waits."""
    while True:
        now = utcnow()
        with store.transaction() as session:
            row = session.scalars(
                select(InboundMessage)
                .where(InboundMessage.status == "new",
                       or_(InboundMessage.lease_until.is_(None), InboundMessage.lease_until < now))
                .order_by(InboundMessage.id).limit(1)
                .with_for_update(skip_locked=True)).first()
            if row is None:
                return None
            if row.attempts >= config.worker.max_attempts:
                # Earlier attempts died without recording an error (the daemon was killed).
                row.status = "failed"
                row.note = (row.note or "") + f"\nset aside after {row.attempts} attempts"
                log.warning("inbound %s set aside after %d attempts: message %s from %s",
                            row.id, row.attempts, row.message_id, row.envelope_sender)
                continue
            row.attempts += 1
            row.lease_until = now + timedelta(seconds=config.worker.lease_seconds)
            row.lease_owner = owner_id()
            return row.id


def process_claimed(store: Store, config: Config, inbound_id: int, processor: Processor) -> bool:
    """Run ``processor`` on the message in one transaction; record the error if it fails."""
    try:
        with store.transaction() as session:
            row = session.get(InboundMessage, inbound_id)
            if row is None or row.status != "new":
                return False  # someone else finished it
            outcome = processor(session, row)
            # Conditional on still being new: with two workers only one commit can win.
            done = session.execute(
                update(InboundMessage)
                .where(InboundMessage.id == inbound_id, InboundMessage.status == "new")
                .values(status=outcome, processed_at=utcnow(), lease_until=None,
                        lease_owner=None, note=row.note)).rowcount
            if not done:
                session.rollback()
                return False
        return True
    except Exception as exc:
        log.exception("inbound %s failed (will retry up to %d attempts)", inbound_id,
                      config.worker.max_attempts)
        _record_failure(store, config, inbound_id, exc)
        return False


def _record_failure(store: Store, config: Config, inbound_id: int, exc: Exception) -> None:
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    with store.transaction() as session:
        row = session.get(InboundMessage, inbound_id)
        if row is None:
            return
        row.note = detail[:4000]
        row.lease_until = row.lease_owner = None
        if row.attempts >= config.worker.max_attempts:
            row.status = "failed"
            log.warning("inbound %s set aside after %d attempts: message %s from %s: %s",
                        inbound_id, row.attempts, row.message_id, row.envelope_sender, detail)


def process_pending(store: Store, config: Config, processor: Processor,
                    limit: int | None = None) -> int:
    """Process waiting messages until none is left (or ``limit``); returns how many were tried."""
    count = 0
    while limit is None or count < limit:
        inbound_id = claim_next(store, config)
        if inbound_id is None:
            break
        process_claimed(store, config, inbound_id, processor)
        count += 1
    return count
