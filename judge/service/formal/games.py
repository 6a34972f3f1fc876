"""Formal Diplomacy games over the store: the phase processing hook, the end on victory points,
the master's draws switch, and what LIST and the CREATE reply say of such a game.

The rules are the core's (:mod:`judge.core.formal`); :mod:`judge.service.processing` calls
:func:`adjudicate_phase` instead of the standard adjudicator for a Formal game and
:func:`finish_if_over` when it enters the next phase.  The wars, spheres and points live in
``games.variant_state`` (:mod:`judge.service.formal.state`); each phase snapshot keeps them
before and after the phase, so ROLLBACK and ROLLFORWARD put them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Mapping

from sqlalchemy.orm import Session

from judge.core import PhaseResult, Position, load_map
from judge.core.formal import (FormalState, adjudicate_formal, status_lines, turn_lines,
                                unit_lines, vp_table)
from judge.service import draws
from judge.service.clock import game_clock as clock
from judge.service.formal import state as formal_state
from judge.service.errors import GameError
from judge.service.events import Event, GameEnded
from judge.service.games import audience, notice, variant_title
from judge.service.positions import final_centres
from judge.service.game_results import record_result
from judge.store.models import Game, GameState


@dataclass(frozen=True)
class FormalPhase:
    """One processed phase of a Formal game, ready for the snapshot and the results mail."""

    result: PhaseResult  # the standard result, with void moves and claims shown as written
    facts: dict[str, Any] = field(hash=False)  # merged into the results facts
    state: FormalState  # the wars, spheres and points after the phase


def adjudicate_phase(game: Game, before: Position,
                     orders: Mapping[str, list[str]]) -> FormalPhase:
    """Adjudicate the current phase with the Formal rules around the standard ones."""
    m = before.map
    res = adjudicate_formal(before, formal_state.state_of(game), orders,
                            multiple_orders_hold="NO_CHECK" in game.rules.split())
    facts: dict[str, Any] = {
        "formal": {"turn": turn_lines(m, res), "status": status_lines(m, res.state),
                   "winners": list(res.winners)},
        # claims in words, as in the Formal section
        "orders": unit_lines(m, before, res),
        # 18 centres win nothing here: the game ends on points after its last year
        "winner": None}
    if res.game_over:  # no next year: nothing to build or remove
        facts["adjustments"] = []
    return FormalPhase(replace(res.phase_result, results=res.results), facts, res.state)


def apply_phase(game: Game, phase: FormalPhase) -> None:
    formal_state.store_state(game, phase.state)


def finish_if_over(session: Session, game: Game, played: str, pos: Position,
                   now: datetime) -> list[Event]:
    """End a Formal game whose last year is over: the powers with the most points win.

    One winner is a solo result, several share it (recorded as a draw of the winners for the
    tournament record); either way it is a victory -- a shared one, as GET FORMAL calls it,
    never a draw -- and everybody gets a :class:`GameEnded` mail with the points.
    """
    if not formal_state.is_formal(game):
        return []
    state = formal_state.state_of(game)
    if not state.over:
        return []
    order = list(pos.map.powers)
    winners = tuple(sorted(state.winners, key=order.index))
    game.state = GameState.FINISHED
    game.winner = " ".join(winners)  # as SHARED_VICTORY writes a shared victory
    clock.stop_clock(game)
    record_result(session, game, "solo" if len(winners) == 1 else "draw", winners, played,
                  pos, now)
    return [GameEnded(game=game.name, variant=variant_title(game), to=audience(session, game),
                      phase=played, how="victory", winner=winners[0], members=winners,
                      points=vp_table(pos.map, state), centres=final_centres(pos))]


def set_draws(session: Session, game: Game, allowed: bool) -> tuple[bool, list[Event]]:
    """SET DRAWS ON|OFF (the master): draw and concession votes allowed or not.  Whether that
    changed anything, and the events."""
    if not formal_state.is_formal(game):
        raise GameError("draws_not_formal", allowed=allowed, game=game.name,
                        variant=variant_title(game))
    if game.state in (GameState.FINISHED, GameState.TERMINATED):
        raise GameError("game_over", game=game.name)
    if formal_state.draws_allowed(game) == allowed:
        return False, []
    formal_state.store_draws(game, allowed)
    if not allowed:
        draws.clear_votes(session, game)
    return True, [notice(session, game, "formal_draws", allowed=allowed)]


def list_facts(game: Game) -> dict[str, Any] | None:
    """What LIST <game> adds for a Formal game (``None`` for other games)."""
    if not formal_state.is_formal(game):
        return None
    state = formal_state.state_of(game)
    m = load_map(game.variant)
    return {"status": status_lines(m, state), "draws": formal_state.draws_allowed(game),
            "last_year": state.last_year, "turns": state.turns,
            "winners": [p.capitalize() for p in m.powers if p in state.winners]}


def formal_length(game: Game) -> tuple[int, int] | None:
    """A Formal game's length in game years and its last year (None for other games)."""
    if not formal_state.is_formal(game):
        return None
    state = formal_state.state_of(game)
    return state.turns, state.last_year
