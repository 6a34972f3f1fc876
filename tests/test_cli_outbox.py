"""`judge outbox list|retry|drop`: what an operator sees and may do with the outgoing queue."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from conftest import run_cli
from judge.basics.config import Config, JudgeSection
from judge.mail.writing.compose import Composer
from judge.mail.sending.outbox import enqueue
from judge.store.db import Store
from judge.store.models import OutboxMessage

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=timezone.utc)


def outbox(db_url: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["JUDGE_DATABASE_URL"] = db_url
    return run_cli(["outbox", *args], env=env, cwd=cwd)


def add(store: Store, to: str, subject: str, status: str, attempts: int = 0,
        last_error: str | None = None) -> int:
    config = Config(judge=JudgeSection(address="judge@example.org"))
    msg = Composer(config).broadcast(to=[to], subject=subject, body="text\n", now=NOW)
    with store.transaction() as s:
        row = s.get(OutboxMessage, enqueue(s, msg))
        assert row is not None
        row.status, row.attempts, row.last_error = status, attempts, last_error
        return row.id


def state(store: Store, row_id: int) -> tuple[str, int]:
    with store.transaction() as s:
        row = s.get(OutboxMessage, row_id)
        assert row is not None
        return row.status, row.attempts


@pytest.fixture
def rows(store: Store) -> dict[str, int]:
    return {
        "pending": add(store, "p@example.org", "pending mail", "pending"),
        "sent": add(store, "s@example.org", "sent mail", "sent", attempts=1),
        "failed": add(store, "f@example.org", "failed mail", "failed", attempts=12,
                      last_error="permanent: 550 no such user"),
    }


def test_list_on_an_empty_store_says_none(store: Store, db_url: str, tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, "list")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(none)"


def test_list_on_a_new_database_creates_it_and_says_none(db_url: str, tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, "list")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "(none)"


def test_list_shows_the_rows_newest_first(rows: dict[str, int], db_url: str,
                                          tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, "list")
    assert result.returncode == 0, result.stderr
    header, *lines = result.stdout.splitlines()
    assert header.split() == ["id", "status", "tries", "to", "subject", "last", "error"]
    assert [line.split()[:4] for line in lines] == [
        [str(rows["failed"]), "failed", "12", "f@example.org"],
        [str(rows["sent"]), "sent", "1", "s@example.org"],
        [str(rows["pending"]), "pending", "0", "p@example.org"],
    ]
    assert "failed mail" in lines[0] and "550 no such user" in lines[0]


def test_list_filters_by_status(rows: dict[str, int], db_url: str, tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, "list", "--status", "failed")
    lines = result.stdout.splitlines()[1:]
    assert [line.split()[0] for line in lines] == [str(rows["failed"])]


def test_retry_makes_a_failed_mail_pending(rows: dict[str, int], store: Store, db_url: str,
                                           tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, "retry", str(rows["failed"]))
    assert result.returncode == 0, result.stderr
    assert "1 message(s) queued again" in result.stdout
    assert state(store, rows["failed"]) == ("pending", 0)


def test_retry_failed_retries_every_failed_mail(rows: dict[str, int], store: Store,
                                                db_url: str, tmp_path: Path) -> None:
    other = add(store, "g@example.org", "another", "failed", attempts=3)
    result = outbox(db_url, tmp_path, "retry", "--failed")
    assert result.returncode == 0, result.stderr
    assert state(store, rows["failed"])[0] == "pending"
    assert state(store, other)[0] == "pending"
    assert state(store, rows["sent"])[0] == "sent"


def test_drop_makes_a_mail_dropped(rows: dict[str, int], store: Store, db_url: str,
                                   tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, "drop", str(rows["pending"]))
    assert result.returncode == 0, result.stderr
    assert "1 message(s) dropped" in result.stdout
    assert state(store, rows["pending"])[0] == "dropped"
    listed = outbox(db_url, tmp_path, "list", "--status", "dropped").stdout.splitlines()
    assert [line.split()[:2] for line in listed[1:]] == [[str(rows["pending"]), "dropped"]]


@pytest.mark.parametrize("action", ["retry", "drop"])
def test_a_sent_mail_cannot_be_retried_or_dropped(action: str, rows: dict[str, int],
                                                  store: Store, db_url: str,
                                                  tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, action, str(rows["sent"]))
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert f"message {rows['sent']} was already sent" in lines[0]
    assert "Traceback" not in result.stderr
    assert state(store, rows["sent"]) == ("sent", 1)


@pytest.mark.parametrize("action", ["retry", "drop"])
def test_a_refusal_changes_none_of_the_named_rows(action: str, rows: dict[str, int],
                                                  store: Store, db_url: str,
                                                  tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, action, str(rows["failed"]), str(rows["sent"]))
    assert result.returncode != 0
    assert state(store, rows["failed"]) == ("failed", 12)


@pytest.mark.parametrize("action", ["retry", "drop"])
def test_an_unknown_id_is_refused(action: str, rows: dict[str, int], db_url: str,
                                  tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, action, "4242")
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "no such message: 4242" in lines[0]


def test_retry_without_ids_says_what_it_needs(store: Store, db_url: str,
                                              tmp_path: Path) -> None:
    result = outbox(db_url, tmp_path, "retry")
    assert result.returncode != 0
    assert len(result.stderr.splitlines()) == 1
    assert "--failed" in result.stderr
