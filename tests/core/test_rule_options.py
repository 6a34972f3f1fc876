"""The core's game-rule options: the victory condition (SHARED_VICTORY, HOLD_WIN), the
CIVIL_DISORDER removals, BUILD_ANY builds and DONT_SKIP_PHASES."""

from __future__ import annotations

from judge.core import adjudicate, load_map, make_position
from judge.core.adjudicator.civil_disorder import random_removals
from judge.core.victory import winners, year_end_winners

M = load_map()


def test_winners_standard_shared_and_ties() -> None:
    assert winners({"FRANCE": 18, "GERMANY": 10}, 18) == ("FRANCE",)
    assert winners({"FRANCE": 17, "GERMANY": 10}, 18) == ()
    assert winners({"FRANCE": 9, "GERMANY": 9}, 8) == ()  # a tie: the game goes on
    assert winners({"FRANCE": 9, "GERMANY": 9}, 8, shared=True) == ("FRANCE", "GERMANY")
    assert winners({"FRANCE": 10, "GERMANY": 8, "ITALY": 2}, 8, shared=True) == (
        "FRANCE", "GERMANY")
    assert winners({"FRANCE": 10, "GERMANY": 8}, 8) == ("FRANCE",)


def test_hold_win_needs_the_year_before_too() -> None:
    assert year_end_winners({"FRANCE": 18}, {"FRANCE": 17}, 18, hold_win=True) == ()
    assert year_end_winners({"FRANCE": 19}, {"FRANCE": 18}, 18, hold_win=True) == ("FRANCE",)
    assert year_end_winners({"FRANCE": 18}, {"FRANCE": 17}, 18) == ("FRANCE",)


def _units(*codes: str):
    pos = make_position(M, "W1901A", {"FRANCE": list(codes)}, {"FRANCE": ["PAR", "BRE"]})
    return pos, list(pos.units_of("FRANCE"))


def test_random_removals_keep_units_on_centres_and_are_reproducible() -> None:
    pos, units = _units("A BUR", "A PIC", "A MOS", "F BRE")
    first = random_removals(M, units, 2, "7:W1901A:FRANCE")
    assert {u.province for u in first} == {"BUR", "PIC"}  # both off-centre units go first
    one = [random_removals(M, units, 1, f"{n}:W1901A:FRANCE")[0].province for n in range(40)]
    assert set(one) == {"BUR", "PIC"}  # random among them, by seed
    assert random_removals(M, list(reversed(units)), 3, "x") == random_removals(M, units, 3, "x")
    three = random_removals(M, units, 3, "x")
    assert {u.province for u in three[:2]} == {"BUR", "PIC"} and three[2].province in ("MOS",
                                                                                       "BRE")


def test_build_any_builds_in_any_owned_centre() -> None:
    pos = make_position(M, "W1901A", {"FRANCE": ["A BUR"]}, {"FRANCE": ["PAR", "BEL", "BRE"]})
    plain = adjudicate(pos, {"FRANCE": ["Build A Bel"]})
    assert [r.result for r in plain.results if r.power == "FRANCE"][0] == "invalid"
    anywhere = adjudicate(pos, {"FRANCE": ["Build A Bel"]}, build_any=True)
    assert any(u.province == "BEL" for u in anywhere.position.units)


def test_build_any_keeps_a_winter_that_home_centres_would_skip() -> None:
    # France owns Belgium, vacant, but its home centres are full: only BUILD_ANY builds
    pos = make_position(M, "F1901M", {"FRANCE": ["A PAR", "F BRE", "A MAR"]},
                        {"FRANCE": ["PAR", "BRE", "MAR", "BEL"]})
    assert str(adjudicate(pos, {}).position.phase) == "S1902M"
    assert str(adjudicate(pos, {}, build_any=True).position.phase) == "W1901A"


def test_dont_skip_phases_plays_empty_phases() -> None:
    pos = make_position(M, "S1901M", {"FRANCE": ["A PAR"]}, {"FRANCE": ["PAR"]})
    assert str(adjudicate(pos, {}).position.phase) == "F1901M"
    assert str(adjudicate(pos, {}, skip_empty=False).position.phase) == "S1901R"


def test_adjudicate_with_random_removals_seed_keeps_centre_units() -> None:
    pos = make_position(M, "W1901A", {"FRANCE": ["A BUR", "A MOS", "F BRE"]},
                        {"FRANCE": ["PAR", "BRE"]})
    removed = lambda res: [r.unit.province for r in res.results if r.result == "remove"]  # noqa
    assert removed(adjudicate(pos, {})) == ["MOS"]  # the 2023 rule: farthest first
    assert removed(adjudicate(pos, {}, random_removals_seed="g:W1901A")) == ["BUR"]
