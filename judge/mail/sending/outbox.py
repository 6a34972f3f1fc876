"""The transactional outbox: mail is queued in the same transaction as the change behind it."""

from __future__ import annotations

from email.message import EmailMessage

from sqlalchemy import insert
from sqlalchemy.orm import Session

from judge.basics.utc import utcnow
from judge.mail.writing.compose import Composed, Copies, composed
from judge.store.models import OutboxMessage, OutboxStatus


def enqueue(session: Session, msg: EmailMessage | Composed, *, inbound_id: int | None = None,
            attachment: str | None = None) -> int:
    """Queue ``msg`` (its outbox row's id); ``attachment`` names pictures the sender draws and attaches
    (:mod:`judge.mail.writing.attached_maps`), so none is drawn in the caller's transaction."""
    mail = msg if isinstance(msg, Composed) else composed(msg)
    if not mail.recipients:
        raise ValueError("a mail with no recipient cannot be queued")
    return _queue(session, message_id=mail.message_id, mail_from=mail.mail_from,
                  recipients=mail.recipients, subject=mail.subject, raw=mail.raw,
                  inbound_id=inbound_id, attachment=attachment)


def enqueue_copy(session: Session, copies: Copies, recipient: str, *,
                 inbound_id: int | None = None, attachment: str | None = None) -> int:
    """Queue ``recipient``'s copy of a broadcast built once (judge.mail.writing.compose.Copies)."""
    raw, message_id = copies.copy_for(recipient)
    return _queue(session, message_id=message_id, mail_from=copies.mail_from,
                  recipients=[recipient], subject=copies.subject, raw=raw,
                  inbound_id=inbound_id, attachment=attachment)


def _queue(session: Session, *, message_id: str, mail_from: str, recipients: list[str],
           subject: str, raw: bytes, inbound_id: int | None, attachment: str | None) -> int:
    # On the session's connection, not through the ORM: its unit of work cost more than the
    # insert itself, once a mail (the row is never used again in this transaction).
    now = utcnow()
    result = session.connection().execute(_INSERT, dict(
        created_at=now, message_id=message_id, mail_from=mail_from,
        recipients=",".join(recipients), subject=subject, raw=raw,
        status=OutboxStatus.PENDING, attempts=0, next_attempt_at=now, inbound_id=inbound_id,
        attachment=attachment))
    key = result.inserted_primary_key
    assert key is not None
    return int(key[0])


_INSERT = insert(OutboxMessage.metadata.tables[OutboxMessage.__tablename__])
