"""Movement phases: bind and check orders, resolve them, and report what happened.

The result is the new board (dislodged units set aside with their legal retreats) and one
:class:`OrderResult` per order and per unordered unit.  Illegal orders make the unit hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from judge.core.adjudicator.binding import OrdersIn, bind_unit_orders
from judge.core.adjudicator.legality import (ConvoyGeometry, check_convoy, check_move,
                                             check_support)
from judge.core.adjudicator.resolver import (ConvoyDecision, Decision, MoveDecision, Resolver,
                                             SupportDecision)
from judge.core.board import Dislodged, Position, Unit, unit_values
from judge.core.maps import ARMY
from judge.core.orders import Convoy, Hold, Move, Order, Support, default_hold
from judge.core.phases import MOVEMENT
from judge.core.results import (BOUNCE, CUT, INVALID, NO_CONVOY, OK, VOID, OrderResult,
                                order_result)


@dataclass(frozen=True)
class MovementOutcome:
    results: tuple[OrderResult, ...]
    units: tuple[Unit, ...]  # after the moves, dislodged units excluded
    dislodged: tuple[Dislodged, ...]


# Order kinds as small ints: one dict lookup on the order's class instead of a chain of
# isinstance calls in each pass over the orders.
_HOLD, _MOVE, _SUPPORT, _CONVOY, _OTHER = range(5)
_KIND_OF: dict[type, int] = {Hold: _HOLD, Move: _MOVE, Support: _SUPPORT, Convoy: _CONVOY}


def _kind_of_subclass(o: Order) -> int:
    """The kind of an order whose class is a subclass of an order class (never made by the
    parser): as ``isinstance`` would say."""
    return next((tag for cls, tag in _KIND_OF.items() if isinstance(o, cls)), _OTHER)


_by_province = attrgetter("province")


def adjudicate_movement(pos: Position, orders: OrdersIn) -> MovementOutcome:
    m = pos.map
    units = {u.province: u for u in pos.units}
    results: list[OrderResult] = []
    chosen = bind_unit_orders(m, units, orders, MOVEMENT, results)
    geo = ConvoyGeometry(m, pos.units)

    # Locations are "PAR" or "STP/NC": ``loc.partition("/")[0]`` is province_of inlined, as
    # this function asks it about a hundred times per phase.
    moves: list[tuple[str, Move]] = []
    supports: list[tuple[str, Support]] = []
    convoys: list[tuple[str, Convoy]] = []
    kind_of = _KIND_OF.get
    for prov, (_, o) in chosen.items():
        k = kind_of(type(o))
        if k is None:
            k = _kind_of_subclass(o)
        if k == _MOVE:
            moves.append((prov, o))  # type: ignore[arg-type]
        elif k == _SUPPORT:
            supports.append((prov, o))  # type: ignore[arg-type]
        elif k == _CONVOY:
            convoys.append((prov, o))  # type: ignore[arg-type]

    # -- legality and decisions --------------------------------------------------------------
    # Convoys are checked first: a legal own convoy turns an adjacent move into a convoy.
    # Decision ids are moves first, then convoys, then supports, each in the order given.
    why: dict[str, str] = {}
    own_convoys: set[tuple[str, str, str]] = set()
    legal_convoys: list[tuple[str, str, str]] = []  # (fleet, army, destination) provinces
    for prov, o in convoys:
        u, aprov = units[prov], o.target.province
        msg = check_convoy(m, u, o, units.get(aprov), geo)
        if msg:
            why[prov] = msg
        else:
            dprov = o.dest.partition("/")[0]
            legal_convoys.append((prov, aprov, dprov))
            own_convoys.add((u.power, aprov, dprov))

    decisions: list[Decision] = []
    move_from: dict[str, int] = {}
    moves_into: dict[str, list[int]] = {}
    dest_loc: dict[str, str] = {}
    for prov, o in moves:
        u = units[prov]
        # an own fleet convoying this army there (most phases have no convoy orders at all)
        offered = bool(own_convoys) and (u.power, prov, o.dest.partition("/")[0]) in own_convoys
        got = check_move(m, u, o, geo, offered)
        if not isinstance(got, tuple):  # asked of the usual answer: a test that fails costs more
            why[prov] = got
            continue
        loc, via = got
        dprov = loc.partition("/")[0]
        dest_loc[prov] = loc
        move_from[prov] = i = len(decisions)
        moves_into.setdefault(dprov, []).append(i)
        mv = MoveDecision(prov, dprov, u.power, via)
        decisions.append(mv)
        j = move_from.get(dprov)
        if j is not None and not via:  # the second move of a head-to-head pair pairs both
            other = decisions[j]
            if other.dest == prov and not other.convoyed:  # type: ignore[union-attr]
                mv.opposing, other.opposing = j, i  # type: ignore[union-attr]
    move_decisions: list[MoveDecision] = decisions[:]  # type: ignore[assignment]

    convoy_id: dict[str, int] = {}
    for prov, aprov, dprov in legal_convoys:
        amove = move_from.get(aprov)
        if amove is not None:
            mv = move_decisions[amove]
            if mv.convoyed and mv.dest == dprov:
                convoy_id[prov] = i = len(decisions)
                mv.convoys += (i,)
                decisions.append(ConvoyDecision(prov))

    hold_supports: dict[str, list[int]] = {}
    support_id: dict[str, int] = {}
    for prov, o in supports:
        u, t = units[prov], o.target.province
        msg = check_support(m, u, o, units.get(t), geo)
        if msg:
            why[prov] = msg
            continue
        tmove = move_from.get(t)
        if o.dest is None:
            if tmove is None:
                support_id[prov] = i = len(decisions)
                hold_supports.setdefault(t, []).append(i)
                decisions.append(SupportDecision(prov, u.power, None))
        elif tmove is not None:
            dprov = o.dest.partition("/")[0]
            if move_decisions[tmove].dest == dprov and _coast_agrees(o.dest, dest_loc[t]):
                support_id[prov] = i = len(decisions)
                move_decisions[tmove].supports += (i,)
                decisions.append(SupportDecision(prov, u.power, dprov))

    resolver = Resolver(decisions, units, move_from, moves_into, hold_supports, m.fleet_reach)
    ok = resolver.resolve_all()

    # -- outcome -----------------------------------------------------------------------------
    moved = {p for p, i in move_from.items() if ok[i]}
    dislodger: dict[str, str] = {}
    for p, i in move_from.items():
        if ok[i]:
            dest = move_decisions[i].dest
            if dest in units and dest not in moved:
                dislodger[dest] = p
    # one pass over the units: where each stands after the moves, and its order's result
    after: list[Unit] = []
    unit_at = unit_values(m).get
    for p, u in units.items():
        mid = move_from.get(p)  # the legal moves, most of the orders
        if mid is not None and ok[mid]:
            loc = dest_loc[p]
            after.append(unit_at((u.power, u.kind, loc)) or Unit(u.power, u.kind, loc))
        elif p not in dislodger:
            after.append(u)
        text_order = chosen.get(p)
        if text_order is None:
            o: Order = default_hold(m, u.kind, u.location)
            results.append(order_result(u.power, u, o, o.text(), OK, p in dislodger, default=True))
            continue
        text, o = text_order
        if mid is not None:
            code = OK if ok[mid] else BOUNCE if resolver.path(move_decisions[mid]) else NO_CONVOY
        elif p in why:
            results.append(order_result(u.power, u, o, text, INVALID, p in dislodger,
                                        message=why[p]))
            continue
        elif p in support_id:
            code = OK if ok[support_id[p]] else CUT
        elif p in convoy_id:
            army = move_decisions[move_from[o.target.province]]  # type: ignore[union-attr]
            code = OK if resolver.path(army) else NO_CONVOY
        else:  # a hold, or a support or convoy that matched no order
            code = VOID if isinstance(o, (Support, Convoy)) else OK
        results.append(order_result(u.power, u, o, text, code, p in dislodger))

    dislodged: list[Dislodged] = []
    if dislodger:
        occupied = {u.province for u in after}
        # a standoff leaves a province contested; a move that lost a head-to-head battle does
        # not (its prevent strength is nil: DATC 6.H.9)
        contested = set()
        for i, mv in enumerate(move_decisions):
            if not ok[i] and resolver.path(mv) and not (
                    mv.opposing is not None and ok[mv.opposing]):
                contested.add(mv.dest)
        for p, attacker in sorted(dislodger.items()):
            u = units[p]
            by_convoy = move_decisions[move_from[attacker]].convoyed
            options = m.army_adj[p] if u.kind == ARMY else m.fleet_adj.get(u.location, ())
            retreats = sorted(
                loc for loc in options
                if (q := loc.partition("/")[0]) not in occupied and q not in contested
                and (q != attacker or by_convoy) and m.provinces[q].kind != "impassable")
            dislodged.append(Dislodged(u, tuple(retreats), attacker))
    return MovementOutcome(tuple(results), tuple(sorted(after, key=_by_province)),
                           tuple(dislodged))


def _coast_agrees(support_dest: str, move_dest: str) -> bool:
    """DATC 4.B.4 / 6.B.9: a coast named in a support must be the coast the fleet moves to."""
    return "/" not in support_dest or "/" not in move_dest or support_dest == move_dest
