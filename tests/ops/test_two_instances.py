"""Two ``judge serve`` processes on one PostgreSQL database share the inbound queue and the
outbox (``FOR UPDATE SKIP LOCKED`` plus leases): every mail is answered exactly once, and both
processes do some of the work."""

from __future__ import annotations

import collections
import re
import threading
import time
from typing import Callable

import pytest

from conftest import RunningJudge, make_mail, on_postgresql

pytestmark = pytest.mark.skipif(
    not on_postgresql(), reason="needs PostgreSQL: set JUDGE_TEST_DATABASE_URL (.ci/run does)")

MAILS = 60


def test_two_daemons_share_the_work_and_answer_each_mail_once(
        judge_factory: Callable[..., RunningJudge]) -> None:
    # Both write replies to the same Maildir; each row is sent by whichever daemon claims it.
    first = judge_factory(JUDGE_JUDGE_REPLIES_PER_DAY="10000")
    second = judge_factory(JUDGE_JUDGE_REPLIES_PER_DAY="10000")
    ids = [f"<pair-{i}@example.org>" for i in range(MAILS)]
    for judge in (first, second):  # each worker is up before the mail comes
        judge.wait_log("worker process running")

    def send(judge: RunningJudge, chunk: list[str]) -> None:
        with judge.smtp() as s:
            for n, msgid in enumerate(chunk):
                sender = f"player{n % 7}@example.org"
                s.sendmail(sender, ["judge@example.org"],
                           make_mail("VERSION", sender=sender, msgid=msgid).as_bytes())

    # Alternately: even mails to the first daemon, odd ones to the second, at the same time.
    threads = [threading.Thread(target=send, args=(first, ids[0::2])),
               threading.Thread(target=send, args=(second, ids[1::2]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        waiting = first.sql("SELECT count(*) FROM inbound WHERE status = 'new'")[0][0]
        unsent = first.sql("SELECT count(*) FROM outbox WHERE status = 'pending'")[0][0]
        if waiting == 0 and unsent == 0 and len(first.replies()) >= MAILS:
            break
        time.sleep(0.1)
    first.settle()  # a second copy, had either instance made one, is sent by now

    answered = collections.Counter(str(r["In-Reply-To"]) for r in first.replies())
    assert sorted(answered) == sorted(ids), first.log()[-3000:]
    assert set(answered.values()) == {1}, [m for m, n in answered.items() if n > 1]
    rows = first.sql("SELECT status, count(*) FROM inbound GROUP BY status")
    assert rows == [("done", MAILS)]
    assert first.sql("SELECT count(*) FROM outbox WHERE status = 'sent'")[0][0] == MAILS

    # Both processed messages and both sent mail, and together exactly once each.
    for judge in (first, second):
        assert judge.stop() == 0
    processed = [judge.log().count(" done: message <pair-") for judge in (first, second)]
    sent = [len(re.findall(r"judge\.sender: outbox \d+ sent to", judge.log()))
            for judge in (first, second)]
    assert sum(processed) == MAILS and min(processed) > 0, processed
    assert sum(sent) == MAILS and min(sent) > 0, sent
    # Sharing took no error-and-retry either (e.g. two first replies to one address at once).
    for judge in (first, second):
        assert "Traceback" not in judge.log(), judge.log()[-3000:]
