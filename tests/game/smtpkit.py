"""Helpers for games played by SMTP against a running ``judge serve`` (the ``judge`` fixture):
send a mail and wait for its reply, wait for a broadcast by subject."""

from __future__ import annotations

import time
from email.message import EmailMessage

from conftest import RunningJudge, body_of, make_mail


def exchange(judge: RunningJudge, sender: str, body: str, timeout: float = 20) -> str:
    """Mail the judge and return the body of its reply (found by In-Reply-To)."""
    msg = make_mail(body, sender=sender)
    judge.send(msg, mail_from=sender)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for reply in judge.replies():
            if reply.get("In-Reply-To") == msg["Message-ID"]:
                return body_of(reply).replace("\r\n", "\n")
        time.sleep(0.05)
    raise AssertionError(f"no reply to {body!r}:\n{judge.log()[-3000:]}")


def broadcasts(judge: RunningJudge, subject: str) -> list[EmailMessage]:
    return [m for m in judge.replies() if str(m["Subject"]) == subject]


def wait_broadcast(judge: RunningJudge, subject: str, timeout: float = 20) -> EmailMessage:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = broadcasts(judge, subject)
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no mail with subject {subject!r}: "
                         f"{[str(m['Subject']) for m in judge.replies()]}")


def text(msg: EmailMessage) -> str:
    return body_of(msg).replace("\r\n", "\n")
