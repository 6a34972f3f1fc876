"""Game mail: turns the service layer's events into mails (template, recipients, subject), and
queues rendered mails in the caller's transaction.

Subjects and the ``::`` header lines follow the Judge (DESIGN §3.4), which mapping tools parse:
``JUDGE:war1901 - S1901M Results``, ``… Late Notice: FR``, ``… Victory: F``,
``… Draw Declared: AEF``, ``… Concession: A``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from sqlalchemy.orm import Session

from judge.commands.context import Outgoing
from judge.config import Config
from judge.core import load_map
from judge.mail.compose import Composer
from judge.mail.outbox import enqueue
from judge.mail.press_mail import press_outgoing
from judge.service.events import (Event, GameEnded, GameNotice, GameStarted, LateNotice,
                                  PhaseProcessed, PowerAssigned, PressSent, Reminder)


def judge_date(when: datetime | None) -> str:
    """The Judge's date form: ``Sat Nov 28 2026 23:30 +0000``."""
    return when.strftime("%a %b %d %Y %H:%M +0000") if when else ""


def letters(powers: Iterable[str], variant: str = "standard") -> str:
    m = load_map(variant.lower())
    return "".join(m.powers[p].letter for p in powers)


def _subject(judge_name: str, event: Event, what: str) -> str:
    return f"{judge_name}:{event.game} - {event.phase} {what}"


def _ending_subject(e: GameEnded) -> str:
    """``Victory: F``, ``Draw Declared: AEF``, ``Concession: A`` or ``Terminated``."""
    if e.how == "victory" and e.winner:
        return f"Victory: {letters(e.members or [e.winner], e.variant)}"
    if e.how == "draw" and e.members:
        return f"Draw Declared: {letters(e.members, e.variant)}"
    if e.how == "concession" and e.members:
        return f"Concession: {letters(e.members, e.variant)}"
    return "Terminated"


def outgoing_for(events: Iterable[Event], judge_name: str) -> list[Outgoing]:
    out: list[Outgoing] = []
    for e in events:
        if isinstance(e, PressSent):  # two copies: the readers' and the master's
            out.extend(press_outgoing(e, judge_name))
            continue
        if not e.to:
            continue
        variables: dict[str, Any] = {"event": e}
        if isinstance(e, PhaseProcessed):
            out.append(Outgoing("game/results.txt", list(e.to),
                                _subject(judge_name, e, "Results"), variables, e.game))
        elif isinstance(e, GameStarted):
            out.append(Outgoing("game/started.txt", list(e.to),
                                _subject(judge_name, e, "Game Starting"), variables, e.game))
        elif isinstance(e, PowerAssigned):
            out.append(Outgoing("game/assigned.txt", list(e.to),
                                _subject(judge_name, e, f"You are {e.power.capitalize()}"),
                                variables, e.game))
        elif isinstance(e, Reminder):
            out.append(Outgoing("game/reminder.txt", list(e.to),
                                _subject(judge_name, e, f"Reminder: {letters(e.powers)}"),
                                variables, e.game))
        elif isinstance(e, LateNotice):
            out.append(Outgoing("game/late.txt", list(e.to),
                                _subject(judge_name, e, f"Late Notice: {letters(e.powers)}"),
                                variables, e.game))
        elif isinstance(e, GameEnded):
            what = _ending_subject(e)
            out.append(Outgoing("game/ended.txt", list(e.to), _subject(judge_name, e, what),
                                variables, e.game))
        elif isinstance(e, GameNotice):
            out.append(Outgoing("game/notice.txt", list(e.to), _subject(judge_name, e, e.title),
                                variables, e.game))
    return out


def queue_outgoing(session: Session, composer: Composer, config: Config,
                   outgoing: Iterable[Outgoing], now: datetime,
                   inbound_id: int | None = None, **extra: Any) -> int:
    """Render each mail once and queue a copy per recipient (in the caller's transaction).

    One copy each, as the Judge does: a player's address is nobody else's business (in many
    games players do not know who plays which power), so no mail lists its other recipients.
    Returns how many mails were queued.
    """
    count = 0
    variables = dict(judge_name=config.judge.name, judge_address=config.judge.address,
                     judge_date=judge_date, **extra)
    for out in outgoing:
        text = composer.render(out.template, **variables, **out.variables)
        for recipient in dict.fromkeys(out.to):
            enqueue(session, composer.broadcast(to=[recipient], subject=out.subject, body=text,
                                                now=now), inbound_id=inbound_id)
            count += 1
    return count


def queue_events(session: Session, composer: Composer, config: Config, events: list[Event],
                 now: datetime) -> int:
    """The scheduler's delivery: events of one game tick, queued in its transaction."""
    return queue_outgoing(session, composer, config, outgoing_for(events, config.judge.name), now)
