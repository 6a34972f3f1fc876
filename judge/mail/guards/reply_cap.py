"""The reply cap: one address triggers at most N replies a day, then one last notice, then silence.

It protects the judge and others from mail loops with robots that the robot rules do not catch,
and from floods.  The count is per UTC day and lives in the store, so restarts do not reset it.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Callable

from sqlalchemy import Executable, bindparam
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from judge.store.models import ReplyCount


class Verdict(Enum):
    REPLY = "reply"
    LAST_NOTICE = "last notice"
    SILENCE = "silence"


def take_reply(session: Session, address: str, now: datetime, limit: int,
               raised: Callable[[], int] | None = None) -> Verdict:
    """Count one more mail from ``address`` today and say how the judge may answer it: with
    ``limit`` replies a day, or ``raised()`` where that is more (a master's).  ``raised`` is
    asked only once the count passes ``limit``: it costs a query, and almost no mail gets that
    far."""
    day = now.strftime("%Y-%m-%d")
    # One address however its case is written (as judge.basics.addresses compares them).
    address = address.lower()
    count = _count_one_more(session, address, day)
    if count <= limit:
        return Verdict.REPLY
    if raised is not None:
        limit = max(limit, raised())
        if count <= limit:
            return Verdict.REPLY
    if count == limit + 1:
        return Verdict.LAST_NOTICE
    return Verdict.SILENCE


def _count_one_more(session: Session, address: str, day: str) -> int:
    # One atomic statement on either database: two workers may take mail from one address at
    # once on PostgreSQL (read-then-write would lose a count, or both would insert the day's
    # first row), and on SQLite it spares loading the row into the session first.
    # Built once per dialect (building it cost more than running it), on the table and run on
    # the session's connection: through the ORM an upsert costs several times the statement.
    connection = session.connection()
    dialect = connection.dialect.name
    stmt = _COUNT.get(dialect)
    if stmt is None:
        insert = pg_insert if dialect == "postgresql" else sqlite_insert
        table = _REPLY_COUNT
        stmt = _COUNT[dialect] = (
            insert(table).values(address=bindparam("address"), day=bindparam("day"), count=1)
            .on_conflict_do_update(index_elements=["address", "day"],
                                   set_={"count": table.c.count + 1})
            .returning(table.c.count))
    return int(connection.execute(stmt, dict(address=address, day=day)).scalar_one())


_COUNT: dict[str, Executable] = {}
_REPLY_COUNT = ReplyCount.metadata.tables[ReplyCount.__tablename__]
