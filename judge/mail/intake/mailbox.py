"""Mailbox intake: the judge's mail taken from an IMAP folder, stored, and only then removed.

For a judge without a mail server of its own: the players write to an ordinary account at a
provider, and ``judge serve`` reads its folder (``[mailbox]``) over TLS.  Each mail is stored
exactly as the SMTP listener stores one (judge.mail.intake.accept: one row, committed, the same
duplicate key), and only once that commit is done is it moved to ``stored_folder`` or deleted
on the server.  So a crash never loses a mail (it is still on the server, and read again) nor
doubles one (read again, it is recognised: by its Message-ID, as SMTP mail is, or, without
one, by the folder's UIDVALIDITY and the mail's UID, which name it for good).

The reader runs in a thread of the daemon's own, with a database connection of its own, so the
event loop (the SMTP listener, the web view) never waits for it, and a slow or dead IMAP server
only delays the mailbox's mail.  Where the server offers IDLE it says when mail comes, and the
reader takes it at once; it looks again every ``poll_seconds`` in any case.  A connection that
fails is made again after a pause that doubles (1 s up to 5 minutes); a refused login or a
certificate that fails verification is said in the log as an error, once each time.

IMAPClient does the IMAP: it parses the server's answers (imaplib leaves that to its caller),
knows IDLE, MOVE and UIDPLUS (imaplib has IDLE only from Python 3.14), and is kept up; a
blocking client suits a thread, where aioimaplib would run its parsing on the event loop.
"""

from __future__ import annotations

import hashlib
import logging
import ssl
import threading
import time
from typing import Any, Callable
from urllib.parse import urlsplit

from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError

from judge.basics.addresses import normalise
from judge.basics.config import Config, password_of
from judge.mail.intake.accept import Arrival, envelope_sender_of, for_log, message_id_of, store_arrivals
from judge.mail.sending.submission import tls_context, why_tls_failed
from judge.store.db import Store

log = logging.getLogger("judge.mailbox")

DEFAULT_PORTS = {"imaps": 993, "imap+starttls": 143}
# Mails fetched, stored (one commit) and removed at a time.
BATCH = 20
# Pause before connecting again after a failure: doubled each time, up to MAX_PAUSE.
FIRST_PAUSE = 1.0
MAX_PAUSE = 300.0
# A network operation that takes longer than this has failed.
TIMEOUT = 60.0
# While in IDLE, how often the reader looks whether it is asked to stop.
IDLE_CHECK = 1.0


class MailboxUnusable(Exception):
    """The server refused the login, or its certificate: said in the log as an error."""


class MailboxReader:
    """Reads ``[mailbox] folder`` in a thread until :meth:`stop`; ``on_stored`` is called
    (from that thread) whenever mail reached the inbound table."""

    def __init__(self, config: Config, on_stored: Callable[[], None]) -> None:
        self.config = config
        self.on_stored = on_stored
        box = config.mailbox
        parts = urlsplit(box.url)
        scheme = parts.scheme
        assert parts.hostname is not None  # judge.basics.config checked it
        self.host = parts.hostname
        self.port = parts.port or DEFAULT_PORTS[scheme]
        self.implicit_tls = scheme == "imaps"
        self.where = f"{self.host}:{self.port}"
        self.stored = 0  # mails this reader stored (duplicates not counted)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._skipped: set[tuple[int, int]] = set()  # (UIDVALIDITY, UID) too large, left there

    def describe(self) -> str:
        box = self.config.mailbox
        return f"{box.url} folder {box.folder} as {box.user}"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="judge-mailbox", daemon=True)
        self._thread.start()

    def stop(self, timeout: float) -> None:
        """Ask the reader to stop, and wait for it (a mail being stored is finished)."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        store = Store(self.config.database.url)  # a connection of its own, not intake's
        pause = FIRST_PAUSE
        try:
            while not self._stopping.is_set():
                try:
                    if self._session(store):
                        pause = FIRST_PAUSE
                except MailboxUnusable as exc:
                    log.error("mailbox %s: %s; trying again in %.0f s", self.where, exc, pause)
                except (IMAPClientError, OSError) as exc:
                    log.warning("mailbox %s: %s; connecting again in %.0f s", self.where,
                                _first_line(exc), pause)
                except Exception:
                    log.exception("mailbox %s failed; connecting again in %.0f s", self.where,
                                  pause)
                if self._stopping.wait(pause):
                    return
                pause = min(MAX_PAUSE, pause * 2)
        finally:
            store.dispose()

    def _session(self, store: Store) -> bool:
        """One connection: take what is waiting, wait for more, again, until stopped (True)
        or until the connection fails (raises)."""
        client = self._connect()
        try:
            folder = self.config.mailbox.folder
            self._prepare(client)
            while not self._stopping.is_set():
                uidvalidity = int(client.select_folder(folder)[b"UIDVALIDITY"])
                while self._take(client, store, uidvalidity):
                    if self._stopping.is_set():
                        return True
                self._wait(client)
            return True
        finally:
            try:
                client.logout()
            except (IMAPClientError, OSError):
                pass

    def _connect(self) -> IMAPClient:
        box = self.config.mailbox
        context = tls_context(box.ca_file)
        try:
            client = IMAPClient(self.host, self.port, ssl=self.implicit_tls,
                                ssl_context=context, timeout=TIMEOUT)
            if not self.implicit_tls:
                client.starttls(context)  # refuses, raising, when the server cannot
        except ssl.SSLError as exc:
            raise MailboxUnusable(why_tls_failed(exc, self.where, "[mailbox] ca_file")) from None
        try:
            client.login(box.user, password_of(box, "mailbox"))
        except LoginError as exc:
            _shut(client)
            raise MailboxUnusable(f"login as {box.user} refused: {_first_line(exc)}") from None
        log.info("mailbox %s: logged in as %s; reading %s (%s)", self.where, box.user,
                 box.folder, "IDLE" if client.has_capability("IDLE")
                 else f"every {self.config.mailbox.poll_seconds:g} s")
        return client

    def _prepare(self, client: IMAPClient) -> None:
        stored_folder = self.config.mailbox.stored_folder
        if stored_folder and not client.folder_exists(stored_folder):
            client.create_folder(stored_folder)
            log.info("mailbox %s: made the folder %s for stored mail", self.where, stored_folder)

    def _take(self, client: IMAPClient, store: Store, uidvalidity: int) -> bool:
        """Store one batch of the folder's mail and remove it from the server; False when
        there was none."""
        uids = [uid for uid in client.search(["NOT", "DELETED"])
                if (uidvalidity, uid) not in self._skipped]
        if not uids:
            return False
        batch = self._fitting(client, sorted(uids)[:BATCH], uidvalidity)
        fetched = client.fetch(batch, ["BODY.PEEK[]"]) if batch else {}
        arrivals = [self._arrival(fetched[uid][b"BODY[]"], uidvalidity, uid)
                    for uid in batch if b"BODY[]" in fetched.get(uid, {})]
        if arrivals:
            new = store_arrivals(store, arrivals)  # committed: now it may leave the server
            self.stored += new
            for arrival in arrivals:
                log.info("stored message %s from <%s> from the mailbox",
                         for_log(arrival.message_id or "(no id)"),
                         for_log(arrival.envelope_sender))
            if new:
                self.on_stored()
            if new < len(arrivals):
                log.info("mailbox %s: %d mail(s) already stored, not stored again", self.where,
                         len(arrivals) - new)
        self._remove(client, [uid for uid in batch if b"BODY[]" in fetched.get(uid, {})])
        return True

    def _fitting(self, client: IMAPClient, uids: list[int], uidvalidity: int) -> list[int]:
        """Those of ``uids`` no larger than ``[intake] max_message_size``; the others stay
        on the server, untouched, and are said in the log once."""
        limit = self.config.intake.max_message_size
        sizes = client.fetch(uids, ["RFC822.SIZE"])
        fitting = []
        for uid in uids:
            size = int(sizes.get(uid, {}).get(b"RFC822.SIZE", 0))
            if size > limit:
                self._skipped.add((uidvalidity, uid))
                log.warning("mailbox %s: mail UID %d of %s is %d bytes, more than [intake] "
                            "max_message_size (%d): left in the folder, not read", self.where,
                            uid, self.config.mailbox.folder, size, limit)
            else:
                fitting.append(uid)
        return fitting

    def _arrival(self, raw: bytes, uidvalidity: int, uid: int) -> Arrival:
        message_id = message_id_of(raw)
        key = "" if message_id is not None else self._key(uidvalidity, uid)
        return Arrival(normalise(self.config.judge.address), envelope_sender_of(raw), raw,
                       message_id, key=key)

    def _key(self, uidvalidity: int, uid: int) -> str:
        """The duplicate key of a mail without Message-ID: its folder's UIDVALIDITY and its UID
        (RFC 3501: never given to another mail of the folder while UIDVALIDITY stays)."""
        box = self.config.mailbox
        name = f"imap {self.host} {self.port} {box.user} {box.folder} {uidvalidity} {uid}"
        return hashlib.sha256(name.encode("utf-8")).hexdigest()

    def _remove(self, client: IMAPClient, uids: list[int]) -> None:
        """Move stored mail to ``stored_folder``, or delete it."""
        if not uids:
            return
        stored_folder = self.config.mailbox.stored_folder
        if stored_folder and client.has_capability("MOVE"):
            client.move(uids, stored_folder)
            return
        if stored_folder:
            client.copy(uids, stored_folder)
        client.delete_messages(uids, silent=True)
        if client.has_capability("UIDPLUS"):
            client.uid_expunge(uids)
        else:
            client.expunge()

    def _wait(self, client: IMAPClient) -> None:
        """Until new mail may be there: the server says so (IDLE), or ``poll_seconds``."""
        seconds = self.config.mailbox.poll_seconds
        if not client.has_capability("IDLE"):
            self._stopping.wait(seconds)
            return
        client.idle()
        try:
            until = time.monotonic() + seconds
            while not self._stopping.is_set() and time.monotonic() < until:
                if any(_news(response) for response in client.idle_check(IDLE_CHECK)):
                    return
        finally:
            client.idle_done()


def _news(response: Any) -> bool:
    """An IDLE response saying mail came (``n EXISTS``), or that the server is closing."""
    if not isinstance(response, tuple) or len(response) < 2:
        return False
    return response[1] in (b"EXISTS", b"RECENT") or response[0] == b"BYE"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0]


def _shut(client: IMAPClient) -> None:
    try:
        client.shutdown()
    except (IMAPClientError, OSError):
        pass
