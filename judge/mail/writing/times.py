"""Times as the judge writes them in the text of a mail, in the reader's zone (SET ZONE).

``:: Deadline:`` header lines keep the classic machine form in UTC (``judge_date`` in
judge.mail.writing.game_mail), which mapping tools parse; the text says the same moment for a person:
``Tuesday 24 November 2026, 18:00 CET``.  Templates write ``{{ moment | when }}``: the filter
reads the ``zone`` the mail is rendered for (UTC when none is given).
:func:`zones_of` finds each recipient's zone, so the same mail is rendered once per zone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from jinja2 import pass_context
from jinja2.runtime import Context as JinjaContext
from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.basics.utc import as_utc
from judge.service.clock.moments import format_duration
from judge.store.models import Game, Seat, SeatStatus
from judge.basics.zones import tz

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")


def written(moment: datetime | None, zone: str | None = None) -> str:
    """``Tuesday 24 November 2026, 18:00 CET`` in ``zone`` (UTC by default); '' for None."""
    if moment is None:
        return ""
    local = as_utc(moment).astimezone(tz(zone))  # type: ignore[union-attr]
    name = local.tzname() or ""
    if not name.isalpha():  # zones without an abbreviation call themselves "-03"
        offset = local.strftime("%z")
        name = f"UTC{offset[:3]}:{offset[3:]}"
    return (f"{_DAYS[local.weekday()]} {local.day} {_MONTHS[local.month - 1]} {local.year},"
            f" {local:%H:%M} {name}")


def clock_time(minute: int) -> str:
    """Minutes after midnight as ``22:00``."""
    return f"{minute // 60:02d}:{minute % 60:02d}"


def day_names(days: Iterable[int]) -> str:
    """ISO weekday numbers as names, runs shortened: ``Monday to Friday``, ``Saturday and
    Sunday``, ``Monday, Wednesday and Friday``; every day for none."""
    chosen = sorted(set(days))
    if not chosen or len(chosen) == 7:
        return "every day"
    runs: list[list[int]] = []
    for d in chosen:
        if runs and runs[-1][-1] == d - 1:
            runs[-1].append(d)
        else:
            runs.append([d])
    parts: list[str] = []
    for run in runs:
        if len(run) > 2:
            parts.append(f"{_DAYS[run[0] - 1]} to {_DAYS[run[-1] - 1]}")
        else:
            parts.extend(_DAYS[d - 1] for d in run)
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


@pass_context
def when_filter(context: JinjaContext, moment: datetime | None) -> str:
    """``{{ moment | when }}``: the moment in the zone the mail is rendered for."""
    return written(moment, context.get("zone"))


def install(env: Any) -> None:
    """Give a Jinja environment the filters for times in the text."""
    env.filters["when"] = when_filter
    env.filters["clock_time"] = clock_time
    env.filters["day_names"] = day_names
    env.filters["duration"] = format_duration


def zones_of(session: Session, game_name: str | None, addresses: Iterable[str]
             ) -> dict[str, str]:
    """Each address's zone in the game (that of its role there; UTC for others), as stored
    (judge.basics.zones)."""
    wanted = list(dict.fromkeys(addresses))
    found = dict.fromkeys(wanted, "UTC")
    if not game_name or not wanted:
        return found
    rows = session.execute(
        select(Seat.address, Seat.zone).join(Game, Game.id == Seat.game_id)
        .where(Game.name_key == game_name.lower(), Seat.address.in_(wanted),
               Seat.status == SeatStatus.ACTIVE, Seat.zone.is_not(None))
        .order_by(Seat.id)).all()
    for address, zone in reversed(rows):  # the first role the address holds wins
        found[address] = zone or "UTC"
    return found
