"""Bounces in the shapes real mail servers write them (tests/mail/bounces/): each is read
for the recipient that failed, whether for good, what its server said, and the Message-ID of
the judge's mail it returns; an out-of-office reply is no bounce at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.mail.reading.bounces import parse, read_bounce

SAMPLES = Path(__file__).resolve().parent / "bounces"


@pytest.mark.parametrize("name, hard, said", [
    ("postfix", True, 'unknown user: "ghost"'),
    ("exim", True, "550 5.1.1 <ghost@players.test>: Recipient address rejected: User unknown"),
    ("sendmail", True, "550 5.1.1 <ghost@players.test>... User unknown"),
    ("exchange", True, "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found"),
    ("gmail", True, "550-5.1.1 The email account that you tried to reach does not exist."),
    ("qmail", True, "Sorry, no mailbox here by that name. (#5.1.1)"),
    ("delayed", False, "connect to mail.players.test[192.0.2.30]:25: Connection refused"),
    ("mailbox_full", False, "552 5.2.2 <ghost@players.test>: Mailbox full"),
])
def test_each_bounce_format_is_read(name: str, hard: bool, said: str) -> None:
    bounce = read_bounce(parse((SAMPLES / f"{name}.eml").read_bytes()))
    assert bounce is not None, name
    [failure] = bounce.failures
    assert failure.address == "ghost@players.test"
    assert failure.hard is hard
    assert said in failure.diagnostic
    assert "\n" not in failure.diagnostic and len(failure.diagnostic) <= 301
    assert bounce.returned_ids == ("<orig-1@judge.test>",)


def test_an_out_of_office_reply_is_no_bounce() -> None:
    assert read_bounce(parse((SAMPLES / "out_of_office.eml").read_bytes())) is None


def test_a_report_that_the_mail_was_delivered_is_no_bounce() -> None:
    raw = (SAMPLES / "postfix.eml").read_bytes().replace(b"Action: failed", b"Action: delivered") \
        .replace(b"Status: 5.1.1", b"Status: 2.0.0")
    assert read_bounce(parse(raw)) is None


def test_an_ordinary_mail_is_no_bounce() -> None:
    raw = (b"From: ghost@players.test\r\nTo: judge@judge.test\r\nSubject: orders\r\n"
           b"Message-ID: <m1@players.test>\r\n\r\nSIGNON Fwar1901 pw\r\nA PAR-BUR\r\n")
    assert read_bounce(parse(raw)) is None
