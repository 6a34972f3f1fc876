"""Mail whose shape made reading it dear, mailed to a running daemon: each is answered that it
could not be read (or, when its headers cannot be read, deliberately not answered) at once,
the mail after it is not held up, and none of it is read as commands.

Before the bounds of judge.mail.reading.bounds and the one-pass HTML reader (judge.mail.reading.html_text),
75 KB of nested HTML held the worker 100 s and a From: of 24,000 addresses 4.4 s, and 1,000
levels of MIME exhausted Python's recursion, after which the raw headers and boundaries were
read as commands, past the robot checks.  The waits below are limits far under those costs,
not timings: a reply comes in milliseconds.
"""

from __future__ import annotations

from email.utils import make_msgid

from conftest import RunningJudge, body_of, make_mail
from hostile_shapes import deep_mime, many_from, nested_html

# Far below what the worker spent on the mail before it (100 s, 4.4 s): the probe's reply
# waits at most this long.
WAIT = 20


def _answered_at_once(judge: RunningJudge, sender: str) -> None:
    """A plain mail from another address, sent after the hostile one, is answered."""
    probe = make_mail("VERSION", sender=sender)
    judge.send(probe, mail_from=sender)
    assert "> VERSION" in body_of(judge.reply_to(probe["Message-ID"], timeout=WAIT))


def _queued_for(judge: RunningJudge, message_id: str) -> int:
    return judge.sql("SELECT count(*) FROM outbox o JOIN inbound i ON o.inbound_id = i.id "
                     "WHERE i.message_id = :m", m=message_id)[0][0]


def test_nested_html_is_answered_unread_and_holds_up_no_other_mail(shared_judge: RunningJudge):
    judge, message_id = shared_judge, make_msgid(domain="example.org")
    judge.send(nested_html("nest@example.org", message_id), mail_from="nest@example.org")
    _answered_at_once(judge, "probe-html@example.org")
    reply = judge.reply_to(message_id, timeout=WAIT)
    text = " ".join(body_of(reply).split())
    assert "could not be read: its HTML has more than 500 elements open at once" in text
    assert "Nothing in it was done" in text and "> " not in text
    assert str(reply["Subject"]).startswith("Re: [Error Flag] nested")
    [(status, note)] = judge.outcome(message_id)
    assert status == "done" and note.startswith("could not be read: its HTML has more than 500")


def test_a_from_of_24000_addresses_is_not_read_nor_answered(shared_judge: RunningJudge):
    judge, message_id = shared_judge, make_msgid(domain="example.org")
    judge.send(many_from("many@example.org", message_id), mail_from="many@example.org")
    _answered_at_once(judge, "probe-from@example.org")
    [(status, note)] = judge.outcome(message_id)
    assert status == "ignored"
    assert note.startswith("could not be read: its headers are too long")
    assert "its From header went past that" in note
    assert "could not be told from a robot's" in note
    assert _queued_for(judge, message_id) == 0
    # the keeper sees why in the list of received mail
    listed = judge.cli("inbound", "list", "--status", "ignored").stdout.splitlines()
    assert any("many@example.org" in line and "could not be read" in line for line in listed)


def test_mime_nested_1000_deep_is_answered_unread_never_as_commands(shared_judge: RunningJudge):
    judge, message_id = shared_judge, make_msgid(domain="example.org")
    judge.send(deep_mime("deep@example.org", message_id), mail_from="deep@example.org")
    _answered_at_once(judge, "probe-mime@example.org")
    text = " ".join(body_of(judge.reply_to(message_id, timeout=WAIT)).split())
    assert "could not be read: its MIME parts are nested more than 20 levels deep" in text
    # no line of it answered: not the headers, the boundaries, nor the VERSION at the bottom
    assert "> " not in text and "--b" not in text and "Content-Type" not in text
    [(status, note)] = judge.outcome(message_id)
    assert status == "done" and "nested more than 20 levels deep" in note


def test_a_robots_mime_nested_1000_deep_is_not_answered(shared_judge: RunningJudge):
    """The robot checks are made on the headers of a mail that could not be read."""
    judge, message_id = shared_judge, make_msgid(domain="example.org")
    judge.send(deep_mime("deep-robot@example.org", message_id,
                         headers=(("Auto-Submitted", "auto-replied"),)),
               mail_from="deep-robot@example.org")
    _answered_at_once(judge, "probe-robot@example.org")
    [(status, note)] = judge.outcome(message_id)
    assert status == "ignored"
    assert note == ("could not be read: its MIME parts are nested more than 20 levels deep; "
                    "robot mail, not answered: Auto-Submitted: auto-replied")
    assert _queued_for(judge, message_id) == 0
