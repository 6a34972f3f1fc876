"""The map generator: a hand-written layout in, province shapes that provably fit the map out.

Run ``python -m judge.pictures.generate standard`` to (re)write
``judge/variants/standard.geometry.json`` from ``judge/variants/standard.layout.json`` and the
map itself (``standard.json``); ``--check`` only says whether the file is up to date.

The layout is rough data a person writes: for every province a few *sites*, integer points
in the province's approximate place (a small province needs one, a long coast or a large sea
a handful), four of them on the corners of the frame; and the borders that are drawn but are
no adjacency (the impassable Switzerland's).  From it:

1. the sites are triangulated (Delaunay) and edges between sites of different provinces are
   flipped until two provinces' sites are joined exactly when the provinces touch: when
   they are adjacent for an army or a fleet, or drawn as touching;
2. every triangle is cut at its centroid and its edge midpoints into three pieces, one per
   corner; a province is the union of its sites' pieces (a barycentric dual, so two
   provinces share a border exactly when a triangle edge joins their sites, and three meet
   at a triangle's centroid);
3. each border between two provinces is smoothed (corner cutting, which keeps it inside the
   triangles it runs through, so borders never cross) and the outlines are assembled;
4. a label, a unit and a supply-centre marker are placed inside every province, and a fleet
   spot on each coast of a split province, near that coast;
5. the adjacency read back from the shapes (:mod:`judge.pictures.topology`) must equal the map's
   for armies and fleets, coast by coast, or nothing is written.

A new map needs only its data and a layout: provinces, adjacency (the map file) and rough
positions.  When the positions cannot give its adjacency (a site on the wrong side of a
neighbour), the generator names the provinces that touch but must not, or must but do not.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from judge.core.maps import Map, load_map, province_of
from judge.pictures import topology
from judge.pictures.triangulate import Edge, Point, Triangulation, delaunay, edge, orient

OUTSIDE = ""  # the "province" beyond the frame
SMOOTHING_ROUNDS = 2
# the sizes the placement makes room for (drawing units: see judge.pictures.scene)
UNIT_RADIUS = 9.0
LABEL_HALF = (14.0, 6.0)  # half width and half height of a three-letter label
CENTER_RADIUS = 5.0


class LayoutError(ValueError):
    """The layout cannot give the map's adjacency (or is malformed); the message says why."""


@dataclass(frozen=True)
class Layout:
    name: str
    size: tuple[int, int]
    sites: dict[str, list[Point]]
    drawn_borders: frozenset[frozenset[str]]
    colours: tuple[tuple[str, str], ...] = ()  # power → colour of its units and centres

    @staticmethod
    def from_dict(doc: dict[str, Any]) -> "Layout":
        try:
            w, h = (int(v) for v in doc["size"])
            sites = {str(k): [(int(p[0]), int(p[1])) for p in v]
                     for k, v in doc["sites"].items()}
            drawn = frozenset(frozenset(str(c) for c in pair)
                              for pair in doc.get("drawn_borders", ()))
            colours = tuple(sorted((str(k), str(v)) for k, v in doc.get("colours", {}).items()))
            return Layout(str(doc["map"]), (w, h), sites, drawn, colours)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise LayoutError(f"malformed layout: {exc!r}") from None


def contacts_of(m: Map, layout: Layout) -> set[frozenset[str]]:
    """The province pairs whose shapes must touch: adjacent for an army or a fleet, or drawn
    as touching (an impassable province's borders)."""
    pairs = {frozenset((a, b)) for a, adj in m.army_adj.items() for b in adj}
    pairs |= {frozenset((province_of(a), province_of(b)))
              for a, adj in m.fleet_adj.items() for b in adj}
    return pairs | set(layout.drawn_borders)


# --------------------------------------------------------------------------- triangulation

def _sites(m: Map, layout: Layout) -> tuple[list[Point], list[str]]:
    unknown = sorted(set(layout.sites) - set(m.provinces))
    missing = sorted(set(m.provinces) - set(layout.sites))
    if unknown or missing:
        raise LayoutError(f"layout sites: unknown provinces {unknown}, missing {missing}")
    w, h = layout.size
    points: list[Point] = []
    owner: list[str] = []
    for code in sorted(layout.sites):
        if not layout.sites[code]:
            raise LayoutError(f"{code} has no site")
        for p in layout.sites[code]:
            if not (0 <= p[0] <= w and 0 <= p[1] <= h):
                raise LayoutError(f"site {p} of {code} is outside the frame {w}x{h}")
            points.append(p)
            owner.append(code)
    if len(set(points)) != len(points):
        dup = sorted({p for p in points if points.count(p) > 1})
        raise LayoutError(f"sites used twice: {dup}")
    for corner in ((0, 0), (w, 0), (0, h), (w, h)):
        if corner not in points:
            raise LayoutError(f"the frame corner {corner} must be a site")
    return points, owner


def _pair(owner: list[str], e: Edge) -> frozenset[str]:
    return frozenset((owner[e[0]], owner[e[1]]))


def fit_contacts(tri: Triangulation, owner: list[str], allowed: set[frozenset[str]]) -> None:
    """Flip edges until every edge joins sites of one province or of two provinces that may
    touch, and every pair that must touch is joined by an edge (as far as flips allow)."""

    def forbidden(e: Edge) -> bool:
        pair = _pair(owner, e)
        return len(pair) == 2 and pair not in allowed

    def uses() -> dict[frozenset[str], int]:
        count: dict[frozenset[str], int] = {}
        for e in tri.edges():
            pair = _pair(owner, e)
            if len(pair) == 2:
                count[pair] = count.get(pair, 0) + 1
        return count

    for _ in range(100):
        changed = False
        for e in tri.edges():
            if e in tri._by_edge and forbidden(e) and tri.can_flip(e):
                c, d = tri.opposite(e)
                if not forbidden(edge(c, d)):
                    tri.flip(e)
                    changed = True
        count = uses()
        for e in tri.edges():
            if e not in tri._by_edge or not tri.can_flip(e):
                continue
            c, d = tri.opposite(e)
            new = _pair(owner, edge(c, d))
            old = _pair(owner, e)
            if len(new) == 2 and new in allowed and new not in count and \
                    (len(old) == 1 or old not in allowed or count.get(old, 0) > 1):
                tri.flip(e)
                count = uses()
                changed = True
        if not changed:
            return


def check_contacts(m: Map, tri: Triangulation, owner: list[str],
                   allowed: set[frozenset[str]]) -> list[str]:
    problems = []
    seen: set[frozenset[str]] = set()
    for e in tri.edges():
        pair = _pair(owner, e)
        if len(pair) == 2:
            seen.add(pair)
            if pair not in allowed:
                a, b = sorted(pair)
                problems.append(f"{a} and {b} touch but must not (sites {tri.points[e[0]]} "
                                f"and {tri.points[e[1]]})")
    for pair in sorted(allowed - seen, key=sorted):
        a, b = sorted(pair)
        problems.append(f"{a} and {b} must touch but do not")
    return problems


# --------------------------------------------------------------------------- shapes

Node = tuple[str, Any]  # ("v", site) | ("m", edge) | ("c", triangle)
XY = tuple[float, float]


def _pieces(tri: Triangulation, owner: list[str]) -> list[tuple[Node, Node, frozenset[str]]]:
    """The border pieces of the barycentric dual: (node, node, the two provinces beside)."""
    out: list[tuple[Node, Node, frozenset[str]]] = []
    for t in sorted(tri.triangles):
        for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
            e = edge(a, b)
            if owner[a] != owner[b]:
                out.append((("m", e), ("c", t), frozenset((owner[a], owner[b]))))
    for e in tri.edges():
        if len(tri.triangles_of(e)) == 1:  # on the frame
            for v in e:
                out.append((("v", v), ("m", e), frozenset((owner[v], OUTSIDE))))
    return out


def _position(tri: Triangulation, node: Node) -> XY:
    kind, key = node
    pts = tri.points
    if kind == "v":
        return (float(pts[key][0]), float(pts[key][1]))
    if kind == "m":
        a, b = key
        return ((pts[a][0] + pts[b][0]) / 2, (pts[a][1] + pts[b][1]) / 2)
    a, b, c = key
    return ((pts[a][0] + pts[b][0] + pts[c][0]) / 3, (pts[a][1] + pts[b][1] + pts[c][1]) / 3)


def _chains(pieces: list[tuple[Node, Node, frozenset[str]]]
            ) -> list[tuple[frozenset[str], list[Node]]]:
    """Join pieces into chains: maximal runs of border between the same two provinces."""
    at: dict[Node, list[int]] = {}
    for i, (a, b, _) in enumerate(pieces):
        at.setdefault(a, []).append(i)
        at.setdefault(b, []).append(i)

    def junction(n: Node) -> bool:
        ids = at[n]
        return len(ids) != 2 or pieces[ids[0]][2] != pieces[ids[1]][2]

    used: set[int] = set()
    chains = []
    starts = sorted(n for n in at if junction(n))
    for start in starts:
        for i in at[start]:
            if i in used:
                continue
            pair = pieces[i][2]
            nodes = [start]
            cur, j = start, i
            while True:
                used.add(j)
                a, b, _ = pieces[j]
                nxt = b if a == cur else a
                nodes.append(nxt)
                if junction(nxt):
                    break
                cur = nxt
                j = next(k for k in at[cur] if k not in used)
            chains.append((pair, nodes))
    if len(used) != len(pieces):
        loose = sorted({p for i, (_, _, pr) in enumerate(pieces) if i not in used for p in pr})
        raise LayoutError(f"a province lies wholly inside another: {loose}")
    return chains


def _smooth(points: list[XY], rounds: int) -> list[XY]:
    """Cut corners (Chaikin) keeping both ends: the result stays near the original line and
    inside the triangles it ran through."""
    for _ in range(rounds):
        if len(points) < 3:
            return points
        out = [points[0]]
        for i in range(len(points) - 1):
            (x0, y0), (x1, y1) = points[i], points[i + 1]
            q = (0.75 * x0 + 0.25 * x1, 0.75 * y0 + 0.25 * y1)
            r = (0.25 * x0 + 0.75 * x1, 0.25 * y0 + 0.75 * y1)
            if i > 0:
                out.append(q)
            if i < len(points) - 2:
                out.append(r)
        out.append(points[-1])
        points = out
    return points


def _rounded(p: XY) -> XY:
    return (round(p[0], 1) + 0.0, round(p[1], 1) + 0.0)


def _rings(chains: list[tuple[frozenset[str], list[XY]]], provinces: Sequence[str]
           ) -> dict[str, list[XY]]:
    """Each province's outline, from the chains it is beside (one closed ring each)."""
    rings: dict[str, list[XY]] = {}
    for code in provinces:
        mine = [pts for pair, pts in chains if code in pair]
        if not mine:
            raise LayoutError(f"{code} has no outline")
        by_end: dict[XY, list[int]] = {}
        for i, pts in enumerate(mine):
            by_end.setdefault(pts[0], []).append(i)
            by_end.setdefault(pts[-1], []).append(i)
        for p, ids in by_end.items():
            if len(ids) != 2:
                raise LayoutError(f"{code} touches itself at {p}: its sites are not one piece")
        ring: list[XY] = list(mine[0])
        used = {0}
        while True:
            ids = [i for i in by_end[ring[-1]] if i not in used]
            if not ids:
                break
            i = ids[0]
            used.add(i)
            pts = mine[i] if mine[i][0] == ring[-1] else mine[i][::-1]
            ring.extend(pts[1:])
        if len(used) != len(mine) or ring[0] != ring[-1]:
            raise LayoutError(f"{code} is in more than one piece, or has a hole")
        ring.pop()
        if _area(ring) < 0:
            ring.reverse()
        rings[code] = ring
    return rings


def _area(ring: Sequence[XY]) -> float:
    return sum(ring[i - 1][0] * ring[i][1] - ring[i][0] * ring[i - 1][1]
               for i in range(len(ring))) / 2


def _check_crossings(chains: list[tuple[frozenset[str], list[XY]]]) -> None:
    """No two border segments cross (they may only meet at their ends)."""
    cell = 16.0
    grid: dict[tuple[int, int], list[tuple[XY, XY]]] = {}
    segs = [(pts[i], pts[i + 1]) for _, pts in chains for i in range(len(pts) - 1)]
    for s in segs:
        (x0, y0), (x1, y1) = s
        for gx in range(int(min(x0, x1) // cell), int(max(x0, x1) // cell) + 1):
            for gy in range(int(min(y0, y1) // cell), int(max(y0, y1) // cell) + 1):
                grid.setdefault((gx, gy), []).append(s)
    for bucket in grid.values():
        for i, s in enumerate(bucket):
            for t in bucket[i + 1:]:
                if _cross(s, t):
                    raise LayoutError(f"borders cross near {s[0]}: move the sites apart")


def _cross(s: tuple[XY, XY], t: tuple[XY, XY]) -> bool:
    if set(s) & set(t):
        return False

    def o(a: XY, b: XY, c: XY) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    d1, d2 = o(t[0], t[1], s[0]), o(t[0], t[1], s[1])
    d3, d4 = o(s[0], s[1], t[0]), o(s[0], s[1], t[1])
    return d1 * d2 < 0 and d3 * d4 < 0


# --------------------------------------------------------------------------- placement

def _inside(p: XY, ring: Sequence[XY]) -> bool:
    x, y = p
    inside = False
    n = len(ring)
    for i in range(n):
        (x0, y0), (x1, y1) = ring[i - 1], ring[i]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def _clearance(p: XY, ring: Sequence[XY]) -> float:
    """Distance from ``p`` to the outline, negative outside (square roots only: the same
    result on every machine)."""
    best = math.inf
    x, y = p
    x0, y0 = ring[-1]
    for x1, y1 in ring:
        dx, dy = x1 - x0, y1 - y0
        length2 = dx * dx + dy * dy
        t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / length2))
        ex, ey = x - x0 - t * dx, y - y0 - t * dy
        d2 = ex * ex + ey * ey
        if d2 < best:
            best = d2
        x0, y0 = x1, y1
    d = math.sqrt(best)
    return d if _inside(p, ring) else -d


# where the label and the centre marker go around a unit at (0, 0), tried in this order
_ARRANGEMENTS: tuple[tuple[XY, XY], ...] = (
    ((0.0, 17.0), (-16.0, -9.0)),   # label below the unit, centre up and left
    ((0.0, -17.0), (16.0, 9.0)),    # label above, centre down and right
    ((25.0, 0.0), (-16.0, 9.0)),    # label right, centre down and left
    ((-25.0, 0.0), (16.0, -9.0)),   # label left, centre up and right
)


def _badge_fit(u: XY, arrangement: tuple[XY, XY], ring: Sequence[XY], center: bool) -> float:
    """How much room the unit, label (and centre marker) at ``u`` leave to the outline."""
    (lx, ly), (cx, cy) = arrangement
    room = _clearance(u, ring) - UNIT_RADIUS
    label = (u[0] + lx, u[1] + ly)
    hw, hh = LABEL_HALF
    for dx, dy in ((-hw, -hh), (hw, -hh), (-hw, hh), (hw, hh), (0.0, 0.0)):
        room = min(room, _clearance((label[0] + dx, label[1] + dy), ring))
    if center:
        room = min(room, _clearance((u[0] + cx, u[1] + cy), ring) - CENTER_RADIUS)
    return room


def _place(ring: Sequence[XY], sites: Sequence[Point], center: bool
           ) -> tuple[XY, XY, XY | None]:
    """Unit, label and centre-marker positions: the best-fitting arrangement near the
    province's middle (its first site is where the layout wants it)."""
    coarse = list(ring[::3])  # the smoothed outline is dense; every third point is enough
    xs, ys = [p[0] for p in ring], [p[1] for p in ring]
    first = (float(sites[0][0]), float(sites[0][1]))
    candidates = [first]
    steps = 16
    for i in range(steps):
        for j in range(steps):
            candidates.append((min(xs) + (max(xs) - min(xs)) * (i + 0.5) / steps,
                               min(ys) + (max(ys) - min(ys)) * (j + 0.5) / steps))
    # cheap first pass: room around the point itself, then the full badge for the best few
    scored = sorted(((_clearance(c, coarse), c) for c in candidates if _inside(c, ring)),
                    key=lambda s: (-s[0], s[1]))[:16]
    best: tuple[float, float, XY, int] | None = None
    for _, c in scored + [(0.0, first)]:
        for k, arr in enumerate(_ARRANGEMENTS):
            fit = min(_badge_fit(c, arr, coarse, center), 12.0)  # beyond 12 px room is enough
            # prefer a good fit, then the first arrangement, then nearness to the first site
            key = (fit - 1.5 * k, -_dist(c, first))
            if best is None or key > best[:2]:
                best = (key[0], key[1], c, k)
    assert best is not None
    u, arr = best[2], _ARRANGEMENTS[best[3]]
    label = (u[0] + arr[0][0], u[1] + arr[0][1])
    marker = (u[0] + arr[1][0], u[1] + arr[1][1]) if center else None
    return u, label, marker


def _coast_spot(ring: Sequence[XY], run: Sequence[XY], unit: XY) -> XY:
    """Where a fleet on one coast of a split province stands: inside, near that coast's
    middle."""
    mid = min(run, key=lambda p: (_dist(p, _centroid(run)), p))
    best = unit
    for k in range(1, 41):
        t = k / 40
        p = (mid[0] + (unit[0] - mid[0]) * t, mid[1] + (unit[1] - mid[1]) * t)
        if _clearance(p, ring) >= UNIT_RADIUS + 1 and _dist(p, unit) > 2 * UNIT_RADIUS:
            return p
        if _clearance(p, ring) >= UNIT_RADIUS + 1:
            best = p
            break
    return best


def _dist(a: XY, b: XY) -> float:
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2)


def _centroid(pts: Sequence[XY]) -> XY:
    return (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))


# --------------------------------------------------------------------------- the whole run

def generate(m: Map, layout: Layout) -> dict[str, Any]:
    """The geometry document of ``m`` drawn from ``layout``; raises :class:`LayoutError`."""
    points, owner = _sites(m, layout)
    allowed = contacts_of(m, layout)
    tri = delaunay(points)
    w, h = layout.size
    if sum(orient(*(points[i] for i in t)) for t in tri.triangles) != 2 * w * h:
        raise LayoutError("the triangulation does not cover the frame")
    fit_contacts(tri, owner, allowed)
    problems = check_contacts(m, tri, owner, allowed)
    if problems:
        raise LayoutError("the layout cannot give the map's adjacency:\n  "
                          + "\n  ".join(problems))
    chains: list[tuple[frozenset[str], list[XY]]] = []
    for pair, nodes in _chains(_pieces(tri, owner)):
        pts = [_position(tri, n) for n in nodes]
        if OUTSIDE not in pair:
            pts = _smooth(pts, SMOOTHING_ROUNDS)
        chains.append((pair, [_rounded(p) for p in pts]))
    _check_crossings(chains)
    rings = _rings(chains, sorted(m.provinces))
    derived = topology.derive(m, rings)
    differences = topology.compare(m, derived)
    if differences:
        raise LayoutError("the shapes do not show the map's adjacency:\n  "
                          + "\n  ".join(differences))
    provinces: dict[str, Any] = {}
    for code in sorted(m.provinces):
        p = m.provinces[code]
        ring = rings[code]
        unit, label, marker = _place(ring, layout.sites[code], p.supply_center)
        entry: dict[str, Any] = {"outline": [list(q) for q in ring],
                                 "unit": list(_rounded(unit)), "label": list(_rounded(label))}
        if marker is not None:
            entry["center"] = list(_rounded(marker))
        if p.coasts:
            entry["coasts"] = {loc.partition("/")[2]: list(_rounded(_coast_spot(ring, run, unit)))
                               for loc, run in derived.coast_runs[code]}
        provinces[code] = entry
    return {"map": m.name, "size": [w, h],
            "generated_by": "python -m judge.pictures.generate " + layout.name,
            "colours": dict(layout.colours), "provinces": provinces}


def variants_dir() -> Path:
    return Path(str(resources.files("judge.variants")))


def read_layout(name: str) -> Layout:
    path = variants_dir() / f"{name}.layout.json"
    return Layout.from_dict(json.loads(path.read_text("utf-8")))


def dump(doc: dict[str, Any]) -> str:
    """The geometry file's text: one province per line, so diffs stay readable."""
    lines = ["{", f' "map": {json.dumps(doc["map"])},', f' "size": {json.dumps(doc["size"])},',
             f' "generated_by": {json.dumps(doc["generated_by"])},',
             f' "colours": {json.dumps(doc["colours"])},', ' "provinces": {']
    items = sorted(doc["provinces"].items())
    for i, (code, entry) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        lines.append(f'  {json.dumps(code)}: {json.dumps(entry, separators=(",", ":"))}{comma}')
    lines += [" }", "}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge.pictures.generate",
                                     description="Draw a map's province shapes from its layout.")
    parser.add_argument("map", nargs="?", default="standard")
    parser.add_argument("--check", action="store_true",
                        help="only check that the geometry file is up to date")
    args = parser.parse_args(argv)
    try:
        text = dump(generate(load_map(args.map), read_layout(args.map)))
    except (LayoutError, OSError) as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 2
    target = variants_dir() / f"{args.map}.geometry.json"
    if args.check:
        if not target.exists() or target.read_text("utf-8") != text:
            print(f"generate: {target} is out of date", file=sys.stderr)
            return 1
        print(f"{target} is up to date")
        return 0
    target.write_text(text, "utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
