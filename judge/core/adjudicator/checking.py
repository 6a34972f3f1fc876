"""Checking one order when it is given, before the phase is adjudicated.

``check_order(position, power, order)`` says why an order could not succeed whatever the
other orders are (an :class:`OrderError`; ``None`` when it could), using the same legality
rules the adjudicator applies: an order refused here would be marked invalid in the results,
and an order accepted here is never invalid there for a reason that depends on the board
alone.  Whether a power still has builds or removals left after the orders it already gave is
the caller's business (the adjudicator takes them one at a time in the order given).

Convoyed moves follow DATC 6.D.31/6.D.32: a move to a province the army cannot reach by land
is legal when fleets stand on seas that could carry it (a convoy route could exist), whether
or not they are ordered to convoy; with no possible route it is illegal.
"""

from __future__ import annotations

from judge.core.adjudicator.adjustments import adjustment_delta, build_unit
import msgspec

from judge.core.adjudicator.legality import (
    Destination,
    check_convoy,
    check_move,
    check_support,
    convoy_geometry,
    fleet_destination,
)
from judge.core.adjudicator.retreats import match_retreat, check_retreat
from judge.core.board import Position, Unit
from judge.core.errors import OrderError
from judge.core.maps import FLEET
from judge.core.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    Support,
    UnitSpec,
    Waive,
)
from judge.core.phases import ADJUSTMENTS, MOVEMENT, RETREATS


def check_order(position: Position, power: str, order: Order, *, build_any: bool = False
                ) -> OrderError | None:
    """``None`` if ``power`` may give ``order`` in ``position``, else why it may not.

    ``build_any`` is the BUILD_ANY game rule: builds in any vacant owned centre."""
    t = position.phase.type
    if t == MOVEMENT:
        if isinstance(order, (Hold, Move, Support, Convoy)):
            return _check_movement(position, power, order)
        return _refuse(order, "that is not a movement order")
    if t == ADJUSTMENTS:
        if isinstance(order, (Build, Remove, Waive)):
            return _check_adjustment(position, power, order, build_any)
        return _refuse(order, "that is not an adjustment order")
    if t == RETREATS and isinstance(order, (Retreat, Disband)):
        return _check_retreat(position, power, order)
    return _refuse(order, "that is not a retreat order")


def as_understood(position: Position, order: Order) -> Order:
    """``order`` as the judge reads it on this board, for echoing back to its writer.

    Every unit it names takes the type and coast of the unit standing there (``F StP-Bot`` is
    ``F STP/SC - BOT``, ``Mun-Ruh`` is ``A MUN - RUH``), and a fleet's move or retreat the
    coast it can only mean (``F Gas-Spa`` is ``F GAS - SPA/NC``).  What the board cannot
    settle (no unit there, a coast left open) stays as written: the checks say why.
    """
    if isinstance(order, (Waive, Build)):
        return order
    if isinstance(order, (Retreat, Disband)):
        d = next((d for d in position.dislodged if d.unit.province == order.unit.province),
                 None)
        if d is None:
            return order
        order = msgspec.structs.replace(order, unit=_spec(d.unit))
        if isinstance(order, Retreat):
            order = msgspec.structs.replace(
                order, dest=match_retreat(order.dest, d.retreats) or order.dest)
        return order
    unit = position.unit_at(order.unit.province)
    if unit is None:
        return order
    order = msgspec.structs.replace(order, unit=_spec(unit))
    if isinstance(order, Move) and unit.kind == FLEET:
        found = fleet_destination(position.map, unit, order)
        if isinstance(found, Destination):
            order = msgspec.structs.replace(order, dest=found.location)
    if isinstance(order, (Support, Convoy)):
        target = position.unit_at(order.target.province)
        if target is not None:
            order = msgspec.structs.replace(order, target=_spec(target))
    return order


def _spec(unit: Unit) -> UnitSpec:
    return UnitSpec(unit.kind, unit.location)


def _refuse(order: Order, message: str) -> OrderError:
    return OrderError(order.text(), message)


def _check_movement(position: Position, power: str, order: Hold | Move | Support | Convoy
                    ) -> OrderError | None:
    m = position.map
    prov = order.unit.province
    unit = position.unit_at(prov)
    if unit is None:
        return _refuse(order, f"there is no unit in {m.provinces[prov].name}")
    if unit.power != power:
        return _refuse(order, f"the {unit.text(m)} is not {power.capitalize()}'s")
    if isinstance(order, Hold):
        return None
    geo = convoy_geometry(m, position.units)
    if isinstance(order, Move):
        # a fleet of the same power ordered to convoy never turns a legal move illegal
        # (nor an illegal one legal), so the other orders need not be known
        got = check_move(m, unit, order, geo, own_convoy=False)
        return got if isinstance(got, OrderError) else None
    target = position.unit_at(order.target.province)
    if isinstance(order, Support):
        return check_support(m, unit, order, target, geo)
    return check_convoy(m, unit, order, target, geo)


def _check_retreat(position: Position, power: str, order: Retreat | Disband
                   ) -> OrderError | None:
    m = position.map
    prov = order.unit.province
    d = next((d for d in position.dislodged if d.unit.province == prov), None)
    if d is None:
        return _refuse(order, f"there is no dislodged unit in {m.provinces[prov].name}")
    if d.unit.power != power:
        return _refuse(order, f"the dislodged {d.unit.text(m)} is not {power.capitalize()}'s")
    if isinstance(order, Retreat):
        return check_retreat(m, d, order)
    return None


def _check_adjustment(position: Position, power: str, order: Build | Remove | Waive,
                      build_any: bool) -> OrderError | None:
    m = position.map
    delta = adjustment_delta(position, power) if power in m.powers else 0
    if isinstance(order, Remove):
        if delta >= 0:
            return _refuse(order, "no removals owed")
        unit = position.unit_at(order.unit.province)
        if unit is None or unit.power != power:
            return _refuse(order, f"{power.capitalize()} has no unit in "
                                  f"{m.provinces[order.unit.province].name}")
        return None
    if delta <= 0:
        return _refuse(order, "no builds available")
    if isinstance(order, Waive):
        return None
    taken = {u.province for u in position.units}
    got = build_unit(m, position, power, order, taken, build_any)
    return got if isinstance(got, OrderError) else None
