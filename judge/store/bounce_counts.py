"""The bounce counts of addresses: return-path tokens, hard bounces, and the failing mark.

Every statement is built once and run on the session's connection (as judge.mail.guards.recipients
does): the sender looks up the addresses of each batch it sends, and the pipeline clears the
count of every address a mail comes from, so these run often.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Iterable

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from judge.store.models import AddressBounces

_TABLE: Table = AddressBounces.__table__  # type: ignore[assignment]
_C = _TABLE.c
# A token is what the return path carries: lower-case letters and digits (some servers
# lower-case a local part), 100 bits of chance, so none can be guessed.
TOKEN_LENGTH = 20
_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"

_KNOWN = (select(_C.address, _C.token, _C.failing_since)
          .where(_C.address.in_(bindparam("addresses", expanding=True))))
_BY_TOKEN = select(_C.address).where(_C.token == bindparam("token"))
_CLEAR = (update(_TABLE).where(_C.address == bindparam("who"), _C.hard_bounces > 0)
          .values(hard_bounces=0, failing_since=None))
_COUNT = (update(_TABLE).where(_C.address == bindparam("who"))
          .values(hard_bounces=_C.hard_bounces + 1, last_bounce_at=bindparam("now"),
                  last_diagnostic=bindparam("diagnostic"))
          .returning(_C.hard_bounces))
_MARK = (update(_TABLE).where(_C.address == bindparam("who"), _C.failing_since.is_(None))
         .values(failing_since=bindparam("now")))
_FAILING = (select(_C.address, _C.hard_bounces, _C.last_diagnostic)
            .where(_C.address.in_(bindparam("addresses", expanding=True)),
                   _C.failing_since.is_not(None)))


def new_token() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(TOKEN_LENGTH))


@dataclass(frozen=True)
class Known:
    """What the sender needs of a recipient: its token, and whether it is marked failing."""

    token: str
    failing: bool


def _insert(session: Session) -> Any:
    return pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert


def known(session: Session, addresses: Iterable[str], *, with_tokens: bool) -> dict[str, Known]:
    """The addresses' tokens and marks; with ``with_tokens`` every address gets a token (one
    is made for an address that has none yet), else only the addresses known are returned."""
    wanted = sorted(set(addresses))
    if not wanted:
        return {}
    connection = session.connection()
    found = {row.address: Known(row.token, row.failing_since is not None)
             for row in connection.execute(_KNOWN, dict(addresses=wanted))}
    missing = [address for address in wanted if address not in found]
    if with_tokens and missing:
        stmt = _insert(session)(_TABLE).on_conflict_do_nothing(index_elements=["address"])
        connection.execute(stmt, [dict(address=address, token=new_token(), hard_bounces=0)
                                  for address in missing])
        found.update({row.address: Known(row.token, row.failing_since is not None)
                      for row in connection.execute(_KNOWN, dict(addresses=missing))})
    return found


def address_of_token(session: Session, token: str) -> str | None:
    return session.connection().execute(_BY_TOKEN, dict(token=token)).scalar()


def count_hard_bounce(session: Session, address: str, diagnostic: str, now: datetime) -> int:
    """One more hard bounce of ``address``; its count since it last wrote."""
    connection = session.connection()
    count = connection.execute(_COUNT, dict(who=address, now=now,
                                            diagnostic=diagnostic)).scalar()
    if count is None:  # an address the judge never gave a token (a bounce read without one)
        connection.execute(_insert(session)(_TABLE).on_conflict_do_nothing(
            index_elements=["address"]), dict(address=address, token=new_token(),
                                              hard_bounces=0))
        count = connection.execute(_COUNT, dict(who=address, now=now,
                                                diagnostic=diagnostic)).scalar()
    return int(count or 0)


def mark_failing(session: Session, address: str, now: datetime) -> bool:
    """Mark ``address`` failing; True when this call marked it (it was not already)."""
    result = session.connection().execute(_MARK, dict(who=address, now=now))
    return bool(result.rowcount)


def clear(session: Session, address: str) -> None:
    """``address`` wrote to the judge: its count starts again, and it gets mail again."""
    session.connection().execute(_CLEAR, dict(who=address))


def failing(session: Session, addresses: Iterable[str]) -> dict[str, tuple[int, str]]:
    """Those of ``addresses`` marked failing: address → (hard bounces, what the server said)."""
    wanted = sorted(set(addresses))
    if not wanted:
        return {}
    return {row.address: (row.hard_bounces, row.last_diagnostic or "")
            for row in session.connection().execute(_FAILING, dict(addresses=wanted))}
