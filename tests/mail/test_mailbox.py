"""Mailbox intake against a real IMAP server (a private Dovecot, tests/mailservers.py): what is
in the folder is stored once, and leaves the server only once it is stored; IDLE and polling;
a mail too large, a refused login and a certificate that fails verification."""

from __future__ import annotations

import logging
from typing import Any, Iterator

import pytest

from conftest import make_mail, polls, run_sql
from judge.basics.config import Config, load_config
from judge.mail.intake import mailbox
from judge.mail.intake.mailbox import MailboxReader
from mailservers import NEEDS_DOVECOT, PrivateDovecot, new_account

pytestmark = [NEEDS_DOVECOT]


def config_for(db_url: str, server: PrivateDovecot, user: str, password: str,
               **more: str) -> Config:
    return load_config(None, environ={
        "JUDGE_DATABASE_URL": db_url, "JUDGE_JUDGE_ADDRESS": user, "JUDGE_INTAKE_LISTEN": "",
        "JUDGE_MAILBOX_URL": server.url, "JUDGE_MAILBOX_USER": user,
        "JUDGE_MAILBOX_PASSWORD": password,
        "JUDGE_MAILBOX_CA_FILE": str(server.certificates.ca),
        "JUDGE_MAILBOX_POLL_SECONDS": "30", **more})


def mail(n: int, with_id: bool = True) -> bytes:
    msg = make_mail(f"LIST\nmarker {n}\n", sender=f"p{n}@players.test")
    if not with_id:
        del msg["Message-ID"]
    return b"Return-Path: <p%d@players.test>\r\n" % n + msg.as_bytes()


def stored(db_url: str) -> list[tuple[Any, ...]]:
    return run_sql(db_url, "SELECT message_id, envelope_sender, raw FROM inbound ORDER BY id")


def wait_stored(db_url: str, count: int, timeout: float = 20) -> list[tuple[Any, ...]]:
    for _ in polls(timeout):
        rows = stored(db_url)
        if len(rows) >= count:
            return rows
    raise AssertionError(f"{len(stored(db_url))} stored, expected {count}")


@pytest.fixture
def reading() -> Iterator[list[MailboxReader]]:
    """Readers started by a test, stopped after it."""
    started: list[MailboxReader] = []
    yield started
    for reader in started:
        reader.stop(10)


def start(reading: list[MailboxReader], config: Config) -> MailboxReader:
    reader = MailboxReader(config, on_stored=lambda: None)
    reader.start()
    reading.append(reader)
    return reader


def markers(rows: list[tuple[Any, ...]]) -> list[str]:
    return sorted(raw.decode().split("marker ")[1].split()[0] for _, _, raw in rows)


def test_the_mail_of_the_folder_is_stored_once_then_deleted(
        dovecot: PrivateDovecot, migrated_db_url: str, reading: list[MailboxReader]) -> None:
    user, password = new_account(dovecot)
    for n in range(3):
        dovecot.deliver(user, password, mail(n, with_id=n != 1))
    start(reading, config_for(migrated_db_url, dovecot, user, password))
    rows = wait_stored(migrated_db_url, 3)
    assert markers(rows) == ["0", "1", "2"]
    assert sorted(sender for _, sender, _ in rows) == [f"p{n}@players.test" for n in range(3)]
    assert sum(1 for message_id, _, _ in rows if message_id is None) == 1
    for _ in polls(10):
        if dovecot.count(user, password) == 0:
            break
    assert dovecot.count(user, password) == 0  # gone from the server once stored
    reading[0].stop(10)
    assert len(stored(migrated_db_url)) == 3


def test_stored_mail_is_moved_to_the_stored_folder(
        dovecot: PrivateDovecot, migrated_db_url: str, reading: list[MailboxReader]) -> None:
    user, password = new_account(dovecot)
    dovecot.deliver(user, password, mail(7))
    start(reading, config_for(migrated_db_url, dovecot, user, password,
                              JUDGE_MAILBOX_STORED_FOLDER="Stored"))
    wait_stored(migrated_db_url, 1)
    for _ in polls(10):
        if dovecot.count(user, password, "Stored") == 1:
            break
    assert dovecot.count(user, password, "Stored") == 1
    assert dovecot.count(user, password) == 0


def test_a_mail_read_again_after_a_failure_is_not_stored_twice(
        dovecot: PrivateDovecot, migrated_db_url: str, reading: list[MailboxReader],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The crash window: stored, not yet removed from the server.  Read again (as after a
    restart), each mail is recognised: by its Message-ID, or by UIDVALIDITY and UID."""
    user, password = new_account(dovecot)
    for n in range(4):
        dovecot.deliver(user, password, mail(n, with_id=n % 2 == 0))
    monkeypatch.setattr(mailbox, "FIRST_PAUSE", 0.05)
    real_remove = MailboxReader._remove
    failures = []

    def remove_fails_once(self: MailboxReader, client: Any, uids: list[int]) -> None:
        if not failures:
            failures.append(uids)
            raise OSError("connection lost (the test)")
        real_remove(self, client, uids)

    monkeypatch.setattr(MailboxReader, "_remove", remove_fails_once)
    start(reading, config_for(migrated_db_url, dovecot, user, password))
    for _ in polls(20):
        if failures and dovecot.count(user, password) == 0:
            break
    assert failures == [[1, 2, 3, 4]]
    assert dovecot.count(user, password) == 0
    reading[0].stop(10)
    rows = stored(migrated_db_url)
    assert markers(rows) == ["0", "1", "2", "3"]  # each once


def test_mail_that_comes_while_the_reader_idles_is_taken_at_once(
        dovecot: PrivateDovecot, migrated_db_url: str, reading: list[MailboxReader]) -> None:
    user, password = new_account(dovecot)
    # a poll every 10 minutes: only IDLE can bring the mail in within the test's wait
    reader = start(reading, config_for(migrated_db_url, dovecot, user, password,
                                       JUDGE_MAILBOX_POLL_SECONDS="600"))
    for _ in polls(10):
        if "Info: Login: user=<%s>" % user in dovecot.logged():
            break
    dovecot.deliver(user, password, mail(1))
    wait_stored(migrated_db_url, 1, timeout=10)
    assert reader.stored == 1


def test_without_idle_the_folder_is_polled(
        dovecot: PrivateDovecot, migrated_db_url: str, reading: list[MailboxReader],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from imapclient import IMAPClient
    real = IMAPClient.has_capability
    monkeypatch.setattr(IMAPClient, "has_capability",
                        lambda self, name: name.upper() != "IDLE" and real(self, name))
    user, password = new_account(dovecot)
    start(reading, config_for(migrated_db_url, dovecot, user, password,
                              JUDGE_MAILBOX_POLL_SECONDS="0.2"))
    dovecot.deliver(user, password, mail(2))
    assert markers(wait_stored(migrated_db_url, 1)) == ["2"]


def test_a_mail_too_large_stays_on_the_server_and_the_others_go_on(
        dovecot: PrivateDovecot, migrated_db_url: str, reading: list[MailboxReader],
        caplog: pytest.LogCaptureFixture) -> None:
    user, password = new_account(dovecot)
    big = make_mail("LIST\n" + "x" * 3000 + "\nmarker big\n", sender="big@players.test")
    dovecot.deliver(user, password, big.as_bytes())
    dovecot.deliver(user, password, mail(3))
    with caplog.at_level(logging.INFO, logger="judge.mailbox"):
        start(reading, config_for(migrated_db_url, dovecot, user, password,
                                  JUDGE_INTAKE_MAX_MESSAGE_SIZE="2048"))
        assert markers(wait_stored(migrated_db_url, 1)) == ["3"]
        for _ in polls(10):
            if dovecot.count(user, password) == 1:
                break
        reading[0].stop(10)
    assert dovecot.count(user, password) == 1  # the large one, for the operator to see
    assert len(stored(migrated_db_url)) == 1
    assert "more than [intake] max_message_size (2048): left in the folder" in caplog.text


def test_a_certificate_that_fails_verification_is_an_error_naming_ca_file(
        dovecot: PrivateDovecot, migrated_db_url: str, reading: list[MailboxReader],
        caplog: pytest.LogCaptureFixture) -> None:
    user, password = new_account(dovecot)
    dovecot.deliver(user, password, mail(4))
    with caplog.at_level(logging.INFO, logger="judge.mailbox"):
        # the system's CAs: the test CA is not among them
        start(reading, config_for(migrated_db_url, dovecot, user, password,
                                  JUDGE_MAILBOX_CA_FILE=""))
        for _ in polls(20):
            if "failed verification" in caplog.text:
                break
        reading[0].stop(10)
    error = next(r for r in caplog.records if r.levelno == logging.ERROR).getMessage()
    assert "the certificate of localhost:" in error and "failed verification" in error
    assert "[mailbox] ca_file" in error
    assert stored(migrated_db_url) == [] and dovecot.count(user, password) == 1


def test_starttls_on_the_imap_port(dovecot: PrivateDovecot, migrated_db_url: str,
                                   reading: list[MailboxReader]) -> None:
    user, password = new_account(dovecot)
    dovecot.deliver(user, password, mail(5))
    start(reading, config_for(migrated_db_url, dovecot, user, password,
                              JUDGE_MAILBOX_URL=dovecot.starttls_url))
    assert markers(wait_stored(migrated_db_url, 1)) == ["5"]


# Last: Dovecot makes later logins from the same address wait after a refused one.
def test_a_refused_login_is_an_error_in_the_log_and_tried_again(
        dovecot: PrivateDovecot, migrated_db_url: str, reading: list[MailboxReader],
        caplog: pytest.LogCaptureFixture) -> None:
    user, _ = new_account(dovecot)
    with caplog.at_level(logging.INFO, logger="judge.mailbox"):
        start(reading, config_for(migrated_db_url, dovecot, user, "wrong password"))
        for _ in polls(20):
            if "refused" in caplog.text:
                break
        reading[0].stop(10)
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert f"login as {user} refused" in errors[0].getMessage()
    assert "trying again in" in errors[0].getMessage()
    assert "wrong password" not in caplog.text
