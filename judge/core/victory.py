"""Who wins: the victory condition and the game rules that change it (DPjudge's rules).

The standard condition: a power with at least ``needed`` centres and strictly more than any
other wins alone.  SHARED_VICTORY: every power that reaches ``needed`` at the same time wins
together, whatever their totals (only possible on a map or with a number where two powers can
reach it at once).  HOLD_WIN: a power wins only if it met the condition at the end of two game
years in a row; the judge checks at the end of each year, when centres change hands.
"""

from __future__ import annotations

from typing import Mapping


def winners(counts: Mapping[str, int], needed: int, *, shared: bool = False) -> tuple[str, ...]:
    """The powers that meet the victory condition with these centre counts (sorted)."""
    reached = sorted(p for p, n in counts.items() if n >= needed)
    if shared or not reached:
        return tuple(reached)
    best = max(counts[p] for p in reached)
    top = [p for p, n in counts.items() if n == best]
    return (top[0],) if len(top) == 1 else ()


def year_end_winners(now: Mapping[str, int], last_year: Mapping[str, int], needed: int, *,
                     shared: bool = False, hold_win: bool = False) -> tuple[str, ...]:
    """The winners at the end of a year; with ``hold_win`` only those who also met the
    condition at the end of the year before (``last_year``'s counts)."""
    found = winners(now, needed, shared=shared)
    if hold_win:
        before = winners(last_year, needed, shared=shared)
        found = tuple(p for p in found if p in before)
    return found
