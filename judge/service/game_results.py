"""The game result record for tournaments: how a game ended, when, the final centres, the
players, and the phase each power was eliminated in.

Eliminations are recorded as phases are processed: the facts of each phase snapshot list the
powers the phase eliminated (``facts["eliminated"]``), so a ROLLBACK, which sets snapshots
aside, takes their eliminations with it.  The record itself is written when the game ends
(solo victory, draw, concession, the master's TERMINATE) and deleted when an ended game is
reopened (RESUME after a draw, ROLLBACK).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.core import Position
from judge.store.models import Game, GameResult, PhaseSnapshot, Seat, SeatKind, SeatStatus

RESULT_TYPES = ("solo", "concession", "draw", "ended")


def eliminated_between(before: Position, after: Position) -> list[str]:
    """Powers that survived ``before`` and are gone ``after`` (map order)."""
    gone = set(before.survivors()) - set(after.survivors())
    return [p for p in before.map.powers if p in gone]


def elimination_phases(session: Session, game: Game) -> dict[str, str]:
    """power → the phase that eliminated it, from the snapshots still in play."""
    found: dict[str, str] = {}
    for snap in session.scalars(select(PhaseSnapshot).where(
            PhaseSnapshot.game_id == game.id, PhaseSnapshot.rolled_back.is_(False))
            .order_by(PhaseSnapshot.seq)):
        for power in json.loads(snap.results).get("eliminated", []):
            found.setdefault(power, snap.phase)
    return found


def record_result(session: Session, game: Game, result: str, members: Iterable[str],
                  phase: str, pos: Position, now: datetime) -> GameResult:
    """Write (or replace) the result of ``game``, ending in ``phase`` with board ``pos``."""
    if result not in RESULT_TYPES:
        raise ValueError(f"unknown result type {result!r}")
    clear_result(session, game)
    eliminations = elimination_phases(session, game)
    alive = set(pos.survivors())
    eliminated = {p: (None if p in alive else eliminations.get(p)) for p in pos.map.powers}
    players = {s.power: s.address for s in session.scalars(select(Seat).where(
        Seat.game_id == game.id, Seat.kind == SeatKind.POWER, Seat.status == SeatStatus.ACTIVE)) if s.power}
    row = GameResult(game_id=game.id, result=result, members=" ".join(sorted(members)),
                     phase=phase, year=int(phase[1:5]),
                     centers=json.dumps(pos.center_counts()),
                     players=json.dumps(players, sort_keys=True),
                     eliminated=json.dumps(eliminated), ended_at=now)
    session.add(row)
    session.flush()
    return row


def clear_result(session: Session, game: Game) -> None:
    row = session.get(GameResult, game.id)
    if row is not None:
        session.delete(row)
        session.flush()


def result_of(session: Session, game: Game) -> GameResult | None:
    return session.get(GameResult, game.id)
