"""The key of a map picture: under the map, each symbol the picture draws, shown as the map
draws it (:mod:`judge.pictures.symbols`) and named; symbols the picture does not use are left out.

The drawing (:func:`judge.pictures.picture.draw`) says which symbols it drew, by the names of
:data:`SYMBOLS`; :func:`key_rows` lays them out in rows as wide as the picture and
:func:`draw_key` draws them.
"""

from __future__ import annotations

from typing import Callable

from judge.pictures.scene import XY, Layer, Shape, Text, mix
from judge.pictures.symbols import (BUILT, CONVOY_LINE, FAILED, HOLD_RING, INK, MARK_RING, MOVE,
                                    MOVE_FAILED, RETREAT_OPTION, RING_R, CENTER_R, SUPPORT, UNIT_R,
                                    Stroke, center_marker, cross, ring_round, stroked, unit_shapes)

KEY_ROW = 32  # the height of a row of the key: a ring round a unit and its line width
TEXT_SIZE = 11.0
MARGIN = 12.0
AFTER_ICON = 6.0
BETWEEN = 18.0
# a key's units are a neutral grey: the powers' colours are the legend's below
GREY = mix(INK, "#ffffff", 0.55)
ARROW = 30.0


def _arrow(stroke: Stroke) -> Callable[[XY], list[Shape]]:
    return lambda at: stroked([at, (at[0] + ARROW, at[1])], stroke)


def _unit(kind: str, ring: str | None = None, width: float = MARK_RING
          ) -> Callable[[XY], list[Shape]]:
    middle = RING_R if ring is not None else UNIT_R
    return lambda at: unit_shapes(kind, (at[0] + middle, at[1]), GREY, ring, width)


def _convoy(at: XY) -> list[Shape]:
    centre = (at[0] + RING_R, at[1])
    line = [(centre[0] + UNIT_R + 1, at[1]), (centre[0] + RING_R + 14, at[1])]
    return [*unit_shapes("F", centre, GREY), *stroked(line, CONVOY_LINE),
            ring_round(centre, CONVOY_LINE.colour, HOLD_RING)]


def _crossed(at: XY) -> list[Shape]:
    centre = (at[0] + RING_R, at[1])
    return [*unit_shapes("A", centre, GREY), *cross(centre)]


# name → (words, width of the symbol, how it is drawn from the middle of its left edge), in
# the order the key lists them: orders, what became of units, then the board's own symbols
SYMBOLS: dict[str, tuple[str, float, Callable[[XY], list[Shape]]]] = {
    "move": ("move", ARROW, _arrow(MOVE)),
    "failed": ("failed", ARROW, _arrow(MOVE_FAILED)),
    "support": ("support", ARROW, _arrow(SUPPORT)),
    "convoy": ("convoy", 2 * RING_R + 14, _convoy),
    "hold": ("hold", 2 * RING_R, _unit("A", INK, HOLD_RING)),
    "dislodged": ("dislodged", 2 * RING_R, _unit("A", FAILED)),
    "retreat": ("may retreat", ARROW, _arrow(RETREAT_OPTION)),
    "build": ("build", 2 * RING_R, _unit("A", BUILT)),
    "disband": ("disband", 2 * RING_R, _crossed),
    "remove": ("remove", 2 * RING_R, _crossed),
    "army": ("army", 2 * UNIT_R, _unit("A")),
    "fleet": ("fleet", 2 * UNIT_R, _unit("F")),
    "center": ("supply centre", 2 * CENTER_R,
               lambda at: [center_marker((at[0] + CENTER_R, at[1]), None)]),
}


def _text_width(words: str) -> float:
    # a generous estimate: the SVG's reader chooses its own sans-serif font
    return 0.58 * TEXT_SIZE * len(words)


def key_rows(shown: set[str], width: float) -> list[list[str]]:
    """The symbols of ``shown`` in the key's order, in rows that fit ``width``."""
    rows: list[list[str]] = []
    x = width  # (the first symbol starts a row)
    for name, (words, size, _) in SYMBOLS.items():
        if name not in shown:
            continue
        needed = size + AFTER_ICON + _text_width(words)
        if x + needed > width - MARGIN:
            rows.append([])
            x = MARGIN
        rows[-1].append(name)
        x += needed + BETWEEN
    return rows


def draw_key(layer: Layer, rows: list[list[str]], top: float) -> None:
    """The rows of the key, the first one starting at ``top``."""
    for i, row in enumerate(rows):
        x, y = MARGIN, top + (i + 0.5) * KEY_ROW
        for name in row:
            words, size, draw = SYMBOLS[name]
            layer.add(*draw((x, y)))
            x += size + AFTER_ICON
            layer.add(Text((x, y), words, TEXT_SIZE, INK, anchor="start"))
            x += _text_width(words) + BETWEEN
