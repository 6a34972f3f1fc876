"""The worker: claims stored messages and processes each.

Claiming commits ``attempts + 1`` and a lease first, so a message that crashes the daemon is
still counted; after ``[worker] max_attempts`` it is set aside (status ``failed``) for the
operator (``judge inbound list|retry``).  A plain processor (``processor(session, row)``) runs
in one transaction that commits the message's effects, its outbox rows and its ``done`` mark
together; a staged one (the mail pipeline, ``processor.process(store, inbound_id)``) commits
in several steps, each recording how far it got, and marks the message done in the last one
with :func:`mark_processed`.  Either way each command takes effect exactly once.

On SQLite the daemon works in batches (:func:`work_batch`; on PostgreSQL, where several daemons
may share the work, one message at a time): one transaction claims several messages, and
a processor that can (the pipeline's ``process_batch``) finishes several in one write
transaction, so a stream of mail costs a disk flush per batch rather than two per message.
Only messages never tried before are claimed together: one tried before may be the one that
crashed the daemon, so it is claimed, counted and processed alone.  A crash in the middle of
a batch thus counts one attempt too many for the others in it, once; after that each is on
its own, and only a message that itself keeps crashing is set aside.
"""

from __future__ import annotations

import logging
import traceback
from datetime import timedelta
from itertools import takewhile
from typing import Callable, Protocol, runtime_checkable

from sqlalchemy import bindparam, or_, select, update
from sqlalchemy.orm import Session

from judge.basics.utc import utcnow
from judge.basics.config import Config
from judge.mail.clean import clean
from judge.store.db import Store, rows_changed
from judge.store.leases import owner_id
from judge.store.models import InboundMessage, InboundStatus
from judge.store.turns import WriteTurns

log = logging.getLogger("judge.worker")


@runtime_checkable
class StagedProcessor(Protocol):
    def process(self, store: Store, inbound_id: int) -> bool: ...


Processor = Callable[[Session, InboundMessage], str] | StagedProcessor
# Told, in the transaction that sets a message aside, that it is being set aside (the
# pipeline answers the sender and tells the games' masters rather than stay silent).
SetAside = Callable[[Session, InboundMessage], None]


def _set_aside(session: Session, row: InboundMessage, why: str,
               on_set_aside: SetAside | None) -> None:
    row.status = InboundStatus.FAILED
    row.note = f"{why}: {row.note}" if row.note else why
    row.lease_until = row.lease_owner = None
    log.error("inbound %s set aside (%s): message %s from %s", row.id, why, row.message_id,
              row.envelope_sender)
    if on_set_aside is not None:
        try:
            with session.begin_nested():
                on_set_aside(session, row)
        except Exception:
            log.exception("inbound %s: telling about the set-aside mail failed", row.id)


def claim_next(store: Store, config: Config,
               on_set_aside: SetAside | None = None) -> int | None:
    """Lease the oldest waiting message; returns its id, or None when nothing waits."""
    taken = claim_batch(store, config, on_set_aside, limit=1)
    return taken[0] if taken else None


def claim_batch(store: Store, config: Config, on_set_aside: SetAside | None = None,
                limit: int = 32) -> list[int]:
    """Lease up to ``limit`` of the oldest waiting messages in one transaction; their ids,
    oldest first ([] when nothing waits).  A message tried before comes alone."""
    # Ids and attempts only, and one UPDATE for the lot: loading the rows (the mail's text
    # with them) into the session and flushing them back cost more than the rest of a claim.
    while True:
        now = utcnow()
        with store.transaction() as session:
            connection = session.connection()
            rows = connection.execute(_WAITING.limit(limit), dict(now=now)).all()
            if not rows:
                return []
            first = rows[0]
            if first.attempts >= config.worker.max_attempts:
                row = session.get(InboundMessage, first.id)
                assert row is not None
                _set_aside(session, row, f"set aside after {row.attempts} attempts",
                           on_set_aside)
                continue
            taken = [first.id] if first.attempts else \
                [row.id for row in takewhile(lambda row: row.attempts == 0, rows)]
            connection.execute(_LEASE, dict(
                ids=taken, until=now + timedelta(seconds=config.worker.lease_seconds),
                owner=owner_id()))
            return taken


def process_batch(store: Store, config: Config, inbound_ids: list[int],
                  processor: Processor, seconds: float = 0.05,
                  turns: WriteTurns | None = None) -> int:
    """Process claimed messages; returns how many were finished.  A processor with a
    ``process_batch`` method finishes many in one write transaction (of about ``seconds``,
    shorter when ``turns`` says intake waits for the lock); the others, one by one."""
    batch = getattr(processor, "process_batch", None)
    if batch is None or len(inbound_ids) == 1:
        return sum(process_claimed(store, config, i, processor) for i in inbound_ids)
    set_aside = getattr(processor, "set_aside", None)
    try:
        finished, failures = batch(store, inbound_ids, seconds, turns)
    except Exception:
        # The shared transaction itself failed (the database went away, say): what it held
        # was rolled back, so each message is tried again on its own.
        log.exception("a batch of %d messages failed; processing them one by one",
                      len(inbound_ids))
        return sum(process_claimed(store, config, i, processor) for i in inbound_ids)
    for inbound_id, exc in failures:
        log.error("inbound %s failed (will retry up to %d attempts)", inbound_id,
                  config.worker.max_attempts, exc_info=exc)
        _record_failure(store, config, inbound_id, exc, set_aside)
    return finished


def work_batch(store: Store, config: Config, processor: Processor, limit: int = 32,
               seconds: float = 0.05, turns: WriteTurns | None = None) -> int:
    """The daemon worker's step: claim a batch and process it; returns how many messages
    were claimed (0: nothing waits)."""
    inbound_ids = claim_batch(store, config, getattr(processor, "set_aside", None), limit)
    if inbound_ids:
        process_batch(store, config, inbound_ids, processor, seconds, turns)
    return len(inbound_ids)


def mark_processed(session: Session, inbound_id: int, outcome: str, note: str | None) -> bool:
    """Mark the message ``outcome`` (done, ignored) in the caller's transaction; False when
    it is no longer new (another worker finished it: the caller must roll back)."""
    # Conditional on still being new: with two workers only one commit can win.
    return bool(rows_changed(session.connection().execute(_MARK, dict(
        inbound_id=inbound_id, outcome=outcome, processed_at=utcnow(),
        note=clean(note) if note else None))))


# Built once, and run on the session's connection rather than through the ORM: building the
# statement, and the ORM's work around it, cost more than running it, once a message.  (The
# caller's copy of the row is read afresh, populate_existing, where it matters.)
_TABLE = InboundMessage.metadata.tables[InboundMessage.__tablename__]
_INBOUND = _TABLE.c
# Waiting messages, oldest first, not leased to a live worker (rows another transaction has
# locked are skipped where the database can: PostgreSQL).
_WAITING = (select(_INBOUND.id, _INBOUND.attempts)
            .where(_INBOUND.status == InboundStatus.NEW,
                   or_(_INBOUND.lease_until.is_(None), _INBOUND.lease_until < bindparam("now")))
            .order_by(_INBOUND.id).with_for_update(skip_locked=True))
_LEASE = (update(_TABLE).where(_INBOUND.id.in_(bindparam("ids", expanding=True)))
          .values(attempts=_INBOUND.attempts + 1, lease_until=bindparam("until"),
                  lease_owner=bindparam("owner")))
_MARK = (update(_TABLE)
         .where(_INBOUND.id == bindparam("inbound_id"), _INBOUND.status == InboundStatus.NEW)
         .values(status=bindparam("outcome"), processed_at=bindparam("processed_at"),
                 lease_until=None, lease_owner=None, note=bindparam("note"), progress=None))


def process_claimed(store: Store, config: Config, inbound_id: int, processor: Processor) -> bool:
    """Run ``processor`` on the message; record the error if it fails."""
    try:
        if isinstance(processor, StagedProcessor):
            return processor.process(store, inbound_id)
        with store.transaction() as session:
            row = session.get(InboundMessage, inbound_id)
            if row is None or row.status != InboundStatus.NEW:
                return False  # someone else finished it
            outcome = processor(session, row)
            if not mark_processed(session, inbound_id, outcome, row.note):
                session.rollback()
                return False
        return True
    except Exception as exc:
        log.exception("inbound %s failed (will retry up to %d attempts)", inbound_id,
                      config.worker.max_attempts)
        _record_failure(store, config, inbound_id, exc, getattr(processor, "set_aside", None))
        return False


def _record_failure(store: Store, config: Config, inbound_id: int, exc: Exception,
                    on_set_aside: SetAside | None) -> None:
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    with store.transaction() as session:
        row = session.get(InboundMessage, inbound_id)
        if row is None:
            return
        row.note = clean(detail)[:4000]
        row.lease_until = row.lease_owner = None
        if row.attempts >= config.worker.max_attempts:
            _set_aside(session, row, f"set aside after {row.attempts} attempts", on_set_aside)


def process_pending(store: Store, config: Config, processor: Processor,
                    limit: int | None = None) -> int:
    """Process waiting messages until none is left (or ``limit``); returns how many were tried."""
    count = 0
    while limit is None or count < limit:
        inbound_id = claim_next(store, config, getattr(processor, "set_aside", None))
        if inbound_id is None:
            break
        process_claimed(store, config, inbound_id, processor)
        count += 1
    return count
