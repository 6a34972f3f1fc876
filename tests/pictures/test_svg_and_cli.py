"""The SVG back end (well-formed, everything escaped, the same scene as the PNG) and the
``judge map`` command line: a position as ``judge adjudicate`` takes it in, a picture out,
and every bad input one line on stderr with exit status 2."""

from __future__ import annotations

import io
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from PIL import Image

from conftest import JUDGE_EXE
from judge.pictures import picture_from_document, scene_of, svg_of
from judge.pictures.svg import render_svg

SVG = "{http://www.w3.org/2000/svg}"
POSITION = {"phase": "S1901M",
            "units": {"FRANCE": ["A PAR", "F BRE"], "GERMANY": ["A MUN"]},
            "orders": {"FRANCE": ["A Par-Bur", "F Bre-Eng"], "GERMANY": ["A Mun-Bur"]}}


def _run(*args: str, stdin: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([JUDGE_EXE, "map", *args], input=stdin.encode(), capture_output=True)


def test_svg_is_well_formed_and_escapes_every_text() -> None:
    doc = dict(POSITION, game="<x>&\"'", note="</svg><script>alert(1)</script>")
    text = svg_of(picture_from_document(doc, adjudicate_orders=True))
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    assert "<script>" not in text and "</svg><" not in text.replace("</svg>\n", "")
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == \
        "<x>&\"': Spring 1901 Movement (</svg><script>alert(1)</script>)"
    labels = {t.text for t in root.iter(f"{SVG}text")}
    assert {"PAR", "MUN", "STP", "NAO", "SWI"} <= labels  # every province named


def test_svg_and_png_draw_the_same_scene() -> None:
    scene = scene_of(picture_from_document(POSITION, adjudicate_orders=True))
    root = ET.fromstring(render_svg(scene))
    assert (root.get("width"), root.get("height")) == (str(scene.width), str(scene.height))
    polygons = len(list(root.iter(f"{SVG}polygon")))
    assert polygons >= sum(1 for layer in scene.layers for _ in layer.shapes
                           if type(_).__name__ == "Polygon")


def test_judge_map_draws_a_png_and_an_svg(tmp_path: Path) -> None:
    out = _run(stdin=json.dumps(POSITION))
    assert out.returncode == 0, out.stderr
    img = Image.open(io.BytesIO(out.stdout))
    assert img.format == "PNG" and img.width == 1000
    target = tmp_path / "s1901.svg"
    out = _run("-o", str(target), stdin=json.dumps(dict(POSITION, game="demo")))
    assert out.returncode == 0 and out.stdout == b""
    root = ET.fromstring(target.read_text())
    assert root.find(f"{SVG}title").text == "demo: Spring 1901 Movement"  # type: ignore[union-attr]
    # the output of judge adjudicate, under "outcome", is drawn as it is
    adjudicated = subprocess.run([JUDGE_EXE, "adjudicate"], input=json.dumps(POSITION).encode(),
                                 capture_output=True, check=True)
    doc = dict(POSITION, outcome=json.loads(adjudicated.stdout))
    out = _run("--format", "svg", stdin=json.dumps(doc))
    assert out.returncode == 0 and out.stdout.startswith(b"<svg")


def test_judge_map_refuses_bad_input_in_one_line() -> None:
    cases = {
        "not json": "not valid JSON",
        "[" * 100_000 + "]" * 100_000: "not valid JSON: nested too deeply",
        "[]": "a map document must be a JSON object",
        json.dumps({"units": {}}): "'phase' is required",
        json.dumps(dict(POSITION, units={"FRANCE": ["A XXX"]})): "unknown province 'XXX'",
        json.dumps(dict(POSITION, colour="red")): "unknown key(s): colour",
        json.dumps(dict(POSITION, outcome={"results": {"FRANCE": [{"order": "A PAR H"}]}})):
            "outcome.results of FRANCE",
        json.dumps(dict(POSITION, formal={"wars": [["FRANCE"]]})): "'formal.wars'",
        json.dumps(dict(POSITION, variant="nowhere")): "unknown variant 'nowhere'",
    }
    for stdin, expected in cases.items():
        out = _run(stdin=stdin)
        assert out.returncode == 2, (stdin, out)
        err = out.stderr.decode()
        assert err.count("\n") == 1 and expected in err, (stdin, err)
        assert out.stdout == b""


def test_judge_map_gives_each_power_its_home_centres_when_the_position_names_none() -> None:
    from judge.core import load_map
    from judge.pictures.geometry import load_geometry
    from judge.pictures.picture import power_colours

    out = _run("--format", "svg", stdin=json.dumps(POSITION))  # no "centers"
    assert out.returncode == 0, out.stderr
    root = ET.fromstring(out.stdout)
    labels = {t.text for t in root.iter(f"{SVG}text")}
    assert {"Austria 3 SC", "France 3 SC", "Germany 3 SC", "Russia 4 SC"} <= labels
    # each centre's marker in its owner's colour
    colours = power_colours(load_map(), load_geometry(load_map()))
    markers = [c.get("fill") for c in root.iter(f"{SVG}circle") if c.get("r") == "5"]
    assert markers.count(colours["FRANCE"]) == 3 and markers.count(colours["RUSSIA"]) == 4
