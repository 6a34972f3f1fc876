"""Bounces in a game (the in-process kit): a player's dead address is counted, marked failing
after ``[bounces] hard_bounces``, its master told once by mail, and sent nothing more until the
player writes again; LIST shows the master the failing seat.  Bounces are never answered;
temporary failures, auto-replies and forged bounces count for nothing."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from sqlalchemy import select

from gamekit import Judge, Sent, start_full_game
from judge.basics.config import BouncesSection
from judge.mail.intake.accept import Arrival, envelope_sender_of, message_id_of, store_arrivals
from judge.mail.sending.sender import deliver_due
from judge.mail.sending.transports import MaildirTransport
from judge.pipeline.worker import process_pending
from judge.store import bounce_counts
from judge.store.models import AddressBounces, InboundMessage, OutboxMessage

SAMPLES = Path(__file__).resolve().parents[1] / "mail" / "bounces"
SAMPLE_PATH = b"judge+bounce-abcdefghijklmnopqrst@judge.test"
MASTER = "master@example.org"
FAILING = "Address Failing"


def token_of(j: Judge, address: str) -> str:
    """The token the judge's mail to ``address`` carries (made as the sender makes it)."""
    with j.store.transaction() as session:
        return bounce_counts.known(session, [address], with_tokens=True)[address].token


def return_path(j: Judge, address: str) -> str:
    return f"judge+bounce-{token_of(j, address)}@example.org"


_COUNT = iter(range(1, 1_000_000))


def bounce(j: Judge, sample: str, address: str, to: str,
           returned_id: str = "<orig-1@judge.test>") -> list[Sent]:
    """A bounce of the sample's shape for ``address``, coming back to ``to``; what the judge
    queued meanwhile."""
    raw = (SAMPLES / f"{sample}.eml").read_bytes()
    raw = raw.replace(SAMPLE_PATH, to.encode()).replace(b"ghost@players.test", address.encode())
    raw = raw.replace(b"<orig-1@judge.test>", returned_id.encode())
    # each bounce a mail of its own (its own Message-ID comes first, in its headers)
    raw = re.sub(rb"(?im)^message-id:.*$", b"Message-ID: <bounce-%d@mx.test>" % next(_COUNT),
                 raw, count=1)
    store_arrivals(j.store, [Arrival(to, envelope_sender_of(raw), raw, message_id_of(raw))])
    process_pending(j.store, j.config, j.pipeline)
    return j.new()


def bounces_of(j: Judge, address: str) -> tuple[int, bool]:
    with j.store.transaction() as session:
        row = session.get(AddressBounces, address)
        return (row.hard_bounces, row.failing_since is not None) if row else (0, False)


def last_note(j: Judge) -> tuple[str, str]:
    with j.store.transaction() as session:
        row = session.scalars(select(InboundMessage).order_by(InboundMessage.id.desc())).first()
        assert row is not None
        return row.status, row.note or ""


def test_a_dead_address_is_reported_to_the_master_once(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.config = replace(j.config, bounces=BouncesSection(hard_bounces=2))
    assigned = start_full_game(j)
    address = assigned["FRANCE"]
    path = return_path(j, address)

    assert bounce(j, "postfix", address, path) == []  # never answered
    assert last_note(j)[0] == "ignored"
    assert "hard bounce 1 of 2 for " + address in last_note(j)[1]
    assert bounces_of(j, address) == (1, False)

    told = bounce(j, "exim", address, path)
    assert [(m.to, m.subject) for m in told] == [([MASTER], f"JUDGE:war1901 - S1901M {FAILING}")]
    body = told[0].body
    assert f"The judge's mail to {address} does not arrive" in body
    assert "2 times since that address last wrote" in body
    assert "In war1901 it is the\naddress of\n  France\n" in body
    assert "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address in body
    assert bounces_of(j, address) == (2, True)

    assert bounce(j, "gmail", address, path) == []  # told once
    assert bounces_of(j, address) == (3, True)


def test_a_failing_address_gets_nothing_until_it_writes_and_list_shows_it(
        judge_in_process: Judge, tmp_path: Path) -> None:
    j = judge_in_process
    j.config = replace(j.config, bounces=BouncesSection(hard_bounces=1))
    assigned = start_full_game(j)
    address = assigned["GERMANY"]
    bounce(j, "sendmail", address, return_path(j, address))
    assert bounces_of(j, address) == (1, True)

    listed = j.mail(MASTER, "SIGNON Mwar1901 mpw\nLIST war1901").body
    assert "Failing addresses (the judge's mail to them bounced" in listed
    assert f"  Germany: {address} (1 hard bounce)" in listed
    other = assigned["ITALY"]
    assert "Failing addresses" not in j.mail(
        other, f"SIGNON Iwar1901 {j.passwords['ITALY']}\nLIST war1901").body

    # the master processes the phase: everybody's results are queued, the failing one's fails
    j.mail(MASTER, "SIGNON Mwar1901 mpw\nPROCESS")
    deliver_due(j.store, MaildirTransport(str(tmp_path / "mail")), j.config)
    with j.store.transaction() as session:
        results = {row.recipients: (row.status, row.last_error or "")
                   for row in session.scalars(select(OutboxMessage).where(
                       OutboxMessage.subject == "JUDGE:war1901 - S1901M Results"))}
    assert results[address][0] == "failed"
    assert f"not sent: {address} is marked failing (its mail bounced)" in results[address][1]
    assert results[other] == ("sent", "")

    # a mail from the address clears the mark: it is answered, and sent to
    reply = j.mail(address, "LIST war1901")
    deliver_due(j.store, MaildirTransport(str(tmp_path / "mail")), j.config)
    assert bounces_of(j, address) == (0, False)
    with j.store.transaction() as session:
        newest = session.scalars(select(OutboxMessage.status).where(
            OutboxMessage.recipients == address).order_by(OutboxMessage.id.desc())).first()
    assert "Failing addresses" not in reply.body and newest == "sent"
    assert "Failing addresses" not in j.mail(MASTER, "SIGNON Mwar1901 mpw\nLIST war1901").body


def test_temporary_failures_and_auto_replies_are_not_counted(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.config = replace(j.config, bounces=BouncesSection(hard_bounces=1))
    assigned = start_full_game(j)
    address = assigned["ENGLAND"]
    path = return_path(j, address)
    for sample, note in (("delayed", "temporary failure, not counted"),
                         ("mailbox_full", "temporary failure, not counted"),
                         ("out_of_office", "robot mail, not answered: Auto-Submitted: auto-replied;"
                                           " mail to a return path that reports no failed")):
        assert bounce(j, sample, address, path) == []
        status, said = last_note(j)
        assert status == "ignored" and note in said, (sample, said)
        assert bounces_of(j, address) == (0, False)


def test_a_forged_bounce_counts_for_nothing(judge_in_process: Judge) -> None:
    j = judge_in_process
    j.config = replace(j.config, bounces=BouncesSection(hard_bounces=1))
    assigned = start_full_game(j)
    address = assigned["RUSSIA"]
    # to a return path whose token the judge never gave
    bounce(j, "postfix", address, "judge+bounce-aaaaaaaaaaaaaaaaaaaa@example.org")
    assert "bounce to an unknown return path; not counted" in last_note(j)[1]
    # to the judge's own address, naming a mail the judge never sent to it
    bounce(j, "postfix", address, "judge@example.org", returned_id="<guessed@example.org>")
    assert "not counted (names no mail the judge sent to it)" in last_note(j)[1]
    assert bounces_of(j, address) == (0, False)


def test_without_a_token_a_bounce_quoting_the_judges_mail_is_counted(
        judge_in_process: Judge) -> None:
    """A provider that rewrites the return path: the bounce comes to the judge's address, and
    counts when it quotes the Message-ID of a mail the judge sent to the address it names."""
    j = judge_in_process
    j.config = replace(j.config, bounces=BouncesSection(hard_bounces=1,
                                                        return_path="judge@example.org"))
    assigned = start_full_game(j)
    address = assigned["TURKEY"]
    with j.store.transaction() as session:
        sent_id = session.scalars(select(OutboxMessage.message_id).where(
            OutboxMessage.recipients == address)).first()
    assert sent_id
    told = bounce(j, "exchange", address, "judge@example.org", returned_id=sent_id)
    assert [m.subject for m in told] == [f"JUDGE:war1901 - S1901M {FAILING}"]
    assert "RESOLVER.ADR.RecipientNotFound" in told[0].body
    assert bounces_of(j, address) == (1, True)
