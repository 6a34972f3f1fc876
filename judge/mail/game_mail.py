"""Game mail: turns the service layer's events into mails (template, recipients, subject), and
queues rendered mails in the caller's transaction.

Subjects and the ``::`` header lines follow the classic Judge (docs/mail-format.md), which mapping
tools parse:
``JUDGE:war1901 - S1901M Results``, ``… Late Notice: FR``, ``… Victory: F``,
``… Draw Declared: AEF``, ``… Concession: A``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.utc import as_utc
from judge.mail.outgoing import Outgoing
from judge.config import Config
from judge.core import load_map
from judge.mail.compose import Composer, make_environment
from judge.mail.outbox import enqueue_copy
from judge.mail.pictures import pictures_off, results_attachment
from judge.mail.press_mail import press_outgoing
from judge.mail.recipients import screen
from judge.mail.times import zones_of
from judge.service.passes import link_query
from judge.service.events import (Event, FormalRepaired, GameEnded, GameFault, GameNotice,
                                  GameResumed, GameStarted, LateNotice, OrdersAwaited,
                                  OrdersByMaster, ParameterChanged, PhaseProcessed,
                                  PlayerRemoved, PowerAssigned, PressSent,
                                  Reminder, SignonFailures)
from judge.store.models import Game


def judge_date(when: datetime | None) -> str:
    """The Judge's date form, in UTC and with seconds as the classic ``:: Deadline:`` header
    has them (mapping tools parse it): ``Sat Nov 28 2026 23:30:00 +0000``."""
    return (as_utc(when).astimezone(timezone.utc)  # type: ignore[union-attr]
            .strftime("%a %b %d %Y %H:%M:%S +0000")) if when else ""


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


def notice_title(e: GameNotice) -> str:
    """The subject's words of an announcement, as its template sets them (``title``)."""
    template = make_environment().get_template(f"game/notices/{e.kind}.txt")
    return str(vars(template.make_module({"event": e}))["title"])


def outgoing_for(events: Iterable[Event], judge_name: str) -> list[Outgoing]:
    out: list[Outgoing] = []
    for e in events:
        if isinstance(e, PressSent):  # two copies: the readers' and the master's
            out.extend(press_outgoing(e, judge_name))
            continue
        if not e.to and not getattr(e, "master_to", ()):
            continue
        variables: dict[str, Any] = {"event": e}
        if isinstance(e, PhaseProcessed):
            out.append(Outgoing("game/results.txt", list(e.to),
                                _subject(judge_name, e, "Results"), variables, e.game,
                                map_phase=e.phase))
        elif isinstance(e, GameStarted):  # the players' copy, and the master's
            for to, master_copy in ((e.to, False), (e.master_to, True)):
                if to:
                    out.append(Outgoing("game/started.txt", list(to),
                                        _subject(judge_name, e, "Game Starting"),
                                        dict(variables, master_copy=master_copy), e.game))
            continue
        elif isinstance(e, PowerAssigned):
            out.append(Outgoing("game/assigned.txt", list(e.to),
                                _subject(judge_name, e, f"You are {e.power.capitalize()}"),
                                variables, e.game))
        elif isinstance(e, PlayerRemoved):
            what = {"ejected": "Ejected", "replaced": "Replaced",
                    "dummy": "Power made a dummy"}[e.how]
            out.append(Outgoing("game/removed.txt", list(e.to), _subject(judge_name, e, what),
                                variables, e.game))
        elif isinstance(e, OrdersByMaster):
            out.append(Outgoing("game/master_orders.txt", list(e.to),
                                _subject(judge_name, e, f"Orders for {e.power.capitalize()}"
                                         " by the master"), variables, e.game))
        elif isinstance(e, Reminder):
            out.append(Outgoing("game/reminder.txt", list(e.to),
                                _subject(judge_name, e, f"Reminder: {letters(e.powers)}"),
                                variables, e.game))
        elif isinstance(e, LateNotice):
            out.append(Outgoing("game/late.txt", list(e.to),
                                _subject(judge_name, e, f"Late Notice: {letters(e.powers)}"),
                                variables, e.game))
        elif isinstance(e, OrdersAwaited):
            out.append(Outgoing("game/waiting.txt", list(e.to),
                                _subject(judge_name, e, f"Waiting: {letters(e.powers)}"),
                                variables, e.game))
        elif isinstance(e, FormalRepaired):
            what = {"war": "War", "peace": "Peace", "sphere": "Sphere", "nosphere": "Sphere",
                    "points": "Points"}[e.what]
            out.append(Outgoing("game/formal_repair.txt", list(e.to),
                                _subject(judge_name, e, f"{what} set by the master"),
                                variables, e.game))
        elif isinstance(e, GameEnded):
            what = _ending_subject(e)
            out.append(Outgoing("game/ended.txt", list(e.to), _subject(judge_name, e, what),
                                variables, e.game))
        elif isinstance(e, GameFault):
            out.append(Outgoing("game/fault.txt", list(e.to), _subject(judge_name, e, "Fault"),
                                variables, e.game))
        elif isinstance(e, SignonFailures):
            out.append(Outgoing("game/signon_failures.txt", list(e.to),
                                _subject(judge_name, e, "Failed sign-ons"), variables, e.game))
        elif isinstance(e, ParameterChanged):
            out.append(Outgoing("game/parameters.txt", list(e.to),
                                _subject(judge_name, e, "Parameter Change"), variables, e.game))
        elif isinstance(e, GameResumed):
            out.append(Outgoing("game/resumed.txt", list(e.to), _subject(judge_name, e, "Resumed"),
                                variables, e.game))
        elif isinstance(e, GameNotice):
            out.append(Outgoing("game/notice.txt", list(e.to),
                                _subject(judge_name, e, notice_title(e)), variables, e.game))
    return out


def queue_outgoing(session: Session, composer: Composer, config: Config,
                   outgoing: Iterable[Outgoing], now: datetime,
                   inbound_id: int | None = None, withheld: list[str] | None = None,
                   **extra: Any) -> int:
    """Render each mail once per zone its recipients read times in (SET ZONE; the ``when``
    filter, judge.mail.times) and queue a copy per recipient (in the caller's transaction).

    One copy each, as the Judge does: a player's address is nobody else's business (in many
    games players do not know who plays which power), so no mail lists its other recipients.
    Only addresses the judge may write to get one (judge.mail.recipients; those it holds back
    are added to ``withheld``).  Returns how many mails were queued.
    """
    count = 0
    variables = dict(judge_name=config.judge.name, judge_address=config.judge.address,
                     judge_date=judge_date, web_url=config.web_url, **extra)
    for out in outgoing:
        to = screen(session, out.to, now, withheld)
        if not to:
            continue
        # times in the text are written in each recipient's zone: rendered once per zone
        zones = zones_of(session, out.game, to)
        link = _web_pass(session, config, out.game)
        texts = {zone: composer.render(out.template, **variables, **out.variables, zone=zone,
                                       web_pass=link)
                 for zone in dict.fromkeys(zones.values())}
        picture = results_attachment(session, out.game, out.map_phase) if out.map_phase \
            else None
        no_picture = pictures_off(session, out.game) if picture else set()
        # built once per text, copied per recipient (the copies differ in To and Message-ID)
        copies = {zone: composer.broadcast_copies(subject=out.subject, body=text, now=now)
                  for zone, text in texts.items()}
        for recipient in to:
            enqueue_copy(session, copies[zones[recipient]], recipient, inbound_id=inbound_id,
                         attachment=None if recipient in no_picture else picture)
            count += 1
    return count


def _web_pass(session: Session, config: Config, game_name: str | None) -> str:
    """The pass a link to a private game's page carries in mail to its own people."""
    if not config.web_url or not game_name:
        return ""
    game = session.scalars(select(Game).where(Game.name_key == game_name.lower())).first()
    return link_query(game) if game is not None else ""


def queue_events(session: Session, composer: Composer, config: Config, events: list[Event],
                 now: datetime) -> int:
    """The scheduler's delivery: events of one game tick, queued in its transaction."""
    return queue_outgoing(session, composer, config, outgoing_for(events, config.judge.name), now)
