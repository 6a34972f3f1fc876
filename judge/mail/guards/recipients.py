"""Who the judge may write to.

An address is *heard from* once a mail from it has been processed (it asked for the judge's
mail).  Until then the judge writes to it once -- the notice that someone (a master's REPLACE,
a player's SET ADDRESS) gave it a place -- and after that nothing, however many commands name
it, until it writes itself.  So nobody can make the judge mail a stranger more than once.

:func:`screen` applies that to every mail as it is queued, and drops (with a log line) the
addresses the judge cannot write to at all, so one bad address never stops the mail for the
others.  Mail headers prove nothing: a mail forged in someone's name counts as theirs; the
reply cap bounds what such forgeries can make the judge send.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Collection, Iterable

from sqlalchemy import Executable, bindparam, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from judge.basics.addresses import usable_address
from judge.store.models import KnownAddress

log = logging.getLogger("judge.recipients")


def _insert(session: Session):
    return pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert


def heard_from(session: Session, address: str, now: datetime) -> None:
    """``address`` has written to the judge: from now on it gets the judge's mail."""
    # Built once per dialect (building it cost more than running it), on the table and run on
    # the session's connection: through the ORM an upsert costs several times the statement.
    connection = session.connection()
    dialect = connection.dialect.name
    stmt = _HEARD.get(dialect)
    if stmt is None:
        insert = pg_insert if dialect == "postgresql" else sqlite_insert
        stmt = _HEARD[dialect] = insert(_KNOWN_TABLE).values(
            address=bindparam("address"), confirmed_at=bindparam("now")).on_conflict_do_update(
            index_elements=["address"], set_={"confirmed_at": bindparam("now")},
            where=_KNOWN_TABLE.c.confirmed_at.is_(None))
    connection.execute(stmt, dict(address=address, now=now))


_HEARD: dict[str, Executable] = {}
_KNOWN_TABLE = KnownAddress.metadata.tables[KnownAddress.__tablename__]
# What the judge knows of some addresses (built once, like _HEARD).
_KNOWN = (select(_KNOWN_TABLE.c.address, _KNOWN_TABLE.c.confirmed_at, _KNOWN_TABLE.c.notified_at)
          .where(_KNOWN_TABLE.c.address.in_(bindparam("addresses", expanding=True))))


def unheard(session: Session, addresses: set[str]) -> set[str]:
    """Those of ``addresses`` the judge has neither heard from nor written to yet."""
    if not addresses:
        return set()
    known = {row.address for row in session.execute(
        select(KnownAddress.address).where(
            KnownAddress.address.in_(addresses),
            (KnownAddress.confirmed_at.is_not(None)) | (KnownAddress.notified_at.is_not(None))))}
    return {a for a in addresses if a not in known}


def screen(session: Session, addresses: Iterable[str], now: datetime,
           withheld: list[str] | None = None, heard: Collection[str] = ()) -> list[str]:
    """The addresses a mail may go to now (in order, once each); the others are logged and,
    if ``withheld`` is given, listed there (an address the judge has written to once and
    not heard from since).  ``heard``: addresses the caller knows to be usable, as
    :func:`checked_address` writes them, and heard from (a reply's sender), which need no
    look-up."""
    wanted: list[str] = []
    for address in dict.fromkeys(addresses):
        usable = address if address in heard else usable_address(address)
        if usable is None:
            log.warning("not writing to %r: not a usable mail address", address)
            continue
        wanted.append(usable)
    if not wanted:
        return []
    unsure = [address for address in wanted if address not in heard]
    rows = {row.address: row for row in session.connection().execute(
        _KNOWN, dict(addresses=unsure))} if unsure else {}
    allowed: list[str] = []
    first_notices: list[str] = []
    for address in dict.fromkeys(wanted):
        row = rows.get(address)
        if address in heard or (row is not None and row.confirmed_at is not None):
            allowed.append(address)
        elif row is None or row.notified_at is None:
            first_notices.append(address)
            allowed.append(address)
        else:
            log.info("not writing to %s again: it has not written to the judge since its "
                     "first notice", address)
            if withheld is not None and address not in withheld:
                withheld.append(address)
    _notified(session, first_notices, now)
    return allowed


def _notified(session: Session, addresses: list[str], now: datetime) -> None:
    """Record that the judge writes to ``addresses`` now (one statement for them all)."""
    if not addresses:
        return
    stmt = _insert(session)(_KNOWN_TABLE).values(notified_at=now)
    session.connection().execute(stmt.on_conflict_do_update(index_elements=["address"],
                                                            set_={"notified_at": now}),
                                 [{"address": address} for address in addresses])

