"""Faults of the judge itself while it processes a game, and how a game survives them.

A bug in the judge (or a stored state it can no longer read) must never freeze a game silently
nor take the mail that triggered it down with it.  Processing runs inside a savepoint
(:func:`guarded`): when it fails, only the processing is undone — the orders or commands that
led to it stay — and the fault is recorded on the game:

* the game's next scheduler visit backs off (1 minute, doubling, at most 6 hours), so a failing
  game never holds up the games due after it;
* the game's masters are told what failed, at most once a day (:class:`GameFault`);
* the log says it at error level;
* a restart (how a fix is deployed) makes every faulty game due again at once, and the first
  success clears the record.
"""

from __future__ import annotations

import logging
import traceback
from datetime import datetime, timedelta
from typing import Any, Callable, cast

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from judge.basics.utc import as_utc
from judge.service.errors import GameError
from judge.service.events import Event, GameFault
from judge.service.games import lock_game, seats, variant_title
from judge.store.models import Game

log = logging.getLogger("judge.faults")

FIRST_BACKOFF = timedelta(minutes=1)
MAX_BACKOFF = timedelta(hours=6)
TELL_MASTER_EVERY = timedelta(days=1)


class ProcessingFault(GameError):
    """Processing failed because of a fault in the judge; ``events`` tell the masters, and
    the facts say what was being done (``what``) and what failed (``detail``)."""

    def __init__(self, code: str, events: list[Event], **facts: Any) -> None:
        super().__init__(code, **facts)
        self.events = events

    @property
    def detail(self) -> str:
        return str(self.facts["detail"])


def describe(exc: BaseException) -> str:
    """One line naming the failure, for the log, the master and ``judge inbound list``."""
    return "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]


def backoff(failures: int) -> timedelta:
    return min(FIRST_BACKOFF * 2 ** max(failures - 1, 0), MAX_BACKOFF)


def record_fault(session: Session, game_id: int, now: datetime, what: str,
                 detail: str) -> list[Event]:
    """Count one more failure of the game and back off; returns the masters' notice if due.

    ``what`` says what was being done ("processing S1901M at its deadline"); ``detail`` is the
    failure itself.  Runs in the caller's transaction, which must not be the failed one.
    """
    game = lock_game(session, game_id)
    game.fault_count = (game.fault_count or 0) + 1
    game.fault_note = f"{what}: {detail}"[:2000]
    retry_at = now + backoff(game.fault_count)
    planned = as_utc(game.next_event_at)
    if planned is not None:  # the clock runs: the scheduler visits again at the retry
        game.next_event_at = retry_at if planned <= now else min(planned, retry_at)
    log.error("game %s: %s failed (%d in a row; next try after %s): %s", game.name, what,
              game.fault_count, retry_at.isoformat(timespec="seconds"), detail)
    return tell_masters(session, game, now, what, detail,
                        retry_at if game.next_event_at is not None else None)


def tell_masters(session: Session, game: Game, now: datetime, what: str, detail: str,
                 retry_at: datetime | None = None) -> list[Event]:
    """The masters' notice of a fault, unless they had one in the last day."""
    told = as_utc(game.fault_told_at)
    if told is not None and now - told < TELL_MASTER_EVERY:
        return []
    game.fault_told_at = now
    masters = tuple(dict.fromkeys(s.address for s in seats(session, game, "master")))
    return [GameFault(game=game.name, variant=variant_title(game), to=masters,
                      phase=game.phase, what=what, detail=detail,
                      failures=max(game.fault_count or 0, 1), retry_at=retry_at)]


def clear_fault(game: Game) -> None:
    if game.fault_count:
        log.info("game %s: processed again after %d failure(s)", game.name, game.fault_count)
    game.fault_count, game.fault_note = 0, None


def guarded(session: Session, game: Game, now: datetime, what: str,
            work: Callable[[], list[Event]]) -> list[Event]:
    """Run ``work`` (which processes ``game``) in a savepoint; see the module docstring.

    A :class:`GameError` is a refusal, not a fault: it passes through unchanged.  Any other
    failure undoes ``work`` only, records the fault and raises :class:`ProcessingFault`.
    """
    try:
        with session.begin_nested():
            events = work()
    except GameError:
        raise
    except Exception as exc:
        detail = describe(exc)
        log.exception("game %s: %s failed", game.name, what)
        session.expire(game)  # the savepoint's changes to it are gone
        notices = record_fault(session, game.id, now, what, detail)
        raise ProcessingFault("processing_fault", events=notices, what=what,
                              detail=detail) from exc
    clear_fault(game)
    return events


def retry_faulty_games(session: Session, now: datetime) -> int:
    """Make every game that failed due again now (a restart may bring the fix)."""
    done = session.execute(update(Game).where(Game.fault_count > 0,
                                              Game.next_event_at.is_not(None))
                           .values(next_event_at=now))
    return cast(CursorResult[Any], done).rowcount


def faulty_games(session: Session) -> list[Game]:
    return list(session.scalars(select(Game).where(Game.fault_count > 0).order_by(Game.id)))
