"""Benchmark: does an attack on the web view slow down mail?

Starts a real ``judge serve`` (SQLite, Maildir, the web view on) with 24 games, then mails it
over SMTP at a steady rate (``--mail-rate`` a second, each from an address of its own) for
``--seconds``, twice: once with the web view quiet, once while a flood runs against it from a
process of its own:

* ``--slow`` connections that each send a header line every 5 s and never end their request;
* map cycling: the 24 games' ``map.png`` asked for in turn, ``--map-clients`` at a time;
* cache-busting: game pages with a made-up query (``?b=<n>``) and a zone of their own,
  ``--page-clients`` at a time.

For each mail it measures the acceptance time (connect to the ``250`` after DATA) and the reply
time (from that ``250`` to the reply's file in the Maildir), and prints their median and p95
quiet and flooded, the ratios, and what the flood got (answers, ``503``s, connections refused).

    python benchmarks/web_flood.py [--seconds 30] [--mail-rate 4] [--slow 300]
"""

from __future__ import annotations

import argparse
import asyncio
import email
import multiprocessing
import os
import smtplib
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from intake import HOST, JUDGE_ADDRESS, free_port, stop
from steady_load import start_judge

GAMES = [f"flood{i:02d}" for i in range(24)]
ZONES = ["Europe/Paris", "Asia/Tokyo", "America/Lima", "+05:30", "-03:00", "UTC", "CET",
         "Africa/Lagos", "Australia/Perth", "Europe/Lisbon"]


def mail(sender: str, msgid: str, body: str) -> bytes:
    return (f"From: {sender}\r\nTo: {JUDGE_ADDRESS}\r\nSubject: t\r\nMessage-ID: {msgid}\r\n"
            f"\r\n{body}\r\n").encode()


class Replies:
    """Watches the Maildir: when the reply to each Message-ID appeared."""

    def __init__(self, maildir: Path) -> None:
        self.new = maildir / "new"
        self.seen: dict[str, float] = {}
        self._files: set[str] = set()
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def _watch(self) -> None:
        while not self.stopping.is_set():
            try:
                names = set(os.listdir(self.new))
            except FileNotFoundError:
                names = set()
            now = time.perf_counter()
            for name in names - self._files:
                self._files.add(name)
                try:
                    msg = email.message_from_bytes((self.new / name).read_bytes())
                except OSError:
                    continue
                if msg["In-Reply-To"]:
                    self.seen.setdefault(str(msg["In-Reply-To"]).strip(), now)
            time.sleep(0.005)


def send_mails(port: int, seconds: float, rate: float, tag: str
               ) -> list[tuple[str, float, float]]:
    """(Message-ID, acceptance seconds, perf_counter at the 250) of each mail."""
    out = []
    due = time.monotonic()
    end = due + seconds
    n = 0
    while due < end:
        time.sleep(max(0.0, due - time.monotonic()))
        msgid = f"<flood-{tag}-{n}-{time.time_ns()}@example.org>"
        began = time.perf_counter()
        with smtplib.SMTP(HOST, port, timeout=60) as s:
            s.sendmail(f"m{tag}{n}@example.org", [JUDGE_ADDRESS],
                       mail(f"m{tag}{n}@example.org", msgid, "VERSION"))
        accepted = time.perf_counter()
        out.append((msgid, accepted - began, accepted))
        n += 1
        due += 1 / rate
    return out


# --------------------------------------------------------------------------- the flood

def flood(web_port: int, seconds: float, slow: int, map_clients: int, page_clients: int,
          nice: int, results: Any) -> None:
    """The attacker, in a process of its own (at ``nice``: a real one is on another machine,
    and takes no CPU from the judge's)."""
    os.nice(nice)
    results.put(asyncio.run(_flood(web_port, seconds, slow, map_clients, page_clients)))


async def _flood(web_port: int, seconds: float, slow: int, map_clients: int,
                 page_clients: int) -> dict[str, int]:
    import aiohttp

    counts = {"answered": 0, "busy": 0, "failed": 0, "slow_open": 0, "slow_closed": 0}
    end = asyncio.get_running_loop().time() + seconds

    async def slow_one(n: int) -> None:
        try:
            reader, writer = await asyncio.open_connection(HOST, web_port)
        except OSError:
            counts["failed"] += 1
            return
        counts["slow_open"] += 1
        writer.write(f"GET /games/{GAMES[n % 24]} HTTP/1.1\r\nHost: x\r\n".encode())
        try:
            while asyncio.get_running_loop().time() < end:
                await asyncio.sleep(5)
                writer.write(b"X-Slow: 1\r\n")
                await writer.drain()
                if reader.at_eof():
                    break
        except (OSError, ConnectionError):
            pass
        counts["slow_closed"] += 1
        writer.close()

    async def asker(session: aiohttp.ClientSession, paths: Any) -> None:
        while asyncio.get_running_loop().time() < end:
            try:
                async with session.get(f"http://{HOST}:{web_port}{next(paths)}") as r:
                    await r.read()
                    counts["answered" if r.status in (200, 304) else
                           "busy" if r.status == 503 else "failed"] += 1
            except (aiohttp.ClientError, OSError, asyncio.TimeoutError):
                counts["failed"] += 1

    def maps() -> Any:
        while True:
            for g in GAMES:
                yield f"/games/{g}/map.png"

    def pages() -> Any:
        n = 0
        while True:
            n += 1
            yield f"/games/{GAMES[n % 24]}?b={n}&tz={ZONES[n % len(ZONES)]}"

    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(timeout=timeout,
                                     connector=aiohttp.TCPConnector(limit=0)) as session:
        map_paths, page_paths = maps(), pages()
        tasks = [asyncio.ensure_future(slow_one(n)) for n in range(slow)]
        tasks += [asyncio.ensure_future(asker(session, map_paths)) for _ in range(map_clients)]
        tasks += [asyncio.ensure_future(asker(session, page_paths))
                  for _ in range(page_clients)]
        await asyncio.gather(*tasks, return_exceptions=True)
    return counts


# --------------------------------------------------------------------------- measuring

def measure(port: int, replies: Replies, seconds: float, rate: float, tag: str
            ) -> tuple[list[float], list[float]]:
    sent = send_mails(port, seconds, rate, tag)
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline and any(m not in replies.seen for m, _, _ in sent):
        time.sleep(0.05)
    accept = [a for _, a, _ in sent]
    reply = [replies.seen[m] - at for m, _, at in sent if m in replies.seen]
    return accept, reply


def p95(xs: list[float]) -> float:
    return sorted(xs)[int(0.95 * (len(xs) - 1))]


def line(what: str, xs: list[float]) -> str:
    return (f"  {what:<28} median {statistics.median(xs) * 1000:8.1f} ms   p95 "
            f"{p95(xs) * 1000:8.1f} ms   ({len(xs)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--mail-rate", type=float, default=4)
    parser.add_argument("--slow", type=int, default=300)
    parser.add_argument("--map-clients", type=int, default=4)
    parser.add_argument("--page-clients", type=int, default=4)
    parser.add_argument("--attacker-nice", type=int, default=0,
                        help="the flooding process's nice increment (0: as the judge's daemon)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="judge-web-flood-") as tmpdir:
        web_port = free_port()
        proc = None
        try:
            proc, port, _db, _log = start_judge(
                Path(tmpdir), {"JUDGE_WEB_LISTEN": f"{HOST}:{web_port}"})
            replies = Replies(Path(tmpdir) / "mail")
            for n in range(3):
                with smtplib.SMTP(HOST, port, timeout=30) as s:
                    s.sendmail(f"gm{n}@example.org", [JUDGE_ADDRESS], mail(
                        f"gm{n}@example.org", f"<setup-{n}@example.org>",
                        "\r\n".join(f"CREATE {g} pw" for g in GAMES[n * 8:n * 8 + 8])))
            for _ in range(600):
                if len(replies.seen) >= 3:
                    break
                time.sleep(0.05)
            with socket.create_connection((HOST, web_port), timeout=30):
                pass
            quiet = measure(port, replies, args.seconds, args.mail_rate, "quiet")
            results: Any = multiprocessing.Queue()
            attacker = multiprocessing.Process(target=flood, args=(
                web_port, args.seconds + 5, args.slow, args.map_clients, args.page_clients,
                args.attacker_nice, results))
            attacker.start()
            time.sleep(5)  # the slow connections open, the caches fill
            flooded = measure(port, replies, args.seconds, args.mail_rate, "flood")
            got = results.get(timeout=120)
            attacker.join(30)
            replies.stopping.set()
        finally:
            stop(proc)
    print(f"judge web flood: {args.slow} slow connections, {args.map_clients} clients cycling "
          f"24 maps, {args.page_clients} clients busting the cache; one mail every "
          f"{1 / args.mail_rate:.2f} s for {args.seconds:.0f} s; the attacker at nice "
          f"{args.attacker_nice}; load average {os.getloadavg()[0]:.1f}")
    for name, (accept, reply) in (("quiet", quiet), ("flooded", flooded)):
        print(line(f"SMTP acceptance, {name}:", accept))
        print(line(f"reply, {name}:", reply))
    median = statistics.median
    print(f"  flooded / quiet: acceptance median {median(flooded[0]) / median(quiet[0]):.2f}x, "
          f"p95 {p95(flooded[0]) / p95(quiet[0]):.2f}x; reply median "
          f"{median(flooded[1]) / median(quiet[1]):.2f}x, p95 "
          f"{p95(flooded[1]) / p95(quiet[1]):.2f}x")
    print(f"  the flood: {got['answered']} answers, {got['busy']} told 503, {got['failed']} "
          f"failed; {got['slow_open']} slow connections opened, {got['slow_closed']} closed "
          "by the judge or at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
