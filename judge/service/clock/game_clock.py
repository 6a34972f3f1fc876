"""The game clock: phase durations, deadlines, reminders, grace, and the next scheduler event.

A game's clock is three stored moments and a stage: the reminder (before the deadline), the
deadline and the end of grace.  ``next_event_at`` is always the moment of the next stage, so
the scheduler finds due games through one index and a restart resumes exactly where it was.
The last stage, ``WAITING``, has no moment: the grace is over and the game waits for late
powers whose orders are not filled in (no CIVIL_DISORDER); orders, or the master, move it on.

Where a deadline falls: a game with a clock (SET CLOCK: a time of day, weekdays, a zone) has
every deadline at the first allowed time at least the phase's length after the phase began; a
game without one has it the phase's length after, to the whole minute.  A phase that begins
because the last one's deadline (or grace) fell due begins at that moment, not when the
scheduler got to it, so deadlines keep their time of day.  A deadline that falls in a
player's absence moves to its end (judge.service.clock.absences); ``base_deadline`` keeps where the
clock put it, so that an absence withdrawn gives it back.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta, timezone

from sqlalchemy.orm import object_session

from judge.basics.utc import as_utc
from judge.service.clock.granted_absences import covering
from judge.service.clock.moments import ClockSetting
from judge.store.models import Game, GameState
from judge.basics.zones import tz

BEFORE_REMINDER, REMINDED, IN_GRACE, WAITING = 0, 1, 2, 3
DEFAULT_SECONDS = {"M": 48 * 3600, "R": 24 * 3600, "A": 24 * 3600}
DEFAULT_GRACE = 24 * 3600
# A phase processed at most this long after its moment fell due begins at that moment
# (the scheduler's own lateness); later, the judge was down (see phase_start).
ON_TIME = timedelta(hours=1)


def duration_of(game: Game, phase_type: str) -> int:
    return {"M": game.movement_seconds, "R": game.retreat_seconds,
            "A": game.adjustment_seconds}[phase_type]


def clock_setting(game: Game) -> ClockSetting | None:
    """The game's deadline clock (SET CLOCK), or None: deadlines at no fixed time of day."""
    if game.clock_minute is None:
        return None
    return ClockSetting(game.clock_minute, tuple(int(d) for d in game.clock_days or ""),
                        game.clock_zone or "UTC")


def _whole_minute(when: datetime) -> datetime:
    """Up to the next whole minute: deadlines read 22:07, never 22:06:41."""
    cut = when.replace(second=0, microsecond=0)
    return cut if cut == when else cut + timedelta(minutes=1)


def aligned(game: Game, earliest: datetime) -> datetime:
    """The first moment at or after ``earliest`` a deadline of the game may fall on: with a
    clock, its time of day on an allowed weekday (in the clock's zone, summer time included);
    without, the next whole minute."""
    setting = clock_setting(game)
    if setting is None:
        return _whole_minute(earliest)
    zone = tz(setting.zone)
    at = time(setting.minute // 60, setting.minute % 60)
    first = earliest.astimezone(zone).date()
    for offset in range(8):
        day = first + timedelta(days=offset)
        if setting.days and day.isoweekday() not in setting.days:
            continue
        candidate = datetime.combine(day, at, tzinfo=zone)
        if candidate >= earliest:
            return candidate.astimezone(timezone.utc)
    raise AssertionError("a week always has an allowed day")  # pragma: no cover


def phase_start(due: datetime | None, now: datetime) -> datetime:
    """When a phase begins that was processed because a stored moment fell due (its deadline,
    or the end of its grace): that moment, not the scheduler's later look at it, so that the
    deadlines do not drift.  A judge that was down for longer than ``ON_TIME`` gives the new
    phase its whole length from now."""
    if due is not None and now - ON_TIME <= due <= now:
        return due
    return now


def moved_by_absences(game: Game, when: datetime) -> datetime:
    """``when``, or later if it falls in an absence (SET ABSENCE): the end of the
    absence, at the first moment the game's clock allows."""
    session = object_session(game)
    if session is None:
        return when
    for _ in range(100):  # each step passes the end of an absence, and they are few
        end = covering(session, game, when)
        if end is None:
            return when
        when = aligned(game, end)
    return when


def start_clock(game: Game, now: datetime, deadline: datetime | None = None,
                since: datetime | None = None) -> None:
    """Give the current phase its deadline and reminder: ``deadline`` if given, else the first
    moment the clock allows at least the phase's length after ``since`` (default: now); then
    moved past any absence it falls in.

    A NO_DEADLINE game has none: it moves on when everybody has ordered or the master
    processes it.
    """
    if "NO_DEADLINE" in game.rules.split():
        game.deadline = game.reminder_at = game.base_deadline = None
        game.clock_stage = BEFORE_REMINDER
        schedule_next(game)
        return
    seconds = duration_of(game, game.phase[-1])
    base = deadline or aligned(game, (since or now) + timedelta(seconds=seconds))
    game.base_deadline = base
    _place(game, moved_by_absences(game, base))


def _place(game: Game, deadline: datetime) -> None:
    seconds = duration_of(game, game.phase[-1])
    game.deadline = deadline
    # Remind a quarter of the phase before the deadline, never more than a day before.
    lead = timedelta(seconds=min(86400, seconds // 4))
    game.reminder_at = deadline - lead
    game.clock_stage = BEFORE_REMINDER
    schedule_next(game)


def refresh_deadline(game: Game, now: datetime) -> bool:
    """Absences came or went: move the current deadline to where they now put it (from the
    deadline the clock gave).  Only a deadline still ahead moves, and never into the past;
    True when it moved."""
    current = deadline_of(game)
    base = as_utc(game.base_deadline) or current
    if game.state != GameState.ACTIVE or current is None or base is None or current <= now \
            or game.clock_stage not in (BEFORE_REMINDER, REMINDED):
        return False
    new = moved_by_absences(game, base)
    if new == current or new <= now:
        return False
    reminded = game.clock_stage == REMINDED
    _place(game, new)
    if reminded and as_utc(game.reminder_at) <= now:  # type: ignore[operator]
        game.clock_stage = REMINDED  # the reminder was sent, and would be due again at once
        schedule_next(game)
    return True


def stop_clock(game: Game) -> None:
    game.next_event_at = None


def grace_until(game: Game) -> datetime:
    deadline = as_utc(game.deadline)
    assert deadline is not None
    return deadline + timedelta(seconds=game.grace_seconds)


def schedule_next(game: Game) -> None:
    if game.state != GameState.ACTIVE or game.deadline is None or game.clock_stage == WAITING:
        game.next_event_at = None  # WAITING: orders or the master move the game, not time
    elif game.clock_stage == BEFORE_REMINDER:
        game.next_event_at = game.reminder_at
    elif game.clock_stage == REMINDED:
        game.next_event_at = game.deadline
    else:
        game.next_event_at = grace_until(game)


def deadline_of(game: Game) -> datetime | None:
    return as_utc(game.deadline)
