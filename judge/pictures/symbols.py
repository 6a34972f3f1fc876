"""The symbols of a map picture: the colours of its ink and the shapes of units, arrows, rings
and crosses, made one way for the map and for its key, so that the key shows each symbol
exactly as the map draws it."""

from __future__ import annotations

import math
from dataclasses import dataclass

from judge.pictures.scene import XY, Circle, Line, Polygon, Shape, Text, luminance

INK = "#1c1c1c"
FAILED = "#d0103a"
CONVOY = "#1d5fbf"
RETREAT = "#7a3db8"
BUILT = "#15934a"
NEUTRAL_CENTER = "#ffffff"

UNIT_R = 9.0
RING_R = UNIT_R + 4  # a ring round a unit: a hold, a convoying fleet, a dislodged unit, a build
CENTER_R = 5.0


@dataclass(frozen=True)
class Stroke:
    """How an order's line is drawn: colour, width, dashes (on, off) and the length of its
    arrowhead (0: no head)."""

    colour: str
    width: float
    dash: tuple[float, float] | None = None
    head: float = 0.0


MOVE = Stroke(INK, 2.6, None, 9.0)
MOVE_FAILED = Stroke(FAILED, 2.2, (6.0, 4.0), 9.0)
SUPPORT = Stroke(INK, 1.6, (4.0, 3.0), 6.0)
SUPPORT_FAILED = Stroke(FAILED, 1.6, (2.0, 3.0), 6.0)
CONVOY_LINE = Stroke(CONVOY, 1.6, (3.0, 3.0))
CONVOY_FAILED = Stroke(FAILED, 1.6, (3.0, 3.0))
RETREAT_OPTION = Stroke(RETREAT, 1.4, (2.0, 2.5), 6.0)
HOLD_RING = 1.6  # the width of a hold's ring (dark, red when it failed), a support's, a convoy's
MARK_RING = 2.4  # the width of a dislodged unit's ring (red) and a built one's (green)


def stroked(points: list[XY], stroke: Stroke) -> list[Shape]:
    """A polyline drawn with ``stroke``, ending in its arrowhead if it has one (the line
    stops where the head begins)."""
    if not stroke.head:
        return [Line(tuple(points), stroke.colour, stroke.width, stroke.dash)]
    (x0, y0), (x1, y1) = points[-2], points[-1]
    length = math.dist((x0, y0), (x1, y1)) or 1.0
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    head = stroke.head
    base = (x1 - ux * head, y1 - uy * head)
    half = head * 0.55
    tri = ((x1, y1), (base[0] - uy * half, base[1] + ux * half),
           (base[0] + uy * half, base[1] - ux * half))
    return [Line(tuple(points[:-1]) + (base,), stroke.colour, stroke.width, stroke.dash),
            Polygon(tri, stroke.colour)]


def unit_shapes(kind: str, centre: XY, colour: str, ring: str | None = None,
                ring_width: float = MARK_RING) -> list[Shape]:
    """An army (a disc) or a fleet (a square) in ``colour`` with its letter, and a ring round
    it if ``ring`` is a colour."""
    x, y = centre
    letter = "#ffffff" if luminance(colour) < 0.55 else INK
    shapes: list[Shape] = []
    if kind == "A":
        shapes.append(Circle(centre, UNIT_R, colour, INK, 1.3))
    else:
        r = UNIT_R - 0.5
        shapes.append(Polygon(((x - r, y - r), (x + r, y - r), (x + r, y + r), (x - r, y + r)),
                              colour, INK, 1.3))
    shapes.append(Text((x, y), kind, 11.0, letter, bold=True))
    if ring is not None:
        shapes.append(ring_round(centre, ring, ring_width))
    return shapes


def ring_round(centre: XY, colour: str, width: float) -> Circle:
    return Circle(centre, RING_R, None, colour, width)


def center_marker(centre: XY, owner_colour: str | None) -> Circle:
    """A supply centre: a dot in its owner's colour, white when nobody owns it."""
    return Circle(centre, CENTER_R, owner_colour or NEUTRAL_CENTER, INK, 1.2)


def cross(c: XY, colour: str = FAILED) -> list[Shape]:
    """A unit disbanded or removed."""
    x, y = c
    r = UNIT_R + 3
    return [Line(((x - r, y - r), (x + r, y + r)), colour, 3.0),
            Line(((x - r, y + r), (x + r, y - r)), colour, 3.0)]
