"""A long mail is executed in short transactions, each committing its commands, their mail and
how far it got: no mail holds the store for long, and a crash in the middle never executes a
command twice -- the retry goes on from the last commit and the one reply answers every line.
Also: the slow password work is done before the write lock is taken."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import event, func, select

from conftest import JUDGE_ADDRESS, make_mail
from gamekit import Judge, signon, start_full_game
from judge.pipeline import stages as pipeline
from judge.mail.intake.accept import Arrival, message_id_of, store_arrivals
from judge.pipeline.stages import Pipeline
from judge.pipeline.worker import process_pending
from judge.service.access import passwords
from judge.store.models import Game, InboundMessage, OutboxMessage

SENDER = "master@example.org"


def one_by_one(j: Judge) -> None:
    """Every command in a transaction of its own (a batch ends after the first command)."""
    j.config = replace(j.config, limits=replace(j.config.limits, batch_seconds=0.0,
                                                creates_per_day=1000))


def arrive(j: Judge, body: str) -> None:
    raw = make_mail(body, sender=SENDER).as_bytes()
    store_arrivals(j.store, [Arrival(JUDGE_ADDRESS, SENDER, raw, message_id_of(raw))])


def test_a_long_mail_is_committed_command_by_command(judge_in_process: Judge) -> None:
    j = judge_in_process
    one_by_one(j)
    commits: list[int] = []
    event.listen(j.store.engine, "commit", lambda conn: commits.append(1))
    reply = j.mail(SENDER, "\n".join(f"CREATE g{i} pw" for i in range(20))
                   + "\nLIST\n" * 10)
    assert len(commits) >= 30
    assert reply.body.count("you are its master") == 20
    assert "30 lines read, 0 errors." in reply.body


def test_a_crash_in_the_middle_executes_no_command_twice(
        judge_in_process: Judge, monkeypatch: pytest.MonkeyPatch) -> None:
    j = judge_in_process
    one_by_one(j)
    arrive(j, "\n".join(f"CREATE g{i} pw" for i in range(12)) + "\nLIST\nBROKEN LINE")
    real = pipeline.run_items
    calls: list[int] = []

    def crash_on_the_fourth(*args: Any, **kw: Any) -> int:
        calls.append(1)
        if len(calls) == 4:
            raise RuntimeError("the daemon died here")
        return real(*args, **kw)

    monkeypatch.setattr(pipeline, "run_items", crash_on_the_fourth)
    process_pending(j.store, j.config, Pipeline(j.config), limit=1)
    with j.store.transaction() as s:
        row = s.scalars(select(InboundMessage)).one()
        assert (row.status, row.attempts) == ("new", 1)
        assert row.progress is not None  # three commands done and committed
        assert s.scalar(select(func.count()).select_from(Game)) == 3
        assert s.scalar(select(func.count()).select_from(OutboxMessage)) == 0
    monkeypatch.setattr(pipeline, "run_items", real)
    process_pending(j.store, j.config, Pipeline(j.config))
    with j.store.transaction() as s:
        row = s.scalars(select(InboundMessage)).one()
        assert (row.status, row.progress) == ("done", None)
        assert s.scalar(select(func.count()).select_from(Game)) == 12
    (reply,) = j.new()
    for i in range(12):  # each line answered once, and none "already a game": none ran twice
        assert reply.body.count(f"> CREATE g{i} ****\nGame g{i} (Standard) created") == 1
    assert "already a game" not in reply.body
    assert "14 lines read, 1 error." in reply.body


def test_passwords_are_hashed_and_checked_before_the_write_lock(
        judge_in_process: Judge, monkeypatch: pytest.MonkeyPatch) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    in_write: list[str] = []
    writing = [False]

    @event.listens_for(j.store.engine, "begin")
    def began(conn: Any) -> None:
        writing[0] = not conn.get_execution_options().get("judge_read_only", False)

    @event.listens_for(j.store.engine, "commit")
    def ended(conn: Any) -> None:
        writing[0] = False

    real_hash, real_check = passwords._compute_hash, passwords._compute_check

    def hashing(password: str) -> str:
        if writing[0]:
            in_write.append(f"hash {password}")
        return real_hash(password)

    def checking(password: str, stored: str) -> bool:
        if writing[0]:
            in_write.append(f"check {password}")
        return real_check(password, stored)

    monkeypatch.setattr(passwords, "_compute_hash", hashing)
    monkeypatch.setattr(passwords, "_compute_check", checking)
    france = assigned["FRANCE"]
    reply = j.mail(france, f"{signon(j, 'FRANCE')}\nSET PASSWORD newpw\nA Par H")
    assert "Your password has been changed." in reply.body
    assert "created" in j.mail("someone@example.org", "CREATE third pw").body
    reply = j.mail("master@example.org", "SIGNON Mwar1901 mpw\nREPLACE Germany ger@example.org"
                   " gpw\nOBSERVE third opw\nCREATE other pw")
    assert reply.body.count("Error") == 0, reply.body
    assert in_write == []
