"""The movement resolver: DATC v3.0 §5 equations solved by guess-and-check (§5.F).

Each MOVE, SUPPORT and CONVOY order is a boolean decision (move succeeds, support given,
convoy fleet not dislodged).  ``_resolve`` guesses ``False`` on first visit; when a decision
turns out to depend on its own guess it is tried with ``True`` as well.  One answer: take it.
Zero or two answers (a cycle): the backup rule of §5.B.9 — a cycle with a convoying fleet is a
convoy paradox and the Szykman rule makes its convoys fail; a cycle of moves only is a
circular movement and all its moves succeed; anything else fails.  CONVOY decisions look at
attacking moves through ``_adjudicate`` rather than ``_resolve`` (the §5.D hack) so every
cycle the guesser meets is a clean single cycle.

The resolver works on small integer-indexed tables built by :mod:`.movement`; it knows
nothing of parsing, maps or text, which keeps the hot loop short.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from judge.core.board import Unit

_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


# Plain classes with __slots__: a phase makes a few dozen decisions, and a dataclass's
# generated __init__ (default factories included) costs twice as much as these.
class MoveDecision:
    __slots__ = ("src", "dest", "power", "convoyed", "supports", "convoys", "opposing")

    def __init__(self, src: str, dest: str, power: str, convoyed: bool) -> None:
        self.src = src
        self.dest = dest
        self.power = power
        self.convoyed = convoyed
        # decision ids of matching supports and convoys: tuples, as most moves have none
        # (one shared empty tuple, no list made per move)
        self.supports: tuple[int, ...] = ()
        self.convoys: tuple[int, ...] = ()
        self.opposing: int | None = None  # head-to-head partner's decision id


class SupportDecision:
    __slots__ = ("province", "power", "exempt")

    def __init__(self, province: str, power: str, exempt: str | None) -> None:
        self.province = province
        self.power = power
        self.exempt = exempt  # destination of the supported move: attacks from there never cut


class ConvoyDecision:
    __slots__ = ("province",)

    def __init__(self, province: str) -> None:
        self.province = province


Decision = MoveDecision | SupportDecision | ConvoyDecision


class Resolver:
    """Resolves every decision of one movement phase; see module docstring."""

    def __init__(
        self,
        decisions: list[Decision],
        units: Mapping[str, Unit],  # province → the unit standing there
        move_from: dict[str, int],
        moves_into: dict[str, list[int]],
        hold_supports: dict[str, list[int]],
        fleet_reach: dict[str, frozenset[str]] | object,
    ) -> None:
        self.d = decisions
        self.units = units
        self.move_from = move_from
        self.moves_into = moves_into
        self.hold_supports = hold_supports
        self.fleet_reach = fleet_reach
        n = len(decisions)
        self.state = [_UNRESOLVED] * n
        self.result = [False] * n
        self.deps: list[int] = []
        self.paradox_convoys: set[int] = set()  # convoys failed by the Szykman rule

    def resolve_all(self) -> list[bool]:
        for i in range(len(self.d)):
            self._resolve(i)
        return self.result

    # -- the guess algorithm -------------------------------------------------------------------
    def _resolve(self, i: int) -> bool:
        state, result = self.state, self.result
        s = state[i]
        if s == _RESOLVED:
            return result[i]
        deps = self.deps
        if s == _GUESSING:
            if i not in deps:
                deps.append(i)
            return result[i]
        base = len(deps)
        result[i] = False
        state[i] = _GUESSING
        o = self.d[i]  # moves are most decisions: their equation without the dispatch call
        first = self._move(o) if type(o) is MoveDecision else self._adjudicate(i)
        if len(deps) == base:
            if state[i] != _RESOLVED:
                result[i], state[i] = first, _RESOLVED
            return result[i]
        if deps[base] != i:
            # depends on an outer guess: leave unresolved, remember the tentative answer
            deps.append(i)
            result[i] = first
            return first
        self._reset(base)
        result[i], state[i] = True, _GUESSING
        second = self._adjudicate(i)
        if first == second:
            self._reset(base)
            result[i], state[i] = first, _RESOLVED
            return first
        self._backup(base)
        return self._resolve(i)

    def _reset(self, base: int) -> None:
        for j in self.deps[base:]:
            self.state[j] = _UNRESOLVED
        del self.deps[base:]

    def _backup(self, base: int) -> None:
        cycle = self.deps[base:]
        del self.deps[base:]
        convoys = [j for j in cycle if isinstance(self.d[j], ConvoyDecision)]
        only_moves = all(isinstance(self.d[j], MoveDecision) for j in cycle)
        for j in cycle:
            if convoys:
                if j in convoys:  # Szykman: the convoying fleets of the paradox hold
                    self.result[j], self.state[j] = False, _RESOLVED
                    self.paradox_convoys.add(j)
                else:
                    self.state[j] = _UNRESOLVED
            elif only_moves:  # circular movement: everybody moves
                self.result[j], self.state[j] = True, _RESOLVED
            else:
                self.result[j], self.state[j] = False, _RESOLVED

    # -- the equations (DATC 5.B) --------------------------------------------------------------
    def _adjudicate(self, i: int) -> bool:
        o = self.d[i]
        # exact classes: the decisions are made only by .movement, never subclassed
        t = type(o)
        if t is MoveDecision:
            return self._move(o)  # type: ignore[arg-type]
        if t is SupportDecision:
            return self._support(o)  # type: ignore[arg-type]
        # CONVOY: not dislodged.  Attackers are adjudicated, not resolved (§5.D hack).
        for j in self.moves_into.get(o.province, ()):
            if self._adjudicate(j):
                return False
        return True

    def _move(self, m: MoveDecision) -> bool:
        if m.convoyed and not self.path(m):
            return False
        attack = self._attack(m)
        if m.opposing is not None:
            if attack <= self._defend(self.d[m.opposing]):  # type: ignore[arg-type]
                return False
        elif attack <= self._hold(m.dest):
            return False
        rivals = self.moves_into[m.dest]
        if len(rivals) > 1:  # the move itself is one of them
            d = self.d
            for j in rivals:
                other = d[j]
                if other is not m and attack <= self._prevent(other):  # type: ignore[arg-type]
                    return False
        return True

    def _given(self, supports: Sequence[int]) -> int:
        # a plain loop: this runs for every strength asked, a generator costs more than it does.
        # Callers skip the call when there are no supports (most moves): the call costs more
        # than the loop.
        n = 0
        resolve = self._resolve
        for s in supports:
            if resolve(s):
                n += 1
        return n

    def _attack(self, m: MoveDecision) -> int:
        occupant = self.units.get(m.dest)
        if occupant is None:
            return 1 + self._given(m.supports) if m.supports else 1
        leaving = self.move_from.get(m.dest)
        if leaving is not None and leaving != m.opposing and self._resolve(leaving):
            return 1 + self._given(m.supports) if m.supports else 1
        defender = occupant.power
        if defender == m.power:
            return 0
        d = self.d
        n = 1
        for s in m.supports:
            if d[s].power != defender and self._resolve(s):  # type: ignore[union-attr]
                n += 1
        return n

    def _hold(self, province: str) -> int:
        if province not in self.units:
            return 0
        leaving = self.move_from.get(province)
        if leaving is not None:
            return 0 if self._resolve(leaving) else 1
        supports = self.hold_supports.get(province)
        return 1 + self._given(supports) if supports else 1

    def _defend(self, m: MoveDecision) -> int:
        return 1 + self._given(m.supports) if m.supports else 1

    def _prevent(self, m: MoveDecision) -> int:
        if m.convoyed and not self.path(m):
            return 0
        if m.opposing is not None and self._resolve(m.opposing):
            return 0
        return 1 + self._given(m.supports) if m.supports else 1

    def _support(self, s: SupportDecision) -> bool:
        attackers = self.moves_into.get(s.province, ())
        d = self.d
        for j in attackers:
            m = d[j]
            if (m.power != s.power and m.src != s.exempt  # type: ignore[union-attr]
                    and (not m.convoyed or self.path(m))):  # type: ignore[union-attr]
                return False
        for j in attackers:
            if self._resolve(j):
                return False  # dislodged
        return True

    def path(self, m: MoveDecision) -> bool:
        """Whether a move has its route: always for land moves, a chain of fleets otherwise."""
        if not m.convoyed:
            return True
        reach = self.fleet_reach
        fleets = {self.d[c].province: c for c in m.convoys}  # type: ignore[union-attr]
        frontier = [p for p in fleets if m.src in reach[p]]  # type: ignore[index]
        seen = set(frontier)
        while frontier:
            sea = frontier.pop()
            if not self._resolve(fleets[sea]):
                continue
            nxt = reach[sea]  # type: ignore[index]
            if m.dest in nxt:
                return True
            for p in fleets:
                if p not in seen and p in nxt:
                    seen.add(p)
                    frontier.append(p)
        return False
