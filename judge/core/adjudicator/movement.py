"""Movement phases, in named steps:

1. bind each order line to the unit it names (:mod:`.binding`);
2. check each bound order against the board (:mod:`.legality`): illegal orders are refused
   and their units hold (DATC 4.E.1);
3. decide: one DATC §5 decision per legal move, per support that matches the order of the
   unit it supports and per convoy that matches a convoyed move, named by the province of the
   ordered unit;
4. resolve the decisions (:mod:`.resolver`);
5. report one :class:`OrderResult` per order and per unordered unit, and the board after the
   moves;
6. work out where each dislodged unit may retreat.
"""

from __future__ import annotations

import msgspec

from judge.core.adjudicator.binding import Bound, OrdersIn, bind_unit_orders
from judge.core.adjudicator.legality import (
    ConvoyGeometry,
    Destination,
    check_convoy,
    check_move,
    check_support,
    plain_moves,
)
from judge.core.adjudicator.resolver import (
    ConvoyDecision,
    Decisions,
    MoveDecision,
    Resolver,
    SupportDecision,
)
from judge.core.board import Dislodged, Position, Unit, unit_table
from judge.core.errors import OrderError
from judge.core.maps import ARMY, FLEET, Map, province_of
from judge.core.orders import Convoy, Move, Support, default_holds
from judge.core.phases import MOVEMENT
from judge.core.order_results import (BOUNCE, CUT, INVALID, NO_CONVOY, OK, VOID, OrderResult, PhaseOutcome)

Units = dict[str, Unit]  # province → the unit standing there
_NOWHERE: dict[str, Destination] = {}  # no plain moves from a location


def adjudicate_movement(pos: Position, orders: OrdersIn,
                        repeats_hold: bool = False) -> PhaseOutcome:
    m = pos.map
    units = {unit.province: unit for unit in pos.units}
    results: list[OrderResult] = []
    bound = bind_unit_orders(m, units, orders, MOVEMENT, results, repeats_hold)
    checked = _check(m, pos.units, units, bound)
    decisions = _decide(units, checked)
    resolver = Resolver(decisions, m.fleet_reach)
    resolver.resolve_all()
    dislodger = _dislodgers(units, decisions)
    after = _report(m, units, bound, checked, decisions, resolver, dislodger, results)
    retreats = _retreats(m, units, after, resolver, dislodger) if dislodger else ()
    return PhaseOutcome(tuple(results), after, retreats)


# -- 2. legality ---------------------------------------------------------------------------------
class _Checked(msgspec.Struct, gc=False):
    """The bound orders after the legality check, each kind in the order given."""

    # province → where its move goes
    moves: dict[str, Destination] = msgspec.field(default_factory=dict)
    # (province, order)
    supports: list[tuple[str, Support]] = msgspec.field(default_factory=list)
    # (fleet, army, destination) provinces
    convoys: list[tuple[str, str, str]] = msgspec.field(default_factory=list)
    # province → why its order is illegal
    refused: dict[str, OrderError] = msgspec.field(default_factory=dict)


def _check(m: Map, board: tuple[Unit, ...], units: Units, bound: Bound) -> _Checked:
    """Check each bound order against the board, in one pass in the order given (holds need
    no check).

    The other orders matter to one question only: whether an army's move goes by convoy
    because a fleet of its power is ordered to convoy it (DATC 4.A.3).  That never makes a
    legal move illegal nor an illegal one legal, so every move is checked as if no such
    fleet were ordered, and the few moves such a fleet offers to carry are checked again
    (phases without convoy orders, most of them, never get there)."""
    geo = ConvoyGeometry(m, board)
    checked = _Checked()
    moves, refused = checked.moves, checked.refused
    offered: set[tuple[str, str, str]] = set()  # (power, army, destination) provinces
    plain = plain_moves(m)
    # (the kind of each order and of each answer is asked as ``type(x) is`` or as the
    # ``isinstance`` that usually holds: an ``isinstance`` that fails costs thrice as much)
    for prov, (_, order) in bound.items():
        if type(order) is Move:
            unit = units[prov]
            # most moves are a unit's by itself to a neighbour: the map's table of them
            # answers at once what check_move works out (not for an army asking for a convoy;
            # own_convoy=False: see above)
            to = (plain[unit.kind].get(unit.location, _NOWHERE).get(order.dest)
                  if unit.kind == FLEET or not order.via_convoy else None)
            got = to if to is not None else check_move(m, unit, order, geo, False)
            if isinstance(got, Destination):
                moves[prov] = got
            else:
                refused[prov] = got
        elif type(order) is Support:
            why = check_support(m, units[prov], order, units.get(order.target.province), geo)
            if why is None:
                checked.supports.append((prov, order))
            else:
                refused[prov] = why
        elif type(order) is Convoy:
            _check_convoy(m, units, prov, order, geo, checked, offered)
    if offered:
        _carry_own_armies(m, units, bound, offered, geo, moves)
    return checked


def _check_convoy(m: Map, units: Units, prov: str, order: Convoy, geo: ConvoyGeometry,
                  checked: _Checked, offered: set[tuple[str, str, str]]) -> None:
    """Check one convoy; a legal one offers to carry (its power, the army, the destination)."""
    army = order.target.province
    why = check_convoy(m, units[prov], order, units.get(army), geo)
    if why is not None:
        checked.refused[prov] = why
        return
    dest = province_of(order.dest)
    checked.convoys.append((prov, army, dest))
    offered.add((units[prov].power, army, dest))


def _carry_own_armies(m: Map, units: Units, bound: Bound, offered: set[tuple[str, str, str]],
                      geo: ConvoyGeometry, moves: dict[str, Destination]) -> None:
    """The legal moves a fleet of the same power offers to carry, checked again knowing it
    (their place among the moves, the order given, is kept)."""
    for prov, to in moves.items():
        unit = units[prov]
        if (unit.power, prov, to.province) in offered:
            order = bound[prov][1]
            assert isinstance(order, Move)  # only moves are in ``moves``
            got = check_move(m, unit, order, geo, own_convoy=True)
            if isinstance(got, Destination):  # always: legal either way (see _check)
                moves[prov] = got


# -- 3. decisions --------------------------------------------------------------------------------
def _decide(units: Units, checked: _Checked) -> Decisions:
    """The decisions of the legal orders: moves in the order given, then convoys, then
    supports (the order the resolver takes them in)."""
    decisions = Decisions(units)
    moves, moves_into = decisions.moves, decisions.moves_into
    for prov, to in checked.moves.items():
        moves[prov] = move = MoveDecision(prov, to.province, units[prov].power, to.convoyed)
        if move.dest in moves_into:
            moves_into[move.dest].append(move)
        else:
            moves_into[move.dest] = [move]
        # head to head with a move decided before it (when neither goes by convoy)
        back = moves[move.dest] if move.dest in moves else None
        if back is not None and back.dest == prov and not (move.convoyed or back.convoyed):
            move.opposing, back.opposing = back, move
    decisions.all.update(moves)
    for fleet, army, dest in checked.convoys:
        carried = moves.get(army)
        if carried is not None and carried.convoyed and carried.dest == dest:
            decisions.add_convoy(fleet, carried)
    for prov, order in checked.supports:
        _decide_support(decisions, checked, prov, units[prov].power, order)
    return decisions


def _decide_support(decisions: Decisions, checked: _Checked, prov: str, power: str,
                    order: Support) -> None:
    """A support that matches what its unit does gets a decision; any other is void."""
    target = order.target.province
    move = decisions.moves.get(target)
    if order.dest is None:
        if move is None:  # support to hold a unit that does not move
            decisions.add_support(SupportDecision(prov, power, None), None, target)
        return
    if move is None:
        return
    dest = province_of(order.dest)
    # DATC 4.B.4 / 6.B.9: a coast named in a support must be the coast the fleet moves to
    reached = checked.moves[target].location
    coast_agrees = "/" not in order.dest or "/" not in reached or order.dest == reached
    if move.dest == dest and coast_agrees:
        decisions.add_support(SupportDecision(prov, power, dest), move, None)


# -- 5. what became of each unit ----------------------------------------------------------------
def _dislodgers(units: Units, decisions: Decisions) -> dict[str, str]:
    """Province of each dislodged unit → the province its dislodger came from."""
    moves = decisions.moves
    dislodger = {}
    for prov, move in moves.items():
        if move.ok and move.dest in units:
            leaving = moves.get(move.dest)
            if leaving is None or not leaving.ok:
                dislodger[move.dest] = prov
    return dislodger


def _report(m: Map, units: Units, bound: Bound, checked: _Checked, decisions: Decisions,
            resolver: Resolver, dislodger: dict[str, str], results: list[OrderResult]
            ) -> tuple[Unit, ...]:
    """Add each unit's result to ``results`` (its order's, or the hold supplied when it has
    none); where each unit stands after the moves, dislodged units left out, by province.

    The result code is worked out here from the order's decision, not by a function per
    unit: on a board of a few dozen units the calls would cost as much as the rest."""
    table, holds = unit_table(m), default_holds(m)
    ordered, refused, moved_to = decisions.all, checked.refused, checked.moves
    after: dict[str, Unit] = {}
    for prov, unit in units.items():
        dislodged = prov in dislodger
        if prov not in bound:  # no order: the hold the judge supplies
            hold, text = holds[unit.code]
            results.append(OrderResult(unit.power, unit, hold, text, OK, dislodged, True))
            if not dislodged:
                after[prov] = unit
            continue
        text, order = bound[prov]
        decision = ordered.get(prov)
        if decision is None:  # refused; or a hold, a support or convoy that matched no order
            if prov in refused:
                results.append(OrderResult(unit.power, unit, order, text, INVALID, dislodged,
                                           message=refused[prov].message))
                if not dislodged:
                    after[prov] = unit
                continue
            code = VOID if type(order) is Support or type(order) is Convoy else OK
        elif type(decision) is MoveDecision:
            if decision.ok:  # it moves
                results.append(OrderResult(unit.power, unit, order, text, OK, dislodged))
                to = moved_to[prov]
                after[to.province] = table[unit.power][f"{unit.kind} {to.location}"]
                continue
            # (a move by land always has its path: no call to ask)
            code = BOUNCE if not decision.convoyed or resolver.path(decision) else NO_CONVOY
        elif isinstance(decision, SupportDecision):
            code = OK if decision.ok else CUT
        else:  # a convoy: whether the army it carries had its path
            assert isinstance(decision, ConvoyDecision)
            code = OK if resolver.path(decisions.moves[decision.army]) else NO_CONVOY
        results.append(OrderResult(unit.power, unit, order, text, code, dislodged))
        if not dislodged:
            after[prov] = unit
    return tuple(map(after.__getitem__, sorted(after)))


# -- 6. retreats ---------------------------------------------------------------------------------
def _retreats(m: Map, units: Units, after: tuple[Unit, ...], resolver: Resolver,
              dislodger: dict[str, str]) -> tuple[Dislodged, ...]:
    """Each dislodged unit with the locations it may retreat to, by province."""
    occupied = {unit.province for unit in after}
    # a standoff leaves a province contested; a move that lost a head-to-head battle does not
    # (its prevent strength is nil: DATC 6.H.9)
    contested = {move.dest for move in resolver.moves.values()
                 if not move.ok and resolver.path(move)
                 and not (move.opposing is not None and move.opposing.ok)}
    out = []
    for prov, attacker in sorted(dislodger.items()):
        unit = units[prov]
        by_convoy = resolver.moves[attacker].convoyed  # DATC 4.A.5: may retreat to its origin
        options = m.army_adj[prov] if unit.kind == ARMY else m.fleet_adj.get(unit.location, ())
        retreats = sorted(
            loc for loc in options
            if (there := province_of(loc)) not in occupied and there not in contested
            and (there != attacker or by_convoy) and m.provinces[there].kind != "impassable")
        out.append(Dislodged(unit, tuple(retreats), attacker))
    return tuple(out)
