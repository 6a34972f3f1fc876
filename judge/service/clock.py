"""The game clock: phase durations, deadlines, reminders, grace, and the next scheduler event.

A game's clock is three stored moments and a stage: the reminder (before the deadline), the
deadline and the end of grace.  ``next_event_at`` is always the moment of the next stage, so
the scheduler finds due games through one index and a restart resumes exactly where it was.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from judge.clock import as_utc
from judge.service.errors import GameError
from judge.store.models import Game

BEFORE_REMINDER, REMINDED, IN_GRACE = 0, 1, 2
DEFAULT_SECONDS = {"M": 48 * 3600, "R": 24 * 3600, "A": 24 * 3600}
DEFAULT_GRACE = 24 * 3600
_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_DURATION_RE = re.compile(r"(\d+)\s*([dhms])")


def parse_duration(text: str) -> int:
    """``48h``, ``2d``, ``1d12h``, ``90m``, ``30s`` (a bare number is hours) → seconds."""
    t = text.strip().lower()
    if t.isdigit():
        return int(t) * 3600
    parts = _DURATION_RE.findall(t)
    if not parts or _DURATION_RE.sub("", t).strip():
        raise GameError(f'"{text}" is not a duration: write e.g. 48h, 2d, 1d12h or 90m')
    return sum(int(n) * _UNITS[u] for n, u in parts)


def format_duration(seconds: int) -> str:
    out = []
    for unit, size in _UNITS.items():
        if seconds >= size or (not out and unit == "s"):
            out.append(f"{seconds // size}{unit}")
            seconds %= size
    return "".join(out)


def parse_when(text: str, now: datetime) -> datetime:
    """A deadline: a duration from now (``24h``) or a UTC time ``2026-12-01 18:00``."""
    t = text.strip()
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(t.removesuffix("UTC").strip(), fmt).replace(tzinfo=timezone.utc)
        except ValueError:
            pass
    return now + timedelta(seconds=parse_duration(t))


def duration_of(game: Game, phase_type: str) -> int:
    return {"M": game.movement_seconds, "R": game.retreat_seconds,
            "A": game.adjustment_seconds}[phase_type]


def start_clock(game: Game, now: datetime, deadline: datetime | None = None) -> None:
    """Give the current phase its deadline (now + its duration unless given) and reminder.

    A NO_DEADLINE game has none: it moves on when everybody has ordered or the master
    processes it.
    """
    if "NO_DEADLINE" in game.rules.split():
        game.deadline = game.reminder_at = None
        game.clock_stage = BEFORE_REMINDER
        schedule_next(game)
        return
    seconds = duration_of(game, game.phase[-1])
    game.deadline = deadline or now + timedelta(seconds=seconds)
    # Remind a quarter of the phase before the deadline, never more than a day before.
    lead = timedelta(seconds=min(86400, seconds // 4))
    game.reminder_at = game.deadline - lead
    game.clock_stage = BEFORE_REMINDER
    schedule_next(game)


def stop_clock(game: Game) -> None:
    game.next_event_at = None


def grace_until(game: Game) -> datetime:
    assert game.deadline is not None
    return as_utc(game.deadline) + timedelta(seconds=game.grace_seconds)  # type: ignore[operator]


def schedule_next(game: Game) -> None:
    if game.state != "active" or game.deadline is None:
        game.next_event_at = None
    elif game.clock_stage == BEFORE_REMINDER:
        game.next_event_at = game.reminder_at
    elif game.clock_stage == REMINDED:
        game.next_event_at = game.deadline
    else:
        game.next_event_at = grace_until(game)


def deadline_of(game: Game) -> datetime | None:
    return as_utc(game.deadline)
