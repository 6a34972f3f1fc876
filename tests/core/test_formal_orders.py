"""Formal Diplomacy: the order parser, the state and the press rule (rules 3 5 6 7 8 of the
Formal Diplomacy rules)."""

import pytest

from judge.core import InputError, OrderError, load_map
from judge.core.formal import (ClaimSphere, DeclareWar, FormalState, SupportClaim, Surrender,
                               UndoSphere, initial_formal_state, make_formal_state,
                               may_send_private_press, parse_formal_order, press_refusals)
from judge.core.orders import UnitSpec

M = load_map("standard")


@pytest.mark.parametrize("text, expected", [
    ("DWO Germany", DeclareWar("GERMANY")),
    ("Declare War On germany", DeclareWar("GERMANY")),
    ("dwo German", DeclareWar("GERMANY")),
    ("DWO Tur", DeclareWar("TURKEY")),
    ("SUR", Surrender()),
    ("Surrender", Surrender()),
    ("Uncle!", Surrender()),
    ("A Pic SOI Bel", ClaimSphere(UnitSpec("A", "PIC"), "BEL")),
    ("Army Picardy Sphere of Influence Belgium", ClaimSphere(UnitSpec("A", "PIC"), "BEL")),
    ("F StP/SC SOI Fin", ClaimSphere(UnitSpec("F", "STP/SC"), "FIN")),
    ("SOI Bel", ClaimSphere(None, "BEL")),
    ("Sphere of Influence Mid-Atlantic", ClaimSphere(None, "MAO")),
    ("A Bur S A Pic SOI Bel", SupportClaim(UnitSpec("A", "BUR"), UnitSpec("A", "PIC"), "BEL")),
    ("A Burgundy Supports A Picardy Sphere of Influence Belgium",
     SupportClaim(UnitSpec("A", "BUR"), UnitSpec("A", "PIC"), "BEL")),
    ("Undo SOI in Bel", UndoSphere("BEL")),
    ("undo sphere of influence Belgium", UndoSphere("BEL")),
])
def test_formal_orders_parse(text, expected):
    assert parse_formal_order(M, text) == expected


@pytest.mark.parametrize("text", ["A Par-Bur", "F Lon S A Yor-Nwy", "A PAR H", "Build A Par"])
def test_standard_orders_are_not_formal(text):
    assert parse_formal_order(M, text) is None


@pytest.mark.parametrize("text, words", [
    ("DWO", "declare war on whom"),
    ("DWO Atlantis", "unknown power 'Atlantis'"),
    ("SOI", "expected a province"),
    ("A Qqq SOI Bel", "unknown province 'qqq'"),
    ("A Pic SOI N", "ambiguous province 'n'"),
    ("Undo SOI in", "expected a province"),
])
def test_malformed_formal_orders_are_error_values(text, words):
    got = parse_formal_order(M, text)
    assert isinstance(got, OrderError)
    assert words in got.message and got.text == text


def test_canonical_texts():
    assert parse_formal_order(M, "a bur s a pic soi bel").text() == "A BUR S A PIC SOI BEL"
    assert parse_formal_order(M, "undo soi in bel").text() == "UNDO SOI IN BEL"


def test_initial_state_ten_years_by_default_and_turns_configurable():
    s = initial_formal_state(M)
    assert (s.first_year, s.turns, s.last_year) == (1901, 10, 1910)
    assert dict(s.vp) == {p: 0 for p in M.powers} and not s.wars and not s.spheres
    assert initial_formal_state(M, turns=3).last_year == 1903
    with pytest.raises(InputError):
        initial_formal_state(M, turns=0)


def test_state_is_frozen_and_round_trips_through_a_dict():
    s = make_formal_state(M, wars=[("FRANCE", "GERMANY")], spheres={"BEL": "FRANCE"},
                          vp={"FRANCE": -1}, turns=4)
    with pytest.raises(AttributeError):
        s.turns = 5  # type: ignore[misc]
    assert s.at_war("GERMANY", "FRANCE") and s.enemies("FRANCE") == ("GERMANY",)
    assert FormalState.from_dict(s.to_dict()) == s
    with pytest.raises(InputError):
        make_formal_state(M, spheres={"XXX": "FRANCE"})


def test_rule8_no_private_press_between_powers_at_war():
    s = make_formal_state(M, wars=[("FRANCE", "GERMANY")])
    assert not may_send_private_press(s, "FRANCE", "GERMANY")
    assert not may_send_private_press(s, "GERMANY", "FRANCE")
    assert may_send_private_press(s, "FRANCE", "ENGLAND")
    assert press_refusals(s, "FRANCE", ["ENGLAND", "GERMANY"]) == ("GERMANY",)
