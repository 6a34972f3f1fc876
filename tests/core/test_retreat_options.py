"""Retreat options: armies retreat to bare multi-coast provinces, options are checked, and a unit
with nowhere to go is destroyed at once instead of waiting in a retreat phase of its own."""

from __future__ import annotations

import pytest

from judge.core import InputError, adjudicate, load_map, make_position
from judge.core.phases import Phase

M = load_map()

# Austria dislodges the Russian army in Rumania from Galicia: it may retreat to Bulgaria (a
# province with two coasts, written without one for an army), Serbia, Sevastopol or Ukraine.
RUM_ATTACK = {"AUSTRIA": ["A GAL", "A BUD"], "RUSSIA": ["A RUM"]}
RUM_ORDERS = {"AUSTRIA": ["A GAL - RUM", "A BUD S A GAL - RUM"]}


def test_an_army_dislodged_next_to_bulgaria_may_retreat_there_and_the_board_loads() -> None:
    res = adjudicate(make_position(M, "S1901M", RUM_ATTACK), RUM_ORDERS)
    (d,) = res.dislodged
    assert d.unit.code == "A RUM" and d.retreats == ("BUL", "SER", "SEV", "UKR")
    nxt = res.position
    assert str(nxt.phase) == "S1901R"
    # the stored form of the board (the JSON contract's shape) loads again
    again = make_position(M, str(nxt.phase),
                          {p: [u.code for u in nxt.units_of(p)] for p in M.powers},
                          {p: sorted(c) for p, c in nxt.centers.items()},
                          {"RUSSIA": {"A RUM": list(d.retreats)}})
    assert again.dislodged == nxt.dislodged and again.units == nxt.units
    done = adjudicate(again, {"RUSSIA": ["A Rum-Bul"]})
    assert "A BUL" in [u.code for u in done.units] and str(done.next_phase) == "F1901M"


@pytest.mark.parametrize("kind_loc, options", [
    ("A MAR", ["SPA"]), ("F MAR", ["SPA/SC"]), ("A FIN", ["STP"]), ("F FIN", ["STP/SC"]),
    ("A SER", ["BUL"]), ("F GRE", ["BUL/SC"]), ("F BLA", ["BUL/EC", "RUM"]),
])
def test_every_split_coast_province_is_a_retreat_option_in_its_unit_s_form(
        kind_loc: str, options: list[str]) -> None:
    pos = make_position(M, "F1901R", {}, {}, {"ITALY": {kind_loc: options}})
    assert pos.dislodged[0].retreats == tuple(options)


@pytest.mark.parametrize("units, dislodged, words", [
    ({"TURKEY": ["A CON"], "AUSTRIA": ["A BUL"]}, {"TURKEY": {"A BUL": ["CON", "SER"]}},
     "A CON is there"),
    ({}, {"FRANCE": {"A BUR": ["PIC", "LON"]}}, "not adjacent"),
    ({}, {"ITALY": {"A TYR": ["BOH", "PIC"]}}, "not adjacent"),
    ({}, {"GERMANY": {"A MUN": ["SWI"]}}, "no such place for an army"),
    ({}, {"FRANCE": {"A PIC": ["ENG"]}}, "no such place for an army"),
    ({}, {"ENGLAND": {"F HOL": ["RUH"]}}, "no such place for a fleet"),
    ({}, {"RUSSIA": {"A RUM": ["BUL/EC"]}}, "no such place for an army"),
    ({}, {"TURKEY": {"F BLA": ["BUL/SC"]}}, "not adjacent"),
    ({}, {"TURKEY": {"F BLA": ["XYZ"]}}, "no such place"),
    ({}, {"TURKEY": {"A BUL": ["SER"]}, "RUSSIA": {"A BUL": ["RUM"]}}, "two dislodged units"),
])
def test_retreat_options_that_cannot_be_are_refused(units: dict, dislodged: dict,
                                                    words: str) -> None:
    with pytest.raises(InputError, match=words):
        make_position(M, "S1916R", units, {}, dislodged)


def test_a_unit_without_retreats_is_destroyed_and_no_retreat_phase_opens() -> None:
    # Munich is attacked from Burgundy with support; every other neighbour is occupied.
    units = {"FRANCE": ["A BUR", "A RUH"], "GERMANY": ["A MUN"],
             "AUSTRIA": ["A BOH", "A TYR"], "RUSSIA": ["A SIL"], "ITALY": ["A KIE", "A BER"]}
    res = adjudicate(make_position(M, "S1901M", units),
                     {"FRANCE": ["A BUR - MUN", "A RUH S A BUR - MUN"]})
    (d,) = res.dislodged
    assert d.unit.code == "A MUN" and d.retreats == ()
    assert str(res.next_phase) == "F1901M"  # not S1901R: nobody has a choice
    assert [u.power for u in res.position.units if u.province == "MUN"] == ["FRANCE"]
    assert res.position.dislodged == ()
    # DONT_SKIP_PHASES plays the retreat phase, but the destroyed unit is not in it
    kept = adjudicate(make_position(M, "S1901M", units),
                      {"FRANCE": ["A BUR - MUN", "A RUH S A BUR - MUN"]}, skip_empty=False)
    assert str(kept.next_phase) == "S1901R" and kept.position.dislodged == ()


def test_only_the_units_with_a_choice_wait_in_the_retreat_phase() -> None:
    units = {"FRANCE": ["A BUR", "A RUH"], "GERMANY": ["A MUN"],
             "AUSTRIA": ["A BOH", "A TYR", "A GAL", "A BUD"], "RUSSIA": ["A SIL", "A RUM"],
             "ITALY": ["A KIE", "A BER"]}
    res = adjudicate(make_position(M, "F1901M", units),
                     {"FRANCE": ["A BUR - MUN", "A RUH S A BUR - MUN"],
                      "AUSTRIA": ["A GAL - RUM", "A BUD S A GAL - RUM"]})
    assert {d.unit.code: d.retreats for d in res.dislodged} == {
        "A MUN": (), "A RUM": ("BUL", "SER", "SEV", "UKR")}
    assert res.next_phase == Phase.parse("F1901R")
    assert [d.unit.code for d in res.position.dislodged] == ["A RUM"]


def test_dislodged_units_with_retreats_belong_to_retreat_phases_only() -> None:
    with pytest.raises(InputError, match="only for retreat phases"):
        make_position(M, "W1901A", {}, {}, {"RUSSIA": {"A RUM": ["BUL"]}})
    # units that must disband (no options) are simply gone in any later phase
    assert make_position(M, "W1901A", {}, {}, {"RUSSIA": {"A RUM": []}}).dislodged == ()
