"""Players' absences (SET ABSENCE): a player announces a holiday, and the deadlines that fall
in it move to its end (judge.service.clock.game_clock), within the limit the master sets (SET MAX
ABSENCE, in days; 0 allows none).  The master may refuse one before it begins or cancel it
once begun; the player may withdraw it.  Everybody in the game is told of each change
(a :class:`ParameterChanged` event).

One absence per player at a time: a player announces the next one when the last is over or
withdrawn, so nobody can hold a game up by a chain of absences announced in one go.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.basics.utc import as_utc
from judge.service.clock import game_clock as clock
from judge.service.errors import GameError
from judge.service.events import Change, Event
from judge.service.games import parameter_change
from judge.store import counters
from judge.store.models import Absence, AbsenceStatus, Game, GameState, Seat

# Each announcement is mailed to everybody in the game: a player announces at most this many
# a day (judge.store.counters), so that announcing and withdrawing cannot flood the others.
ANNOUNCED_PER_DAY = 3


def _open(session: Session, seat: Seat, now: datetime) -> Absence | None:
    return session.scalars(select(Absence).where(
        Absence.seat_id == seat.id, Absence.status == AbsenceStatus.GRANTED, Absence.ends_at > now)
        .order_by(Absence.starts_at)).first()


def announce(session: Session, game: Game, seat: Seat, starts: datetime, ends: datetime,
             now: datetime) -> tuple[list[Event], bool]:
    """A player's absence from ``starts`` to ``ends``: granted within the game's limit, and
    the current deadline moved if it falls in it.  Returns the events and whether the
    deadline moved."""
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise GameError("game_over", game=game.name)
    limit = game.max_absence_days
    if limit <= 0:
        raise GameError("no_absences_allowed", game=game.name)
    if ends <= starts:
        raise GameError("absence_backwards")
    if ends <= now:
        raise GameError("absence_over")
    if ends - starts > timedelta(days=limit):
        raise GameError("absence_too_long", game=game.name, days=limit)
    if ends - now > timedelta(days=365):
        raise GameError("absence_too_far")
    if _open(session, seat, now) is not None:
        raise GameError("absence_already")
    if counters.count(session, "absence", str(seat.id), now) >= ANNOUNCED_PER_DAY:
        raise GameError("absences_per_day", limit=ANNOUNCED_PER_DAY)
    counters.bump(session, "absence", str(seat.id), now)
    session.add(Absence(game_id=game.id, seat_id=seat.id, starts_at=starts, ends_at=ends,
                        status=AbsenceStatus.GRANTED, created_at=now))
    session.flush()
    moved = clock.refresh_deadline(game, now)
    change = Change("absence", power=seat.power or "", starts=starts, ends=ends, moved=moved)
    return [parameter_change(session, game, change)], moved


def withdraw(session: Session, game: Game, seat: Seat, now: datetime, by_master: bool
             ) -> tuple[list[Event], bool]:
    """End the player's absence that is not yet over: withdrawn by the player, refused (not
    yet begun) or cancelled (begun) by the master.  The deadline goes back where the clock
    put it if it is still ahead.  Returns the events and whether the deadline moved."""
    absence = _open(session, seat, now)
    if absence is None:
        raise GameError("no_open_absence", by_master=by_master, power=seat.power)
    began = as_utc(absence.starts_at) <= now  # type: ignore[operator]
    absence.status = ((AbsenceStatus.CANCELLED if began else AbsenceStatus.REFUSED)
                      if by_master else AbsenceStatus.WITHDRAWN)
    session.flush()
    moved = clock.refresh_deadline(game, now)
    change = Change("noabsence", power=seat.power or "", starts=as_utc(absence.starts_at),
                    ends=as_utc(absence.ends_at), moved=moved, how=absence.status)
    return [parameter_change(session, game, change)], moved
