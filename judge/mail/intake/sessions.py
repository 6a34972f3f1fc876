"""SMTP/LMTP sessions: how many may be open at once, and for how long.

Anyone on the network can open connections and keep them open.  Without limits a few hundred
idle sockets hold every file descriptor the process has, and a client that sends a NOOP now and
then keeps its session for ever (aiosmtpd's timeout only measures the time between two
commands).  :class:`SessionLimits` is the server's protocol factory: beyond
``[intake] max_connections`` open sessions a new connection is answered ``421`` and closed at
once, and every session is closed with a ``421`` after ``[intake] session_timeout`` seconds
(not while its message is being stored: that one still gets its answer).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Callable

from aiosmtpd.smtp import SMTP

log = logging.getLogger("judge.intake")

# How much longer a session whose time is up may run while its message is being stored.
STORING_GRACE = 1.0


class _Refuse(asyncio.Protocol):
    """Says one line and hangs up: the answer to a connection beyond the limit."""

    def __init__(self, line: bytes) -> None:
        self.line = line

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(self.line)
        transport.close()


class SessionLimits:
    """The server's protocol factory: caps concurrent sessions and the length of each."""

    def __init__(self, factory: Callable[[], SMTP], *, hostname: str, max_connections: int,
                 session_timeout: float) -> None:
        self.factory = factory
        self.hostname = hostname
        self.max_connections = max_connections
        self.session_timeout = session_timeout
        self.sessions: set[SMTP] = set()
        self.refused = 0

    def __call__(self) -> asyncio.Protocol:
        if len(self.sessions) >= self.max_connections:
            self.refused += 1
            # No peer in the line: identical lines are rate-limited in the log (judge.basics.logs).
            log.warning("refused a connection: %d sessions open, the most [intake] "
                        "max_connections allows", len(self.sessions))
            return _Refuse(f"421 4.7.0 {self.hostname} too many connections, "
                           "try again later\r\n".encode("ascii", "replace"))
        proto = self.factory()
        self.sessions.add(proto)
        timer: list[asyncio.TimerHandle] = []
        made, lost = proto.connection_made, proto.connection_lost

        def connection_made(transport: asyncio.BaseTransport) -> None:
            loop = asyncio.get_running_loop()
            timer.append(loop.call_later(self.session_timeout, self._expire, proto, timer))
            made(transport)

        def connection_lost(exc: Exception | None) -> None:
            self.sessions.discard(proto)
            for handle in timer:
                handle.cancel()
            lost(exc)

        proto.connection_made = connection_made  # type: ignore[method-assign]
        proto.connection_lost = connection_lost  # type: ignore[method-assign,assignment]
        return proto

    def _expire(self, proto: SMTP, timer: list[asyncio.TimerHandle]) -> None:
        transport = proto.transport
        if transport is None or transport.is_closing():
            return
        if getattr(proto.session, "judge_storing", False):
            timer.append(asyncio.get_running_loop().call_later(STORING_GRACE, self._expire,
                                                               proto, timer))
            return
        log.info("closed a session from %s after %.0f s ([intake] session_timeout)",
                 _host(proto), self.session_timeout)
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(f"421 4.4.2 {self.hostname} session time limit reached, "
                        "closing\r\n".encode("ascii", "replace"))
        transport.close()

    def close_all(self) -> None:
        for proto in list(self.sessions):
            if proto.transport is not None:
                proto.transport.close()


def _host(proto: SMTP) -> str:
    peer = getattr(proto.session, "peer", None)
    return str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
