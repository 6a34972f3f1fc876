"""The generator: the committed geometry is what the tool makes from the layout, the same on
every run; a layout that cannot give the adjacency is refused, saying why; and a new map
given only as data gets correct shapes the same way."""

from __future__ import annotations

import copy
import json

import pytest

from judge.core import load_map
from judge.core.maps import _build
from judge.pictures.generate import (Layout, LayoutError, dump, generate, main, read_layout, variants_dir)
from judge.pictures.geometry import build_geometry
from judge.pictures.topology import compare, derive

M = load_map("standard")


def test_the_committed_geometry_is_what_the_generator_makes() -> None:
    text = dump(generate(M, read_layout("standard")))
    assert (variants_dir() / "standard.geometry.json").read_text("utf-8") == text
    assert dump(generate(M, read_layout("standard"))) == text  # and the same again
    assert main(["standard", "--check"]) == 0


def test_a_misplaced_site_is_refused_with_the_provinces_named() -> None:
    doc = json.loads((variants_dir() / "standard.layout.json").read_text("utf-8"))
    doc["sites"]["MUN"] = [[200, 450]]  # Munich in the middle of France
    with pytest.raises(LayoutError) as info:
        generate(M, Layout.from_dict(doc))
    message = str(info.value)
    assert "the layout cannot give the map's adjacency" in message
    assert "MUN" in message


@pytest.mark.parametrize("change, expected", [
    (lambda d: d["sites"].pop("PAR"), "missing ['PAR']"),
    (lambda d: d["sites"]["PAR"].append([5000, 5]), "outside the frame"),
    (lambda d: d["sites"]["NAO"].remove([0, 0]), "frame corner (0, 0)"),
    (lambda d: d["sites"]["PIC"].append(d["sites"]["PAR"][0]), "used twice"),
])
def test_malformed_layouts_are_refused(change, expected: str) -> None:
    doc = json.loads((variants_dir() / "standard.layout.json").read_text("utf-8"))
    change(doc)
    with pytest.raises(LayoutError, match=expected.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        generate(M, Layout.from_dict(doc))


# A small map of its own, given only as data: provinces, adjacency, rough positions.  A
# split-coast province (SPL) whose coasts face two seas, a province (AAA) between three seas,
# an inland province reaching the edge of the map.
TOY = {
    "name": "toy", "start_phase": "S1901M",
    "coast_names": {"NC": "north coast", "SC": "south coast"},
    "powers": {"RED": {"adjective": "Red", "letter": "R", "home": ["AAA"], "units": ["A AAA"]},
               "BLU": {"adjective": "Blue", "letter": "B", "home": ["CCC"], "units": ["F CCC"]}},
    "provinces": {
        "NOR": {"name": "North Sea", "type": "sea", "fleet": ["AAA", "SPL/NC", "BBB", "WES"]},
        "WES": {"name": "West Sea", "type": "sea", "fleet": ["NOR", "AAA", "SOU"]},
        "SOU": {"name": "South Sea", "type": "sea", "fleet": ["WES", "AAA", "SPL/SC", "CCC"]},
        "AAA": {"name": "Aland", "type": "coast", "supply_center": True,
                "army": ["SPL"], "fleet": ["NOR", "WES", "SOU", "SPL/NC", "SPL/SC"]},
        "SPL": {"name": "Split", "type": "coast", "army": ["AAA", "BBB", "INL", "CCC"],
                "coasts": {"NC": ["NOR", "AAA", "BBB"], "SC": ["SOU", "AAA", "CCC"]}},
        "BBB": {"name": "Bland", "type": "coast", "army": ["SPL", "INL"],
                "fleet": ["NOR", "SPL/NC"]},
        "CCC": {"name": "Cland", "type": "coast", "supply_center": True,
                "army": ["SPL", "INL"], "fleet": ["SOU", "SPL/SC"]},
        "INL": {"name": "Inland", "type": "land", "army": ["SPL", "BBB", "CCC"]},
    },
}
TOY_LAYOUT = {"map": "toy", "size": [400, 300], "sites": {
    "NOR": [[250, 20], [100, 0], [400, 0]], "WES": [[20, 150], [0, 0], [0, 300]],
    "SOU": [[200, 280], [100, 300], [400, 300]], "AAA": [[80, 150]], "SPL": [[180, 150]],
    "BBB": [[300, 80], [400, 100]], "CCC": [[300, 230], [400, 220]],
    "INL": [[320, 155], [400, 160]]}}


def test_a_new_map_given_only_as_data_gets_correct_shapes() -> None:
    toy = _build(copy.deepcopy(TOY))
    doc = generate(toy, Layout.from_dict(TOY_LAYOUT))
    geometry = build_geometry(toy, doc)
    polygons = {c: s.outline for c, s in geometry.provinces.items()}
    derived = derive(toy, polygons)
    assert compare(toy, derived) == []
    assert derived.fleet_adj["SPL/NC"] == {"NOR", "AAA", "BBB"}
    assert derived.fleet_adj["SPL/SC"] == {"SOU", "AAA", "CCC"}
    assert set(doc["provinces"]["SPL"]["coasts"]) == {"NC", "SC"}
