"""The game rules of a stored game (DPjudge's rules): choosing them, changing them, asking them.

The registry and its resolution are pure (:mod:`judge.core.game_rules`); this module turns a
master's request into the names stored in ``games.rules`` (always the resolved set, so every
other module only asks :func:`has`), refuses unknown or conflicting rules with the registry's
own explanation, and applies what a change means to a running game (its clock).
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable

from judge.core.game_rules import RuleError, RuleSet, change_rules_after_start, resolve_rules
from judge.service.clock import game_clock as clock
from judge.service.errors import GameError
from judge.store.models import Game, GameState


def has(game: Game, name: str) -> bool:
    return name in game.rules.split()


def choose(requested: Iterable[str]) -> RuleSet:
    """The rules in force for a new game, or GameError quoting the registry's reasons."""
    result = resolve_rules(list(requested))
    if isinstance(result, RuleError):
        raise GameError("rules_refused", reason=str(result))
    return result


def store(game: Game, rules: RuleSet) -> None:
    game.rules = " ".join(rules.names)


def explain(rules: RuleSet) -> str:
    """One line per rule in force, saying who chose it; '' without rules."""
    return "\n".join(f"  {line}" for line in rules.explain())


def change(game: Game, requested: list[str], now: datetime) -> RuleSet:
    """SET RULES: the game's rules become ``requested`` (resolved).

    Before the start anything goes; once the game runs only rules the registry marks as
    changeable (press, deadlines, waiting, civil disorder…) may come or go, since the others
    are terms the players joined under.
    """
    upper = [r.upper() for r in requested]
    if "NONE" in upper and len(upper) > 1:
        raise GameError("rules_none_alone")
    wanted = [] if upper == ["NONE"] else requested
    if game.state == GameState.FORMING:
        result: RuleSet | RuleError = resolve_rules(wanted)
    else:
        current = resolve_rules(game.rules.split())
        assert not isinstance(current, RuleError), game.rules
        result = change_rules_after_start(current, wanted)
    if isinstance(result, RuleError):
        raise GameError("rules_refused", reason=str(result))
    had_deadline = not has(game, "NO_DEADLINE")
    store(game, result)
    if game.state == GameState.ACTIVE and had_deadline != (not has(game, "NO_DEADLINE")):
        clock.start_clock(game, now)  # NO_DEADLINE came or went: the clock follows
    return result


def past_deadline(game: Game, now: datetime) -> bool:
    deadline = clock.deadline_of(game)
    return deadline is not None and now >= deadline


def order_options(game: Game, now: datetime) -> dict[str, bool]:
    """How the game's rules change order entry (keywords of ``orders.submit_line``)."""
    return {"check_legality": not has(game, "NO_CHECK"),
            "build_any": has(game, "BUILD_ANY"),
            # CIVIL_DISORDER brings the DPjudge's NO_LATE_CHANGES with it, unless LATE_CHANGES
            "only_new": has(game, "CIVIL_DISORDER") and not has(game, "LATE_CHANGES")
            and past_deadline(game, now)}
