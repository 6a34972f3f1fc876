"""Announcements to a game: the service names a kind and gives facts; every word is in the
kind's template (templates/game/notices/), subject included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from judge.mail.writing.compose import make_environment
from judge.mail.writing.game_mail import notice_title
from judge.service.events import GameNotice

ROOT = Path(__file__).resolve().parent.parent.parent
NOTICES = ROOT / "templates" / "game" / "notices"


def _kinds_used_by_the_service() -> set[str]:
    kinds = set()
    for path in (ROOT / "judge" / "service").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "notice":
                kind = node.args[2]
                assert isinstance(kind, ast.Constant) and isinstance(kind.value, str), (
                    f"{path}:{node.lineno}: a notice's kind is a name, not built text")
                assert kind.value.isidentifier(), f"{path}:{node.lineno}: {kind.value!r}"
                assert all(not isinstance(a, ast.JoinedStr) for a in node.args), (
                    f"{path}:{node.lineno}: the service passes facts, not sentences")
                kinds.add(kind.value)
    return kinds


def test_every_kind_the_service_announces_has_its_template() -> None:
    kinds = _kinds_used_by_the_service()
    assert len(kinds) >= 10
    templates = {p.stem for p in NOTICES.glob("*.txt") if not p.name.startswith("_")}
    assert kinds == templates, f"without a template: {kinds - templates}; unused: {templates - kinds}"


SAMPLES = {
    "player_left": ({"power": "FRANCE", "how": "resigned"}, "France left",
                    "The player of France has resigned from g1; the power is in civil disorder"),
    "dummy": ({"power": "ITALY"}, "Italy is a dummy", "The master has made Italy a dummy in g1"),
    "position": ({"centres": [("FRANCE", 3), ("ITALY", 4)]}, "Position",
                 "Supply centres: France 3, Italy 4."),
    "proposal": ({"target": "ENGLAND"}, "Proposal",
                 "A proposal has been made in g1: a concession to England (PROPOSE CONCEDE)."),
    "grey_press": ({"allowed": False}, "No grey press", "press is always signed by its sender"),
    "draw_mode": ({"nodias": False}, "Draws: DIAS", "every draw includes all survivors"),
}


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_the_subject_and_text_come_from_the_template(kind: str) -> None:
    facts, title, text = SAMPLES[kind]
    event = GameNotice(game="g1", variant="Standard", to=("a@example.org",), phase="S1901M",
                       kind=kind, facts=facts)
    assert notice_title(event) == title
    body = make_environment().get_template(f"game/notices/{kind}.txt").render(event=event)
    assert text in body
    assert "\n\n" not in body.strip(), "no stray blank lines from the template's tags"
