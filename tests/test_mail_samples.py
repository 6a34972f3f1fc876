"""The samples in docs/mail-format.md are what the judge writes, so they cannot drift.

Each sample is a fenced block under a ``### <name>`` heading.  This test makes the same mail
for one fixed game -- a board set at the Fall of 1901, played through its movement, retreat and
adjustment phases by the real adjudicator and the judge's own results facts -- renders it with
the judge's templates and compares subject and text, ``::`` header lines included, exactly.

``python tests/test_mail_samples.py`` prints the samples, to paste into the document after a
change of wording.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import pytest

from judge.commands.context import Answer
from judge.basics.config import Config, JudgeSection
from judge.core import Position, adjudicate, load_map
from judge.mail.writing.compose import Composer
from judge.mail.writing.game_mail import judge_date, outgoing_for
from judge.mail.writing.subjects import reply_subject
from judge.service.events import ConfirmationAsked, PhaseProcessed, PlayerRemoved
from judge.service.processing import board_units, results_facts
from judge.service.positions import parse_position_block

DOC = Path(__file__).resolve().parent.parent / "docs" / "mail-format.md"
UTC = timezone.utc
DEADLINE = datetime(2026, 11, 27, 21, 0, tzinfo=UTC)
GAME = "war1901"
BOARD = ["Austria: A Boh, A Vie, F Tri; centers Bud Tri Vie",
         "England: F Lon; centers Edi Lon Lvp",
         "France: F Mao, A Par; centers Bre Mar Par",
         "Germany: A Mun, A Sil, F Kie; centers Ber Kie Mun"]
# the orders of each phase played from the board (the powers not named send none)
ORDERS: dict[str, dict[str, list[str]]] = {
    "F1901M": {"GERMANY": ["A Mun-Boh", "A Sil S A Mun-Boh", "F Kie-Hol"],
               "FRANCE": ["F Mao-Spa/sc", "A Par-Bur"]},
    "F1901R": {"AUSTRIA": ["A Boh-Tyr"]},
    "W1901A": {"GERMANY": ["Build A Ber"], "FRANCE": ["Build F Bre"]},
}


def _composer() -> Composer:
    return Composer(Config(judge=JudgeSection(address="judge@example.org")))


def _render(template: str, **variables: Any) -> str:
    return _composer().render(template, judge_name="JUDGE", judge_address="judge@example.org",
                              judge_date=judge_date, zone="UTC", **variables)


def _played() -> dict[str, tuple[Position, dict[str, Any]]]:
    """phase → (the board before it, the results facts of it), in the order played."""
    m = load_map("standard")
    pos = parse_position_block(m, "F1901M", BOARD)
    out: dict[str, tuple[Position, dict[str, Any]]] = {}
    for number, (phase, orders) in enumerate(ORDERS.items(), start=1):
        assert str(pos.phase) == phase
        res = adjudicate(pos, orders)
        facts = results_facts(m, pos, res)
        facts["number"] = number
        out[phase] = (pos, facts)
        pos = res.position
    return out


def results(phase: str) -> tuple[str, str]:
    _, facts = _played()[phase]
    event = PhaseProcessed(game=GAME, variant="Standard", to=("player@example.org",),
                           phase=phase, facts=facts, next_phase=facts["next_phase"],
                           deadline=DEADLINE, reason="orders complete")
    (out,) = outgoing_for([event], "JUDGE")
    return out.subject, _render(out.template, **out.variables)


def reply() -> tuple[str, str]:
    answers = [Answer(1, "SIGNON Fwar1901 ****",
                      "Signed on as France in war1901 (F1901M, deadline Friday 27 November"
                      " 2026, 21:00 UTC)."),
               Answer(2, "F Mao-Spa/sc", "Accepted: F MAO - SPA/SC"),
               Answer(3, "A Par-Bel", "Error: A PAR cannot move to BEL.", ok=False),
               Answer(4, "A Par-Bur", "Accepted: A PAR - BUR")]
    game = dict(name=GAME, variant="Standard", phase="F1901M", deadline=DEADLINE)
    text = _render("reply.txt", answers=answers, problems=[], game=game, mail=None, limit=50)
    return reply_subject("JUDGE", "Re: JUDGE:war1901 - S1901M orders", GAME, "F1901M",
                         error=True), text


def listing() -> tuple[str, str]:
    """LIST war1901 by a stranger, at the retreats (the master, Germany's player resigned)."""
    pos, _ = _played()["F1901R"]
    m = pos.map
    counts = pos.center_counts()
    status = {"ENGLAND": "civil disorder"}
    rows = [(p.capitalize(), counts[p], len(pos.units_of(p)), status.get(p, "playing"), "")
            for p in m.powers]
    game = SimpleNamespace(name=GAME, state="active", phase="F1901R", winner=None, rules="")
    text = _render("game/list_game.txt", game=game, variant="Standard", rows=rows, forming=[],
                   deadline="Friday 27 November 2026, 21:00 UTC", clock=None, max_absence=14,
                   absences=[], npowers=7, mine=None, formal=None, draw_mode="DIAS",
                   votes=[], voting=False, ended="", private=False, open_seats=["England"],
                   addresses="private",
                   units=board_units(pos),
                   press=dict(rules=[], grey=True, observers=False),
                   civil_disorder=False, cd_dummies=False, waiting_for=[],
                   durations=["2d", "1d", "1d", "1d"])
    body = _render("reply.txt", answers=[Answer(1, "LIST war1901", text.rstrip("\n"))],
                   problems=[], mail=None, limit=50)
    return reply_subject("JUDGE", "list"), body


CODE = "K7QM2-XPDA9"  # a confirmation code (judge.service.access.confirmations makes them at random)


def observe_reply() -> tuple[str, str]:
    """The reply to OBSERVE war1901: the seat waits for the code to come back."""
    answer = _render("game/observe.txt", game=GAME, code=CODE, address="fan@example.org",
                     until="Monday 30 November 2026, 21:00 UTC")
    body = _render("reply.txt", answers=[Answer(1, "OBSERVE war1901 ****",
                                                answer.rstrip("\n"))],
                   problems=[], mail=None, limit=50)
    return reply_subject("JUDGE", "observe"), body


def confirm_address() -> tuple[str, str]:
    """The one mail to a new address France's player gave (SET ADDRESS)."""
    event = ConfirmationAsked(game=GAME, variant="Standard", to=("new@example.org",),
                              phase="F1901M", role="FRANCE", code=CODE,
                              until=DEADLINE + timedelta(days=3))
    (out,) = outgoing_for([event], "JUDGE")
    return out.subject, _render(out.template, **out.variables)


def closed_to_observers() -> tuple[str, str]:
    """An observer's mail when the master closes the game to observers (NO_OBSERVATIONS)."""
    event = PlayerRemoved(game=GAME, variant="Standard", to=("fan@example.org",), power=None,
                          phase="F1901M", how="closed", observer=True)
    (out,) = outgoing_for([event], "JUDGE")
    return out.subject, _render(out.template, **out.variables)


SAMPLES: dict[str, Callable[[], tuple[str, str]]] = {
    "Reply after SIGNON": reply,
    "Movement results": lambda: results("F1901M"),
    "Retreat results": lambda: results("F1901R"),
    "Adjustment results": lambda: results("W1901A"),
    "LIST of a game": listing,
    "Reply to OBSERVE": observe_reply,
    "Confirm your address": confirm_address,
    "Closed to observers": closed_to_observers,
}


def documented() -> dict[str, str]:
    found = re.findall(r"^### (.+?)\n.*?^```text\n(.*?)^```", DOC.read_text(),
                       re.MULTILINE | re.DOTALL)
    return {name.strip(): block for name, block in found}


def test_every_sample_is_documented() -> None:
    assert sorted(documented()) == sorted(SAMPLES)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_the_sample_is_what_the_templates_write(name: str) -> None:
    subject, text = SAMPLES[name]()
    block = documented()[name]
    assert block == f"Subject: {subject}\n\n{text.rstrip()}\n", block


if __name__ == "__main__":
    for sample, make in SAMPLES.items():
        subject, body = make()
        print(f"### {sample}\n\n```text\nSubject: {subject}\n\n{body.rstrip()}\n```\n")
