"""Who follows a game: observers (OBSERVE, their number, the master taking them out) and the
CONFIRM that makes a seat's address one the game writes to (judge.service.access.confirmations).

Anyone may send OBSERVE in anyone's name, so an observer's seat waits for its address to
confirm, one address has one seat in a game, and a game has at most ``[limits]
observers_per_game`` of them.  Seats still waiting count, but give way: a seat whose code has
expired goes, and when the game is full a new OBSERVE takes the place of the oldest seat still
waiting, so strangers can neither grow a game's list nor keep real observers out.  Only the
observers who confirmed count for good; when they fill the game, OBSERVE is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from judge.service.access import confirmations
from judge.service.errors import CountedRefusal, GameError
from judge.service.events import Event
from judge.service.games import (find_game, lock_game, removed, require_password_form,
                                 rules_of, seats)
from judge.service.access.passwords import hash_password
from judge.service.access.privacy import require_sight
from judge.store import counters
from judge.store.models import Game, GameState, Seat, SeatKind, SeatStatus
from judge.basics.utc import as_utc

OVER = (GameState.FINISHED, GameState.TERMINATED)


@dataclass(frozen=True)
class Observation:
    """An OBSERVE taken: the seat and the code its address must send back."""

    seat: Seat
    game: Game
    code: str


def observe_game(session: Session, name: str, password: str, address: str, now: datetime, *,
                 privacy: str | None = None, most: int, days: int) -> Observation:
    """An observer's seat for ``address``, waiting for it to confirm (``privacy``: the privacy
    password of a private game; ``most`` observers a game may have; codes good ``days``)."""
    game = lock_game(session, find_game(session, name).id)
    require_sight(session, game, now, password=privacy, sender=address,
                  what=f"OBSERVE {game.name} <password> PRIVACY <privacy password>")
    if "NO_OBSERVATIONS" in rules_of(game):
        raise GameError("no_observers", game=game.name)
    if game.state in OVER:
        raise GameError("game_over", game=game.name)
    require_password_form(password)
    mine = list(session.scalars(select(Seat).where(Seat.game_id == game.id,
                                                   Seat.address == address)))
    # an observer the master took out may not come back (one that never confirmed was never
    # there: an OBSERVE in its name does not bar it)
    if any(s.kind == SeatKind.OBSERVER and s.status == SeatStatus.EJECTED
           and s.confirmed_at is not None for s in mine):
        raise GameError("observer_ejected", game=game.name)
    held = next((s for s in mine if s.status == SeatStatus.ACTIVE), None)
    if held is not None:
        return _observe_again(held, game, password, address, now)
    _make_room(session, game, now, most, days)
    seat = Seat(game_id=game.id, kind=SeatKind.OBSERVER, address=address,
                password_hash=hash_password(password), wait=False, orders="{}",
                status=SeatStatus.ACTIVE, joined_at=now)
    session.add(seat)
    session.flush()
    return Observation(seat, game, confirmations.ask(seat, now))


def _observe_again(seat: Seat, game: Game, password: str, address: str,
                   now: datetime) -> Observation:
    """OBSERVE from an address that has a seat in the game already: refused, unless it is an
    observer's still waiting, asked for in an earlier mail, whose code may have been lost:
    a new code then (and the password given now)."""
    if seat.kind != SeatKind.OBSERVER:
        raise GameError("already_in_game", address=address, game=game.name)
    if seat.confirmed_at is not None:
        raise GameError("already_observes", address=address, game=game.name)
    if confirmations.asked_now(seat, now):
        raise GameError("observe_asked", game=game.name)
    seat.password_hash = hash_password(password)
    return Observation(seat, game, confirmations.ask(seat, now))


def _make_room(session: Session, game: Game, now: datetime, most: int, days: int) -> None:
    """Room for one more observer: seats whose code expired go, then, if the game is full,
    the oldest of those still waiting; refused when confirmed observers fill it."""
    observers = seats(session, game, "observer")
    gone = [s for s in observers if s.confirmed_at is None
            and confirmations.expired(s, now, days)]
    # stored times compared as UTC, as everywhere (SQLite gives them back naive)
    waiting = sorted((s for s in observers if s.confirmed_at is None and s not in gone),
                     key=lambda s: (as_utc(s.confirm_asked_at or s.joined_at), s.id))
    over = len(observers) - len(gone) + 1 - most
    if over > len(waiting):
        raise GameError("observers_full", game=game.name, limit=most)
    gone += waiting[:max(over, 0)]
    if gone:
        # never confirmed, so never signed on: nothing refers to them
        session.execute(delete(Seat).where(Seat.id.in_([s.id for s in gone])))
        for seat in gone:
            session.expunge(seat)


def remove_observers(session: Session, game: Game, how: str,
                     address: str | None = None) -> list[Event]:
    """The master takes observers out of ``game``: every one, or the one at ``address``
    (EJECT), or all because the game no longer allows them (``how`` closed).  Each is told
    in a mail of its own, if it ever confirmed (the others get nothing)."""
    chosen = [s for s in seats(session, game, "observer") if address in (None, s.address)]
    status = SeatStatus.CLOSED if how == "closed" else SeatStatus.EJECTED
    events: list[Event] = []
    for seat in chosen:
        seat.status = status  # a code still waiting confirms nothing now (confirm)
        events.append(removed(game, seat, how))
    return events


@dataclass(frozen=True)
class Confirmed:
    """A CONFIRM that worked: the seat, its game, and the address it left (SET ADDRESS)."""

    seat: Seat
    game: Game
    moved_from: str | None = None


def confirm(session: Session, text: str, now: datetime, *, sender: str, days: int,
            failures_allowed: int) -> Confirmed:
    """``CONFIRM <text>`` from ``sender``: the seat whose code it is gets its game's mail
    from now on (or takes its new address).  A wrong code is a :class:`CountedRefusal`:
    beyond ``failures_allowed`` a day, a sender's codes are not looked at."""
    if counters.count(session, confirmations.WRONG_CODE, sender, now) >= failures_allowed:
        raise GameError("confirm_failures", limit=failures_allowed)
    code = confirmations.normalized(text)
    digest = confirmations.digest(code) if code else ""
    row = session.execute(select(Seat.id, Seat.game_id).where(
        Seat.confirm_hash == digest, Seat.status == SeatStatus.ACTIVE)
        .order_by(Seat.id).limit(1)).first() if code else None
    if row is None:
        raise _wrong_code(sender, now)
    game = lock_game(session, row.game_id)
    seat = session.get(Seat, row.id)
    if seat is None or seat.status != SeatStatus.ACTIVE or seat.confirm_hash != digest:
        raise _wrong_code(sender, now)  # another daemon's mail changed it meanwhile
    if confirmations.expired(seat, now, days):
        raise GameError("confirm_expired", game=game.name, days=days)
    moved_from = None
    if seat.pending_address is not None:
        moved_from, seat.address = seat.address, seat.pending_address
    seat.pending_address = seat.confirm_hash = seat.confirm_asked_at = None
    if seat.confirmed_at is None:
        seat.confirmed_at = now
    return Confirmed(seat, game, moved_from)


def _wrong_code(sender: str, now: datetime) -> CountedRefusal:
    """A code that confirms nothing, counted against ``sender`` once the command is undone."""
    def count(kept: Session) -> None:
        counters.bump(kept, confirmations.WRONG_CODE, sender, now)
    return CountedRefusal("confirm_wrong", count=count)
