"""The transactional outbox: mail is queued in the same transaction as the change behind it."""

from __future__ import annotations

from email.message import EmailMessage
from email.policy import SMTP
from email.utils import getaddresses

from sqlalchemy.orm import Session

from judge.clock import utcnow
from judge.store.models import OutboxMessage


def enqueue(session: Session, msg: EmailMessage, *, inbound_id: int | None = None,
            attachment: str | None = None) -> OutboxMessage:
    """Queue ``msg``; ``attachment`` names pictures the sender draws and attaches
    (:mod:`judge.mail.pictures`), so none is drawn in the caller's transaction."""
    recipients = [addr for _, addr in getaddresses(msg.get_all("To", []) + msg.get_all("Cc", []))
                  if addr]
    if not recipients:
        raise ValueError("a mail with no recipient cannot be queued")
    now = utcnow()
    row = OutboxMessage(created_at=now, message_id=str(msg["Message-ID"]),
                        mail_from=str(msg["From"].addresses[0].addr_spec),
                        recipients=",".join(recipients), subject=str(msg["Subject"] or ""),
                        raw=msg.as_bytes(policy=SMTP), status="pending", attempts=0,
                        next_attempt_at=now, inbound_id=inbound_id, attachment=attachment)
    session.add(row)
    return row
