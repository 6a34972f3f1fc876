"""Retreat phases: dislodged units retreat or disband.

A retreat must go to one of the unit's recorded legal retreats; two retreats to the same
province both fail and both units disband; a unit without a (valid) order disbands.
"""

from __future__ import annotations

from judge.core.adjudicator.binding import OrdersIn, parse_lines
from judge.core.board import Dislodged, Position, Unit
from judge.core.errors import OrderError
from judge.core.maps import Map, province_of
from judge.core.orders import Disband, Retreat, UnitSpec
from judge.core.phases import RETREATS
from judge.core.order_results import BOUNCE, DISBAND, INVALID, OK, OrderResult, PhaseOutcome


def adjudicate_retreats(pos: Position, orders: OrdersIn) -> PhaseOutcome:
    m = pos.map
    by_prov = {d.unit.province: d for d in pos.dislodged}
    results: list[OrderResult] = []
    chosen = _bind(m, by_prov, orders, results)
    valid: dict[str, str] = {}  # province → the location its retreat goes to
    why: dict[str, OrderError] = {}
    for prov, (_, o) in chosen.items():
        if isinstance(o, Retreat):
            refused = check_retreat(m, by_prov[prov], o)
            if refused is None:
                valid[prov] = match_retreat(o.dest, by_prov[prov].retreats) or o.dest
            else:
                why[prov] = refused
    targets: dict[str, int] = {}  # two retreats to one province both fail
    for loc in valid.values():
        targets[province_of(loc)] = targets.get(province_of(loc), 0) + 1
    units = list(pos.units)
    for prov, d in sorted(by_prov.items()):
        u = d.unit
        if prov not in chosen:
            o = Disband(UnitSpec(u.kind, u.location))
            results.append(OrderResult(u.power, u, o, o.text(), DISBAND, default=True))
            continue
        text, order = chosen[prov]
        if prov in why:
            results.append(OrderResult(u.power, u, order, text, INVALID,
                                       message=why[prov].message))
        elif isinstance(order, Disband):
            results.append(OrderResult(u.power, u, order, text, DISBAND))
        elif targets[province_of(valid[prov])] > 1:
            results.append(OrderResult(u.power, u, order, text, BOUNCE))
        else:
            units.append(Unit(u.power, u.kind, valid[prov]))
            results.append(OrderResult(u.power, u, order, text, OK))
    return PhaseOutcome(tuple(results), tuple(sorted(units, key=lambda u: u.province)))


def _bind(m: Map, by_prov: dict[str, Dislodged], orders: OrdersIn, results: list[OrderResult]
          ) -> dict[str, tuple[str, Retreat | Disband]]:
    """province → (text, order) of each dislodged unit ordered; rejects go to ``results``."""
    chosen: dict[str, tuple[str, Retreat | Disband]] = {}
    for power, items in orders.items():
        for text, o in parse_lines(m, items, RETREATS):
            if isinstance(o, OrderError):
                results.append(OrderResult(power, None, None, text, INVALID, message=o.message))
                continue
            if not isinstance(o, (Retreat, Disband)):
                results.append(OrderResult(power, None, o, text, INVALID,
                                           message="only retreats and disbands now"))
                continue
            d = by_prov.get(o.unit.province)
            if d is None or d.unit.power != power:
                results.append(OrderResult(power, None, o, text, INVALID,
                                           message="no dislodged unit of yours there"))
                continue
            if o.unit.province in chosen:
                old_text, old = chosen[o.unit.province]
                results.append(OrderResult(power, d.unit, old, old_text, INVALID,
                                           message="replaced by a later order for the same unit"))
            chosen[o.unit.province] = (text, o)
    return chosen


def check_retreat(m: Map, d: Dislodged, o: Retreat) -> OrderError | None:
    """``None`` if the dislodged unit may retreat as ordered, else why it may not."""
    if match_retreat(o.dest, d.retreats) is not None:
        return None
    where = ", ".join(m.location_text(x) for x in d.retreats) or "nowhere"
    return OrderError(o.text(), f"the {d.unit.text(m)} cannot retreat to "
                                f"{m.location_text(o.dest)}; it may retreat to {where}")


def match_retreat(dest: str, allowed: tuple[str, ...]) -> str | None:
    """The allowed location an order names; a bare province suffices if only one coast fits."""
    if dest in allowed:
        return dest
    fits = [a for a in allowed if province_of(a) == province_of(dest)]
    if len(fits) == 1 and (dest == province_of(dest) or "/" not in fits[0]):
        return fits[0]
    return None
