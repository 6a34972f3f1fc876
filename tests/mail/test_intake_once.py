"""Attacks on intake by SMTP against a running daemon: one message stored and executed once
whatever its recipients; duplicates found by the whole Message-ID; over-long envelope
addresses refused at the command; one row that cannot be stored costs nobody else theirs."""

from __future__ import annotations

import threading
import time
from email import policy

import pytest

from conftest import JUDGE_ADDRESS, RunningJudge, make_mail, on_postgresql, polls


# Most tests share one daemon and tell their mail apart by the sender, one address per test;
# the one that poisons the database has a daemon of its own.
def wait_settled(judge: RunningJudge, count: int, sender: str | None = None,
                 timeout: float = 30) -> list[tuple]:
    """Every inbound row (from ``sender``, or all) processed, ``count`` at least, and every
    outbox row (to ``sender``, or all) sent."""
    mine = "envelope_sender = :s" if sender else "1 = 1"
    for _ in polls(timeout):
        rows = judge.sql(f"SELECT id, status FROM inbound WHERE {mine} ORDER BY id", s=sender)
        waiting = judge.sql(f"SELECT count(*) FROM outbox WHERE status = 'pending' AND "
                            f"{mine.replace('envelope_sender', 'recipients')}", s=sender)[0][0]
        if len(rows) >= count and all(r[1] != "new" for r in rows) and waiting == 0:
            return rows
    raise AssertionError(f"not settled: {judge.sql('SELECT id, status FROM inbound')}\n"
                         f"{judge.log()[-3000:]}")


def replies_to(judge: RunningJudge, sender: str) -> list:
    return [r for r in judge.replies() if r["To"] == sender]


def outbox_of(judge: RunningJudge, sender: str) -> list[tuple]:
    return judge.sql("SELECT inbound_id FROM outbox WHERE recipients = :s", s=sender)


# --------------------------------------------------------------------------- many recipients


def test_one_transaction_to_many_judge_addresses_is_stored_and_executed_once(shared_judge):
    judge, sender = shared_judge, "many@example.org"
    msg = make_mail("VERSION\nHELP", sender=sender, msgid="<many-rcpt@example.org>")
    with judge.smtp() as s:
        s.ehlo()
        assert s.mail(sender)[0] == 250
        codes = [s.rcpt(f"judge+{i}@example.org")[0] for i in range(150)]
        assert s.data(msg.as_bytes(policy=policy.SMTP))[0] == 250
    # The first hundred are taken ([intake] max_recipients), the rest told to try later.
    assert codes == [250] * 100 + [452] * 50
    [(inbound_id, status)] = wait_settled(judge, 1, sender)
    assert status == "done"
    [(recipients,)] = judge.sql("SELECT recipients FROM inbound WHERE id = :i", i=inbound_id)
    assert len(recipients.split(",")) == 100
    assert outbox_of(judge, sender) == [(inbound_id,)]
    assert len(replies_to(judge, sender)) == 1


def test_the_same_message_to_two_judge_addresses_runs_once(shared_judge):
    judge, sender = shared_judge, "twice@example.org"
    msg = make_mail("VERSION", sender=sender, msgid="<two-rcpt@example.org>")
    with judge.smtp() as s:
        s.sendmail(sender, [JUDGE_ADDRESS, "judge+x@example.org"],
                   msg.as_bytes(policy=policy.SMTP))
    # ... and once more by another route, one recipient per transaction (as an MTA may split).
    judge.send(msg, mail_from=sender, rcpt="judge+y@example.org")
    rows = wait_settled(judge, 1, sender)
    assert len(rows) == 1 and rows[0][1] == "done"
    assert len(outbox_of(judge, sender)) == 1


def test_mails_without_message_id_are_each_stored_once(shared_judge):
    judge, sender = shared_judge, "noid@example.org"
    raw = (b"From: noid@example.org\r\nTo: judge@example.org\r\nSubject: no id\r\n\r\n"
           b"VERSION\r\n")
    for _ in range(2):
        with judge.smtp() as s:
            s.sendmail(sender, [JUDGE_ADDRESS, "judge+x@example.org"], raw)
    rows = wait_settled(judge, 2, sender)
    assert [r[1] for r in rows] == ["done", "done"]
    assert len(outbox_of(judge, sender)) == 2


# --------------------------------------------------------------------------- long Message-IDs


def folded_id(tail: str) -> str:
    """A 1,200-character Message-ID, folded so no header line is longer than 998."""
    left = "x" * 1100 + tail
    return "<" + "\r\n ".join(left[i:i + 500] for i in range(0, len(left), 500)) + "@example.org>"


def test_message_ids_alike_in_their_first_thousand_characters_are_two_messages(shared_judge):
    judge, sender = shared_judge, "longid@example.org"
    for tail in ("first", "second"):
        raw = (f"From: {sender}\r\nTo: judge@example.org\r\nSubject: {tail}\r\n"
               f"Message-ID: {folded_id(tail)}\r\n\r\nVERSION\r\n").encode()
        judge.send(raw, mail_from=sender)
    rows = wait_settled(judge, 2, sender)
    assert [r[1] for r in rows] == ["done", "done"]
    subjects = sorted(str(r["Subject"]) for r in replies_to(judge, sender))
    assert subjects == ["Re: first", "Re: second"]
    # The same long id again is a duplicate, found by the hash of the whole id.
    judge.send((f"From: {sender}\r\nTo: judge@example.org\r\nSubject: again\r\n"
                f"Message-ID: {folded_id('first')}\r\n\r\nVERSION\r\n").encode(),
               mail_from=sender)
    judge.settle()
    assert len(wait_settled(judge, 2, sender)) == 2


# --------------------------------------------------------------------------- over-long addresses


def test_over_long_envelope_addresses_are_refused_at_the_command(shared_judge):
    judge, sender = shared_judge, "longaddress@example.org"
    long_sender = "s" * 300 + "@example.org"
    long_judge = "judge+" + "t" * 300 + "@example.org"
    with judge.smtp() as s:
        s.ehlo()
        code, text = s.mail(long_sender)
        assert code == 553 and b"too long" in text
        assert s.mail(sender)[0] == 250
        code, _ = s.rcpt(long_judge)
        assert code == 553
        assert s.rcpt(JUDGE_ADDRESS)[0] == 250
        assert s.data(make_mail("VERSION", sender=sender).as_bytes(policy=policy.SMTP))[0] == 250
    assert [r[1] for r in wait_settled(judge, 1, sender)] == ["done"]


def poison(judge: RunningJudge, sender: str) -> None:
    """Make the database refuse any inbound row from ``sender`` (a row that cannot be stored,
    whatever the reason: the test needs one that intake's own checks let through)."""
    if on_postgresql():
        judge.sql("CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                  f"IF NEW.envelope_sender = '{sender}' THEN RAISE EXCEPTION 'poisoned'; "
                  "END IF; RETURN NEW; END $$")
        judge.sql("CREATE TRIGGER poison BEFORE INSERT ON inbound FOR EACH ROW "
                  "EXECUTE FUNCTION poison()")
    else:
        judge.sql(f"CREATE TRIGGER poison BEFORE INSERT ON inbound WHEN NEW.envelope_sender = "
                  f"'{sender}' BEGIN SELECT RAISE(ABORT, 'poisoned'); END")


def test_a_row_that_cannot_be_stored_fails_alone_not_its_batch(judge):
    poison(judge, "poison@example.org")
    senders = [f"player{i}@example.org" for i in range(12)] + ["poison@example.org"] * 3
    codes: dict[int, int] = {}
    barrier = threading.Barrier(len(senders))

    def deliver(n: int, sender: str) -> None:
        raw = make_mail("VERSION", sender=sender, msgid=f"<batch-{n}@example.org>").as_bytes(
            policy=policy.SMTP)
        with judge.smtp() as s:
            s.ehlo()
            s.mail(sender)
            s.rcpt(JUDGE_ADDRESS)
            barrier.wait()
            codes[n] = s.data(raw)[0]

    threads = [threading.Thread(target=deliver, args=(n, s)) for n, s in enumerate(senders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [codes[n] for n in range(12)] == [250] * 12
    # Refused with 451 (the sender's MTA tries again), or, when it came while another writer
    # held the lock, taken into the spool and held back there, said in the log (judge.store.
    # inbound.Spool): either way kept, and costing the others nothing.
    assert all(codes[n] in (250, 451) for n in range(12, 15)), codes
    held = sum(codes[n] == 250 for n in range(12, 15))
    rows = wait_settled(judge, 12)
    assert len(rows) == 12 and {r[1] for r in rows} == {"done"}
    # (a spooled mail is answered 250 first and moved, or held back, afterwards)
    deadline = time.monotonic() + 20
    while judge.log().count("cannot be stored in the inbound table") < held \
            and time.monotonic() < deadline:
        time.sleep(0.05)
    assert judge.log().count("cannot be stored in the inbound table") == held
    assert judge.proc.poll() is None
    # Mended, the refused mail is taken when the sender's MTA tries again.
    judge.sql("DROP TRIGGER poison" + (" ON inbound" if on_postgresql() else ""))
    judge.send(make_mail("VERSION", sender="poison@example.org", msgid="<batch-12@example.org>"),
               mail_from="poison@example.org")
    assert len(wait_settled(judge, 13)) == 13


@pytest.mark.parametrize("command", ["MAIL FROM:<a\x00b@example.org>",
                                     "MAIL FROM:<a\x1b[2Jb@example.org>"])
def test_control_characters_in_envelope_addresses_are_refused(shared_judge, command):
    judge = shared_judge
    with judge.smtp() as s:
        s.ehlo()
        s.send(command.encode("latin-1") + b"\r\n")
        code, _ = s.getreply()
        assert code in (501, 553)
    assert judge.proc.poll() is None
