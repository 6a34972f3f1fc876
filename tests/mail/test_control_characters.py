"""Control characters in hostile mail: a NUL in the Subject, escapes and stray CRs in the body
and headers.  The judge stores and answers such mail (on PostgreSQL too, whose text columns
refuse NUL) and never copies a control character into what it stores as text or sends."""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from pathlib import Path

from conftest import body_of
from judge.basics.config import Config, JudgeSection
from judge.mail.clean import clean, clean_line, has_control
from judge.mail.writing.compose import Composer
from judge.mail.reading.message import read_message

# Bytes no mail the judge sends may carry outside line ends (CR LF) and tabs.
RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|(?<!\r)\n")

HOSTILE = (b"From: \"Eve\x1b[2J\x07\" <eve@example.org>\r\n"
           b"To: judge@example.org\r\n"
           b"Subject: orders\x00 \x1b[31mred\x08\x0b\r\n"
           b"Message-ID: <ctl\x01id@example.org>\r\n"
           b"Content-Type: text/plain; charset=utf-8\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\n"
           b"VERSION\r\n"
           b"bogus\x00command\x1b]0;owned\x07 \xc2\x85next\r\n"
           b"fake\rTo: victim@example.org\r\n"
           b"tab\there \xe2\x80\xa8sep\r\n")


def test_a_mail_full_of_control_characters_is_stored_answered_and_answered_clean(judge):
    judge.send(HOSTILE, mail_from="eve@example.org")
    [reply] = judge.wait_replies(1)
    deadline = time.monotonic() + 20
    while judge.sql("SELECT status FROM inbound") != [("done",)]:
        assert time.monotonic() < deadline, judge.sql("SELECT status, note FROM inbound")
        time.sleep(0.05)
    for path in (judge.maildir / "new").iterdir():
        raw = path.read_bytes().replace(b"\n", b"\r\n")  # the Maildir keeps bare LF lines
        assert not RAW_CONTROL.search(raw), raw
    assert not has_control(str(reply["Subject"]))
    body = body_of(reply)
    assert not has_control(body, multiline=True), body
    assert "> bogus\ufffdcommand\ufffd]0;owned\ufffd \ufffdnext" in body
    assert "> fake\ufffdTo: victim@example.org" not in body  # a lone CR is a line end ...
    assert "> fake" in body and "> To: victim@example.org" in body  # ... not a header
    assert "> tab\there \ufffdsep" in body
    [(subject,)] = judge.sql("SELECT subject FROM outbox")
    # a refused line flags the subject
    assert subject == "Re: [Error Flag] orders\ufffd \ufffd[31mred\ufffd"  # \\x0b: white space
    [(message_id, sender)] = judge.sql("SELECT message_id, envelope_sender FROM inbound")
    assert message_id == "<ctl\ufffdid@example.org>" and sender == "eve@example.org"


def test_reading_cleans_every_field() -> None:
    mail = read_message(HOSTILE, envelope_sender="eve@example.org",
                        judge_address="judge@example.org")
    for value in (mail.message_id, mail.sender, mail.from_header, mail.subject,
                  *mail.references, *mail.problems):
        assert value is None or not has_control(value), value
    for line in mail.lines:
        assert not has_control(line.replace("\t", " ")), line


def test_composed_mail_is_cleaned_whatever_it_is_given(tmp_path: Path) -> None:
    composer = Composer(Config(judge=JudgeSection(address="judge@example.org")))
    msg = composer.broadcast(to=["a@example.org"], subject="x\r\nBcc: victim@example.org",
                             body="line\x00one\r\nline\x1btwo\n" + "y" * 2000 + "\n",
                             now=datetime(2026, 1, 1, tzinfo=timezone.utc))
    raw = msg.as_bytes()
    assert b"\nBcc:" not in raw and msg["Subject"] == "x  Bcc: victim@example.org"
    assert msg["Content-Transfer-Encoding"] == "quoted-printable"  # a 2000-character line
    assert max(len(line) for line in raw.split(b"\n")) <= 78
    assert msg.get_content() == "line\ufffdone\nline\ufffdtwo\n" + "y" * 2000 + "\n"


def test_clean_keeps_text_and_replaces_controls() -> None:
    assert clean("plain text\n\twith tab") == "plain text\n\twith tab"
    assert clean("a\r\nb\rc") == "a\nb\nc"
    assert clean("nul\x00 esc\x1b del\x7f c1\x85 ls\u2028") == (
        "nul\ufffd esc\ufffd del\ufffd c1\ufffd ls\ufffd")
    assert clean("lone \udcff surrogate") == "lone \ufffd surrogate"
    assert clean_line("one\ttwo\r\nthree\x00") == "one two  three\ufffd"
    assert clean("Ελλάδα Zürich") == "Ελλάδα Zürich"
