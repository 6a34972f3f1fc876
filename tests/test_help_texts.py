"""Checks the help texts served by HELP and GET <topic>.

Every template in templates/help/ must render with the three variables
the mail composer gives it, fit in a 78-column mail, and say what the
seeds require it to say (the five draw examples, the twenty game rules).
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from judge.basics.config import LimitsSection
from judge.core.game_rules import rule_descriptions

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
HELP = TEMPLATES / "help"
CONTEXT = {
    "judge_address": "judge@example.org",
    "judge_name": "JUDGE",
    "version": "0.1.0",
    "limits": LimitsSection(),
    "replies_per_day": 50,
}
EXPECTED_TOPICS = {
    "index", "info", "commands", "orders", "draws", "rules", "formal",
    "press",
}
# DPjudge's twenty rules with their markers, from the rule registry (whose own tests
# compare it with the seed): the help text must list each exactly so.
SEED_MARKERS = {rule.name: rule.markers for rule in rule_descriptions()}
SEED_RULES = list(SEED_MARKERS)


def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        undefined=jinja2.StrictUndefined,
    )


def _names() -> list[str]:
    return sorted(p.name for p in HELP.glob("*.txt"))


def render(name: str) -> str:
    return _env().get_template(f"help/{name}").render(**CONTEXT)


def test_every_topic_has_a_template() -> None:
    assert {n.removesuffix(".txt") for n in _names()} >= EXPECTED_TOPICS


@pytest.mark.parametrize("name", _names())
def test_renders_and_fits_in_a_mail(name: str) -> None:
    text = render(name)
    assert text.strip()
    for number, line in enumerate(text.splitlines(), 1):
        assert len(line) <= 78, f"{name}:{number} is {len(line)} long"
        assert line == line.rstrip(), f"{name}:{number} trailing blank"
        assert "\t" not in line, f"{name}:{number} has a tab"
    assert "{{" not in text and "{%" not in text
    title, underline = text.splitlines()[:2]
    assert underline == "=" * len(title), f"{name}: title underline"


@pytest.mark.parametrize("name", _names())
def test_uses_no_markdown_headings(name: str) -> None:
    for line in render(name).splitlines():
        assert not re.match(r"#{1,6} ", line), line


def test_variables_are_used() -> None:
    assert "judge@example.org" in render("index.txt")
    assert "0.1.0" in render("index.txt")
    assert "JUDGE" in render("info.txt")


def test_index_lists_every_topic() -> None:
    text = render("index.txt")
    for topic in EXPECTED_TOPICS - {"index"}:
        assert f"GET {topic.upper()}" in text
    for word in ("LIST", "JOIN", "CREATE", "SIGNON", "SIGNOFF", "//"):
        assert word in text


def test_draws_has_the_five_seed_examples() -> None:
    text = render("draws.txt")
    flat = " ".join(text.split())
    # The outcomes of the five worked examples of the Judge's draw rules, then their votes.
    assert flat.count("a three-way draw of Austria, England and France") == 2
    assert "a two-way draw of Austria and England" in flat
    assert "no draw; the game goes on" in flat
    assert "a concession to Austria" in flat
    for example, votes in {
        "1.": ("AEF", "AEF", "AEF"),
        "2.": ("AEF", "AEF", "AE"),
        "3.": ("AE", "AEF", "AE"),
        "4.": ("AE", "AE", "AEF"),
        "5.": ("NODRAW", "A", "A"),
    }.items():
        block = text.split(f"\n{example} ", 1)[1].split("Result:", 1)[0]
        austria, england, france = votes
        austria_vote = "NODRAW" if austria == "NODRAW" else f"DRAW {austria}"
        assert re.search(rf"Austria\s+SET {austria_vote}\n", block)
        assert re.search(rf"England\s+SET DRAW {england}\n", block)
        assert re.search(rf"France\s+SET DRAW {france}\n", block)


def test_draws_states_the_rule_and_the_commands() -> None:
    flat = " ".join(render("draws.txt").split())
    assert "D is a subset of L(x) + {x}" in flat
    assert "L(x) = {x}" in flat
    for command in ("SET DRAW", "SET NODRAW", "SET NODIAS", "SET DIAS",
                    "SET CONCEDE", "SET NOCONCEDE", "PROPOSE DIAS",
                    "PROPOSE CONCEDE", "VOTE YES", "VOTE NO", "VOTE SOLO",
                    "VOTE LOSS", "VOTE <n>", "RESUME"):
        assert command in flat, command
    assert "SET DRAW A,E,F" in flat and "SET DRAW A E F" in flat


def test_rules_names_all_twenty_with_the_seed_markers() -> None:
    text = render("rules.txt")
    for rule in SEED_RULES:
        assert re.search(rf"^{rule} \S", text, re.M), rule
        assert f"{rule} {SEED_MARKERS[rule]}\n" in text, rule
    assert "CREATE" in text and "SET RULES" in text


def test_commands_covers_the_command_language() -> None:
    flat = " ".join(render("commands.txt").split())
    for command in (
        "HELP", "GET", "LIST", "HISTORY", "SUMMARY", "CREATE", "JOIN",
        "SIGNON ?", "OBSERVE", "SIGNON <X>", "SIGNOFF", "CLEAR",
        "SET WAIT", "SET NOWAIT", "SET PASSWORD", "SET ADDRESS",
        "SET DRAW", "SET NODRAW", "SET CONCEDE", "SET NOCONCEDE",
        "PROPOSE DIAS", "PROPOSE CONCEDE", "VOTE YES", "VOTE SOLO",
        "PRESS", "GREY", "BROADCAST", "ENDPRESS", "RESIGN", "DWO", "SUR",
        "SOI", "Undo SOI", "START", "PROCESS", "PAUSE", "RESUME",
        "TERMINATE", "ROLLBACK", "ROLLFORWARD", "SET DIAS", "SET NODIAS",
        "SET DEADLINE", "SET GRACE", "SET RULES", "BECOME", "EJECT",
        "POSITION", "ENDPOSITION", "TOURNAMENT", "STANDINGS", "SET GREY",
        "SET NOGREY", "SET OBSERVER PRESS", "SET NO OBSERVER PRESS",
    ):
        assert command in flat, command


def test_press_names_every_press_command_and_setting() -> None:
    flat = " ".join(render("press.txt").split())
    for command in ("PRESS TO <powers> [GREY]", "BROADCAST [GREY]", "ENDPRESS",
                    "PRESS TO M", "MASTER", "GRAY", "SET GREY", "SET NOGREY",
                    "SET NO GREY", "SET OBSERVER PRESS", "SET NO OBSERVER PRESS",
                    "SET NOOBSERVER PRESS", "NO_PRESS", "PUBLIC_PRESS", "HISTORY"):
        assert command in flat, command


def test_orders_covers_every_order_form() -> None:
    text = render("orders.txt")
    for form in ("A Par-Bur", "A Paris - Burgundy", "A Par H",
                 "F Lon S A Yor-Nwy", "F NTH C A Yor-Nwy", "A Yor-Nth-Nwy",
                 "VIA CONVOY", "A BUR R PAR", "A Bur disband", "A BUR D",
                 "Build A Par", "Build F StP/NC", "A PAR B", "Remove A Mun",
                 "A MUN D", "Waive", "StP(NC)"):
        assert form in text, form
    assert "never guessed" in text
