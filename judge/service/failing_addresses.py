"""The games an address that the judge's mail cannot reach plays in, and who must hear of it.

The mail layer (judge.mail.guards.dead_addresses) reads the bounces and marks the address; this
module says, per game not over in which the address holds a seat, what it holds and which of
the game's masters to tell (the address itself never: its mail does not arrive).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.service.events import AddressFailing, Event
from judge.service.games import seats, variant_title
from judge.store import bounce_counts
from judge.store.models import Game, GameState, Seat, SeatKind, SeatStatus

PLAYING = (GameState.FORMING, GameState.ACTIVE, GameState.PAUSED)


def seat_name(seat: Seat) -> str:
    """A seat as the masters' notice and LIST name it: the power, else its kind."""
    if seat.kind == SeatKind.POWER and seat.power:
        return seat.power
    return seat.kind.upper() if seat.kind != SeatKind.POWER else "PLAYER"


def failing_address_events(session: Session, address: str, bounces: int,
                           diagnostic: str) -> list[Event]:
    """One notice per game not over where ``address`` holds an active seat, to its masters."""
    rows = session.execute(
        select(Seat, Game).join(Game, Game.id == Seat.game_id)
        .where(Seat.address == address, Seat.status == SeatStatus.ACTIVE,
               Game.state.in_(PLAYING))
        .order_by(Game.name_key, Seat.id)).all()
    held: dict[int, tuple[Game, list[str]]] = {}
    for seat, game in rows:
        held.setdefault(game.id, (game, []))[1].append(seat_name(seat))
    events: list[Event] = []
    for game, names in held.values():
        masters = tuple(dict.fromkeys(s.address for s in seats(session, game, "master")
                                      if s.address != address))
        if masters:
            events.append(AddressFailing(game=game.name, variant=variant_title(game),
                                         to=masters, phase=game.phase, address=address,
                                         seats=tuple(names), bounces=bounces,
                                         diagnostic=diagnostic))
    return events


def failing_seats(session: Session, game: Game) -> list[tuple[str, str, int]]:
    """(seat, address, hard bounces) of the game's active seats whose address is marked
    failing, as LIST shows them to the master."""
    held = seats(session, game)
    failing = bounce_counts.failing(session, [seat.address for seat in held])
    return [(seat_name(seat), seat.address, failing[seat.address][0]) for seat in held
            if seat.address in failing]
