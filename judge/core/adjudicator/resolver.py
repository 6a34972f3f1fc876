"""The movement resolver: the DATC v3.0 §5.B equations solved by guess-and-check (§5.F).

Each legal MOVE, matching SUPPORT and CONVOY order is a boolean decision (move succeeds,
support given, convoying fleet not dislodged).  Decisions refer to each other directly (a move
holds its supports and convoys, and its opponent in a head-to-head battle) and carry their own
state; :class:`Decisions` finds them by the province of the ordered unit.

``_resolve`` guesses ``False`` on first visit; when a decision turns out to depend on its own
guess it is tried with ``True`` as well.  One answer: take it.  Zero or two answers (a cycle):
the backup rule of §5.B.9 — a cycle with a convoying fleet is a convoy paradox and the Szykman
rule makes its convoys fail; a cycle of moves only is a circular movement and all its moves
succeed; anything else fails.  CONVOY decisions look at attacking moves through ``_move``
rather than ``_resolve`` (the §5.D hack) so every cycle the guesser meets is a clean single
cycle.  The resolver knows nothing of parsing, maps or text, which keeps the hot loop short.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from judge.core.board import Unit

_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


# Mutable structs (msgspec, built in C) compared by identity (``eq=False``): a phase makes a
# few dozen decisions, :mod:`.movement` links them as it finds them and the resolver writes
# their state.
class SupportDecision(msgspec.Struct, eq=False):
    """A legal support that matches the order of the unit it supports."""

    province: str
    power: str
    exempt: str | None  # destination of the supported move: attacks from there never cut
    state: int = _UNRESOLVED
    ok: bool = False  # the support is given


class ConvoyDecision(msgspec.Struct, eq=False):
    """A legal convoy by the fleet in ``province`` that matches the move of ``army``."""

    province: str
    army: str
    state: int = _UNRESOLVED
    ok: bool = False  # the fleet is not dislodged


class MoveDecision(msgspec.Struct, eq=False):
    """A legal move from ``src`` to the province ``dest``."""

    src: str
    dest: str
    power: str
    convoyed: bool
    # the supports of this move and the convoys that may carry it: tuples, as most moves
    # have none (one shared empty tuple, no list made per move)
    supports: tuple[SupportDecision, ...] = ()
    convoys: tuple[ConvoyDecision, ...] = ()
    # the move of the unit in ``dest`` to ``src`` when neither goes by convoy: head to head
    opposing: MoveDecision | None = None
    state: int = _UNRESOLVED
    ok: bool = False  # the move succeeds


Decision = MoveDecision | SupportDecision | ConvoyDecision


class Decisions(msgspec.Struct):
    """The decisions of one movement phase, by the province of the ordered unit, and the
    indexes the equations read."""

    units: Mapping[str, Unit]  # province → the unit standing there
    all: dict[str, Decision] = msgspec.field(default_factory=dict)
    moves: dict[str, MoveDecision] = msgspec.field(default_factory=dict)
    # destination → the moves there
    moves_into: dict[str, list[MoveDecision]] = msgspec.field(default_factory=dict)
    # province → the supports to hold the unit there
    hold_supports: dict[str, list[SupportDecision]] = msgspec.field(default_factory=dict)

    def add_support(self, support: SupportDecision, move: MoveDecision | None,
                    held: str | None) -> None:
        """A support of ``move``, or (``move`` None) to hold the unit in ``held``."""
        self.all[support.province] = support
        if move is not None:
            move.supports += (support,)
        elif held is not None:
            self.hold_supports.setdefault(held, []).append(support)

    def add_convoy(self, fleet: str, move: MoveDecision) -> None:
        convoy = self.all[fleet] = ConvoyDecision(fleet, move.src)
        move.convoys += (convoy,)


class Resolver:
    """Resolves every decision of one movement phase; see module docstring."""

    def __init__(self, decisions: Decisions, fleet_reach: Mapping[str, frozenset[str]]) -> None:
        self.decisions = decisions
        self.moves = decisions.moves
        self.moves_into = decisions.moves_into
        self.hold_supports = decisions.hold_supports
        self.units = decisions.units
        self.fleet_reach = fleet_reach
        self.deps: list[Decision] = []

    def resolve_all(self) -> None:
        """Resolve every decision (each keeps its answer in ``ok``)."""
        units, moves_into = self.units, self.moves_into
        for move in self.moves.values():
            # unopposed: by land into a province nobody holds or enters, it succeeds (DATC 5.B.1:
            # attack at least 1, hold strength 0, no prevent strength)
            if not move.convoyed and move.dest not in units and len(moves_into[move.dest]) == 1:
                move.ok, move.state = True, _RESOLVED
        for decision in self.decisions.all.values():
            if decision.state != _RESOLVED:  # most moves are, by now
                self._resolve(decision)

    # -- the guess algorithm (DATC 5.F) ----------------------------------------------------------
    def _resolve(self, decision: Decision) -> bool:
        state = decision.state
        if state == _RESOLVED:
            return decision.ok
        deps = self.deps
        if state == _GUESSING:
            if decision not in deps:
                deps.append(decision)
            return decision.ok
        base = len(deps)
        decision.ok, decision.state = False, _GUESSING
        # moves are most decisions: their equation without the dispatch
        if type(decision) is MoveDecision:
            first = self._move(decision)
        else:
            first = self._adjudicate(decision)
        if len(deps) == base:
            if decision.state != _RESOLVED:
                decision.ok, decision.state = first, _RESOLVED
            return decision.ok
        if deps[base] is not decision:
            # depends on an outer guess: leave unresolved, remember the tentative answer
            deps.append(decision)
            decision.ok = first
            return first
        self._reset(base)
        decision.ok, decision.state = True, _GUESSING
        second = self._adjudicate(decision)
        if first == second:
            self._reset(base)
            decision.ok, decision.state = first, _RESOLVED
            return first
        self._backup(base)
        return self._resolve(decision)

    def _reset(self, base: int) -> None:
        for decision in self.deps[base:]:
            decision.state = _UNRESOLVED
        del self.deps[base:]

    def _backup(self, base: int) -> None:
        """DATC 5.B.9: a cycle without a single answer."""
        cycle = self.deps[base:]
        del self.deps[base:]
        paradox = any(isinstance(decision, ConvoyDecision) for decision in cycle)
        only_moves = all(isinstance(decision, MoveDecision) for decision in cycle)
        for decision in cycle:
            if paradox:
                if isinstance(decision, ConvoyDecision):  # Szykman rule: the convoying fleets hold
                    decision.ok, decision.state = False, _RESOLVED
                else:
                    decision.state = _UNRESOLVED
            elif only_moves:  # circular movement: everybody moves
                decision.ok, decision.state = True, _RESOLVED
            else:
                decision.ok, decision.state = False, _RESOLVED

    def _adjudicate(self, decision: Decision) -> bool:
        if isinstance(decision, MoveDecision):  # most decisions: asked first
            return self._move(decision)
        if isinstance(decision, SupportDecision):
            return self._support(decision)
        return self._convoy(decision)

    # -- the equations (DATC 5.B) ----------------------------------------------------------------
    def _move(self, move: MoveDecision) -> bool:
        """DATC 5.B.1 MOVE: the attack beats the defence (head to head) or the hold strength,
        and every other unit's prevent strength."""
        if move.convoyed and not self.path(move):
            return False  # 5.B.8: no path, no attack
        attack = self._attack(move)
        if move.opposing is not None:
            if attack <= self._defend(move.opposing):
                return False
        elif attack <= self._hold(move.dest):
            return False
        rivals = self.moves_into[move.dest]
        if len(rivals) > 1:  # the move itself is one of them
            for other in rivals:
                if other is not move and attack <= self._prevent(other):
                    return False
        return True

    def _support(self, support: SupportDecision) -> bool:
        """DATC 5.B.2 SUPPORT: cut by a foreign unit with a path attacking from anywhere but
        the supported move's destination, or by being dislodged."""
        attackers = self.moves_into.get(support.province, ())
        for move in attackers:
            if (move.power != support.power and move.src != support.exempt
                    and (not move.convoyed or self.path(move))):
                return False
        for move in attackers:
            if self._resolve(move):
                return False  # dislodged
        return True

    def _convoy(self, convoy: ConvoyDecision) -> bool:
        """DATC 5.B.3 CONVOY: the fleet is not dislodged.  Attackers are adjudicated, not
        resolved (§5.D), so a convoy paradox shows as one clean cycle."""
        for move in self.moves_into.get(convoy.province, ()):
            if self._move(move):
                return False
        return True

    def path(self, move: MoveDecision) -> bool:
        """DATC 5.B.4 PATH: always for a move by land; for a convoyed move, a chain of
        adjacent fleets with successful CONVOY orders from its origin to its destination."""
        if not move.convoyed:
            return True
        reach = self.fleet_reach
        frontier = [convoy for convoy in move.convoys if move.src in reach[convoy.province]]
        seen = set(frontier)
        while frontier:
            convoy = frontier.pop()
            if not self._resolve(convoy):
                continue
            nxt = reach[convoy.province]
            if move.dest in nxt:
                return True
            for other in move.convoys:
                if other not in seen and other.province in nxt:
                    seen.add(other)
                    frontier.append(other)
        return False

    def _hold(self, province: str) -> int:
        """DATC 5.B.5 HOLD STRENGTH of a province: 0 empty or left, 1 after a failed move,
        else 1 plus successful supports to hold."""
        if province not in self.units:
            return 0
        leaving = self.moves.get(province)
        if leaving is not None:
            return 0 if self._resolve(leaving) else 1
        supports = self.hold_supports.get(province)
        return 1 + self._given(supports) if supports else 1

    def _prevent(self, move: MoveDecision) -> int:
        """DATC 5.B.6 PREVENT STRENGTH: 0 without a path or after losing head to head, else 1
        plus successful supports."""
        if move.convoyed and not self.path(move):
            return 0
        if move.opposing is not None and self._resolve(move.opposing):
            return 0
        return 1 + self._given(move.supports) if move.supports else 1

    def _defend(self, move: MoveDecision) -> int:
        """DATC 5.B.7 DEFEND STRENGTH: 1 plus successful supports of the move."""
        return 1 + self._given(move.supports) if move.supports else 1

    def _attack(self, move: MoveDecision) -> int:
        """DATC 5.B.8 ATTACK STRENGTH (the path is checked by the caller): 1 plus supports into
        an empty or successfully left province; 0 against a unit of the same power; else 1
        plus the supports not of the defender's power."""
        occupant = self.units.get(move.dest)
        if occupant is None:
            return 1 + self._given(move.supports) if move.supports else 1
        if move.opposing is None:
            leaving = self.moves.get(move.dest)
            if leaving is not None and self._resolve(leaving):
                return 1 + self._given(move.supports) if move.supports else 1
        defender = occupant.power
        if defender == move.power:
            return 0
        n = 1
        for support in move.supports:
            if support.power != defender and self._resolve(support):
                n += 1
        return n

    def _given(self, supports: list[SupportDecision] | tuple[SupportDecision, ...]) -> int:
        # a plain loop: this runs for every strength asked, a generator costs more than it does.
        # Callers skip the call when there are no supports (most moves).
        n = 0
        resolve = self._resolve
        for support in supports:
            if resolve(support):
                n += 1
        return n
