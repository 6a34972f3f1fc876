"""Raw mail is kept only as long as it is needed: ``[retention] raw_mail_days``.

A received mail holds whatever its sender wrote, passwords included (``SIGNON Gpg1 secret``),
and so does the judge's reply to it.  Once a received message has been processed, its raw text
is needed only to look into a problem; once a mail has been sent (or dropped by the operator),
nobody needs its text again.  After ``raw_mail_days`` days the raw bytes of such rows are
deleted: the rows stay, with their status, addresses, Message-ID, subject and note, so the
queues' history remains.  Mail still waiting (``new``, ``pending``) or set aside (``failed``)
keeps its text until it is processed, sent, or dropped.

The daemon runs :func:`purge_raw_mail` now and then; ``judge inbound purge`` and ``judge outbox
purge`` run it by hand.  Each batch of rows is its own short transaction.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update

from judge.store.db import Store
from judge.store.models import InboundMessage, InboundStatus, OutboxMessage, OutboxStatus

log = logging.getLogger("judge.retention")

BATCH = 500
# How often the daemon looks for raw mail to delete: hourly, sooner when mail is kept briefly.
LONGEST_PAUSE = 3600.0


@dataclass(frozen=True)
class Purged:
    inbound: int = 0
    outbox: int = 0


def pause_seconds(days: float) -> float:
    """How long the daemon waits between two purges for a retention of ``days``."""
    return min(LONGEST_PAUSE, max(1.0, days * 86400 / 10))


def purge_inbound(store: Store, days: float, now: datetime) -> int:
    """Delete the raw text of received mail processed more than ``days`` days ago."""
    cutoff = now - timedelta(days=days)
    return _purge(store, InboundMessage,
                  InboundMessage.status.in_((InboundStatus.DONE, InboundStatus.IGNORED)),
                  InboundMessage.processed_at < cutoff)


def purge_outbox(store: Store, days: float, now: datetime) -> int:
    """Delete the raw text of mail sent (or dropped) more than ``days`` days ago."""
    cutoff = now - timedelta(days=days)
    return _purge(store, OutboxMessage, OutboxMessage.status.in_((OutboxStatus.SENT, OutboxStatus.DROPPED)),
                  func.coalesce(OutboxMessage.sent_at, OutboxMessage.created_at) < cutoff)


def purge_raw_mail(store: Store, days: float, now: datetime) -> Purged:
    """Both queues; nothing at all when ``days`` is 0 (keep for ever)."""
    if days <= 0:
        return Purged()
    purged = Purged(purge_inbound(store, days, now), purge_outbox(store, days, now))
    if purged.inbound or purged.outbox:
        log.info("deleted the raw text of %d received and %d sent mail(s) older than %g "
                 "day(s) ([retention] raw_mail_days)", purged.inbound, purged.outbox, days)
    return purged


def _purge(store: Store, model: type[InboundMessage] | type[OutboxMessage], *where: object) -> int:
    done = 0
    while True:
        with store.transaction() as session:
            ids = list(session.scalars(select(model.id).where(
                *where, func.length(model.raw) > 0).order_by(model.id).limit(BATCH)))  # type: ignore[arg-type]
            if ids:
                session.execute(update(model).where(model.id.in_(ids)).values(raw=b""))
        done += len(ids)
        if len(ids) < BATCH:
            return done
