"""The reply cap: one address triggers at most N replies a day, then one last notice, then silence.

It protects the judge and others from mail loops with robots that the robot rules do not catch,
and from floods.  The count is per UTC day and lives in the store, so restarts do not reset it.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum

from sqlalchemy.orm import Session

from judge.store.models import ReplyCount


class Verdict(Enum):
    REPLY = "reply"
    LAST_NOTICE = "last notice"
    SILENCE = "silence"


def take_reply(session: Session, address: str, now: datetime, limit: int) -> Verdict:
    """Count one more mail from ``address`` today and say how the judge may answer it."""
    day = now.strftime("%Y-%m-%d")
    # One address however its case is written (as judge.mail.addresses compares them).
    address = address.lower()
    row = session.get(ReplyCount, (address, day))
    if row is None:
        row = ReplyCount(address=address, day=day, count=0)
        session.add(row)
    row.count += 1
    if row.count <= limit:
        return Verdict.REPLY
    if row.count == limit + 1:
        return Verdict.LAST_NOTICE
    return Verdict.SILENCE
