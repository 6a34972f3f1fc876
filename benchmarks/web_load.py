"""Benchmark: does a busy web view slow down mail intake?

Starts a real ``judge serve`` (SQLite, Maildir) with its web view, then measures how long SMTP
intake takes to accept a mail (connect, MAIL, RCPT, DATA until the 250), one mail every
``1/--mail-rate`` seconds, twice for ``--seconds`` each: once with the web view idle, once while
``--web-rate`` requests a second (open loop, the game list, a game page and the JSON list in
turn) are made to it.  Prints the acceptance time's median and p95 in both, their ratio, and the
web requests answered and their median time.

    python benchmarks/web_load.py [--seconds 60] [--web-rate 200] [--mail-rate 5]
"""

from __future__ import annotations

import argparse
import asyncio
import smtplib
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import aiohttp
from intake import HOST, JUDGE_ADDRESS, free_port, stop
from steady_load import start_judge

PAGES = ("/", "/games/bench", "/api/v1/games")


def mail(n: int, sender: str = "bench@example.org") -> bytes:
    return (f"From: {sender}\r\nTo: {JUDGE_ADDRESS}\r\nSubject: t\r\n"
            f"Message-ID: <web-load-{n}-{time.time_ns()}@example.org>\r\n\r\nVERSION\r\n").encode()


def accept_times(port: int, seconds: float, rate: float, start: int) -> list[float]:
    """Seconds each mail took to be accepted, one every 1/rate s."""
    times: list[float] = []
    due = time.monotonic()
    end = due + seconds
    n = start
    while due < end:
        time.sleep(max(0.0, due - time.monotonic()))
        began = time.perf_counter()
        with smtplib.SMTP(HOST, port, timeout=30) as s:
            s.sendmail("bench@example.org", [JUDGE_ADDRESS], mail(n))
        times.append(time.perf_counter() - began)
        n += 1
        due += 1 / rate
    return times


async def web_load(port: int, seconds: float, rate: float, stop_flag: threading.Event
                   ) -> tuple[int, int, list[float]]:
    """Open-loop requests at ``rate`` a second; (made, answered 200/304, their times)."""
    times: list[float] = []
    made = answered = 0
    base = f"http://{HOST}:{port}"
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as client:
        async def one(path: str) -> None:
            nonlocal answered
            began = time.perf_counter()
            async with client.get(base + path) as r:
                await r.read()
                if r.status in (200, 304):
                    answered += 1
                    times.append(time.perf_counter() - began)
        tasks = []
        loop = asyncio.get_running_loop()
        due = loop.time()
        end = due + seconds
        while due < end and not stop_flag.is_set():
            await asyncio.sleep(max(0.0, due - loop.time()))
            tasks.append(asyncio.ensure_future(one(PAGES[made % len(PAGES)])))
            made += 1
            due += 1 / rate
        await asyncio.gather(*tasks, return_exceptions=True)
    return made, answered, times


def p95(xs: list[float]) -> float:
    return sorted(xs)[int(0.95 * (len(xs) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--web-rate", type=float, default=200)
    parser.add_argument("--mail-rate", type=float, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="judge-web-load-") as tmpdir:
        web_port = free_port()
        proc = None
        try:
            proc, port, _db, _log = start_judge(
                Path(tmpdir), {"JUDGE_WEB_LISTEN": f"{HOST}:{web_port}"})
            with smtplib.SMTP(HOST, port, timeout=30) as s:  # a game for the pages to show
                s.sendmail("gm@example.org", [JUDGE_ADDRESS],
                           mail(0, "gm@example.org").replace(b"VERSION", b"CREATE bench pw"))
            time.sleep(1.0)
            quiet = accept_times(port, args.seconds, args.mail_rate, 1)
            flag = threading.Event()
            result: list[tuple[int, int, list[float]]] = []
            loader = threading.Thread(target=lambda: result.append(asyncio.run(
                web_load(web_port, args.seconds, args.web_rate, flag))))
            loader.start()
            busy = accept_times(port, args.seconds, args.mail_rate, 100_000)
            flag.set()
            loader.join(60)
        finally:
            stop(proc)
    made, answered, web_times = result[0] if result else (0, 0, [])
    q_med, b_med = statistics.median(quiet), statistics.median(busy)
    print(f"judge web load: {args.web_rate:.0f} web requests/s for {args.seconds:.0f} s, "
          f"one mail every {1 / args.mail_rate:.2f} s")
    print(f"  SMTP acceptance, web idle:  median {q_med * 1000:6.2f} ms   p95 "
          f"{p95(quiet) * 1000:6.2f} ms   ({len(quiet)} mails)")
    print(f"  SMTP acceptance, web busy:  median {b_med * 1000:6.2f} ms   p95 "
          f"{p95(busy) * 1000:6.2f} ms   ({len(busy)} mails)")
    print(f"  busy / idle: median {b_med / q_med:.2f}x, p95 {p95(busy) / p95(quiet):.2f}x")
    if web_times:
        print(f"  web: {answered}/{made} requests answered "
              f"({answered / args.seconds:.0f}/s), median {statistics.median(web_times) * 1000:.1f} "
              f"ms, p95 {p95(web_times) * 1000:.1f} ms (client side)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
