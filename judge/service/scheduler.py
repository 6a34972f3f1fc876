"""The deadline scheduler: reminders, late notices and processing, driven by stored moments.

``due_games`` reads only the ``next_event_at`` index.  ``tick_game`` works on one game in the
caller's transaction: it re-reads the locked row, does every stage that is due (a daemon that
was down past a deadline catches up: no reminder after the deadline, no late notice after the
grace), stores the new stage with the mail it caused, and so never skips or repeats one.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Callable

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.clock import as_utc
from judge.service import clock
from judge.service.events import Event, LateNotice, Reminder
from judge.service.games import lock_game, seats, variant_title
from judge.service.phases import is_ready, process_phase, waiting_powers
from judge.store.db import Store
from judge.store.models import Game

log = logging.getLogger("judge.scheduler")

Deliver = Callable[[Session, list[Event]], None]


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
    while game.state == "active" and game.next_event_at is not None \
            and as_utc(game.next_event_at) <= now:  # type: ignore[operator]
        deadline = clock.deadline_of(game)
        assert deadline is not None
        if game.clock_stage == clock.BEFORE_REMINDER:
            late = waiting_powers(session, game)
            if now < deadline and late:
                events.append(Reminder(**base, to=_addresses(session, game, late),  # type: ignore[arg-type]
                                       phase=game.phase, deadline=deadline, powers=tuple(late)))
            game.clock_stage = clock.REMINDED
        elif game.clock_stage == clock.REMINDED:
            late = waiting_powers(session, game)
            grace_end = clock.grace_until(game)
            if not late or is_ready(session, game) or now >= grace_end:
                events += process_phase(session, game, now, "deadline")
                continue
            masters = [s.address for s in seats(session, game, "master")]
            events.append(LateNotice(**base, to=tuple(dict.fromkeys(  # type: ignore[arg-type]
                _addresses(session, game, late) + tuple(masters))), phase=game.phase,
                deadline=deadline, grace_until=grace_end, powers=tuple(late)))
            game.clock_stage = clock.IN_GRACE
        else:
            events += process_phase(session, game, now, "grace ended")
            continue
        clock.schedule_next(game)
    return events


def run_due(store: Store, now: datetime, deliver: Deliver, limit: int = 100) -> int:
    """One pass: every due game in its own transaction, its mail queued in that transaction."""
    with store.transaction() as session:
        ids = due_games(session, now, limit)
    done = 0
    for game_id in ids:
        try:
            with store.transaction() as session:
                events = tick_game(session, game_id, now)
                deliver(session, events)
            done += 1
        except Exception:
            # One broken game must not stop the others; it stays due and is tried again.
            log.exception("scheduler: game %s failed", game_id)
    return done
