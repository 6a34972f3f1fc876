"""Log setup for every ``judge`` command: plain lines on stderr, journald-friendly under systemd.

When stderr is connected to the journal (systemd sets ``$JOURNAL_STREAM`` to the device and
inode of that stream), each line starts with its syslog priority (``<3>`` error … ``<7>``
debug) so ``journalctl -p`` can filter, and carries no timestamp: the journal adds its own.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Mapping, TextIO

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
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    # Alembic narrates every plugin it loads at INFO; operators need only its warnings.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    # aiosmtpd logs every SMTP command at INFO; the judge logs what matters per message itself.
    logging.getLogger("mail.log").setLevel(logging.DEBUG if verbose else logging.WARNING)
