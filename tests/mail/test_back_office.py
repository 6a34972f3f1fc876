"""The daemon's processes: the worker process (worker, scheduler) is started with the daemon,
started again when it ends, stopped with it, and dies with it when it is killed; so is the
sender, the worker process's child; the daemon and the worker process take turns at SQLite's write
lock."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

from conftest import RunningJudge, make_mail, process_gone as gone, polls
from judge.basics.config import Config, JudgeSection
from judge.mail.intake.accept import Arrival, message_id_of, store_arrivals
from judge.pipeline.worker import claim_batch, process_batch
from judge.pipeline.stages import Pipeline
from judge.store.db import Store
from judge.store.models import InboundMessage
from judge.store.turns import MAX_WAIT, WriteTurns

# Much of this module's time is spent waiting (worker processs ending and starting again): it runs first
# (tests/conftest.py).
pytestmark = pytest.mark.waits_long

def started_pids(judge: RunningJudge, what: str, count: int = 1,
                 timeout: float = 20) -> list[int]:
    """The pids of the ``what`` processes (worker process, sender) started, once there are
    ``count``, as the log says."""
    started = re.compile(re.escape(what) + r" started \(pid (\d+)\)")
    for _ in polls(timeout):
        pids = [int(pid) for pid in started.findall(judge.log())]
        if len(pids) >= count:
            return pids
    raise AssertionError(f"{count} {what} start(s) not logged:\n{judge.log()}")


def worker_process_pids(judge: RunningJudge, count: int = 1) -> list[int]:
    return started_pids(judge, "worker process", count)


def sender_pids(judge: RunningJudge, count: int = 1) -> list[int]:
    return started_pids(judge, "sender", count)


def wait_gone(pid: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not gone(pid):
        assert time.monotonic() < deadline, f"process {pid} still runs"
        time.sleep(0.05)


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def niceness(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def test_the_worker_process_is_a_process_of_its_own_at_a_lower_priority(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_WORKER_NICENESS="19")  # the default (the tests run with 1)
    pid, = worker_process_pids(judge)
    assert judge.proc is not None and pid != judge.proc.pid
    assert parent_of(pid) == judge.proc.pid
    sender, = sender_pids(judge)
    expected = min(19, niceness(judge.proc.pid) + 19)
    for _ in polls(20):  # each lowers its priority as it starts
        if niceness(pid) == niceness(sender) == expected:
            break
    assert niceness(pid) == niceness(sender) == expected, "not at nice +19"
    judge.send(make_mail("VERSION"))
    judge.wait_replies(1)


def test_a_worker_process_that_ends_is_started_again_and_mail_is_answered(
        judge: RunningJudge) -> None:
    first, = worker_process_pids(judge)
    os.kill(first, signal.SIGKILL)
    wait_gone(first)
    _, second = worker_process_pids(judge, 2)
    assert second != first
    assert "ended with exit code -9; starting it again" in judge.log()
    assert judge.log().count("worker process started") == 2
    judge.send(make_mail("VERSION"))
    judge.wait_replies(1)
    assert judge.stop() == 0
    wait_gone(second)


def test_the_worker_process_stops_with_the_daemon(judge: RunningJudge) -> None:
    pid, = worker_process_pids(judge)
    judge.send(make_mail("VERSION"))
    judge.wait_replies(1)
    assert judge.stop(signal.SIGTERM) == 0
    wait_gone(pid)
    assert "stopped" in judge.log()


def test_signalled_together_as_systemd_does_they_stop_without_a_restart(
        judge: RunningJudge) -> None:
    """systemd's stop signals every process of the service at once."""
    pid, = worker_process_pids(judge)
    judge.wait_log("worker process running")
    os.kill(pid, signal.SIGTERM)
    assert judge.stop(signal.SIGTERM) == 0
    wait_gone(pid)
    assert "starting it again" not in judge.log()
    assert judge.log().count("worker process started") == 1


def test_the_worker_process_dies_with_a_killed_daemon(judge: RunningJudge) -> None:
    pid, = worker_process_pids(judge)
    judge.stop(signal.SIGKILL)
    wait_gone(pid)


def test_the_sender_is_the_worker_processs_child_at_its_priority(judge: RunningJudge) -> None:
    worker_process, = worker_process_pids(judge)
    sender, = sender_pids(judge)
    assert parent_of(sender) == worker_process
    assert judge.proc is not None
    assert os.getpriority(os.PRIO_PROCESS, sender) > os.getpriority(os.PRIO_PROCESS,
                                                                    judge.proc.pid)
    judge.send(make_mail("VERSION"))
    judge.wait_replies(1)


def test_a_sender_that_ends_is_started_again_and_mail_is_answered(judge: RunningJudge) -> None:
    first, = sender_pids(judge)
    os.kill(first, signal.SIGKILL)
    wait_gone(first)
    _, second = sender_pids(judge, 2)
    assert parent_of(second) == worker_process_pids(judge)[0]
    assert "the sender ended (exit code -9); starting it again" in judge.log()
    judge.send(make_mail("VERSION"))
    judge.wait_replies(1)
    assert judge.stop() == 0
    wait_gone(second)


def test_the_sender_dies_with_a_killed_worker_process_and_comes_back_with_the_next(
        judge: RunningJudge) -> None:
    worker_process, = worker_process_pids(judge)
    sender, = sender_pids(judge)
    os.kill(worker_process, signal.SIGKILL)
    wait_gone(sender)
    _, again = sender_pids(judge, 2)
    judge.send(make_mail("VERSION"))
    judge.wait_replies(1)
    assert judge.stop() == 0
    wait_gone(again)


# --------------------------------------------------------------------------- taking turns

def test_a_request_for_the_lock_is_seen_and_lapses_when_never_given_back() -> None:
    turns = WriteTurns()
    assert not turns.asked_for()
    turns.wait_turn()  # nobody asked: no wait
    turns.asked()
    assert turns.asked_for()
    started = time.monotonic()
    turns.wait_turn()
    assert time.monotonic() - started >= MAX_WAIT * 0.9
    assert not turns.asked_for()  # lapsed


def test_the_worker_waits_until_intake_gives_the_lock_back() -> None:
    turns = WriteTurns()
    turns.asked()
    threading.Timer(0.005, turns.given_back).start()
    turns.wait_turn()
    assert not turns.asked_for()


class CountingTurns(WriteTurns):
    """Asked for the lock all the time; counts the transactions the worker began."""

    def __init__(self) -> None:
        super().__init__()
        self.began = 0
        self.asked()

    def wait_turn(self) -> None:
        self.began += 1


@pytest.mark.parametrize("asked", [False, True])
def test_while_intake_waits_the_worker_commits_after_each_message(asked: bool,
                                                                  store: Store) -> None:
    config = Config(judge=JudgeSection(address="judge@example.org"))
    arrivals = []
    for i in range(4):
        raw = make_mail("VERSION", sender=f"p{i}@example.org").as_bytes()
        arrivals.append(Arrival("judge@example.org", f"p{i}@example.org", raw,
                                message_id_of(raw)))
    store_arrivals(store, arrivals)
    ids = claim_batch(store, config, None, 10)
    turns = CountingTurns() if asked else WriteTurns()
    assert process_batch(store, config, ids, Pipeline(config), seconds=60, turns=turns) == 4
    if asked:
        assert isinstance(turns, CountingTurns) and turns.began == 4
    with store.reading() as s:
        assert {r.status for r in s.query(InboundMessage)} == {"done"}
