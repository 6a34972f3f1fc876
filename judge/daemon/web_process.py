"""The web view's own process, a child of the daemon: started, watched and stopped from here.

The daemon opens the web view's listening socket (``[web] listen``) and hands it to a child
process that serves it (judge.web.server), a step below the worker process's CPU priority.  Apart, the web
can take neither CPU time, nor memory, nor file descriptors from SMTP intake: a flood of pages,
map pictures or slow connections is the web process's business, and the kernel gives the
daemon the CPU first.  The socket stays the daemon's while the child runs, so a web process
that ends (it should not) is started again without the port ever being free: connections made
meanwhile wait in the listen queue.

The child is spawned, not forked: it starts with a fresh interpreter and holds no descriptor of
the daemon's but the two it is given (the listening socket and its socket pair, whose closing
tells it that the daemon is gone).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from multiprocessing.process import BaseProcess

from judge.daemon.children import end_child, start_child
from judge.basics.config import Config

log = logging.getLogger("judge.daemon")

# How many connections the listening socket queues while the web process is busy (or starting).
BACKLOG = 128


def listening_socket(config: Config) -> socket.socket | None:
    """The web view's listening socket on ``[web] listen`` (None when it is empty); OSError
    when it cannot be opened."""
    where = config.web_address
    if where is None:
        return None
    sock = socket.create_server(where, backlog=BACKLOG, reuse_port=False,
                                family=socket.AF_INET6 if ":" in where[0] else socket.AF_INET)
    sock.setblocking(False)
    return sock


class WebProcess:
    """The daemon's handle on the web view's process: start, restart, stop."""

    def __init__(self, config: Config, verbose: bool, listening: socket.socket) -> None:
        self.config = config
        self.verbose = verbose
        self.listening = listening
        self.process: BaseProcess | None = None
        self._sock: socket.socket | None = None

    def start(self) -> None:
        self.close()
        self.process, self._sock = start_child(main, "judge web", (self.config, self.verbose,
                                                                   self.listening), fork=False)
        log.info("web view process started (pid %s)", self.process.pid)

    async def ended(self) -> int | None:
        """Wait until the process ends; its exit code."""
        assert self.process is not None
        process = self.process
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        loop.add_reader(process.sentinel, done.set)
        try:
            await done.wait()
        finally:
            loop.remove_reader(process.sentinel)
        process.join()
        return process.exitcode

    async def stop(self, grace: float) -> None:
        """Ask the process to finish the answers in hand and end; kill it after ``grace``."""
        await asyncio.get_running_loop().run_in_executor(None, end_child, self.process, grace,
                                                         "web view")
        self.close()

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def run_below_worker_process(niceness: int) -> None:
    """This process's CPU priority: a step below the worker process's (``[worker] niceness``),
    so that a flood of pages takes CPU from neither intake nor the worker and the sender.
    Below nice 19 there is only Linux's idle scheduling (the CPU when nobody else wants it)."""
    from judge.daemon.children import lower_priority

    if niceness < 19:
        lower_priority(niceness + 1)
        return
    lower_priority(19)
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        pass  # not Linux: nice 19, as the worker process


def main(config: Config, verbose: bool, listening: socket.socket, sock: socket.socket) -> None:
    """The process's entry point (started by :class:`WebProcess`)."""
    from judge.daemon.children import die_with_parent
    from judge.basics.logs import setup_logging

    die_with_parent()
    os.environ.pop("NOTIFY_SOCKET", None)  # systemd hears from the daemon only
    setup_logging(verbose)
    run_below_worker_process(config.worker.niceness)  # before any thread: they inherit it
    from judge.web.server import serve_web

    try:
        asyncio.run(serve_web(config, listening, sock, BACKLOG))
    except KeyboardInterrupt:  # pragma: no cover - SIGINT before the handlers are set
        pass
