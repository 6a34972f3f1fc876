"""The game-rule registry (DPjudge's rules): data, markers, resolution and its order independence."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.core.game_rules import (Registry, RuleError, RuleSet, can_change_after_start,
                                   change_rules_after_start, load_registry, registry_problems,
                                   resolve_rules, rule_descriptions)

SEED_RULES = [
    "POWER_CHOICE", "MULTIPLE_POWERS_PER_PLAYER", "NO_OBSERVATIONS",
    "SOLITAIRE", "START_MASTER", "NO_PRESS", "PUBLIC_PRESS",
    "DONT_SKIP_PHASES", "IGNORE_ERRORS", "BUILD_ANY", "CIVIL_DISORDER",
    "CD_DUMMIES", "NO_DEADLINE", "REAL_TIME", "ALWAYS_WAIT",
    "PROPOSE_DIAS", "NO_DIAS", "HOLD_WIN", "SHARED_VICTORY", "NO_CHECK",
]
# DPjudge's twenty game rules in the order its rule list gives them, and the markers it prints
# after each rule's name (+X implies X, -X removes X, !X conflicts with X): facts transcribed
# from that list, which is what the registry (judge/variants/rules.json) must follow.
SEED_MARKERS = {
    "POWER_CHOICE": "()",
    "MULTIPLE_POWERS_PER_PLAYER": "()",
    "NO_OBSERVATIONS": "()",
    "SOLITAIRE": "(+NO_DEADLINE +CD_DUMMIES +ALWAYS_WAIT)",
    "START_MASTER": "()",
    "NO_PRESS": "(-PUBLIC_PRESS)",
    "PUBLIC_PRESS": "(-NO_PRESS)",
    "DONT_SKIP_PHASES": "()",
    "IGNORE_ERRORS": "()",
    "BUILD_ANY": "()",
    "CIVIL_DISORDER": "(+CD_DUMMIES)",
    "CD_DUMMIES": "()",
    "NO_DEADLINE": "()",
    "REAL_TIME": "(!ALWAYS_WAIT)",
    "ALWAYS_WAIT": "(!REAL_TIME)",
    "PROPOSE_DIAS": "(!NO_DIAS)",
    "NO_DIAS": "(!PROPOSE_DIAS)",
    "HOLD_WIN": "()",
    "SHARED_VICTORY": "()",
    "NO_CHECK": "()",
}
IMPLIES = [(r, x) for r, m in SEED_MARKERS.items() for x in re.findall(r"\+(\w+)", m)]
REMOVES = [(r, x) for r, m in SEED_MARKERS.items() for x in re.findall(r"-(\w+)", m)]
CONFLICTS = [(r, x) for r, m in SEED_MARKERS.items() for x in re.findall(r"!(\w+)", m)]


def ok(requested: list[str]) -> RuleSet:
    result = resolve_rules(requested)
    assert isinstance(result, RuleSet), result
    return result


def error(requested: list[str]) -> RuleError:
    result = resolve_rules(requested)
    assert isinstance(result, RuleError), result
    return result


# -- the data file ------------------------------------------------------------------------------


def _data() -> dict:
    text = resources.files("judge.variants").joinpath("rules.json").read_text("utf-8")
    return json.loads(text)


def test_data_has_the_twenty_seed_rules_in_seed_order() -> None:
    # then LATE_CHANGES, which DPjudge's rules name without defining, and the judge's own
    # ANONYMOUS (gunboat games)
    assert [r["name"] for r in _data()["rules"]] == SEED_RULES + ["LATE_CHANGES", "ANONYMOUS"]
    assert [r.name for r in rule_descriptions()] == SEED_RULES + ["LATE_CHANGES", "ANONYMOUS"]


@pytest.mark.parametrize("rule", rule_descriptions(), ids=lambda r: r.name)
def test_data_markers_are_the_seeds(rule) -> None:
    assert rule.markers == {**SEED_MARKERS, "LATE_CHANGES": "()", "ANONYMOUS": "()"}[rule.name]
    assert rule.description and len(rule.description) > 30
    assert isinstance(rule.changeable_after_start, bool)


def test_every_marker_names_a_known_or_external_rule() -> None:
    registry = load_registry()
    assert registry_problems() == []
    for rule in registry.rules.values():
        for target in rule.implies + rule.removes + rule.conflicts + rule.implied_unless_removed:
            assert target in registry.rules or target in registry.external


def test_external_rules_are_the_ones_the_seed_only_mentions() -> None:
    external = set(load_registry().external)
    assert {"NO_LATE_CHANGES", "TOUCH_PRESS", "REMOTE_PRESS"} <= external
    assert not external & set(SEED_RULES)


def test_registry_is_loaded_once() -> None:
    assert load_registry() is load_registry()


# -- every marker of the seed -------------------------------------------------------------------


@pytest.mark.parametrize(("rule", "implied"), IMPLIES)
def test_every_implication(rule: str, implied: str) -> None:
    result = ok([rule])
    assert result.has(implied)
    assert f"{implied}: brought in by {rule}" in result.explain()


def test_solitaire_brings_no_deadline_cd_dummies_and_always_wait() -> None:
    assert ok(["SOLITAIRE"]).names == ("ALWAYS_WAIT", "CD_DUMMIES", "NO_DEADLINE", "SOLITAIRE")


def test_civil_disorder_brings_cd_dummies() -> None:
    assert ok(["CIVIL_DISORDER"]).names == ("CD_DUMMIES", "CIVIL_DISORDER")


@pytest.mark.parametrize(("rule", "other"), CONFLICTS)
def test_every_conflict_is_an_error(rule: str, other: str) -> None:
    result = error([rule, other])
    assert set(result.rules) == {rule, other}
    assert rule in result.message and other in result.message
    assert "cannot be used with" in result.message


def test_real_time_refuses_the_always_wait_of_solitaire() -> None:
    result = error(["REAL_TIME", "SOLITAIRE"])
    assert result.rules == ("ALWAYS_WAIT", "REAL_TIME")
    assert "ALWAYS_WAIT (brought in by SOLITAIRE) cannot be used with REAL_TIME" in result.message


@pytest.mark.parametrize(("rule", "removed"), REMOVES)
def test_every_removal_applies(rule: str, removed: str) -> None:
    # on its own: the removed rule is not in force
    assert not ok([rule]).has(removed)
    # named together with the rule that removes it: refused, whichever order
    for requested in ([rule, removed], [removed, rule]):
        result = error(requested)
        assert set(result.rules) == {rule, removed}
        assert "cannot be used together" in result.message


def test_no_press_and_public_press_are_one_clear_error() -> None:
    assert error(["NO_PRESS", "PUBLIC_PRESS"]).message == (
        "NO_PRESS and PUBLIC_PRESS take each other away, so they cannot be used together."
    )


def test_rules_without_markers_stand_alone() -> None:
    for rule, markers in SEED_MARKERS.items():
        if markers == "()":
            assert ok([rule]).names == (rule,)


def test_empty_request_is_no_rules() -> None:
    assert ok([]) == RuleSet()
    assert ok(["", "  "]).names == ()


# -- names --------------------------------------------------------------------------------------


def test_names_are_case_insensitive_and_may_use_hyphens() -> None:
    assert ok(["solitaire"]) == ok(["SOLITAIRE"]) == ok(["Solitaire "])
    assert ok(["no-press", "Civil_Disorder"]).names == ("CD_DUMMIES", "CIVIL_DISORDER", "NO_PRESS")
    assert ok(["NO_PRESS"]).has("no_press") and "no-press" in ok(["NO_PRESS"])


def test_duplicates_do_not_matter() -> None:
    assert ok(["HOLD_WIN", "hold_win", "HOLD_WIN"]) == ok(["HOLD_WIN"])


def test_unknown_rule_is_named_with_a_suggestion() -> None:
    result = error(["SOLITAIRE", "NOPRESS", "HOLD_WINN"])
    assert result.rules == ("HOLD_WINN", "NOPRESS")
    assert "There is no rule HOLD_WINN. Did you mean HOLD_WIN?" in result.message
    assert "There is no rule NOPRESS. Did you mean NO_PRESS?" in result.message
    assert "GET RULES" in result.message


def test_unknown_rule_without_anything_close() -> None:
    result = error(["XYZZY"])
    assert result.message == "There is no rule XYZZY. Send GET RULES for the list."


def test_rule_the_seed_only_mentions_is_refused_with_a_note() -> None:
    result = error(["touch_press"])
    assert result.rules == ("TOUCH_PRESS",)
    assert "TOUCH_PRESS is a DPjudge rule that this judge does not offer." in result.message


def test_errors_are_values_not_exceptions() -> None:
    result = resolve_rules(["REAL_TIME", "ALWAYS_WAIT", "PROPOSE_DIAS", "NO_DIAS"])
    assert isinstance(result, RuleError)
    assert str(result) == result.message
    assert result.message.splitlines() == [
        "ALWAYS_WAIT cannot be used with REAL_TIME: each rule forbids the other.",
        "NO_DIAS cannot be used with PROPOSE_DIAS: each rule forbids the other.",
    ]


# -- explain ------------------------------------------------------------------------------------


def test_explain_says_where_each_rule_came_from() -> None:
    assert ok(["SOLITAIRE", "CIVIL_DISORDER", "NO_PRESS"]).explain() == [
        "ALWAYS_WAIT: brought in by SOLITAIRE",
        "CD_DUMMIES: brought in by CIVIL_DISORDER and SOLITAIRE",
        "CIVIL_DISORDER: chosen",
        "NO_DEADLINE: brought in by SOLITAIRE",
        "NO_PRESS: chosen",
        "SOLITAIRE: chosen",
    ]


def test_a_rule_asked_for_and_implied_counts_as_chosen() -> None:
    result = ok(["SOLITAIRE", "NO_DEADLINE"])
    assert "NO_DEADLINE: chosen" in result.explain()
    assert result.names == ok(["SOLITAIRE"]).names


# -- the semantics on a made-up registry (transitivity, =X, dangling markers) ------------------


def made_up(rules: dict[str, dict], external: dict[str, str] | None = None) -> Registry:
    return Registry.from_data({
        "rules": [{"name": n, "description": n.lower(), **m} for n, m in rules.items()],
        "external": external or {},
    })


CHAIN = made_up({
    "A": {"implies": ["B"]},
    "B": {"implies": ["C"]},
    "C": {"implied_unless_removed": ["D"]},
    "D": {},
    "E": {"removes": ["D"]},
    "F": {"removes": ["B"]},
    "G": {"conflicts": ["D"]},
    "H": {"implies": ["GHOST", "OLD"], "removes": ["GHOST"], "conflicts": ["OLD"]},
    "I": {"aliases": ["EYE"]},
}, external={"OLD": "Not offered."})


def test_implications_are_transitive() -> None:
    result = resolve_rules(["A"], CHAIN)
    assert isinstance(result, RuleSet)
    assert result.names == ("A", "B", "C", "D")
    assert result.explain() == [
        "A: chosen", "B: brought in by A", "C: brought in by B", "D: brought in by C",
    ]


def test_removal_beats_implied_unless_removed() -> None:
    result = resolve_rules(["A", "E"], CHAIN)
    assert isinstance(result, RuleSet)
    assert result.names == ("A", "B", "C", "E")
    assert "D: taken away by E" in result.explain()


def test_removal_beats_implication_and_cuts_what_follows() -> None:
    result = resolve_rules(["A", "F"], CHAIN)
    assert isinstance(result, RuleSet)
    assert result.names == ("A", "F")
    assert result.taken_away == (("B", ("F",)),)


def test_conflict_with_a_transitively_implied_rule() -> None:
    result = resolve_rules(["G", "A"], CHAIN)
    assert isinstance(result, RuleError)
    assert result.message == (
        "D (brought in by A) cannot be used with G: G forbids D."
    )
    # once D is taken away the conflict is gone
    assert isinstance(resolve_rules(["G", "A", "E"], CHAIN), RuleSet)


def test_removing_an_implied_rule_that_was_asked_for_is_an_error() -> None:
    result = resolve_rules(["C", "E", "D"], CHAIN)
    assert isinstance(result, RuleError)
    assert result.message == "E takes D away, so they cannot be used together."


def test_markers_naming_undefined_rules_do_not_crash() -> None:
    result = resolve_rules(["H"], CHAIN)
    assert result == RuleSet(names=("H",), requested=("H",))
    assert CHAIN.problems() == [
        "H +GHOST: no such rule", "H -GHOST: no such rule",
    ]


def test_aliases() -> None:
    assert resolve_rules(["eye"], CHAIN) == resolve_rules(["I"], CHAIN)


# -- order independence -------------------------------------------------------------------------

NAMES = st.sampled_from(SEED_RULES + ["solitaire", "no-press", "LATE_CHANGES", "BOGUS"])


@settings(max_examples=300, deadline=None)
@given(st.lists(NAMES, max_size=12), st.randoms(use_true_random=False))
def test_any_order_gives_the_same_result(requested: list[str], rnd) -> None:
    shuffled = list(requested)
    rnd.shuffle(shuffled)
    assert resolve_rules(shuffled) == resolve_rules(requested)
    assert resolve_rules(list(reversed(requested))) == resolve_rules(requested)


@settings(max_examples=300, deadline=None)
@given(st.sets(st.sampled_from(SEED_RULES)))
def test_a_resolved_set_is_a_consistent_fixed_point(requested: set[str]) -> None:
    result = resolve_rules(requested)
    registry = load_registry()
    if isinstance(result, RuleError):
        assert result.message and set(result.rules) <= set(SEED_RULES)
        return
    names = set(result.names)
    assert set(requested) <= names
    removed = {t for n in names for t in registry.rules[n].removes}
    assert not names & removed
    for name in names:
        rule = registry.rules[name]
        assert set(rule.implies) - removed <= names
        assert not set(rule.conflicts) & names
    # resolving the result again changes nothing
    again = resolve_rules(result.names)
    assert isinstance(again, RuleSet) and again.names == result.names


# -- changes after the start --------------------------------------------------------------------

FIXED_AT_START = {
    "POWER_CHOICE", "MULTIPLE_POWERS_PER_PLAYER", "SOLITAIRE", "START_MASTER", "BUILD_ANY",
    "PROPOSE_DIAS", "NO_DIAS", "HOLD_WIN", "SHARED_VICTORY", "NO_CHECK",
}


@pytest.mark.parametrize("rule", SEED_RULES)
def test_which_rules_may_change_after_the_start(rule: str) -> None:
    assert can_change_after_start(rule) is (rule not in FIXED_AT_START)
    assert can_change_after_start(rule.lower()) is can_change_after_start(rule)


def test_unknown_rule_cannot_change() -> None:
    assert can_change_after_start("BOGUS") is False


def test_press_and_civil_disorder_may_change_during_the_game() -> None:
    current = ok(["NO_PRESS", "HOLD_WIN"])
    result = change_rules_after_start(current, ["PUBLIC_PRESS", "HOLD_WIN", "CIVIL_DISORDER"])
    assert isinstance(result, RuleSet)
    assert result.names == ("CD_DUMMIES", "CIVIL_DISORDER", "HOLD_WIN", "PUBLIC_PRESS")


def test_terms_of_the_game_may_not_change_during_the_game() -> None:
    current = ok(["NO_PRESS", "HOLD_WIN"])
    result = change_rules_after_start(current, ["NO_PRESS", "BUILD_ANY"])
    assert isinstance(result, RuleError)
    assert result.rules == ("BUILD_ANY", "HOLD_WIN")
    assert result.message.startswith("BUILD_ANY and HOLD_WIN cannot be added or dropped")
    # and a bad request is still reported as such
    assert isinstance(change_rules_after_start(current, ["NOPE"]), RuleError)


def test_help_text_lists_exactly_the_rules_that_may_change() -> None:
    help_text = Path(__file__).resolve().parents[2] / "templates" / "help" / "rules.txt"
    flat = " ".join(help_text.read_text("utf-8").split())
    listed = flat.split("add or drop ", 1)[1].split(". The other rules", 1)[0]
    names = set(re.findall(r"[A-Z_]{4,}", listed))
    assert names == (set(SEED_RULES) | {"LATE_CHANGES"}) - FIXED_AT_START
