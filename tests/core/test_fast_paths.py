"""The adjudicator's fast paths give exactly what the plain ones give.

The fast order form must parse to the same order as the general parser; the values made by
the dozen each phase (msgspec structs) are frozen and equal by kind and fields; units taken
from the per-map table equal the ones their constructor makes; the parse cache stays bounded.
"""

from __future__ import annotations

import copy

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.core import load_map, make_position
from judge.core import orders as orders_module
from judge.core.adjudicator.legality import Destination, _plain_moves, fleet_destination
from judge.core.board import Unit, unit_table
from judge.core.errors import OrderError
from judge.core.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Remove,
    Retreat,
    Support,
    UnitSpec,
    Waive,
    _parse_general,
    clear_parse_cache,
    default_hold,
    default_holds,
    parse_order,
    parsed_lines,
)
from judge.core.phases import Phase
from judge.core.order_results import INVALID, OK, OrderResult

M = load_map()
CODES = sorted(p for p in M.provinces if len(p) == 3)
# what the fast form may write for a place: provinces, real coasts and coasts a province lacks
WORDS = CODES + [f"{p}/{c}" for p in CODES for c in ("NC", "SC", "EC")]

word = st.sampled_from(WORDS)
kind = st.sampled_from(["A", "F"])


@st.composite
def fast_lines(draw: st.DrawFn) -> str:
    unit = f"{draw(kind)} {draw(word)}"
    shape = draw(st.sampled_from(["H", "-", "- VIA", "S", "S H", "S -", "C", "B", "D", "R",
                                  "INTO"]))
    if shape in ("H", "B", "D"):
        line = f"{unit} {shape}"
    elif shape in ("-", "R", "INTO"):
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


def _values() -> list[msgspec.Struct]:
    """One value of each kind the core makes by the dozen each phase."""
    par, bre = UnitSpec("A", "PAR"), UnitSpec("F", "BRE")
    u = Unit("FRANCE", "A", "PAR")
    return [par, Hold(par), Move(par, "BUR"), Move(par, "BUR", True), Support(bre, par),
            Support(bre, par, "PIC"), Convoy(UnitSpec("F", "ENG"), par, "LON"), Retreat(par, "BUR"),
            Disband(par), Build(par), Remove(par), Waive(), u, Phase.parse("S1901R"),
            OrderResult(u.power, u, Hold(par), "A PAR H", OK),
            OrderResult(u.power, None, None, "xyz", INVALID, message="no such unit"),
            OrderError("xyz", "unknown province 'xyz'")]


@pytest.mark.parametrize("value", _values(), ids=lambda v: type(v).__name__)
def test_values_are_frozen_and_equal_by_kind_and_fields(value: msgspec.Struct) -> None:
    twin = copy.deepcopy(value)
    assert twin is not value and twin == value and hash(twin) == hash(value)
    assert repr(twin) == repr(value)
    for field in msgspec.structs.fields(value):
        with pytest.raises(AttributeError):
            setattr(value, field.name, None)
    # a value never equals one of another kind with the same fields (a build is no removal)
    others = [v for v in _values() if type(v) is not type(value)]
    assert value not in others


def test_derived_values_follow_the_location() -> None:
    assert Unit("RUSSIA", "F", "STP/NC").province == "STP" == UnitSpec(None, "STP/SC").province
    assert Unit("RUSSIA", "F", "STP/NC").code == "F STP/NC"
    # derived whatever is given for them: no unit can claim another province
    assert Unit("RUSSIA", "F", "STP/NC", "MOS", "A MOS") == Unit("RUSSIA", "F", "STP/NC")
    assert UnitSpec("F", "STP/NC", province="MOS").province == "STP"
    assert repr(Unit("RUSSIA", "F", "STP/NC")) == "Unit(power='RUSSIA', kind='F', location='STP/NC')"
    assert repr(UnitSpec(None, "PAR")) == "UnitSpec(kind=None, location='PAR')"
    assert default_hold(M, "F", "STP/NC") == Hold(UnitSpec("F", "STP/NC"))


def test_default_holds_are_the_holds_the_judge_supplies() -> None:
    holds = default_holds(M)
    for code, unit in unit_table(M)["FRANCE"].items():
        hold, text = holds[code]
        assert hold == default_hold(M, unit.kind, unit.location) and text == hold.text()
    assert holds["A NTH"][1] == "A NTH H"  # a unit where none can stand has its hold too


def test_unit_table_holds_the_units_their_constructor_makes() -> None:
    table = unit_table(M)
    assert table["RUSSIA"]["F STP/NC"] == Unit("RUSSIA", "F", "STP/NC")
    assert "A NTH" not in table["FRANCE"] and "F PAR" not in table["FRANCE"]
    assert "F STP" not in table["RUSSIA"] and "A STP/NC" not in table["RUSSIA"]
    for power, units in table.items():
        for code, unit in units.items():
            kind, loc = code.split()
            assert unit == Unit(power, kind, loc) and unit.province == loc.partition("/")[0]
            assert M.can_hold(kind, loc)


def test_positions_from_usual_and_unusual_spellings_are_the_same() -> None:
    usual = make_position(M, "S1901M", {"RUSSIA": ["F STP/NC", "A MOS"]})
    assert usual == make_position(M, "S1901M", {"RUSSIA": [" a mos", "f  stp/nc "]})
    assert [u.code for u in usual.units] == ["A MOS", "F STP/NC"]


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


def _fleet_move(loc: str, dest: str) -> Destination | OrderError:
    return fleet_destination(M, Unit("FRANCE", "F", loc), Move(UnitSpec("F", loc), dest))


def test_plain_move_table_agrees_with_the_full_move_check() -> None:
    plain = _plain_moves(M)
    for kind, by_location in plain.items():
        for loc, table in by_location.items():
            for dest, (to, province, convoyed) in table.items():
                assert not convoyed and province == to.partition("/")[0]
                if kind == "F":
                    assert _fleet_move(loc, dest) == (to, province, False)
                else:
                    assert dest in M.army_adj[loc] and to == dest
    # and every move the full check finds plain is in the table
    for loc in M.fleet_moves:
        for dest in WORDS:
            got = _fleet_move(loc, dest)
            if not isinstance(got, OrderError) and dest.partition("/")[0] != loc.partition("/")[0]:
                assert plain["F"][loc][dest] == got


def test_positions_compare_by_board_not_by_map_object() -> None:
    # load_map() and load_map("standard") are cached apart: two objects for one map
    a = make_position(load_map(), "S1901M", {"FRANCE": ["A PAR"]})
    b = make_position(load_map("standard"), "S1901M", {"FRANCE": ["A PAR"]})
    assert a.map is not b.map and a == b and (a != b) is False
    assert a != make_position(load_map(), "F1901M", {"FRANCE": ["A PAR"]})
    assert repr(a).startswith("Position(phase=") and "Map(" not in repr(a)
    with pytest.raises(TypeError):
        hash(a)  # it holds a mapping
