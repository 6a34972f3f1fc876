"""The order parser: every syntax of the mail language (GET ORDERS), coasts, names and errors."""

import pytest

from judge.core.maps import load_map
from judge.core.orders import (Build, Convoy, Disband, Hold, Move, OrderError, Remove, Retreat,
                               Support, UnitSpec, Waive, parse_order)

M = load_map()


def p(text: str, phase: str = "M"):
    return parse_order(M, text, phase)


@pytest.mark.parametrize("text", ["A Par-Bur", "A Paris - Burgundy", "a par -> bur",
                                  "A PAR M BUR", "Army Paris moves to Burgundy", "A PAR - BUR."])
def test_moves(text: str) -> None:
    assert p(text) == Move(UnitSpec("A", "PAR"), "BUR")


@pytest.mark.parametrize("text", ["A PAR H", "A Paris Hold", "A PAR", "a par holds"])
def test_holds(text: str) -> None:
    assert p(text) == Hold(UnitSpec("A", "PAR"))


def test_supports_and_convoys() -> None:
    assert p("F Lon S A Yor-Nwy") == Support(UnitSpec("F", "LON"), UnitSpec("A", "YOR"), "NWY")
    assert p("A PAR S F BRE") == Support(UnitSpec("A", "PAR"), UnitSpec("F", "BRE"))
    assert p("A PAR S F BRE H") == p("A PAR S F BRE")
    assert p("A Venice Supports A Tyrolia - Trieste") == p("A VEN S A TYR - TRI")
    assert p("F NTH C A YOR - NWY") == Convoy(UnitSpec("F", "NTH"), UnitSpec("A", "YOR"), "NWY")
    assert p("F North Sea Convoys A London - Norway") == p("F NTH C A LON - NWY")
    assert p("F Trieste Hold") == Hold(UnitSpec("F", "TRI"))
    assert p("A Bel S Austrian A Hol") == Support(UnitSpec("A", "BEL"), UnitSpec("A", "HOL"))


def test_convoy_routes_and_via() -> None:
    assert p("A Lon-Nth-Nwy") == Move(UnitSpec("A", "LON"), "NWY", True, ("NTH",))
    assert p("A LON - NWY VIA") == Move(UnitSpec("A", "LON"), "NWY", True)
    assert p("A Lon - Nwy via convoy") == p("A LON - NWY VIA")
    bad = p("A Lon-Eng-Nwy")
    assert isinstance(bad, OrderError) and "does not touch" in bad.message


@pytest.mark.parametrize("text", ["F StP/nc - Bar", "F stp(nc) - bar", "F StP/NC - BAR",
                                  "F St Petersburg (north coast) - Barents Sea",
                                  "F St. Petersburg nc - Barents", "F stp north coast - bar",
                                  "F STP /NC - BAR", "F stp(n) - bar"])
def test_coast_spellings(text: str) -> None:
    assert p(text) == Move(UnitSpec("F", "STP/NC"), "BAR")


def test_full_names_and_aliases() -> None:
    assert p("F Mid-Atlantic Ocean - Spain(nc)") == Move(UnitSpec("F", "MAO"), "SPA/NC")
    assert p("F MID - NAT") == Move(UnitSpec("F", "MAO"), "NAO")
    assert p("F Gulf of Lyons - Tyrrhenian Sea") == Move(UnitSpec("F", "LYO"), "TYS")
    assert p("F GOL H") == Hold(UnitSpec("F", "LYO"))
    assert p("F Bohem - Munic") == Move(UnitSpec("F", "BOH"), "MUN")  # unique prefixes


def test_irrelevant_coast_is_dropped() -> None:
    assert p("A Gas - Spa/nc") == Move(UnitSpec("A", "GAS"), "SPA/NC")
    assert p("F Gas - Bre/nc") == Move(UnitSpec("F", "GAS"), "BRE")


def test_ambiguous_and_unknown_names_are_errors() -> None:
    e = p("A No - Swe")
    assert isinstance(e, OrderError)
    assert "ambiguous" in e.message and "Norway" in e.message and "North Sea" in e.message
    e = p("A Xyz - Par")
    assert isinstance(e, OrderError) and "unknown province 'xyz'" in e.message
    assert isinstance(p("A Par jumps Bur"), OrderError)
    assert isinstance(p(""), OrderError)


def test_a_misspelt_province_comes_with_the_nearest_names() -> None:
    e = p("A Gal-Ukriane")
    assert isinstance(e, OrderError) and e.message == "unknown province 'ukriane'"
    assert e.near == ("UKR",)
    e = p("F Norht Sea - Hol")
    assert isinstance(e, OrderError) and e.near[0] == "NTH"
    assert p("A Xyzzy - Par") == OrderError("A Xyzzy - Par", "unknown province 'xyzzy'")


def test_into_is_read_as_to() -> None:
    assert p("Sweden into Denmark") == Move(UnitSpec(None, "SWE"), "DEN")
    assert p("Tyr into Venice") == Move(UnitSpec(None, "TYR"), "VEN")
    assert p("A Par moves into Bur") == p("A Par-Bur")
    assert p("A Bur into Par", "R") == Retreat(UnitSpec("A", "BUR"), "PAR")
    assert p("A Mun S A Ber into Kie") == p("A Mun S A Ber-Kie")


def test_a_word_in_another_alphabet_is_one_word() -> None:
    """ "Désiré" was read as "d" (a disband or removal) and "sir": it is one unknown word."""
    for phase in "MRA":
        e = p("Désiré", phase)
        assert isinstance(e, OrderError) and "'désiré'" in e.message, (phase, e)


def test_retreat_phase() -> None:
    assert p("A Bur-Par", "R") == Retreat(UnitSpec("A", "BUR"), "PAR")
    assert p("A BUR R PAR", "R") == Retreat(UnitSpec("A", "BUR"), "PAR")
    assert p("A Bur disband", "R") == Disband(UnitSpec("A", "BUR"))
    assert p("A BUR D", "R") == Disband(UnitSpec("A", "BUR"))
    assert p("Disband A Bur", "R") == Disband(UnitSpec("A", "BUR"))


def test_adjustment_phase() -> None:
    assert p("Build A Par", "A") == Build(UnitSpec("A", "PAR"))
    assert p("Build F StP/NC", "A") == Build(UnitSpec("F", "STP/NC"))
    assert p("A PAR B", "A") == Build(UnitSpec("A", "PAR"))
    assert p("Build A Warsaw", "A") == Build(UnitSpec("A", "WAR"))
    assert p("Remove A Mun", "A") == Remove(UnitSpec("A", "MUN"))
    assert p("A MUN D", "A") == Remove(UnitSpec("A", "MUN"))
    assert p("F LYO D", "A") == Remove(UnitSpec("F", "LYO"))
    assert p("Remove A Picardy", "A") == Remove(UnitSpec("A", "PIC"))
    assert p("Waive", "A") == Waive()
    assert p("Build Paris", "A") == Build(UnitSpec(None, "PAR"))


def test_phase_awareness() -> None:
    assert isinstance(p("A MUN D", "M"), OrderError)
    assert isinstance(p("Build A Par", "M"), OrderError)
    assert isinstance(p("A PAR S A MAR", "R"), OrderError)


def test_canonical_text_round_trips() -> None:
    for text, phase in [("F Lon S A Yor-Nwy", "M"), ("A Lon-Nth-Nwy", "M"), ("A PAR H", "M"),
                        ("F NTH C A YOR - NWY", "M"), ("A LON - NWY VIA", "M"),
                        ("A BUR R PAR", "R"), ("Build F StP/NC", "A"), ("A MUN D", "A")]:
        o = p(text, phase)
        assert p(o.text(), phase) == o
