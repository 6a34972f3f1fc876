"""Attacks on the SMTP listener of a running daemon: idle sockets, a session kept alive by
NOOPs, a flood of connections, a process short of file descriptors.  None of them may keep a
normal mail out for longer than the session limit, nor fill the log."""

from __future__ import annotations

import logging
import signal
import smtplib
import socket
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from conftest import JUDGE_EXE, RunningJudge, free_port, judge_env, make_mail
from judge.basics.logs import RepeatFilter

# Much of this module's time is spent waiting (session time limits): it runs first
# (tests/conftest.py).
pytestmark = pytest.mark.waits_long


def connect(judge: RunningJudge) -> socket.socket:
    return socket.create_connection(("127.0.0.1", judge.port), timeout=20)


def first_line(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\r\n"):
        chunk = sock.recv(1024)
        if not chunk:
            break
        data += chunk
    return data


def until_closed(sock: socket.socket) -> bytes:
    """Everything the server says until it hangs up (the test's timeout guards the wait)."""
    data = b""
    while True:
        chunk = sock.recv(1024)
        if not chunk:
            return data
        data += chunk


def fill(judge: RunningJudge, count: int) -> list[socket.socket]:
    """``count`` open, greeted sessions.  A connection told 421 is tried again: the daemon's
    readiness probe (conftest) may not be counted out yet when the test starts."""
    opened: list[socket.socket] = []
    for _ in range(count):
        for _ in range(100):
            s = connect(judge)
            greeting = first_line(s)
            if greeting.startswith(b"220"):
                opened.append(s)
                break
            s.close()
            time.sleep(0.05)
        else:
            raise AssertionError(f"only {len(opened)} sessions could be opened")
    return opened


def mail_is_answered(judge: RunningJudge, count: int = 1) -> None:
    """A normal mail gets through (tried again on 421, as an MTA does) and is answered."""
    for _ in range(100):
        try:
            judge.send(make_mail("VERSION"))
            break
        except smtplib.SMTPConnectError as exc:
            assert exc.smtp_code == 421
            time.sleep(0.05)
    judge.wait_replies(count)


def test_connections_beyond_the_cap_are_told_421_and_idle_ones_end(judge_factory):
    judge = judge_factory(JUDGE_INTAKE_MAX_CONNECTIONS="5", JUDGE_INTAKE_SESSION_TIMEOUT="2")
    idle = fill(judge, 5)
    with connect(judge) as extra:
        assert until_closed(extra).startswith(b"421 4.7.0")
    # The idle sessions are closed when their time is up; then mail flows again.
    for s in idle:
        assert b"421 4.4.2" in until_closed(s)
        s.close()
    mail_is_answered(judge)


def test_a_session_kept_alive_with_noop_is_closed_at_its_time_limit(judge_factory):
    judge = judge_factory(JUDGE_INTAKE_SESSION_TIMEOUT="1", JUDGE_INTAKE_IDLE_TIMEOUT="30")
    with connect(judge) as s:
        assert first_line(s).startswith(b"220")
        deadline = time.monotonic() + 20
        said = b""
        while time.monotonic() < deadline:
            try:
                s.sendall(b"NOOP\r\n")
                said = first_line(s)
            except OSError:
                break
            if not said.startswith(b"250"):
                break
            time.sleep(0.1)
        assert said.startswith(b"421 4.4.2"), said
    mail_is_answered(judge)


def test_a_flood_of_connections_leaves_a_short_log(judge_factory):
    judge = judge_factory(JUDGE_INTAKE_MAX_CONNECTIONS="2")
    held = fill(judge, 2)
    for _ in range(200):
        with connect(judge) as s:
            assert until_closed(s).startswith(b"421")
    for s in held:
        s.close()
    mail_is_answered(judge)
    refusals = [line for line in judge.log().splitlines() if "refused a connection" in line]
    assert 1 <= len(refusals) <= RepeatFilter().burst + 1, refusals
    assert "not logged" in refusals[-1]


@pytest.fixture
def start_limited(tmp_path: Path, db_url: str) -> Iterator[Callable[[int], RunningJudge]]:
    """``judge serve`` started under ``ulimit -n N`` (the shell execs the judge)."""
    started: list[RunningJudge] = []

    def start(files: int) -> RunningJudge:
        port = free_port()
        judge = RunningJudge(tmp_path, port, judge_env(tmp_path, port, db_url))
        log = open(judge.log_path, "ab")
        judge.proc = subprocess.Popen(["sh", "-c", f'ulimit -n {files} && exec "$0" serve',
                                       JUDGE_EXE], env=judge.env, cwd=tmp_path, stdout=log,
                                      stderr=log)
        started.append(judge)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return judge
            except OSError:
                time.sleep(0.05)
        raise AssertionError(judge.log())

    yield start
    for judge in started:
        if judge.proc and judge.proc.poll() is None:
            judge.proc.send_signal(signal.SIGKILL)
            judge.proc.wait(10)


def test_short_of_file_descriptors_the_judge_refuses_instead_of_failing(start_limited):
    judge = start_limited(96)
    cap = 96 - 64  # judge.daemon.intake_process.FILES_IN_RESERVE
    opened = fill(judge, cap)
    for _ in range(40):
        with connect(judge) as s:
            assert until_closed(s).startswith(b"421")
    for s in opened:
        s.close()
    mail_is_answered(judge)
    log = judge.log()
    assert "max_connections lowered to 32" in log
    assert "Too many open files" not in log and "out of system resource" not in log


# --------------------------------------------------------------------------- the log filter


def test_repeat_filter_lets_a_few_copies_through_then_counts_the_rest() -> None:
    now = [0.0]
    rate = RepeatFilter(burst=3, period=60, clock=lambda: now[0])

    def passes(text: str, level: int = logging.WARNING) -> str | None:
        record = logging.LogRecord("judge.x", level, __file__, 1, text, (), None)
        return record.getMessage() if rate.filter(record) else None

    out = [passes("too many") for _ in range(10)]
    assert out[:3] == ["too many"] * 3 and "not logged for up to 60 s" in (out[3] or "")
    assert out[4:] == [None] * 6
    assert passes("something else") == "something else"
    assert passes("too many", logging.ERROR) == "too many"  # another level is another line
    now[0] = 61.0
    assert passes("too many") == "too many [6 more identical line(s) not logged]"
    assert passes("too many") == "too many"
