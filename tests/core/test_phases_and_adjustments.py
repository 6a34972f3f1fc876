"""Adjustments, civil disorder, retreats, phase sequence, centres, victory, JSON contract."""

import pytest

from judge.core import InputError, adjudicate, initial_position, load_map, make_position
from judge.core.jsonio import adjudicate_document
from judge.core.phases import Phase

M = load_map()


def codes(res, power):
    return [(r.text, r.result) for r in res.results_of(power)]


def test_builds_one_at_a_time_and_refusals() -> None:
    pos = make_position(M, "W1901A", {"FRANCE": ["A PIC"]},
                        {"FRANCE": ["PAR", "BRE", "MAR", "SPA"]})
    res = adjudicate(pos, {"FRANCE": ["Build A Par", "Build F Par", "Build A Spa",
                                      "Build F Bre", "Build A Mar", "Build F Mar"]})
    assert codes(res, "FRANCE") == [("Build A Par", "build"), ("Build F Par", "invalid"),
                                    ("Build A Spa", "invalid"), ("Build F Bre", "build"),
                                    ("Build A Mar", "build"), ("Build F Mar", "invalid")]
    assert sorted(u.code for u in res.units) == ["A MAR", "A PAR", "A PIC", "F BRE"]
    assert res.next_phase == Phase.parse("S1902M")


def test_build_coast_rules() -> None:
    pos = make_position(M, "W1901A", {}, {"RUSSIA": ["STP", "MOS"]})
    res = adjudicate(pos, {"RUSSIA": ["Build F StP", "Build F Mos", "Build StP/NC"]})
    assert [r.result for r in res.results_of("RUSSIA")][:3] == ["invalid", "invalid", "build"]
    assert [u.code for u in res.units] == ["F STP/NC"]
    # the second build was never used: it is waived by default
    assert [r.result for r in res.results_of("RUSSIA") if r.default] == ["waive"]


def test_missing_builds_waived_and_explicit_waive() -> None:
    pos = make_position(M, "W1901A", {}, {"ITALY": ["ROM", "NAP"]})
    res = adjudicate(pos, {"ITALY": ["Waive"]})
    assert [(r.result, r.default) for r in res.results_of("ITALY")] == [
        ("waive", False), ("waive", True)]


def test_too_many_removals_and_civil_disorder() -> None:
    # DATC 6.J.1 and 6.J.2 in miniature
    pos = make_position(M, "W1901A", {"FRANCE": ["A PAR", "A PIC", "A BUR"]},
                        {"FRANCE": ["PAR"]})
    res = adjudicate(pos, {"FRANCE": ["Remove A Pic", "Remove A Pic", "Remove F Lyo"]})
    assert [(r.text, r.result, r.default) for r in res.results_of("FRANCE")] == [
        ("Remove A Pic", "remove", False), ("Remove A Pic", "invalid", False),
        ("Remove F Lyo", "invalid", False), ("A BUR D", "remove", True)]
    assert [u.code for u in res.units] == ["A PAR"]


def test_civil_disorder_fleets_first_then_alphabetical() -> None:
    pos = make_position(M, "W1901A", {"RUSSIA": ["A BOH", "F SKA", "F NTH"]},
                        {"RUSSIA": ["STP", "WAR"]})
    res = adjudicate(pos, {})
    assert [r.text for r in res.results_of("RUSSIA")] == ["F NTH D"]


def test_retreats_bounce_and_default_disband() -> None:
    pos = make_position(M, "S1901R", {"GERMANY": ["A MUN"]}, {},
                        {"FRANCE": {"A BUR": ["PAR", "PIC"]},
                         "ITALY": {"A BEL": ["PIC", "HOL"]}, "AUSTRIA": {"A BOH": ["GAL"]}})
    res = adjudicate(pos, {"FRANCE": ["A Bur-Pic"], "ITALY": ["A BEL R PIC"]})
    assert [r.result for r in res.results] == ["disband", "bounce", "bounce"]
    assert [u.code for u in res.units] == ["A MUN"]
    assert res.next_phase == Phase.parse("F1901M")


def test_sequence_skips_and_keeps_empty_phases() -> None:
    pos = initial_position(M)
    res = adjudicate(pos, {})
    assert str(res.next_phase) == "F1901M"
    assert str(adjudicate(pos, {}, skip_empty=False).next_phase) == "S1901R"
    res = adjudicate(res.position, {})
    assert str(res.next_phase) == "S1902M"  # nobody gained or lost: no adjustments
    res = adjudicate(fall_pos := res.position.__class__(
        M, Phase.parse("F1901M"), initial_position(M).units, initial_position(M).centers), {})
    assert str(adjudicate(fall_pos, {}, skip_empty=False).next_phase) == "F1901R"
    assert str(adjudicate(
        adjudicate(fall_pos, {}, skip_empty=False).position, {}, skip_empty=False
    ).next_phase) == "W1901A"


def test_centres_change_after_fall_only() -> None:
    pos = make_position(M, "S1901M", {"FRANCE": ["A GAS"]}, {"FRANCE": ["PAR"]})
    res = adjudicate(pos, {"FRANCE": ["A Gas-Spa"]})
    assert res.position.centers["FRANCE"] == {"PAR"}
    res = adjudicate(res.position, {})
    assert res.position.centers["FRANCE"] == {"PAR", "SPA"}
    assert str(res.next_phase) == "W1901A"


def test_victory_and_survivors() -> None:
    centers = {"FRANCE": sorted(M.supply_centers - {"LON"})[:18], "ENGLAND": ["LON"]}
    pos = make_position(M, "W1905A", {"ITALY": ["A ROM"]}, centers)
    assert pos.winner() == "FRANCE"
    assert pos.survivors() == ("ENGLAND", "FRANCE", "ITALY")
    assert pos.center_counts()["FRANCE"] == 18
    assert initial_position(M).winner() is None


def test_judge_texts() -> None:
    pos = make_position(M, "S1901M", {"FRANCE": ["A PAR", "A MAR", "A PIC"],
                                      "GERMANY": ["A MUN", "A RUH"]})
    res = adjudicate(pos, {"FRANCE": ["A Par-Bur", "A Mar S A Par-Bur", "A Pic - Bel"],
                           "GERMANY": ["A Mun-Bur", "A Ruh-Bel"]})
    texts = [r.judge_text(M) for r in res.results]
    assert "France: Army Paris -> Burgundy." in texts
    assert "France: Army Marseilles SUPPORT Army Paris -> Burgundy." in texts
    assert "France: Army Picardy -> Belgium.  (*bounce*)" in texts
    assert "Germany: Army Munich -> Burgundy.  (*bounce*)" in texts


def test_json_contract_round_trip() -> None:
    out = adjudicate_document({
        "variant": "standard", "phase": "F1905M",
        "units": {"FRANCE": ["A PAR", "A BUR", "F BRE"], "GERMANY": ["A MUN", "A PIC"]},
        "centers": {"FRANCE": ["PAR", "BRE", "MAR"], "GERMANY": ["MUN"]},
        "orders": {"FRANCE": ["A PAR - PIC", "F BRE S A PAR - PIC", "A BUR H"],
                   "GERMANY": ["A MUN - BUR"]}})
    assert out["phase"] == "F1905M" and out["next_phase"] == "F1905R"
    assert out["results"]["FRANCE"][0] == {"order": "A PAR - PIC", "result": "ok"}
    assert out["results"]["GERMANY"] == [{"order": "A MUN - BUR", "result": "bounce"},
                                         {"order": "A PIC H", "result": "dislodged"}]
    assert out["dislodged"] == {"GERMANY": {"A PIC": ["BEL"]}}
    assert out["units"] == {"FRANCE": ["A BUR", "A PIC", "F BRE"], "GERMANY": ["A MUN"]}


@pytest.mark.parametrize("doc, words", [
    ([], "object"),
    ({"phase": "X1901M"}, "bad phase"),
    ({"phase": "S1901M", "units": {"PRUSSIA": []}}, "unknown power"),
    ({"phase": "S1901M", "units": {"FRANCE": ["A XYZ"]}}, "unknown province"),
    ({"phase": "S1901M", "units": {"FRANCE": ["A PAR"]}, "orders": {"FRANCE": ["A MUN H"]}},
     "no unit"),
    ({"phase": "S1901M", "units": {"FRANCE": "A PAR"}}, "must be a list"),
    ({"phase": "S1901M", "variant": "mars"}, "unknown variant"),
    ({"phase": "S1901M", "orderz": {}}, "unknown key"),
    ({"phase": "S1901M", "orders": {"FRANCE": ["A Nowhere - Par"]}}, "unknown province"),
])
def test_json_contract_errors(doc, words) -> None:
    with pytest.raises(InputError) as e:
        adjudicate_document(doc)
    assert words in e.value.message and "\n" not in e.value.message
