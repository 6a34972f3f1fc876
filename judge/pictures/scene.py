"""The scene: what a map picture is made of, independent of how it is written out.

A :class:`Scene` is a list of layers of plain shapes -- polygons, polylines, circles, text --
with colours and sizes in picture pixels.  Two back ends write the same scene:
:mod:`judge.pictures.svg` (text) and :mod:`judge.pictures.raster` (PNG).  Layers marked ``static``
depend only on the map (land, sea, borders, names), so a back end may draw them once and
keep them; the others (centres, units, orders, legend) change with every picture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

XY = tuple[float, float]
Colour = str  # "#rrggbb"


@dataclass(frozen=True)
class Polygon:
    points: tuple[XY, ...]
    fill: Colour | None
    outline: Colour | None = None
    width: float = 1.0
    # diagonal stripes of this colour over the fill (a Formal Diplomacy sphere)
    hatch: Colour | None = None


@dataclass(frozen=True)
class Line:
    """An open polyline; ``dash`` is (on, off) lengths for a dashed line."""

    points: tuple[XY, ...]
    colour: Colour
    width: float = 1.0
    dash: tuple[float, float] | None = None


@dataclass(frozen=True)
class Circle:
    centre: XY
    radius: float
    fill: Colour | None
    outline: Colour | None = None
    width: float = 1.0


@dataclass(frozen=True)
class Text:
    """A line of text; ``anchor`` as in CSS/SVG: ``start`` (left), ``middle`` or ``end``,
    the position being the middle of the text's height."""

    position: XY
    text: str
    size: float
    colour: Colour
    anchor: str = "middle"
    bold: bool = False


Shape = Union[Polygon, Line, Circle, Text]


@dataclass
class Layer:
    name: str
    static: bool = False
    shapes: list[Shape] = field(default_factory=list)

    def add(self, *shapes: Shape) -> None:
        self.shapes.extend(shapes)


@dataclass
class Scene:
    width: int
    height: int
    background: Colour
    # names the static layers' content: equal keys, equal static layers (a back end's cache)
    static_key: str
    layers: list[Layer] = field(default_factory=list)
    title: str = ""

    def layer(self, name: str) -> Layer:
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise KeyError(name)


def rgb(colour: Colour) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def mix(colour: Colour, other: Colour, amount: float) -> Colour:
    """``colour`` moved ``amount`` (0..1) of the way towards ``other``."""
    a, b = rgb(colour), rgb(other)
    return "#" + "".join(f"{round(x + (y - x) * amount):02x}" for x, y in zip(a, b))


def luminance(colour: Colour) -> float:
    r, g, b = rgb(colour)
    return (0.299 * r + 0.587 * g + 0.114 * b) / 255


def dashes(points: tuple[XY, ...], on: float, off: float) -> list[tuple[XY, ...]]:
    """Cut a polyline into the pieces a dashed stroke draws (for back ends without dashes)."""
    import math
    out: list[tuple[XY, ...]] = []
    current: list[XY] = [points[0]]
    drawing, left = True, on
    for a, b in zip(points, points[1:]):
        length = math.dist(a, b)
        pos = 0.0
        while length - pos > left:
            pos += left
            t = pos / length
            p = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            if drawing:
                current.append(p)
                out.append(tuple(current))
            current = [p]
            drawing = not drawing
            left = on if drawing else off
        left -= length - pos
        if drawing:
            current.append(b)
        else:
            current = [b]
    if drawing and len(current) > 1:
        out.append(tuple(current))
    return out
