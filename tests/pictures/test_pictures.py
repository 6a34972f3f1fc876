"""The pictures of a real game's phases, kept in ``fixtures/`` (drawn by ``fixture_game.py``
and looked at), checked by reading their pixels: every supply centre shows its owner's
colour, every unit stands inside its province in its power's colour, moves are arrows from
province to province (solid dark when they succeeded, dashed red when they failed), and the
dislodged, built, removed units and Formal Diplomacy's spheres are marked.  The same checks
run on a fresh drawing of each phase, so a change of the drawing that breaks them fails."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from PIL import Image

from fixture_game import FIXTURES, documents
from judge.core.orders import Build, Move, Remove, Retreat
from judge.core.order_results import OK
from judge.pictures import png_of
from judge.pictures.document import picture_from_document
from judge.pictures.geometry import is_inside, load_geometry
from judge.pictures.picture import LAND, SEA, TITLE_HEIGHT, WAITING_OFFSET, Picture, power_colours
from judge.pictures.scene import mix, rgb
from judge.pictures.symbols import BUILT, FAILED, INK, NEUTRAL_CENTER, UNIT_R

NAMES = ["s1901m", "f1901m", "f1901r", "w1901a", "formal"]


def test_the_fixtures_are_the_game_played_now() -> None:
    """The kept documents are what the core makes of the scripted game today."""
    for name, doc in documents().items():
        assert json.loads((FIXTURES / f"{name}.json").read_text()) == doc, name
    assert sorted(documents()) == sorted(NAMES)


def _image(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.mode == "P"  # a palette image: small
    return img.convert("RGB")


def _near(a: tuple[int, int, int], b: tuple[int, int, int], tolerance: float = 60) -> bool:
    return math.dist(a, b) <= tolerance


def _px(img: Image.Image, p: tuple[float, float]) -> tuple[int, int, int]:
    return img.getpixel((int(p[0]), int(p[1])))  # type: ignore[return-value]


def _at(g, location: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    x, y = g.spot(location)
    return x, y + TITLE_HEIGHT


def _ring(img: Image.Image, c: tuple[float, float], colour: str, r: float = UNIT_R + 4) -> int:
    hits = 0
    for k in range(16):
        a = 2 * math.pi * k / 16
        if _near(_px(img, (c[0] + r * math.cos(a), c[1] + r * math.sin(a))), rgb(colour), 70):
            hits += 1
    return hits


def check(picture: Picture, img: Image.Image) -> None:
    m = picture.map
    g = load_geometry(m)
    colours = power_colours(m, g)
    # every supply centre in its owner's colour (white when nobody owns it)
    owner = {c: p for p, owned in picture.centers.items() for c in owned}
    for code in sorted(m.supply_centers):
        x, y = g.provinces[code].center  # type: ignore[misc]
        want = rgb(colours[owner[code]]) if code in owner else rgb(NEUTRAL_CENTER)
        assert _px(img, (x, y + TITLE_HEIGHT)) == want, code
    # every unit inside its province, in its power's colour
    removed = {mk.order.unit.province for mk in picture.marks if isinstance(mk.order, Remove)}
    waiting = {d.unit.province for d in picture.waiting}
    spots = {}
    for u in picture.units:
        spots[u.province] = _at(g, u.location)
    for d in picture.waiting:
        x, y = _at(g, d.unit.location)
        spots[d.unit.province] = (x + WAITING_OFFSET[0], y + WAITING_OFFSET[1])
    drawn = list(picture.units) + [d.unit for d in picture.waiting]
    for u in drawn:
        x, y = _at(g, u.location) if u in picture.units else spots[u.province]
        if u in picture.units and u.province in waiting:
            x, y = _at(g, u.location)
        outline = g.provinces[u.province].outline
        for dx, dy in ((-UNIT_R, -UNIT_R), (UNIT_R, -UNIT_R), (-UNIT_R, UNIT_R),
                       (UNIT_R, UNIT_R)):
            if u not in picture.units:
                break  # a unit waiting to retreat stands beside the unit that took its place
            assert is_inside((x + dx, y - TITLE_HEIGHT + dy), outline), (u, dx, dy)
        if u.province not in removed:
            assert _px(img, (x - 5, y)) == rgb(colours[u.power]), u
    for mk in picture.marks:
        o = mk.order
        if isinstance(o, (Move, Retreat)):
            src, dst = spots[o.unit.province], _at(g, o.dest)
            samples = [_px(img, (src[0] + (dst[0] - src[0]) * t, src[1] + (dst[1] - src[1]) * t))
                       for t in (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)]
            convoyed = any(c.order.__class__.__name__ == "Convoy" for c in picture.marks)
            if mk.result == OK:
                if not (convoyed and isinstance(o, Move) and o.dest not in m.army_adj.get(
                        o.unit.province, ())):
                    assert sum(_near(s, rgb(INK)) for s in samples) >= 4, (o, samples)
            else:
                assert any(_near(s, rgb(FAILED), 80) for s in samples), (o, samples)
        elif isinstance(o, Build):
            assert _ring(img, _at(g, o.unit.location), BUILT) >= 6, o
        elif isinstance(o, Remove):
            x, y = spots[o.unit.province]
            assert _near(_px(img, (x + 8, y + 8)), rgb(FAILED), 80), o
    for d in picture.dislodged:
        assert _ring(img, spots[d.unit.province], FAILED) >= 6, d
    for d in picture.waiting:
        assert _ring(img, spots[d.unit.province], FAILED) >= 6, d
    if picture.formal is not None:
        for code, power in picture.formal.spheres.items():
            # stripes: many pixels inside are nearer the power's colour than the ground's
            outline = g.provinces[code].outline
            ground = rgb(SEA if m.provinces[code].kind == "sea" else LAND)
            if code in owner:
                ground = rgb(mix(colours[owner[code]], "#ffffff", 0.62))
            xs, ys = [p[0] for p in outline], [p[1] for p in outline]
            inside = [_px(img, (x, y + TITLE_HEIGHT))
                      for x in range(int(min(xs)), int(max(xs)), 2)
                      for y in range(int(min(ys)), int(max(ys)), 2) if is_inside((x, y), outline)]
            striped = [c for c in inside
                       if math.dist(c, rgb(colours[power])) < math.dist(c, ground)]
            assert len(striped) >= 0.1 * len(inside), (code, power, len(striped), len(inside))


@pytest.mark.parametrize("name", NAMES)
def test_the_kept_picture(name: str) -> None:
    doc = json.loads((FIXTURES / f"{name}.json").read_text())
    picture = picture_from_document(doc)
    kept = Path(FIXTURES / f"{name}.png").read_bytes()
    assert len(kept) <= 200_000
    img = _image(kept)
    fresh = _image(png_of(picture))
    assert img.size == fresh.size
    check(picture, img)
    check(picture, fresh)


def test_what_the_fixture_game_shows() -> None:
    """The phases have what they are kept for: bounces, a convoy, a dislodgement with its
    retreats, builds and a removal, spheres and a war."""
    docs = {n: json.loads((FIXTURES / f"{n}.json").read_text()) for n in NAMES}
    s = picture_from_document(docs["s1901m"])
    assert sum(mk.result == "bounce" for mk in s.marks) >= 4
    f = picture_from_document(docs["f1901m"])
    assert any(mk.order.__class__.__name__ == "Convoy" and mk.result == OK for mk in f.marks)
    assert [d.unit.code for d in f.dislodged] == ["A MUN"] and f.dislodged[0].retreats
    r = picture_from_document(docs["f1901r"])
    assert [d.unit.code for d in r.waiting] == ["A MUN"]
    w = picture_from_document(docs["w1901a"])
    assert sum(isinstance(mk.order, Build) for mk in w.marks) == 3
    assert sum(isinstance(mk.order, Remove) for mk in w.marks) == 1
    formal = picture_from_document(docs["formal"])
    assert formal.formal is not None and formal.formal.wars == (("FRANCE", "GERMANY"),)
    assert len(formal.formal.spheres) == 3
