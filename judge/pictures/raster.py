"""The PNG back end: a scene drawn with Pillow.

Pillow's wheel carries its own FreeType and a scalable font (``ImageFont.load_default``), so
no system font or library is needed.  The static layers of a map (land, sea, borders, names)
are drawn once per process and kept; a picture copies them and adds its own shapes.  The
picture is drawn at twice its size and scaled down, which smooths every edge, then reduced to
a palette of at most 256 colours: map pictures are large flat areas, and a palette PNG of one
is a few tens of kilobytes.
"""

from __future__ import annotations

import io
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from threading import Lock
from typing import Iterable, Sequence

from PIL import Image, ImageDraw, ImageFont

from judge.pictures.scene import XY, Circle, Layer, Line, Polygon, Scene, Shape, Text, dashes, rgb

SCALE = 2  # drawn at this multiple of the picture's size, then reduced
_ANCHORS = {"start": "lm", "middle": "mm", "end": "rm"}


@lru_cache(maxsize=64)
def _font(size: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size)


def _hatch(img: Image.Image, pts: Sequence[XY], colour: str, s: int) -> None:
    """Diagonal stripes inside the polygon ``pts`` (already scaled)."""
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, y0 = int(min(xs)), int(min(ys))
    x1, y1 = int(max(xs)) + 1, int(max(ys)) + 1
    w, h = x1 - x0, y1 - y0
    if w <= 0 or h <= 0:
        return
    mask = Image.new("L", (w, h), 0)
    md = ImageDraw.Draw(mask)
    md.polygon([(x - x0, y - y0) for x, y in pts], fill=255)
    stripes = Image.new("L", (w, h), 0)
    sd = ImageDraw.Draw(stripes)
    gap = 8 * s
    for k in range(-h, w + h, gap):
        sd.line([(k, 0), (k - h, h)], fill=255, width=max(1, int(1.2 * s)))
    from PIL import ImageChops
    img.paste(rgb(colour), (x0, y0, x1, y1), ImageChops.multiply(mask, stripes))


def _draw(img: Image.Image, shapes: Iterable[Shape], s: int) -> None:
    draw = ImageDraw.Draw(img)
    for sh in shapes:
        if isinstance(sh, Polygon):
            pts = [(x * s, y * s) for x, y in sh.points]
            if sh.fill is not None:
                draw.polygon(pts, fill=rgb(sh.fill))
            if sh.hatch is not None:
                _hatch(img, pts, sh.hatch, s)
            if sh.outline is not None:
                draw.line(pts + [pts[0]], fill=rgb(sh.outline), width=max(1, round(sh.width * s)),
                          joint="curve")
        elif isinstance(sh, Line):
            width = max(1, round(sh.width * s))
            pieces = dashes(sh.points, *sh.dash) if sh.dash else [sh.points]
            for piece in pieces:
                draw.line([(x * s, y * s) for x, y in piece], fill=rgb(sh.colour), width=width,
                          joint="curve")
        elif isinstance(sh, Circle):
            x, y = sh.centre
            r = sh.radius * s
            draw.ellipse((x * s - r, y * s - r, x * s + r, y * s + r),
                         fill=rgb(sh.fill) if sh.fill else None,
                         outline=rgb(sh.outline) if sh.outline else None,
                         width=max(1, round(sh.width * s)))
        elif isinstance(sh, Text):
            x, y = sh.position
            draw.text((x * s, y * s), sh.text, fill=rgb(sh.colour), font=_font(sh.size * s),
                      anchor=_ANCHORS.get(sh.anchor, "mm"),
                      stroke_width=round(0.35 * s) if sh.bold else 0,
                      stroke_fill=rgb(sh.colour) if sh.bold else None)


@dataclass
class _Static:
    """A map's static layers, drawn once: all of them over the background, and for each
    dynamic layer with static layers above it, those static layers alone (transparent
    elsewhere), to lay back over whatever the dynamic layer covered."""

    composite: Image.Image
    overlays: dict[int, Image.Image]


_STATIC: "OrderedDict[tuple[object, ...], _Static]" = OrderedDict()
_STATIC_LOCK = Lock()
TILE = 96  # the overlay is laid back tile by tile, only where a dynamic shape drew


def _statics(scene: Scene, s: int) -> _Static:
    key = (scene.static_key, scene.width, scene.height, scene.background, s,
           tuple((layer.name, layer.static) for layer in scene.layers))
    with _STATIC_LOCK:
        found = _STATIC.get(key)
        if found is not None:
            _STATIC.move_to_end(key)
            return found
    size = (scene.width * s, scene.height * s)
    composite = Image.new("RGB", size, rgb(scene.background))
    for layer in scene.layers:
        if layer.static:
            _draw(composite, layer.shapes, s)
    overlays: dict[int, Image.Image] = {}
    for i, layer in enumerate(scene.layers):
        above = [lay for lay in scene.layers[i + 1:] if lay.static]
        if not layer.static and above:
            over = Image.new("RGBA", size, (0, 0, 0, 0))
            for lay in above:
                _draw(over, lay.shapes, s)
            overlays[i] = over
    made = _Static(composite, overlays)
    with _STATIC_LOCK:
        _STATIC[key] = made
        while len(_STATIC) > 4:
            _STATIC.popitem(last=False)
    return made


def _box(sh: Shape) -> tuple[float, float, float, float]:
    if isinstance(sh, (Polygon, Line)):
        xs, ys = [p[0] for p in sh.points], [p[1] for p in sh.points]
        pad = getattr(sh, "width", 1.0) + 1
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad
    if isinstance(sh, Circle):
        r = sh.radius + sh.width + 1
        return sh.centre[0] - r, sh.centre[1] - r, sh.centre[0] + r, sh.centre[1] + r
    x, y = sh.position
    half = sh.size * (len(sh.text) + 1)
    return x - half, y - sh.size, x + half, y + sh.size


def _tiles(shapes: list[Shape], s: int, size: tuple[int, int]) -> list[tuple[int, int, int, int]]:
    """The tiles (in drawing pixels) the shapes touch, each once."""
    touched: set[tuple[int, int]] = set()
    for sh in shapes:
        x0, y0, x1, y1 = _box(sh)
        for tx in range(max(0, int(x0 * s) // TILE), min(size[0] - 1, int(x1 * s)) // TILE + 1):
            for ty in range(max(0, int(y0 * s) // TILE),
                            min(size[1] - 1, int(y1 * s)) // TILE + 1):
                touched.add((tx, ty))
    return [(tx * TILE, ty * TILE, min(size[0], (tx + 1) * TILE), min(size[1], (ty + 1) * TILE))
            for tx, ty in sorted(touched)]


def render_image(scene: Scene, scale: int = SCALE) -> Image.Image:
    """The scene as an RGB image of its own size."""
    s = scale
    static = _statics(scene, s)
    img = static.composite.copy()
    for i, layer in enumerate(scene.layers):
        if layer.static or not layer.shapes:
            continue
        _draw(img, layer.shapes, s)
        over = static.overlays.get(i)
        if over is not None:
            for box in _tiles(layer.shapes, s, img.size):
                piece = over.crop(box)
                img.paste(piece, box, piece)
    return img.reduce(s) if s > 1 else img


# the colours of each map's static layers (by the scene's static key), found once
_STATIC_COLOURS: dict[str, frozenset[tuple[int, int, int]]] = {}


def _colours(layers: Iterable[Layer]) -> set[tuple[int, int, int]]:
    found = set()
    for layer in layers:
        for sh in layer.shapes:
            for name in ("fill", "outline", "colour", "hatch"):
                value = getattr(sh, name, None)
                if value:
                    found.add(rgb(value))
    return found


def _scene_colours(scene: Scene) -> list[tuple[int, int, int]]:
    static = _STATIC_COLOURS.get(scene.static_key)
    if static is None:
        static = _STATIC_COLOURS[scene.static_key] = frozenset(
            _colours(layer for layer in scene.layers if layer.static))
    found = {rgb(scene.background)} | static
    found |= _colours(layer for layer in scene.layers if not layer.static)
    return sorted(found)


def to_palette(img: Image.Image, exact: list[tuple[int, int, int]]) -> Image.Image:
    """``img`` with at most 256 colours: every colour of ``exact`` kept as it is (a centre's
    owner, a power's units), the rest of the palette chosen for the smoothed edges.

    Pillow maps pixels to a palette through a cache of 6 bits per channel, so a colour of
    the rest close to an exact one could take its pixels: such colours are left out."""
    exact = exact[:128]
    rest = img.quantize(colors=256 - len(exact), method=Image.Quantize.FASTOCTREE,
                        dither=Image.Dither.NONE)
    found = (rest.getpalette() or [])[: 3 * (256 - len(exact))]
    entries = [c for colour in exact for c in colour]
    for i in range(0, len(found) - 2, 3):
        r, g, b = found[i:i + 3]
        if all(abs(r - x) + abs(g - y) + abs(b - z) > 12 for x, y, z in exact):
            entries += [r, g, b]
    palette = Image.new("P", (1, 1))
    palette.putpalette(entries + [0] * (768 - len(entries)))
    return img.quantize(palette=palette, dither=Image.Dither.NONE)


def render_png(scene: Scene, scale: int = SCALE) -> bytes:
    """The scene as PNG bytes (a palette image: see the module docstring)."""
    img = to_palette(render_image(scene, scale), _scene_colours(scene))
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()
