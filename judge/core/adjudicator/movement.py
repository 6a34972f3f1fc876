"""Movement phases: bind and check orders, resolve them, and report what happened.

The result is the new board (dislodged units set aside with their legal retreats) and one
:class:`OrderResult` per order and per unordered unit.  Illegal orders make the unit hold.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.core.adjudicator.binding import OrdersIn, bind_unit_orders
from judge.core.adjudicator.legality import (check_convoy, check_move, check_support,
                                             convoy_geometry)
from judge.core.adjudicator.resolver import (ConvoyDecision, Decision, MoveDecision, Resolver,
                                             SupportDecision)
from judge.core.board import Dislodged, Position, Unit
from judge.core.maps import ARMY, province_of
from judge.core.orders import Convoy, Hold, Move, Order, Support, UnitSpec
from judge.core.phases import MOVEMENT
from judge.core.results import (BOUNCE, CUT, INVALID, NO_CONVOY, OK, VOID, OrderResult)


@dataclass(frozen=True)
class MovementOutcome:
    results: tuple[OrderResult, ...]
    units: tuple[Unit, ...]  # after the moves, dislodged units excluded
    dislodged: tuple[Dislodged, ...]


def adjudicate_movement(pos: Position, orders: OrdersIn) -> MovementOutcome:
    m = pos.map
    units = {u.province: u for u in pos.units}
    results: list[OrderResult] = []
    chosen = bind_unit_orders(m, units, orders, MOVEMENT, results)
    geo = convoy_geometry(m, units.values())

    # -- legality (convoys first: a legal own convoy turns an adjacent move into a convoy) --
    legal: dict[str, Order] = {}
    why: dict[str, str] = {}
    own_convoys: set[tuple[str, str, str]] = set()
    for prov, (_, o) in chosen.items():
        if isinstance(o, Convoy):
            msg = check_convoy(m, units[prov], o, units.get(o.target.province), geo)
            if msg:
                why[prov] = msg
            else:
                legal[prov] = o
                own_convoys.add((units[prov].power, o.target.province, province_of(o.dest)))
    dest_loc: dict[str, str] = {}
    convoyed: dict[str, bool] = {}
    for prov, (_, o) in chosen.items():
        u = units[prov]
        if isinstance(o, Move):
            key = (u.power, prov, province_of(o.dest))
            got = check_move(m, u, o, geo, key in own_convoys)
            if isinstance(got, str):
                why[prov] = got
            else:
                legal[prov] = o
                dest_loc[prov], convoyed[prov] = got
        elif isinstance(o, Support):
            msg = check_support(m, u, o, units.get(o.target.province), geo)
            if msg:
                why[prov] = msg
            else:
                legal[prov] = o
        elif isinstance(o, Hold):
            legal[prov] = o

    # -- decisions ---------------------------------------------------------------------------
    decisions: list[Decision] = []
    move_from: dict[str, int] = {}
    moves_into: dict[str, list[int]] = {}
    for prov, o in legal.items():
        if isinstance(o, Move):
            dprov = province_of(dest_loc[prov])
            move_from[prov] = len(decisions)
            moves_into.setdefault(dprov, []).append(len(decisions))
            decisions.append(MoveDecision(prov, dprov, units[prov].power, convoyed[prov]))
    for i in move_from.values():
        mv = decisions[i]
        j = move_from.get(mv.dest)  # type: ignore[union-attr]
        if j is not None and not mv.convoyed:  # type: ignore[union-attr]
            other = decisions[j]
            if other.dest == mv.src and not other.convoyed:  # type: ignore[union-attr]
                mv.opposing = j  # type: ignore[union-attr]
    hold_supports: dict[str, list[int]] = {}
    support_id: dict[str, int] = {}
    convoy_id: dict[str, int] = {}
    for prov, o in legal.items():
        if isinstance(o, Support):
            t = o.target.province
            tmove = move_from.get(t)
            if o.dest is None:
                if tmove is None:
                    support_id[prov] = len(decisions)
                    hold_supports.setdefault(t, []).append(len(decisions))
                    decisions.append(SupportDecision(prov, units[prov].power, None))
            elif (tmove is not None and decisions[tmove].dest == province_of(o.dest)  # type: ignore[union-attr]
                  and _coast_agrees(o.dest, dest_loc[t])):
                support_id[prov] = len(decisions)
                decisions[tmove].supports.append(len(decisions))  # type: ignore[union-attr]
                decisions.append(SupportDecision(prov, units[prov].power, province_of(o.dest)))
        elif isinstance(o, Convoy):
            amove = move_from.get(o.target.province)
            if amove is not None:
                mv = decisions[amove]
                if mv.convoyed and mv.dest == province_of(o.dest):  # type: ignore[union-attr]
                    convoy_id[prov] = len(decisions)
                    mv.convoys.append(len(decisions))  # type: ignore[union-attr]
                    decisions.append(ConvoyDecision(prov))

    power_at = {p: u.power for p, u in units.items()}
    resolver = Resolver(decisions, power_at, move_from, moves_into, hold_supports, m.fleet_reach)
    ok = resolver.resolve_all()

    # -- outcome -----------------------------------------------------------------------------
    moved = {p for p, i in move_from.items() if ok[i]}
    dislodger: dict[str, str] = {}
    for p, i in move_from.items():
        if ok[i]:
            dest = decisions[i].dest  # type: ignore[union-attr]
            if dest in units and dest not in moved:
                dislodger[dest] = p
    after: list[Unit] = []
    for p, u in units.items():
        if p in moved:
            after.append(Unit(u.power, u.kind, dest_loc[p]))
        elif p not in dislodger:
            after.append(u)
    occupied = {u.province for u in after}
    # a standoff leaves a province contested; a move that lost a head-to-head battle does not
    # (its prevent strength is nil: DATC 6.H.9)
    contested = set()
    for i in move_from.values():
        mv = decisions[i]
        if not ok[i] and resolver.path(mv) and not (  # type: ignore[arg-type]
                mv.opposing is not None and ok[mv.opposing]):  # type: ignore[union-attr]
            contested.add(mv.dest)  # type: ignore[union-attr]
    dislodged: list[Dislodged] = []
    for p, attacker in sorted(dislodger.items()):
        u = units[p]
        by_convoy = convoyed[attacker]
        options = m.army_adj[p] if u.kind == ARMY else m.fleet_adj.get(u.location, ())
        retreats = sorted(
            loc for loc in options
            if (q := province_of(loc)) not in occupied and q not in contested
            and (q != attacker or by_convoy) and m.provinces[q].kind != "impassable")
        dislodged.append(Dislodged(u, tuple(retreats), attacker))

    for p, u in units.items():
        text_order = chosen.get(p)
        if text_order is None:
            o: Order = Hold(UnitSpec(u.kind, u.location))
            results.append(OrderResult(u.power, u, o, o.text(), OK, p in dislodger, default=True))
            continue
        text, o = text_order
        if p in why:
            results.append(OrderResult(u.power, u, o, text, INVALID, p in dislodger,
                                       message=why[p]))
            continue
        if isinstance(o, Move):
            mv = decisions[move_from[p]]
            code = OK if ok[move_from[p]] else (
                NO_CONVOY if not resolver.path(mv) else BOUNCE)  # type: ignore[arg-type]
        elif isinstance(o, Support):
            code = VOID if p not in support_id else OK if ok[support_id[p]] else CUT
        elif isinstance(o, Convoy):
            if p not in convoy_id:
                code = VOID
            else:
                army = decisions[move_from[o.target.province]]
                code = OK if resolver.path(army) else NO_CONVOY  # type: ignore[arg-type]
        else:
            code = OK
        results.append(OrderResult(u.power, u, o, text, code, p in dislodger))
    return MovementOutcome(tuple(results), tuple(sorted(after, key=lambda u: u.province)),
                           tuple(dislodged))


def _coast_agrees(support_dest: str, move_dest: str) -> bool:
    """DATC 4.B.4 / 6.B.9: a coast named in a support must be the coast the fleet moves to."""
    return "/" not in support_dest or "/" not in move_dest or support_dest == move_dest
