"""Log setup for every ``judge`` command: plain lines on stderr, journald-friendly under systemd.

Identical lines are rate-limited (:class:`RepeatFilter`): a flood of connections or of one
failure cannot fill the disk with the same line, and the line that goes out after a pause says
how many copies were left out.

When stderr is connected to the journal (systemd sets ``$JOURNAL_STREAM`` to the device and
inode of that stream), each line starts with its syslog priority (``<3>`` error … ``<7>``
debug) so ``journalctl -p`` can filter, and carries no timestamp: the journal adds its own.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Callable, Mapping, TextIO

# syslog priorities (RFC 5424) by logging level
_PRIORITY = {logging.CRITICAL: 2, logging.ERROR: 3, logging.WARNING: 4, logging.INFO: 6,
             logging.DEBUG: 7}


class JournalFormatter(logging.Formatter):
    """``<N>logger: message``; each line of a traceback gets the same prefix."""

    def __init__(self) -> None:
        super().__init__("%(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        level = max((lv for lv in _PRIORITY if lv <= record.levelno), default=logging.DEBUG)
        prefix = f"<{_PRIORITY[level]}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


class RepeatFilter(logging.Filter):
    """Lets one line (same logger, level and text) through at most ``burst`` times a
    ``period``; the copies beyond are dropped, and counted in the next copy let through."""

    MAX_LINES = 10_000  # distinct lines remembered; beyond, the oldest windows are forgotten

    def __init__(self, burst: int = 10, period: float = 60.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.burst, self.period, self.clock = burst, period, clock
        self._seen: dict[tuple[str, int, str], list[float]] = {}  # line → [start, count]

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a broken format string: let logging report it as it does
            return True
        key = (record.name, record.levelno, text)
        now = self.clock()
        seen = self._seen.get(key)
        if seen is None or now - seen[0] >= self.period:
            left_out = int(seen[1]) - self.burst - 1 if seen is not None else 0
            if seen is None and len(self._seen) >= self.MAX_LINES:
                self._forget(now)
            self._seen[key] = [now, 1]
            if left_out > 0:
                self._amend(record, f"{text} [{left_out} more identical line(s) not logged]")
            return True
        seen[1] += 1
        if seen[1] == self.burst + 1:
            self._amend(record, f"{text} [repeated: identical lines are not logged for up to "
                                f"{self.period:.0f} s]")
            return True
        return seen[1] <= self.burst

    def _forget(self, now: float) -> None:
        self._seen = {k: v for k, v in self._seen.items() if now - v[0] < self.period}
        if len(self._seen) >= self.MAX_LINES:
            self._seen.clear()

    @staticmethod
    def _amend(record: logging.LogRecord, text: str) -> None:
        record.msg, record.args = text, ()


def stream_is_journal(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    value = env.get("JOURNAL_STREAM", "")
    dev, _, ino = value.partition(":")
    if not (dev.isdigit() and ino.isdigit()):
        return False
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return (st.st_dev, st.st_ino) == (int(dev), int(ino))


def setup_logging(verbose: bool = False, stream: TextIO | None = None) -> None:
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    if stream_is_journal(stream):
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RepeatFilter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    # No line shows the caller's file and line, thread or process name: not looking them up
    # for every record (as Python's logging documentation suggests, "Optimization") takes a
    # third off the cost of a line, which the worker writes for every mail.
    logging._srcfile = None
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    # Alembic narrates every plugin it loads at INFO; operators need only its warnings.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    # aiosmtpd logs every SMTP command at INFO; the judge logs what matters per message itself.
    logging.getLogger("mail.log").setLevel(logging.DEBUG if verbose else logging.WARNING)
