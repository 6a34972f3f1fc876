"""Legality of movement orders against a board (DATC 4.E.1), before any resolution.

An illegal order is ignored and its unit holds.  "Legal" means the order could be valid
knowing the position but not the other orders: a convoy route is legal when fleets stand on
a chain of seas that could carry the army, whatever they are ordered to do.  An illegal order
gets an :class:`OrderError` saying why (the core's one refusal).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from judge.core.board import Unit
from judge.core.errors import OrderError
from judge.core.maps import ARMY, FLEET, Map, province_of
from judge.core.orders import Convoy, Move, Support


class Destination(NamedTuple):
    """Where a legal move goes."""

    location: str  # "STP/NC"
    province: str  # "STP"
    convoyed: bool


class ConvoyGeometry:
    """Which seas could carry an army from one coast to another, given the fleets at sea.

    Built for every movement phase but asked only about convoys and supports of convoyed
    moves, so the fleets at sea are found on the first question, not before.
    """

    def __init__(self, m: Map, units: Iterable[Unit]) -> None:
        self.m = m
        self._units = units
        self._fleet_seas: frozenset[str] | None = None
        self._cache: dict[str, frozenset[str]] = {}
        self._routes: dict[str, list[frozenset[str]]] = {}

    @property
    def fleet_seas(self) -> frozenset[str]:
        if self._fleet_seas is None:
            provinces = self.m.provinces
            self._fleet_seas = frozenset(u.province for u in self._units
                                         if u.kind == FLEET and provinces[u.province].is_sea)
        return self._fleet_seas

    def seas_from(self, coast: str) -> frozenset[str]:
        """Fleet-held seas connected to a coastal province through fleet-held seas."""
        got = self._cache.get(coast)
        if got is None:
            reach, fleet_seas = self.m.fleet_reach, self.fleet_seas
            frontier = [s for s in reach[coast] if s in fleet_seas]
            seen = set(frontier)
            while frontier:
                for nxt in reach[frontier.pop()]:
                    if nxt in fleet_seas and nxt not in seen:
                        seen.add(nxt)
                        frontier.append(nxt)
            got = self._cache[coast] = frozenset(seen)
        return got

    def possible(self, src: str, dest: str) -> bool:
        if src == dest or not (self._coastal(src) and self._coastal(dest)):
            return False
        return bool(self.seas_from(src) & self.seas_from(dest))

    def possible_without(self, src: str, dest: str, sea: str) -> bool:
        """A convoy route that does not use the fleet in ``sea`` (it cannot also support)."""
        return any(sea not in route for route in self.routes(src, dest))

    def on_route(self, sea: str, src: str, dest: str) -> bool:
        """Whether the fleet in ``sea`` is needed by some convoy route (DATC 6.G.19)."""
        return any(sea in route for route in self.routes(src, dest))

    def routes(self, src: str, dest: str) -> list[frozenset[str]]:
        """Minimal convoy routes (no fleet can be skipped) from ``src`` to ``dest``."""
        key = src + dest
        got = self._routes.get(key)
        if got is None:
            got = self._routes[key] = self._find_routes(src, dest) if self.possible(src, dest) else []
        return got

    def _find_routes(self, src: str, dest: str) -> list[frozenset[str]]:
        # induced paths src → seas → dest: a sea touching an earlier stop would be a shortcut
        reach, fleet_seas, found = self.m.fleet_reach, self.fleet_seas, []

        def extend(path: list[str]) -> None:
            last = path[-1]
            for sea in reach[last]:
                if sea not in fleet_seas or sea in path:
                    continue
                if any(stop in reach[sea] for stop in path[:-1]):
                    continue
                if dest in reach[sea]:
                    found.append(frozenset(path[1:] + [sea]))
                else:
                    extend(path + [sea])

        extend([src])
        return found

    def _coastal(self, prov: str) -> bool:
        return self.m.provinces[prov].kind == "coast"


def convoy_geometry(m: Map, units: Iterable[Unit]) -> ConvoyGeometry:
    """The convoy geometry of a board: every fleet at sea could carry an army."""
    return ConvoyGeometry(m, units)


def fleet_destination(m: Map, unit: Unit, o: Move) -> Destination | OrderError:
    """Where a fleet's move goes (DATC 4.B.1–4.B.3), or why it cannot."""
    dest = o.dest
    prov = province_of(dest)
    reachable = m.fleet_moves.get(unit.location, {}).get(prov, ())
    here = m.location_text(unit.location)
    if not reachable:
        return _refuse(o, f"a fleet in {here} cannot reach {m.provinces[prov].name}")
    if dest != prov:
        if dest in reachable:
            return Destination(dest, prov, False)
        return _refuse(o, f"a fleet in {here} cannot reach {m.location_text(dest)}")
    if len(reachable) > 1:
        return _refuse(o, f"say which coast of {m.provinces[prov].name} ("
                       + ", ".join(reachable) + ")")
    return Destination(reachable[0], prov, False)


def can_reach(m: Map, unit: Unit, prov: str) -> bool:
    """Whether a unit could move to a province by itself (what it may support into)."""
    if unit.kind == ARMY:
        return prov in m.army_adj[unit.province]
    return prov in m.fleet_moves.get(unit.location, ())


_PlainMoves = dict[str, dict[str, dict[str, Destination]]]
_plain_moves_of: dict[Map, _PlainMoves] = {}  # by map: a dict lookup, cheaper than lru_cache


def _plain_moves(m: Map) -> _PlainMoves:
    """Build and keep (once per map) kind → unit location → destination as written →
    a :class:`Destination` for the moves a unit makes by itself: an army to a neighbouring
    province (when it asks for no convoy), a fleet to a coast it reaches, or to a province
    it reaches by one coast only (4.B.2).

    Most moves of a phase are these: one lookup answers what :func:`check_move` works out.
    """
    armies = {p: {q: Destination(q, q, False) for q in adj} for p, adj in m.army_adj.items()}
    fleets: dict[str, dict[str, Destination]] = {}
    for loc, by_province in m.fleet_moves.items():
        plain = fleets[loc] = {}
        for prov, reachable in by_province.items():
            if prov == loc.partition("/")[0]:
                continue
            if len(reachable) == 1:
                plain[prov] = Destination(reachable[0], prov, False)
            plain.update((r, Destination(r, prov, False)) for r in reachable if r != prov)
    table = _plain_moves_of[m] = {ARMY: armies, FLEET: fleets}
    return table


_NO_PLAIN_MOVES: dict[str, Destination] = {}


def plain_moves(m: Map) -> _PlainMoves:
    """The map's table of plain moves: for a move a unit makes by itself (a fleet's, or an
    army's that asks for no convoy nor is offered one by its power's fleets),
    ``plain_moves(m)[unit.kind].get(unit.location, {}).get(dest)`` is what
    :func:`check_move` answers when it is not ``None``."""
    return _plain_moves_of.get(m) or _plain_moves(m)


def _refuse(o: Move | Support | Convoy, message: str) -> OrderError:
    return OrderError(o.text(), message)


def check_move(m: Map, unit: Unit, o: Move, geo: ConvoyGeometry,
               own_convoy: bool) -> Destination | OrderError:
    """Where a legal move goes; why an illegal one is refused."""
    # DATC 4.A.3 (2000/2023 rules, no land fall-back): an army goes by convoy when it asks
    # to, or when a fleet of the same power is ordered to convoy it there
    if unit.kind == FLEET or not (o.via_convoy or own_convoy):
        tables = _plain_moves_of.get(m) or _plain_moves(m)
        plain = tables[unit.kind].get(unit.location, _NO_PLAIN_MOVES).get(o.dest)
        if plain is not None:
            return plain
    src, prov = unit.province, o.dest.partition("/")[0]
    if prov == src:
        return _refuse(o, "a unit cannot move to its own province")
    if unit.kind == FLEET:
        return fleet_destination(m, unit, o)
    adjacent = prov in m.army_adj[src]
    if adjacent and not (o.via_convoy or own_convoy):
        return Destination(prov, prov, False)
    if m.provinces[prov].kind not in ("land", "coast"):
        return _refuse(o, f"an army cannot move to {m.provinces[prov].name}")
    if geo.possible(src, prov):
        # fleets stand where a convoy could run: legal, even if no convoy is ordered (6.D.31);
        # without such fleets the order is illegal (6.D.32)
        return Destination(prov, prov, True)
    if adjacent and not o.via_convoy:
        return Destination(prov, prov, False)
    return _refuse(o, _no_route(m, src, prov, adjacent))


def _no_route(m: Map, src: str, prov: str, adjacent: bool) -> str:
    """Why an army cannot go from ``src`` to ``prov``: convoys are spoken of only where one
    could run (both ends on a coast); otherwise the provinces are just not neighbours."""
    here, there = m.provinces[src], m.provinces[prov]
    inland = [p.name for p in (here, there) if p.kind != "coast"]
    if not inland:
        return f"no convoy could take {here.name} to {there.name}"
    if not adjacent:
        return f"an army in {here.name} cannot reach {there.name}: they are not adjacent"
    return (f"{' and '.join(inland)} {'has' if len(inland) == 1 else 'have'} no coast, "
            f"so no convoy can go from {here.name} to {there.name}")


def check_support(m: Map, unit: Unit, o: Support, target: Unit | None,
                  geo: ConvoyGeometry) -> OrderError | None:
    """``None`` if legal, else why it is refused."""
    tprov = o.target.province
    if tprov == unit.province:
        return _refuse(o, "a unit cannot support itself")
    if target is None:
        return _refuse(o, f"there is no unit in {m.provinces[tprov].name} to support")
    if o.dest is None:
        if not can_reach(m, unit, tprov):
            return _refuse(o, f"{unit.text(m)} cannot reach {m.provinces[tprov].name}")
        return None
    dprov = province_of(o.dest)
    if dprov == tprov:
        return _refuse(o, "a supported unit cannot move to its own province")
    if dprov == unit.province:
        return _refuse(o, "a unit cannot support a move into its own province")
    if not can_reach(m, unit, dprov):
        return _refuse(o, f"{unit.text(m)} cannot reach {m.provinces[dprov].name}")
    if target.kind == ARMY:
        # a fleet cannot convoy and support at once (DATC 6.D.31)
        ok = dprov in m.army_adj[tprov] or geo.possible_without(tprov, dprov, unit.province)
    else:
        ok = can_reach(m, target, dprov)
    if not ok:
        return _refuse(o, f"{target.text(m)} cannot reach {m.provinces[dprov].name}")
    return None


def check_convoy(m: Map, unit: Unit, o: Convoy, target: Unit | None,
                 geo: ConvoyGeometry) -> OrderError | None:
    """``None`` if legal, else why it is refused."""
    if unit.kind != FLEET or not m.provinces[unit.province].is_sea:
        return _refuse(o, "only a fleet at sea can convoy")
    aprov, dprov = o.target.province, province_of(o.dest)
    if target is None or target.kind != ARMY:
        return _refuse(o, f"there is no army in {m.provinces[aprov].name} to convoy")
    if not geo.on_route(unit.province, aprov, dprov):
        return _refuse(o, f"{m.provinces[unit.province].name} is on no convoy route from "
                       f"{m.provinces[aprov].name} to {m.provinces[dprov].name}")
    return None
