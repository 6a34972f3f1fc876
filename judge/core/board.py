"""Board positions: units, dislodged units and supply-centre ownership at one phase.

A :class:`Position` is immutable; adjudication returns a new one.  Helpers here answer the
questions the service layer asks about a position: centre counts, survivors, victory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Callable, Iterable, Mapping

from judge.core._frozen import draft_builder, slot_setters
from judge.core.errors import InputError
from judge.core.maps import ARMY, FLEET, Map, parse_unit_code, province_of
from judge.core.phases import Phase


@dataclass(frozen=True, order=True, slots=True, init=False)
class Unit:
    """A unit: owning power, kind (``"A"``/``"F"``) and location (``"PAR"``, ``"STP/NC"``)."""

    power: str
    kind: str
    location: str
    # derived, stored once: the resolver asks for it constantly
    province: str = field(init=False, repr=False, compare=False)

    def __init__(self, power: str, kind: str, location: str) -> None:
        # built for every moving unit of every phase: slot setters (see _frozen)
        s_power, s_kind, s_location, s_province = _SET_UNIT
        s_power(self, power)
        s_kind(self, kind)
        s_location(self, location)
        s_province(self, location.partition("/")[0])

    @property
    def code(self) -> str:
        """``"F STP/NC"``: the form used by the JSON contract."""
        return f"{self.kind} {self.location}"

    def text(self, m: Map) -> str:
        """``"Fleet St Petersburg (north coast)"``: the classic Judge wording."""
        return ("Army " if self.kind == ARMY else "Fleet ") + m.location_text(self.location)


_SET_UNIT = slot_setters(Unit, "power", "kind", "location", "province")


@lru_cache(maxsize=None)
def unit_values(m: Map) -> Mapping[tuple[str, str, str], Unit]:
    """Every unit that can stand on the map, by ``(power, kind, location)``.

    Units are immutable values, so the adjudicator takes the unit a move leaves behind from
    this per-map table rather than building it: a lookup costs a fraction of an ``__init__``.
    """
    locations = [loc for p in m.provinces for loc in {p, *m.locations(p)}]
    return MappingProxyType({(power, kind, loc): Unit(power, kind, loc)
                             for power in m.powers for kind in (ARMY, FLEET)
                             for loc in locations if m.can_hold(kind, loc)})


@dataclass(frozen=True)
class Dislodged:
    """A dislodged unit awaiting its retreat, with the locations it may retreat to."""

    unit: Unit
    retreats: tuple[str, ...]
    attacker_from: str | None = None  # province the dislodging unit came from (information)


@dataclass(frozen=True, slots=True)
class Position:
    """Everything needed to adjudicate a phase except the orders."""

    map: Map = field(repr=False, compare=False)
    phase: Phase
    units: tuple[Unit, ...]
    centers: Mapping[str, frozenset[str]]  # power → owned centres (read-only)
    dislodged: tuple[Dislodged, ...] = ()

    # -- queries ------------------------------------------------------------------------------
    def unit_at(self, province: str) -> Unit | None:
        for u in self.units:
            if u.province == province:
                return u
        return None

    def units_of(self, power: str) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.power == power)

    def owner_of(self, center: str) -> str | None:
        for power, owned in self.centers.items():
            if center in owned:
                return power
        return None

    def center_counts(self) -> dict[str, int]:
        """Centres owned per power, every power of the map listed."""
        return {p: len(self.centers.get(p, ())) for p in self.map.powers}

    def survivors(self) -> tuple[str, ...]:
        """Powers that own a centre or have a unit (DESIGN §5), in map order."""
        alive = {u.power for u in self.units} | {p for p, c in self.centers.items() if c}
        alive |= {d.unit.power for d in self.dislodged}
        return tuple(p for p in self.map.powers if p in alive)

    def winner(self) -> str | None:
        """The power with at least ``victory_centers`` centres and strictly more than anyone."""
        counts = sorted(self.center_counts().items(), key=lambda kv: -kv[1])
        if not counts or counts[0][1] < self.map.victory_centers:
            return None
        if len(counts) > 1 and counts[1][1] == counts[0][1]:
            return None
        return counts[0][0]


# the adjudicator makes the next position of every phase (see _frozen)
build_position: Callable[..., Position] = draft_builder(Position)


def freeze_centers(centers: Mapping[str, Iterable[str]]) -> Mapping[str, frozenset[str]]:
    return MappingProxyType({p: frozenset(c) for p, c in centers.items()})


def make_position(
    m: Map,
    phase: str | Phase,
    units: Mapping[str, Iterable[str]],
    centers: Mapping[str, Iterable[str]] | None = None,
    dislodged: Mapping[str, Mapping[str, Iterable[str]]] | None = None,
) -> Position:
    """Build and check a position from plain codes (``{"FRANCE": ["A PAR", "F STP/NC"]}``).

    ``centers`` defaults to each power's home centres; ``dislodged`` maps power → unit →
    legal retreat locations.  Raises :class:`InputError` on anything inconsistent.
    """
    ph = phase if isinstance(phase, Phase) else Phase.parse(phase)
    seen: dict[str, Unit] = {}
    for power, codes in units.items():
        _check_power(m, power)
        for code in codes:
            u = _make_unit(m, power, code)
            if u.province in seen:
                raise InputError(f"two units in {u.province}: {seen[u.province].code} and {u.code}")
            seen[u.province] = u
    if centers is None:
        centers = {p.name: p.home_centers for p in m.powers.values()}
    owner: dict[str, str] = {}
    for power, owned in centers.items():
        _check_power(m, power)
        for c in owned:
            c = str(c).upper()
            if c not in m.supply_centers:
                raise InputError(f"{c!r} is not a supply centre")
            if c in owner and owner[c] != power:
                raise InputError(f"centre {c} owned by both {owner[c]} and {power}")
            owner[c] = power
    dis: list[Dislodged] = []
    for power, entries in (dislodged or {}).items():
        _check_power(m, power)
        if not isinstance(entries, Mapping):
            raise InputError(f"dislodged units of {power} must map unit to retreats")
        for code, retreats in entries.items():
            u = _make_unit(m, power, code)
            locs = []
            for r in retreats:
                r = str(r).upper()
                if not m.is_location(r):
                    raise InputError(f"unknown retreat location {r!r} for {u.code}")
                locs.append(r)
            dis.append(Dislodged(u, tuple(locs)))
    fixed: dict[str, set[str]] = {}
    for c, p in owner.items():
        fixed.setdefault(p, set()).add(c)
    return Position(m, ph, tuple(sorted(seen.values(), key=lambda u: u.province)),
                    freeze_centers(fixed), tuple(dis))


def initial_position(m: Map) -> Position:
    """The 1901 starting position of a map."""
    return make_position(m, m.start_phase, {p.name: p.starting_units for p in m.powers.values()})


def _check_power(m: Map, power: str) -> None:
    if power not in m.powers:
        raise InputError(f"unknown power {power!r} (powers: {', '.join(m.powers)})")


def _make_unit(m: Map, power: str, code: str) -> Unit:
    kind, loc = parse_unit_code(code)
    prov = province_of(loc)
    if prov not in m.provinces:
        raise InputError(f"unknown province {prov!r} in unit {code!r}")
    if kind == FLEET and loc == prov and m.provinces[prov].coasts:
        raise InputError(f"fleet in {prov} needs a coast, e.g. {m.locations(prov)[0]}")
    if not m.can_hold(kind, loc):
        raise InputError(f"a {'fleet' if kind == FLEET else 'army'} cannot stand in {loc}")
    return Unit(power, kind, loc)
