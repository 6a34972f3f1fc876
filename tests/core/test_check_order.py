"""check_order: one order checked as it is given, by the adjudicator's own legality rules."""

from __future__ import annotations

import pytest

from judge.core import (
    OrderError,
    Waive,
    adjudicate,
    check_order,
    initial_position,
    load_map,
    make_position,
    parse_order,
)
from judge.core.order_results import INVALID

M = load_map()
START = initial_position(M)


def check(pos, power: str, line: str) -> str | None:
    """The message of the refusal of ``line``, None if it is accepted."""
    o = parse_order(M, line, pos.phase.type)
    assert not isinstance(o, OrderError), o
    why = check_order(pos, power, o)
    # refusals are the one refusal value of the core, quoting the order refused
    assert why is None or isinstance(why, OrderError) and why.text == o.text(), why
    return None if why is None else why.message


def adjudicated_invalid(pos, power: str, line: str) -> bool:
    res = adjudicate(pos, {power: [line]})
    return any(r.result == INVALID and r.text == line for r in res.results)


# --------------------------------------------------------------------------- movement

@pytest.mark.parametrize("power, line, error", [
    ("FRANCE", "A Par-Mos", "an army in Paris cannot reach Moscow: they are not adjacent"),
    ("FRANCE", "F Bre-Mun", "a fleet in Brest cannot reach Munich"),
    ("FRANCE", "F Bre-Par", "a fleet in Brest cannot reach Paris"),
    ("FRANCE", "A Par-Par", "a unit cannot move to its own province"),
    ("FRANCE", "A Par-Lon", "an army in Paris cannot reach London: they are not adjacent"),
    ("FRANCE", "A Par-Bur VIA",
     "Paris and Burgundy have no coast, so no convoy can go from Paris to Burgundy"),
    ("FRANCE", "A Mar-Mao", "an army cannot move to Mid-Atlantic Ocean"),
    ("FRANCE", "A Par S A Mar-Mos", "Army Paris cannot reach Moscow"),
    ("FRANCE", "A Par S A Bur-Pic", "there is no unit in Burgundy to support"),
    ("FRANCE", "A Par S A Par", "a unit cannot support itself"),
    ("FRANCE", "A Mar S A Par-Gas", None),
    ("FRANCE", "A Par S A Mar-Spa", "Army Paris cannot reach Spain"),
    ("FRANCE", "F Bre S A Par-Pic", None),
    ("FRANCE", "F Bre S A Mar-Gas", None),
    ("FRANCE", "F Bre S A Par-Bur", "Fleet Brest cannot reach Burgundy"),
    ("FRANCE", "A Mar S A Mun-Bur", None),  # a foreign unit may be supported
    ("FRANCE", "F Bre C A Par-Lon", "only a fleet at sea can convoy"),
    ("FRANCE", "A Mun-Ruh", "the Army Munich is not France's"),
    ("FRANCE", "A Bur-Par", "there is no unit in Burgundy"),
    ("FRANCE", "A Par-Bur", None),
    ("FRANCE", "F Bre-Mao", None),
    ("FRANCE", "A Par H", None),
    ("RUSSIA", "F StP/SC-Bot", None),
    ("RUSSIA", "F StP/SC-Bar", "a fleet in St Petersburg (south coast) cannot reach Barents Sea"),
    ("ENGLAND", "A Lvp-Edi", None),
    ("ENGLAND", "F Lon-Wal", None),
])
def test_movement_orders_at_the_start(power: str, line: str, error: str | None) -> None:
    got = check(START, power, line)
    if error is None:
        assert got is None
    else:
        assert got is not None and got.lower() == error.lower()


def test_a_split_coast_without_a_coast_when_both_are_reachable() -> None:
    pos = make_position(M, "S1901M", {"FRANCE": ["F POR", "F MAO", "F MAR"]})
    assert check(pos, "FRANCE", "F Mar-Spa") is None  # one coast reachable: it goes there
    assert check(pos, "FRANCE", "F Mar-Spa/sc") is None
    assert check(pos, "FRANCE", "F Mar-Spa/nc") == \
        "a fleet in Marseilles cannot reach Spain (north coast)"
    assert adjudicated_invalid(pos, "FRANCE", "F Mar-Spa/nc")
    assert adjudicated_invalid(pos, "FRANCE", "F Por-Spa")
    assert check(pos, "FRANCE", "F Por-Spa") == "say which coast of Spain (SPA/NC, SPA/SC)"
    assert check(pos, "FRANCE", "F Por-Spa/nc") is None
    assert check(pos, "FRANCE", "F Mao-Spa/sc") is None


CONVOY = make_position(M, "S1901M", {"ENGLAND": ["A LON", "F NTH", "A YOR", "F ENG"],
                                     "FRANCE": ["A PAR", "A BRE"]})


@pytest.mark.parametrize("power, line, error", [
    ("ENGLAND", "A Lon-Nwy", None),                # a route could exist: legal (6.D.31)
    ("ENGLAND", "A Lon-Nth-Nwy", None),            # with the route written out
    ("ENGLAND", "A Lon-Bel", None),                # by either sea
    ("ENGLAND", "A Lon-Bre", None),                # through the Channel
    ("ENGLAND", "A Yor-Lon VIA", None),            # adjacent, by convoy on request
    ("ENGLAND", "A Lon-Tun", "no convoy could take London to Tunis"),  # no fleets that far
    ("ENGLAND", "A Lon-Mun", "an army in London cannot reach Munich: they are not adjacent"),
    ("ENGLAND", "F Nth C A Lon-Nwy", None),
    ("ENGLAND", "F Eng C A Lon-Bre", None),
    ("ENGLAND", "F Nth C A Lon-Bre", "North Sea is on no convoy route from London to Brest"),
    ("ENGLAND", "F Nth C A Par-Nwy", "North Sea is on no convoy route from Paris to Norway"),
    ("ENGLAND", "F Nth C A Bel-Lon", "there is no army in Belgium to convoy"),
    ("ENGLAND", "F Nth C F Eng-Lon", "there is no army in English Channel to convoy"),
    ("ENGLAND", "F Eng S A Lon-Bel", None),        # a convoy route without the Channel
    ("ENGLAND", "F Nth S A Lon-Bel", None),
    ("FRANCE", "A Bre-Lon", None),                 # foreign fleets could carry it
    ("FRANCE", "A Par-Lon", "an army in Paris cannot reach London: they are not adjacent"),
])
def test_convoys_and_convoy_routes(power: str, line: str, error: str | None) -> None:
    got = check(CONVOY, power, line)
    if error is None:
        assert got is None
    else:
        assert got is not None and got.lower() == error.lower()


def test_without_fleets_at_sea_a_convoyed_move_is_illegal() -> None:
    pos = make_position(M, "S1901M", {"ENGLAND": ["A LON", "F EDI"]})
    assert check(pos, "ENGLAND", "A Lon-Nwy") == "no convoy could take London to Norway"


@pytest.mark.parametrize("pos", [START, CONVOY], ids=["start", "convoy"])
def test_agrees_with_the_adjudicator(pos) -> None:
    """An order refused at entry is invalid in the results, and one accepted is not."""
    lines = ["A Par-Mos", "F Bre-Mun", "A Par S A Mar-Mos", "A Par-Bur", "F Bre-Mao",
             "A Mar S A Par-Gas", "F Bre C A Par-Lon", "A Lon-Nwy", "A Lon-Tun",
             "F Nth C A Lon-Nwy", "F Nth C A Lon-Bre", "F Eng C A Lon-Bre", "A Yor-Lon VIA",
             "A Bre-Lon", "F Eng S A Lon-Bel", "A Par-Bur VIA", "F Lon-Wal"]
    tried = 0
    for line in lines:
        o = parse_order(M, line, "M")
        assert not isinstance(o, (OrderError, Waive)), o
        unit = pos.unit_at(o.unit.province)
        if unit is None:
            continue
        tried += 1
        refused = check_order(pos, unit.power, o) is not None
        assert refused == adjudicated_invalid(pos, unit.power, line), line
    assert tried >= 5


def test_wrong_phase_type() -> None:
    from judge.core import Build, UnitSpec
    assert check_order(START, "FRANCE", Build(UnitSpec("A", "PAR"))) \
        == OrderError("A PAR B", "that is not a movement order")


# --------------------------------------------------------------------------- retreats

RETREAT = make_position(M, "F1901R", {"FRANCE": ["A PAR"], "GERMANY": ["A BUR"]},
                        dislodged={"GERMANY": {"A MUN": ["RUH", "KIE"]}})


@pytest.mark.parametrize("power, line, error", [
    ("GERMANY", "A Mun-Ruh", None),
    ("GERMANY", "A Mun R Kie", None),
    ("GERMANY", "A Mun D", None),
    ("GERMANY", "A Mun-Boh",
     "the Army Munich cannot retreat to Bohemia; it may retreat to Ruhr, Kiel"),
    ("GERMANY", "A Mun-Bur",
     "the Army Munich cannot retreat to Burgundy; it may retreat to Ruhr, Kiel"),
    ("FRANCE", "A Mun-Ruh", "the dislodged Army Munich is not France's"),
    ("FRANCE", "A Par-Pic", "there is no dislodged unit in Paris"),
])
def test_retreats(power: str, line: str, error: str | None) -> None:
    got = check(RETREAT, power, line)
    assert got == error
    if error is not None:
        assert adjudicated_invalid(RETREAT, power, line)


# --------------------------------------------------------------------------- adjustments

WINTER = make_position(M, "W1901A", {"FRANCE": ["A PAR", "A PIC"],
                                     "GERMANY": ["A MUN", "A RUH", "A HOL", "F KIE"],
                                     "RUSSIA": ["A UKR"]},
                       {"FRANCE": ["PAR", "BRE", "SPA", "POR"], "GERMANY": ["MUN", "BER", "KIE"],
                        "RUSSIA": ["MOS", "STP", "WAR", "SEV"]})


@pytest.mark.parametrize("power, line, error", [
    ("FRANCE", "Build F Bre", None),
    ("FRANCE", "Build A Bre", None),
    ("FRANCE", "Waive", None),
    ("FRANCE", "Build A Par", "Paris is occupied"),
    ("FRANCE", "Build A Spa", "Spain is not a home centre of France"),
    ("FRANCE", "Build A Mar", "Marseilles is not owned by France"),
    ("FRANCE", "Build A Mun", "Munich is not a home centre of France"),
    ("FRANCE", "Remove A Pic", "no removals owed"),
    ("GERMANY", "Build A Ber", "no builds available"),
    ("GERMANY", "Waive", "no builds available"),
    ("GERMANY", "Remove A Hol", None),
    ("GERMANY", "Remove A Par", "Germany has no unit in Paris"),
    ("GERMANY", "Remove A Bur", "Germany has no unit in Burgundy"),
    ("RUSSIA", "Build F StP/NC", None),
    ("RUSSIA", "Build F Mos", "a fleet cannot be built in Moscow"),
    ("RUSSIA", "Build F StP", "say which coast of St Petersburg (STP/NC, STP/SC)"),
])
def test_adjustments(power: str, line: str, error: str | None) -> None:
    got = check(WINTER, power, line)
    assert got == error
    if error is not None and "owed" not in error and "available" not in error:
        assert adjudicated_invalid(WINTER, power, line)
