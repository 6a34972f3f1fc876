"""Where outgoing mail goes: a real SMTP relay (``smtp://host:port``) or a Maildir (``maildir:PATH``).

A transport raises :class:`TemporaryFailure` for anything worth retrying and
:class:`PermanentFailure` when the relay refuses for good (a 5xx answer).

Delivery is at-least-once: a mail the relay took is recorded as sent in a separate step, and a
crash between the two sends it again after the restart.  The SMTP transport keeps that window
as small as the protocol allows: the sender records the mail right after the relay's ``250``
to the end of the data, and the connection's ``QUIT`` waits until :meth:`close`, after the
record.  (The Maildir transport closes the window altogether: its file names are the mails'
keys.)
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import re
import smtplib
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO, Protocol
from urllib.parse import urlsplit

log = logging.getLogger("judge.sender")


class TemporaryFailure(Exception):
    pass


class PermanentFailure(Exception):
    pass


class Transport(Protocol):
    def send(self, mail_from: str, recipients: list[str], raw: bytes, key: str = "") -> str | None:
        """Deliver, or raise; returns a note when some recipients were refused.

        ``key`` names the mail uniquely (its Message-ID); a transport that can use it to avoid
        delivering the same mail twice after a crash does so.  A transport may take the mail
        here and make it safe in :meth:`flush`."""

    def flush(self) -> None:
        """Make every mail :meth:`send` took safe (the sender calls it before it records them
        as sent); raises :class:`TemporaryFailure` when it cannot, and they are sent again."""

    def close(self) -> None:
        """End a run of deliveries (the sender calls it once the mails are recorded)."""


@functools.cache
def _syncing() -> ThreadPoolExecutor:
    """The threads that fsync a Maildir's files side by side (kept for the process: starting
    threads for every run of deliveries cost more than the fsyncs they saved)."""
    return ThreadPoolExecutor(8, thread_name_prefix="judge-maildir")


# A folder that cannot be synced by this process, and why (each said in the log once).
_UNSYNCABLE: dict[str, str] = {}
# What says a folder cannot be synced here at all, rather than that the disk failed: no
# permission to read it (a folder above the Maildir that is someone else's), or a file system
# that cannot sync folders.  Mail still goes out, as it did before folders were synced.
_CANNOT_SYNC = {errno.EACCES, errno.EPERM, errno.EINVAL, errno.ENOTSUP}


def _sync_folder(path: str) -> None:
    """fsync a folder, so that the names made or renamed in it survive a power cut; where
    that cannot be done at all, say so in the log once and go on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        if exc.errno not in _CANNOT_SYNC:
            raise
        if path not in _UNSYNCABLE:
            _UNSYNCABLE[path] = exc.strerror or str(exc)
            log.warning("cannot sync the folder %s (%s): mail put into it may be lost at a "
                        "power cut", path, _UNSYNCABLE[path])


# What a mail's key may not bring into a file name.
_UNSAFE = re.compile(r"[^A-Za-z0-9._=-]")


class MaildirTransport:
    """Writes each mail into a Maildir: tmp/, fsync, then a rename into new/.

    The file name is derived from the mail's key, so a mail delivered just before a crash (and
    so not yet marked sent) is recognised and not written a second time.

    :meth:`send` writes the file into tmp/; :meth:`flush` makes the files written since
    durable, each with an fsync, several at once, and only then renames them into new/.  Each
    fsync is a flush of the disk's cache, ~0.6 ms on a virtual disk, and a disk merges flushes
    asked for together: 32 files took 0.13 ms each that way, against 0.63 ms one by one.

    A rename is a change to the folders, not to the file: until new/ itself is synced, a power
    cut can undo it and leave the mail in tmp/, where no reader looks (and which readers
    clean out), while the sender has recorded it as sent.  So :meth:`flush` syncs new/ once
    after its renames (one more flush for a whole batch of mails), and its first time the
    Maildir and the folder above it too, which hold the names of the folders.  A folder that
    cannot be synced at all (one above the Maildir that the judge may not read, a file system
    that cannot sync folders) is named in the log once, and mail goes on.
    """

    def __init__(self, path: str) -> None:
        self.path = Path(path).expanduser()
        self._made = False  # the folders exist (checked once a run of deliveries)
        self._folders_synced = False  # the Maildir's own name, and its folders', are durable
        self._taken: dict[str, tuple[BinaryIO, str]] = {}  # name → (open file in tmp/, new path)

    def send(self, mail_from: str, recipients: list[str], raw: bytes, key: str = "") -> str | None:
        name = _UNSAFE.sub("_", key.strip("<>")) if key else f"{time.time_ns()}.{os.getpid()}"
        folder = str(self.path)
        try:
            if not self._made:
                for sub in ("tmp", "new", "cur"):
                    if not os.path.isdir(os.path.join(folder, sub)):
                        os.makedirs(os.path.join(folder, sub), exist_ok=True)
                        self._folders_synced = False  # a new folder's name, to be synced
                self._made = True
            new = os.path.join(folder, "new", name)
            if name in self._taken or os.path.exists(new):
                return "already in the Maildir"  # (one a reader moved on to cur/: in flush)
            fh = open(os.path.join(folder, "tmp", f"{name}.{os.getpid()}"), "wb")
            self._taken[name] = (fh, new)
            fh.write(raw.replace(b"\r\n", b"\n"))
            fh.flush()
        except OSError as exc:
            self._made = False
            raise TemporaryFailure(f"cannot write to Maildir {self.path}: {exc}") from exc
        return None

    def flush(self) -> None:
        taken, self._taken = list(self._taken.values()), {}
        try:
            taken = self._not_in_cur(taken)
            if len(taken) > 1:
                list(_syncing().map(lambda file: os.fsync(file[0].fileno()), taken))
            elif taken:
                os.fsync(taken[0][0].fileno())
            for fh, new in taken:
                os.replace(fh.name, new)
            if taken:
                self._sync_folders()
        except OSError as exc:
            self._made = False
            raise TemporaryFailure(f"cannot write to Maildir {self.path}: {exc}") from exc
        finally:
            for fh, _ in taken:
                fh.close()

    def _sync_folders(self) -> None:
        """Sync new/ after renames into it; the first time, the Maildir and the folder above
        it as well, which this process may have made (or an earlier one, without syncing)."""
        if not self._folders_synced:
            box = os.path.abspath(str(self.path))
            _sync_folder(os.path.dirname(box))
            _sync_folder(box)
            self._folders_synced = True
        _sync_folder(os.path.join(str(self.path), "new"))

    def _not_in_cur(self, taken: list[tuple[BinaryIO, str]]) -> list[tuple[BinaryIO, str]]:
        """The mails taken less those a reader has already moved on to cur/ (as
        ``name:2,<flags>``): delivered before a crash, and not yet recorded as sent.  Their
        copies in tmp/ are dropped.

        cur/ is listed once for the whole batch, not once a mail (a reader's cur/ may hold
        thousands), and after :meth:`send` looked for each in new/: a mail a reader moved
        from new/ in between is still found here."""
        if not taken:
            return taken
        with os.scandir(os.path.join(str(self.path), "cur")) as entries:
            moved = {entry.name.partition(":")[0] for entry in entries}
        kept = []
        for fh, new in taken:
            if os.path.basename(new) in moved:
                fh.close()
                os.unlink(fh.name)
            else:
                kept.append((fh, new))
        return kept

    def close(self) -> None:
        try:
            self.flush()  # the sender has recorded none of these: they are safe, not lost
        finally:
            self._made = False  # a folder removed between runs is made again


class SmtpTransport:
    """Sends through an SMTP relay, one connection for a run of mails.

    The connection stays open from one mail to the next (a NOOP checks it is still there
    before it is used again) and says QUIT only in :meth:`close`: so :meth:`send` returns as
    soon as the relay has answered the end of the data, and the sender records the mail as
    sent before anything else can go wrong.
    """

    QUIT_TIMEOUT = 5.0  # the mails are recorded by then: a relay slow to say goodbye costs little

    def __init__(self, host: str, port: int, timeout: float = 30.0) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self._smtp: smtplib.SMTP | None = None

    def _connection(self) -> smtplib.SMTP:
        if self._smtp is not None:
            try:
                if self._smtp.noop()[0] == 250:
                    return self._smtp
            except (smtplib.SMTPException, OSError):
                pass
            self._drop()
        smtp = self._open()
        self._smtp = smtp
        return smtp

    def _open(self) -> smtplib.SMTP:
        """A new connection, ready for MAIL FROM (judge.mail.sending.submission adds TLS and a login)."""
        return smtplib.SMTP(self.host, self.port, timeout=self.timeout)

    def send(self, mail_from: str, recipients: list[str], raw: bytes, key: str = "") -> str | None:
        try:
            refused = self._connection().sendmail(mail_from, recipients, raw)
        except smtplib.SMTPRecipientsRefused as exc:
            _raise_for(exc.recipients)
            raise TemporaryFailure(str(exc)) from exc
        except smtplib.SMTPSenderRefused as exc:
            # The return path, the same for every mail of a kind: a setting to mend, not a
            # reason to give up on the mail (judge.mail.sending.submission says which).
            raise TemporaryFailure(_sender_refused(mail_from, exc)) from exc
        except smtplib.SMTPResponseException as exc:
            # smtplib has said RSET: the connection is ready for the next mail, unless the
            # relay is closing it (421), in which case the next NOOP finds out.
            cls = PermanentFailure if 500 <= exc.smtp_code < 600 else TemporaryFailure
            error = exc.smtp_error
            text = error.decode("utf-8", "replace") if isinstance(error, bytes) else str(error)
            raise cls(f"{exc.smtp_code} {text}") from exc
        except (smtplib.SMTPException, OSError, socket.timeout) as exc:
            self._drop()
            raise TemporaryFailure(f"{self.host}:{self.port}: {exc}") from exc
        # Some recipients took it: sending again would duplicate it for them, so only note it.
        return _describe(refused) if refused else None

    def flush(self) -> None:
        """Nothing to do: the relay's 250 to the end of the data was the hand-over."""

    def close(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is None:
            return
        try:
            if smtp.sock is not None:
                smtp.sock.settimeout(self.QUIT_TIMEOUT)
            smtp.quit()
        except (smtplib.SMTPException, OSError):
            pass
        finally:
            smtp.close()

    def _drop(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is not None:
            smtp.close()


def _sender_refused(mail_from: str, exc: smtplib.SMTPSenderRefused) -> str:
    text = exc.smtp_error.decode("utf-8", "replace") if isinstance(exc.smtp_error, bytes) \
        else str(exc.smtp_error)
    return (f"the server refused the return path <{mail_from}>: {exc.smtp_code} {text} "
            "(a provider that takes no '+' addresses needs [bounces] return_path)")


def _describe(refused: dict[str, tuple[int, bytes]]) -> str:
    return "; ".join(f"{rcpt}: {code} {msg.decode('utf-8', 'replace')}"
                     for rcpt, (code, msg) in refused.items())


def _raise_for(refused: dict[str, tuple[int, bytes]]) -> None:
    detail = _describe(refused)
    if all(500 <= code < 600 for code, _ in refused.values()):
        raise PermanentFailure(detail)
    raise TemporaryFailure(detail)


def make_transport(spec: str) -> Transport:
    if spec.startswith("maildir:"):
        return MaildirTransport(spec[len("maildir:"):])
    if spec.startswith("smtp://"):
        parts = urlsplit(spec)
        return SmtpTransport(parts.hostname or "127.0.0.1", parts.port or 25)
    raise ValueError(f"unknown transport {spec!r}")
