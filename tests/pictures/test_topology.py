"""The drawn map tells the truth: the borders read off the province shapes are exactly the
adjacency the adjudicator uses, for armies and for fleets, coast by coast."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from judge.core import load_map
from judge.pictures.geometry import is_inside, load_geometry
from judge.pictures.topology import borders_of, compare, derive

M = load_map("standard")


@pytest.fixture(scope="module")
def polygons() -> dict[str, tuple[tuple[float, float], ...]]:
    return {code: shape.outline for code, shape in load_geometry(M).provinces.items()}


def test_the_shapes_show_exactly_the_adjacency_of_the_standard_map(polygons) -> None:
    derived = derive(M, polygons)
    assert compare(M, derived) == []
    # the same tables, location by location (compare() would say where they differ)
    assert {c: set(v) for c, v in derived.fleet_adj.items()} == \
        {c: set(v) for c, v in M.fleet_adj.items()}
    for code, p in M.provinces.items():
        if p.kind in ("land", "coast"):
            assert derived.army_adj[code] == M.army_adj[code], code


def test_known_borders_on_the_picture(polygons) -> None:
    borders = borders_of(polygons)
    derived = derive(M, polygons)
    # Munich does not touch Paris; Rome and Apulia share land but no coast
    assert borders.between("MUN", "PAR") == ()
    assert borders.between("ROM", "APU") and "APU" in derived.army_adj["ROM"]
    assert "APU" not in derived.fleet_adj["ROM"]
    # Switzerland is drawn between its neighbours but nothing enters it
    assert {p for p in borders.neighbours("SWI")} == {"BUR", "MAR", "MUN", "PIE", "TYR"}
    assert "SWI" not in derived.army_adj.get("MUN", ()) and not derived.army_adj["SWI"]
    # the split coasts are separate runs of coastline, each touching its own seas
    runs = dict(derived.coast_runs["SPA"])
    assert set(runs) == {"SPA/NC", "SPA/SC"}
    assert derived.fleet_adj["SPA/NC"] == {"GAS", "MAO", "POR"}
    assert derived.fleet_adj["SPA/SC"] == {"LYO", "MAO", "MAR", "POR", "WES"}
    assert derived.fleet_adj["STP/NC"] == {"BAR", "NWY"}
    assert derived.fleet_adj["BUL/EC"] == {"BLA", "CON", "RUM"}
    assert not set(runs["SPA/NC"]) & set(runs["SPA/SC"])


def test_every_border_is_long_enough_to_see(polygons) -> None:
    lengths = borders_of(polygons).lengths
    short = {tuple(sorted(pair)): round(n, 1) for pair, n in lengths.items() if n < 8}
    assert short == {}


def test_a_wrong_border_would_be_found(polygons) -> None:
    """The check is not vacuous: a map saying Munich borders Paris, or a fleet in Rome
    reaching Apulia, disagrees with the picture."""
    army = dict(M.army_adj)
    army["MUN"] = army["MUN"] | {"PAR"}
    army["PAR"] = army["PAR"] | {"MUN"}
    fleet = dict(M.fleet_adj)
    fleet["ROM"] = fleet["ROM"] | {"APU"}
    wrong = replace(M, army_adj=MappingProxyType(army), fleet_adj=MappingProxyType(fleet))
    found = compare(wrong, derive(wrong, polygons))
    assert any(line.startswith("army MUN:") for line in found)
    assert any(line.startswith("fleet ROM:") for line in found)
    # and a picture where the coasts of Spain were one would not match its two coasts
    merged = dict(polygons)
    merged["POR"] = polygons["POR"][: len(polygons["POR"]) // 2]  # Portugal cut in half
    assert compare(M, derive(M, merged)) != []


def test_units_labels_and_centres_sit_inside_their_province() -> None:
    g = load_geometry(M)
    for code, shape in g.provinces.items():
        for spot in [shape.unit, shape.label, *shape.coasts.values()]:
            assert is_inside(spot, shape.outline), (code, spot)
        if M.provinces[code].supply_center:
            assert shape.center is not None and is_inside(shape.center, shape.outline), code
        assert set(shape.coasts) == set(M.provinces[code].coasts)
