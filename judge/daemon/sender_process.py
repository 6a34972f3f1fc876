"""The sender's own process, a child of the worker process.

The worker process (judge.daemon.worker_process) runs the worker and the scheduler; the sender
(judge.mail.sending.sender) runs here, in a process of its own, so the two never take turns at one
interpreter.  In one process they did: CPython runs one thread at a time, the sender gives the
interpreter up at every write (a Maildir file, a relay's socket) and had to win it back from a
busy worker, and the worker had to pause after each batch to let it catch up.  Apart, the
worker has a core to itself once a burst of mail has been accepted, and the sender the other.

The socket pair between the two carries a byte from the worker process whenever the worker queued
mail (so the sender starts at once rather than at its next poll), and from here a line with
the number of mails handled so far, after every batch and at least every ``REPORT_SECONDS``:
the worker process passes it on in its own report to the daemon, whose watchdog sees a sender
that stopped coming round.  This process dies with the worker process (and so with the daemon),
and the worker process starts it again when it ends on its own.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import socket
import time
from multiprocessing.process import BaseProcess

from judge.daemon.children import die_with_parent, end_child, receive, start_child
from judge.basics.config import Config

log = logging.getLogger("judge.sender")

REPORT_SECONDS = 0.25
SEND_BATCH = 32  # mails claimed at a time (and marked sent a few at a time)
WAKE = b"w"


class SenderProcess:
    """The worker process's handle on the sender's process."""

    def __init__(self, config: Config, verbose: bool) -> None:
        self.config = config
        self.verbose = verbose
        self.process: BaseProcess | None = None
        self.sock: socket.socket | None = None
        self.handled = 0  # mails handled by this process and the ones before it
        self._counted = 0  # of those, by the ones before it
        self.reported_at: float | None = None  # time.monotonic() of its last report
        self._buffer = b""

    def launch(self, fork: bool) -> None:
        """Start the process: forked while the worker process has no thread yet (it then starts
        at once with what was imported), spawned afterwards (a fork would copy locks that
        threads may hold)."""
        self.process, self.sock = start_child(main, "judge sender", (self.config, self.verbose),
                                              fork)
        self._buffer = b""
        self._counted = self.handled
        self.reported_at = time.monotonic()
        log.info("sender started (pid %s)", self.process.pid)

    def wake(self) -> None:
        """Tell the sender that mail is waiting; never blocks."""
        if self.sock is None:
            return
        try:
            self.sock.send(WAKE)
        except OSError:
            pass  # a full buffer (wake-ups are waiting already), or the process is gone

    def read(self) -> bool:
        """Take in what the sender reported; False when it is gone."""
        assert self.sock is not None
        data = receive(self.sock)
        if data is None:
            return True
        if not data:
            return False
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines[-1:]:  # only the newest count matters
            if line.isdigit():
                self.handled = self._counted + int(line)
                self.reported_at = time.monotonic()
        return True

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def stop(self, grace: float) -> None:
        """Ask the process to finish the batch in hand and end; kill it after ``grace``.
        (Blocks: the worker process runs it in a thread.)"""
        end_child(self.process, grace, "sender")

def main(config: Config, verbose: bool, sock: socket.socket) -> None:
    """The process's entry point (started by :class:`SenderProcess`)."""
    from judge.basics.logs import setup_logging

    die_with_parent()
    setup_logging(verbose)
    Sender(config, sock).run()


class Sender:
    """The sender's loop: deliver what is due, report, wait for a wake-up or the next poll."""

    def __init__(self, config: Config, sock: socket.socket) -> None:
        from judge.mail.sending.submission import transport_for
        from judge.store.db import Store

        self.config = config
        self.sock = sock
        sock.setblocking(False)
        # Asks for SQLite's write lock every half millisecond: the worker's transactions come
        # back to back, and SQLite's own waits (up to 100 ms a try) almost never fell in the
        # gaps between them, so replies went out only once a backlog was worked off.
        self.store = Store(config.database.url, polls_for_lock=True)
        self.transport = transport_for(config)
        self.handled = 0
        self.stopping = False
        # A signal wakes the wait below at once (the handler only sets a flag).
        self._signals, signalled = os.pipe()
        os.set_blocking(signalled, False)
        signal.set_wakeup_fd(signalled)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._stop)

    def _stop(self, signum: int, frame: object) -> None:
        self.stopping = True

    def run(self) -> None:
        from judge.mail.sending.sender import deliver_batch
        from judge.store.leases import release_dead_leases

        with self.store.transaction() as session:
            # Mail an earlier sender had claimed when it died goes out now, not in minutes.
            release_dead_leases(session)
        log.info("sender running (pid %d)", os.getpid())
        try:
            while not self.stopping:
                try:
                    done = deliver_batch(self.store, self.transport, self.config, SEND_BATCH)
                except Exception:
                    # The database or the relay went away, say: try again after a pause.
                    log.exception("sender failed; will try again")
                    done = 0
                self.handled += done
                self._report()
                if done:
                    continue  # more may be due
                self.transport.close()  # the relay's QUIT, after every mail was recorded
                self._wait(self.config.worker.poll_seconds)
        finally:
            self.transport.close()
            self.store.dispose()
            self._report()

    def _wait(self, seconds: float) -> None:
        """Until woken, stopped, or ``seconds`` have passed; reporting all the while."""
        until = time.monotonic() + seconds
        while not self.stopping:
            left = until - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self.sock.fileno(), self._signals], [], [],
                                        min(left, REPORT_SECONDS))
            if self.sock.fileno() in ready:
                data = receive(self.sock)
                if data == b"" and not self.stopping:
                    # The worker process is gone without stopping us: end as it did, at once.
                    log.error("the worker process is gone; the sender ends with it")
                    os._exit(1)
                return  # woken: mail is waiting
            if self._signals in ready:
                os.read(self._signals, 512)
            self._report()

    def _report(self) -> None:
        try:
            self.sock.send(f"{self.handled}\n".encode())
        except OSError:
            pass  # a full buffer (the worker process is busy; the next report will do)

