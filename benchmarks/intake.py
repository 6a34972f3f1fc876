#!/usr/bin/env python3
"""Intake benchmark: how fast does ``judge serve`` durably accept mail, compared with a bare
aiosmtpd server that only answers 250, and how fast does it turn mail into replies?

Usage::

    .venv/bin/python benchmarks/intake.py [--messages N] [--connections M] [--size BYTES]

Both servers run in their own subprocess on 127.0.0.1 (so each gets a core of its own, as the
judge does in production) and are driven by the same asyncio client in this process: M SMTP
sessions, each sending its share of the N messages one after another over one session
(MAIL, RCPT, DATA, content, QUIT at the end).

Latency, per message, is measured two ways with ``time.perf_counter`` in the client:

* *accept*: from writing the message content and its terminating ``.`` to reading the final
  reply (the 250 that, for the judge, means "committed and fsync'd");
* *txn*: the whole SMTP transaction, from writing ``MAIL FROM`` to that final reply.

Accepts per second is N divided by the time from the first connection attempt to the last
final reply.  For the judge, end-to-end throughput is N divided by the time from the first
connection attempt until the ``outbox`` table holds N rows (one reply per ``VERSION`` mail),
polled read-only through the sqlite3 module.  Every message has its own sender address so the
per-address reply cap never silences any of them.

Not part of the test run; prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

JUDGE_ADDRESS = "judge@example.org"
HOST = "127.0.0.1"


# --------------------------------------------------------------------------- bare server

def run_bare_server(port: int) -> None:
    """The baseline: aiosmtpd wired up exactly as the daemon does it, answering 250 to DATA."""
    from aiosmtpd.smtp import SMTP

    class Handler:
        async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
            return "250 2.0.0 OK"

    handler = Handler()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        server = await loop.create_server(
            lambda: SMTP(handler, data_size_limit=256 * 1024, hostname="example.org",
                         ident="bare"), HOST, port)
        await stop.wait()
        server.close()

    asyncio.run(main())


# --------------------------------------------------------------------------- client

@dataclass
class ClientResult:
    elapsed: float = 0.0
    accept: list[float] = field(default_factory=list)
    txn: list[float] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)
    started_at: float = 0.0

    @property
    def ok(self) -> int:
        return len(self.accept)


async def _reply(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """Read one (possibly multi-line) SMTP reply; returns its code and last line."""
    while True:
        line = await reader.readline()
        if not line:
            raise ConnectionError("server closed the connection")
        if line[3:4] != b"-":
            return int(line[:3]), line


async def envelope(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sender: str
                   ) -> tuple[int, bytes]:
    """MAIL FROM, RCPT TO the judge and DATA; returns the last reply (354: send the message)."""
    writer.write(f"MAIL FROM:<{sender}>\r\n".encode())
    code, line = await _reply(reader)
    if code == 250:
        writer.write(f"RCPT TO:<{JUDGE_ADDRESS}>\r\n".encode())
        code, line = await _reply(reader)
    if code == 250:
        writer.write(b"DATA\r\n")
        code, line = await _reply(reader)
    return code, line


async def _session(port: int, messages: list[tuple[str, bytes]], result: ClientResult) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        code, line = await _reply(reader)
        if code != 220:
            raise RuntimeError(f"greeting: {line!r}")
        writer.write(b"EHLO bench.example.org\r\n")
        code, line = await _reply(reader)
        if code != 250:
            raise RuntimeError(f"EHLO: {line!r}")
        clock = time.perf_counter
        for sender, payload in messages:
            t0 = clock()
            code, line = await envelope(reader, writer, sender)
            if code == 354:
                t1 = clock()
                writer.write(payload)
                code, line = await _reply(reader)
                t2 = clock()
                if code == 250:
                    result.accept.append(t2 - t1)
                    result.txn.append(t2 - t0)
                    continue
            key = line.decode("ascii", "replace").strip()[:60]
            result.failures[key] = result.failures.get(key, 0) + 1
            writer.write(b"RSET\r\n")
            await _reply(reader)
        writer.write(b"QUIT\r\n")
        await _reply(reader)
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except OSError:
            pass


async def _drive(port: int, messages: list[tuple[str, bytes]], connections: int) -> ClientResult:
    result = ClientResult()
    shares = [messages[i::connections] for i in range(connections)]
    result.started_at = time.perf_counter()
    outcomes = await asyncio.gather(*(_session(port, share, result) for share in shares if share),
                                    return_exceptions=True)
    result.elapsed = time.perf_counter() - result.started_at
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            key = f"session error: {outcome!r}"[:60]
            result.failures[key] = result.failures.get(key, 0) + 1
    return result


def send_all(port: int, messages: list[tuple[str, bytes]], connections: int) -> ClientResult:
    return asyncio.run(_drive(port, messages, connections))


def build_messages(count: int, size: int, tag: str) -> list[tuple[str, bytes]]:
    """``count`` VERSION mails with unique Message-IDs and senders, dot-stuffed, ready for DATA.

    If ``size`` asks for more bytes than the natural mail has, the difference goes into a
    folded ``X-Bench-Padding`` header, which the judge stores but never reads as commands.
    """
    out = []
    for i in range(count):
        sender = f"player{i}@bench.example.org"
        head = (f"From: Player {i} <{sender}>\r\n"
                f"To: {JUDGE_ADDRESS}\r\n"
                f"Subject: bench {i}\r\n"
                f"Date: Thu, 01 Jan 2026 00:00:00 +0000\r\n"
                f"Message-ID: <bench-{tag}-{i}@bench.example.org>\r\n"
                f"MIME-Version: 1.0\r\n"
                f"Content-Type: text/plain; charset=us-ascii\r\n")
        body = "\r\nVERSION\r\n"
        missing = size - len(head) - len(body) - len("X-Bench-Padding: \r\n")
        if missing > 0:
            chunks = ["x" * 70] * (missing // 73) + ["x" * max(1, missing % 73 - 3)]
            head += "X-Bench-Padding: " + "\r\n ".join(chunks) + "\r\n"
        out.append((sender, (head + body).encode("ascii") + b".\r\n"))
    return out


# --------------------------------------------------------------------------- processes

def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_listening(proc: subprocess.Popen[bytes], port: int, what: str, log: Path,
                   timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited {proc.returncode}:\n{tail(log)}")
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen within {timeout} s:\n{tail(log)}")


def start_judge_serve(tmp: Path, env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    """``judge serve``, once it says READY=1 as systemd would hear it: the database checked,
    intake listening and the worker process's worker running.  (Listening alone is not ready: the
    worker process would still be starting, on the core the load generator needs.)"""
    ready_path = tmp / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as ready:
        ready.bind(str(ready_path))
        ready.settimeout(0.1)
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([*judge_command(), "serve"],
                                    env={**env, "NOTIFY_SOCKET": str(ready_path)}, cwd=tmp,
                                    stdout=log, stderr=log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"judge serve exited {proc.returncode}:\n{tail(log_path)}")
            try:
                said = ready.recv(4096)
            except TimeoutError:
                continue
            if b"READY=1" in said.split(b"\n"):
                return proc
    stop(proc)
    raise RuntimeError(f"judge serve was not ready within 30 s:\n{tail(log_path)}")


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def tail(path: Path, lines: int = 30) -> str:
    if not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def judge_command() -> list[str]:
    beside = Path(sys.executable).with_name("judge")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("judge")
    if found:
        return [found]
    raise SystemExit("cannot find the 'judge' command; run this with the project's virtualenv")


def judge_env(tmp: Path, port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env.update({
        "JUDGE_JUDGE_ADDRESS": JUDGE_ADDRESS,
        "JUDGE_DATABASE_URL": f"sqlite:///{tmp / 'judge.db'}",
        "JUDGE_INTAKE_LISTEN": f"{HOST}:{port}",
        "JUDGE_OUTBOUND_TRANSPORT": f"maildir:{tmp / 'mail'}",
        "JUDGE_WORKER_POLL_SECONDS": "0.2",
    })
    return env


def query(db: Path, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    # Read-only: the benchmark must not take the write lock away from the daemon.
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def wait_outbox(db: Path, want: int, timeout: float, sent: bool = False
                ) -> tuple[float | None, int]:
    """Poll until the outbox holds ``want`` rows (``sent``: sent ones); returns (perf_counter
    when seen, count)."""
    deadline = time.perf_counter() + timeout
    count = 0
    sql = "SELECT count(*) FROM outbox" + (" WHERE status = 'sent'" if sent else "")
    while True:
        try:
            count = query(db, sql)[0][0]
        except sqlite3.OperationalError:
            pass  # busy for a moment (checkpoint); try again
        now = time.perf_counter()
        if count >= want:
            return now, count
        if now > deadline:
            return None, count
        time.sleep(0.02)


# --------------------------------------------------------------------------- reporting

def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def row(label: str, r: ClientResult) -> str:
    rate = r.ok / r.elapsed if r.elapsed else 0.0
    ms = 1000.0
    return (f"{label:<28}{rate:>10.0f}{pct(r.accept, 50) * ms:>11.2f}{pct(r.accept, 99) * ms:>11.2f}"
            f"{pct(r.txn, 50) * ms:>10.2f}{pct(r.txn, 99) * ms:>10.2f}{r.ok:>7}"
            f"{sum(r.failures.values()):>7}")


# --------------------------------------------------------------------------- main

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", "-n", type=int, default=2000, help="mails to send (2000)")
    parser.add_argument("--connections", "-c", type=int, default=8,
                        help="concurrent SMTP sessions (8)")
    parser.add_argument("--size", type=int, default=1000,
                        help="approximate size of each mail in bytes (1000); small values "
                             "mean the natural size, about 300 bytes")
    parser.add_argument("--e2e-timeout", type=float, default=90.0,
                        help="seconds to wait for every reply row before giving up (90)")
    parser.add_argument("--bare-server", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.bare_server is not None:
        run_bare_server(args.bare_server)
        return 0
    if args.messages < 1 or args.connections < 1:
        parser.error("--messages and --connections must be at least 1")

    # SIGTERM to the benchmark still runs the finally blocks that stop the servers.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    import aiosmtpd

    n, m = args.messages, min(args.connections, args.messages)
    bare_proc = judge_proc = None
    with tempfile.TemporaryDirectory(prefix="judge-bench-") as tmpdir:
        tmp = Path(tmpdir)
        try:
            # 1. Bare aiosmtpd.
            port = free_port()
            bare_log = tmp / "bare.log"
            with open(bare_log, "wb") as log:
                bare_proc = subprocess.Popen(
                    [sys.executable, str(Path(__file__).resolve()), "--bare-server", str(port)],
                    stdout=log, stderr=log)
            wait_listening(bare_proc, port, "bare aiosmtpd server", bare_log)
            bare = send_all(port, build_messages(n, args.size, "bare"), m)
            stop(bare_proc)

            # 2. The real judge.
            port = free_port()
            serve_log = tmp / "serve.log"
            db = tmp / "judge.db"
            judge_proc = start_judge_serve(tmp, judge_env(tmp, port), serve_log)
            messages = build_messages(n, args.size, f"judge-{os.getpid()}")
            judged = send_all(port, messages, m)
            stored = query(db, "SELECT count(*) FROM inbound")[0][0]
            seen_at, replies = wait_outbox(db, judged.ok, args.e2e_timeout)
            sent_at, sent = wait_outbox(db, judged.ok, args.e2e_timeout, sent=True)
            # Each reply's delay: from the mail's arrival until its reply was sent.
            delays = sorted(row[0] for row in query(
                db, "SELECT (julianday(o.sent_at) - julianday(i.received_at)) * 86400.0"
                    " FROM outbox o JOIN inbound i ON o.inbound_id = i.id"
                    " WHERE o.status = 'sent'"))
            journal = query(db, "PRAGMA journal_mode")[0][0]
            outbox_status = dict(query(db, "SELECT status, count(*) FROM outbox GROUP BY status"))
            inbound_status = dict(query(db, "SELECT status, count(*) FROM inbound GROUP BY status"))
            stop(judge_proc)
            errors_in_log = sum(1 for line in tail(serve_log, 10**9).splitlines()
                                if " ERROR " in line or "Traceback" in line)
        finally:
            stop(bare_proc)
            stop(judge_proc)

        size = len(messages[0][1]) - 3  # without the terminating ".\r\n"
        print(f"judge intake benchmark: {n} messages of {size} bytes over {m} SMTP sessions, "
              f"127.0.0.1, {os.cpu_count()} CPUs")
        print(f"Python {platform.python_version()} ({platform.python_implementation()}), "
              f"SQLite {sqlite3.sqlite_version}, aiosmtpd {aiosmtpd.__version__}, "
              f"judge database journal_mode={journal}")
        print()
        print("latency in ms: accept = end of DATA content to final 250; "
              "txn = MAIL FROM to final 250")
        print(f"{'server':<28}{'accepts/s':>10}{'accept p50':>11}{'accept p99':>11}"
              f"{'txn p50':>10}{'txn p99':>10}{'ok':>7}{'failed':>7}")
        print(row("bare aiosmtpd (250 only)", bare))
        print(row("judge serve (durable)", judged))
        bare_rate = bare.ok / bare.elapsed if bare.elapsed else 0.0
        judge_rate = judged.ok / judged.elapsed if judged.elapsed else 0.0
        ratio = judge_rate / bare_rate * 100 if bare_rate else 0.0
        print()
        print(f"durable/bare accept ratio: {ratio:.1f} % (target >= 50 %)")
        print(f"judge rows stored: {stored} inbound for {judged.ok} accepted "
              f"({inbound_status}); outbox {outbox_status}")
        if seen_at is not None:
            e2e = seen_at - judged.started_at
            print(f"end to end (first send -> {replies} reply rows in outbox): {e2e:.2f} s, "
                  f"{replies / e2e:.0f} replies/s")
        else:
            print(f"end to end: only {replies} of {judged.ok} reply rows after "
                  f"{args.e2e_timeout:.0f} s of waiting")
        if sent_at is not None:
            e2e = sent_at - judged.started_at
            print(f"end to end (first send -> {sent} replies sent): {e2e:.2f} s, "
                  f"{sent / e2e:.0f} replies/s")
        if delays:
            print(f"each reply's delay (arrival -> reply sent): median {pct(delays, 50):.2f} s, "
                  f"p90 {pct(delays, 90):.2f} s, max {delays[-1]:.2f} s")
        for label, r in (("bare", bare), ("judge", judged)):
            for reason, count in r.failures.items():
                print(f"{label} failure x{count}: {reason}")
        if errors_in_log:
            print(f"judge log had {errors_in_log} error line(s); last lines:\n{tail(serve_log)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
