"""The one reader of power names: initials, names, adjectives, beginnings, lists."""

from __future__ import annotations

import pytest

from judge.core import load_map
from judge.core.powers import PowerNameError, PowerNames, find_power, find_powers

M = load_map("standard")


@pytest.mark.parametrize("word", ["G", "g", "Germany", "GERMAN", " german ", "Ger", "germ"])
def test_one_power_in_every_spelling(word: str) -> None:
    assert find_power(M, word) == "GERMANY"


@pytest.mark.parametrize("word, says", [
    ("", "no power named"), ("X", '"X" is not a power'), ("Ge", '"Ge" is not a power'),
    ("Narnia", '"Narnia" is not a power: name a power by its initial (A E F G I R T)'),
])
def test_words_that_name_no_power(word: str, says: str) -> None:
    found = find_power(M, word)
    assert isinstance(found, PowerNameError) and says in found.message


def test_an_ambiguous_beginning_names_its_candidates() -> None:
    names = PowerNames.of_names(["FRANCE", "FRANKONIA", "SPAIN"])
    found = find_power(names, "Fran")
    assert isinstance(found, PowerNameError) and found.candidates == ("FRANCE", "FRANKONIA")
    assert find_power(names, "Frank") == "FRANKONIA" and find_power(names, "S") == "SPAIN"
    assert isinstance(find_power(names, "F"), PowerNameError)  # F is nobody's initial


def test_lists_take_initials_run_together_names_and_adjectives_but_no_beginnings() -> None:
    assert find_powers(M, "EG") == ["ENGLAND", "GERMANY"]
    assert find_powers(M, "e, German France") == ["ENGLAND", "GERMANY", "FRANCE"]
    assert find_powers(M, "FRA") == ["FRANCE", "RUSSIA", "AUSTRIA"]  # initials, not France
    assert find_powers(M, "EM", extra={"M": "MASTER"}) == ["ENGLAND", "MASTER"]
    bad = find_powers(M, "AEX")
    assert isinstance(bad, PowerNameError) and '"X" (in "AEX") is not a power initial' in \
        bad.message
