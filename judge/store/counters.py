"""Daily counters in the store (``daily_counts``): how often something happened on one UTC day.

The limits on what one address may make the judge do in a day (CREATEs, new recipients,
failed SIGNONs …) count here, in the caller's transaction, so a refused or rolled-back command
counts nothing and a restart forgets nothing.  Counting is one atomic upsert on either store:
two workers counting at once never lose a count.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, bindparam, delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from judge.store.models import DailyCount, ReplyCount


def day_of(when: datetime) -> str:
    return when.strftime("%Y-%m-%d")


def count(session: Session, kind: str, subject: str, when: datetime) -> int:
    """Today's count (0 when nothing was counted)."""
    # A statement built once, run on the session's connection: a mail of hundreds of CREATE
    # lines asks once a line, and through the ORM the asking cost several times the query
    # (the rows are only ever written by bump's statement, never held as ORM objects).
    found = session.connection().execute(_COUNT, dict(kind=kind, subject=subject,
                                                      day=day_of(when))).scalar()
    return int(found or 0)


_COUNTS = DailyCount.metadata.tables[DailyCount.__tablename__]
_COUNT = select(_COUNTS.c.count).where(_COUNTS.c.kind == bindparam("kind"),
                                       _COUNTS.c.subject == bindparam("subject"),
                                       _COUNTS.c.day == bindparam("day"))


def last(session: Session, kind: str, subject: str, when: datetime) -> tuple[int, datetime | None]:
    """Today's count and when it last happened."""
    # columns, not an ORM object: the identity map would keep a copy that bump() makes stale
    row = session.execute(select(DailyCount.count, DailyCount.last_at).where(
        DailyCount.kind == kind, DailyCount.subject == subject,
        DailyCount.day == day_of(when))).first()
    if row is None:
        return 0, None
    return int(row[0]), row[1]


def bump(session: Session, kind: str, subject: str, when: datetime, by: int = 1) -> int:
    """Count ``by`` more today; returns the new count."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    values = insert(DailyCount).values(kind=kind, subject=subject, day=day_of(when), count=by,
                                       last_at=when)
    stmt = values.on_conflict_do_update(
        index_elements=["kind", "subject", "day"],
        set_={"count": DailyCount.count + by, "last_at": when}).returning(DailyCount.count)
    return int(session.execute(stmt).scalar_one())


def reserve(session: Session, kind: str, limits: list[tuple[str, int]], when: datetime) -> bool:
    """Count one more today for each ``(subject, limit)`` if every count is below its limit,
    atomically; False (and nothing counted) when one is not.

    Each count is one upsert that adds only below the limit: on PostgreSQL the row stays locked
    until the transaction ends, so another transaction reserving meanwhile waits and then sees
    this count; on SQLite writers take turns.  Counting *before* the slow check a limit guards
    (a password's) means that checks made at once can never pass it together."""
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    counted: list[str] = []
    for subject, limit in limits:
        values = insert(DailyCount).values(kind=kind, subject=subject, day=day_of(when),
                                           count=1, last_at=when)
        stmt = values.on_conflict_do_update(
            index_elements=["kind", "subject", "day"],
            set_={"count": DailyCount.count + 1, "last_at": when},
            where=DailyCount.count < limit).returning(DailyCount.count)
        if limit < 1 or session.execute(stmt).scalar() is None:
            for done in counted:
                bump(session, kind, done, when, -1)
            return False
        counted.append(subject)
    return True


def forget_old(session: Session, now: datetime, keep_days: int = 2) -> int:
    """Drop the counts (and reply counts) of days before the last ``keep_days``."""
    cutoff = day_of(now - timedelta(days=keep_days))
    gone = 0
    for model in (DailyCount, ReplyCount):
        result = cast(CursorResult[Any], session.execute(delete(model).where(model.day < cutoff)))
        gone += result.rowcount or 0
    return gone
