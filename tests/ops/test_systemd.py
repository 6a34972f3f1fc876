"""systemd integration: the unit file verifies, ``judge serve`` speaks sd_notify (READY,
WATCHDOG, STATUS, STOPPING) to a socket of the test's own, and logs for the journal."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

from conftest import RunningJudge, make_mail, polls
from judge.basics.logs import JournalFormatter, stream_is_journal
from judge.daemon.systemd_notify import Notifier

# Much of this module's time is spent waiting (watchdog pings and timeouts): it runs first
# (tests/conftest.py).
pytestmark = pytest.mark.waits_long

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


class NotifyListener:
    """A datagram socket standing in for systemd's; collects every line it is sent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind("\0" + name[1:] if name.startswith("@") else name)
        self.sock.settimeout(0.1)
        self.lines: list[str] = []
        self._stop = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop:
            try:
                data = self.sock.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            self.lines.extend(data.decode().splitlines())

    def wait_for(self, line: str, timeout: float = 10) -> None:
        for _ in polls(timeout):
            if line in self.lines:
                return
        raise AssertionError(f"{line!r} never arrived; got {self.lines}")

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


@pytest.fixture(params=["path", "abstract"])
def listener(request: pytest.FixtureRequest) -> Iterator[NotifyListener]:
    if request.param == "path":
        # AF_UNIX paths are limited to 108 bytes: pytest's tmp_path can be longer.
        folder = Path("/tmp") / f"judge-notify-{uuid.uuid4().hex[:8]}"
        folder.mkdir()
        listen = NotifyListener(str(folder / "notify"))
    else:
        folder = None
        listen = NotifyListener(f"@judge-test-{uuid.uuid4().hex}")
    yield listen
    listen.close()
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def test_serve_notifies_ready_watchdog_status_and_stopping(
        judge_factory: Callable[..., RunningJudge], listener: NotifyListener) -> None:
    judge = judge_factory(NOTIFY_SOCKET=listener.name, WATCHDOG_USEC="200000")
    listener.wait_for("READY=1")
    ready_at = listener.lines.index("READY=1")
    # READY comes with a status naming where it listens.
    assert any(line.startswith("STATUS=") and str(judge.port) in line
               for line in listener.lines[ready_at:])
    # Pings every 0.1 s (half of WATCHDOG_USEC) while the loops go round.
    time.sleep(0.6)
    assert listener.lines.count("WATCHDOG=1") >= 3
    judge.send(make_mail("VERSION"))
    judge.wait_replies(1)
    deadline = time.monotonic() + 10
    while not any("1 message(s) processed" in line for line in listener.lines):
        assert time.monotonic() < deadline, listener.lines
        time.sleep(0.05)
    assert judge.stop() == 0
    listener.wait_for("STOPPING=1")
    assert listener.lines.index("STOPPING=1") > ready_at


def test_no_watchdog_pings_without_watchdog_usec(
        judge_factory: Callable[..., RunningJudge], listener: NotifyListener) -> None:
    judge = judge_factory(NOTIFY_SOCKET=listener.name)
    listener.wait_for("READY=1")
    time.sleep(0.3)
    assert "WATCHDOG=1" not in listener.lines
    assert judge.stop() == 0
    listener.wait_for("STOPPING=1")


def test_watchdog_meant_for_another_process_is_ignored() -> None:
    env = {"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid() + 1)}
    assert Notifier(env).watchdog_seconds is None
    env["WATCHDOG_PID"] = str(os.getpid())
    assert Notifier(env).watchdog_seconds == 0.5


def test_notifier_without_socket_does_nothing() -> None:
    notifier = Notifier({})
    assert not notifier.enabled
    assert notifier.ready("x") is False


def test_a_vanished_socket_is_logged_not_raised(tmp_path: Path) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert notifier.send("READY=1") is False


# --------------------------------------------------------------------------- journal logging


def test_journal_lines_carry_syslog_priorities_and_no_timestamp() -> None:
    import logging
    formatter = JournalFormatter()
    record = logging.LogRecord("judge.worker", logging.WARNING, __file__, 1, "inbound %s set aside",
                               (7,), None)
    assert formatter.format(record) == "<4>judge.worker: inbound 7 set aside"
    record.levelno = logging.ERROR
    assert formatter.format(record).startswith("<3>")
    record.levelno = logging.INFO
    assert formatter.format(record).startswith("<6>")


def test_journal_stream_must_be_our_stderr(tmp_path: Path) -> None:
    with open(tmp_path / "log", "w") as f:
        st = os.fstat(f.fileno())
        assert stream_is_journal(f, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"})
        assert not stream_is_journal(f, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino + 1}"})
        assert not stream_is_journal(f, {})


def test_serve_under_the_journal_logs_priorities_and_message_details(
        judge_factory: Callable[..., RunningJudge], tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    log.touch()
    st = os.stat(log)
    judge = judge_factory(JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}")
    judge.send(make_mail("VERSION", sender="carol@example.org", msgid="<journal-1@example.org>"),
               mail_from="carol@example.org")
    judge.wait_replies(1)
    assert judge.stop() == 0
    lines = [line for line in judge.log().splitlines() if line]
    assert lines and all(line[:3] in {"<3>", "<4>", "<6>", "<7>"} for line in lines), lines[:5]
    steps = [line for line in lines if "<journal-1@example.org>" in line]
    # stored by intake, processed by the worker; each line names the message and the sender
    assert any("stored message" in line and "carol@example.org" in line for line in steps), steps
    assert any("done" in line and "carol@example.org" in line and "game -" in line
               for line in steps), steps


def test_plain_logs_keep_timestamps(judge: RunningJudge) -> None:
    assert judge.stop() == 0
    first = judge.log().splitlines()[0]
    assert first[:4].isdigit() and not first.startswith("<")


# --------------------------------------------------------------------------- the unit file


def test_unit_file_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian package: systemd)")
    unit = tmp_path / "judge.service"
    # verify checks that ExecStart's program exists: point it at this checkout's judge.
    text = (DEPLOY / "judge.service").read_text()
    exe = Path(os.environ.get("VIRTUAL_ENV", "")) / "bin" / "judge"
    from conftest import JUDGE_EXE
    text = text.replace("/opt/judge/bin/judge", JUDGE_EXE if Path(JUDGE_EXE).exists() else str(exe))
    unit.write_text(text)
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                            timeout=60)
    # Only messages about this unit count: the host's own units are not ours to judge.
    ours = [line for line in (result.stdout + result.stderr).splitlines() if "judge" in line]
    assert result.returncode == 0 and not ours, result.stdout + result.stderr


def test_unit_file_has_the_settings_operators_rely_on() -> None:
    text = (DEPLOY / "judge.service").read_text()
    settings = {line.split("=", 1)[0] for line in text.splitlines() if "=" in line
                and not line.startswith("#")}
    for key in ("Type", "ExecStart", "Restart", "WatchdogSec", "StateDirectory",
                "ConfigurationDirectory", "ProtectSystem", "ProtectHome", "NoNewPrivileges",
                "PrivateTmp", "PrivateDevices", "RestrictAddressFamilies"):
        assert key in settings, key
    assert "Type=notify" in text
    assert "ExecStart=/opt/judge/bin/judge --config /etc/judge/judge.toml serve" in text


def test_unit_file_allows_more_open_files_than_sessions() -> None:
    from judge.basics.config import IntakeSection
    from judge.daemon.intake_process import FILES_IN_RESERVE
    text = (DEPLOY / "judge.service").read_text()
    [limit] = [line.split("=", 1)[1] for line in text.splitlines()
               if line.startswith("LimitNOFILE=")]
    assert int(limit) >= IntakeSection().max_connections + FILES_IN_RESERVE
