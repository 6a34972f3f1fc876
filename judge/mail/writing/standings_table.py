"""A standings table for people and programs: pick the system and tie-breaks by name, score,
and present the result as text (templates/tournament/standings.txt) or JSON.

The mail command STANDINGS, ``judge tournament standings`` and ``judge scoring`` all go
through :func:`build_table` and then :func:`render_text` or :func:`as_json`, so they cannot
disagree.  Totals and tie-break values are exact fractions; the text shows them rounded to
three decimals, the JSON gives both the exact fraction (``"4/3"``) and a number.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from judge.mail.writing.compose import make_environment
from judge.core.scoring import (DEFAULT_TIEBREAKS, GameResult, ScoringSystem, Standing,
                                TieBreak, get_system, get_tiebreaks, standings)

DEFAULT_SYSTEM = "draw-size"


class ChoiceError(ValueError):
    """An unknown scoring system or tie-break; the message is one line for a human."""


@dataclass(frozen=True)
class Table:
    """What a standings table shows: the title, how it was scored, the lines."""

    title: str
    system: ScoringSystem
    chain: tuple[TieBreak, ...]
    games: tuple[str, ...]
    lines: tuple[Standing, ...]
    open_games: tuple[str, ...] = field(default=())


def choose(system: str | None, tiebreak: str | None) -> tuple[ScoringSystem,
                                                                tuple[TieBreak, ...]]:
    """The system and tie-break chain named (defaults: draw-size; head-to-head then the
    common denominator).  Raises :class:`ChoiceError`."""
    try:
        chosen = get_system(system or DEFAULT_SYSTEM)
    except KeyError as exc:
        raise ChoiceError(str(exc.args[0])) from None
    try:
        chain = DEFAULT_TIEBREAKS if tiebreak is None else get_tiebreaks(tiebreak)
    except ValueError as exc:
        raise ChoiceError(str(exc)) from None
    return chosen, tuple(chain)


def build_table(title: str, results: Sequence[GameResult], system: ScoringSystem,
                chain: tuple[TieBreak, ...], open_games: Sequence[str] = ()) -> Table:
    return Table(title, system, chain, tuple(r.game for r in results),
                 tuple(standings(results, system, chain)), tuple(open_games))


def decimal(value: Fraction | None) -> str:
    """``value`` rounded half-even to three decimals ("-" when a breaker did not apply)."""
    if value is None:
        return "-"
    q = round(value, 3)
    return f"{q.numerator / q.denominator:.3f}"


def _exact(value: Fraction | None) -> str | None:
    return None if value is None else str(value)


def render_text(table: Table) -> str:
    # each split once: the breaker that decided it, the player's value, and the group it was
    # computed in (a breaker computed again in a smaller group gives other values)
    rows = [dict(rank=f"{s.rank}{'=' if s.shared else ''}", total=decimal(s.total),
                 player=s.player, shared=s.shared,
                 tiebreaks=[line for split in s.splits for line in textwrap.wrap(
                     f"{split.tiebreak} {decimal(split.value)} among "
                     f"{', '.join(split.among)}", 78 - 29, subsequent_indent="  ")])
            for s in table.lines]
    return make_environment().get_template("tournament/standings.txt").render(
        title=table.title, system=table.system.name,
        tiebreaks=", ".join(b.name for b in table.chain) or "none",
        games=list(table.games), open_games=list(table.open_games), rows=rows)


def as_json(table: Table) -> dict[str, Any]:
    return {
        "title": table.title,
        "system": table.system.name,
        "tiebreaks": [b.name for b in table.chain],
        "games": list(table.games),
        "open_games": list(table.open_games),
        "standings": [
            {"rank": s.rank, "shared": s.shared, "player": s.player,
             "total": str(s.total), "score": float(s.total),
             "tiebreaks": [{"name": name, "value": _exact(v)} for name, v in s.tiebreaks],
             "splits": [{"tiebreak": x.tiebreak, "value": _exact(x.value),
                         "among": list(x.among)} for x in s.splits]}
            for s in table.lines],
    }
