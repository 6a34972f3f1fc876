"""Shared fixtures: a real ``judge serve`` subprocess on a free port, with its own SQLite file
and Maildir, and helpers to mail it and read its replies."""

from __future__ import annotations

import email
import os
import signal
import smtplib
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

JUDGE_EXE = str(Path(sys.executable).with_name("judge"))
JUDGE_ADDRESS = "judge@example.org"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_mail(body: str, *, sender: str = "alice@example.org", subject: str = "test",
              msgid: str | None = None, to: str = JUDGE_ADDRESS, **headers: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = msgid or email.utils.make_msgid(domain="example.org")
    for name, value in headers.items():
        msg[name.replace("_", "-")] = value
    msg.set_content(body)
    return msg


def read_maildir(path: Path) -> list[EmailMessage]:
    out = []
    for sub in ("new", "cur"):
        folder = path / sub
        if folder.is_dir():
            for f in sorted(folder.iterdir()):
                out.append(email.message_from_bytes(f.read_bytes(), policy=policy.default))
    return out


def judge_env(tmp: Path, port: int, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update({
        "JUDGE_JUDGE_ADDRESS": JUDGE_ADDRESS,
        "JUDGE_DATABASE_URL": f"sqlite:///{tmp / 'judge.db'}",
        "JUDGE_INTAKE_LISTEN": f"127.0.0.1:{port}",
        "JUDGE_OUTBOUND_TRANSPORT": f"maildir:{tmp / 'mail'}",
        "JUDGE_WORKER_POLL_SECONDS": "0.2",
    })
    env.update(overrides)
    return env


@dataclass
class RunningJudge:
    tmp: Path
    port: int
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log_path = self.tmp / "serve.log"

    @property
    def maildir(self) -> Path:
        return self.tmp / "mail"

    @property
    def db_path(self) -> Path:
        return self.tmp / "judge.db"

    def start(self) -> "RunningJudge":
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([JUDGE_EXE, "serve"], env=self.env, cwd=self.tmp,
                                     stdout=log, stderr=log)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"judge serve exited {self.proc.returncode}:\n{self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"judge serve did not listen in time:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout)

    def smtp(self) -> smtplib.SMTP:
        return smtplib.SMTP("127.0.0.1", self.port, timeout=20)

    def send(self, msg: EmailMessage | bytes, *, mail_from: str = "alice@example.org",
             rcpt: str = JUDGE_ADDRESS) -> dict[str, Any]:
        # Real MTAs speak CRLF; EmailMessage.as_bytes() alone gives bare LF line ends.
        raw = msg if isinstance(msg, bytes) else msg.as_bytes(policy=policy.SMTP)
        with self.smtp() as s:
            return s.sendmail(mail_from, [rcpt], raw)

    def replies(self) -> list[EmailMessage]:
        return read_maildir(self.maildir)

    def wait_replies(self, count: int, timeout: float = 20) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.replies()
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"expected {count} replies, got {len(self.replies())}:\n{self.log()}")

    def settle(self, seconds: float = 1.0) -> None:
        """Give the daemon time to (not) do something, for tests that expect silence."""
        time.sleep(seconds)

    def cli(self, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([JUDGE_EXE, *args], env=self.env, cwd=self.tmp, input=(
            input.decode() if input is not None else None), capture_output=True, text=True,
            timeout=60)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    """A fresh SQLite database file for one test."""
    return f"sqlite:///{tmp_path / 'judge.db'}"


@pytest.fixture
def store(db_url: str) -> Iterator[Any]:
    """A real store with the schema created, disposed after the test."""
    from judge.store.db import Store
    from judge.store.schema import ensure_schema
    s = Store(db_url)
    ensure_schema(s.engine)
    yield s
    s.dispose()


@pytest.fixture
def judge_factory(tmp_path: Path) -> Iterator[Callable[..., RunningJudge]]:
    started: list[RunningJudge] = []

    def start(**overrides: str) -> RunningJudge:
        port = free_port()
        running = RunningJudge(tmp_path, port, judge_env(tmp_path, port, **overrides)).start()
        started.append(running)
        return running

    yield start
    for running in started:
        if running.proc and running.proc.poll() is None:
            running.proc.send_signal(signal.SIGKILL)
            running.proc.wait(10)


@pytest.fixture
def judge(judge_factory: Callable[..., RunningJudge]) -> RunningJudge:
    return judge_factory()


def body_of(msg: EmailMessage) -> str:
    part = msg.get_body(("plain",))
    assert part is not None
    return part.get_content()
