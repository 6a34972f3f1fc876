"""``judge serve``: intake and the web view here; worker, sender and scheduler beside it.

This process answers SMTP (or LMTP) on its event loop, storing each message durably before it
answers 250; its child, the worker process (judge.daemon.worker_process), processes the stored mail, sends
the replies and runs due game clocks; another child, the web process (judge.daemon.web_process),
serves the read-only web view on the ``[web] listen`` socket this process opens.  They share
the database and socket pairs: intake wakes the worker when it stored mail, the worker process
reports what it did and that its loops keep going round.  Everything the scheduler needs is
stored, so a restart resumes it exactly.

Sessions are capped in number and length (judge.mail.intake.sessions).  SIGTERM (or SIGINT) stops
accepting, lets the sessions in flight finish within ``[intake] shutdown_grace`` seconds, asks
the worker process to finish the message in hand, and exits.  When the worker process ends while the
daemon runs (it should not), the daemon logs why and starts it again.

Under systemd (``Type=notify``) it says ``READY=1`` once the database is checked, intake
listens and the worker process runs; ``WATCHDOG=1`` every half ``WatchdogSec`` while the back
office's loops keep going round (a loop stuck for ``STALL_SECONDS`` stops the pings, and
systemd restarts the service); ``STATUS=`` with what it has done; and ``STOPPING=1`` when it
begins to stop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import signal
import socket
import sys
from typing import TYPE_CHECKING, Awaitable, Callable

from aiosmtpd.smtp import SMTP

from judge import __version__
from judge.daemon.worker_process import WorkerProcess
from judge.daemon.children import end_child
from judge.basics.config import Config
from judge.mail.intake.accept import InboundWriter, IntakeHandler
from judge.mail.intake.sessions import SessionLimits
from judge.mail.intake.smtp_protocol import JudgeLMTP, JudgeSMTP
from judge.daemon.systemd_notify import Notifier
from judge.store.db import Store
from judge.store.schema import ensure_schema
from judge.daemon.web_process import WebProcess, listening_socket

if TYPE_CHECKING:
    from judge.mail.intake.mailbox import MailboxReader

log = logging.getLogger("judge.daemon")

# A loop (worker, sender, scheduler) that has not come round for this long is stuck: the
# watchdog pings stop.  Long enough for a slow phase adjudication or an SMTP relay timeout.
STALL_SECONDS = 180.0
# A worker process that ended is started again after this pause, doubled while it keeps ending
# within RESTART_CALM of its start, up to RESTART_MAX.
RESTART_PAUSE = 1.0
RESTART_CALM = 60.0
RESTART_MAX = 60.0
# Files the daemon needs besides its SMTP sessions: database, log, relay connections, threads.
FILES_IN_RESERVE = 64


class ListenError(Exception):
    """Intake or the web view could not listen: the message is one line naming the setting."""


def _why_not(exc: OSError) -> str:
    """Why a listener could not be opened, in the system's words: an address that does not
    resolve says so; for a bind, asyncio's own message repeats the address, the error's
    number says it plainly ("Address already in use")."""
    if isinstance(exc, socket.gaierror):
        return exc.strerror or str(exc)
    return os.strerror(exc.errno) if exc.errno else str(exc)


class Daemon:
    def __init__(self, config: Config, worker_process: WorkerProcess) -> None:
        self.config = config
        self.store = Store(config.database.url)
        self.stopping = asyncio.Event()
        self.worker_process = worker_process  # launched; attached when the daemon runs
        self.writer = InboundWriter(self.store, on_stored=self.worker_process.wake,
                                    on_lock_wanted=self.worker_process.ask_lock)
        self.handler = IntakeHandler(self.writer, config.judge.address,
                                     lmtp=config.intake.protocol == "lmtp",
                                     max_recipients=config.intake.max_recipients)
        self.limits = SessionLimits(self._protocol, hostname=config.judge_domain,
                                    max_connections=config.intake.max_connections,
                                    session_timeout=config.intake.session_timeout)
        self.server: asyncio.AbstractServer | None = None
        self.web: WebProcess | None = None  # the web view's process, when [web] listen is set
        self.mailbox: MailboxReader | None = None  # when [mailbox] url is set
        self.notifier = Notifier()

    def stuck_loops(self) -> list[str]:
        return self.worker_process.stuck_loops(STALL_SECONDS)

    def intake_line(self) -> str:
        """Where the judge takes its mail: the listener, the mailbox, or both."""
        ways = []
        if self.config.listens:
            ways.append(f"{self.config.intake.protocol.upper()} on {self.config.intake.listen}")
        if self.config.mailbox.url:
            ways.append(f"mailbox {self.config.mailbox.url}")
        return " and ".join(ways)

    def status_line(self) -> str:
        report = self.worker_process.report
        return (f"{self.intake_line()}; {report.processed} message(s) processed, "
                f"{report.sent} outgoing mail(s) handled")

    def _protocol(self) -> SMTP:
        cls = JudgeLMTP if self.config.intake.protocol == "lmtp" else JudgeSMTP
        return cls(self.handler, data_size_limit=self.config.intake.max_message_size,
                   hostname=self.config.judge_domain, ident=f"judge {__version__}",
                   timeout=self.config.intake.idle_timeout)

    def _fit_connections_to_files(self) -> None:
        """Keep the session cap below the open-files limit: past it, accept() fails in a
        loop (and the log fills) instead of answering 421."""
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        room = soft - FILES_IN_RESERVE if soft != resource.RLIM_INFINITY else None
        if room is not None and room < self.limits.max_connections:
            self.limits.max_connections = max(1, room)
            log.warning("[intake] max_connections lowered to %d: the process may open only %d "
                        "files (raise LimitNOFILE= in the systemd unit)",
                        self.limits.max_connections, soft)

    def _open_web(self) -> None:
        """Open ``[web] listen`` for the web view's process (judge.daemon.web_process); nothing when
        it is empty."""
        try:
            listening = listening_socket(self.config)
        except OSError as exc:
            raise ListenError(f"cannot listen on {self.config.web.listen} ([web] listen): "
                              f"{_why_not(exc)}") from None
        if listening is not None:
            self.web = WebProcess(self.config, self.worker_process.verbose, listening)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        what = await loop.run_in_executor(None, ensure_schema, self.store.engine)
        log.info("database %s: schema %s", self.store.engine.url.render_as_string(), what)
        moved = await loop.run_in_executor(None, self.writer.recover)
        if moved:
            log.info("moved %d message(s) accepted before the last stop from the spool", moved)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        self._fit_connections_to_files()
        # the web's socket first: once intake answers, the web view's address answers too
        self._open_web()
        if self.config.listens:
            try:
                self.server = await loop.create_server(self.limits, self.config.listen_host,
                                                       self.config.listen_port)
            except OSError as exc:
                if self.web is not None:
                    self.web.listening.close()
                raise ListenError(f"cannot listen on {self.config.intake.listen} ([intake] "
                                  f"listen): {_why_not(exc)}") from None
        if self.web is not None:
            self.web.start()
            log.info("web view on http://%s:%d/", *self.web.listening.getsockname()[:2])
        self._start_mailbox(loop)
        log.info("judge %s taking mail by %s%s, replies via %s", __version__,
                 self.intake_line(), "" if self.config.listens else " (no SMTP/LMTP listener)",
                 self.config.outbound.transport)
        self.worker_process.attach()
        supervisors = [asyncio.create_task(self._supervise(
            self.worker_process.ended, self.worker_process.start,
            "the worker process (worker, sender, scheduler)"))]
        if self.web is not None:
            supervisors.append(asyncio.create_task(self._supervise(
                self.web.ended, self.web.start, "the web view's process")))
        watchdog = asyncio.create_task(self._watchdog_loop())
        ready = asyncio.create_task(self._ready())
        await self.stopping.wait()
        ready.cancel()
        log.info("stopping: no new connections")
        self.notifier.stopping(f"stopping; {self.status_line()}")
        watchdog.cancel()
        if self.server is not None:
            self.server.close()
        for supervisor in supervisors:
            supervisor.cancel()
        if self.web is not None:
            await self.web.stop(self.config.intake.shutdown_grace)
            self.web.listening.close()
        if self.mailbox is not None:  # a mail being stored is finished first
            await loop.run_in_executor(None, self.mailbox.stop, self.config.intake.shutdown_grace)
        await self._drain_sessions()
        await self.writer.close()
        await self.worker_process.stop(self.config.intake.shutdown_grace)
        self.store.dispose()
        log.info("stopped")
        self.notifier.close()

    def _start_mailbox(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read ``[mailbox]`` in a thread of its own (judge.mail.intake.mailbox), when it is set."""
        if not self.config.mailbox.url:
            return
        from judge.mail.intake.mailbox import MailboxReader

        def stored() -> None:  # called in the mailbox's thread
            loop.call_soon_threadsafe(self.worker_process.wake)

        self.mailbox = MailboxReader(self.config, on_stored=stored)
        self.mailbox.start()
        log.info("reading the mailbox %s", self.mailbox.describe())

    async def _ready(self) -> None:
        """Tell systemd the judge is ready once the worker process runs as well: mail accepted
        before is processed then, but "ready" means the whole judge works."""
        await self.worker_process.running.wait()
        self.notifier.ready(self.status_line())

    async def _supervise(self, ended: Callable[[], Awaitable[int | None]],
                         start: Callable[[], None], what: str) -> None:
        """Start a child process (the worker process, the web view's) again whenever it ends
        while the daemon runs."""
        loop = asyncio.get_running_loop()
        pause = RESTART_PAUSE
        while not self.stopping.is_set():
            started = loop.time()
            code = await ended()
            # Under systemd (and at a Ctrl-C) both processes are signalled at once, and the
            # worker process may be done first: that is a stop, not a failure.
            await self._wait(self.stopping, RESTART_PAUSE)
            if self.stopping.is_set():
                return
            pause = RESTART_PAUSE if loop.time() - started > RESTART_CALM \
                else min(RESTART_MAX, pause * 2)
            log.error("%s ended with exit code %s; starting it again", what, code)
            await self._wait(self.stopping, pause - RESTART_PAUSE)
            if not self.stopping.is_set():
                start()

    async def _watchdog_loop(self) -> None:
        interval = self.notifier.watchdog_seconds
        if interval is None:
            return
        last_status = ""
        while not self.stopping.is_set():
            stuck = self.stuck_loops()
            if stuck:
                log.error("no progress in %s for %.0f s: not telling systemd all is well",
                          ", ".join(stuck), STALL_SECONDS)
            else:
                self.notifier.watchdog()
            status = self.status_line()
            if status != last_status:
                self.notifier.status(status)
                last_status = status
            await self._wait(self.stopping, interval)

    async def _drain_sessions(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.intake.shutdown_grace
        while self.handler.in_flight and loop.time() < deadline:
            await asyncio.sleep(0.05)
        self.limits.close_all()

    async def _wait(self, event: asyncio.Event, timeout: float) -> None:
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except asyncio.TimeoutError:
            pass


def serve(config: Config, verbose: bool = False) -> None:
    # Intake commits run in a thread while the event loop parses SMTP.  With CPython's default
    # 5 ms GIL switch interval a commit thread that is ready waits up to 5 ms for the loop to
    # let go, and every accepted message waits for its commit; 0.1 ms keeps the hand-over short
    # (measured: accepts/s rose from ~1100 to ~1500 with benchmarks/intake.py).
    sys.setswitchinterval(0.0001)
    worker_process = WorkerProcess(config, verbose)
    worker_process.launch(fork=True)  # before the event loop's threads exist
    try:
        asyncio.run(Daemon(config, worker_process).run())
    finally:
        # After a daemon that failed to start (a port in use): the worker process stops its
        # sender, and both are waited for, so that nothing is left behind and no line of theirs
        # comes after the error the admin reads last.
        end_child(worker_process.process, config.intake.shutdown_grace, "worker process")
