"""Press over the store: sending a press message, the master's press settings, and the press
each reader may see in HISTORY.

What is allowed is decided by the pure rules of :mod:`judge.core.press`; this module gathers
the game's facts for them (rules, settings, survivors, who plays what, Formal Diplomacy wars),
archives an accepted press in ``press`` and returns a :class:`PressSent` event naming who gets
which copy.  A refusal raises :class:`GameError` before anything is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from judge.basics.utc import as_utc
from judge.core.formal.state import FormalState
from judge.core.maps import Map
from judge.core.press import (MASTER, OBSERVER, Addressing, PressError, PressGame,
                              parse_addressing, refusal)
from judge.service.clock import game_clock as clock
from judge.service.errors import GameError
from judge.service.events import Event, PressSent
from judge.service.games import dummy_seats, notice, rules_of, seats, variant_title
from judge.service.processing import position_of
from judge.store.models import Game, GameState, Press, Seat, SeatKind, SeatStatus

OVER = (GameState.FINISHED, GameState.TERMINATED)


@dataclass(frozen=True)
class Viewer:
    """Who reads the archive: ``kind`` is master, power, observer, or None (not signed on to
    this game)."""

    kind: str | None = None
    power: str | None = None
    seat_id: int | None = None


@dataclass(frozen=True)
class PressView:
    """One archived press as one reader may see it: ``sender`` is None when it is hidden."""

    phase: str
    sender: str | None
    grey: bool
    powers: tuple[str, ...]
    to_master: bool
    broadcast: bool
    body: tuple[str, ...]
    sent_at: datetime


def game_map(game: Game) -> Map:
    return position_of(game).map


def read_addressing(game: Game, text: str, broadcast_command: bool) -> Addressing:
    """The addressing of a PRESS or BROADCAST line, or a GameError saying what is wrong."""
    found = parse_addressing(game_map(game), text, broadcast_command)
    if isinstance(found, PressError):
        raise GameError("press_refused", reason=found.message)
    return found


def sender_of(seat: Seat) -> str:
    """How the archive names a seat that sends press: its power, MASTER or OBSERVER."""
    if seat.kind == SeatKind.MASTER:
        return MASTER
    if seat.kind == SeatKind.OBSERVER:
        return OBSERVER
    assert seat.power is not None
    return seat.power


def formal_state(game: Game) -> FormalState | None:
    """The wars of a Formal Diplomacy game, or None for any other game."""
    if game.variant != "formal" or not game.variant_state:
        return None
    doc = json.loads(game.variant_state).get("formal")
    return FormalState.from_dict(doc) if doc is not None else None


def press_facts(session: Session, game: Game) -> PressGame:
    return PressGame(
        name=game.name, rules=frozenset(rules_of(game)), grey_allowed=game.grey_press,
        observer_broadcasts=game.observer_press,
        survivors=frozenset(position_of(game).survivors()),
        # a dummy is played by the master, who reads press to it in the master's copy
        played=frozenset(s.power for s in (*seats(session, game, "power"),
                                           *dummy_seats(session, game)) if s.power),
        formal=formal_state(game))


def send_press(session: Session, game: Game, seat: Seat, addressing: Addressing,
               lines: tuple[str, ...] | list[str], now: datetime, *,
               max_bytes: int, max_lines: int) -> PressSent:
    """Check, archive and announce one press message from ``seat``: at most ``max_lines``
    lines and ``max_bytes`` bytes of text ([limits] press_lines, press_bytes: the text is
    stored and mailed to every reader)."""
    if game.state == GameState.FORMING:
        raise GameError("press_not_started", game=game.name)
    if game.state in OVER:
        raise GameError("press_game_over", game=game.name, state=game.state)
    if seat.status != SeatStatus.ACTIVE:
        raise GameError("press_no_place", game=game.name)
    body = _trimmed(lines)
    if not body:
        raise GameError("press_empty")
    if len(body) > max_lines:
        raise GameError("press_too_many_lines", lines=len(body), limit=max_lines)
    size = len("\n".join(body).encode("utf-8"))
    if size > max_bytes:
        raise GameError("press_too_long", size=size, limit=max_bytes)
    sender = sender_of(seat)
    problem = refusal(sender, addressing, press_facts(session, game))
    if problem is not None:
        raise GameError("press_refused", reason=problem.message)
    recipients = [*addressing.powers, *([MASTER] if addressing.to_master else [])]
    session.add(Press(game_id=game.id, phase=game.phase, sender_seat_id=seat.id, sender=sender,
                      recipients=" ".join(recipients), broadcast=addressing.broadcast,
                      grey=addressing.grey, body="\n".join(body), sent_at=now))
    session.flush()
    readers, masters = _delivery(session, game, seat, addressing)
    return PressSent(game=game.name, variant=variant_title(game), to=readers, phase=game.phase,
                     deadline=clock.deadline_of(game) if game.state == GameState.ACTIVE else None,
                     sender=sender, powers=addressing.powers, to_master=addressing.to_master,
                     broadcast=addressing.broadcast, grey=addressing.grey, body=body,
                     master_to=masters)


def _trimmed(lines: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    body = [line.rstrip() for line in lines]
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return tuple(body)


def _delivery(session: Session, game: Game, sender: Seat,
              addressing: Addressing) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The readers' addresses and the master's, one each, never the sender's own.

    The master gets a copy of every press (it moderates the game); an address that is the
    master's gets the master's copy only, even where it also plays an addressed power.
    """
    masters = [s.address for s in seats(session, game, "master")]
    if addressing.broadcast:
        readers = [s.address for s in seats(session, game) if s.kind != SeatKind.MASTER
                   and (s.kind == SeatKind.OBSERVER or s.power)]
    else:
        readers = [s.address for s in seats(session, game, "power")
                   if s.power in addressing.powers]
    masters = [a for a in dict.fromkeys(masters) if a != sender.address]
    readers = [a for a in dict.fromkeys(readers) if a not in masters
               and (a != sender.address or not addressing.broadcast)]
    return tuple(readers), tuple(masters)


# --------------------------------------------------------------------------- settings

def set_grey_press(session: Session, game: Game, allowed: bool) -> list[Event]:
    """SET GREY / SET NOGREY; an unchanged setting is refused, so nothing is announced."""
    if game.grey_press == allowed:
        raise GameError("grey_press_unchanged", game=game.name, allowed=allowed)
    game.grey_press = allowed
    return [notice(session, game, "grey_press", allowed=allowed)]


def set_observer_press(session: Session, game: Game, allowed: bool) -> list[Event]:
    """SET OBSERVER PRESS / SET NO OBSERVER PRESS: may observers broadcast?"""
    if game.observer_press == allowed:
        raise GameError("observer_press_unchanged", game=game.name, allowed=allowed)
    game.observer_press = allowed
    return [notice(session, game, "observer_press", allowed=allowed)]


# --------------------------------------------------------------------------- the archive

def visible_press(session: Session, game: Game, viewer: Viewer) -> list[PressView]:
    """The game's press that ``viewer`` may read, oldest first.

    The master reads everything with every sender named; a power's player reads broadcasts and
    the private press its power sent or received; an observer reads broadcasts and its own
    press; anyone else reads broadcasts.  Grey press names its sender only to the master and
    to the sender itself.
    """
    rows = session.scalars(select(Press).where(Press.game_id == game.id).order_by(Press.id))
    out: list[PressView] = []
    for row in rows:
        recipients = tuple(row.recipients.split())
        own = _sent_by(row, viewer)
        if not (viewer.kind == SeatKind.MASTER or row.broadcast or own
                or (viewer.kind == SeatKind.POWER and viewer.power in recipients)):
            continue
        shown = not row.grey or viewer.kind == SeatKind.MASTER or own
        out.append(PressView(
            phase=row.phase, sender=row.sender if shown else None, grey=row.grey,
            powers=tuple(r for r in recipients if r != MASTER), to_master=MASTER in recipients,
            broadcast=row.broadcast, body=tuple(row.body.split("\n")),
            sent_at=as_utc(row.sent_at)))  # type: ignore[arg-type]
    return out


def _broadcast(game: Game, phase: str | None) -> list[Any]:
    where = [Press.game_id == game.id, Press.broadcast.is_(True)]
    return where if phase is None else [*where, Press.phase == phase]


def broadcast_count(session: Session, game: Game, phase: str | None = None) -> int:
    """How many broadcasts the game (or its ``phase``) has: what anybody may read of it."""
    return session.scalar(select(func.count()).select_from(Press)
                          .where(*_broadcast(game, phase))) or 0


def broadcasts(session: Session, game: Game, phase: str | None, first: int, count: int
               ) -> list[PressView]:
    """What anybody may read of the game's press (broadcasts; a grey sender unnamed), oldest
    first: ``count`` of them from the ``first`` (from 0).  A page of :func:`visible_press` for
    a reader who signed on to nothing, read a page at a time (a game's press may run to
    thousands)."""
    rows = session.scalars(select(Press).where(*_broadcast(game, phase)).order_by(Press.id)
                           .limit(count).offset(first))
    return [PressView(phase=row.phase, sender=None if row.grey else row.sender, grey=row.grey,
                      powers=tuple(r for r in row.recipients.split() if r != MASTER),
                      to_master=MASTER in row.recipients.split(), broadcast=True,
                      body=tuple(row.body.split("\n")),
                      sent_at=as_utc(row.sent_at))  # type: ignore[arg-type]
            for row in rows]


def _sent_by(row: Press, viewer: Viewer) -> bool:
    if viewer.kind == SeatKind.POWER:
        return row.sender == viewer.power
    if viewer.kind == SeatKind.OBSERVER:
        return row.sender_seat_id is not None and row.sender_seat_id == viewer.seat_id
    return False
