"""The SVG back end: a scene written as an SVG document (a string, built by hand).

Every text and attribute value is escaped; colours are checked to be ``#rrggbb`` before they
are written, so nothing from a game (its name, a note) can add markup to the picture.
"""

from __future__ import annotations

import re
from xml.sax.saxutils import escape, quoteattr

from judge.pictures.scene import XY, Circle, Line, Polygon, Scene, Shape, Text

_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
_ANCHORS = {"start": "start", "middle": "middle", "end": "end"}


def _c(colour: str | None) -> str:
    if colour is None:
        return "none"
    if not _COLOUR.match(colour):
        raise ValueError(f"not a colour: {colour!r}")
    return colour.lower()


def _n(x: float) -> str:
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _points(points: tuple[XY, ...]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _shape(sh: Shape, out: list[str]) -> None:
    if isinstance(sh, Polygon):
        stroke = (f' stroke="{_c(sh.outline)}" stroke-width="{_n(sh.width)}"'
                  f' stroke-linejoin="round"' if sh.outline else "")
        if sh.fill is not None or sh.outline is not None:
            out.append(f'<polygon points="{_points(sh.points)}" fill="{_c(sh.fill)}"{stroke}/>')
        if sh.hatch is not None:
            out.append(f'<polygon points="{_points(sh.points)}" '
                       f'fill="url(#hatch{_c(sh.hatch)[1:]})"/>')
    elif isinstance(sh, Line):
        dash = f' stroke-dasharray="{_n(sh.dash[0])} {_n(sh.dash[1])}"' if sh.dash else ""
        out.append(f'<polyline points="{_points(sh.points)}" fill="none" '
                   f'stroke="{_c(sh.colour)}" stroke-width="{_n(sh.width)}" '
                   f'stroke-linejoin="round" stroke-linecap="round"{dash}/>')
    elif isinstance(sh, Circle):
        stroke = (f' stroke="{_c(sh.outline)}" stroke-width="{_n(sh.width)}"'
                  if sh.outline else "")
        out.append(f'<circle cx="{_n(sh.centre[0])}" cy="{_n(sh.centre[1])}" '
                   f'r="{_n(sh.radius)}" fill="{_c(sh.fill)}"{stroke}/>')
    elif isinstance(sh, Text):
        weight = ' font-weight="bold"' if sh.bold else ""
        out.append(f'<text x="{_n(sh.position[0])}" y="{_n(sh.position[1])}" '
                   f'font-size="{_n(sh.size)}" fill="{_c(sh.colour)}" '
                   f'text-anchor={quoteattr(_ANCHORS.get(sh.anchor, "middle"))} '
                   f'dominant-baseline="central"{weight}>{escape(sh.text)}</text>')


def render_svg(scene: Scene) -> str:
    """The scene as a standalone SVG document."""
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{scene.width}" '
           f'height="{scene.height}" viewBox="0 0 {scene.width} {scene.height}" '
           f'font-family="sans-serif">',
           f"<title>{escape(scene.title)}</title>"]
    hatches = sorted({_c(sh.hatch) for layer in scene.layers for sh in layer.shapes
                      if isinstance(sh, Polygon) and sh.hatch is not None})
    if hatches:
        out.append("<defs>")
        for colour in hatches:
            out.append(f'<pattern id="hatch{colour[1:]}" width="8" height="8" '
                       f'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
                       f'<line x1="0" y1="0" x2="0" y2="8" stroke="{colour}" '
                       f'stroke-width="1.2"/></pattern>')
        out.append("</defs>")
    out.append(f'<rect width="{scene.width}" height="{scene.height}" '
               f'fill="{_c(scene.background)}"/>')
    for layer in scene.layers:
        out.append(f"<g id={quoteattr(layer.name)}>")
        for sh in layer.shapes:
            _shape(sh, out)
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"
