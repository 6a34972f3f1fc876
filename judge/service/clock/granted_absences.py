"""When a game's players are away: the granted absences (SET ABSENCE, judge.service.clock.absences)
read from the store, which the game clock consults to move a deadline that falls in one."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.store.models import Absence, AbsenceStatus, Game, Seat, SeatStatus
from judge.basics.utc import as_utc

def granted(session: Session, game: Game) -> list[tuple[Absence, Seat]]:
    """The game's granted absences whose player still plays, soonest first."""
    rows = session.execute(
        select(Absence, Seat).join(Seat, Seat.id == Absence.seat_id)
        .where(Absence.game_id == game.id, Absence.status == AbsenceStatus.GRANTED,
               Seat.status == SeatStatus.ACTIVE)
        .order_by(Absence.starts_at, Absence.id)).all()
    return [(a, s) for a, s in rows]


def covering(session: Session, game: Game, when: datetime) -> datetime | None:
    """The end of an absence ``when`` falls in (the latest, if several), or None."""
    ends = [as_utc(a.ends_at) for a, _ in granted(session, game)
            if as_utc(a.starts_at) <= when < as_utc(a.ends_at)]  # type: ignore[operator]
    return max(ends) if ends else None  # type: ignore[type-var]


def current(session: Session, game: Game, now: datetime) -> list[tuple[str, datetime, datetime]]:
    """The absences not yet over: (power, or the address of a player without one yet,
    start, end), soonest first."""
    return [(s.power or s.address, as_utc(a.starts_at), as_utc(a.ends_at))  # type: ignore[misc]
            for a, s in granted(session, game) if as_utc(a.ends_at) > now]  # type: ignore[operator]
