"""Reading the moments and clock settings people write in commands.

A moment is a duration from now (``24h``, see :func:`parse_duration`), or a
date and time: ISO forms with or without an offset (``2026-11-24T18:00Z``,
``2026-11-24 18:00 +0100``), a date and time followed by a zone (``2026-11-24 18:00 CET``,
``… Europe/Paris``), a weekday and time (``Friday 18:00``: the next one), ``today`` or
``tomorrow`` and a time, or a time alone (its next occurrence).  A time without a zone is read
in the writer's zone (SET ZONE; UTC by default).

A clock setting (``SET CLOCK 22:00 MON-FRI ZONE Europe/London``) is a time of day, the weekdays
deadlines may fall on (every day when none is named) and the zone the time is read in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from judge.service.errors import GameError
from judge.basics.zones import tz, zone_named

DAYS = {"MON": 1, "TUE": 2, "WED": 3, "THU": 4, "FRI": 5, "SAT": 6, "SUN": 7}
_FULL = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")
_RELATIVE = {"TODAY": 0, "TOMORROW": 1}

_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
_DURATION_RE = re.compile(r"(\d+)\s*([dhms])")


def parse_duration(text: str) -> int:
    """``48h``, ``2d``, ``1d12h``, ``90m``, ``30s`` (a bare number is hours) → seconds."""
    t = text.strip().lower()
    if t.isdigit():
        return int(t) * 3600
    parts = _DURATION_RE.findall(t)
    if not parts or _DURATION_RE.sub("", t).strip():
        raise GameError("duration_form", text=text)
    return sum(int(n) * _UNITS[u] for n, u in parts)


def format_duration(seconds: int) -> str:
    out: list[str] = []
    for unit, size in _UNITS.items():
        if seconds >= size or (not out and unit == "s"):
            out.append(f"{seconds // size}{unit}")
            seconds %= size
    return "".join(out)


def weekday(word: str) -> int | None:
    """``Mon``, ``Tues``, ``monday`` → 1 … 7 (ISO), None for anything else."""
    w = word.upper().rstrip(".,")
    if len(w) < 3:
        return None
    return next((n for n, full in enumerate(_FULL, 1) if full.startswith(w)), None)


def time_of_day(word: str) -> time | None:
    """``18:00``, ``18.00``, ``6:05`` → a time, None for anything else (``1800`` too: a bare
    number is a duration in hours)."""
    w = word.replace(".", ":")
    parts = w.split(":")
    if len(parts) != 2 or not all(p.isdigit() for p in parts) or len(parts[1]) != 2 \
            or not 1 <= len(parts[0]) <= 2:
        return None
    hours, minutes = int(parts[0]), int(parts[1])
    if hours > 23 or minutes > 59:
        return None
    return time(hours, minutes)


def _iso(text: str) -> datetime | None:
    try:
        found = datetime.fromisoformat(text)
    except ValueError:
        return None
    return found


def _is_date(word: str) -> bool:
    try:
        date.fromisoformat(word)
    except ValueError:
        return False
    return len(word) == 10


@dataclass(frozen=True)
class Moment:
    when: datetime
    # a date without a time of day: the day's start (an absence's last day ends a day later)
    date_only: bool = False


def parse_moment(text: str, now: datetime, zone: str | None) -> Moment | None:
    """The moment ``text`` names (aware, UTC), or None when it is not a date or time."""
    words = text.split()
    if not words or len(words) > 4:
        return None
    given = None
    if len(words) > 1 and zone_named(words[-1]) is not None and time_of_day(words[-1]) is None:
        given = zone_named(words[-1])
        words = words[:-1]
    local_zone = tz(given if given is not None else zone)
    found: datetime | None = None
    date_only = False
    if len(words) == 1:
        word = words[0]
        t = time_of_day(word)
        if t is not None:
            found = _next(now, local_zone, t, None)
        elif _is_date(word):
            found, date_only = datetime.fromisoformat(word), True
        elif "T" in word.upper() and _is_date(word[:10]):
            found = _iso(word.upper().replace("Z", "+00:00"))
    elif len(words) == 2:
        first, second = words
        t = time_of_day(second)
        if _is_date(first):
            found = _iso(f"{first}T{second.upper().replace('Z', '+00:00')}")
        elif t is not None and first.upper() in _RELATIVE:
            day = now.astimezone(local_zone).date() + timedelta(days=_RELATIVE[first.upper()])
            found = datetime.combine(day, t, tzinfo=local_zone)
        elif t is not None and weekday(first) is not None:
            found = _next(now, local_zone, t, weekday(first))
    if found is None:
        return None
    if found.tzinfo is None:
        found = found.replace(tzinfo=local_zone)
    elif given is not None and found.tzinfo is not local_zone:
        return None  # an offset written into the time, and a zone after it: which one?
    return Moment(found.astimezone(tz("UTC")), date_only)


def _next(now: datetime, zone, at: time, day: int | None) -> datetime:
    """The first moment after ``now`` that is ``at`` o'clock (on weekday ``day``) in ``zone``."""
    local = now.astimezone(zone).date()
    for offset in range(8):
        d = local + timedelta(days=offset)
        if day is not None and d.isoweekday() != day:
            continue
        candidate = datetime.combine(d, at, tzinfo=zone)
        if candidate > now:
            return candidate
    return datetime.combine(local + timedelta(days=8), at, tzinfo=zone)  # not reached


def parse_when(text: str, now: datetime, zone: str | None = None) -> datetime:
    """A deadline: a duration from now, or a moment (:func:`parse_moment`)."""
    moment = parse_moment(text, now, zone)
    if moment is not None:
        return moment.when
    try:
        return now + timedelta(seconds=parse_duration(text))
    except GameError:
        raise GameError("moment_form", text=text.strip()) from None


@dataclass(frozen=True)
class ClockSetting:
    """When deadlines fall: ``minute`` after midnight in ``zone``, on ``days`` (ISO weekdays;
    empty: every day)."""

    minute: int
    days: tuple[int, ...]
    zone: str


def parse_days(words: list[str]) -> tuple[int, ...]:
    """``MON TUE``, ``MON-FRI``, ``SAT,SUN``, ``WEEKDAYS``, ``WEEKENDS`` → sorted ISO numbers."""
    found: set[int] = set()
    for word in " ".join(words).replace(",", " ").split():
        upper = word.upper()
        if upper in ("WEEKDAYS", "WEEKDAY"):
            found |= {1, 2, 3, 4, 5}
        elif upper in ("WEEKENDS", "WEEKEND"):
            found |= {6, 7}
        elif upper in ("DAILY", "EVERYDAY", "ALL"):
            found |= set(range(1, 8))
        elif "-" in upper:
            a, _, b = upper.partition("-")
            first, last = weekday(a), weekday(b)
            if first is None or last is None:
                raise GameError("weekdays_form", word=word)
            day = first
            while True:
                found.add(day)
                if day == last:
                    break
                day = day % 7 + 1
        else:
            number = weekday(upper)
            if number is None:
                raise GameError("weekday_form", word=word)
            found.add(number)
    return () if found == set(range(1, 8)) else tuple(sorted(found))


def parse_clock(args: list[str], default_zone: str | None) -> ClockSetting:
    """``22:00 [<days>] [ZONE <zone>]`` (the zone by default: the writer's, else UTC)."""
    if not args:
        raise GameError("clock_needs_time")
    at = time_of_day(args[0])
    if at is None:
        raise GameError("time_of_day_form", word=args[0])
    rest = list(args[1:])
    zone = default_zone or "UTC"
    upper = [w.upper() for w in rest]
    if "ZONE" in upper:
        i = upper.index("ZONE")
        if i != len(rest) - 2:
            raise GameError("zone_last")
        named = zone_named(rest[i + 1])
        if named is None:
            raise GameError("zone_unknown", word=rest[i + 1])
        zone, rest = named, rest[:i]
    return ClockSetting(at.hour * 60 + at.minute, parse_days(rest), zone)
