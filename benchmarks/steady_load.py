#!/usr/bin/env python3
"""Steady-load and burst benchmark of a real ``judge serve`` subprocess.

Usage::

    .venv/bin/python benchmarks/steady_load.py [--rate 100] [--seconds 20] [--burst 1200]
                                               [--connections 8] [--runs 3]

*Steady load* (open loop): ``--rate`` VERSION mails a second are offered for ``--seconds``
over ``--connections`` SMTP sessions; mail *i* is due at ``i / rate`` seconds after the start
and goes out on session ``i mod connections`` as soon as it is due (a session that fell behind
sends at once).  Every 0.1 s a read-only query counts the replies the judge has sent (outbox
rows ``sent``, one per VERSION mail): the *backlog* is mails answered 250 but not yet
answered by mail, and its maximum over the run is printed.  Five seconds after the last send
the share of accepted mails answered is taken.

*Burst*: ``--burst`` mails as fast as the sessions go, first to a bare aiosmtpd server that
only answers 250 (benchmarks/intake.py), then to the judge: the judge's durable accept rate
against the bare one, and the end-to-end rate (first send until every reply is *sent*)
against the bare accept rate.

Each run starts a fresh judge (fresh database); the figures are the median of ``--runs`` runs.
Not part of the test run; prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from intake import (
    HOST,
    _reply,
    build_messages,
    envelope,
    free_port,
    judge_env,
    query,
    send_all,
    stop,
    start_judge_serve,
    wait_listening,
)

SENT = "SELECT count(*) FROM outbox WHERE status = 'sent'"


def sent_count(db: Path) -> int | None:
    try:
        return query(db, SENT)[0][0]
    except sqlite3.OperationalError:
        return None  # not created yet, or busy for a moment


@dataclass
class SteadyResult:
    offered: int
    accepted: int
    answered_5s: int
    max_backlog: int
    send_lag_max: float  # how far the client fell behind its schedule (s)
    answer_rate: float  # replies sent per second during the offer

    @property
    def share(self) -> float:
        return self.answered_5s / self.accepted if self.accepted else 0.0


async def _steady_session(port: int, due: list[tuple[float, str, bytes]], start: float,
                          accepted: list[int], lags: list[float], failures: list[str]) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        await _reply(reader)
        writer.write(b"EHLO bench.example.org\r\n")
        await _reply(reader)
        loop = asyncio.get_running_loop()
        for at, sender, payload in due:
            wait = start + at - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            else:
                lags.append(-wait)
            code, line = await envelope(reader, writer, sender)
            if code == 354:
                writer.write(payload)
                code, line = await _reply(reader)
                if code == 250:
                    accepted[0] += 1
                    continue
            failures.append(line.decode("ascii", "replace").strip()[:60])
            writer.write(b"RSET\r\n")
            await _reply(reader)
        writer.write(b"QUIT\r\n")
        await _reply(reader)
    finally:
        writer.close()


async def _steady(port: int, db: Path, rate: float, seconds: float, connections: int,
                  tag: str) -> SteadyResult:
    count = int(rate * seconds)
    messages = build_messages(count, 1000, tag)
    loop = asyncio.get_running_loop()
    start = loop.time() + 0.2
    plan = [(i / rate, s, p) for i, (s, p) in enumerate(messages)]
    accepted, lags, failures = [0], [0.0], []
    sessions = [asyncio.create_task(_steady_session(port, plan[c::connections], start,
                                                    accepted, lags, failures))
                for c in range(connections)]
    max_backlog = 0
    done = asyncio.gather(*sessions, return_exceptions=True)
    while not done.done():
        await asyncio.sleep(0.1)
        sent = await loop.run_in_executor(None, sent_count, db)
        if sent is not None:
            max_backlog = max(max_backlog, accepted[0] - sent)
    outcomes = await done
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            failures.append(repr(outcome)[:60])
    last_send = loop.time()
    sent_at_end = await loop.run_in_executor(None, sent_count, db) or 0
    answer_rate = sent_at_end / (last_send - start)
    sent = sent_at_end
    while loop.time() < last_send + 5.0:
        await asyncio.sleep(0.1)
        now_sent = await loop.run_in_executor(None, sent_count, db)
        if now_sent is not None:
            sent = now_sent
            max_backlog = max(max_backlog, accepted[0] - sent)
    if failures:
        print(f"  steady: {len(failures)} failure(s), e.g. {failures[0]}")
    return SteadyResult(count, accepted[0], sent, max_backlog, max(lags), answer_rate)


def start_judge(tmp: Path, extra_env: dict[str, str] | None = None
                ) -> tuple[subprocess.Popen[bytes], int, Path, Path]:
    port = free_port()
    log_path = tmp / "serve.log"
    env = judge_env(tmp, port)
    env.update(extra_env or {})
    proc = start_judge_serve(tmp, env, log_path)
    return proc, port, tmp / "judge.db", log_path


def run_steady(rate: float, seconds: float, connections: int, run: int) -> SteadyResult:
    with tempfile.TemporaryDirectory(prefix="judge-steady-") as tmpdir:
        proc = None
        try:
            proc, port, db, log_path = start_judge(Path(tmpdir))
            return asyncio.run(_steady(port, db, rate, seconds, connections,
                                       f"steady-{os.getpid()}-{run}"))
        finally:
            stop(proc)


@dataclass
class BurstResult:
    bare_rate: float
    judge_rate: float
    e2e_rate: float | None

    @property
    def intake_ratio(self) -> float:
        return self.judge_rate / self.bare_rate

    @property
    def e2e_ratio(self) -> float | None:
        return None if self.e2e_rate is None else self.e2e_rate / self.bare_rate


def run_burst(count: int, connections: int, run: int, timeout: float = 120.0) -> BurstResult:
    with tempfile.TemporaryDirectory(prefix="judge-burst-") as tmpdir:
        tmp = Path(tmpdir)
        bare = proc = None
        try:
            port = free_port()
            bare_log = tmp / "bare.log"
            with open(bare_log, "wb") as log:
                bare = subprocess.Popen([sys.executable, str(Path(__file__).with_name("intake.py")),
                                         "--bare-server", str(port)], stdout=log, stderr=log)
            wait_listening(bare, port, "bare aiosmtpd server", bare_log)
            b = send_all(port, build_messages(count, 1000, "bare"), connections)
            stop(bare)
            proc, port, db, log_path = start_judge(tmp)
            j = send_all(port, build_messages(count, 1000, f"burst-{os.getpid()}-{run}"),
                         connections)
            deadline = time.perf_counter() + timeout
            e2e = None
            while time.perf_counter() < deadline:
                if (sent_count(db) or 0) >= j.ok:
                    e2e = j.ok / (time.perf_counter() - j.started_at)
                    break
                time.sleep(0.02)
            if e2e is None:
                print(f"  burst: only {sent_count(db)} of {j.ok} answered after {timeout:.0f} s")
            return BurstResult(b.ok / b.elapsed, j.ok / j.elapsed, e2e)
        finally:
            stop(bare)
            stop(proc)


def med(values: list[Any]) -> Any:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def measure(rate: float = 100, seconds: float = 20, burst: int = 1200, connections: int = 8,
            runs: int = 3, verbose: bool = True) -> dict[str, Any]:
    steady, bursts = [], []
    for run in range(runs):
        s = run_steady(rate, seconds, connections, run)
        b = run_burst(burst, connections, run)
        steady.append(s)
        bursts.append(b)
        if verbose:
            e2e = f"{b.e2e_ratio:.2f}x" if b.e2e_ratio is not None else "n/a"
            print(f"  run {run + 1}: steady {s.answered_5s}/{s.accepted} answered within 5 s "
                  f"({s.share * 100:.1f} %), max backlog {s.max_backlog}, "
                  f"{s.answer_rate:.1f} replies/s while offered, client lag max "
                  f"{s.send_lag_max:.2f} s; burst bare {b.bare_rate:.0f}/s, judge "
                  f"{b.judge_rate:.0f}/s ({b.intake_ratio:.2f}x), end to end {e2e}")
    return dict(
        share=med([s.share for s in steady]),
        max_backlog=med([s.max_backlog for s in steady]),
        answer_rate=med([s.answer_rate for s in steady]),
        intake_ratio=med([b.intake_ratio for b in bursts]),
        e2e_ratio=med([b.e2e_ratio for b in bursts]),
        bare_rate=med([b.bare_rate for b in bursts]),
        judge_rate=med([b.judge_rate for b in bursts]),
    )


def report(f: dict[str, Any], rate: float, seconds: float, burst: int, runs: int) -> None:
    print(f"steady {rate:.0f} mails/s for {seconds:.0f} s: {f['share'] * 100:.1f} % answered "
          f"within 5 s of the last send (target >= 95 %), max backlog {f['max_backlog']:.0f}, "
          f"{f['answer_rate']:.1f} replies/s while offered   [median of {runs}]")
    e2e = f"{f['e2e_ratio']:.2f}x" if f["e2e_ratio"] is not None else "not finished"
    print(f"burst {burst}: durable intake {f['judge_rate']:.0f}/s = {f['intake_ratio']:.2f}x "
          f"bare ({f['bare_rate']:.0f}/s; target >= 0.5x), answered end to end at {e2e} the "
          f"bare accept rate (target >= 0.2x)   [median of {runs}]")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--burst", type=int, default=1200)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(f"judge steady load and burst, {os.cpu_count()} CPUs, {args.connections} SMTP sessions")
    f = measure(args.rate, args.seconds, args.burst, args.connections, args.runs)
    report(f, args.rate, args.seconds, args.burst, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
