"""Which lines of a mail the judge wrote itself (judge.mail.reading.own_lines): its lines are known
whatever they say, and a player's order or command never is taken for one."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import judge.commands.handlers  # noqa: F401  (registers the commands)
from judge.commands.registry import all_commands
from judge.core import load_map
from judge.mail.reading.own_lines import CERTAIN, NOT, WRITTEN, judge_lines

M = load_map()


@pytest.mark.parametrize("line", [
    "Germany: Army Ruhr.", "France: A Paris - Burgundy.", "Austria: Army Bohemia HOLD.  (*dislodged*)",
    ":: Judge: JUDGE  Game: war1901  Variant: Standard", "Accepted: A RUH H (replaces A RUH S A HOL - BEL)",
    "Unit positions after S1901M:", "Every unit has an order.", "4 lines read, 1 error.",
    "Movement results for Fall of 1901.  (war1901.001)",
    "The Austrian Army in Bohemia can retreat to Galicia or Tyrolia.",
    "Summary of war1901 (active), now at F1901M.",
])
def test_the_judges_lines_are_known(line: str) -> None:
    assert judge_lines([line]) == [CERTAIN]


def test_a_line_of_few_words_of_the_judges_is_known_unless_it_is_a_command() -> None:
    assert judge_lines(["Rules: none", "Open seats: none.", "Players:"]) == [WRITTEN] * 3


def test_a_line_in_small_letters_needs_two_words_of_the_judges() -> None:
    """Template lines that begin in small letters go on with a sentence: one word of theirs
    (``from``, ``until``) is what anybody writes."""
    assert judge_lines(["from Paris to Burgundy", "until Monday.", "in Paris."]) == [NOT] * 3
    assert judge_lines(["missing from: France, Germany."]) == [WRITTEN]


def test_lines_under_a_line_of_the_judge_go_with_it() -> None:
    lines = ["Orders of France in war1901 for S1901M:", "  A PAR - BUR", "  F BRE - MAO",
             "Every unit has an order.", "  A MAR H", "", "  A PIC H"]
    assert judge_lines(lines) == [CERTAIN, WRITTEN, WRITTEN, CERTAIN, NOT, NOT, NOT]
    # a long list of centres the judge wrapped; a retreat line wrapped at 78 characters
    assert judge_lines(["Russia:   Moscow, Rumania, Sevastopol, St Petersburg, Warsaw,",
                        "           Ankara.", "Russia: A Mos-Ukr"]) == [CERTAIN, WRITTEN, NOT]
    assert judge_lines(["The Russian Army in St Petersburg can retreat to Finland, Livonia",
                        "or Moscow.", "A Mos-Ukr"]) == [CERTAIN, WRITTEN, NOT]


def test_a_template_line_the_judge_wrapped_is_known_whole() -> None:
    lines = ["The master of war1901 has changed the length of movement, retreat and",
             "adjustment phases: from the next such phase on, each lasts 3d.", "A Par-Bur"]
    assert judge_lines(lines) == [CERTAIN, CERTAIN, NOT]
    # a player's line above it is not taken with it
    assert judge_lines(["A Par-Bur", *lines[:2]]) == [NOT, CERTAIN, CERTAIN]


# The ways a player writes an order: the unit's type or not, codes or names, "-", "to",
# "into", "->" or words, with or without a power in front and a full stop after.
PLACES = sorted({name for name in M.names if len(name) > 2})
_unit = st.tuples(st.sampled_from(["", "A ", "F ", "Army ", "Fleet ", "a ", "France: ",
                                   "French A "]),
                  st.sampled_from(PLACES).map(str.title))
_place = st.sampled_from(PLACES).map(lambda p: p.upper() if len(p) == 3 else p.title())


@st.composite
def order_lines(draw: st.DrawFn) -> str:
    kind, where = draw(_unit)
    unit = f"{kind}{where}"
    shape = draw(st.sampled_from(["{u} H", "{u} Hold", "{u}-{p}", "{u} - {p}", "{u} to {p}",
                                  "{u} into {p}", "{u} -> {p}", "{u} S {k}{q}", "{u} S {k}{q}-{p}",
                                  "{u} Supports {k}{q} to {p}", "{u} C A {q} - {p}",
                                  "Build {u}", "Remove {u}", "{u} D", "{u} R {p}", "Waive",
                                  "{u} Moves To {p}"]))
    line = shape.format(u=unit, p=draw(_place), q=draw(_place), k=draw(_unit)[0].lstrip())
    return line + draw(st.sampled_from(["", "", "."]))


JUDGES = ["Every unit has an order.", "Germany: Army Ruhr.", "Unit positions after S1901M:",
          ":: Deadline: F1901M Mon Nov 30 2026 03:57:00 +0000"]


@settings(max_examples=200, deadline=None)
@given(order_lines(), st.sampled_from(JUDGES), st.sampled_from(["", "  "]))
def test_a_players_order_is_never_the_judges(line: str, above: str, indent: str) -> None:
    if re.match(r"(France|French): .*\.$", line):
        return  # the results' own shape: "France: A Paris - Burgundy."
    assert judge_lines([line]) == [NOT]
    # under a line of the judge's, at its indent
    assert judge_lines([above, "", f"{indent}{line}"])[-1] == NOT
    if above.endswith("."):
        assert judge_lines([above, line])[-1] == NOT


def _written(syntax: str) -> str:
    """A command as a player writes it from its syntax: a word for each <placeholder>, the
    first of each choice, no optional part."""
    line = re.sub(r"\[[^\]]*\]", "", syntax).split(" | ")[0]
    line = re.sub(r"<[^>]*>", "war1901", line.replace("...", "A Par-Bur"))
    return re.sub(r"(\w+)\|\S+", r"\1", line).strip()


@pytest.mark.parametrize("spec", all_commands(), ids=lambda spec: spec.name)
def test_no_command_is_certainly_the_judges(spec) -> None:  # type: ignore[no-untyped-def]
    line = _written(spec.syntax)
    assert judge_lines([line]) != [CERTAIN], line
