"""Raw mail is kept only as long as it is needed ([retention] raw_mail_days): after that the
text of processed mail and of sent mail is deleted, passwords with it, while mail still
waiting or set aside keeps its text.  ``judge inbound purge`` and ``judge outbox purge`` do
the same by hand."""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta, timezone

import pytest

from conftest import RunningJudge, make_mail, polls

# Much of this module's time is spent waiting (the retention time): it runs first
# (tests/conftest.py).
pytestmark = pytest.mark.waits_long

PASSWORD = b"pwGermany-s3cret"
OLD = datetime.now(timezone.utc) - timedelta(days=30)


def raw_lengths(judge: RunningJudge, table: str) -> dict[str, int]:
    column = "envelope_sender" if table == "inbound" else "recipients"
    return {who: n for who, n in judge.sql(f"SELECT {column}, length(raw) FROM {table}")}


def holding_password(judge: RunningJudge) -> list[str]:
    found = []
    for table in ("inbound", "outbox"):
        found += [f"{table} {i}" for i, raw in judge.sql(f"SELECT id, raw FROM {table}")
                  if PASSWORD in bytes(raw)]
    return found


def purged(judge: RunningJudge) -> list[int]:
    """[received, sent]: how many mails' text the daemon's purge deleted, by its log, over all
    its runs (the reply may be sent after the mail was processed, by the sender's own process,
    on either side of a run)."""
    deleted = re.findall(r"deleted the raw text of (\d+) received and (\d+) sent mail", judge.log())
    return [sum(int(n) for n in column) for column in zip(*deleted)]


def set_aside(judge: RunningJudge) -> None:
    """A received mail and a reply that were set aside long ago, still holding the password."""
    judge.sql("INSERT INTO inbound (dedupe_key, message_id, recipients, envelope_sender, raw, "
              "received_at, status, attempts, note) VALUES ('k-aside', '<aside@example.org>', "
              "'judge@example.org', 'aside@example.org', :raw, :old, 'failed', 3, 'boom')",
              raw=b"Subject: x\r\n\r\nSIGNON Gpg1 " + PASSWORD + b"\r\n", old=OLD)
    judge.sql("INSERT INTO outbox (created_at, message_id, mail_from, recipients, subject, raw, "
              "status, attempts, next_attempt_at) VALUES (:old, '<out-aside@example.org>', "
              "'judge@example.org', 'aside@example.org', 'Re: x', :raw, 'failed', 12, :old)",
              raw=b"Subject: Re: x\r\n\r\n> SIGNON Gpg1 " + PASSWORD + b"\r\n", old=OLD)


def test_raw_mail_is_deleted_after_the_retention_time_but_not_mail_set_aside(judge_factory):
    # About two seconds (the daemon then looks every second).
    judge = judge_factory(JUDGE_RETENTION_RAW_MAIL_DAYS="0.00002")
    set_aside(judge)
    judge.send(make_mail("SIGNON Gpg1 " + PASSWORD.decode() + "\nVERSION",
                         sender="germany@example.org"), mail_from="germany@example.org")
    judge.wait_replies(1)
    for _ in polls(20):
        # the purge says what it deleted once it has committed: wait for its words as well
        if not raw_lengths(judge, "inbound").get("germany@example.org") and \
                not raw_lengths(judge, "outbox").get("germany@example.org") and \
                purged(judge) == [1, 1]:
            break
    else:
        raise AssertionError(judge.log()[-2000:])
    assert holding_password(judge) == ["inbound 1", "outbox 1"]  # the two set aside
    # The rows stay, with what the operator needs to know about them.
    [(status, sender, message_id)] = judge.sql(
        "SELECT status, envelope_sender, message_id FROM inbound WHERE id = 2")
    assert status == "done" and sender == "germany@example.org" and message_id
    # SIGNON to a game that does not exist is refused: the subject is flagged
    assert judge.sql("SELECT status, subject FROM outbox WHERE id = 2") == [
        ("sent", "Re: [Error Flag] test")]
    # the purge deleted nothing more since
    assert purged(judge) == [1, 1], judge.log()[-2000:]


def test_purge_by_hand(judge_factory):
    judge = judge_factory(JUDGE_RETENTION_RAW_MAIL_DAYS="0")  # the daemon keeps everything
    judge.send(make_mail("SIGNON Gpg1 " + PASSWORD.decode(), sender="germany@example.org"),
               mail_from="germany@example.org")
    judge.wait_replies(1)
    while judge.sql("SELECT status FROM outbox") != [("sent",)]:
        time.sleep(0.05)
    refused = judge.cli("inbound", "purge")
    assert refused.returncode != 0 and "--days" in refused.stderr
    assert "inbound 1" in holding_password(judge)

    kept = judge.cli("inbound", "purge", "--days", "1")  # not a day old yet: nothing to do
    assert kept.returncode == 0 and "of 0 received" in kept.stdout
    time.sleep(0.2)
    done = judge.cli("inbound", "purge", "--days", "0.000001")
    assert done.returncode == 0 and "of 1 received" in done.stdout, done.stderr
    assert "inbound 1" not in holding_password(judge)
    done = judge.cli("outbox", "purge", "--days", "0.000001")
    assert done.returncode == 0 and "of 1 sent" in done.stdout, done.stderr
    assert holding_password(judge) == []
    assert raw_lengths(judge, "outbox") == {"germany@example.org": 0}
    # A purged mail cannot be sent again: it has no text left.
    judge.sql("UPDATE outbox SET status = 'dropped'")
    again = judge.cli("outbox", "retry", "1")
    assert again.returncode != 0 and "no text" in again.stderr
