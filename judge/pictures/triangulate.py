"""Triangulations of points with integer coordinates: Delaunay, and edge flips.

The map generator (:mod:`judge.pictures.generate`) triangulates the sites of a layout and then
flips edges until the triangulation's contacts are the map's adjacency.  Coordinates are
integers and every predicate is computed exactly with Python integers, so the result never
depends on rounding: the same layout always gives the same triangles, on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

Point = tuple[int, int]
Edge = tuple[int, int]  # site indices, smaller first


def orient(a: Point, b: Point, c: Point) -> int:
    """Twice the signed area of abc: > 0 counter-clockwise (y up), < 0 clockwise, 0 collinear."""
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def in_circle(a: Point, b: Point, c: Point, d: Point) -> int:
    """> 0 when d lies strictly inside the circle through a, b, c (abc counter-clockwise)."""
    adx, ady = a[0] - d[0], a[1] - d[1]
    bdx, bdy = b[0] - d[0], b[1] - d[1]
    cdx, cdy = c[0] - d[0], c[1] - d[1]
    ad, bd, cd = adx * adx + ady * ady, bdx * bdx + bdy * bdy, cdx * cdx + cdy * cdy
    return (adx * (bdy * cd - bd * cdy) - ady * (bdx * cd - bd * cdx)
            + ad * (bdx * cdy - bdy * cdx))


def edge(a: int, b: int) -> Edge:
    return (a, b) if a < b else (b, a)


@dataclass
class Triangulation:
    """Triangles over ``points`` as counter-clockwise index triples, with an edge index."""

    points: list[Point]
    triangles: set[tuple[int, int, int]] = field(default_factory=set)
    # edge → the (one or two) triangles that have it
    _by_edge: dict[Edge, set[tuple[int, int, int]]] = field(default_factory=dict)

    def add(self, t: tuple[int, int, int]) -> None:
        t = _canonical(t)
        self.triangles.add(t)
        for e in _edges_of(t):
            self._by_edge.setdefault(e, set()).add(t)

    def remove(self, t: tuple[int, int, int]) -> None:
        t = _canonical(t)
        self.triangles.discard(t)
        for e in _edges_of(t):
            tris = self._by_edge.get(e)
            if tris is not None:
                tris.discard(t)
                if not tris:
                    del self._by_edge[e]

    def edges(self) -> list[Edge]:
        return sorted(self._by_edge)

    def triangles_of(self, e: Edge) -> list[tuple[int, int, int]]:
        return sorted(self._by_edge.get(e, ()))

    def opposite(self, e: Edge) -> list[int]:
        """The vertices facing edge ``e`` in its triangles (two inside, one on the hull)."""
        return sorted(v for t in self._by_edge.get(e, ()) for v in t if v not in e)

    def can_flip(self, e: Edge) -> bool:
        """Whether ``e`` is the diagonal of a strictly convex quadrilateral."""
        opp = self.opposite(e)
        if len(opp) != 2:
            return False
        a, b = e
        c, d = opp
        p = self.points
        return (orient(p[c], p[d], p[a]) * orient(p[c], p[d], p[b]) < 0
                and orient(p[a], p[b], p[c]) * orient(p[a], p[b], p[d]) < 0)

    def flip(self, e: Edge) -> Edge:
        """Replace the diagonal ``e`` by the other one; returns the new edge."""
        a, b = e
        c, d = self.opposite(e)
        for t in self.triangles_of(e):
            self.remove(t)
        self.add(self._ccw(a, c, d))
        self.add(self._ccw(b, c, d))
        return edge(c, d)

    def _ccw(self, a: int, b: int, c: int) -> tuple[int, int, int]:
        p = self.points
        return (a, b, c) if orient(p[a], p[b], p[c]) > 0 else (a, c, b)

    def neighbours(self, v: int) -> Iterator[int]:
        for a, b in self._by_edge:
            if a == v:
                yield b
            elif b == v:
                yield a


def _canonical(t: tuple[int, int, int]) -> tuple[int, int, int]:
    """The rotation of a triangle that starts with its smallest index (orientation kept)."""
    i = t.index(min(t))
    return (t[i], t[(i + 1) % 3], t[(i + 2) % 3])


def _edges_of(t: tuple[int, int, int]) -> tuple[Edge, Edge, Edge]:
    a, b, c = t
    return edge(a, b), edge(b, c), edge(c, a)


def delaunay(points: list[Point]) -> Triangulation:
    """The Delaunay triangulation of distinct integer points (Bowyer–Watson, exact).

    Points are inserted in the order given; ties between cocircular points are broken by that
    order, so the result is deterministic.
    """
    if len(set(points)) != len(points):
        raise ValueError("the points are not distinct")
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1)
    cx, cy = (max(xs) + min(xs)) // 2, (max(ys) + min(ys)) // 2
    big = 1000 * span
    # a triangle far around every point; its corners are removed at the end
    work = list(points) + [(cx - 2 * big, cy - big), (cx + 2 * big, cy - big), (cx, cy + 2 * big)]
    n = len(points)
    tri = Triangulation(work)
    tri.add(tri._ccw(n, n + 1, n + 2))
    for i in range(n):
        p = work[i]
        bad = [t for t in tri.triangles if in_circle(work[t[0]], work[t[1]], work[t[2]], p) > 0]
        boundary: dict[Edge, tuple[int, int]] = {}
        for t in bad:
            for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
                key = edge(a, b)
                if key in boundary:
                    del boundary[key]
                else:
                    boundary[key] = (a, b)
        for t in bad:
            tri.remove(t)
        for a, b in boundary.values():
            tri.add((a, b, i))
    for t in list(tri.triangles):
        if max(t) >= n:
            tri.remove(t)
    tri.points = list(points)
    return tri
