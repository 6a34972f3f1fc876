"""The worker: messages are processed exactly once; one that keeps failing is retried, then set
aside for the operator without holding up the others; `judge inbound list|retry` handle it."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from conftest import run_cli
from judge.basics.utc import utcnow
from judge.basics.config import Config, JudgeSection, WorkerSection
from judge.mail.intake.accept import Arrival, store_arrivals
from judge.pipeline.worker import (claim_batch, claim_next, process_claimed, process_pending, work_batch)
from judge.store.db import Store
from judge.pipeline.ordered_handoff import DONE, InOrder
from judge.pipeline.stages import StoredMail
from judge.store.models import InboundMessage

JUDGE = "judge@example.org"
MAX = 3


@pytest.fixture
def config() -> Config:
    return Config(judge=JudgeSection(address=JUDGE), worker=WorkerSection(max_attempts=MAX))


def arrive(store: Store, *names: str) -> dict[str, int]:
    """Store one message per name (its Message-ID is <name@example.org>); returns name → id."""
    arrivals = [Arrival(JUDGE, f"{n}@example.org", f"Subject: {n}\r\n\r\n{n}\r\n".encode(),
                        f"<{n}@example.org>") for n in names]
    store_arrivals(store, arrivals)
    with store.transaction() as s:
        rows = s.scalars(select(InboundMessage)).all()
        return {r.envelope_sender.split("@")[0]: r.id for r in rows}


def rows(store: Store) -> dict[int, tuple[str, int, str | None]]:
    with store.reading() as s:
        return {r.id: (r.status, r.attempts, r.note) for r in s.scalars(select(InboundMessage))}


class Recorder:
    """A processor that counts calls and fails for the senders named in ``failing``."""

    def __init__(self, *failing: str) -> None:
        self.failing = set(failing)
        self.calls: Counter[str] = Counter()

    def __call__(self, session: Session, row: InboundMessage) -> str:
        name = row.envelope_sender.split("@")[0]
        self.calls[name] += 1
        if name in self.failing:
            raise RuntimeError(f"cannot digest {name}")
        row.note = f"processed {name}"
        return "done"


def test_a_failing_message_is_retried_then_set_aside_while_others_are_processed(
        store: Store, config: Config) -> None:
    ids = arrive(store, "good1", "bad", "good2")
    processor = Recorder("bad")
    process_pending(store, config, processor)

    assert processor.calls == {"good1": 1, "bad": MAX, "good2": 1}
    state = rows(store)
    assert state[ids["good1"]][:2] == ("done", 1)
    assert state[ids["good2"]][:2] == ("done", 1)
    assert state[ids["good1"]][2] == "processed good1"
    status, attempts, note = state[ids["bad"]]
    assert (status, attempts) == ("failed", MAX)
    assert "RuntimeError: cannot digest bad" in (note or "")


def test_a_failure_rolls_back_what_the_processor_changed(store: Store, config: Config) -> None:
    ids = arrive(store, "bad")

    def half_done(session: Session, row: InboundMessage) -> str:
        row.note = "half done"
        raise ValueError("broke halfway")

    process_pending(store, config, half_done, limit=1)
    status, attempts, note = rows(store)[ids["bad"]]
    assert (status, attempts) == ("new", 1)  # will be tried again
    assert note == "ValueError: broke halfway"


def test_a_message_whose_attempts_ran_out_is_set_aside_on_claim(store: Store,
                                                                config: Config) -> None:
    ids = arrive(store, "crasher", "fine")
    # The daemon died while processing this one, MAX times: attempts counted, no error noted.
    with store.transaction() as s:
        row = s.get(InboundMessage, ids["crasher"])
        assert row is not None
        row.attempts = MAX
        row.lease_until = utcnow() - timedelta(seconds=1)  # the dead worker's lease ran out
    processor = Recorder()
    process_pending(store, config, processor)
    assert processor.calls == {"fine": 1}
    status, attempts, note = rows(store)[ids["crasher"]]
    assert status == "failed"
    assert f"set aside after {MAX} attempts" in (note or "")


def test_a_message_leased_by_a_live_worker_is_not_claimed(store: Store, config: Config) -> None:
    ids = arrive(store, "busy")
    first = claim_next(store, config)
    assert first == ids["busy"]
    assert claim_next(store, config) is None  # still leased
    assert rows(store)[ids["busy"]][:2] == ("new", 1)


def test_a_processed_message_is_not_processed_again(store: Store, config: Config) -> None:
    ids = arrive(store, "once")
    processor = Recorder()
    assert process_pending(store, config, processor) == 1
    assert process_pending(store, config, processor) == 0
    # even when asked directly, a done message is left alone
    assert process_claimed(store, config, ids["once"], processor) is False
    assert processor.calls == {"once": 1}
    assert rows(store)[ids["once"]][:2] == ("done", 1)


def test_the_same_message_arriving_twice_is_processed_once(store: Store,
                                                           config: Config) -> None:
    arrive(store, "twice")
    arrive(store, "twice")
    processor = Recorder()
    process_pending(store, config, processor)
    assert processor.calls == {"twice": 1}
    assert len(rows(store)) == 1


def test_messages_are_processed_in_arrival_order(store: Store, config: Config) -> None:
    arrive(store, "m1", "m2", "m3")
    order: list[str] = []

    def note_order(session: Session, row: InboundMessage) -> str:
        order.append(row.envelope_sender.split("@")[0])
        return "done"

    process_pending(store, config, note_order)
    assert order == ["m1", "m2", "m3"]


# --------------------------------------------------------------------------- the CLI


def run_judge(db_url: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["JUDGE_DATABASE_URL"] = db_url
    return run_cli(args, env=env, cwd=cwd)


def test_inbound_list_and_retry(store: Store, config: Config, db_url: str,
                                tmp_path: Path) -> None:
    ids = arrive(store, "good", "bad")
    process_pending(store, config, Recorder("bad"))
    bad_id, good_id = ids["bad"], ids["good"]

    listed = run_judge(db_url, tmp_path, "inbound", "list")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split()[:3] == ["id", "status", "tries"]
    assert len(lines) == 2  # the header and the one failed message
    assert lines[1].split()[:4] == [str(bad_id), "failed", str(MAX), "bad@example.org"]
    assert "cannot digest bad" in lines[1]

    everything = run_judge(db_url, tmp_path, "inbound", "list", "--status", "all")
    assert {line.split()[0] for line in everything.stdout.splitlines()[1:]} == \
        {str(bad_id), str(good_id)}

    retried = run_judge(db_url, tmp_path, "inbound", "retry", str(bad_id))
    assert retried.returncode == 0, retried.stderr
    assert "1 message(s) queued again" in retried.stdout
    assert rows(store)[bad_id][:2] == ("new", 0)
    assert run_judge(db_url, tmp_path, "inbound", "list").stdout.strip() == "(none)"

    # and the worker now processes it (the bug behind it having been fixed)
    processor = Recorder()
    process_pending(store, config, processor)
    assert processor.calls == {"bad": 1}
    assert rows(store)[bad_id][0] == "done"


def test_inbound_retry_refuses_what_it_cannot_retry(store: Store, config: Config, db_url: str,
                                                    tmp_path: Path) -> None:
    ids = arrive(store, "good")
    process_pending(store, config, Recorder())

    done = run_judge(db_url, tmp_path, "inbound", "retry", str(ids["good"]))
    assert done.returncode != 0
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "not failed" in done.stderr
    assert rows(store)[ids["good"]][0] == "done"

    unknown = run_judge(db_url, tmp_path, "inbound", "retry", "4242")
    assert unknown.returncode != 0
    assert len(unknown.stderr.splitlines()) == 1, unknown.stderr
    assert "4242" in unknown.stderr


# --------------------------------------------------------------------------- batches


def test_a_batch_claims_only_untried_messages_together(store: Store, config: Config) -> None:
    ids = arrive(store, "a", "b", "c", "d")
    with store.transaction() as s:  # "c" was tried before (its try may have crashed the daemon)
        s.get(InboundMessage, ids["c"]).attempts = 1  # type: ignore[union-attr]
    assert claim_batch(store, config, limit=10) == [ids["a"], ids["b"]]
    assert claim_batch(store, config, limit=10) == [ids["c"]]  # alone
    assert claim_batch(store, config, limit=10) == [ids["d"]]
    assert claim_batch(store, config, limit=10) == []  # all leased
    assert {n: rows(store)[i][1] for n, i in ids.items()} == {"a": 1, "b": 1, "c": 2, "d": 1}


def version_mail(name: str) -> Arrival:
    raw = (f"From: {name}@example.org\r\nTo: {JUDGE}\r\nSubject: v\r\n"
           f"Message-ID: <{name}@example.org>\r\n\r\nVERSION\r\n").encode()
    return Arrival(JUDGE, f"{name}@example.org", raw, f"<{name}@example.org>")


def test_one_failing_message_of_a_batch_is_rolled_back_alone(
        store: Store, config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.pipeline.stages import Pipeline
    from judge.store.models import OutboxMessage
    store_arrivals(store, [version_mail(n) for n in ("p1", "p2", "bad", "p3")])
    real_step = Pipeline._step

    def step(self, run, session, row):  # type: ignore[no-untyped-def]
        outcome = real_step(self, run, session, row)  # its reply is queued, then it fails
        if run.mail.sender.startswith("bad@"):
            raise RuntimeError("cannot digest bad")
        return outcome

    monkeypatch.setattr(Pipeline, "_step", step)
    assert work_batch(store, config, Pipeline(config), limit=10, seconds=60) == 4
    with store.transaction() as s:
        status = {r.envelope_sender: (r.status, r.attempts, r.note)
                  for r in s.scalars(select(InboundMessage))}
        replies = sorted(r.recipients for r in s.scalars(select(OutboxMessage)))
    assert replies == ["p1@example.org", "p2@example.org", "p3@example.org"]  # not "bad"
    assert status["bad@example.org"] == ("new", 1, "RuntimeError: cannot digest bad")
    assert [status[f"p{i}@example.org"][0] for i in (1, 2, 3)] == ["done"] * 3


def all_read(reads: InOrder[Any]) -> tuple[list[Any], list[tuple[int, Exception]]]:
    """Every slot of a batch's reading, in order: the runs, and the failures."""
    runs, failures = [], []
    while (got := reads.take()) is not DONE:
        inbound_id, outcome = got
        if isinstance(outcome, Exception):
            failures.append((inbound_id, outcome))
        elif outcome is not None:
            runs.append(outcome)
    return runs, failures


def test_a_batch_needing_password_hashes_is_read_by_two_threads_in_order(
        store: Store, config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a message needed a hash, two helper threads take over the reading; the runs
    still come out in arrival order, and one that fails to read is returned as a failure."""
    import threading

    from judge.pipeline.stages import Pipeline
    from judge.service.access import passwords

    # Each helper waits for the other at its first message: with hashes this cheap, one could
    # otherwise read the whole rest before the other had started.
    both = threading.Barrier(2, timeout=10)

    store_arrivals(store, [Arrival("judge@example.org", f"p{i}@example.org",
                                   f"Message-ID: <h{i}@x>\r\n\r\nVERSION\r\n".encode(), f"<h{i}@x>")
                           for i in range(16)])
    ids = claim_batch(store, config, None, 20)
    readers: dict[int, str] = {}

    def read(self: Pipeline, run: object, session: Session, row: StoredMail) -> None:
        me = threading.current_thread().name
        if me != threading.main_thread().name and me not in readers.values():
            both.wait()
        readers[row.id] = me
        passwords.hash_password("secret")  # as a first sign-on would
        if row.id == ids[5]:
            raise ValueError("unreadable")

    monkeypatch.setattr(Pipeline, "_read", read)
    runs, failures = all_read(Pipeline(config)._read_all(store, ids))
    assert [run.inbound_id for run in runs] == [i for i in ids if i != ids[5]]
    assert [i for i, _ in failures] == [ids[5]]
    # this thread read the first, then handed the rest to two helpers
    assert readers[ids[0]] == threading.current_thread().name
    assert len(set(readers.values()) - {threading.current_thread().name}) == 2


def test_a_batch_needing_no_hash_is_read_by_one_thread(
        store: Store, config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from judge.pipeline.stages import Pipeline

    store_arrivals(store, [Arrival("judge@example.org", f"p{i}@example.org",
                                   f"Message-ID: <n{i}@x>\r\n\r\nVERSION\r\n".encode(), f"<n{i}@x>")
                           for i in range(6)])
    ids = claim_batch(store, config, None, 10)
    readers: set[str] = set()

    def read(self: Pipeline, run: object, session: Session, row: StoredMail) -> None:
        readers.add(threading.current_thread().name)

    monkeypatch.setattr(Pipeline, "_read", read)
    runs, failures = all_read(Pipeline(config)._read_all(store, ids))
    assert [run.inbound_id for run in runs] == ids and not failures
    assert readers == {threading.current_thread().name}


def hashing_read(then=lambda row_id: None):  # type: ignore[no-untyped-def]
    """A stand-in for Pipeline._read that costs a password hash, as a first sign-on does,
    and keeps the run as the real one would (a VERSION mail)."""
    from judge.pipeline.stages import Pipeline
    from judge.service.access import passwords

    real = Pipeline._read

    def read(self: Pipeline, run: Any, session: Session, row: StoredMail) -> None:
        passwords.hash_password("secret")
        then(row.id)
        real(self, run, session, row)
    return read


def test_messages_read_are_written_while_later_ones_are_still_being_read(
        store: Store, config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer does not wait for the whole batch: the last message's reading waits until
    the first one is committed done, which only a writer working beside the readers does."""
    import time

    from judge.pipeline.stages import Pipeline

    store_arrivals(store, [version_mail(f"w{i}") for i in range(8)])
    ids = claim_batch(store, config, None, 10)

    def wait_for_first(row_id: int) -> None:
        if row_id != ids[-1]:
            return
        deadline = time.monotonic() + 10
        while rows(store)[ids[0]][0] != "done":
            assert time.monotonic() < deadline, "the first message was not written meanwhile"
            time.sleep(0.01)

    monkeypatch.setattr(Pipeline, "_read", hashing_read(wait_for_first))
    finished, failures = Pipeline(config).process_batch(store, ids, seconds=60)
    assert failures == [] and finished == len(ids)
    assert {status for status, _, _ in rows(store).values()} == {"done"}


def test_a_reader_that_cannot_start_leaves_its_messages_failed_not_waiting_forever(
        store: Store, config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from judge.pipeline.ordered_handoff import NotRead
    from judge.pipeline.stages import Pipeline

    store_arrivals(store, [version_mail(f"r{i}") for i in range(5)])
    ids = claim_batch(store, config, None, 10)
    real_reading = Store.reading

    def reading(self: Store):  # type: ignore[no-untyped-def]
        if threading.current_thread().name.startswith("judge-read"):
            raise RuntimeError("no connection for a helper")
        return real_reading(self)

    monkeypatch.setattr(Store, "reading", reading)
    monkeypatch.setattr(Pipeline, "_read", hashing_read())
    finished, failures = Pipeline(config).process_batch(store, ids, seconds=60)
    assert finished == 1  # the first, read by the calling thread before it handed over
    assert [i for i, _ in failures] == ids[1:]
    assert all(isinstance(exc, NotRead) for _, exc in failures)
    assert [rows(store)[i][0] for i in ids] == ["done"] + ["new"] * 4  # kept, not lost

