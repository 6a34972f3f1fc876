"""What the daemon's child processes share: starting, stopping, dying with their parent, reading
their socket, and running at the lowest CPU priority.

``judge serve`` runs intake in its own process, the worker process (judge.daemon.worker_process) as its
child, and the sender (judge.daemon.sender_process) as the worker process's child.  Each child talks to
its parent over a socket pair and dies the moment its parent dies, so a killed daemon leaves
nothing running that a restarted one would have to find.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import socket
from multiprocessing.process import BaseProcess
from typing import Any, Callable

log = logging.getLogger("judge.daemon")

def start_child(target: Callable[..., None], name: str, args: tuple[Any, ...],
                fork: bool) -> tuple[BaseProcess, socket.socket]:
    """Start ``target(*args, sock)`` in a child process; the child and this process's end of
    the socket pair between them (non-blocking).  ``fork`` only while this process has no
    thread yet: the child then starts at once with what was imported, where a spawned one
    imports the judge afresh (half a second of CPU); later, spawn: a fork would copy locks that
    threads may hold."""
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    context = multiprocessing.get_context("fork") if fork \
        else multiprocessing.get_context("spawn")
    process = context.Process(target=target, name=name, args=(*args, theirs), daemon=False)
    process.start()
    theirs.close()
    return process, ours


def end_child(process: BaseProcess | None, grace: float, what: str) -> None:
    """Ask ``process`` to finish what it is doing and end (SIGTERM), and wait for it; kill it
    after ``grace`` seconds.  Blocks (an event loop runs it in a thread)."""
    if process is None or process.exitcode is not None:
        return
    process.terminate()
    process.join(grace)
    if process.is_alive():
        log.warning("%s still busy after %.0f s; killing it", what, grace)
        process.kill()
        process.join()


def die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG)."""
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the closed socket still ends this process
    if os.getppid() != parent or parent == 1:  # the parent died before the request took effect
        os._exit(1)


def lower_priority(niceness: int) -> None:
    """Lower this process's CPU priority by ``niceness`` (``[worker] niceness``)."""
    try:
        os.nice(niceness)
    except OSError:
        pass  # not allowed to lower its priority: runs at its parent's


def receive(sock: socket.socket) -> bytes | None:
    """What the other process wrote; b"" when it is gone, None when nothing was there."""
    try:
        return sock.recv(65536)
    except (BlockingIOError, InterruptedError):
        return None
    except OSError:
        return b""
