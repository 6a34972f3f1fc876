#!/usr/bin/env python3
"""Web view benchmark: server time per page with many games stored.

Usage::

    .venv/bin/python benchmarks/web_pages.py [--games 10000] [--rounds 200]

A fresh SQLite store gets ``--games`` active games (standard board, seven players each; one
in ten has a phase played, by the real phase processing with civil-disorder defaults) and one
game, ``bench``, with 20 phases played and 60 press messages.  The web view (judge.web) is
served by aiohttp in this process and read over HTTP with keep-alive; for each page it prints
the *server time* (from the request reaching the application to the answer being ready:
database reads and rendering in the executor included, network excluded), median and 95th
percentile over ``--rounds`` requests, and the size of the answer.  It also prints the time
of a revalidation (``If-None-Match`` → 304) and of a map picture drawn cold and from cache.

Not part of the test run; prints figures and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import socket
import statistics
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from aiohttp import web as aioweb
from sqlalchemy import insert, select

from judge.basics.utc import utcnow
from judge.basics.config import Config
from judge.core import initial_position, load_map
from judge.service.processing import process_phase
from judge.service.positions import dump_position
from judge.store.db import Store
from judge.store.models import Game, Press, Seat
from judge.store.schema import ensure_schema
from judge.web.app import WebView

FAKE_HASH = "scrypt$16384$8$1$AAAA$AAAA"  # never checked here
POWERS = list(load_map().powers)


def build(path: Path, games: int) -> Store:
    store = Store(f"sqlite:///{path}")
    ensure_schema(store.engine)
    position = dump_position(initial_position(load_map()))
    now = utcnow()
    names = ["bench", *(f"g{i:05d}" for i in range(games - 1))]
    with store.transaction() as s:
        s.execute(insert(Game), [dict(
            id=i + 1, name=name, name_key=name, variant="standard", state="active",
            phase="S1901M", position=position, rules="" if i % 3 else "CIVIL_DISORDER",
            movement_seconds=86400, retreat_seconds=86400, adjustment_seconds=86400,
            grace_seconds=0, clock_stage=0, deadline=now + timedelta(days=1),
            reminder_at=now, version=0, created_at=now, next_event_at=now + timedelta(days=1))
            for i, name in enumerate(names)])
        s.execute(insert(Seat), [dict(
            game_id=g + 1, kind="power", power=power, address=f"p{g}-{power}@example.org",
            password_hash=FAKE_HASH, wait=False, orders="{}", status="active", joined_at=now,
            confirmed_at=now)
            for g in range(len(names)) for power in POWERS])
        s.execute(insert(Seat), [dict(
            game_id=g + 1, kind="master", power=None, address=f"gm{g}@example.org",
            password_hash=FAKE_HASH, wait=False, orders="{}", status="active", joined_at=now,
            confirmed_at=now)
            for g in range(len(names))])
    played = [1, *range(2, len(names) + 1, 10)]
    for game_id in played:
        for _ in range(20 if game_id == 1 else 1):
            with store.transaction() as s:
                game = s.get(Game, game_id)
                assert game is not None
                process_phase(s, game, utcnow(), "benchmark")
    with store.transaction() as s:
        bench = s.scalars(select(Game).where(Game.name_key == "bench")).one()
        s.execute(insert(Press), [dict(
            game_id=1, phase=bench.phase, sender=POWERS[i % 7], recipients=" ".join(POWERS),
            broadcast=i % 2 == 0, grey=i % 5 == 0, body=f"Press number {i}.\n" * 5,
            sent_at=now) for i in range(60)])
    return store


class Timed:
    """Serves the web view in a thread and records the server time of each request."""

    def __init__(self, store: Store, port: int) -> None:
        self.times: list[float] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        app = WebView(store, Config(), recent_seconds=0).application()

        @aioweb.middleware
        async def clock(request: aioweb.Request, handler: Any) -> aioweb.StreamResponse:
            start = time.perf_counter()
            response = await handler(request)
            self.times.append(time.perf_counter() - start)
            return response

        app.middlewares.insert(0, clock)
        self.runner = aioweb.AppRunner(app, access_log=None)

        async def start() -> None:
            await self.runner.setup()
            await aioweb.TCPSite(self.runner, "127.0.0.1", port).start()
        asyncio.run_coroutine_threadsafe(start(), self.loop).result(30)
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def get(self, path: str, **headers: str) -> tuple[int, bytes, str]:
        self.conn.request("GET", path, headers=headers)
        r = self.conn.getresponse()
        return r.status, r.read(), r.headers.get("ETag", "")

    def close(self) -> None:
        self.conn.close()
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measure(server: Timed, path: str, rounds: int, **headers: str) -> tuple[float, float, int,
                                                                             int]:
    server.get(path, **headers)  # warm: templates compiled, map drawn once
    server.times.clear()
    size = status = 0
    for _ in range(rounds):
        status, body, _ = server.get(path, **headers)
        size = len(body)
    ms = sorted(t * 1000 for t in server.times)
    return statistics.median(ms), ms[int(len(ms) * 0.95) - 1], size, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        store = build(Path(tmp) / "judge.db", args.games)
        print(f"{args.games} games stored in {time.perf_counter() - started:.1f} s "
              f"(SQLite, {Path(tmp, 'judge.db').stat().st_size / 1e6:.0f} MB)")
        server = Timed(store, free_port())
        try:
            last_page = (args.games + 49) // 50
            pages = [("game list, first page", "/"),
                     (f"game list, page {last_page}", f"/?page={last_page}&tz=Europe/Paris"),
                     ("game page (20 phases, 60 press)", "/games/bench"),
                     ("game page (1 phase)", "/games/g00010"),
                     ("earlier phase", "/games/bench/phases/S1901M"),
                     ("standings: no such tournament (404)", "/tournaments/none"),
                     ("API: games", "/api/v1/games"),
                     ("API: one game", "/api/v1/games/bench"),
                     ("API: one phase", "/api/v1/games/bench/phases/F1901M"),
                     ("map picture, from cache", "/games/bench/map.png")]
            print(f"\nserver time per request, {args.rounds} requests each:")
            print(f"  {'page':40} {'median':>9} {'p95':>9} {'bytes':>8}")
            worst = 0.0
            for label, path in pages:
                median, p95, size, status = measure(server, path, args.rounds)
                worst = max(worst, p95) if "map" not in label else worst
                print(f"  {label:40} {median:7.2f}ms {p95:7.2f}ms {size:8d}  ({status})")
            _, _, etag = server.get("/games/bench")
            median, p95, _, status = measure(server, "/games/bench", args.rounds,
                                             **{"If-None-Match": etag})
            print(f"  {'game page revalidated (If-None-Match)':40} {median:7.2f}ms "
                  f"{p95:7.2f}ms {0:8d}  ({status})")
            _, _, etag = server.get("/games/bench/map.png")
            median, p95, _, status = measure(server, "/games/bench/map.png", args.rounds,
                                             **{"If-None-Match": etag})
            print(f"  {'map revalidated (If-None-Match)':40} {median:7.2f}ms {p95:7.2f}ms "
                  f"{0:8d}  ({status})")
            cold = []
            for phase in ("S1902M", "F1902M", "S1903M", "F1903M", "S1904M"):
                server.times.clear()
                server.get(f"/games/bench/phases/{phase}/map.png")
                cold.append(server.times[-1] * 1000)
            print(f"  {'map picture drawn cold':40} {statistics.median(cold):7.2f}ms")
            print(f"\nworst p95 of the pages and the API: {worst:.2f} ms "
                  f"({'within' if worst <= 20 else 'OVER'} the 20 ms budget)")
        finally:
            server.close()
            store.dispose()


if __name__ == "__main__":
    main()
