"""The Formal Diplomacy document kept on a game: wars, spheres and points, and the draws switch.

``games.variant_state`` of a Formal game holds ``{"formal": FormalState.to_dict(), "draws":
false}``.  Other code reads the ``"formal"`` part (press between powers at war is refused), so
the shape stays exactly this.  Standard games keep ``None`` there.

This module only reads and writes that document (no events, no other service module), so the
game lifecycle, the draws and the phase processing can all use it without import cycles.
"""

from __future__ import annotations

import json
from typing import Any

from judge.core import load_map
from judge.core.formal import DEFAULT_TURNS, FormalState, initial_formal_state
from judge.service.errors import GameError, UnreadableState
from judge.store.models import Game

VARIANT = "formal"
MIN_TURNS, MAX_TURNS = 1, 50


def is_formal(game: Game) -> bool:
    return game.variant == VARIANT


def new_variant_state(variant: str, turns: int | None) -> str | None:
    """The document a new game starts with (``None`` for variants that keep none).

    ``turns`` is the game length in years (``CREATE … VARIANT formal TURNS <n>``); it is
    refused for other variants and outside MIN_TURNS..MAX_TURNS.
    """
    if variant != VARIANT:
        if turns is not None:
            raise GameError("turns_not_formal")
        return None
    if turns is not None and not MIN_TURNS <= turns <= MAX_TURNS:
        raise GameError("turns_range", least=MIN_TURNS, most=MAX_TURNS, default=DEFAULT_TURNS,
                        turns=turns)
    return _dump(initial_formal_state(load_map(variant), turns), draws=False)


def _dump(state: FormalState, draws: bool) -> str:
    """The stored form, proven to load back into the same state (see ``dump_position``)."""
    text = json.dumps({"formal": state.to_dict(), "draws": draws}, sort_keys=True)
    if FormalState.from_dict(json.loads(text)["formal"]) != state:
        raise UnreadableState("the Formal Diplomacy state would load back differently")
    return text


def _document(text: str | None) -> dict[str, Any]:
    doc = json.loads(text or "{}")
    if "formal" not in doc:
        raise GameError("no_formal_state")
    return doc


def state_of(game: Game) -> FormalState:
    return FormalState.from_dict(_document(game.variant_state)["formal"])


def draws_allowed(game: Game) -> bool:
    """Whether the master has switched draw votes on (always true outside Formal games)."""
    return not is_formal(game) or bool(_document(game.variant_state).get("draws", False))


def store_state(game: Game, state: FormalState) -> None:
    game.variant_state = _dump(state, draws_allowed(game))


def store_draws(game: Game, allowed: bool) -> None:
    game.variant_state = _dump(state_of(game), allowed)


def restore(game: Game, saved: str | None) -> None:
    """Put back the wars, spheres and points of a phase snapshot (ROLLBACK, ROLLFORWARD).

    The draws switch is the master's setting, not part of the play: it stays as it is now.
    """
    if is_formal(game) and saved:
        store_state(game, FormalState.from_dict(_document(saved)["formal"]))


def check_draw_votes(game: Game) -> None:
    """Refuse draw and concession votes when this game does not take them now."""
    if not draws_allowed(game):
        raise GameError("formal_draws_off", game=game.name, last_year=state_of(game).last_year)
