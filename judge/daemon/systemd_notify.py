"""systemd's notification protocol (sd_notify), without a dependency.

Under ``Type=notify`` systemd passes ``$NOTIFY_SOCKET``, a datagram socket, and reads lines such
as ``READY=1``, ``WATCHDOG=1``, ``STOPPING=1`` and ``STATUS=…`` from it.  A name starting with
``@`` is in Linux's abstract namespace.  Without the variable every call does nothing, so the
daemon can notify unconditionally.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Mapping

log = logging.getLogger("judge.notify")


def _address(name: str) -> str:
    return "\0" + name[1:] if name.startswith("@") else name


class Notifier:
    """One connection to ``$NOTIFY_SOCKET`` (if set); ``send`` never raises."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.socket_name = env.get("NOTIFY_SOCKET") or None
        self._sock: socket.socket | None = None
        self.watchdog_seconds = _watchdog_seconds(env)

    @property
    def enabled(self) -> bool:
        return self.socket_name is not None

    def send(self, *lines: str) -> bool:
        if self.socket_name is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
                self._sock.connect(_address(self.socket_name))
            self._sock.sendall("\n".join(lines).encode("utf-8"))
            return True
        except OSError as exc:
            log.warning("cannot notify systemd at %s: %s", self.socket_name, exc)
            self.close()
            return False

    def ready(self, status: str) -> bool:
        return self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> bool:
        return self.send(f"STATUS={status}")

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def stopping(self, status: str = "stopping") -> bool:
        return self.send("STOPPING=1", f"STATUS={status}")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def _watchdog_seconds(env: Mapping[str, str]) -> float | None:
    """How often to send WATCHDOG=1: half of ``$WATCHDOG_USEC``, if it is meant for us."""
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    return int(usec) / 1_000_000 / 2
