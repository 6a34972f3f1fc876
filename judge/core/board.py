"""Board positions: units, dislodged units and supply-centre ownership at one phase.

A :class:`Position` is immutable; adjudication returns a new one.  Helpers here answer the
questions the service layer asks about a position: centre counts, survivors, victory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

import msgspec

from judge.core.errors import InputError
from judge.core.maps import ARMY, FLEET, Map, parse_unit_code, province_of
from judge.core.phases import RETREATS, Phase


class Unit(msgspec.Struct, frozen=True, order=True):
    """A unit: owning power, kind (``"A"``/``"F"``) and location (``"PAR"``, ``"STP/NC"``).

    A frozen value (msgspec builds it in C); units of a map's places come from
    :func:`unit_table`, made once.  ``province`` and ``code`` are derived from the location
    when the unit is made (whatever is given for them): the resolver asks for the province
    constantly, the JSON contract for the code.
    """

    power: str
    kind: str
    location: str
    province: str = ""  # "STP" for "STP/NC"
    code: str = ""  # "F STP/NC": the form used by the JSON contract

    def __post_init__(self) -> None:
        msgspec.structs.force_setattr(self, "province", province_of(self.location))
        msgspec.structs.force_setattr(self, "code", f"{self.kind} {self.location}")

    def __repr__(self) -> str:  # what makes the unit, not what is derived from it
        return f"Unit(power={self.power!r}, kind={self.kind!r}, location={self.location!r})"

    def text(self, m: Map) -> str:
        """``"Fleet St Petersburg (north coast)"``: the classic Judge wording."""
        return ("Army " if self.kind == ARMY else "Fleet ") + m.location_text(self.location)


@cache
def unit_table(m: Map) -> Mapping[str, Mapping[str, Unit]]:
    """Every unit that can stand on the map: power → code (``"A PAR"``, ``"F STP/NC"``) → unit.

    Positions are built and moves carried out by looking units up here: a lookup costs less
    than checking a code and making the unit, and the unit's derived values are computed once.
    """
    locations = [loc for p in m.provinces for loc in dict.fromkeys((p, *m.locations(p)))]
    return MappingProxyType({
        power: MappingProxyType({f"{kind} {loc}": Unit(power, kind, loc)
                                 for kind in (ARMY, FLEET) for loc in locations
                                 if m.can_hold(kind, loc)})
        for power in m.powers})


@dataclass(frozen=True)
class Dislodged:
    """A dislodged unit awaiting its retreat, with the locations it may retreat to."""

    unit: Unit
    retreats: tuple[str, ...]
    # province the dislodging unit came from: information only, not part of the board
    attacker_from: str | None = field(default=None, compare=False)


class Position(msgspec.Struct, frozen=True, gc=False):
    """Everything needed to adjudicate a phase except the orders.

    A frozen value (msgspec): one or two are made for every phase adjudicated.  The map is
    where the board is, not part of it: equality and ``repr`` leave it out.
    """

    map: Map
    phase: Phase
    units: tuple[Unit, ...]
    centers: Mapping[str, frozenset[str]]  # power → owned centres (read-only)
    dislodged: tuple[Dislodged, ...] = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (self.phase, self.units, self.centers, self.dislodged) == (
            other.phase, other.units, other.centers, other.dislodged)

    def __repr__(self) -> str:
        return (f"Position(phase={self.phase!r}, units={self.units!r}, "
                f"centers={self.centers!r}, dislodged={self.dislodged!r})")

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
        """Powers that own a centre or have a unit, in map order."""
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
    placed = _place_units(m, units)
    if centers is None:
        centers = {p.name: p.home_centers for p in m.powers.values()}
    owned = _owners(m, centers)
    # units and dislodged units in province order, as the adjudicator makes them (most
    # positions have no dislodged units: nothing to check or sort)
    dis = _dislodged_units(m, ph, dislodged, placed) if dislodged else ()
    return Position(m, ph, tuple(map(placed.__getitem__, sorted(placed))),
                    MappingProxyType(owned), dis)


def _place_units(m: Map, units: Mapping[str, Iterable[str]]) -> dict[str, Unit]:
    """Province → unit, every code checked, two units in one province refused."""
    placed: dict[str, Unit] = {}
    table = unit_table(m)
    for power, codes in units.items():
        if power not in m.powers:
            raise _unknown_power(m, power)
        known = table[power]
        for code in codes:
            # the usual spelling is looked up; anything else (another spelling, a unit that
            # cannot be, a value that is no string) is read and checked
            try:
                u = known[code]
            except (KeyError, TypeError):
                u = _make_unit(m, power, code)
            p = u.province
            if p in placed:
                raise InputError(f"two units in {p}: {placed[p].code} and {u.code}")
            placed[p] = u
    return placed


def _owners(m: Map, centers: Mapping[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """Power → the centres it owns (powers owning none left out), every centre checked."""
    owned: dict[str, frozenset[str]] = {}
    taken: set[str] = set()
    for power, given in centers.items():
        if power not in m.powers:
            raise _unknown_power(m, power)
        try:
            mine = frozenset(given)
        except TypeError:  # something unhashable: the careful reading says what
            return _owners_read_one_by_one(m, centers)
        # centres in the usual spelling owned by nobody else, checked at once
        if not (mine <= m.supply_centers and taken.isdisjoint(mine)):
            return _owners_read_one_by_one(m, centers)
        taken |= mine
        if mine:
            owned[power] = mine
    return owned


def _owners_read_one_by_one(m: Map, centers: Mapping[str, Iterable[str]]
                            ) -> dict[str, frozenset[str]]:
    owner: dict[str, str] = {}
    for power, given in centers.items():
        if power not in m.powers:
            raise _unknown_power(m, power)
        for c in given:
            c = str(c).upper()
            if c not in m.supply_centers:
                raise InputError(f"{c!r} is not a supply centre")
            if owner.setdefault(c, power) != power:
                raise InputError(f"centre {c} owned by both {owner[c]} and {power}")
    owned: dict[str, set[str]] = {}
    for c, p in owner.items():
        owned.setdefault(p, set()).add(c)
    return {p: frozenset(cs) for p, cs in owned.items()}


def _dislodged_units(m: Map, ph: Phase, dislodged: Mapping[str, Mapping[str, Iterable[str]]],
                     placed: Mapping[str, Unit]) -> tuple[Dislodged, ...]:
    """The dislodged units with their retreats checked (retreat phases only), by province."""
    dis: list[Dislodged] = []
    for power, entries in dislodged.items():
        if power not in m.powers:
            raise _unknown_power(m, power)
        if not isinstance(entries, Mapping):
            raise InputError(f"dislodged units of {power} must map unit to retreats")
        for code, retreats in entries.items():
            u = _make_unit(m, power, code)
            if any(d.unit.province == u.province for d in dis):
                raise InputError(f"two dislodged units in {u.province}")
            locs = tuple(_check_retreat_option(m, u, str(r).upper(), placed) for r in retreats)
            if locs or ph.type == RETREATS:
                dis.append(Dislodged(u, locs))
    if dis and ph.type != RETREATS:
        raise InputError("dislodged units with retreats are only for retreat phases")
    return tuple(sorted(dis, key=lambda d: d.unit.province))


def initial_position(m: Map) -> Position:
    """The 1901 starting position of a map."""
    return make_position(m, m.start_phase, {p.name: p.starting_units for p in m.powers.values()})


def _check_retreat_option(m: Map, u: Unit, loc: str, occupied: Mapping[str, Unit]) -> str:
    """``loc`` if the dislodged unit ``u`` could retreat there, else :class:`InputError`.

    An army's retreat is written with the bare province (``BUL``), a fleet's with the coast it
    reaches (``BUL/EC``): exactly the locations the unit could stand on and move to.
    """
    prov = province_of(loc)
    if prov not in m.provinces or not m.can_hold(u.kind, loc):
        raise InputError(f"{u.code} cannot retreat to {loc!r}: no such place for "
                         f"{'an army' if u.kind == ARMY else 'a fleet'}")
    near = m.army_adj[u.province] if u.kind == ARMY else m.fleet_adj.get(u.location, ())
    if loc not in near:
        raise InputError(f"{u.code} cannot retreat to {loc}: not adjacent")
    if prov in occupied:
        raise InputError(f"{u.code} cannot retreat to {loc}: {occupied[prov].code} is there")
    return loc


def _unknown_power(m: Map, power: str) -> InputError:
    return InputError(f"unknown power {power!r} (powers: {', '.join(m.powers)})")


def _make_unit(m: Map, power: str, code: str) -> Unit:
    kind, loc = parse_unit_code(code)
    prov = province_of(loc)
    if prov not in m.provinces:
        raise InputError(f"unknown province {prov!r} in unit {code!r}")
    if kind == FLEET and loc == prov and m.provinces[prov].coasts:
        raise InputError(f"fleet in {prov} needs a coast, e.g. {m.locations(prov)[0]}")
    if not m.can_hold(kind, loc):
        raise InputError(f"a {'fleet' if kind == FLEET else 'army'} cannot stand in {loc}")
    return unit_table(m)[power][f"{kind} {loc}"]
