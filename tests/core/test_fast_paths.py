"""The adjudicator's fast paths give exactly what the plain ones give.

The fast order form must parse to the same order as the general parser; values built from
drafts (orders, results, phases, positions) and taken from per-map tables (units) must
equal, hash and stay frozen like the ones their constructors make; the parse cache stays
bounded.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.core import initial_position, load_map
from judge.core import orders as orders_module
from judge.core._frozen import draft_builder
from judge.core.adjudicator.legality import _plain_moves, fleet_destination
from judge.core.board import Dislodged, Position, Unit, build_position, unit_values
from judge.core.orders import (Convoy, Hold, Move, Support, UnitSpec, _convoy, _hold, _move,
                               _parse_general, _support, clear_parse_cache, default_hold,
                               parse_order, parsed_lines)
from judge.core.phases import Phase
from judge.core.results import INVALID, OK, OrderResult, order_result

M = load_map()
CODES = sorted(p for p in M.provinces if len(p) == 3)
# what the fast form may write for a place: provinces, real coasts and coasts a province lacks
WORDS = CODES + [f"{p}/{c}" for p in CODES for c in ("NC", "SC", "EC")]

word = st.sampled_from(WORDS)
kind = st.sampled_from(["A", "F"])


@st.composite
def fast_lines(draw: st.DrawFn) -> str:
    unit = f"{draw(kind)} {draw(word)}"
    shape = draw(st.sampled_from(["H", "-", "- VIA", "S", "S H", "S -", "C", "B", "D", "R"]))
    if shape in ("H", "B", "D"):
        line = f"{unit} {shape}"
    elif shape in ("-", "R"):
        line = f"{unit} {shape} {draw(word)}"
    elif shape == "- VIA":
        line = f"{unit} - {draw(word)} VIA"
    elif shape == "S":
        line = f"{unit} S {draw(kind)} {draw(word)}"
    elif shape == "S H":
        line = f"{unit} S {draw(kind)} {draw(word)} H"
    elif shape == "S -":
        line = f"{unit} S {draw(kind)} {draw(word)} - {draw(word)}"
    else:
        # no coast on a convoying unit: the general parser reads "STP/NC C" as "north coast"
        # and then fails, the fast form reads a convoy (refused later: not a fleet at sea)
        unit = unit.partition("/")[0]
        line = f"{unit} C A {draw(word)} - {draw(word)}"
    spacing = draw(st.sampled_from([" ", "  ", "\t"]))
    return line.replace(" ", spacing) + draw(st.sampled_from(["", "\n", " "]))


@settings(max_examples=400, deadline=None)
@given(fast_lines(), st.sampled_from(["M", "R", "A"]))
def test_fast_form_parses_as_the_general_parser_does(line: str, phase: str) -> None:
    fast = parsed_lines(M, phase).fast_form(line)  # type: ignore[attr-defined]
    if fast is not None:
        assert fast == _parse_general(M, line, phase)
        assert type(fast) is type(_parse_general(M, line, phase))


def test_fast_form_is_taken_for_canonical_lines() -> None:
    lines = parsed_lines(M, "M")
    for line in ("A PAR H", "A PAR - BUR", "F NTH C A LON - NWY", "A MUN S A BER - KIE",
                 "F STP/SC - BOT", "A PAR S F BRE"):
        assert lines.fast_form(line) is not None, line  # type: ignore[attr-defined]


def _built_and_made() -> list[tuple[object, object]]:
    """(value from a draft builder, the same value from its class's constructor)."""
    par, bre = UnitSpec("A", "PAR"), UnitSpec("F", "BRE")
    u = Unit("FRANCE", "A", "PAR")
    pos = initial_position(M)
    nxt = Phase.parse("S1901R")
    return [
        (_hold(par), Hold(par)), (_move(par, "BUR", False), Move(par, "BUR")),
        (_move(par, "BUR", True), Move(par, "BUR", True)),
        (_support(bre, par, None), Support(bre, par)),
        (_support(bre, par, "PIC"), Support(bre, par, "PIC")),
        (_convoy(UnitSpec("F", "ENG"), par, "LON"), Convoy(UnitSpec("F", "ENG"), par, "LON")),
        (default_hold(M, "F", "STP/NC"), Hold(UnitSpec("F", "STP/NC"))),
        (order_result(u.power, u, Hold(par), "A PAR H", OK),
         OrderResult(u.power, u, Hold(par), "A PAR H", OK)),
        (order_result(u.power, u, Hold(par), "A PAR H", OK, True, True),
         OrderResult(u.power, u, Hold(par), "A PAR H", OK, True, default=True)),
        (order_result(u.power, None, None, "xyz", INVALID, message="no such unit"),
         OrderResult(u.power, None, None, "xyz", INVALID, message="no such unit")),
        (Phase.make("S", 1901, "R"), Phase(1901, 0, 1, "S", "R")),
        (build_position(M, nxt, pos.units, pos.centers), Position(M, nxt, pos.units, pos.centers)),
    ]


@pytest.mark.parametrize("built, made", _built_and_made(), ids=lambda v: type(v).__name__)
def test_draft_built_values_equal_constructed_ones(built: object, made: object) -> None:
    assert type(built) is type(made)
    assert built == made and repr(built) == repr(made)
    if not isinstance(made, Position):  # a position holds a mapping: not hashable
        assert hash(built) == hash(made)
    for f in dataclasses.fields(made):  # every field set, compare=False ones included
        assert getattr(built, f.name) == getattr(made, f.name)
    name = dataclasses.fields(built)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, name, None)


def test_draft_builder_refuses_classes_it_cannot_build() -> None:
    with pytest.raises(TypeError):
        draft_builder(Dislodged)  # no slots: a draft could not take its place


def test_unit_table_holds_the_units_their_constructor_makes() -> None:
    table = unit_values(M)
    assert table[("RUSSIA", "F", "STP/NC")] == Unit("RUSSIA", "F", "STP/NC")
    assert ("FRANCE", "A", "NTH") not in table and ("FRANCE", "F", "PAR") not in table
    for (power, kind, loc), unit in table.items():
        assert unit == Unit(power, kind, loc) and unit.province == loc.partition("/")[0]


def test_parse_cache_is_bounded_and_forgets_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    clear_parse_cache()
    monkeypatch.setattr(orders_module, "_CACHE_LIMIT", 5)
    lines = [f"A PAR - {d}" for d in ("BUR", "PIC", "GAS", "BRE", "MAR", "RUH", "SPA")]
    for line in lines:
        assert parse_order(M, line) == Move(UnitSpec("A", "PAR"), line[-3:])
    assert len(parsed_lines(M, "M")) <= 5
    assert parse_order(M, lines[0]) == Move(UnitSpec("A", "PAR"), "BUR")
    clear_parse_cache()
    assert len(parsed_lines(M, "M")) == 0


def test_plain_move_table_agrees_with_the_full_move_check() -> None:
    plain = _plain_moves(M)
    for kind, by_location in plain.items():
        for loc, table in by_location.items():
            for dest, (to, convoyed) in table.items():
                assert not convoyed
                if kind == "F":
                    assert fleet_destination(M, Unit("FRANCE", "F", loc), dest) == to
                else:
                    assert dest in M.army_adj[loc] and to == dest
    # and every move the full check finds plain is in the table
    for loc in M.fleet_moves:
        for dest in WORDS:
            got = fleet_destination(M, Unit("FRANCE", "F", loc), dest)
            if not got.startswith("!") and dest.partition("/")[0] != loc.partition("/")[0]:
                assert plain["F"][loc][dest] == (got, False)
