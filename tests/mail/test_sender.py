"""The sender and its transports: real SMTP delivery to a sink, temporary and permanent failures
with backoff and a retry limit, and a Maildir that never holds the same mail twice."""

from __future__ import annotations

import email
import os
import shutil
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from email import policy
from pathlib import Path
from typing import Iterator

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import func, select

from conftest import body_of, free_port, read_maildir
from judge.basics.utc import as_utc, utcnow
from judge.basics.config import Config, JudgeSection, OutboundSection
from judge.mail.writing.compose import Composer
from judge.mail.sending.outbox import enqueue
from judge.mail.sending.sender import deliver_due
from judge.mail.sending.transports import (MaildirTransport, SmtpTransport, TemporaryFailure, make_transport)
from judge.store.db import Store
from judge.store.models import OutboxMessage

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=timezone.utc)
BASE = 30.0


@dataclass
class Sink:
    """An SMTP server that records what it gets and answers DATA with ``answer``."""

    answer: str = "250 2.0.0 OK"
    received: list[tuple[str, list[str], bytes]] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        if self.answer.startswith("250"):
            self.received.append((envelope.mail_from, list(envelope.rcpt_tos),
                                  envelope.original_content or envelope.content))
        return self.answer


@pytest.fixture
def sink() -> Iterator[tuple[Sink, int]]:
    handler = Sink()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


@pytest.fixture
def config() -> Config:
    return Config(judge=JudgeSection(address="judge@example.org"),
                  outbound=OutboundSection(max_attempts=3, retry_base_seconds=BASE))


def queue(store: Store, config: Config, to: list[str] | None = None,
          subject: str = "orders", body: str = "A PAR - BUR: accepted.\n") -> int:
    msg = Composer(config).reply(to=to or ["alice@example.org"], original_subject=subject,
                                 original_id="<orig@example.com>", references=[], body=body,
                                 now=NOW)
    with store.transaction() as s:
        return enqueue(s, msg)


def row_of(store: Store, row_id: int) -> OutboxMessage:
    with store.transaction() as s:
        row = s.get(OutboxMessage, row_id)
        assert row is not None
        s.expunge(row)
        return row


def make_due(store: Store, row_id: int) -> None:
    with store.transaction() as s:
        row = s.get(OutboxMessage, row_id)
        assert row is not None
        row.next_attempt_at = utcnow() - timedelta(seconds=1)


# --------------------------------------------------------------------------- SMTP


def test_smtp_delivery_reaches_the_relay(store: Store, config: Config,
                                         sink: tuple[Sink, int]) -> None:
    handler, port = sink
    row_id = queue(store, config, to=["alice@example.org", "bob@example.net"],
                   subject="Zürich", body="Ελλάδα holds.\n")
    assert deliver_due(store, SmtpTransport("127.0.0.1", port), config) == 1

    assert len(handler.received) == 1
    mail_from, rcpt_tos, content = handler.received[0]
    assert mail_from == "judge@example.org"
    assert rcpt_tos == ["alice@example.org", "bob@example.net"]
    msg = email.message_from_bytes(content, policy=policy.default)
    assert msg["Subject"] == "Re: Zürich"
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["In-Reply-To"] == "<orig@example.com>"
    assert body_of(msg).replace("\r\n", "\n") == "Ελλάδα holds.\n"

    row = row_of(store, row_id)
    assert row.status == "sent" and row.attempts == 1 and row.sent_at is not None
    assert row.last_error is None
    assert msg["Message-ID"] == row.message_id

    # nothing is sent twice
    assert deliver_due(store, SmtpTransport("127.0.0.1", port), config) == 0
    assert len(handler.received) == 1


def test_make_transport_reads_the_smtp_url(store: Store, config: Config,
                                           sink: tuple[Sink, int]) -> None:
    handler, port = sink
    queue(store, config)
    deliver_due(store, make_transport(f"smtp://127.0.0.1:{port}"), config)
    assert len(handler.received) == 1


def test_a_451_leaves_the_mail_pending_with_backoff(store: Store, config: Config,
                                                    sink: tuple[Sink, int]) -> None:
    handler, port = sink
    handler.answer = "451 4.3.0 try again later"
    transport = SmtpTransport("127.0.0.1", port)
    row_id = queue(store, config)

    before = utcnow()
    assert deliver_due(store, transport, config) == 1
    after = utcnow()
    row = row_of(store, row_id)
    assert row.status == "pending"
    assert row.attempts == 1
    assert "451" in (row.last_error or "")
    due = as_utc(row.next_attempt_at)
    assert before + timedelta(seconds=BASE) <= due <= after + timedelta(seconds=BASE)

    # not due yet: a second pass leaves it alone
    assert deliver_due(store, transport, config) == 0
    assert row_of(store, row_id).attempts == 1

    # the next failure waits twice as long
    make_due(store, row_id)
    before = utcnow()
    deliver_due(store, transport, config)
    after = utcnow()
    row = row_of(store, row_id)
    assert row.status == "pending" and row.attempts == 2
    due = as_utc(row.next_attempt_at)
    assert before + timedelta(seconds=2 * BASE) <= due <= after + timedelta(seconds=2 * BASE)

    # once the relay takes mail again, it is sent
    handler.answer = "250 2.0.0 OK"
    make_due(store, row_id)
    deliver_due(store, transport, config)
    row = row_of(store, row_id)
    assert row.status == "sent" and row.attempts == 3
    assert len(handler.received) == 1


def test_a_550_fails_the_mail_for_good(store: Store, config: Config,
                                       sink: tuple[Sink, int]) -> None:
    handler, port = sink
    handler.answer = "550 5.7.1 we do not want your mail"
    row_id = queue(store, config)
    assert deliver_due(store, SmtpTransport("127.0.0.1", port), config) == 1
    row = row_of(store, row_id)
    assert row.status == "failed"
    assert row.attempts == 1
    assert "550" in (row.last_error or "") and "permanent" in (row.last_error or "")
    make_due(store, row_id)
    assert deliver_due(store, SmtpTransport("127.0.0.1", port), config) == 0


def test_an_unreachable_relay_is_a_temporary_failure(store: Store, config: Config) -> None:
    transport = SmtpTransport("127.0.0.1", free_port(), timeout=5)
    row_id = queue(store, config)
    deliver_due(store, transport, config)
    row = row_of(store, row_id)
    assert row.status == "pending"
    assert row.attempts == 1
    assert (row.last_error or "").startswith("temporary:")
    assert as_utc(row.next_attempt_at) > utcnow()


def test_after_max_attempts_temporary_failures_the_mail_fails(store: Store,
                                                              config: Config) -> None:
    transport = SmtpTransport("127.0.0.1", free_port(), timeout=5)
    row_id = queue(store, config)
    for attempt in range(1, config.outbound.max_attempts + 1):
        make_due(store, row_id)
        deliver_due(store, transport, config)
        row = row_of(store, row_id)
        assert row.attempts == attempt
        expected = "failed" if attempt == config.outbound.max_attempts else "pending"
        assert row.status == expected
    make_due(store, row_id)
    assert deliver_due(store, transport, config) == 0
    assert row_of(store, row_id).attempts == config.outbound.max_attempts


def test_one_failing_mail_does_not_hold_up_the_others(store: Store, config: Config,
                                                      sink: tuple[Sink, int]) -> None:
    handler, port = sink

    class Picky:
        """Refuses mail to one address for good, passes the rest to the sink."""

        def __init__(self) -> None:
            self.smtp = SmtpTransport("127.0.0.1", port)

        def send(self, mail_from, recipients, raw, key=""):  # type: ignore[no-untyped-def]
            if recipients == ["bad@example.org"]:
                from judge.mail.sending.transports import PermanentFailure
                raise PermanentFailure("550 no such user")
            return self.smtp.send(mail_from, recipients, raw, key)

        def flush(self) -> None:
            self.smtp.flush()

        def close(self) -> None:
            self.smtp.close()

    bad = queue(store, config, to=["bad@example.org"])
    good = queue(store, config, to=["good@example.org"])
    assert deliver_due(store, Picky(), config) == 2
    assert row_of(store, bad).status == "failed"
    assert row_of(store, good).status == "sent"
    assert [r[1] for r in handler.received] == [["good@example.org"]]


# --------------------------------------------------------------------------- Maildir


def test_maildir_transport_writes_one_file_per_mail(tmp_path: Path) -> None:
    box = tmp_path / "mail"
    transport = MaildirTransport(str(box))
    assert transport.send("judge@example.org", ["a@example.org"],
                          b"Subject: one\r\n\r\nfirst\r\n", key="<one@example.org>") is None
    transport.send("judge@example.org", ["a@example.org"],
                   b"Subject: two\r\n\r\nsecond\r\n", key="<two@example.org>")
    transport.flush()
    files = sorted((box / "new").iterdir())
    assert len(files) == 2
    assert not list((box / "tmp").iterdir())  # nothing half-written left behind
    assert [m["Subject"] for m in read_maildir(box)] == ["one", "two"]
    assert b"\r\n" not in files[0].read_bytes()  # Maildir files use local line endings


def test_maildir_transport_does_not_write_the_same_mail_twice(tmp_path: Path) -> None:
    box = tmp_path / "mail"
    transport = MaildirTransport(str(box))
    raw = b"Subject: once\r\n\r\nonly once\r\n"
    assert transport.send("judge@example.org", ["a@example.org"], raw, key="<k@example.org>") is None
    note = transport.send("judge@example.org", ["a@example.org"], raw, key="<k@example.org>")
    assert note  # says it was already taken
    transport.flush()
    note = transport.send("judge@example.org", ["a@example.org"], raw, key="<k@example.org>")
    assert note  # says it was already there
    transport.flush()
    assert len(list((box / "new").iterdir())) == 1


def test_maildir_recognises_a_mail_the_reader_already_moved_to_cur(tmp_path: Path) -> None:
    box = tmp_path / "mail"
    transport = MaildirTransport(str(box))
    raw = b"Subject: once\r\n\r\nonly once\r\n"
    transport.send("judge@example.org", ["a@example.org"], raw, key="<k@example.org>")
    transport.flush()
    (new,) = (box / "new").iterdir()
    new.rename(box / "cur" / f"{new.name}:2,S")
    transport.send("judge@example.org", ["a@example.org"], raw, key="<k@example.org>")
    transport.flush()
    assert not list((box / "new").iterdir())
    assert len(read_maildir(box)) == 1


def test_a_maildir_whose_folders_cannot_be_synced_still_gets_mail(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A folder above the Maildir that the judge may not read (someone else's), or a file
    system that cannot sync folders: mail still goes out, and the log says so once.  A disk
    that fails (EIO) still fails the delivery (the test above)."""
    box = tmp_path / "shared" / "mail"
    box.parent.mkdir()
    real_open, real_fsync = os.open, os.fsync
    synced: list[str] = []

    def deny_parent(path: str, flags: int, *args: int) -> int:
        if str(path) == str(box.parent):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)

    def no_folder_sync(fd: int) -> None:
        where = os.readlink(f"/proc/self/fd/{fd}")
        if os.path.isdir(where):
            raise OSError(22, "Invalid argument")
        synced.append(where)
        real_fsync(fd)

    monkeypatch.setattr(os, "open", deny_parent)
    monkeypatch.setattr(os, "fsync", no_folder_sync)
    transport = MaildirTransport(str(box))
    for run in range(2):
        transport.send("judge@example.org", ["a@example.org"], b"Subject: s\r\n\r\nx\r\n",
                       key=f"<f{run}@example.org>")
        transport.flush()
    assert len(list((box / "new").iterdir())) == 2 and len(synced) == 2  # the files were
    warned = [r.getMessage() for r in caplog.records if "cannot sync the folder" in r.getMessage()]
    assert sorted(warned) == sorted([
        f"cannot sync the folder {box.parent} (Permission denied): mail put into it may be lost"
        " at a power cut",
        f"cannot sync the folder {box} (Invalid argument): mail put into it may be lost at a "
        "power cut",
        f"cannot sync the folder {box / 'new'} (Invalid argument): mail put into it may be lost"
        " at a power cut"])


def test_maildir_lists_cur_once_a_batch_and_after_looking_in_new(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader's cur/ may hold thousands of mails: it is listed once for a batch, not once a
    mail, after send() looked for each in new/ (so a mail a reader moves from new/ to cur/
    meanwhile is found in one or the other).  A mail sent again after a crash, which the reader
    has moved on to cur/, is not doubled, and its copy in tmp/ is dropped."""
    box = tmp_path / "mail"
    transport = MaildirTransport(str(box))
    transport.send("judge@example.org", ["a@example.org"], b"Subject: old\r\n\r\nx\r\n",
                   key="<old@example.org>")
    transport.flush()
    for i in range(500):  # what a reader has read
        (box / "cur" / f"read{i}:2,S").write_bytes(b"Subject: read\n\nx\n")
    listings = []
    real_scandir = os.scandir

    def scandir(path: str):  # type: ignore[no-untyped-def]
        listings.append(path)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    (old,) = (box / "new").iterdir()
    old.rename(box / "cur" / f"{old.name}:2,S")
    for i in range(20):
        transport.send("judge@example.org", ["a@example.org"], b"Subject: s\r\n\r\nx\r\n",
                       key=f"<m{i}@example.org>")
    transport.send("judge@example.org", ["a@example.org"], b"Subject: old\r\n\r\nx\r\n",
                   key="<old@example.org>")  # sent again after a crash
    transport.flush()
    assert listings == [str(box / "cur")]
    assert len(list((box / "new").iterdir())) == 20
    assert sum(1 for f in (box / "cur").iterdir() if f.name.startswith("old")) == 1
    assert not list((box / "tmp").iterdir())  # the copy sent again is not left behind


def test_maildir_files_reach_new_only_once_made_safe(tmp_path: Path) -> None:
    """send() writes into tmp/; flush() syncs the files and only then moves them to new/,
    where a reader looks: the sender records them as sent after that."""
    box = tmp_path / "mail"
    transport = MaildirTransport(str(box))
    for i in range(5):
        transport.send("judge@example.org", ["a@example.org"], f"Subject: {i}\r\n\r\nx\r\n".encode(),
                       key=f"<m{i}@example.org>")
    assert not list((box / "new").iterdir()) and len(list((box / "tmp").iterdir())) == 5
    assert transport.send("judge@example.org", ["a@example.org"], b"\r\n",
                          key="<m0@example.org>") == "already in the Maildir"
    transport.flush()
    assert sorted(m["Subject"] for m in read_maildir(box)) == ["0", "1", "2", "3", "4"]
    assert not list((box / "tmp").iterdir())


def test_maildir_renames_are_synced_before_the_mails_count_as_delivered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A rename into new/ survives a power cut only once new/ itself is synced: flush() syncs
    it after the renames (once for the batch), and the first time the Maildir and the folder
    above it (the folders' own names), so a mail recorded as sent cannot fall back into tmp/
    or vanish with a folder."""
    box = tmp_path / "judge" / "mail"
    box.parent.mkdir()
    events: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: str, dst: str) -> None:
        events.append(("rename", os.path.dirname(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    transport = MaildirTransport(str(box))

    def send_three(tag: str) -> None:
        for i in range(3):
            transport.send("judge@example.org", ["a@example.org"], b"Subject: s\r\n\r\nx\r\n",
                           key=f"<{tag}{i}@example.org>")

    send_three("a")
    assert events == []  # send() only writes into tmp/
    transport.flush()
    renames = [i for i, e in enumerate(events) if e[0] == "rename"]
    assert len(renames) == 3 and all(e[0] == "fsync" for e in events[:renames[0]])  # the files
    assert events[renames[-1] + 1:] == [("fsync", str(box.parent)), ("fsync", str(box)),
                                        ("fsync", str(box / "new"))]
    events.clear()
    transport.flush()  # nothing taken: nothing synced
    assert events == []
    transport.close()
    send_three("b")
    transport.flush()
    renames = [i for i, e in enumerate(events) if e[0] == "rename"]
    assert events[renames[-1] + 1:] == [("fsync", str(box / "new"))]  # later: new/ alone
    transport.close()
    shutil.rmtree(box)  # removed between runs: made again, and its names synced again
    events.clear()
    send_three("c")
    transport.flush()
    assert [e for e in events if e[0] == "fsync"][-3:] == [
        ("fsync", str(box.parent)), ("fsync", str(box)), ("fsync", str(box / "new"))]


def test_a_maildir_that_cannot_be_written_records_nothing_as_sent(
        store: Store, config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If the files cannot be made safe (the disk fails at the fsync), no row is recorded as
    sent: each goes out again once its lease runs out, and is then delivered once."""
    box = tmp_path / "mail"
    ids = [queue(store, config, to=[f"p{i}@example.org"]) for i in range(3)]
    transport = MaildirTransport(str(box))
    real_fsync = os.fsync

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(TemporaryFailure):
        deliver_due(store, transport, config)
    assert [row_of(store, i).status for i in ids] == ["pending"] * 3
    assert not (box / "new").exists() or not list((box / "new").iterdir())
    monkeypatch.setattr(os, "fsync", real_fsync)
    with store.transaction() as s:  # the lease runs out
        for row in s.scalars(select(OutboxMessage)):
            row.lease_until = None
    deliver_due(store, MaildirTransport(str(box)), config)
    assert [row_of(store, i).status for i in ids] == ["sent"] * 3
    assert len(read_maildir(box)) == 3


def test_a_crash_between_delivery_and_marking_sent_does_not_duplicate(
        store: Store, config: Config, tmp_path: Path) -> None:
    box = tmp_path / "mail"
    config = replace(config, outbound=replace(config.outbound, transport=f"maildir:{box}"))
    row_id = queue(store, config)
    transport = make_transport(config.outbound.transport)
    deliver_due(store, transport, config)
    assert row_of(store, row_id).status == "sent"
    # The daemon died after writing the file but before committing "sent": the row is pending.
    with store.transaction() as s:
        row = s.get(OutboxMessage, row_id)
        assert row is not None
        row.status, row.sent_at = "pending", None
    deliver_due(store, make_transport(config.outbound.transport), config)
    assert row_of(store, row_id).status == "sent"
    replies = read_maildir(box)
    assert len(replies) == 1
    assert replies[0]["Subject"] == "Re: orders"


class Counting:
    """A transport that takes every mail, and at QUIT (close) looks at what the store says."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.sent: list[str] = []
        self.at_close: list[dict[str, int]] = []

    def send(self, mail_from: str, recipients: list[str], raw: bytes, key: str = "") -> None:
        self.sent.append(key)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        with self.store.transaction() as s:
            rows = s.execute(select(OutboxMessage.status, func.count())
                             .group_by(OutboxMessage.status)).all()
        self.at_close.append({status: n for status, n in rows})


def test_sent_marks_are_committed_together_and_all_before_the_quit(store: Store,
                                                                   config: Config) -> None:
    from judge.mail.sending import sender
    ids = [queue(store, config, to=[f"p{i}@example.org"]) for i in range(sender.MARK_EVERY + 5)]
    transport = Counting(store)
    assert deliver_due(store, transport, config, limit=len(ids)) == len(ids)
    assert len(transport.sent) == len(set(transport.sent)) == len(ids)  # each sent once
    # by the QUIT every mail the relay took is recorded as sent (none would go out again)
    assert transport.at_close == [{"sent": len(ids)}]
    assert all(row_of(store, i).attempts == 1 for i in ids)
