"""The web view's HTTP server in its own process: how many connections, and for how long.

Anyone can open connections to the web view and keep them open: without limits a few hundred
slow or silent sockets held every descriptor there was.  :class:`ConnectionGuard` is the
server's protocol factory, wrapped around aiohttp's own: beyond ``[web] max_connections`` open
connections a new one is answered ``503`` and closed, and each connection is timed:

* a request's head (request line and headers) must arrive within ``[web] header_timeout`` of the
  connection, or of its first byte after the last answer: a client sending a header line every
  few seconds is cut off, and so is one that sends nothing at all;
* reading its body and writing its answer may take ``[web] request_timeout``;
* between requests a kept-alive connection may stay silent ``[web] idle_timeout`` (aiohttp's
  keep-alive timeout, which it also counts from the connection's start).

The cap is fitted to the process's open-files limit, as intake's is to the daemon's.  The
process ends when its socket pair to the daemon closes (the daemon is gone) or at SIGTERM.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import signal
import socket
from typing import Any, Callable

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from judge.basics.config import Config
from judge.store.db import Store

log = logging.getLogger("judge.web")

# Descriptors the web process needs besides its connections: the database (each thread's
# connection holds three on SQLite), the log, the loop's own.
FILES_IN_RESERVE = 64
# Connections accepted at a time, before the cap is asked about them (asyncio accepts a batch
# each time the socket is ready, and may accept another before the first has been seen).
ACCEPT_BATCH = 16
# A refused connection is told 503 and closed once its request has come in (a close with its
# request unread would reset the connection, and the client might never read the 503), or
# after BUSY_LINGER seconds; no more than BUSY_LINGERING wait so at once.
BUSY_LINGER = 1.0
BUSY_LINGERING = 16
# aiohttp's limits on a request's head: a browser sends a dozen headers (the pass cookies of
# many private games in one); the head of one connection never holds more than ~256 KiB.
MAX_HEADERS = 32
# How long answers in progress may take to finish at a stop.
SHUTDOWN_SECONDS = 2.0


class _Busy(asyncio.Protocol):
    """Says 503 and hangs up: the answer to a connection beyond the cap."""

    def __init__(self, guard: "ConnectionGuard") -> None:
        self.guard = guard
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.guard.busy_answer)
        if len(self.guard.lingering) >= BUSY_LINGERING:
            transport.close()
            return
        self.guard.lingering.add(self)
        self.timer = asyncio.get_running_loop().call_later(BUSY_LINGER, transport.abort)

    def data_received(self, data: bytes) -> None:
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.lingering.discard(self)
        if self.timer is not None:
            self.timer.cancel()


class _Connection(asyncio.Protocol):
    """One web connection: aiohttp's protocol inside, the time limits around it."""

    def __init__(self, guard: "ConnectionGuard", inner: RequestHandler) -> None:
        self.guard = guard
        self.inner = inner
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.idle = False  # between answer and request: the next byte starts a head

    def _time(self, seconds: float, what: str) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = asyncio.get_running_loop().call_later(seconds, self._expire, what)

    def _expire(self, what: str) -> None:
        log.debug("closed a web connection: %s took too long", what)
        if self.transport is not None:
            self.transport.abort()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self._time(self.guard.header_timeout, "a request's head")
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.idle:
            self.idle = False
            self._time(self.guard.header_timeout, "a request's head")
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        self.inner.eof_received()
        return None  # aiohttp's: the transport closes itself

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.open.pop(self.inner, None)
        if self.timer is not None:
            self.timer.cancel()
        self.inner.connection_lost(exc)

    def request_started(self) -> None:
        self.idle = False
        self._time(self.guard.request_timeout, "a request's body or its answer")

    def request_ended(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.idle = True  # aiohttp's keep-alive timeout watches the silence from here


class ConnectionGuard:
    """The server's protocol factory: caps the connections open at once and times each."""

    def __init__(self, *, max_connections: int, header_timeout: float,
                 request_timeout: float, busy_answer: bytes) -> None:
        # aiohttp's protocol factory, once its runner is set up
        self.server: Callable[[], RequestHandler] | None = None
        self.max_connections = max_connections
        self.header_timeout = header_timeout
        self.request_timeout = request_timeout
        self.busy_answer = busy_answer
        self.open: dict[RequestHandler, _Connection] = {}
        self.lingering: set[_Busy] = set()

    def __call__(self) -> asyncio.Protocol:
        if len(self.open) >= self.max_connections:
            # No peer in the line: identical lines are rate-limited in the log (judge.basics.logs).
            log.warning("refused a web connection: %d open, the most [web] max_connections "
                        "allows", len(self.open))
            return _Busy(self)
        assert self.server is not None
        inner = self.server()
        # counted from now: asyncio may make several protocols before any is connected
        connection = self.open[inner] = _Connection(self, inner)
        return connection

    @web.middleware
    async def timing(self, request: web.Request, handler: Callable[..., Any]
                     ) -> web.StreamResponse:
        """Tells the connection when its request has come in and when it is answered."""
        connection = self.open.get(request.protocol)
        task = asyncio.current_task()
        if connection is not None and task is not None:
            connection.request_started()
            task.add_done_callback(lambda _: connection.request_ended())
        return await handler(request)

    def fit_to_files(self) -> None:
        """Keep the cap below the open-files limit: past it, accept() fails in a loop instead
        of the client being told 503."""
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return
        room = max(1, soft - FILES_IN_RESERVE - 2 * ACCEPT_BATCH - BUSY_LINGERING)
        if room < self.max_connections:
            self.max_connections = room
            log.warning("[web] max_connections lowered to %d: the web process may open only %d "
                        "files (raise LimitNOFILE= in the systemd unit)", room, soft)


async def serve_web(config: Config, listening: socket.socket, parent: socket.socket,
                    backlog: int) -> None:
    """Serve the web view on ``listening`` (whose listen queue is ``backlog`` long) until
    SIGTERM, or until the daemon is gone."""
    from judge.web.app import WebView

    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    parent.setblocking(False)
    loop.add_reader(parent.fileno(), _watch_parent, parent, stopping)
    store = Store(config.database.url)
    view = WebView(store, config, config.web.keep_seconds)
    app = view.application()
    runner = web.AppRunner(app, access_log=None, keepalive_timeout=config.web.idle_timeout,
                           max_headers=MAX_HEADERS, shutdown_timeout=SHUTDOWN_SECONDS)
    guard = ConnectionGuard(max_connections=config.web.max_connections,
                            header_timeout=config.web.header_timeout,
                            request_timeout=config.web.request_timeout,
                            busy_answer=busy_answer(view.busy_text()))
    app.middlewares.insert(0, guard.timing)
    guard.fit_to_files()
    await runner.setup()
    guard.server = runner.server
    server = await loop.create_server(guard, sock=listening, backlog=ACCEPT_BATCH)
    # asyncio takes its batch from the backlog and listens with it too: the kernel's queue
    # stays the one the daemon gave (connections made at once wait there, not refused)
    listening.listen(backlog)
    log.info("web view serving (pid %d)", os.getpid())
    await stopping.wait()
    server.close()
    await runner.cleanup()
    view.close()
    store.dispose()


def busy_answer(text: str) -> bytes:
    """The whole HTTP answer a connection beyond the cap gets (it is not aiohttp's)."""
    body = text.encode()
    return (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
            b"Content-Length: %d\r\nRetry-After: 5\r\nConnection: close\r\n\r\n"
            % len(body)) + body


def _watch_parent(parent: socket.socket, stopping: asyncio.Event) -> None:
    try:
        data = parent.recv(64)
    except (BlockingIOError, InterruptedError):
        return
    except OSError:
        data = b""
    if not data:
        # The daemon is gone without stopping us: stop too (die_with_parent also kills us).
        asyncio.get_running_loop().remove_reader(parent.fileno())
        stopping.set()
