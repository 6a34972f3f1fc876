"""Double opt-in: an address gets a game's mail only once it has confirmed, with a code mailed
to it, that it wants that mail.

Mail headers prove nothing: a mail forged in someone's name counts as theirs.  So a seat that
a mail put into a game -- an observer's (OBSERVE, which anyone can send in anyone's name), a
player's the master chose (REPLACE), a role's new address (SET ADDRESS) -- waits until its
address answers ``CONFIRM <code>`` with the code the judge mailed to it, which only the
address's reader knows.  Until then none of the game's mail goes to it (judge.mail.writing.game_mail
asks :func:`standing`), its role cannot be signed on to, and a new address does not take the
place of the old.

Confirmation is per game and address, not per address judge-wide: an address that confirmed
a seat in a game gets that game's mail, and a forged OBSERVE of another game in its name only
gets it the reply asking it to confirm that one (else one forged mail of two hundred OBSERVE
lines would subscribe a player of one game to two hundred).

A code is ten characters of an alphabet without look-alikes (about 49 bits), shown as two
groups of five; it is kept as its SHA-256 (a random code needs no slow hash), is good for
``[limits] confirm_days``.  CONFIRM itself is judge.service.membership's.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Iterable

from sqlalchemy import bindparam, case, func, select
from sqlalchemy.orm import Session

from judge.store.models import Game, Seat, SeatStatus
from judge.basics.utc import as_utc

# No 0/O, 1/I/L, U/V: what a reader copies by hand is what they were sent.
ALPHABET = "ABCDEFGHJKMNPQRSTWXYZ23456789"
LENGTH = 10
WRONG_CODE = "confirm-fail"  # the daily counter of a sender's wrong codes


def new_code() -> str:
    """A fresh code as the judge writes it: ``K7QM2-XPDA9``."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
    return f"{raw[:5]}-{raw[5:]}"


def normalized(text: str) -> str | None:
    """The code in ``text`` as stored (upper case, no dash or space), or None when it cannot
    be one."""
    raw = "".join(text.split()).replace("-", "").upper()
    if len(raw) != LENGTH or any(c not in ALPHABET for c in raw):
        return None
    return raw


def digest(code: str) -> str:
    return hashlib.sha256(code.encode("ascii")).hexdigest()


def ask(seat: Seat, now: datetime, new_address: str | None = None) -> str:
    """Mark ``seat`` as waiting for its address (or ``new_address``, SET ADDRESS) to confirm;
    the code to mail there.  A code sent before stops working."""
    code = new_code()
    seat.confirm_hash = digest(normalized(code) or "")
    seat.confirm_asked_at = now
    seat.pending_address = new_address
    return code


def expiry(seat: Seat, days: int) -> datetime | None:
    """When the code last mailed for ``seat`` stops working (None: none is waiting)."""
    asked = as_utc(seat.confirm_asked_at)
    return asked + timedelta(days=days) if asked is not None else None


def expired(seat: Seat, now: datetime, days: int) -> bool:
    until = expiry(seat, days)
    return until is not None and as_utc(now) >= until  # type: ignore[operator]


def asked_now(seat: Seat, now: datetime) -> bool:
    """The code was mailed by the mail being executed (its commands share one ``now``)."""
    return seat.confirm_asked_at is not None and as_utc(seat.confirm_asked_at) == as_utc(now)


@dataclass(frozen=True)
class Standing:
    """Where some addresses stand in a game, by their seats in it.

    ``members`` hold a seat in play (active, or a dummy: the master's) that they confirmed:
    the game's mail is theirs.  ``waiting`` hold a seat that waits for them to confirm and
    none in play that they confirmed: they get nothing but the one mail asking them to (a
    former player's forged OBSERVE must not bring the game's mail back).  ``known`` confirmed
    a seat some time, in play or not (an observer the master just took out, told so): never
    strangers to the game, whose copies the per-mail limit counts."""

    members: frozenset[str] = frozenset()
    waiting: frozenset[str] = frozenset()
    known: frozenset[str] = frozenset()


NOBODY = Standing()

# Built once (building it cost more than running it, as in judge.mail.guards.recipients).
_SEATS = Seat.metadata.tables[Seat.__tablename__]
_GAMES = Game.metadata.tables[Game.__tablename__]
_CONFIRMED = _SEATS.c.confirmed_at.is_not(None)
_IN_PLAY = _SEATS.c.status.in_([SeatStatus.ACTIVE, SeatStatus.DUMMY])
_STANDING = (
    select(_SEATS.c.address,
           func.max(case((_CONFIRMED & _IN_PLAY, 1), else_=0)).label("member"),
           func.max(case((_CONFIRMED, 1), else_=0)).label("known"),
           func.max(case((_CONFIRMED, 0), else_=1)).label("asked"))
    .join_from(_SEATS, _GAMES, _GAMES.c.id == _SEATS.c.game_id)
    .where(_GAMES.c.name_key == bindparam("game"),
           _SEATS.c.address.in_(bindparam("addresses", expanding=True)))
    .group_by(_SEATS.c.address))


def standing(session: Session, game_name: str | None, addresses: Iterable[str]) -> Standing:
    """Where ``addresses`` stand in the game named (one statement for them all)."""
    wanted = list(dict.fromkeys(addresses))
    if not game_name or not wanted:
        return NOBODY
    session.flush()  # the statement below runs on the connection: seats just changed count
    rows = session.connection().execute(_STANDING, dict(game=game_name.lower(),
                                                        addresses=wanted)).all()
    return Standing(members=frozenset(r.address for r in rows if r.member),
                    waiting=frozenset(r.address for r in rows if r.asked and not r.member),
                    known=frozenset(r.address for r in rows if r.known))


def member(session: Session, game: Game, address: str) -> bool:
    """``address`` holds a seat in play in ``game`` that it confirmed: the game's mail (and
    its pictures) are its own."""
    return address in standing(session, game.name, [address]).members
