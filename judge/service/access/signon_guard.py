"""Failed SIGNONs: guessing a role's password is slowed down and soon stopped, but the role's
own player is never locked out.

Failures are counted per UTC day, for each game and role (a power's initial, M or O):

* from one address: after ``FREE_TRIES`` failures each further try must wait twice as long as
  the one before (1 minute, 2, 4 …), and after ``per_sender`` failures (``[limits]
  signon_failures_per_sender``) that address's passwords for the role are not checked again
  that day;
* from every address other than the role's own: after ``FREE_ROLE_TRIES`` failures every such
  try waits the same doubling time after the last failure, and after ``per_role`` failures
  (``[limits] signon_failures_per_role``) no password for the role is checked from another
  address until the day ends.

A SIGNON from the role's registered address is always checked, so its player can always sign
on.  (Someone who forges that address can keep guessing, but blind: every answer goes to the
address itself, and the failures are reported.)  After ``NOTICE_AFTER`` failures in a day the
role's player and the game's master are told, once a day.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from judge.basics.utc import as_utc
from judge.service.errors import GameError
from judge.store import counters
from judge.store.models import Game

FREE_TRIES = 2
FREE_ROLE_TRIES = 5
NOTICE_AFTER = 3
FAILED, NOTICED = "signon-fail", "signon-notice"
OTHERS, EVERYONE = "*others", "*all"


def _subject(game: Game, role: str, who: str) -> str:
    return f"{game.id}:{role}:{who}"


def _wait_until(failures: int, free: int, last: datetime | None) -> datetime | None:
    if failures < free or last is None:
        return None
    since = as_utc(last)
    assert since is not None
    return since + timedelta(minutes=2 ** (failures - free))


def refusal(session: Session, game: Game, role: str, sender: str, own: bool, now: datetime,
            per_sender: int, per_role: int) -> GameError | None:
    """Why a SIGNON for ``role`` from ``sender`` is not checked now (a refusal for the
    caller to return, not raised: see ``SignonResult``), or None."""
    if own:
        return None
    failures, last = counters.last(session, FAILED, _subject(game, role, sender), now)
    if failures >= per_sender:
        return GameError("signon_sender_stopped", role=role, game=game.name)
    until = _wait_until(failures, FREE_TRIES, last)
    if until is not None and now < until:
        return GameError("signon_sender_waits", role=role, game=game.name, until=until)
    failures, last = counters.last(session, FAILED, _subject(game, role, OTHERS), now)
    if failures >= per_role:
        return GameError("signon_role_stopped", role=role, game=game.name)
    until = _wait_until(failures, FREE_ROLE_TRIES, last)
    if until is not None and now < until:
        return GameError("signon_role_waits", role=role, game=game.name, until=until)
    return None


def record_failure(session: Session, game: Game, role: str, sender: str, own: bool,
                   now: datetime) -> int | None:
    """Count a failed SIGNON; returns the day's failures for the role when its player and
    master are to be told now (once a day), else None."""
    counters.bump(session, FAILED, _subject(game, role, sender), now)
    if not own:
        counters.bump(session, FAILED, _subject(game, role, OTHERS), now)
    total = counters.bump(session, FAILED, _subject(game, role, EVERYONE), now)
    if total < NOTICE_AFTER or counters.count(session, NOTICED, _subject(game, role, ""), now):
        return None
    counters.bump(session, NOTICED, _subject(game, role, ""), now)
    return total
