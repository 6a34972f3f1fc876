"""Tie-breaks for players level on tournament total: Steinke, "Breaking ties in DIAS
tournaments".

A tie-break looks at a *group* of tied players and gives each a value; higher is better.
:func:`judge.core.scoring.standings.standings` applies a chain of them: the first breaker
that gives the group different values splits it, and every part with more than one player is
broken again from the start of the chain (so head-to-head is recomputed among the players
still tied -- Steinke's "recursively").  A group that no breaker splits shares its rank.

The breakers
------------
``head-to-head`` (:class:`HeadToHead`)
    Steinke's first breaker: the tournament's own scoring system recomputed over only the
    games in which the tied players met.  *Decision:* for a group of more than two, the games
    counted are those with at least two members of the group, and each member's value is the
    sum of their scores in those of the games they played.  If any member never met another
    member, head-to-head does not apply to the group (all values None) -- otherwise a player
    who never met the others would be ranked on an empty record.
``years:X`` (:class:`YearsOffset`)
    Per game: a win or draw scores ``X - years``, a loss ``+years`` (years since 1900: the
    result year for a win or draw, the elimination year -- or the result year for a power
    alive at the end -- for a loss); summed over all the player's games.  ``X = 0`` is the
    Steinke's "simplest system".  Steinke suggests the tournament's last game year as X (for a
    1914 limit, X = 14).
``years-elim:X`` (:class:`YearsEliminationPenalty`)
    As ``years:X``, but a loss also scores -1 per player eliminated including oneself, i.e.
    every power not sharing the result (six in a loss to a solo).
``common-denominator`` (:class:`CommonDenominator`)
    Steinke's "more interesting" system.  Each tied player lines up their outcomes from best
    to worst (:func:`~judge.core.scoring.outcomes.best_first`); line i compares the players'
    i-th outcomes against a common denominator:

    * all wins/draws: the largest number of players and the smallest year on the line.  A
      player scores +1 per player fewer than the denominator (opponents eliminated) and
      ``-penalty(own result) * (year - denominator year)``, the penalty per year being win
      .32, 2-way .35, 3-way .38, 4-way .41, 5-way .44, 6-way .47, 7-way .50 (larger boards,
      this module's extension: +.03 per extra player);
    * all losses: the largest number of survivors X and the earliest year; a player scores
      -1 per survivor fewer (players eliminated) and +.5 per year later;
    * *decision:* a line mixing wins or draws with losses takes Steinke's "7-way draw in
      1900" (a draw of the whole board at the start) as the denominator for every player on
      it: wins and draws as above against 7 players and 1900, losses -1 per player eliminated
      including oneself and +.5 per year survived since 1900.

    *Decision:* when the tied players have different numbers of games, a player with no
    outcome on a line scores 0 there and the line's denominator comes from the others.

Years are counted from 1900 (:data:`~judge.core.scoring.outcomes.BASE_YEAR`), as Steinke
does.  All arithmetic is exact (``fractions.Fraction``): .32 is ``Fraction(32, 100)``.
"""

from __future__ import annotations

import abc
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction

from judge.core.scoring.outcomes import BASE_YEAR, Outcome, best_first, outcome_of
from judge.core.scoring.game_results import GameResult
from judge.core.scoring.systems import ScoringSystem

F = Fraction
Value = Fraction | None

PENALTY: dict[int, Fraction] = {1: F(32, 100), 2: F(35, 100), 3: F(38, 100), 4: F(41, 100),
                                5: F(44, 100), 6: F(47, 100), 7: F(50, 100)}
"""Penalty per year taken, by the size of the result achieved (1 = win), from Steinke's article."""


def penalty(size: int) -> Fraction:
    """Steinke's per-year penalty for a result shared by ``size`` players (1 = a win)."""
    return PENALTY.get(size, F(32, 100) + F(3, 100) * (size - 1))


def player_outcomes(results: Sequence[GameResult], player: str) -> list[Outcome]:
    """Every outcome of ``player``, in the order of ``results``."""
    return [o for r in results if (o := outcome_of(r, player)) is not None]


class TieBreak(abc.ABC):
    """A tie-break: values for a group of tied players (higher is better).

    ``values`` returns a value for every member, or None for every member when the breaker
    does not apply to that group.
    """

    name: str = ""

    @abc.abstractmethod
    def values(self, group: frozenset[str], results: Sequence[GameResult],
               system: ScoringSystem) -> dict[str, Value]:
        """Each member's value."""

    def __repr__(self) -> str:
        return f"<tie-break {self.name}>"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash((type(self), self.name))


class HeadToHead(TieBreak):
    """The scoring system over the games the tied players played against each other."""

    name = "head-to-head"

    def values(self, group: frozenset[str], results: Sequence[GameResult],
               system: ScoringSystem) -> dict[str, Value]:
        met = [r for r in results if len(r.players & group) >= 2]
        if any(not any(p in r.players for r in met) for p in group):
            return {p: None for p in group}
        out = {p: F(0) for p in group}
        for r in met:
            scores = system.player_scores(r)
            for p in group & r.players:
                out[p] += scores[p]
        return dict(out)


class _PerGame(TieBreak):
    """A breaker that sums a value per game over each player's whole record."""

    def __init__(self, x: int | Fraction) -> None:
        self.x = F(x)
        self.name = f"{self.prefix}:{self.x}"

    prefix = ""

    @abc.abstractmethod
    def game_value(self, o: Outcome) -> Fraction:
        """The value of one outcome."""

    def values(self, group: frozenset[str], results: Sequence[GameResult],
               system: ScoringSystem) -> dict[str, Value]:
        return {p: sum((self.game_value(o) for o in player_outcomes(results, p)), F(0))
                for p in group}


class YearsOffset(_PerGame):
    """Win or draw: ``X - years``; loss: ``+years`` (Steinke's offset system)."""

    prefix = "years"

    def game_value(self, o: Outcome) -> Fraction:
        return self.x - o.years if o.shares else F(o.years)


class YearsEliminationPenalty(_PerGame):
    """As :class:`YearsOffset`, and a loss also scores -1 per player eliminated including
    oneself (Steinke's alternative system)."""

    prefix = "years-elim"

    def game_value(self, o: Outcome) -> Fraction:
        return self.x - o.years if o.shares else F(o.years - o.out)


def line_scores(line: Mapping[str, Outcome]) -> dict[str, Fraction]:
    """The common-denominator score of every player on one line (Steinke's system)."""
    if not line:
        return {}
    outcomes = list(line.values())
    if all(o.shares for o in outcomes):
        size = max(o.size for o in outcomes)
        year = min(o.year for o in outcomes)
        return {p: (size - o.size) - penalty(o.size) * (o.year - year) for p, o in line.items()}
    if not any(o.shares for o in outcomes):
        size = max(o.size for o in outcomes)
        year = min(o.year for o in outcomes)
        return {p: -(size - o.size) + F(o.year - year, 2) for p, o in line.items()}
    # Wins or draws against losses: everyone against a full-board draw in 1900.
    return {p: (o.out - penalty(o.size) * (o.year - BASE_YEAR)) if o.shares
            else (-o.out + F(o.year - BASE_YEAR, 2)) for p, o in line.items()}


def lines(records: Mapping[str, Sequence[Outcome]]) -> list[dict[str, Outcome]]:
    """The players' outcomes lined up best to worst: line i holds each player's i-th best
    outcome (players with fewer than i+1 outcomes are absent from it)."""
    ordered = {p: sorted(rec, key=best_first) for p, rec in records.items()}
    depth = max((len(r) for r in ordered.values()), default=0)
    return [{p: rec[i] for p, rec in ordered.items() if i < len(rec)} for i in range(depth)]


def common_denominator(records: Mapping[str, Sequence[Outcome]]) -> dict[str, Fraction]:
    """Each player's common-denominator total over all lines."""
    out = {p: F(0) for p in records}
    for line in lines(records):
        for p, v in line_scores(line).items():
            out[p] += v
    return out


class CommonDenominator(TieBreak):
    """Steinke's common-denominator system over the tied players' whole records."""

    name = "common-denominator"

    def values(self, group: frozenset[str], results: Sequence[GameResult],
               system: ScoringSystem) -> dict[str, Value]:
        return dict(common_denominator({p: player_outcomes(results, p) for p in group}))


DEFAULT_TIEBREAKS: tuple[TieBreak, ...] = (HeadToHead(), CommonDenominator())
"""Head-to-head first ("should always be"), then the common denominator."""


def get_tiebreaks(spec: str) -> tuple[TieBreak, ...]:
    """Parse a comma-separated chain: ``head-to-head`` (``h2h``), ``years:X``,
    ``years-elim:X``, ``common-denominator`` (``cd``), or ``none`` for no breaker.

    Raises ``ValueError`` with a one-line message.
    """
    chain: list[TieBreak] = []
    for part in (s.strip().lower() for s in spec.split(",")):
        if part in ("", "none"):
            continue
        if part in ("head-to-head", "h2h"):
            chain.append(HeadToHead())
        elif part in ("common-denominator", "cd"):
            chain.append(CommonDenominator())
        elif m := re.fullmatch(r"(years|years-elim)(?::(-?\d+))?", part):
            if m.group(2) is None:
                raise ValueError(f"{m.group(1)} needs its offset X, e.g. {m.group(1)}:14")
            cls = YearsOffset if m.group(1) == "years" else YearsEliminationPenalty
            chain.append(cls(int(m.group(2))))
        else:
            raise ValueError(f"unknown tie-break {part!r}; known: head-to-head, years:X, "
                             "years-elim:X, common-denominator, none")
    return tuple(chain)
