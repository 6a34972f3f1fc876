"""The judge's own game result records as tournament scoring input.

:func:`core_result` turns one ``game_results`` row (judge.service.game_results) into the pure
core's :class:`judge.core.scoring.GameResult`; :func:`tournament_results` does it for every
finished game of a tournament; :func:`results_document` writes results in the JSON shape
``judge scoring`` reads (judge.core.scoring.game_results), so a tournament can be exported and
scored anywhere.

Decisions
---------
* **Players** are identified across games by their registered address (lower-cased): the
  address of the power's active seat when the game ended.  A power nobody held at the end is
  credited to the last player who held it (resigned or ejected); a power no player ever held
  (vacant from the start, or a dummy of the master's) has no player: it stays on the board,
  because its centres count in most systems, but is nobody's line in the table.
* **Eliminated**: as in the core, a power that ends without centres is out (a power left
  with units but no centres would lose them at the next adjustment); a draw member never is.
  Its year is that of the phase whose processing eliminated it.  A power the master took off
  the board with POSITION has no such phase: it counts as eliminated in the year of the
  first phase played without it (the earliest kept snapshot whose board before lacks it),
  or, when no phase was played after the POSITION, in the year the game ended -- and so does
  a power that ended with units but no centres.
* **Round**: the judge does not know tournament rounds; every game is round 1.  Rounds only
  order the games (by round, then name); no system or tie-break depends on them.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.core.scoring import GameResult as CoreResult
from judge.core.scoring import PowerResult, ResultType
from judge.service.positions import load_position
from judge.store.models import (Game, GameResult, PhaseSnapshot, Seat, SeatKind, SeatStatus,
                                Tournament)


def _year(phase: str) -> int:
    return int(phase[1:5])


def _players(session: Session, game: Game, recorded: dict[str, str]) -> dict[str, str]:
    """power → player: the recorded (active) seat, else the last seat that held the power."""
    players = {p: a.lower() for p, a in recorded.items()}
    # a dummy's seat is the master's, not a player's
    for seat in session.scalars(select(Seat).where(Seat.game_id == game.id,
                                                   Seat.kind == SeatKind.POWER,
                                                   Seat.status != SeatStatus.DUMMY)
                                .order_by(Seat.id)):
        if seat.power and seat.power not in recorded:
            players[seat.power] = seat.address.lower()  # later seats overwrite earlier ones
    return players


def _first_phase_without(session: Session, game: Game, powers: set[str]) -> dict[str, int]:
    """power → year of the first kept phase snapshot whose board before lacks the power."""
    found: dict[str, int] = {}
    if not powers:
        return found
    for snap in session.scalars(select(PhaseSnapshot).where(
            PhaseSnapshot.game_id == game.id, PhaseSnapshot.rolled_back.is_(False))
            .order_by(PhaseSnapshot.seq)):
        alive = set(load_position(game.variant, snap.position_before).survivors())
        for power in powers - alive - set(found):
            found[power] = _year(snap.phase)
        if len(found) == len(powers):
            break
    return found


def core_result(session: Session, game: Game, row: GameResult) -> CoreResult:
    """The core's view of ``game``'s result record ``row``."""
    centers: dict[str, int] = json.loads(row.centers)
    eliminated: dict[str, str | None] = json.loads(row.eliminated)
    players = _players(session, game, json.loads(row.players))
    members = frozenset(row.members.split())
    # As in the core, a power without centres is out of the game (unless it shares the
    # result, which only a DIAS draw of a power holding units alone can make it do).
    gone = {p for p, n in centers.items() if n == 0 and p not in members}
    by_position = _first_phase_without(
        session, game, {p for p in gone if eliminated.get(p) is None})
    powers = []
    for power, count in centers.items():
        out: int | None = None
        if power in gone:
            phase = eliminated.get(power)
            out = _year(phase) if phase else by_position.get(power, row.year)
        player = players.get(power)  # None: no player ever held it
        powers.append(PowerResult(power, player, count, out))
    return CoreResult(game.name, 1, ResultType(row.result), row.year, tuple(powers), members)


def tournament_results(session: Session, tournament: Tournament) -> tuple[list[CoreResult],
                                                                           list[Game]]:
    """The results of the tournament's finished games, and its games still without one."""
    done: list[CoreResult] = []
    open_games: list[Game] = []
    for game in session.scalars(select(Game).where(Game.tournament_id == tournament.id)
                                .order_by(Game.name_key)):
        row = session.get(GameResult, game.id)
        if row is None:
            open_games.append(game)
        else:
            done.append(core_result(session, game, row))
    return done, open_games


def results_document(results: list[CoreResult]) -> dict[str, Any]:
    """``results`` in the JSON shape :func:`judge.core.scoring.load_results` reads."""
    games = []
    for r in results:
        powers: dict[str, Any] = {}
        for p in r.powers:
            entry: dict[str, Any] = {"player": p.player, "centers": p.centers}
            if p.eliminated is not None:
                entry["eliminated"] = p.eliminated
            powers[p.power] = entry
        game: dict[str, Any] = {"game": r.game, "round": r.round, "result": r.type.value,
                                "year": r.year, "powers": powers}
        if r.members:
            game["members"] = sorted(r.members)
        games.append(game)
    return {"games": games}
