"""Adjustment (winter) phases: builds, removals and waives, one order at a time.

Orders are taken in the order given (DATC 4.D.4–4.D.6): builds beyond the allowance, a second
build in one province, or removals beyond what is owed are refused.  Builds go only to vacant
home centres the power still owns (with the BUILD_ANY game rule, ``build_any``: to any vacant
centre it owns).  Missing builds are waived; missing removals follow the
civil-disorder rule (:mod:`.civil_disorder`).
"""

from __future__ import annotations

from judge.core.adjudicator.binding import OrdersIn, parse_lines
from judge.core.adjudicator.civil_disorder import (
    civil_disorder_removals,
    random_removals,
)
from judge.core.board import Position, Unit, unit_table
from judge.core.errors import OrderError
from judge.core.maps import ARMY, FLEET, Map
from judge.core.orders import Build, Order, Remove, UnitSpec, Waive
from judge.core.phases import ADJUSTMENTS
from judge.core.order_results import BUILD, INVALID, REMOVE, WAIVE, OrderResult, PhaseOutcome


def adjustment_delta(pos: Position, power: str) -> int:
    """Builds owed (positive) or removals owed (negative) for a power."""
    return len(pos.centers.get(power, ())) - sum(1 for u in pos.units if u.power == power)


def buildable_centers(pos: Position, power: str, build_any: bool = False) -> list[str]:
    """Vacant home centres the power owns (any vacant owned centre with ``build_any``)."""
    occupied = {u.province for u in pos.units}
    owned = pos.centers.get(power, frozenset())
    where = sorted(owned) if build_any else pos.map.powers[power].home_centers
    return [c for c in where if c in owned and c not in occupied]


def adjustments_owed(pos: Position, power: str, build_any: bool = False) -> int:
    """How many adjustment orders the power must give: its builds, as many as it has vacant
    centres to build in (the rest are waived), or its removals."""
    delta = adjustment_delta(pos, power)
    return min(delta, len(buildable_centers(pos, power, build_any))) if delta > 0 else -delta


def adjustments_needed(pos: Position, build_any: bool = False) -> bool:
    """Whether any power has something to do in the adjustment phase."""
    for power in pos.map.powers:
        delta = adjustment_delta(pos, power)
        if delta < 0 or (delta > 0 and buildable_centers(pos, power, build_any)):
            return True
    return False


def build_unit(m: Map, pos: Position, power: str, o: Build, taken: set[str],
               build_any: bool = False) -> Unit | OrderError:
    """The unit a build makes, or why it cannot be built (``taken``: occupied provinces)."""
    spec = o.unit
    prov = spec.province
    p = m.provinces[prov]
    if build_any and prov not in m.supply_centers:
        return OrderError(o.text(), f"{p.name} is not a supply centre")
    if not build_any and prov not in m.powers[power].home_centers:
        return OrderError(o.text(), f"{p.name} is not a home centre of {power.capitalize()}")
    if prov not in pos.centers.get(power, ()):
        return OrderError(o.text(), f"{p.name} is not owned by {power.capitalize()}")
    if prov in taken:
        return OrderError(o.text(), f"{p.name} is occupied")
    kind = _build_kind(m, spec)
    if kind is None:
        return OrderError(o.text(), f"say whether to build an army or a fleet in {p.name}")
    if kind == ARMY:
        if p.kind in ("land", "coast"):
            return unit_table(m)[power][f"{ARMY} {prov}"]
        return OrderError(o.text(), "armies cannot go to sea")
    if p.kind != "coast":
        return OrderError(o.text(), f"a fleet cannot be built in {p.name}")
    if p.coasts and spec.location not in m.locations(prov):
        return OrderError(o.text(), f"say which coast of {p.name} ("
                          + ", ".join(m.locations(prov)) + ")")
    return unit_table(m)[power][f"{FLEET} {spec.location if p.coasts else prov}"]


def _build_kind(m: Map, spec: UnitSpec) -> str | None:
    """The kind of unit a build makes: as written, else (DATC 4.C.3) an army inland and a
    fleet when a coast is named; ``None`` when it cannot be told."""
    if spec.kind is not None:
        return spec.kind
    if m.provinces[spec.province].kind == "land":
        return ARMY
    return FLEET if spec.location != spec.province else None


def adjudicate_adjustments(pos: Position, orders: OrdersIn, build_any: bool = False,
                           random_removals_seed: str | None = None) -> PhaseOutcome:
    """Take each power's orders one at a time in the order given, then supply what is still
    owed: waives for missing builds, removals for missing removals.

    ``random_removals_seed`` (the CIVIL_DISORDER game rule) chooses the removals a power
    did not order at random, keeping units on centres, instead of by the 2023 rule."""
    ledger = _Ledger(pos, build_any)
    for power, items in orders.items():
        for text, o in parse_lines(pos.map, items, ADJUSTMENTS):
            ledger.take(power, text, o)
    for power in pos.map.powers:
        ledger.settle(power, random_removals_seed)
    return PhaseOutcome(tuple(ledger.results),
                             tuple(ledger.units[p] for p in sorted(ledger.units)))


class _Ledger:
    """The units of an adjustment phase as orders are taken, and what each power has used."""

    def __init__(self, pos: Position, build_any: bool) -> None:
        self.pos, self.m, self.build_any = pos, pos.map, build_any
        self.units = {u.province: u for u in pos.units}
        self.at_start = frozenset(self.units)  # units built in this phase are not removable
        self.taken = set(self.units)  # provinces occupied, builds included
        self.results: list[OrderResult] = []
        self.built: dict[str, int] = {}  # builds and waives used, per power
        self.removed: dict[str, int] = {}

    def _delta(self, power: str) -> int:
        return adjustment_delta(self.pos, power) if power in self.m.powers else 0

    def _refuse(self, power: str, unit: Unit | None, o: Order | None, text: str,
                why: str) -> None:
        self.results.append(OrderResult(power, unit, o, text, INVALID, message=why))

    def take(self, power: str, text: str, o: Order | OrderError) -> None:
        """One order line of ``power`` (DATC 4.D.4–4.D.7)."""
        if isinstance(o, OrderError):
            self._refuse(power, None, None, text, o.message)
        elif isinstance(o, (Build, Waive)):
            self._build(power, text, o)
        elif isinstance(o, Remove):
            self._remove(power, text, o)
        else:
            self._refuse(power, None, o, text, "only builds, removals and waives now")

    def _build(self, power: str, text: str, o: Build | Waive) -> None:
        delta, used = self._delta(power), self.built.get(power, 0)
        if delta <= 0 or used >= delta:
            why = "no builds available" if delta <= 0 else "all builds already used"
            return self._refuse(power, None, o, text, why)
        if isinstance(o, Waive):
            self.built[power] = used + 1
            self.results.append(OrderResult(power, None, o, text, WAIVE))
            return None
        got = build_unit(self.m, self.pos, power, o, self.taken, self.build_any)
        if isinstance(got, OrderError):
            return self._refuse(power, None, o, text, got.message)
        self.built[power] = used + 1
        self.taken.add(got.province)
        self.units[got.province] = got
        self.results.append(OrderResult(power, got, o, text, BUILD))
        return None

    def _remove(self, power: str, text: str, o: Remove) -> None:
        delta, used = self._delta(power), self.removed.get(power, 0)
        u = self.units.get(o.unit.province)
        if delta >= 0 or used >= -delta:
            why = "no removals owed" if delta >= 0 else "all removals already made"
            return self._refuse(power, u, o, text, why)
        if u is None or u.power != power or u.province not in self.at_start:
            return self._refuse(power, None, o, text, "no unit of yours there")
        self.removed[power] = used + 1
        del self.units[u.province]
        self.results.append(OrderResult(power, u, o, text, REMOVE))
        return None

    def settle(self, power: str, random_seed: str | None) -> None:
        """Waive the builds ``power`` left unused; remove the units it still owes (DATC 4.D.8,
        or at random with the CIVIL_DISORDER rule's seed)."""
        delta = adjustment_delta(self.pos, power)
        if delta > 0:
            for _ in range(delta - self.built.get(power, 0)):
                self.results.append(OrderResult(power, None, Waive(), "WAIVE", WAIVE,
                                                default=True))
        elif delta < 0:
            for u in self._removals(power, -delta - self.removed.get(power, 0), random_seed):
                del self.units[u.province]
                o = Remove(UnitSpec(u.kind, u.location))
                self.results.append(OrderResult(power, u, o, o.text(), REMOVE, default=True))

    def _removals(self, power: str, owed: int, random_seed: str | None) -> list[Unit]:
        mine = [u for u in self.units.values() if u.power == power]
        if random_seed is not None:
            return random_removals(self.m, mine, owed, f"{random_seed}:{power}")
        return civil_disorder_removals(self.m, mine, self.pos.centers.get(power, frozenset()),
                                       owed)
