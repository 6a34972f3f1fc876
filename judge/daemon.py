"""``judge serve``: intake, worker, scheduler and sender in one asyncio process.

The scheduler runs due game clocks (reminders, late notices, processing) from the store every
``[scheduler] poll_seconds``; everything it needs is stored, so a restart resumes it exactly.

Intake answers SMTP (or LMTP) on the event loop, and so does the read-only web view
(judge.web, on ``[web] listen``); database work runs in threads so the loop stays responsive.
Sessions are capped in number and length (judge.mail.sessions), and raw mail older than
``[retention] raw_mail_days`` is deleted now and then (judge.mail.retention).  SIGTERM (or
SIGINT) stops accepting, lets the sessions in flight finish
within ``[intake] shutdown_grace`` seconds, finishes the message being processed, and exits.

Under systemd (``Type=notify``) it says ``READY=1`` once the database is checked and intake
listens, ``WATCHDOG=1`` every half ``WatchdogSec`` while its loops keep going round (a loop stuck
for ``STALL_SECONDS`` stops the pings, and systemd restarts the service), ``STATUS=`` with what
it has done, and ``STOPPING=1`` when it begins to stop.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import signal
import sys
import time

from aiohttp.web import AppRunner
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from judge import __version__
from judge.utc import utcnow
from judge.config import Config
from judge.mail.game_mail import queue_events
from judge.mail.intake import InboundWriter, IntakeHandler
from judge.pipeline import Pipeline
from judge.mail.retention import pause_seconds, purge_raw_mail
from judge.mail.sender import deliver_batch
from judge.mail.sessions import SessionLimits
from judge.mail.transports import make_transport
from judge.mail.worker import work_batch
from judge.notify import Notifier
from judge.service.faults import retry_faulty_games
from judge.service.scheduler import run_due
from judge.store.db import Store, is_sqlite
from judge.store.leases import release_dead_leases
from judge.store.schema import ensure_schema
from judge.web.app import start_web

log = logging.getLogger("judge.daemon")

# Accepting mail comes first, but never at the cost of answering it.  While intake is busy
# the worker and the sender each take at most their share of the time: after a step that took
# t seconds, during which the event loop (SMTP sessions, intake's commits) was busy a fraction
# u of the time, each pauses u × t × (1 − share) / share before its next step.  The loop's
# busy-ness is the CPU time its thread used over the wall time (``time.thread_time``), counted
# as full once it reaches LOOP_SATURATED (the most it gets while the threads contend for the
# interpreter).  So a burst is stored, and answered 250, at nearly full speed while the worker
# and the sender still get their share; a steady stream that keeps the loop busy now and then
# slows them in proportion; once intake is quiet they run flat out.  Each step is a batch:
# WORK_BATCH messages claimed in one transaction and finished in write transactions of about
# WORK_SECONDS (one disk flush for many messages, and the write lock never held long);
# SEND_BATCH mails claimed for sending and marked sent a few at a time (judge.mail.sender).
WORKER_SHARE = 0.25
SENDER_SHARE = 0.25
LOOP_SATURATED = 0.5
MAX_PAUSE = 0.5
WORK_BATCH = 32
WORK_SECONDS = 0.05
SEND_BATCH = 32
# A loop (worker, sender, scheduler) that has not come round for this long is stuck: the
# watchdog pings stop.  Long enough for a slow phase adjudication or an SMTP relay timeout.
STALL_SECONDS = 180.0
# Files the daemon needs besides its SMTP sessions: database, log, relay connections, threads.
FILES_IN_RESERVE = 64


class ListenError(Exception):
    """A second listener (the web view) could not bind: the message is one line."""


class Daemon:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.store = Store(config.database.url)
        self.pipeline = Pipeline(config)
        self.transport = make_transport(config.outbound.transport)
        self.stopping = asyncio.Event()
        self.work_waiting = asyncio.Event()
        self.mail_waiting = asyncio.Event()
        self.writer = InboundWriter(self.store, on_stored=self.work_waiting.set)
        self.handler = IntakeHandler(self.writer, config.judge.address,
                                     lmtp=config.intake.protocol == "lmtp",
                                     max_recipients=config.intake.max_recipients)
        self.limits = SessionLimits(self._protocol, hostname=config.judge_domain,
                                    max_connections=config.intake.max_connections,
                                    session_timeout=config.intake.session_timeout)
        self.server: asyncio.AbstractServer | None = None
        self.web: AppRunner | None = None  # the web view (judge.web), when [web] listen is set
        self.notifier = Notifier()
        self.beats: dict[str, float] = {}  # loop name → event-loop time it last came round
        self.processed = 0
        self.sent = 0

    def _beat(self, name: str) -> None:
        self.beats[name] = asyncio.get_running_loop().time()

    def stuck_loops(self) -> list[str]:
        now = asyncio.get_running_loop().time()
        return sorted(name for name, at in self.beats.items() if now - at > STALL_SECONDS)

    def status_line(self) -> str:
        return (f"{self.config.intake.protocol.upper()} on {self.config.intake.listen}; "
                f"{self.processed} message(s) processed, {self.sent} outgoing mail(s) handled")

    def _protocol(self) -> SMTP:
        cls = LMTP if self.config.intake.protocol == "lmtp" else SMTP
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

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        what = await loop.run_in_executor(None, ensure_schema, self.store.engine)
        log.info("database %s: schema %s", self.store.engine.url.render_as_string(), what)
        released = await loop.run_in_executor(None, self._release_dead_leases)
        if released:
            log.info("took back %d message(s) from a process that died", released)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        self._fit_connections_to_files()
        self.server = await loop.create_server(self.limits, self.config.listen_host,
                                               self.config.listen_port)
        try:
            self.web = await start_web(self.store, self.config)
        except OSError as exc:
            self.server.close()
            why = os.strerror(exc.errno) if exc.errno else str(exc)
            raise ListenError(f"cannot listen on {self.config.web.listen} ([web] listen): "
                              f"{why}") from None
        log.info("judge %s listening for %s on %s, replies via %s", __version__,
                 self.config.intake.protocol.upper(), self.config.intake.listen,
                 self.config.outbound.transport)
        tasks = [asyncio.create_task(self._work_loop()), asyncio.create_task(self._send_loop()),
                 asyncio.create_task(self._schedule_loop()),
                 asyncio.create_task(self._retention_loop())]
        watchdog = asyncio.create_task(self._watchdog_loop())
        self.notifier.ready(self.status_line())
        await self.stopping.wait()
        log.info("stopping: no new connections")
        self.notifier.stopping(f"stopping; {self.status_line()}")
        watchdog.cancel()
        self.server.close()
        if self.web is not None:
            await self.web.cleanup()
        await self._drain_sessions()
        self.work_waiting.set()
        self.mail_waiting.set()
        await asyncio.wait(tasks, timeout=self.config.intake.shutdown_grace)
        for task in tasks:
            task.cancel()
        self.store.dispose()
        log.info("stopped")
        self.notifier.close()

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

    def _release_dead_leases(self) -> int:
        with self.store.transaction() as session:
            faulty = retry_faulty_games(session, utcnow())
            if faulty:
                log.info("%d game(s) that failed before are due again at once", faulty)
            return release_dead_leases(session)

    async def _drain_sessions(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.config.intake.shutdown_grace
        while self.handler.in_flight and loop.time() < deadline:
            await asyncio.sleep(0.05)
        self.limits.close_all()

    async def _leave_room_for_intake(self, started: float, loop_cpu_before: float,
                                     share: float) -> None:
        """After a step that began at ``started`` (event-loop time) when the loop's thread had
        used ``loop_cpu_before`` seconds of CPU, pause so that the step's loop takes at most
        ``share`` of the time intake keeps the event loop busy.  (Runs on the loop's thread,
        so ``time.thread_time`` is the loop's own CPU time.)"""
        spent = asyncio.get_running_loop().time() - started
        if spent <= 0 or self.stopping.is_set():
            return
        busy = min(1.0, (time.thread_time() - loop_cpu_before) / spent / LOOP_SATURATED)
        pause = min(MAX_PAUSE, busy * spent * (1 - share) / share)
        if pause > 0.001:
            await self._wait(self.stopping, pause)

    async def _work_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stopping.is_set():
            self._beat("worker")
            self.work_waiting.clear()
            started, loop_cpu = loop.time(), time.thread_time()
            try:
                claimed = await loop.run_in_executor(None, self._process_batch)
            except Exception:
                # The database went away, say: keep going round, try again after a pause.
                log.exception("worker failed; will try again")
                claimed = 0
            if claimed:
                self.mail_waiting.set()
                await self._leave_room_for_intake(started, loop_cpu, WORKER_SHARE)
                continue
            await self._wait(self.work_waiting, self.config.worker.poll_seconds)

    def _process_batch(self) -> int:
        # On SQLite one writer works at a time anyway: batches save a disk flush per message.
        # On PostgreSQL several daemons work side by side, one message each at a time, so
        # none hoards the waiting mail and no long transaction locks rows another one needs.
        batch = WORK_BATCH if is_sqlite(self.store.engine) else 1
        claimed = work_batch(self.store, self.config, self.pipeline, batch, WORK_SECONDS)
        self.processed += claimed
        return claimed

    async def _schedule_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stopping.is_set():
            self._beat("scheduler")
            visited = 0
            try:
                visited = await loop.run_in_executor(None, self._run_due)
                if visited:
                    self.mail_waiting.set()
            except Exception:
                log.exception("scheduler failed; will try again")
            if visited >= self.config.scheduler.batch:
                continue  # a full batch: more games may be due right now
            await self._wait(self.stopping, self.config.scheduler.poll_seconds)

    def _run_due(self) -> int:
        now = utcnow()
        return run_due(self.store, now,
                       lambda session, events: queue_events(session, self.pipeline.composer,
                                                            self.config, events, now),
                       limit=self.config.scheduler.batch)

    async def _retention_loop(self) -> None:
        """Deletes raw mail older than ``[retention] raw_mail_days`` now and then."""
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

    async def _send_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.stopping.is_set():
            self._beat("sender")
            self.mail_waiting.clear()
            started, loop_cpu = loop.time(), time.thread_time()
            try:
                handled = await loop.run_in_executor(None, deliver_batch, self.store,
                                                     self.transport, self.config, SEND_BATCH)
                self.sent += handled
            except Exception:
                log.exception("sender failed; will try again")
                handled = 0
            if handled:
                await self._leave_room_for_intake(started, loop_cpu, SENDER_SHARE)
                continue
            # Nothing more to send: end the run of deliveries (the relay's QUIT) after the
            # last mail was recorded as sent.
            await loop.run_in_executor(None, self.transport.close)
            await self._wait(self.mail_waiting, self.config.worker.poll_seconds)
        await loop.run_in_executor(None, self.transport.close)

    async def _wait(self, event: asyncio.Event, timeout: float) -> None:
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except asyncio.TimeoutError:
            pass


def serve(config: Config) -> None:
    # Intake commits run in a thread while the event loop parses SMTP.  With CPython's default
    # 5 ms GIL switch interval a commit thread that is ready waits up to 5 ms for the loop to
    # let go, and every accepted message waits for its commit; 0.1 ms keeps the hand-over short
    # (measured: accepts/s rose from ~1100 to ~1500 with benchmarks/intake.py).
    sys.setswitchinterval(0.0001)
    asyncio.run(Daemon(config).run())
