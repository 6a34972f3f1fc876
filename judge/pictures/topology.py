"""Adjacency read off the drawn shapes, and its comparison with the map's adjacency tables.

A picture that showed Munich touching Paris would mislead players, so the province shapes are
checked against the rules' map: from the polygons alone this module derives

* which provinces share a border (of positive length; a single point is no border);
* for armies: two passable land provinces that share a border are adjacent;
* for fleets: a sea and a sea, or a sea and a coastal province, that share a border; two
  coastal provinces only when their shared border ends where both touch the same sea (so
  Rome and Apulia, which share land but no coast, are not);
* the coasts of a split province: its coastline falls into separate runs, each touching its
  own seas and neighbours, and each run is matched to the one coast of the map with exactly
  those neighbours.

Borders are found by exact comparison of polygon edges: the generator writes every shared
border once and both provinces carry the same points, so a segment of one polygon that is a
segment of another is a piece of their common border.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from judge.core.maps import Map, province_of

XY = tuple[float, float]
Segment = tuple[XY, XY]


def _segment(a: XY, b: XY) -> Segment:
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class Borders:
    """Every province pair's common border, as segments, and each province's outline."""

    shared: Mapping[frozenset[str], tuple[Segment, ...]]
    lengths: Mapping[frozenset[str], float]

    def between(self, a: str, b: str) -> tuple[Segment, ...]:
        return self.shared.get(frozenset((a, b)), ())

    def neighbours(self, a: str) -> set[str]:
        return {p for pair in self.shared if a in pair for p in pair if p != a}


def borders_of(polygons: Mapping[str, Sequence[XY]]) -> Borders:
    """Find which polygon edges are shared by which two provinces."""
    owners: dict[Segment, list[str]] = {}
    for code, ring in polygons.items():
        pts = [tuple(p) for p in ring]
        for i, a in enumerate(pts):
            b = pts[(i + 1) % len(pts)]
            if a != b:
                owners.setdefault(_segment(a, b), []).append(code)  # type: ignore[arg-type]
    shared: dict[frozenset[str], list[Segment]] = {}
    for seg, codes in owners.items():
        if len(codes) > 2 or (len(codes) == 2 and codes[0] == codes[1]):
            raise ValueError(f"segment {seg} belongs to {codes}: the shapes overlap")
        if len(codes) == 2:
            shared.setdefault(frozenset(codes), []).append(seg)
    return Borders({k: tuple(v) for k, v in shared.items()},
                   {k: sum(math.dist(a, b) for a, b in v) for k, v in shared.items()})


CoastRun = list[tuple[Segment, str]]  # a stretch of coastline: its segments, each with its sea


def _runs(segments: Iterable[tuple[Segment, str]]) -> list[CoastRun]:
    """Group segments (with the sea each touches) into runs joined end to end."""
    items = list(segments)
    by_point: dict[XY, list[int]] = {}
    for i, (seg, _) in enumerate(items):
        for p in seg:
            by_point.setdefault(p, []).append(i)
    seen: set[int] = set()
    runs = []
    for start in range(len(items)):
        if start in seen:
            continue
        stack, run = [start], []
        seen.add(start)
        while stack:
            i = stack.pop()
            run.append(items[i])
            for p in items[i][0]:
                for j in by_point[p]:
                    if j not in seen:
                        seen.add(j)
                        stack.append(j)
        runs.append(run)
    return runs


@dataclass(frozen=True)
class Derived:
    """Adjacency as the shapes show it, in the same form as :class:`judge.core.maps.Map`."""

    army_adj: dict[str, frozenset[str]]
    fleet_adj: dict[str, frozenset[str]]
    # split-coast province → its coastline runs, each as (location, points on the run)
    coast_runs: dict[str, list[tuple[str, list[XY]]]]
    problems: list[str]


def derive(m: Map, polygons: Mapping[str, Sequence[XY]]) -> Derived:
    """Read the army and fleet adjacency of ``m``'s provinces off ``polygons``."""
    borders = borders_of(polygons)
    kind = {code: p.kind for code, p in m.provinces.items()}
    land = {c for c, k in kind.items() if k in ("land", "coast")}
    seas = {c for c, k in kind.items() if k == "sea"}
    runs_of = _coastlines(borders, land, seas)
    location_of_run, problems = _locate_runs(m, borders, land, runs_of)
    fleet = _fleet_adjacency(borders, land, seas, runs_of, location_of_run)
    runs_out = {code: [(location_of_run[(code, i)],
                        [p for seg, _ in run for p in seg]) for i, run in enumerate(runs)]
                for code, runs in runs_of.items() if m.provinces[code].coasts}
    return Derived({c: frozenset(v) for c, v in _army_adjacency(borders, kind, land).items()},
                   {c: frozenset(v) for c, v in fleet.items()}, runs_out, problems)


def _army_adjacency(borders: Borders, kind: Mapping[str, str],
                    land: set[str]) -> dict[str, set[str]]:
    """Armies move between land provinces that share a border."""
    army: dict[str, set[str]] = {c: set() for c in kind}
    for pair in borders.shared:
        a, b = sorted(pair)
        if a in land and b in land:
            army[a].add(b)
            army[b].add(a)
    return army


def _coastlines(borders: Borders, land: set[str], seas: set[str]) -> dict[str, list[CoastRun]]:
    """Each land province's coastline: the segments it shares with seas, in runs."""
    runs_of: dict[str, list[CoastRun]] = {}
    for code in sorted(land):
        coast = [(seg, sea) for sea in sorted(borders.neighbours(code) & seas)
                 for seg in borders.between(code, sea)]
        if coast:
            runs_of[code] = _runs(coast)
    return runs_of


def _touching(borders: Borders, land: set[str], code: str, run: CoastRun) -> set[str]:
    """The provinces a run of ``code``'s coastline touches: its seas, and the coastal provinces
    whose border with ``code`` ends on one of its points where both touch the same sea."""
    found = {sea for _, sea in run}
    for other in borders.neighbours(code) & land:
        ends = {p for seg in borders.between(code, other) for p in seg}
        for seg, sea in run:
            for p in seg:
                if p in ends and any(p in s for s in borders.between(other, sea)):
                    found.add(other)
    return found


def _locate_runs(m: Map, borders: Borders, land: set[str], runs_of: dict[str, list[CoastRun]]
                 ) -> tuple[dict[tuple[str, int], str], list[str]]:
    """Where each run lies: the coast of a split province whose fleet adjacency it matches,
    else the province itself; and the problems (a run matching no single coast, a count of
    runs unlike the count of coasts)."""
    location_of_run = {(code, i): code for code, runs in runs_of.items() for i in range(len(runs))}
    problems: list[str] = []
    for code, runs in runs_of.items():
        coasts = m.provinces[code].coasts
        if not coasts:
            continue
        wanted = {c: {province_of(x) for x in m.fleet_adj[f"{code}/{c}"]} for c in coasts}
        for i, run in enumerate(runs):
            got = _touching(borders, land, code, run)
            match = [c for c, adj in wanted.items() if adj == got]
            if len(match) != 1:
                problems.append(f"{code}: a coastline run touching {sorted(got)} matches no "
                                f"single coast of {sorted(wanted)}")
                continue
            location_of_run[(code, i)] = f"{code}/{match[0]}"
        if len(runs) != len(coasts):
            problems.append(f"{code}: {len(runs)} coastline runs for {len(coasts)} coasts")
    return location_of_run, problems


def _fleet_adjacency(borders: Borders, land: set[str], seas: set[str],
                     runs_of: dict[str, list[CoastRun]],
                     location_of_run: dict[tuple[str, int], str]) -> dict[str, set[str]]:
    """Fleets move between neighbouring seas, between a coast and the seas of its runs, and
    between two coasts whose runs meet where their provinces' border reaches the sea."""
    fleet: dict[str, set[str]] = {}
    for sea in sorted(seas):
        fleet[sea] = {s for s in borders.neighbours(sea) if s in seas}
    for (code, i), loc in sorted(location_of_run.items()):
        fleet.setdefault(loc, set())
        points = {p for seg, _ in runs_of[code][i] for p in seg}
        for _segment, sea in runs_of[code][i]:
            fleet[loc].add(sea)
            fleet[sea].add(loc)
        for other in borders.neighbours(code) & land:
            for (o_code, j), o_loc in location_of_run.items():
                if o_code == other and _coast_to_coast(borders, code, points, runs_of[code][i],
                                                       other, runs_of[other][j]):
                    fleet[loc].add(o_loc)
    return fleet


def _coast_to_coast(borders: Borders, a: str, a_points: set[XY],
                    a_run: CoastRun, b: str, b_run: CoastRun) -> bool:
    """Whether the border of ``a`` and ``b`` ends on a point where run ``a_run`` of ``a`` and
    run ``b_run`` of ``b`` touch the same sea."""
    ends = {p for seg in borders.between(a, b) for p in seg}
    b_sea_points: dict[str, set[XY]] = {}
    for seg, sea in b_run:
        b_sea_points.setdefault(sea, set()).update(seg)
    for seg, sea in a_run:
        for p in seg:
            if p in ends and p in b_sea_points.get(sea, ()):
                return True
    return False


def compare(m: Map, derived: Derived) -> list[str]:
    """Every difference between the map's adjacency and the one the shapes show (none: [])."""
    out = list(derived.problems)
    for code, p in sorted(m.provinces.items()):
        if p.kind == "impassable":
            continue  # drawn, and touching its neighbours, but no unit ever enters it
        want, got = set(m.army_adj[code]), set(derived.army_adj.get(code, ()))
        if p.kind == "sea":
            want = set()
        if want != got:
            out.append(f"army {code}: map {sorted(want)}, shapes {sorted(got)}")
    locations = set(m.fleet_adj) | set(derived.fleet_adj)
    for loc in sorted(locations):
        want = set(m.fleet_adj.get(loc, ()))
        got = set(derived.fleet_adj.get(loc, ()))
        if want != got:
            out.append(f"fleet {loc}: map {sorted(want)}, shapes {sorted(got)}")
    return out
