"""The game map: provinces, coasts, adjacencies, supply centres and powers.

A map is loaded once from a JSON data file in ``judge/variants`` (``standard.json``) and kept as
an immutable :class:`Map`.  Locations are plain strings — a province code (``"PAR"``) or a
province code with a coast (``"STP/NC"``) — because the adjudicator does millions of lookups
and strings hash fast; the map precomputes every table the resolver needs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from judge.core.errors import InputError

# The variants' files, beside the package (judge/variants/): a path, not importlib.resources,
# whose import alone cost `judge adjudicate` a twentieth of its start-up.
_VARIANTS = Path(__file__).resolve().parent.parent / "variants"

ARMY = "A"
FLEET = "F"


@dataclass(frozen=True)
class Province:
    """One space of the board."""

    code: str
    name: str
    kind: str  # "land", "coast", "sea" or "impassable"
    supply_center: bool
    coasts: tuple[str, ...]  # ("NC", "SC") for split coasts, else ()
    aliases: tuple[str, ...]

    @property
    def is_sea(self) -> bool:
        return self.kind == "sea"


@dataclass(frozen=True)
class Power:
    """A great power with its home centres and 1901 units (as ``"A PAR"`` strings)."""

    name: str
    adjective: str
    letter: str
    home_centers: tuple[str, ...]
    starting_units: tuple[str, ...]


def province_of(location: str) -> str:
    """``"STP/NC"`` → ``"STP"``; ``"PAR"`` → ``"PAR"``."""
    return location.partition("/")[0]


def normalize_name(text: str) -> str:
    """Lower-case, drop dots and apostrophes, turn hyphens into spaces, squeeze blanks."""
    text = text.lower().replace(".", " ").replace("'", "").replace("-", " ")
    return " ".join(text.split())


@dataclass(frozen=True, eq=False)  # identity equality: maps are loaded once and cached
class Map:
    """An immutable map with precomputed adjacency tables (see module docstring)."""

    name: str
    title: str
    start_phase: str
    victory_centers: int
    provinces: Mapping[str, Province]
    powers: Mapping[str, Power]
    coast_names: Mapping[str, str]
    # army moves between provinces; fleet moves between locations (coast-specific)
    army_adj: Mapping[str, frozenset[str]]
    fleet_adj: Mapping[str, frozenset[str]]
    # province → provinces a fleet touches from any of its coasts (convoys, fleet supports)
    fleet_reach: Mapping[str, frozenset[str]]
    # province → every neighbour regardless of unit type (civil-disorder distances)
    any_adj: Mapping[str, frozenset[str]]
    # fleet location → {neighbouring province: the locations of it the fleet can enter}
    fleet_moves: Mapping[str, Mapping[str, tuple[str, ...]]]
    supply_centers: frozenset[str]
    names: Mapping[str, str] = field(repr=False)  # normalised name/alias/code → province

    # -- questions about places -------------------------------------------------------------
    def locations(self, province: str) -> tuple[str, ...]:
        """Every location of a province: its coasts if split, else the province itself."""
        p = self.provinces[province]
        return tuple(f"{province}/{c}" for c in p.coasts) if p.coasts else (province,)

    def is_location(self, location: str) -> bool:
        prov = province_of(location)
        return prov in self.provinces and (location == prov and not self.provinces[prov].coasts
                                           or location in self.locations(prov))

    def can_hold(self, kind: str, location: str) -> bool:
        """Whether a unit of this kind may stand at this exact location."""
        prov = province_of(location)
        p = self.provinces.get(prov)
        if p is None or p.kind == "impassable":
            return False
        if kind == ARMY:
            return location == prov and p.kind in ("land", "coast")
        if p.kind == "land":
            return False
        return location in self.locations(prov)

    def home_of(self, province: str) -> str | None:
        for power in self.powers.values():
            if province in power.home_centers:
                return power.name
        return None

    def location_text(self, location: str) -> str:
        """``"STP/NC"`` → ``"St Petersburg (north coast)"``."""
        prov = province_of(location)
        name = self.provinces[prov].name
        if location != prov:
            name += f" ({self.coast_names.get(location[4:], location[4:].lower())})"
        return name


_UNIT_RE = re.compile(r"^\s*([AF])\s+([A-Z]{3}(?:/[A-Z]{2})?)\s*$")


def parse_unit_code(text: str) -> tuple[str, str]:
    """``"F STP/NC"`` → ``("F", "STP/NC")``; raises :class:`InputError` on bad shape."""
    m = _UNIT_RE.match(text.upper()) if isinstance(text, str) else None
    if not m:
        raise InputError(f"bad unit {text!r}: expected like 'A PAR' or 'F STP/NC'")
    return m.group(1), m.group(2)


def _build(doc: dict) -> Map:
    provinces: dict[str, Province] = {}
    army_adj: dict[str, frozenset[str]] = {}
    fleet_adj: dict[str, frozenset[str]] = {}
    for code, p in doc["provinces"].items():
        coasts = tuple(p.get("coasts", {}))
        provinces[code] = Province(code, p["name"], p["type"], bool(p.get("supply_center")),
                                   coasts, tuple(p.get("aliases", ())))
        army_adj[code] = frozenset(p.get("army", ()))
        if coasts:
            for c, adj in p["coasts"].items():
                fleet_adj[f"{code}/{c}"] = frozenset(adj)
        elif p.get("fleet"):
            fleet_adj[code] = frozenset(p["fleet"])
    fleet_reach: dict[str, set[str]] = {code: set() for code in provinces}
    for loc, adj in fleet_adj.items():
        fleet_reach[province_of(loc)].update(province_of(a) for a in adj)
    any_adj = {code: frozenset(army_adj[code] | fleet_reach[code]) for code in provinces}
    fleet_moves: dict[str, dict[str, tuple[str, ...]]] = {}
    for loc, adj in fleet_adj.items():
        by_prov: dict[str, list[str]] = {}
        for a in sorted(adj):
            by_prov.setdefault(province_of(a), []).append(a)
        fleet_moves[loc] = {p: tuple(v) for p, v in by_prov.items()}
    powers = {
        name: Power(name, p["adjective"], p["letter"], tuple(p["home"]), tuple(p["units"]))
        for name, p in doc["powers"].items()
    }
    names: dict[str, str] = {}
    for code, p in provinces.items():
        for n in (code, p.name, *p.aliases):
            names.setdefault(normalize_name(n), code)
    return Map(
        name=doc["name"], title=doc.get("title", doc["name"]), start_phase=doc["start_phase"],
        victory_centers=int(doc.get("victory_centers", 18)),
        provinces=MappingProxyType(provinces), powers=MappingProxyType(powers),
        coast_names=MappingProxyType(dict(doc.get("coast_names", {}))),
        army_adj=MappingProxyType(army_adj), fleet_adj=MappingProxyType(fleet_adj),
        fleet_reach=MappingProxyType({k: frozenset(v) for k, v in fleet_reach.items()}),
        any_adj=MappingProxyType(any_adj),
        fleet_moves=MappingProxyType(fleet_moves),
        supply_centers=frozenset(c for c, p in provinces.items() if p.supply_center),
        names=MappingProxyType(names),
    )


@lru_cache(maxsize=None)
def load_map(name: str = "standard") -> Map:
    """Load (once) the map of a variant from ``judge/variants/<name>.json``.

    A variant played on another variant's board (Formal Diplomacy on the standard map) has a
    file that only names that map: ``{"name": "formal", "map": "standard"}``.
    """
    if not re.fullmatch(r"[a-z0-9_]+", name or ""):
        raise InputError(f"unknown variant {name!r}")
    try:
        text = (_VARIANTS / f"{name}.json").read_text("utf-8")
    except OSError:
        raise InputError(f"unknown variant {name!r}") from None
    doc = json.loads(text)
    if "map" in doc:
        if doc["map"] == name:
            raise InputError(f"variant {name!r} names itself as its map")
        return load_map(doc["map"])
    return _build(doc)
