"""The key under the map names every symbol the picture draws, drawn as the map draws it, and
no symbol it does not draw: read from the shapes of the picture itself (each stroke, ring and
unit is told by its colour and width), over the kept game and over seeded random games, as
results pictures and as pictures of the orders given so far."""

from __future__ import annotations

import json
import random
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterator

import pytest

from fixture_game import FIXTURES
from judge.core import adjudicate, initial_position, load_map
from judge.pictures import scene_of, svg_of
from judge.pictures.document import picture_from_document, results_by_power
from judge.pictures.geometry import load_geometry
from judge.pictures.picture import LEGEND_ROW, TITLE_HEIGHT
from judge.pictures.scene import Circle, Layer, Line, Polygon, Scene, Text
from judge.pictures.symbols import (BUILT, CENTER_R, CONVOY_FAILED, CONVOY_LINE, FAILED, INK, MOVE,
                                    MOVE_FAILED, RETREAT_OPTION, SUPPORT, SUPPORT_FAILED, UNIT_R)
from judge.service.positions import position_to_dict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from randomplay import random_orders  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
# what each stroke and ring of the map means, by how it is drawn
LINES = {(s.colour, s.width, s.dash): word for s, word in (
    (MOVE, "move"), (MOVE_FAILED, "failed"), (SUPPORT, "support"), (SUPPORT_FAILED, "failed"),
    (CONVOY_LINE, "convoy"), (CONVOY_FAILED, "failed"), (RETREAT_OPTION, "may retreat"))}
CROSS = (FAILED, 3.0, None)  # a unit disbanded (retreats) or removed (adjustments)
RINGS = {(INK, 1.6): "hold", (CONVOY_LINE.colour, 1.6): "convoy", (FAILED, 1.6): "failed",
         (FAILED, 2.4): "dislodged", (BUILT, 2.4): "build"}


def symbols_drawn(layer: Layer, phase_type: str) -> set[str]:
    found = set()
    for sh in layer.shapes:
        if isinstance(sh, Line):
            style = (sh.colour, sh.width, sh.dash)
            if style == CROSS:
                found.add("disband" if phase_type == "R" else "remove")
            else:
                assert style in LINES, f"a line the key cannot explain: {style}"
                found.add(LINES[style])
        elif isinstance(sh, Circle) and sh.fill is None:
            assert (sh.outline, sh.width) in RINGS, f"a ring the key cannot explain: {sh}"
            found.add(RINGS[sh.outline, sh.width])
        elif isinstance(sh, Circle):
            found.add("army" if sh.radius == UNIT_R else "supply centre")
            assert sh.radius in (UNIT_R, CENTER_R), sh
        elif isinstance(sh, Polygon) and sh.outline is not None:
            found.add("fleet")  # (an arrowhead has no outline)
    return found


def key_words(scene: Scene) -> list[str]:
    return [sh.text for sh in scene.layer("key").shapes
            if isinstance(sh, Text) and sh.anchor == "start"]


def check_key(doc: dict[str, Any]) -> list[str]:
    picture = picture_from_document(doc)
    scene = scene_of(picture)
    words = key_words(scene)
    assert len(words) == len(set(words))
    assert set(words) == symbols_drawn(scene.layer("marks"), picture.phase.type), doc["phase"]
    # each word's symbol is in the key as the map draws it
    assert set(words) <= symbols_drawn(scene.layer("key"), picture.phase.type)
    # the key lies between the map and the legend of powers
    g = load_geometry(picture.map)
    foot = scene.height - (2 if picture.formal is not None else 1) * LEGEND_ROW - 4
    for sh in scene.layer("key").shapes:
        ys = [p[1] for p in sh.points] if isinstance(sh, (Line, Polygon)) else [
            sh.centre[1] - sh.radius, sh.centre[1] + sh.radius] if isinstance(sh, Circle) \
            else [sh.position[1]]
        assert TITLE_HEIGHT + g.height < min(ys) and max(ys) < foot, sh
    return words


KEPT = {
    "s1901m": ["move", "failed", "support", "army", "fleet", "supply centre"],
    "f1901m": ["move", "failed", "support", "convoy", "hold", "dislodged", "may retreat", "army",
               "fleet", "supply centre"],
    "f1901r": ["move", "dislodged", "army", "fleet", "supply centre"],
    "w1901a": ["build", "remove", "army", "fleet", "supply centre"],
    "formal": ["move", "failed", "support", "army", "fleet", "supply centre"],
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_the_key_of_each_kept_picture_names_the_symbols_it_uses(name: str) -> None:
    doc = json.loads((FIXTURES / f"{name}.json").read_text())
    assert check_key(doc) == KEPT[name]
    # as a reader of the SVG sees it
    root = ET.fromstring(svg_of(picture_from_document(doc)))
    key = next(g for g in root.iter(f"{SVG}g") if g.get("id") == "key")
    assert [t.text for t in key.iter(f"{SVG}text") if t.get("text-anchor") == "start"] \
        == KEPT[name]


def _games(seed: int, years: int) -> Iterator[dict[str, Any]]:
    """A seeded random game's phases as results pictures, and each phase's board with its
    orders given so far (not adjudicated)."""
    rng = random.Random(seed)
    pos = initial_position(load_map())
    while pos.phase.year < 1901 + years:
        orders = random_orders(pos, rng)
        res = adjudicate(pos, orders)
        before, after = position_to_dict(pos), position_to_dict(res.position)
        yield {**before, "orders": orders}
        yield {**before, "outcome": {
            "results": results_by_power(res.results), "centers": after["centers"],
            "dislodged": after["dislodged"] if res.position.phase.type == "R" else {}}}
        pos = res.position


def test_every_symbol_a_picture_draws_is_in_its_key_and_no_other() -> None:
    seen: set[str] = set()
    for seed in (1, 2, 3):
        for doc in _games(seed, 4):
            seen |= set(check_key(doc))
    # the games drew nearly every symbol there is
    assert {"move", "failed", "support", "convoy", "hold", "dislodged", "may retreat", "build",
            "army", "fleet", "supply centre"} <= seen, seen


def test_a_disbanded_unit_is_in_the_key_as_given_and_as_played() -> None:
    doc = {"phase": "F1901R", "units": {"FRANCE": ["A MUN"], "GERMANY": ["A KIE"]},
           "dislodged": {"GERMANY": {"A MUN": ["BER"]}}, "orders": {"GERMANY": ["A Mun D"]}}
    assert check_key(doc) == ["dislodged", "disband", "army", "supply centre"]
    played = picture_from_document(doc, adjudicate_orders=True)
    assert key_words(scene_of(played)) == ["dislodged", "disband", "army", "supply centre"]
