"""The deadline scheduler: reminders, late notices and processing, driven by stored moments.

``due_games`` reads only the ``next_event_at`` index.  ``tick_game`` works on one game in the
caller's transaction: it re-reads the locked row, does every stage that is due (a daemon that
was down past a deadline catches up: no reminder after the deadline, no late notice after the
grace), stores the new stage with the mail it caused, and so never skips or repeats one.

When the grace ends, missing orders are filled in only where the rules say so (CIVIL_DISORDER
for every power, CD_DUMMIES for dummies); if a power the game waits for is still late, the
game enters the WAITING stage instead: the late powers and the master are told once, and the
game has no next event until orders or the master move it on.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.basics.utc import as_utc
from judge.service.clock import game_clock as clock
from judge.service.events import Event, LateNotice, OrdersAwaited, Reminder
from judge.service.faults import ProcessingFault, describe, guarded, record_fault
from judge.service.games import dummy_seats, lock_game, seats, variant_title
from judge.service.processing import (is_ready, overdue_powers, owing_powers, process_phase, waiting_powers)
from judge.store.db import Store, is_sqlite
from judge.store.models import Game, GameState

log = logging.getLogger("judge.scheduler")

Deliver = Callable[[Session, list[Event]], object]


def due_games(session: Session, now: datetime, limit: int = 100) -> list[int]:
    return list(session.scalars(select(Game.id).where(Game.next_event_at <= now)
                                .order_by(Game.next_event_at).limit(limit)))


def _addresses(session: Session, game: Game, powers: list[str]) -> tuple[str, ...]:
    found = [s.address for s in seats(session, game, "power") if s.power in powers]
    return tuple(dict.fromkeys(found))


def tick_game(session: Session, game_id: int, now: datetime) -> list[Event]:
    game = lock_game(session, game_id)
    events: list[Event] = []
    base = dict(game=game.name, variant=variant_title(game))
    while game.state == GameState.ACTIVE and game.next_event_at is not None \
            and as_utc(game.next_event_at) <= now:  # type: ignore[operator]
        if is_ready(session, game):  # every order is in, yet unprocessed (after a fault)
            events += _process(session, game, now, "orders complete")
            continue
        due = as_utc(game.next_event_at)
        deadline = clock.deadline_of(game)
        assert deadline is not None
        if game.clock_stage == clock.BEFORE_REMINDER:
            late = waiting_powers(session, game)
            if now < deadline and late:
                events.append(Reminder(**base, to=_addresses(session, game, late),
                                       phase=game.phase, deadline=deadline, powers=tuple(late)))
            game.clock_stage = clock.REMINDED
        elif game.clock_stage == clock.REMINDED:
            late = owing_powers(session, game)
            grace_end = clock.grace_until(game)
            if not late or is_ready(session, game):
                events += _process(session, game, now, "deadline", since=due)
                continue
            if now >= grace_end:
                events += _grace_over(session, game, now, since=grace_end)
                continue
            masters = [s.address for s in seats(session, game, "master")]
            events.append(LateNotice(**base, to=tuple(dict.fromkeys(
                _addresses(session, game, late) + tuple(masters))), phase=game.phase,
                deadline=deadline, grace_until=grace_end, powers=tuple(late),
                awaited=tuple(overdue_powers(session, game))))
            game.clock_stage = clock.IN_GRACE
        else:
            events += _grace_over(session, game, now, since=due)
            continue
        clock.schedule_next(game)
    return events


class _Faulted(Exception):
    """Processing failed and was recorded (judge.service.faults); ends this game's tick."""

    def __init__(self, events: list[Event]) -> None:
        self.events = events


def _process(session: Session, game: Game, now: datetime, reason: str,
             since: datetime | None = None) -> list[Event]:
    """Process the phase; the next one begins at ``since`` (the moment that fell due) when
    the scheduler came on time (judge.service.clock.game_clock.phase_start), so deadlines do not drift."""
    start = clock.phase_start(since, now)
    try:
        return guarded(session, game, now, f"processing {game.phase} ({reason})",
                       lambda: process_phase(session, game, now, reason, since=start))
    except ProcessingFault as fault:
        raise _Faulted(fault.events) from None


def _grace_over(session: Session, game: Game, now: datetime,
                since: datetime | None = None) -> list[Event]:
    """The grace has ended: process with the missing orders filled in, unless some power's
    are not to be filled in (see :func:`judge.service.processing.overdue_powers`); then wait."""
    awaited = overdue_powers(session, game)
    if not awaited:
        return _process(session, game, now, "grace ended", since=since)
    game.clock_stage = clock.WAITING
    clock.schedule_next(game)  # no next event: orders or the master move the game on
    dummies = {s.power for s in dummy_seats(session, game)}
    masters = [s.address for s in seats(session, game, "master")]
    return [OrdersAwaited(game=game.name, variant=variant_title(game), to=tuple(dict.fromkeys(
        _addresses(session, game, awaited) + tuple(masters))), phase=game.phase,
        grace_until=clock.grace_until(game), powers=tuple(awaited),
        dummies=tuple(p for p in awaited if p in dummies))]


# On SQLite due games share a write transaction (one disk flush) for up to this many seconds
# of work, each in a savepoint of its own: the write lock is never held much longer than this.
# (On PostgreSQL each game has a transaction of its own: schedulers of several daemons then
# never hold the locks of many games at once.)
GROUP_SECONDS = 0.1


def run_due(store: Store, now: datetime, deliver: Deliver, limit: int = 100) -> int:
    """One pass over the due games, oldest first, each with the mail it causes; several games
    commit together (each in a savepoint, so one that fails is rolled back alone).  Returns
    how many games were visited: a full batch means more may wait.

    A game whose processing fails backs off (judge.service.faults), so it is not among the
    due games of the next passes and never holds up the others."""
    with store.transaction() as session:
        ids = due_games(session, now, limit)
    waiting = list(ids)
    while waiting:
        failed: list[tuple[int, Exception]] = []
        until = time.monotonic() + (GROUP_SECONDS if is_sqlite(store.engine) else 0.0)
        with store.transaction() as session:
            while waiting:
                game_id = waiting.pop(0)
                try:
                    with session.begin_nested():
                        try:
                            events = tick_game(session, game_id, now)
                        except _Faulted as faulted:
                            events = faulted.events
                        deliver(session, events)
                except Exception as exc:
                    failed.append((game_id, exc))
                if time.monotonic() >= until:
                    break
        for game_id, error in failed:
            # Failed outside processing (its stored state cannot be read, say): record it
            # in a transaction of its own, so the game backs off and its master hears of it.
            log.error("scheduler: game %s failed", game_id, exc_info=error)
            with store.transaction() as session:
                deliver(session, record_fault(session, game_id, now, "its deadline",
                                              describe(error)))
    return len(ids)
