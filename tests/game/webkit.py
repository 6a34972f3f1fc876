"""Web test kit: the judge's web view (judge.web) served from a real store, over real HTTP.

The game is played by mail through the real pipeline (gamekit); the web view reads the same
store, served by aiohttp on a free port from an event loop in a thread of its own, and the
tests read it with a plain HTTP client that follows no redirect (so passes and 303s show).
"""

from __future__ import annotations

import asyncio
import http.client
import threading
from dataclasses import dataclass, field
from typing import Any, Iterator
from urllib.parse import urlencode

import pytest
from aiohttp import web as aioweb

from conftest import free_port
from gamekit import Judge, start_full_game
from judge.web.app import WebView

MASTER = "master@example.org"
G = "war1901"

# A spring with a bounce (Galicia), a fleet to the Black Sea bounced, Burgundy taken.
SPRING_ORDERS = {
    "AUSTRIA": ["A VIE-GAL", "A BUD-SER", "F TRI-ALB"],
    "ENGLAND": ["F LON-NTH", "F EDI-NWG", "A LVP-YOR"],
    "FRANCE": ["A PAR-BUR", "A MAR-SPA", "F BRE-MAO"],
    "GERMANY": ["A BER-KIE", "A MUN-RUH", "F KIE-DEN"],
    "ITALY": ["A ROM-APU", "A VEN H", "F NAP-ION"],
    "RUSSIA": ["A MOS-UKR", "A WAR-GAL", "F SEV-BLA", "F STP/SC-BOT"],
    "TURKEY": ["F ANK-BLA", "A CON-BUL", "A SMY-ARM"],
}


@dataclass
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


@dataclass
class Web:
    """The web view of ``judge`` at ``http://127.0.0.1:<port>``."""

    judge: Judge
    port: int
    # (path, status) of every request served, in order: what a browser fetched
    served: list[tuple[str, int]] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            r = conn.getresponse()
            return Reply(r.status, r.headers, r.read())
        finally:
            conn.close()

    def get(self, path: str, **headers: str) -> Reply:
        return self.request("GET", path, headers={k.replace("_", "-"): v
                                                  for k, v in headers.items()})

    def post_form(self, path: str, form: dict[str, str], **headers: str) -> Reply:
        return self.request("POST", path, urlencode(form).encode(), {
            "Content-Type": "application/x-www-form-urlencoded",
            **{k.replace("_", "-"): v for k, v in headers.items()}})


def serve_in_thread(view: WebView, port: int,
                    served: list[tuple[str, int]]) -> Iterator[None]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    app = view.application()

    @aioweb.middleware
    async def record(request: aioweb.Request, handler: Any) -> aioweb.StreamResponse:
        response = await handler(request)
        served.append((request.path_qs, response.status))
        return response

    app.middlewares.insert(0, record)
    runner = aioweb.AppRunner(app, access_log=None)

    async def start() -> None:
        await runner.setup()
        await aioweb.TCPSite(runner, "127.0.0.1", port).start()

    asyncio.run_coroutine_threadsafe(start(), loop).result(20)
    try:
        yield
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(20)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@pytest.fixture
def web(judge_in_process: Judge) -> Iterator[Web]:
    """The web view of the in-process judge, keeping no page (every answer is fresh; the
    keeping of public pages has a test of its own)."""
    port = free_port()
    view = WebView(judge_in_process.store, judge_in_process.config, recent_seconds=0)
    web = Web(judge_in_process, port)
    for _ in serve_in_thread(view, port, web.served):
        yield web


def signon(j: Judge, power: str, game: str = G) -> str:
    return f"SIGNON {power[0]}{game} {j.passwords[power]}"


def play_spring(j: Judge, assigned: dict[str, str], game: str = G) -> None:
    """Every power orders S1901M by mail; the last complete set processes it."""
    for power, lines in SPRING_ORDERS.items():
        reply = j.mail(assigned[power], signon(j, power, game) + "\n" + "\n".join(lines))
        assert "Error" not in reply.body, reply.body
    assert any(f"{game} - S1901M Results" in m.subject for m in j.last_broadcasts)


def game_played_by_mail(j: Judge, game: str = G, extra: str = "") -> dict[str, str]:
    """A game started by mail with its first phase played; returns power → address."""
    assigned = start_full_game(j, game, extra)
    play_spring(j, assigned, game)
    return assigned
