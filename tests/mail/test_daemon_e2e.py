"""End to end: mail sent by SMTP to a running ``judge serve``, replies read from its Maildir.

The tests that only mail the judge and read what became of their own mail share one daemon
(``shared_judge``: each checks its own Message-IDs); those that change the daemon's settings,
its store or its life start their own (``judge``, ``judge_factory``)."""

from __future__ import annotations

import signal
import smtplib
import time
from email import policy

import pytest

from conftest import JUDGE_ADDRESS, body_of, make_mail


def inbound_rows(judge) -> list[tuple[str, str | None]]:
    return judge.sql("SELECT status, note FROM inbound ORDER BY id")


def test_help_mail_gets_one_threaded_reply(shared_judge):
    msg = make_mail("HELP\nGET DRAWS\nfrobnicate\nVERSION\n", subject="first contact",
                    msgid="<hello-1@example.org>")
    shared_judge.send(msg)
    reply = shared_judge.reply_to("<hello-1@example.org>")
    assert reply["Subject"] == "Re: [Error Flag] first contact"  # frobnicate is refused
    assert reply["In-Reply-To"] == "<hello-1@example.org>"
    assert reply["Auto-Submitted"] == "auto-replied"
    assert reply["To"] == "alice@example.org"
    body = body_of(reply)
    # Every line read is answered, in order.
    positions = [body.index(f"> {line}") for line in ("HELP", "GET DRAWS", "frobnicate", "VERSION")]
    assert positions == sorted(positions)
    assert 'unknown command "frobnicate"' in body
    assert "NoDIAS" in body
    assert "4 lines read, 1 error." in body


def test_sub_address_is_accepted_other_recipients_refused(shared_judge):
    judge = shared_judge
    judge.send(make_mail("VERSION", sender="dora@example.org", msgid="<sub@example.org>"),
               mail_from="dora@example.org", rcpt="judge+war1901@example.org")
    with judge.smtp() as s:
        s.ehlo()
        s.mail("alice@example.org")
        code, text = s.rcpt("someone@example.org")
        assert code == 550
        code, _ = s.rcpt("judge@other.example")
        assert code == 550
    assert judge.reply_to("<sub@example.org>")["To"] == "dora@example.org"


def test_oversize_mail_is_refused_and_size_advertised(judge_factory):
    judge = judge_factory(JUDGE_INTAKE_MAX_MESSAGE_SIZE="4096")
    with judge.smtp() as s:
        s.ehlo()
        assert s.has_extn("size") and s.esmtp_features["size"] == "4096"
        with pytest.raises(smtplib.SMTPSenderRefused) as declared:
            s.sendmail("alice@example.org", [JUDGE_ADDRESS], make_mail("HELP").as_bytes(policy=policy.SMTP),
                       mail_options=["SIZE=10000"])
        assert declared.value.smtp_code == 552
    big = make_mail("HELP\n" + ("x" * 70 + "\n") * 120)
    with judge.smtp() as s:  # a client that does not declare the size: refused after DATA
        s.ehlo()
        s.mail("alice@example.org")
        s.rcpt(JUDGE_ADDRESS)
        code, _ = s.data(big.as_bytes(policy=policy.SMTP))
    assert code == 552
    judge.settle()
    assert inbound_rows(judge) == [] and judge.replies() == []


def test_duplicate_delivery_is_stored_and_answered_once(shared_judge):
    judge = shared_judge
    msg = make_mail("VERSION", sender="erin@example.org", msgid="<twice@example.org>")
    judge.send(msg, mail_from="erin@example.org")
    judge.send(msg, mail_from="erin@example.org")
    judge.reply_to("<twice@example.org>")
    judge.send(msg, mail_from="erin@example.org")  # even after processing
    judge.settle()
    assert len(judge.replies_to("<twice@example.org>")) == 1
    assert len(judge.outcome("<twice@example.org>")) == 1


ROBOTS = {
    "null sender": dict(mail_from=""),
    "auto-submitted": dict(headers={"Auto-Submitted": "auto-replied"}),
    "precedence bulk": dict(headers={"Precedence": "bulk"}),
    "precedence junk": dict(headers={"Precedence": "junk"}),
    "precedence list": dict(headers={"Precedence": "list"}),
    "mailing list": dict(headers={"List-Id": "<diplomacy.lists.example.org>"}),
    "list unsubscribe": dict(headers={"List-Unsubscribe": "<mailto:leave@example.org>"}),
    "mailer-daemon": dict(sender="MAILER-DAEMON@example.org"),
    "postmaster": dict(sender="postmaster@example.org"),
    "the judge itself": dict(sender="judge+loop@example.org"),
}


@pytest.mark.parametrize("kind", sorted(ROBOTS))
def test_robot_mail_gets_no_answer_and_is_recorded(shared_judge, kind):
    spec = ROBOTS[kind]
    sender = spec.get("sender", "alice@example.org")
    msgid = f"<robot-{kind.replace(' ', '-')}@example.org>"
    msg = make_mail("HELP", sender=sender, msgid=msgid,
                    **{k.replace("-", "_"): v for k, v in spec.get("headers", {}).items()})
    shared_judge.send(msg, mail_from=spec.get("mail_from", sender))
    [(status, note)] = shared_judge.outcome(msgid)
    assert status == "ignored"
    assert note and note.startswith("robot mail")
    shared_judge.settle()
    assert shared_judge.replies_to(msgid) == []


def test_html_only_mail_is_read(shared_judge):
    msg = make_mail("placeholder", sender="fay@example.org", msgid="<html@example.org>")
    msg.set_content("<html><body><p>VERSION</p><p>GET&nbsp;INFO</p></body></html>", subtype="html")
    shared_judge.send(msg, mail_from="fay@example.org")
    body = body_of(shared_judge.reply_to("<html@example.org>"))
    assert "> VERSION" in body and "> GET INFO" in body and "0 errors" in body


def test_broken_mime_and_unknown_charset_still_answered(shared_judge):
    judge = shared_judge
    broken = (b"From: bob@example.org\r\nTo: judge@example.org\r\nSubject: broken\r\n"
              b"Message-ID: <broken@example.org>\r\nMIME-Version: 1.0\r\n"
              b"Content-Type: multipart/mixed\r\n\r\nVERSION\r\n")
    odd = (b"From: carol@example.org\r\nTo: judge@example.org\r\nSubject: odd\r\n"
           b"Message-ID: <odd@example.org>\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: text/plain; charset=x-unknown-123\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\nZ\xfcrich\r\nVERSION\r\n")
    judge.send(broken, mail_from="bob@example.org")
    judge.send(odd, mail_from="carol@example.org")
    assert "> VERSION" in body_of(judge.reply_to("<broken@example.org>"))
    odd_reply = judge.reply_to("<odd@example.org>")
    assert odd_reply["To"] == "carol@example.org"
    assert "> VERSION" in body_of(odd_reply)
    assert "Zürich" in body_of(odd_reply)  # decoded, answered as unknown command


def test_non_ascii_round_trips(shared_judge):
    # (the word first: alone on the last line it would be taken for the writer's name)
    msg = make_mail("Ελλάδα\nVERSION", sender="gus@example.org", subject="Grüße aus Zürich",
                    msgid="<grusse@example.org>")
    shared_judge.send(msg, mail_from="gus@example.org")
    reply = shared_judge.reply_to("<grusse@example.org>")
    assert reply["Subject"] == "Re: [Error Flag] Grüße aus Zürich"  # Ελλάδα is refused
    assert 'unknown command "Ελλάδα"' in body_of(reply)


def test_a_password_in_the_subject_is_written_nowhere(shared_judge):
    word = "Zq8x7InTheSubject"
    msg = make_mail("VERSION\n", sender="pat@example.org", subject=f"Re: SIGNON Fwar1901 {word}",
                    msgid="<subject-password@example.org>")
    shared_judge.send(msg, mail_from="pat@example.org")
    reply = shared_judge.reply_to("<subject-password@example.org>")
    assert reply["Subject"] == "Re: SIGNON Fwar1901 ****"
    assert word not in body_of(reply)
    shared_judge.wait_log("'Re: SIGNON Fwar1901 ****'")  # the sender's line about the reply
    assert word not in shared_judge.log()
    for listing in (("outbox", "list"), ("inbound", "list", "--status", "all")):
        shown = shared_judge.cli(*listing)
        assert shown.returncode == 0, shown.stderr
        assert word not in shown.stdout + shown.stderr, shown.stdout
    assert word not in str(shared_judge.sql("SELECT subject FROM outbox"))


def test_store_failure_answers_451_and_keeps_nothing(judge):
    judge.sql("DROP TABLE inbound")
    # A mail that comes while the worker process holds SQLite's write lock (its start, a
    # scheduler tick) is kept in intake's spool instead, answered 250, and held back there when
    # the database refuses it (tests/store/test_spool.py).  So a try answered 250 must be in
    # the spool; the next try, when the lock is free, must be refused.
    for tries in range(1, 21):
        try:
            judge.send(make_mail("VERSION"))
        except smtplib.SMTPDataError as failure:
            assert failure.smtp_code == 451
            break
        assert judge.spooled() == tries, "accepted, yet not kept in the spool"
        time.sleep(0.05)
    else:
        pytest.fail("every try was accepted")
    assert judge.proc.poll() is None  # the daemon survives


def test_lmtp_intake(judge_factory):
    judge = judge_factory(JUDGE_INTAKE_PROTOCOL="lmtp")
    raw = make_mail("VERSION", msgid="<lmtp@example.org>").as_bytes(policy=policy.SMTP)
    with smtplib.LMTP("127.0.0.1", judge.port, timeout=20) as lmtp:
        lmtp.ehlo()  # smtplib's LMTP sends LHLO
        assert lmtp.mail("alice@example.org")[0] == 250
        assert lmtp.rcpt(JUDGE_ADDRESS)[0] == 250
        assert lmtp.rcpt("judge+x@example.org")[0] == 250
        assert lmtp.rcpt("stranger@example.org")[0] == 550
        # RFC 2033: one answer per accepted recipient after DATA (smtplib reads only the first).
        assert lmtp.data(raw)[0] == 250
        assert lmtp.getreply()[0] == 250
    # One message, whatever the number of judge recipients: stored once, answered once.
    assert len(judge.wait_replies(1)) == 1
    [(recipients,)] = judge.sql("SELECT recipients FROM inbound")
    assert recipients == "judge+x@example.org,judge@example.org"
    assert len(judge.replies()) == 1 and len(judge.sql("SELECT id FROM outbox")) == 1


def test_sigterm_stops_cleanly_and_quickly(judge):
    judge.send(make_mail("VERSION"))
    judge.wait_replies(1)
    assert judge.stop(signal.SIGTERM, timeout=30) == 0  # stop() fails if it outlasts this
    assert "stopped" in judge.log()


def test_restart_refuses_outdated_schema(judge):
    assert judge.stop() == 0
    judge.sql("UPDATE alembic_version SET version_num = 'ancient'")
    result = judge.cli("serve")
    assert result.returncode != 0
    assert "judge db upgrade" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
