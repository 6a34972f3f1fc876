"""A real game's phases, played through the judge's core, as map documents: the pictures
kept in ``fixtures/`` are drawn from them (``python tests/pictures/fixture_game.py`` draws them
again after a change of the drawing; look at every one before committing it).

The game: Spring 1901 with bounces (Burgundy, Galicia, the Black Sea), Fall 1901 with a
convoy (Yorkshire to Norway) and Munich dislodged by a supported attack, its retreat, the
Winter with French builds and a German removal; and a Formal Diplomacy turn (a war declared,
three spheres of influence claimed).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from judge.core import adjudicate, initial_position, load_map
from judge.core.formal import adjudicate_formal, initial_formal_state
from judge.pictures.document import results_by_power
from judge.service.positions import position_to_dict

FIXTURES = Path(__file__).resolve().parent / "fixtures"

ORDERS = {
    "S1901M": {
        "ENGLAND": ["F Lon-Nth", "F Edi-Nwg", "A Lvp-Yor"],
        "FRANCE": ["A Par-Bur", "A Mar S A Par-Bur", "F Bre-Mao"],
        "GERMANY": ["A Mun-Bur", "A Ber-Kie", "F Kie-Bal"],
        "ITALY": ["A Ven-Tyr", "A Rom-Ven", "F Nap-Ion"],
        "AUSTRIA": ["A Vie-Gal", "A Bud-Ser", "F Tri-Alb"],
        "RUSSIA": ["A War-Gal", "A Mos-Ukr", "F Sev-Bla", "F Stp/sc-Bot"],
        "TURKEY": ["F Ank-Bla", "A Con-Bul", "A Smy-Con"],
    },
    "F1901M": {
        "ENGLAND": ["F Nth C A Yor-Nwy", "A Yor-Nwy", "F Nwg-Bar"],
        "FRANCE": ["A Bur-Mun", "A Mar-Spa", "F Mao-Por"],
        "GERMANY": ["A Mun H", "A Kie H", "F Bal-Swe"],
        "ITALY": ["A Tyr S A Bur-Mun", "A Ven H", "F Ion-Tun"],
        "AUSTRIA": ["F Alb-Gre", "A Ser S F Alb-Gre", "A Vie-Gal"],
        "RUSSIA": ["A Ukr-Rum", "F Bot-Swe", "A War S A Vie-Gal"],
        "TURKEY": ["A Bul-Rum", "F Ank-Bla", "A Con H"],
    },
    "F1901R": {"GERMANY": ["A Mun-Ber"]},
    "W1901A": {
        "FRANCE": ["Build A Par", "Build F Bre", "Build A Mar"],
        "GERMANY": ["Remove A Kie"],
    },
}
FORMAL_ORDERS = {
    "FRANCE": ["DWO Germany", "A Par-Bur", "F Bre SOI MAO", "A Mar S A Par-Bur"],
    "GERMANY": ["A Mun-Bur", "F Kie SOI DEN"],
    "ENGLAND": ["F Lon-Nth", "F Edi SOI NWG"],
}


def _board(pos: Any) -> dict[str, Any]:
    return {k: v for k, v in position_to_dict(pos).items()}


def _document(before: Any, res: Any, name: str, formal: Any = None) -> dict[str, Any]:
    after = position_to_dict(res.position)
    doc = {"variant": "standard", **_board(before), "game": name,
           "outcome": {"results": results_by_power(res.results), "centers": after["centers"],
                       "dislodged": after["dislodged"] if res.position.phase.type == "R"
                       else {}}}
    if formal is not None:
        doc["formal"] = {"spheres": dict(formal.spheres),
                         "wars": sorted(sorted(p) for p in formal.wars), "points": dict(formal.vp)}
    return doc


def documents() -> dict[str, dict[str, Any]]:
    m = load_map("standard")
    pos = initial_position(m)
    out: dict[str, dict[str, Any]] = {}
    for phase, orders in ORDERS.items():
        assert str(pos.phase) == phase, (pos.phase, phase)
        res = adjudicate(pos, orders)
        out[phase.lower()] = _document(pos, res, "fixture")
        pos = res.position
    start = initial_position(m)
    formal = adjudicate_formal(start, initial_formal_state(m, turns=2), FORMAL_ORDERS)
    out["formal"] = _document(start, formal, "formal", formal.state)
    return out


def main() -> None:
    from judge.pictures import png_of, picture_from_document
    FIXTURES.mkdir(exist_ok=True)
    for name, doc in documents().items():
        (FIXTURES / f"{name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
        (FIXTURES / f"{name}.png").write_bytes(png_of(picture_from_document(doc)))
        print(f"wrote {FIXTURES / name}.json and .png", file=sys.stderr)


if __name__ == "__main__":
    main()
