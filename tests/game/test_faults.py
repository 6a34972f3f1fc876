"""Faults of the judge itself never freeze a game silently nor stop the others.

A game whose stored state cannot be read, or whose processing fails, backs off, its master is
told, the other games go on, and it continues once the fault is fixed.  A mail that fails every
attempt is set aside with an answer to its sender and a word to the game's master.
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from typing import Callable

import pytest
from conftest import RunningJudge, run_cli
from gamekit import Judge, force_due, signon, start_full_game
from smtpkit import wait_broadcast
from sqlalchemy import select

from judge.basics.utc import utcnow
from judge.commands import registry
from judge.core import initial_position, load_map
from judge.mail.writing.game_mail import queue_events
from judge.pipeline.stages import Pipeline
from judge.pipeline.worker import process_pending
from judge.service.positions import dump_position
from judge.service.clock.scheduler import run_due
from judge.store.models import Game, InboundMessage, PhaseSnapshot

UTC = timezone.utc
STARTING_BOARD = dump_position(initial_position(load_map()))
BROKEN = '{"phase": "S1901M", "units": {"FRANCE": ["A XYZ"]}, "centers": {}, "dislodged": {}}'


def tick(j: Judge, now: datetime) -> None:
    composer = Pipeline(j.config).composer
    run_due(j.store, now, lambda s, ev: queue_events(s, composer, j.config, ev, now))


def holds(power: str) -> str:
    return "\n".join(f"{u} H" for u in load_map().powers[power].starting_units)


def game_row(j: Judge, name: str) -> Game:
    with j.store.transaction() as s:
        return s.scalars(select(Game).where(Game.name_key == name)).one()


def set_position(j: Judge, name: str, text: str) -> None:
    with j.store.transaction() as s:
        s.scalars(select(Game).where(Game.name_key == name)).one().position = text


def played(j: Judge, name: str) -> int:
    with j.store.transaction() as s:
        g = s.scalars(select(Game).where(Game.name_key == name)).one()
        return len(s.scalars(select(PhaseSnapshot).where(PhaseSnapshot.game_id == g.id)).all())


def test_broken_games_back_off_and_never_starve_a_healthy_one(
        judge_in_process: Judge, judge_factory: Callable[..., RunningJudge]) -> None:
    """Three games whose stored board cannot be read, one healthy game, all due; the
    scheduler takes two games a pass.  The healthy one is processed at once, the broken ones
    back off and their masters hear of it; once repaired, a restart carries one on."""
    j = judge_in_process
    names = ["broken1", "broken2", "broken3", "healthy"]
    for name in names:
        start_full_game(j, name, extra="RULES CIVIL_DISORDER")
    now = utcnow()
    for i, name in enumerate(names):  # the broken games are the oldest due, grace over
        force_due(j, name, now - timedelta(hours=4 - i))
        with j.store.transaction() as s:
            s.scalars(select(Game).where(Game.name_key == name)).one().grace_seconds = 0
    for name in names[:3]:
        set_position(j, name, BROKEN)
    judge = judge_factory(JUDGE_SCHEDULER_BATCH="2", JUDGE_SCHEDULER_POLL_SECONDS="60")
    # a poll of a minute: only going round again after a full batch gets the healthy game on
    wait_broadcast(judge, "JUDGE:healthy - S1901M Results", timeout=30)
    for name in names[:3]:
        fault = wait_broadcast(judge, f"JUDGE:{name} - S1901M Fault", timeout=30)
        assert str(fault["To"]) == "master@example.org"
        assert "could not process S1901M" in fault.get_content()
        row = game_row(j, name)
        assert row.fault_count >= 1 and "XYZ" in (row.fault_note or "")
        assert row.next_event_at is not None and row.next_event_at.replace(
            tzinfo=now.tzinfo) > now
    assert "game broken1: its deadline failed" in judge.log()
    judge.stop()
    # the fix: the board is put right; a restart tries every faulty game again at once
    set_position(j, "broken1", STARTING_BOARD)
    judge = judge_factory(JUDGE_SCHEDULER_BATCH="2", JUDGE_SCHEDULER_POLL_SECONDS="0.2")
    wait_broadcast(judge, "JUDGE:broken1 - S1901M Results", timeout=30)
    assert game_row(j, "broken1").fault_count == 0 and played(j, "broken1") == 1


def test_a_fault_while_processing_keeps_the_orders_and_tells_the_master(
        judge_in_process: Judge, monkeypatch: pytest.MonkeyPatch) -> None:
    j = judge_in_process
    at = start_full_game(j)
    import judge.service.processing as phases

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("adjudicator exploded")

    monkeypatch.setattr(phases, "adjudicate", broken)
    powers = sorted(at)
    for power in powers[:-1]:
        j.mail(at[power], f"{signon(j, power)}\n{holds(power)}")
    last = powers[-1]
    reply = j.mail(at[last], f"{signon(j, last)}\n{holds(last)}")
    assert "could not be processed because of a fault in the judge" in reply.body
    assert "Your orders are kept" in reply.body
    faults = [m for m in j.last_broadcasts if m.subject.endswith("Fault")]
    assert len(faults) == 1 and faults[0].to == ["master@example.org"]
    assert "adjudicator exploded" in faults[0].body
    assert game_row(j, "war1901").phase == "S1901M" and played(j, "war1901") == 0
    with j.store.transaction() as s:
        assert set(s.scalars(select(InboundMessage.status))) == {"done"}
    # the scheduler tries again within minutes, not at the deadline
    row = game_row(j, "war1901")
    assert row.next_event_at is not None
    assert row.next_event_at.replace(tzinfo=UTC) - utcnow() < timedelta(minutes=2)
    # the master's PROCESS meets the same fault: a clear refusal, nothing changed
    reply = j.mail("master@example.org", "SIGNON Mwar1901 mpw\nPROCESS")
    assert "could not be processed because of a fault in the judge" in reply.body
    assert game_row(j, "war1901").fault_count == 2, reply.body
    # fixed: the scheduler's next visit processes the phase and clears the record
    monkeypatch.undo()
    tick(j, utcnow() + timedelta(minutes=3))
    row = game_row(j, "war1901")
    assert row.phase == "F1901M" and row.fault_count == 0 and row.fault_note is None
    assert [m.subject for m in j.new() if m.subject.endswith("Results")]


def test_a_mail_that_fails_every_attempt_is_answered_and_its_master_told(
        judge_in_process: Judge, monkeypatch: pytest.MonkeyPatch) -> None:
    j = judge_in_process
    start_full_game(j)

    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("list exploded")

    spec = registry._REGISTRY[("LIST",)]
    monkeypatch.setitem(registry._REGISTRY, ("LIST",), replace(spec, handler=broken))
    reply = j.mail("someone@example.org", "LIST war1901")
    assert "could not be processed because of a fault in the judge" in reply.body
    assert "Nothing in it was done" in reply.body
    faults = [m for m in j.last_broadcasts if m.subject.endswith("Fault")]
    assert len(faults) == 1 and faults[0].to == ["master@example.org"]
    assert "list exploded" in faults[0].body
    with j.store.transaction() as s:
        (row,) = s.scalars(select(InboundMessage).where(InboundMessage.status == "failed"))
        assert "set aside after 3 attempts" in (row.note or "")
        failed_id = row.id
    # fixed: the keeper runs it again and the sender gets the usual answer
    monkeypatch.undo()
    ran = run_cli(["inbound", "retry", str(failed_id)],
                  env={**os.environ, "JUDGE_DATABASE_URL": j.store.url})
    assert ran.returncode == 0, ran.stdout + ran.stderr
    process_pending(j.store, j.config, Pipeline(j.config))
    (answer,) = j.new()
    assert answer.to == ["someone@example.org"] and "S1901M" in answer.body
