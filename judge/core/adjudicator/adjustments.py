"""Adjustment (winter) phases: builds, removals and waives, one order at a time.

Orders are taken in the order given (DATC 4.D.4–4.D.6): builds beyond the allowance, a second
build in one province, or removals beyond what is owed are refused.  Builds go only to vacant
home centres the power still owns (with the BUILD_ANY game rule, ``build_any``: to any vacant
centre it owns).  Missing builds are waived; missing removals follow the
civil-disorder rule (:mod:`.civil_disorder`).
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.core.adjudicator.binding import OrdersIn, parse_lines
from judge.core.adjudicator.civil_disorder import civil_disorder_removals, random_removals
from judge.core.board import Position, Unit
from judge.core.maps import ARMY, FLEET, Map
from judge.core.orders import Build, OrderError, Remove, UnitSpec, Waive
from judge.core.phases import ADJUSTMENTS
from judge.core.results import BUILD, INVALID, REMOVE, WAIVE, OrderResult


@dataclass(frozen=True)
class AdjustmentOutcome:
    results: tuple[OrderResult, ...]
    units: tuple[Unit, ...]


def adjustment_delta(pos: Position, power: str) -> int:
    """Builds owed (positive) or removals owed (negative) for a power."""
    return len(pos.centers.get(power, ())) - sum(1 for u in pos.units if u.power == power)


def buildable_centers(pos: Position, power: str, build_any: bool = False) -> list[str]:
    """Vacant home centres the power owns (any vacant owned centre with ``build_any``)."""
    occupied = {u.province for u in pos.units}
    owned = pos.centers.get(power, frozenset())
    where = sorted(owned) if build_any else pos.map.powers[power].home_centers
    return [c for c in where if c in owned and c not in occupied]


def adjustments_needed(pos: Position, build_any: bool = False) -> bool:
    """Whether any power has something to do in the adjustment phase."""
    for power in pos.map.powers:
        delta = adjustment_delta(pos, power)
        if delta < 0 or (delta > 0 and buildable_centers(pos, power, build_any)):
            return True
    return False


def build_unit(m: Map, pos: Position, power: str, spec: UnitSpec, taken: set[str],
               build_any: bool = False) -> Unit | str:
    """The unit a build makes, or why it cannot be built (``taken``: occupied provinces)."""
    prov = spec.province
    p = m.provinces[prov]
    if build_any and prov not in m.supply_centers:
        return f"{p.name} is not a supply centre"
    if not build_any and prov not in m.powers[power].home_centers:
        return f"{p.name} is not a home centre of {power.capitalize()}"
    if prov not in pos.centers.get(power, ()):
        return f"{p.name} is not owned by {power.capitalize()}"
    if prov in taken:
        return f"{p.name} is occupied"
    kind = spec.kind
    if kind is None:  # DATC 4.C.3: army inland; fleet only when a coast says so
        if p.kind == "land":
            kind = ARMY
        elif spec.location != prov:
            kind = FLEET
        else:
            return f"say whether to build an army or a fleet in {p.name}"
    if kind == ARMY:
        return Unit(power, ARMY, prov) if p.kind in ("land", "coast") else "armies cannot go to sea"
    if p.kind != "coast":
        return f"a fleet cannot be built in {p.name}"
    if p.coasts and spec.location not in m.locations(prov):
        return f"say which coast of {p.name} (" + ", ".join(m.locations(prov)) + ")"
    return Unit(power, FLEET, spec.location if p.coasts else prov)


def adjudicate_adjustments(pos: Position, orders: OrdersIn, build_any: bool = False,
                           random_removals_seed: str | None = None) -> AdjustmentOutcome:
    """``random_removals_seed`` (the CIVIL_DISORDER game rule) chooses the removals a power
    did not order at random, keeping units on centres, instead of by the 2023 rule."""
    m = pos.map
    units = {u.province: u for u in pos.units}
    taken = set(units)
    results: list[OrderResult] = []
    built: dict[str, int] = {}
    removed: dict[str, int] = {}
    for power, items in orders.items():
        delta = adjustment_delta(pos, power) if power in m.powers else 0
        for text, o in parse_lines(m, items, ADJUSTMENTS):
            if isinstance(o, OrderError):
                results.append(OrderResult(power, None, None, text, INVALID, message=o.message))
                continue
            used_b, used_r = built.get(power, 0), removed.get(power, 0)
            if isinstance(o, (Build, Waive)):
                if delta <= 0 or used_b >= delta:
                    why = "no builds available" if delta <= 0 else "all builds already used"
                    results.append(OrderResult(power, None, o, text, INVALID, message=why))
                    continue
                if isinstance(o, Waive):
                    built[power] = used_b + 1
                    results.append(OrderResult(power, None, o, text, WAIVE))
                    continue
                got = build_unit(m, pos, power, o.unit, taken, build_any)
                if isinstance(got, str):
                    results.append(OrderResult(power, None, o, text, INVALID, message=got))
                    continue
                built[power] = used_b + 1
                taken.add(got.province)
                units[got.province] = got
                results.append(OrderResult(power, got, o, text, BUILD))
            elif isinstance(o, Remove):
                u = units.get(o.unit.province)
                if delta >= 0 or used_r >= -delta:
                    why = "no removals owed" if delta >= 0 else "all removals already made"
                    results.append(OrderResult(power, u, o, text, INVALID, message=why))
                elif u is None or u.power != power or u.province not in {
                        x.province for x in pos.units}:
                    results.append(OrderResult(power, None, o, text, INVALID,
                                               message="no unit of yours there"))
                else:
                    removed[power] = used_r + 1
                    del units[u.province]
                    results.append(OrderResult(power, u, o, text, REMOVE))
            else:
                results.append(OrderResult(power, None, o, text, INVALID,
                                           message="only builds, removals and waives now"))

    for power in m.powers:
        delta = adjustment_delta(pos, power)
        if delta > 0:
            for _ in range(delta - built.get(power, 0)):
                results.append(OrderResult(power, None, Waive(), "WAIVE", WAIVE, default=True))
        elif delta < 0:
            owed = -delta - removed.get(power, 0)
            mine = [u for u in units.values() if u.power == power]
            chosen = (random_removals(m, mine, owed, f"{random_removals_seed}:{power}")
                      if random_removals_seed is not None else
                      civil_disorder_removals(m, mine, pos.centers.get(power, frozenset()), owed))
            for u in chosen:
                del units[u.province]
                o = Remove(UnitSpec(u.kind, u.location))
                results.append(OrderResult(power, u, o, o.text(), REMOVE, default=True))
    return AdjustmentOutcome(tuple(results), tuple(sorted(units.values(),
                                                          key=lambda u: u.province)))
