"""The samples of the mails about time in docs/deadlines.md are what the templates write.

Each sample in the document is a fenced block under a ``### <name>`` heading; this test
renders the same event with the judge's own templates and compares them line by line.  The
``::`` header lines are left out of the comparison (their machine form belongs to the mail
format as a whole); the text, with its times in the reader's zone, is compared exactly.

``python tests/test_deadline_samples.py`` prints the samples, to paste into the document
after a change of wording.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from judge.basics.config import Config, JudgeSection
from judge.mail.writing.compose import Composer
from judge.mail.writing.game_mail import judge_date, outgoing_for
from judge.service.events import (Change, Event, GameResumed, LateNotice, ParameterChanged)

DOC = Path(__file__).resolve().parent.parent / "docs" / "deadlines.md"
UTC = timezone.utc
DEADLINE = datetime(2026, 11, 27, 21, 0, tzinfo=UTC)
BASE: dict[str, Any] = dict(game="war1901", variant="Standard", to=("player@example.org",))


def _changed(*changes: Change, **more: Any) -> ParameterChanged:
    values: dict[str, Any] = dict(phase="S1901M", deadline=DEADLINE, changes=changes,
                                  grace_until=datetime(2026, 11, 28, 21, 0, tzinfo=UTC))
    values.update(more)
    return ParameterChanged(**BASE, **values)


# name → (the event, the reader's zone)
SAMPLES: dict[str, tuple[Event, str]] = {
    "Parameter Change: the deadline": (_changed(Change("deadline", moment=DEADLINE)), "UTC"),
    "Parameter Change: phase lengths": (
        _changed(Change("duration", phases="MRA", seconds=72 * 3600)), "UTC"),
    "Parameter Change: the grace period": (
        _changed(Change("grace", seconds=12 * 3600),
                 grace_until=datetime(2026, 11, 28, 9, 0, tzinfo=UTC)), "America/New_York"),
    "Parameter Change: the clock": (
        _changed(Change("clock", minute=22 * 60, days=(1, 2, 3, 4, 5), zone="Europe/London")),
        "Europe/Paris"),
    "Parameter Change: the rules": (
        _changed(Change("rules", names=("CD_DUMMIES", "CIVIL_DISORDER"))), "UTC"),
    "Parameter Change: the longest absence": (_changed(Change("max_absence", count=10)), "UTC"),
    "Parameter Change: an absence": (
        _changed(Change("absence", power="FRANCE",
                        starts=datetime(2026, 11, 26, 23, 0, tzinfo=UTC),
                        ends=datetime(2026, 11, 29, 23, 0, tzinfo=UTC), moved=True),
                 deadline=datetime(2026, 11, 29, 23, 0, tzinfo=UTC),
                 grace_until=datetime(2026, 11, 30, 23, 0, tzinfo=UTC)), "Europe/Paris"),
    "Parameter Change: an absence refused": (
        _changed(Change("noabsence", power="FRANCE", how="refused",
                        starts=datetime(2026, 11, 26, 23, 0, tzinfo=UTC),
                        ends=datetime(2026, 11, 29, 23, 0, tzinfo=UTC), moved=True)), "UTC"),
    "Parameter Change: while paused": (
        _changed(Change("grace", seconds=0), deadline=None, grace_until=None, state="paused"),
        "UTC"),
    "Resumed": (GameResumed(**BASE, phase="S1901M", deadline=DEADLINE), "Asia/Tokyo"),
    "Resumed, every order in": (
        GameResumed(**BASE, phase="F1901R", deadline=DEADLINE, ready=True), "UTC"),
    "Late Notice: adjustments": (
        LateNotice(**BASE, phase="W1901A", deadline=DEADLINE,
                   grace_until=datetime(2026, 11, 28, 21, 0, tzinfo=UTC),
                   powers=("FRANCE", "GERMANY")), "UTC"),
    "Late Notice: retreats": (
        LateNotice(**BASE, phase="F1901R", deadline=DEADLINE,
                   grace_until=datetime(2026, 11, 28, 21, 0, tzinfo=UTC),
                   powers=("GERMANY",)), "UTC"),
}


def render(name: str) -> tuple[str, str]:
    """The sample's subject and text."""
    event, zone = SAMPLES[name]
    config = Config(judge=JudgeSection(address="judge@example.org"))
    (out,) = outgoing_for([event], "JUDGE")
    text = Composer(config).render(out.template, judge_name="JUDGE",
                                   judge_address="judge@example.org", judge_date=judge_date,
                                   zone=zone, **out.variables)
    return out.subject, text


def documented() -> dict[str, str]:
    found = re.findall(r"^### (.+?)\n.*?^```text\n(.*?)^```", DOC.read_text(),
                       re.MULTILINE | re.DOTALL)
    return {name.strip(): block for name, block in found}


def _without_headers(text: str) -> list[str]:
    return [line for line in text.rstrip("\n").split("\n") if not line.startswith("::")]


def test_every_sample_is_documented() -> None:
    assert sorted(documented()) == sorted(SAMPLES)


@pytest.mark.parametrize("name", list(SAMPLES))
def test_the_sample_is_what_the_template_writes(name: str) -> None:
    subject, text = render(name)
    block = documented()[name]
    assert block.startswith(f"Subject: {subject}\n"), block.split("\n")[0]
    assert _without_headers(block.split("\n", 2)[2]) == _without_headers(text)
    assert all(len(line) <= 78 for line in text.split("\n")), text


if __name__ == "__main__":
    for sample in SAMPLES:
        subject, body = render(sample)
        print(f"### {sample}\n\n```text\nSubject: {subject}\n\n{body.rstrip()}\n```\n")
