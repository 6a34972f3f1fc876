"""What one map picture shows, and the scene that draws it.

A :class:`Picture` is the board of one phase as a player should see it: the units as they
stood, the orders with what became of them, the units dislodged and where they may retreat,
the supply centres by owner after the phase, and for Formal Diplomacy the spheres of
influence and the wars.  :func:`draw` turns it into a :class:`judge.pictures.scene.Scene` on the
map's geometry; the back ends write that scene as SVG or PNG.

Conventions of the drawing: a solid dark arrow is a move that succeeded, a dashed red one a
move that failed; supports are thin dashed lines (to a ring round the unit held, or to the
middle of the move supported), convoys thin blue dashed lines to the middle of the convoyed
move; a ring round a unit is an explicit hold; a red cross is a unit disbanded or removed, a
green ring a unit built; a dislodged unit has a red ring, and thin purple arrows show where it
may retreat.  The symbols are drawn by :mod:`judge.pictures.symbols`; the key under the map
(:mod:`judge.pictures.legend`) names each one the picture uses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Sequence

from judge.core.board import Dislodged, Position, Unit
from judge.core.maps import ARMY, Map, province_of
from judge.core.orders import (Build, Convoy, Disband, Hold, Move, Order, OrderError, Remove,
                               Retreat, Support, Waive, parse_order)
from judge.core.phases import Phase
from judge.core.order_results import BUILD, DISBAND, OK, REMOVE
from judge.pictures.geometry import Geometry
from judge.pictures.legend import KEY_ROW, draw_key, key_rows
from judge.pictures.scene import XY, Layer, Line, Polygon, Scene, Shape, Text, mix
from judge.pictures.symbols import (BUILT, CONVOY_FAILED, CONVOY_LINE, FAILED, HOLD_RING, INK, MARK_RING,
                                    MOVE, MOVE_FAILED, RETREAT_OPTION, SUPPORT, SUPPORT_FAILED, UNIT_R,
                                    center_marker, cross, ring_round, stroked, unit_shapes)

SEASONS = {"S": "Spring", "F": "Fall", "W": "Winter"}
TYPES = {"M": "Movement", "R": "Retreats", "A": "Adjustments"}

# colours of the drawing (the powers' own come with the map's geometry)
SEA = "#b9d3ea"
LAND = "#efe5cb"
IMPASSABLE = "#8f8a80"
COAST_LINE = "#51606e"
LAND_LINE = "#9b8c6e"
SEA_LINE = "#8fb0cf"
PAPER = "#fbf8f0"
SEA_LABEL = "#2b4f73"
FALLBACK_COLOURS = ("#c0392b", "#24408e", "#3ab0e6", "#4a4a4a", "#2e9a3e", "#8e44ad",
                    "#e0b000", "#d35400", "#16a085", "#7f8c8d")

TITLE_HEIGHT = 34
LEGEND_ROW = 26
# a unit waiting to retreat is drawn this far from the spot of the unit that took its place
WAITING_OFFSET = (15.0, 11.0)


def phase_title(phase: Phase) -> str:
    return f"{SEASONS[phase.season]} {phase.year} {TYPES[phase.type]}"


@dataclass(frozen=True)
class Mark:
    """One order to draw: the order as understood and what became of it (a result code of
    :mod:`judge.core.order_results`), or ``None`` for an order not yet adjudicated."""

    power: str
    order: Order
    result: str | None
    unit: Unit | None = None
    default: bool = False  # supplied by the judge (a unit left without orders)


@dataclass(frozen=True)
class Formal:
    """The Formal Diplomacy state a picture shows."""

    spheres: Mapping[str, str] = field(default_factory=dict)  # province → power
    wars: tuple[tuple[str, str], ...] = ()
    points: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Picture:
    map: Map
    phase: Phase
    units: tuple[Unit, ...]  # as they stood at the start of the phase
    centers: Mapping[str, frozenset[str]]  # owners shown (after the phase, if played)
    marks: tuple[Mark, ...] = ()
    # a retreat phase's units waiting to retreat (drawn beside the unit that dislodged them)
    waiting: tuple[Dislodged, ...] = ()
    # units dislodged by the phase, with where they may retreat
    dislodged: tuple[Dislodged, ...] = ()
    game: str = ""
    note: str = ""  # e.g. "orders received so far"
    formal: Formal | None = None


# --------------------------------------------------------------------------- building pictures

def parse_marks(m: Map, phase: Phase,
                results: Mapping[str, Iterable[tuple[str, str | None, bool]]],
                board: Position) -> tuple[Mark, ...]:
    """Marks from order texts (``power → [(order text, result code or None, default)]``);
    lines that do not parse (a Formal Diplomacy claim, say) are left out: there is no arrow
    for them."""
    marks = []
    for power, entries in results.items():
        for text, code, default in entries:
            order = parse_order(m, text, phase.type)
            if isinstance(order, OrderError):
                continue
            spec = getattr(order, "unit", None)
            unit = None
            if spec is not None:
                unit = board.unit_at(spec.province)
                if phase.type == "R" or unit is None:
                    unit = next((d.unit for d in board.dislodged
                                 if d.unit.province == spec.province), unit)
            marks.append(Mark(power, order, code, unit, default))
    return tuple(marks)


# --------------------------------------------------------------------------- drawing

def power_colours(m: Map, geometry: Geometry) -> dict[str, str]:
    out = {}
    for i, power in enumerate(m.powers):
        out[power] = geometry.colours.get(power, FALLBACK_COLOURS[i % len(FALLBACK_COLOURS)])
    return out


# the static layers of each map, made once: every picture of the map shares them (nothing
# changes a layer once made), and making them was a few milliseconds of every picture
_STATIC_LAYERS: dict[tuple[str, str, int], tuple[Layer, Layer, Layer]] = {}


def static_layers(geometry: Geometry, m: Map, top: int) -> tuple[Layer, Layer, Layer]:
    """Land and sea, borders, and names: the same in every picture of the map."""
    key = (geometry.name, m.name, top)
    found = _STATIC_LAYERS.get(key)
    if found is None:  # (two threads may both make them: the same layers either way)
        found = _STATIC_LAYERS[key] = _make_static_layers(geometry, m, top)
    return found


def _make_static_layers(geometry: Geometry, m: Map, top: int) -> tuple[Layer, Layer, Layer]:
    land = Layer("land", static=True)
    for code, shape in geometry.provinces.items():
        kind = m.provinces[code].kind
        fill = SEA if kind == "sea" else IMPASSABLE if kind == "impassable" else LAND
        land.add(Polygon(_moved(shape.outline, top), fill))
    borders = Layer("borders", static=True)
    style = {"coast": (COAST_LINE, 1.6), "land": (LAND_LINE, 1.0), "sea": (SEA_LINE, 1.0)}
    for border in sorted(geometry.borders, key=lambda b: b.kind != "sea"):
        colour, width = style.get(border.kind, (LAND_LINE, 1.0))
        borders.add(Line(_moved(border.points, top), colour, width))
    labels = Layer("labels", static=True)
    for code, shape in sorted(geometry.provinces.items()):
        kind = m.provinces[code].kind
        colour = SEA_LABEL if kind == "sea" else "#f4f1ea" if kind == "impassable" else INK
        x, y = shape.label
        labels.add(Text((x, y + top), code, 11.5, colour))
        # the coasts of Spain, Bulgaria and St Petersburg, named where a fleet on them stands
        # (a fleet there covers its coast's name and so shows which coast it is on)
        for coast, (cx, cy) in sorted(shape.coasts.items()):
            labels.add(Text((cx, cy + top), coast.lower(), 10.0, SEA_LABEL, bold=True))
    return land, borders, labels


def _moved(points: Iterable[XY], top: float) -> tuple[XY, ...]:
    return tuple((x, y + top) for x, y in points)


def draw(picture: Picture, geometry: Geometry) -> Scene:
    """The scene of ``picture`` on ``geometry`` (see the module docstring for the symbols)."""
    m = picture.map
    colours = power_colours(m, geometry)
    scene = Scene(geometry.width, 0, PAPER, static_key=f"{geometry.name}:{TITLE_HEIGHT}",
                  title=_title(picture))
    land, borders, labels = static_layers(geometry, m, TITLE_HEIGHT)
    tints = Layer("tints")
    marks = Layer("marks")
    frame = Layer("frame")
    key = Layer("key")
    scene.layers = [land, tints, borders, labels, marks, frame, key]
    top = TITLE_HEIGHT

    def at(location: str) -> XY:
        x, y = geometry.spot(location)
        return (x, y + top)

    owner = {c: p for p, owned in picture.centers.items() for c in owned}
    _tints(picture, geometry, colours, owner, tints)
    centres: list[Shape] = []
    for code in sorted(m.supply_centers):
        shape = geometry.provinces[code]
        if shape.center is None:
            continue
        power = owner.get(code)
        x, y = shape.center
        centres.append(center_marker((x, y + top), colours[power] if power else None))
    shown = _orders(picture, geometry, colours, marks, at, centres)
    if centres:
        shown.add("center")
    # under the map, the key of the symbols drawn, then the powers
    rows = key_rows(shown, geometry.width)
    legend_rows = 1 + (1 if picture.formal is not None else 0)
    scene.height = TITLE_HEIGHT + geometry.height + len(rows) * KEY_ROW \
        + legend_rows * LEGEND_ROW + 8
    draw_key(key, rows, TITLE_HEIGHT + geometry.height + 4)
    _frame(picture, scene, frame, colours, owner)
    return scene


def _tints(picture: Picture, geometry: Geometry, colours: Mapping[str, str],
           owner: Mapping[str, str], tints: Layer) -> None:
    """Each supply centre's province in a pale tint of its owner's colour; Formal
    Diplomacy's spheres of influence hatched in their power's."""
    for code in sorted(picture.map.supply_centers):
        power = owner.get(code)
        if power is not None:
            shape = geometry.provinces[code]
            tints.add(Polygon(_moved(shape.outline, TITLE_HEIGHT),
                              mix(colours[power], "#ffffff", 0.62)))
    if picture.formal is not None:
        for code, power in sorted(picture.formal.spheres.items()):
            if code in geometry.provinces and power in colours:
                tints.add(Polygon(_moved(geometry.provinces[code].outline, TITLE_HEIGHT), None,
                                  hatch=colours[power]))


def _title(picture: Picture) -> str:
    parts = [picture.game] if picture.game else []
    parts.append(phase_title(picture.phase))
    return ": ".join(parts) + (f" ({picture.note})" if picture.note else "")


def _shorten(a: XY, b: XY, start: float, end: float) -> tuple[XY, XY] | None:
    length = math.dist(a, b)
    if length <= start + end + 2:
        return None
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    return (a[0] + ux * start, a[1] + uy * start), (b[0] - ux * end, b[1] - uy * end)


def _orders(picture: Picture, geometry: Geometry, colours: Mapping[str, str], layer: Layer,
            at: Callable[[str], XY], centres: list[Shape]) -> set[str]:
    """Units and orders, in this order from the bottom: order lines, units, supply-centre
    markers (an arrow never hides who owns a centre), rings and crosses.  Returns the symbols
    drawn (the names :mod:`judge.pictures.legend` knows them by)."""
    board = _Board(at, _unit_spots(picture, at), {}, _convoy_routes(picture.marks, geometry))
    for mk in picture.marks:
        o = mk.order
        if isinstance(o, (Move, Retreat)) and o.unit.province in board.spot:
            board.moves[o.unit.province] = (board.spot[o.unit.province], at(o.dest))
    lines: list[Shape] = []
    symbols: list[Shape] = []
    for mk in picture.marks:
        drawn, marked = _order_shapes(mk, board, colours)
        lines += drawn
        symbols += marked
    retreats, rings = _retreat_shapes(picture, board)
    # the lines under the units (a convoyed army's arrow runs through its fleets), the
    # marks that tell what happened over them
    layer.add(*lines, *retreats)
    _draw_units(picture, board, colours, layer)
    layer.add(*centres, *rings, *symbols)
    return board.shown


@dataclass
class _Board:
    """Where things are drawn: ``at`` a location's point; ``spot`` where each province's
    (acting) unit is; ``moves`` each moving unit's arrow ends; ``via`` the fleets a convoyed
    army's arrow runs through; ``shown`` the symbols drawn so far, for the key."""

    at: Callable[[str], XY]
    spot: dict[str, XY]
    moves: dict[str, tuple[XY, XY]]
    via: dict[str, list[str]]
    shown: set[str] = field(default_factory=set)


def _unit_spots(picture: Picture, at: Callable[[str], XY]) -> dict[str, XY]:
    """Province → where its (acting) unit is drawn; a unit waiting to retreat is drawn beside
    the unit that took its place."""
    spot: dict[str, XY] = {}
    for u in picture.units:
        spot[u.province] = at(u.location)
    for d in picture.waiting:
        x, y = at(d.unit.location)
        dx, dy = WAITING_OFFSET
        spot[d.unit.province] = (x + dx, y + dy) if d.unit.province in spot else (x, y)
    return spot


def _convoy_routes(marks: Sequence[Mark], geometry: Geometry) -> dict[str, list[str]]:
    """The fleets a convoyed army's arrow runs through (its route, or the fleets convoying
    it), by the army's province."""
    via_of: dict[str, list[str]] = {}
    for mk in marks:
        o = mk.order
        if isinstance(o, Move):
            convoys = [c.order.unit.province for c in marks if isinstance(c.order, Convoy)
                       and c.order.target.province == o.unit.province
                       and province_of(c.order.dest) == province_of(o.dest)]
            via = [p for p in (list(o.route) or convoys) if p in geometry.provinces]
            if via:
                via_of[o.unit.province] = via
    return via_of


def _order_shapes(mk: Mark, board: _Board, colours: Mapping[str, str]
                  ) -> tuple[list[Shape], list[Shape]]:
    """One order's lines (drawn under the units) and symbols (over them)."""
    o = mk.order
    failed = mk.result is not None and mk.result not in (OK, BUILD, REMOVE, DISBAND)
    if isinstance(o, Waive):
        return [], []
    src = board.spot.get(o.unit.province)
    if isinstance(o, (Move, Retreat)):
        return (_move_shapes(o, src, board, failed) if src is not None else []), []
    if isinstance(o, Support):
        return _support_shapes(o, src, board, failed), []
    if isinstance(o, Convoy):
        return _convoy_shapes(o, src, board, failed), []
    if isinstance(o, Hold):
        if src is not None and not mk.default:
            board.shown.add("failed" if failed else "hold")
            return [], [ring_round(src, FAILED if failed else INK, HOLD_RING)]
    elif isinstance(o, (Disband, Remove)):
        if src is not None and mk.result in (None, DISBAND, REMOVE, OK):
            board.shown.add("remove" if isinstance(o, Remove) else "disband")
            return [], cross(src)
    elif isinstance(o, Build):
        if mk.result in (None, BUILD, OK) and o.unit.kind is not None:
            board.shown.update(("build", "army" if o.unit.kind == ARMY else "fleet"))
            return [], unit_shapes(o.unit.kind, board.at(o.unit.location), colours[mk.power],
                                   ring=BUILT)
    return [], []


def _move_shapes(o: Move | Retreat, src: XY, board: _Board, failed: bool) -> list[Shape]:
    """A move's arrow (through the fleets that convoy it), or a retreat's."""
    dst = board.at(o.dest)
    route = [src]
    if isinstance(o, Move) and o.unit.province in board.via:
        stops = sorted(set(board.via[o.unit.province]),
                       key=lambda p: _along(src, dst, board.at(p)))
        route += [board.at(p) for p in stops]
    route.append(dst)
    ends = _shorten(route[-2], route[-1], 0, UNIT_R + 2)
    first = _shorten(route[0], route[1], UNIT_R + 1, 0)
    if ends is None or first is None:
        return []
    route[0] = first[0]
    route[-1] = ends[1]
    board.shown.add("failed" if failed else "move")
    return stroked(route, MOVE_FAILED if failed else MOVE)


def _support_shapes(o: Support, src: XY | None, board: _Board, failed: bool) -> list[Shape]:
    """A support: a ring round the unit held, or an arrow to the middle of the move."""
    target = board.spot.get(o.target.province)
    if src is None or target is None:
        return []
    stroke = SUPPORT_FAILED if failed else SUPPORT
    board.shown.add("failed" if failed else "support")
    if o.dest is None:
        board.shown.add("failed" if failed else "hold")  # the ring round the unit held
        seg = _shorten(src, target, UNIT_R + 1, UNIT_R + 4)
        ring: list[Shape] = [ring_round(target, stroke.colour, HOLD_RING)]
        return (stroked(list(seg), replace(stroke, head=0.0)) if seg else []) + ring
    a, b = board.moves.get(o.target.province, (target, board.at(o.dest)))
    seg = _shorten(src, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), UNIT_R + 1, 3)
    return stroked(list(seg), stroke) if seg else []


def _convoy_shapes(o: Convoy, src: XY | None, board: _Board, failed: bool) -> list[Shape]:
    """A convoy: a ring round the fleet; and, unless the army's arrow runs through the fleet
    already, a line to the middle of the move it would carry."""
    target = board.spot.get(o.target.province)
    if src is None or target is None:
        return []
    stroke = CONVOY_FAILED if failed else CONVOY_LINE
    board.shown.add("failed" if failed else "convoy")
    shapes: list[Shape] = []
    if o.unit.province not in board.via.get(o.target.province, ()):
        a, b = board.moves.get(o.target.province, (target, board.at(o.dest)))
        seg = _shorten(src, ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), UNIT_R + 1, 2)
        if seg:
            shapes += stroked(list(seg), stroke)
    shapes.append(ring_round(src, stroke.colour, HOLD_RING))
    return shapes


def _retreat_shapes(picture: Picture, board: _Board) -> tuple[list[Shape], list[Shape]]:
    """The dislodged units of the phase (and those waiting to retreat without an order yet):
    arrows to where they may go, and a ring round each dislodged one."""
    retreats: list[Shape] = []
    rings: list[Shape] = []

    def ways_out(src: XY, places: Iterable[str]) -> None:
        for loc in places:
            seg = _shorten(src, board.at(loc), UNIT_R + 4, UNIT_R + 2)
            if seg:
                board.shown.add("retreat")
                retreats.extend(stroked(list(seg), RETREAT_OPTION))

    ordered = {mk.order.unit.province for mk in picture.marks
               if isinstance(mk.order, (Retreat, Disband))}
    for d in picture.waiting:
        if d.unit.province not in ordered:
            ways_out(board.spot[d.unit.province], d.retreats)
    for d in picture.dislodged:
        src = board.spot.get(d.unit.province)
        if src is not None:
            board.shown.add("dislodged")
            rings.append(ring_round(src, FAILED, MARK_RING))
            ways_out(src, d.retreats)
    return retreats, rings


def _draw_units(picture: Picture, board: _Board, colours: Mapping[str, str],
                layer: Layer) -> None:
    """The units: those in place, then those waiting to retreat (ringed), then the units that
    took a waiting one's place, on top."""
    waiting = {d.unit.province for d in picture.waiting}
    for u in picture.units:
        if u.province not in waiting:
            layer.add(*unit_shapes(u.kind, board.spot[u.province], colours.get(u.power, INK)))
    for d in picture.waiting:
        layer.add(*unit_shapes(d.unit.kind, board.spot[d.unit.province],
                               colours.get(d.unit.power, INK), ring=FAILED))
    for u in picture.units:
        if u.province in waiting:
            layer.add(*unit_shapes(u.kind, board.at(u.location), colours.get(u.power, INK)))
    board.shown.update("army" if u.kind == ARMY else "fleet"
                       for u in (*picture.units, *(d.unit for d in picture.waiting)))
    if waiting:
        board.shown.add("dislodged")


def _along(a: XY, b: XY, p: XY) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    return ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / ((dx * dx + dy * dy) or 1.0)


def _frame(picture: Picture, scene: Scene, frame: Layer, colours: Mapping[str, str],
           owner: Mapping[str, str]) -> None:
    """The title above the map, and the legend of powers at the foot."""
    m = picture.map
    width = scene.width
    frame.add(Text((12, TITLE_HEIGHT / 2), scene.title, 16.0, INK, anchor="start", bold=True))
    base = scene.height - (2 if picture.formal is not None else 1) * LEGEND_ROW - 4
    counts = {p: 0 for p in m.powers}
    for power in owner.values():
        if power in counts:
            counts[power] += 1
    cell = width / max(1, len(m.powers))
    for i, power in enumerate(m.powers):
        x = 10.0 + i * cell
        y = base + LEGEND_ROW / 2
        frame.add(Polygon(((x, y - 7), (x + 14, y - 7), (x + 14, y + 7), (x, y + 7)),
                          colours[power], INK, 1.0))
        label = f"{power.capitalize()} {counts[power]} SC"
        if picture.formal is not None:
            label += f", {picture.formal.points.get(power, 0)} VP"
        frame.add(Text((x + 20, y), label, 12.0, INK, anchor="start"))
    if picture.formal is not None:
        y = base + LEGEND_ROW * 1.5
        wars = ", ".join(f"{a.capitalize()}-{b.capitalize()}"
                         for a, b in picture.formal.wars) or "none"
        frame.add(Text((10, y), f"At war: {wars}.  Hatched: spheres of influence.", 12.0, INK,
                       anchor="start"))
