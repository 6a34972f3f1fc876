"""Tournament standings: totals under a scoring system, ties broken by a chain of breakers.

:func:`standings` is deterministic and independent of the order of its input: games are
sorted by (round, game id) first, all arithmetic is exact, and players who share a rank are
listed by player name.

Ranks are "competition" ranks: players sharing a rank get the same number and the next rank
skips (1, 2, 2, 4).  A rank is shared only when no breaker of the chain separates the players.

Each line also says which breaker split each group the player was in, with the player's value
and the group it was computed in (:class:`Split`): a breaker computed again in a smaller group
gives other values, so the values only make sense beside the group.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from judge.core.scoring.game_results import GameResult
from judge.core.scoring.systems import ScoringSystem, totals
from judge.core.scoring.tiebreaks import DEFAULT_TIEBREAKS, TieBreak, Value


@dataclass(frozen=True, slots=True)
class Split:
    """A tied group split by a breaker: its name, the player's value, the whole group."""

    tiebreak: str
    value: Value
    among: tuple[str, ...]  # the players of the group it was computed in, by name


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the table.

    ``tiebreaks`` lists, in the order they were computed, every (breaker name, value) the
    player was given while their tie was being broken (empty for a player nobody tied with);
    a value of None means the breaker did not apply to that group.
    """

    rank: int
    player: str
    total: Fraction
    tiebreaks: tuple[tuple[str, Value], ...] = ()
    shared: bool = False
    # the splits of the groups the player was in, first (largest group) first
    splits: tuple[Split, ...] = ()


def _partition(group: frozenset[str], values: dict[str, Value]) -> list[frozenset[str]]:
    """Split ``group`` by value, best first (one class when the breaker does not apply)."""
    if any(values[p] is None for p in group):
        return [group]
    distinct = sorted({values[p] for p in group}, reverse=True)  # type: ignore[type-var]
    return [frozenset(p for p in group if values[p] == v) for v in distinct]


def _resolve(group: frozenset[str], chain: Sequence[TieBreak], results: Sequence[GameResult],
             system: ScoringSystem, trail: dict[str, list[tuple[str, Value]]],
             splits: dict[str, list[Split]]) -> list[frozenset[str]]:
    """Order a tied group into tiers, best first; a tier of more than one is a shared rank."""
    if len(group) == 1:
        return [group]
    for breaker in chain:
        values = breaker.values(group, results, system)
        for p in sorted(group):
            trail[p].append((breaker.name, values[p]))
        parts = _partition(group, values)
        if len(parts) > 1:
            among = tuple(sorted(group))
            for p in among:
                splits[p].append(Split(breaker.name, values[p], among))
            tiers: list[frozenset[str]] = []
            for part in parts:
                tiers.extend(_resolve(part, chain, results, system, trail, splits))
            return tiers
    return [group]


def standings(results: Iterable[GameResult], system: ScoringSystem,
              tiebreak: TieBreak | Sequence[TieBreak] | None = DEFAULT_TIEBREAKS
              ) -> list[Standing]:
    """The table for ``results`` scored by ``system``, ties broken by ``tiebreak`` (one
    breaker, a chain, or None for none), best first."""
    games = sorted(results, key=lambda g: (g.round, g.game))
    if tiebreak is None:
        chain: tuple[TieBreak, ...] = ()
    elif isinstance(tiebreak, TieBreak):
        chain = (tiebreak,)
    else:
        chain = tuple(tiebreak)
    total = totals(games, system)
    trail: dict[str, list[tuple[str, Value]]] = {p: [] for p in total}
    splits: dict[str, list[Split]] = {p: [] for p in total}
    tiers: list[frozenset[str]] = []
    for level in sorted(set(total.values()), reverse=True):
        group = frozenset(p for p, t in total.items() if t == level)
        tiers.extend(_resolve(group, chain, games, system, trail, splits))
    table: list[Standing] = []
    for tier in tiers:
        rank = len(table) + 1
        for p in sorted(tier):
            table.append(Standing(rank, p, total[p], tuple(trail[p]), len(tier) > 1,
                                  tuple(splits[p])))
    return table
