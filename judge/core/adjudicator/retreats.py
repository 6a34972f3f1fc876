"""Retreat phases: dislodged units retreat or disband.

A retreat must go to one of the unit's recorded legal retreats; two retreats to the same
province both fail and both units disband; a unit without a (valid) order disbands.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.core.adjudicator.binding import OrdersIn, parse_lines
from judge.core.board import Dislodged, Position, Unit
from judge.core.maps import Map, province_of
from judge.core.orders import Disband, OrderError, Retreat, UnitSpec, Waive
from judge.core.phases import RETREATS
from judge.core.results import BOUNCE, DISBAND, INVALID, OK, OrderResult


@dataclass(frozen=True)
class RetreatOutcome:
    results: tuple[OrderResult, ...]
    units: tuple[Unit, ...]


def adjudicate_retreats(pos: Position, orders: OrdersIn) -> RetreatOutcome:
    m = pos.map
    by_prov = {d.unit.province: d for d in pos.dislodged}
    results: list[OrderResult] = []
    chosen: dict[str, tuple[str, Retreat | Disband]] = {}
    for power, items in orders.items():
        for text, o in parse_lines(m, items, RETREATS):
            if isinstance(o, OrderError):
                results.append(OrderResult(power, None, None, text, INVALID, message=o.message))
                continue
            if not isinstance(o, (Retreat, Disband)) or isinstance(o, Waive):
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

    targets: dict[str, list[str]] = {}
    valid: dict[str, str] = {}
    why: dict[str, str] = {}
    for prov, (_, o) in chosen.items():
        if isinstance(o, Retreat):
            d = by_prov[prov]
            msg = check_retreat(m, d, o.dest)
            if msg is not None:
                why[prov] = msg
            else:
                dest = _match_retreat(o.dest, d.retreats)
                assert dest is not None
                valid[prov] = dest
                targets.setdefault(province_of(dest), []).append(prov)

    units = list(pos.units)
    for prov, d in sorted(by_prov.items()):
        if prov not in chosen:
            o = Disband(UnitSpec(d.unit.kind, d.unit.location))
            results.append(OrderResult(d.unit.power, d.unit, o, o.text(), DISBAND, default=True))
            continue
        text, o = chosen[prov]
        if prov in why:
            results.append(OrderResult(d.unit.power, d.unit, o, text, INVALID, message=why[prov]))
        elif isinstance(o, Disband):
            results.append(OrderResult(d.unit.power, d.unit, o, text, DISBAND))
        elif len(targets[province_of(valid[prov])]) > 1:
            results.append(OrderResult(d.unit.power, d.unit, o, text, BOUNCE))
        else:
            units.append(Unit(d.unit.power, d.unit.kind, valid[prov]))
            results.append(OrderResult(d.unit.power, d.unit, o, text, OK))
    return RetreatOutcome(tuple(results), tuple(sorted(units, key=lambda u: u.province)))


def check_retreat(m: Map, d: Dislodged, dest: str) -> str | None:
    """``None`` if the dislodged unit may retreat to ``dest``, else the reason it may not."""
    if _match_retreat(dest, d.retreats) is not None:
        return None
    where = ", ".join(m.location_text(x) for x in d.retreats) or "nowhere"
    return (f"the {d.unit.text(m)} cannot retreat to {m.location_text(dest)}; it may retreat"
            f" to {where}")


def _match_retreat(dest: str, allowed: tuple[str, ...]) -> str | None:
    """The allowed location an order names; a bare province suffices if only one coast fits."""
    if dest in allowed:
        return dest
    fits = [a for a in allowed if province_of(a) == province_of(dest)]
    if len(fits) == 1 and (dest == province_of(dest) or "/" not in fits[0]):
        return fits[0]
    return None
