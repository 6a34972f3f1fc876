#!/usr/bin/env python3
"""Timeline of a burst of mail through a real ``judge serve``: how far each of its three
processes has got, and how busy each is, every tenth of a second.

Usage::

    .venv/bin/python benchmarks/burst_timeline.py [--messages 1200] [--connections 8]
                                                  [--every 0.1]

The burst (``VERSION`` mails, each from its own address) goes out as fast as the sessions go
(benchmarks/intake.py's client).  Meanwhile a thread reads the database (read-only) and
``/proc``: mails stored, mails answered (inbound ``done``), replies sent (outbox ``sent``), and
the CPU share of the daemon (intake), the worker process (worker) and the sender since the last
line.  It shows what a single figure hides: a sender that sends nothing while the worker works
off a backlog, a worker starved while mail arrives, a core left idle.

Not part of the test run; prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from intake import build_messages, free_port, judge_env, send_all, start_judge_serve, stop

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def children(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in found.split()]


@dataclass
class Sample:
    at: float
    stored: int
    answered: int
    sent: int
    cpu: tuple[float, float, float]  # daemon, worker process, sender


def sample(db: Path, pids: tuple[int, int, int], at: float) -> Sample | None:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            stored, answered = con.execute(
                "SELECT count(*), coalesce(sum(status = 'done'), 0) FROM inbound").fetchone()
            sent, = con.execute(
                "SELECT coalesce(sum(status = 'sent'), 0) FROM outbox").fetchone()
    except sqlite3.OperationalError:
        return None  # not created yet, or busy for a moment
    cpu = (cpu_seconds(pids[0]), cpu_seconds(pids[1]), cpu_seconds(pids[2]))
    return Sample(at, stored, answered, sent, cpu)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", "-n", type=int, default=1200)
    ap.add_argument("--connections", "-c", type=int, default=8)
    ap.add_argument("--every", type=float, default=0.1, help="seconds between lines (0.1)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="judge-timeline-") as folder:
        tmp = Path(folder)
        port = free_port()
        env = judge_env(tmp, port)
        proc = start_judge_serve(tmp, env, tmp / "serve.log")
        try:
            worker_process, = children(proc.pid)
            sender, = children(worker_process)
            pids = (proc.pid, worker_process, sender)
            samples: list[Sample] = []
            start = time.perf_counter()

            def watch() -> None:
                deadline = start + 120
                while time.perf_counter() < deadline:
                    got = sample(tmp / "judge.db", pids, time.perf_counter() - start)
                    if got is not None:
                        samples.append(got)
                        if got.sent >= args.messages:
                            return
                    time.sleep(args.every)

            watcher = threading.Thread(target=watch)
            watcher.start()
            send_all(port, build_messages(args.messages, 1000, "timeline"), args.connections)
            accepted = time.perf_counter() - start
            watcher.join()
        finally:
            stop(proc)
    print(f"judge burst timeline: {args.messages} mails over {args.connections} SMTP sessions, "
          f"{os.cpu_count()} CPUs; all accepted after {accepted:.2f} s")
    print("     s   stored answered     sent   daemon  worker process  sender  (CPU since last line)")
    for before, now in zip(samples, samples[1:]):
        span = now.at - before.at
        shares = [100 * (b - a) / span for a, b in zip(before.cpu, now.cpu)]
        print(f"{now.at:6.2f} {now.stored:8d} {now.answered:8d} {now.sent:8d} "
              f"{shares[0]:7.0f}% {shares[1]:10.0f}% {shares[2]:6.0f}%")
    if samples and samples[-1].sent >= args.messages:
        last = samples[-1].at
        print(f"every reply sent after {last:.2f} s: {args.messages / last:.0f} replies/s "
              "end to end")
    else:
        print("not every reply was sent within 120 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
