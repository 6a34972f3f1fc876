"""The daemon's second process: worker, scheduler and retention, and the sender's process.

``judge serve`` runs as three processes.  The first (judge.daemon.intake_process) answers SMTP and serves the
web view; this one, its child, does everything else: it processes stored mail (judge.mail.
worker with the pipeline), runs due game clocks (judge.service.clock.scheduler) and deletes old raw
mail (judge.store.retention), and starts the sender (judge.mail.sending.sender) in a process of its own
(judge.daemon.sender_process), which it wakes when the worker queued mail, watches, and starts again
when it ends.  The processes share nothing but the database and socket pairs.

Why two processes: CPython runs one thread of a process at a time.  With the worker in the
intake's process, a burst of mail was stored at about a third of the rate of a bare aiosmtpd
server, because every millisecond the worker spent was one intake could not; on its own,
intake stores a burst at nearly half of it (benchmarks/steady_load.py).  This process runs at
the lowest CPU priority (``nice`` 19), so when the machine is short of CPU accepting mail comes
first, and when intake is quiet (or busy on one core of two) the worker has a core to itself.
(Measured: at nice 5 a burst was stored at a third of the bare rate, at 19 nearly half; a
steady 100 mails a second is answered in full either way.)

The socket pair carries two things.  Intake writes a byte each time it stored mail, so the
worker starts at once rather than at its next poll (writes are non-blocking: when the buffer is
full, wake-ups are already waiting).  This process writes a report line (JSON) a few times a
second: how many messages it processed, how many mails it handled, and how long ago each of
its loops last came round, which the daemon turns into systemd's watchdog pings and status.
When the socket closes while this process is not stopping, the daemon is gone (killed, say):
this process ends at once too, as if killed with it (it also asks Linux to kill it when its
parent dies), so a restarted daemon finds the same state as after a crash of one process.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import sys
import time
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from typing import Any, Callable

from judge.daemon.children import die_with_parent, end_child, lower_priority, receive, start_child
from judge.basics.config import Config
from judge.daemon.sender_process import SenderProcess
from judge.store.turns import WriteTurns
from judge.basics.utc import utcnow

log = logging.getLogger("judge.worker_process")

# How often this process reports to the daemon.
REPORT_SECONDS = 0.25
# Each worker step is a batch: WORK_BATCH messages claimed in one transaction and finished in
# write transactions of about WORK_SECONDS (one disk flush for many messages, and the write
# lock never held long).
WORK_BATCH = 32
WORK_SECONDS = 0.05
# A sender that ends on its own is started again once it has been gone this long, but not
# more often than once a SENDER_RESTART_SECONDS.
SENDER_GONE_SECONDS = 0.5
SENDER_RESTART_SECONDS = 1.0
WAKE = b"w"  # intake stored mail (and, having committed, gives the write lock back)
ASK_LOCK = b"L"  # intake waits for SQLite's write lock (judge.store.turns)


# --------------------------------------------------------------------------- daemon side

@dataclass
class Report:
    """The latest report of the worker process, as the daemon holds it."""

    processed: int = 0
    sent: int = 0
    ages: dict[str, float] = field(default_factory=dict)  # loop name → seconds since it ran
    at: float | None = None  # event-loop time of the report (None: none yet)


class WorkerProcess:
    """The daemon's handle on its second process: start, wake, read reports, restart, stop."""

    def __init__(self, config: Config, verbose: bool) -> None:
        self.config = config
        self.verbose = verbose
        self.report = Report()
        self.running = asyncio.Event()  # set by the first report of a process started
        self.process: BaseProcess | None = None
        self._sock: socket.socket | None = None
        self._buffer = b""
        self._counted = (0, 0)  # processed and sent by processes that have ended
        self.started_at = 0.0

    def launch(self, fork: bool = False) -> None:
        """Start the process: forked only while the daemon has no thread yet, before its event
        loop runs (judge.daemon.children.start_child)."""
        self.process, self._sock = start_child(main, "judge worker process",
                                               (self.config, self.verbose), fork)
        self._buffer = b""
        self.report = Report(*self._counted)
        self.running.clear()

    def attach(self) -> None:
        """Read the launched process's reports on the running event loop."""
        assert self._sock is not None and self.process is not None
        loop = asyncio.get_running_loop()
        self.started_at = loop.time()
        loop.add_reader(self._sock.fileno(), self._read)
        log.info("worker process started (pid %s)", self.process.pid)

    def start(self) -> None:
        """Start the process again, from the running event loop."""
        self.launch()
        self.attach()

    def wake(self) -> None:
        """Tell the worker that mail is waiting; never blocks."""
        self._send(WAKE)

    def ask_lock(self) -> None:
        """Ask the worker to let intake commit first; never blocks."""
        self._send(ASK_LOCK)

    def _send(self, what: bytes) -> None:
        if self._sock is None:
            return
        try:
            self._sock.send(what)
        except (BlockingIOError, InterruptedError):
            pass  # the buffer is full of wake-ups already
        except OSError:
            pass  # the process is gone; the supervisor starts it again

    def _read(self) -> None:
        assert self._sock is not None
        data = receive(self._sock)
        if data is None:
            return
        if not data:
            self._close_socket()
            return
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines[-1:]:  # only the newest report matters
            self._take(line)

    def _take(self, line: bytes) -> None:
        try:
            data = json.loads(line)
        except ValueError:
            log.warning("unreadable report from the worker process: %r", line[:200])
            return
        base_processed, base_sent = self._counted
        self.report = Report(processed=base_processed + int(data.get("processed", 0)),
                             sent=base_sent + int(data.get("sent", 0)),
                             ages={str(k): float(v) for k, v in data.get("ages", {}).items()},
                             at=asyncio.get_running_loop().time())
        self.running.set()

    def _close_socket(self) -> None:
        if self._sock is not None:
            asyncio.get_running_loop().remove_reader(self._sock.fileno())
            self._sock.close()
            self._sock = None

    def stuck_loops(self, stall_seconds: float) -> list[str]:
        """Names of the loops that have not come round for ``stall_seconds``; the process
        itself counts as stuck when it has not reported for that long."""
        now = asyncio.get_running_loop().time()
        last = self.report.at if self.report.at is not None else self.started_at
        if now - last > stall_seconds:
            return ["worker process"]
        since = now - last
        return sorted(name for name, age in self.report.ages.items()
                      if age + since > stall_seconds)

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
        self._counted = (self.report.processed, self.report.sent)
        self._close_socket()
        return process.exitcode

    async def stop(self, grace: float) -> None:
        """Ask the process to finish what it is doing and end; kill it after ``grace``."""
        # (waited for in a thread: the supervising task already watches the sentinel, and a
        # file descriptor has one reader in the event loop)
        await asyncio.get_running_loop().run_in_executor(None, end_child, self.process, grace,
                                                         "worker process")
        self._close_socket()

# --------------------------------------------------------------------------- this process

def main(config: Config, verbose: bool, sock: socket.socket) -> None:
    """The process's entry point (started by :class:`WorkerProcess`)."""
    from judge.basics.logs import setup_logging

    die_with_parent()
    os.environ.pop("NOTIFY_SOCKET", None)  # systemd hears from the daemon only
    setup_logging(verbose)
    # The loop's thread reads intake's requests for the lock while the worker's thread runs:
    # a short switch interval lets it see one within a millisecond rather than five.
    sys.setswitchinterval(0.001)
    lower_priority(config.worker.niceness)  # the sender, its child, inherits it
    # What both this process and the sender run, imported once before the fork: the sender's
    # own imports of the same modules cost a tenth of a second of CPU at every start.
    import judge.mail.sending.sender  # noqa: F401
    import judge.mail.sending.submission  # noqa: F401
    import judge.mail.sending.transports  # noqa: F401
    import judge.pipeline.stages  # noqa: F401
    import judge.store.leases  # noqa: F401
    sender = SenderProcess(config, verbose)
    sender.launch(fork=True)  # no thread runs yet: forked, it needs no imports of its own
    try:
        asyncio.run(WorkerLoops(config, sock, sender).run())
    except KeyboardInterrupt:  # pragma: no cover - SIGINT before the handlers are set
        pass
    finally:
        sender.stop(config.intake.shutdown_grace)


class WorkerLoops:
    """The worker, scheduler and retention loops, the sender's process, and the reports to the
    daemon."""

    def __init__(self, config: Config, sock: socket.socket, sender: SenderProcess) -> None:
        from judge.pipeline.stages import Pipeline
        from judge.store.db import Store

        self.config = config
        self.sock = sock
        self.sender = sender
        self.store = Store(config.database.url)
        self.pipeline = Pipeline(config)
        self.stopping = asyncio.Event()
        self.work_waiting = asyncio.Event()
        self.beats: dict[str, float] = {}
        self.turns = WriteTurns()
        self.processed = 0
        self._sender_started = 0.0
        self._sender_ended: float | None = None  # when it was first seen gone

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        self.sock.setblocking(False)
        loop.add_reader(self.sock.fileno(), self._read)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        released = await loop.run_in_executor(None, self._release_dead_leases)
        if released:
            log.info("took back %d message(s) from a process that died", released)
        self._watch_sender()
        tasks = [asyncio.create_task(self._work_loop()),
                 asyncio.create_task(self._schedule_loop()),
                 asyncio.create_task(self._retention_loop())]
        reporter = asyncio.create_task(self._report_loop())
        log.info("worker process running: worker and scheduler (pid %d)", os.getpid())
        await self.stopping.wait()
        self.work_waiting.set()
        grace = self.config.intake.shutdown_grace
        sender_stopped = loop.run_in_executor(None, self.sender.stop, grace)
        await asyncio.wait(tasks, timeout=grace)
        for task in tasks:
            task.cancel()
        reporter.cancel()
        await sender_stopped
        self._sender_read()
        self._report()
        self.store.dispose()

    def _read(self) -> None:
        data = receive(self.sock)
        if data is None:
            return
        if data:
            # The last word counts: asked for the lock, or stored (and so gave it back).
            if data.rfind(ASK_LOCK) > data.rfind(WAKE):
                self.turns.asked()
            else:
                self.turns.given_back()
                self.work_waiting.set()
        elif not self.stopping.is_set():
            # The daemon is gone without stopping us: end as it did, at once.
            log.error("the daemon is gone; the worker process ends with it")
            os._exit(1)

    # ------------------------------------------------------------------ the sender's process

    def _watch_sender(self) -> None:
        """Read the sender's reports as they come."""
        if self.sender.sock is not None:
            asyncio.get_running_loop().add_reader(self.sender.sock.fileno(), self._sender_read)
            self._sender_started = time.monotonic()
            # counted from its start: a sender that never gets going is seen as stuck
            self.beats["sender"] = self._sender_started

    def _sender_read(self) -> None:
        if self.sender.sock is None:
            return
        if not self.sender.read():  # it is gone: the report loop starts it again
            self._forget_sender()
        if self.sender.reported_at is not None:
            # (the event loop's clock is time.monotonic)
            self.beats["sender"] = self.sender.reported_at

    def _restart_sender(self) -> None:
        """Start the sender again if it ended on its own: once it has been gone for a moment
        (systemd signals every process of the service at once, and the sender may end before
        this process hears its own signal), and at most once a second."""
        process = self.sender.process
        now = time.monotonic()
        if process is None or process.exitcode is None or self.stopping.is_set():
            self._sender_ended = None
            return
        if self._sender_ended is None:
            self._sender_ended = now
        if now - self._sender_ended < SENDER_GONE_SECONDS or \
                now - self._sender_started < SENDER_RESTART_SECONDS:
            return
        self._sender_ended = None
        log.error("the sender ended (exit code %s); starting it again", process.exitcode)
        self._sender_read()
        self._forget_sender()
        self.sender.launch(fork=False)  # threads run now: spawned
        self._watch_sender()

    def _forget_sender(self) -> None:
        """Stop reading the socket of a sender that is gone, and close it (before a new
        socket may get the same descriptor)."""
        if self.sender.sock is not None:
            asyncio.get_running_loop().remove_reader(self.sender.sock.fileno())
            self.sender.close()

    def _report(self) -> None:
        now = asyncio.get_running_loop().time()
        line = json.dumps(dict(processed=self.processed, sent=self.sender.handled,
                               ages={k: round(now - v, 3) for k, v in self.beats.items()}))
        try:
            self.sock.send(line.encode() + b"\n")
        except OSError:
            pass  # a full buffer (the daemon is busy; the next report will do) or no daemon

    async def _report_loop(self) -> None:
        while True:
            self._restart_sender()
            self._report()
            await asyncio.sleep(REPORT_SECONDS)

    def _beat(self, name: str) -> None:
        self.beats[name] = asyncio.get_running_loop().time()

    def _release_dead_leases(self) -> int:
        from judge.service.faults import retry_faulty_games
        from judge.store.leases import release_dead_leases

        with self.store.transaction() as session:
            faulty = retry_faulty_games(session, utcnow())
            if faulty:
                log.info("%d game(s) that failed before are due again at once", faulty)
            # The daemon takes no leases: one in its pid's name is an earlier start's.
            return release_dead_leases(session, holding_none=[os.getppid()])

    async def _repeat(self, name: str, step: Callable[[], int], waiting: asyncio.Event | None,
                      pause: Callable[[int], float], after: Callable[[int], Any] | None = None
                      ) -> None:
        """Run ``step`` in a thread until stopping; after a step that did nothing, wait for
        ``waiting`` (or the pause ``pause(result)`` returns)."""
        loop = asyncio.get_running_loop()
        while not self.stopping.is_set():
            self._beat(name)
            if waiting is not None:
                waiting.clear()
            try:
                done = await loop.run_in_executor(None, step)
            except Exception:
                # The database went away, say: keep going round, try again after a pause.
                log.exception("%s failed; will try again", name)
                done = 0
            if after is not None:
                await after(done)
            seconds = pause(done)
            if seconds > 0:
                await self._wait(waiting or self.stopping, seconds)

    async def _work_loop(self) -> None:
        async def after(claimed: int) -> None:
            if claimed:
                self.sender.wake()

        await self._repeat("worker", self._process_batch, self.work_waiting,
                           lambda claimed: 0 if claimed else self.config.worker.poll_seconds,
                           after)

    def _process_batch(self) -> int:
        from judge.pipeline.worker import work_batch
        from judge.store.db import is_sqlite

        # On SQLite one writer works at a time anyway: batches save a disk flush per message.
        # On PostgreSQL several daemons work side by side, one message each at a time, so
        # none hoards the waiting mail and no long transaction locks rows another one needs.
        batch = WORK_BATCH if is_sqlite(self.store.engine) else 1
        claimed = work_batch(self.store, self.config, self.pipeline, batch, WORK_SECONDS,
                             self.turns)
        self.processed += claimed
        return claimed

    async def _schedule_loop(self) -> None:
        async def after(visited: int) -> None:
            if visited:
                self.sender.wake()

        # A full batch: more games may be due right now, so no pause.
        await self._repeat("scheduler", self._run_due, None,
                           lambda visited: 0 if visited >= self.config.scheduler.batch
                           else self.config.scheduler.poll_seconds, after)

    def _run_due(self) -> int:
        from judge.mail.writing.game_mail import queue_events
        from judge.service.clock.scheduler import run_due

        now = utcnow()
        return run_due(self.store, now,
                       lambda session, events: queue_events(session, self.pipeline.composer,
                                                            self.config, events, now),
                       limit=self.config.scheduler.batch)

    async def _retention_loop(self) -> None:
        """Deletes raw mail older than ``[retention] raw_mail_days`` now and then.  (Not
        watched: it sleeps for hours between runs.)"""
        from judge.store.retention import pause_seconds, purge_raw_mail

        days = self.config.retention.raw_mail_days
        if days <= 0:
            return
        loop = asyncio.get_running_loop()
        while not self.stopping.is_set():
            try:
                await loop.run_in_executor(None, purge_raw_mail, self.store, days, utcnow())
            except Exception:
                log.exception("deleting old raw mail failed; will try again")
            await self._wait(self.stopping, pause_seconds(days))

    async def _wait(self, event: asyncio.Event, timeout: float) -> None:
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except asyncio.TimeoutError:
            pass
