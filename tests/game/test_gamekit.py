"""The game kit reads a queued mail as a mail program shows it: its quick reading of a plain
text mail must give what the email package's default policy gives, or every game test would
read something no player sees."""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage

import pytest

from conftest import body_of
from gamekit import read_queued

LONG_SUBJECT = ("Re: Prüfung der Befehle für Österreich, eine Betreffzeile so lang, dass "
                "sie über mehrere Zeilen gefaltet werden muss")


def mail(subject: str, body: str, cte: str | None = None, auto: bool = True) -> bytes:
    msg = EmailMessage()
    msg["To"] = "player1@example.org"
    msg["Subject"] = subject
    if auto:
        msg["Auto-Submitted"] = "auto-replied"
    msg.set_content(body, cte=cte) if cte else msg.set_content(body)
    return msg.as_bytes(policy=policy.SMTP)


def with_picture(raw: bytes) -> bytes:
    msg = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    msg.add_attachment(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 20, maintype="image",
                       subtype="png", filename="map.png")
    return msg.as_bytes(policy=policy.SMTP)


@pytest.mark.parametrize("raw", [
    mail("Re: JUDGE:war1901 - S1901M orders", "> SIGNON Fwar1901 ****\nSigned on.\n"),
    mail("Re: JUDGE:war1901 - " + "a subject long enough to be folded " * 3, "Folded.\n"),
    mail(LONG_SUBJECT, "Grüße aus Wien\nZeile zwei: ü\n"),
    mail("ordres", "Très bien " * 40, cte="quoted-printable", auto=False),
    mail("base64", "Ελλάδα\n" * 30, cte="base64"),
    with_picture(mail("map", "The map is attached.\n")),
    mail("broken", "Grüße\n").replace("Grüße".encode(), b"Gr\xfc\xdfe"),
], ids=["ascii", "folded-subject", "folded-encoded-subject-8bit", "quoted-printable", "base64",
        "multipart", "not-utf-8"])
def test_the_quick_reading_is_what_the_email_package_reads(raw: bytes) -> None:
    msg = email.message_from_bytes(raw, policy=policy.default)
    auto = msg["Auto-Submitted"]
    expected = (str(msg["To"]), str(msg["Subject"]), body_of(msg),
                None if auto is None else str(auto))
    assert read_queued(raw) == expected
