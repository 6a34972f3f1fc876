"""Crash test: SIGKILL the daemon while mail arrives on several connections, restart it, and
show that every message that got 250 is answered exactly once and processed once."""

from __future__ import annotations

import collections
import signal
import smtplib
import threading
import time

from conftest import JUDGE_ADDRESS, make_mail

CONNECTIONS = 4
PER_CONNECTION = 60


def _sender(judge, ids: list[str], accepted: set[str], lock: threading.Lock) -> None:
    try:
        with judge.smtp() as s:
            for msgid in ids:
                s.sendmail("player@example.org", [JUDGE_ADDRESS],
                           make_mail("VERSION", sender="player@example.org",
                                     msgid=msgid).as_bytes())
                with lock:
                    accepted.add(msgid)
    except (smtplib.SMTPException, OSError):
        pass  # the daemon died under us: what got no 250 is simply not accepted


def _wait_all_answered(judge, timeout: float = 60) -> None:
    judge.settle(timeout)  # the spool too: SQLite intake may have put mail there


def test_sigkill_during_intake_loses_and_duplicates_nothing(judge_factory):
    judge = judge_factory(JUDGE_JUDGE_REPLIES_PER_DAY="10000")
    ids = [[f"<crash-{c}-{i}@example.org>" for i in range(PER_CONNECTION)]
           for c in range(CONNECTIONS)]
    accepted: set[str] = set()
    lock = threading.Lock()
    threads = [threading.Thread(target=_sender, args=(judge, chunk, accepted, lock))
               for chunk in ids]
    for t in threads:
        t.start()
    # Kill once intake and processing are both under way.
    deadline = time.monotonic() + 30
    while len(accepted) < CONNECTIONS * PER_CONNECTION // 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    judge.proc.send_signal(signal.SIGKILL)
    judge.proc.wait(10)
    for t in threads:
        t.join(30)
    accepted_before_kill = set(accepted)
    assert 0 < len(accepted_before_kill) < CONNECTIONS * PER_CONNECTION

    judge.start()
    # Like an MTA, resend whatever did not get its 250 (some of it may already be stored).
    everything = [m for chunk in ids for m in chunk]
    _sender(judge, [m for m in everything if m not in accepted_before_kill], accepted, lock)
    assert accepted == set(everything)
    _wait_all_answered(judge)

    answered = collections.Counter(r["In-Reply-To"] for r in judge.replies())
    missing = [m for m in everything if answered[m] == 0]
    doubled = [m for m, n in answered.items() if n > 1]
    assert not missing, f"{len(missing)} accepted messages got no reply"
    assert not doubled, f"answered more than once: {doubled[:5]}"
    rows = judge.sql("SELECT message_id, status FROM inbound")
    per_inbound = judge.sql("SELECT inbound_id, count(*) FROM outbox GROUP BY inbound_id "
                            "HAVING count(*) > 1")
    assert sorted(m for m, _ in rows) == sorted(everything)  # each stored once
    assert {s for _, s in rows} == {"done"}
    assert per_inbound == []  # each processed once
