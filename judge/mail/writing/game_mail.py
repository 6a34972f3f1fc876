"""Game mail: turns the service layer's events into mails (template, recipients, subject), and
queues rendered mails in the caller's transaction.

Subjects and the ``::`` header lines follow the classic Judge (docs/mail-format.md), which mapping
tools parse:
``JUDGE:war1901 - S1901M Results``, ``… Late Notice: FR``, ``… Victory: F``,
``… Draw Declared: AEF``, ``… Concession: A``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from email import quoprimime
from typing import Any, Callable, Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.basics.utc import as_utc
from judge.mail.writing.mail_to_others import Outgoing
from judge.basics.config import Config
from judge.core import load_map
from judge.mail.writing.compose import LONGEST_7BIT_LINE, Composer, make_environment
from judge.mail.sending.outbox import enqueue_copy
from judge.mail.writing.attached_maps import pictures_off, results_attachment
from judge.mail.writing.press_mail import press_outgoing
from judge.mail.guards.recipients import screen
from judge.mail.writing.times import zones_of
from judge.service.access.confirmations import standing
from judge.service.access.passes import link_query, seat_of
from judge.service.events import (AddressFailing, ConfirmationAsked, Event, FormalRepaired, GameEnded,
                                  GameFault, GameNotice, GameResumed, GameStarted, LateNotice,
                                  OrdersAwaited, OrdersByMaster, ParameterChanged,
                                  PhaseProcessed, PlayerRemoved, PowerAssigned, PressSent,
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


# Each kind of game event mailed: its template, and the words of its subject.
_MAILS: dict[type, tuple[str, Callable[[Any], str]]] = {
    PhaseProcessed: ("game/results.txt", lambda e: "Results"),
    PowerAssigned: ("game/assigned.txt", lambda e: f"You are {e.power.capitalize()}"),
    PlayerRemoved: ("game/removed.txt", lambda e: {
        "ejected": "Ejected", "replaced": "Replaced", "dummy": "Power made a dummy",
        "closed": "Closed to observers"}[e.how]),
    ConfirmationAsked: ("game/confirm.txt", lambda e: "Confirm your address"),
    OrdersByMaster: ("game/master_orders.txt",
                     lambda e: f"Orders for {e.power.capitalize()} by the master"),
    Reminder: ("game/reminder.txt", lambda e: f"Reminder: {letters(e.powers)}"),
    LateNotice: ("game/late.txt", lambda e: f"Late Notice: {letters(e.powers)}"),
    OrdersAwaited: ("game/waiting.txt", lambda e: f"Waiting: {letters(e.powers)}"),
    FormalRepaired: ("game/formal_repair.txt", lambda e: {
        "war": "War", "peace": "Peace", "sphere": "Sphere", "nosphere": "Sphere",
        "points": "Points"}[e.what] + " set by the master"),
    GameEnded: ("game/ended.txt", lambda e: _ending_subject(e)),
    GameFault: ("game/fault.txt", lambda e: "Fault"),
    SignonFailures: ("game/signon_failures.txt", lambda e: "Failed sign-ons"),
    ParameterChanged: ("game/parameters.txt", lambda e: "Parameter Change"),
    GameResumed: ("game/resumed.txt", lambda e: "Resumed"),
    GameNotice: ("game/notice.txt", lambda e: notice_title(e)),
    AddressFailing: ("game/address_failing.txt", lambda e: "Address Failing"),
}


def outgoing_for(events: Iterable[Event], judge_name: str) -> list[Outgoing]:
    """The mails the game events of one command (or one processing) send."""
    out: list[Outgoing] = []
    for e in events:
        if isinstance(e, PressSent):  # two copies: the readers' and the master's
            out.extend(press_outgoing(e, judge_name))
        elif isinstance(e, GameStarted):  # the players' copy, and the master's
            out.extend(Outgoing("game/started.txt", list(to),
                                _subject(judge_name, e, "Game Starting"),
                                {"event": e, "master_copy": master_copy}, e.game)
                       for to, master_copy in ((e.to, False), (e.master_to, True)) if to)
        elif e.to and type(e) in _MAILS:
            template, subject = _MAILS[type(e)]
            asks = isinstance(e, ConfirmationAsked) or (
                isinstance(e, PowerAssigned) and e.confirm_code is not None)
            out.append(Outgoing(template, list(e.to), _subject(judge_name, e, subject(e)),
                                {"event": e}, e.game,
                                map_phase=e.phase if isinstance(e, PhaseProcessed) else None,
                                asks_confirmation=asks))
    return out


def recipients_of(session: Session, out: Outgoing) -> tuple[list[str], frozenset[str]]:
    """Whom ``out`` may go to, as far as its game is concerned, and those of them who are no
    strangers to it (they confirmed a seat in it: judge.service.access.confirmations).  Nobody still
    waiting to confirm gets a game's mail, but for the one mail that asks them to."""
    to = list(dict.fromkeys(out.to))
    if not out.game:
        return to, frozenset()
    found = standing(session, out.game, to)
    if found.waiting and not out.asks_confirmation:
        to = [a for a in to if a not in found.waiting]
    return to, found.known


# The header lines of a copy (From, To, Subject, Date, Message-ID, Auto-Submitted, the
# version, the content's three): about this many bytes besides the subject's words.
HEADER_BYTES = 400


def copy_bytes(render: Callable[..., str], config: Config, out: Outgoing) -> int:
    """About how many bytes one copy of ``out`` is (rendered as for a reader in UTC, the body
    as the mail carries it): what the per-mail and daily byte budgets count
    (judge.commands.execute).  A sample of results is three to four kilobytes."""
    text = render(out.template, **_variables(config), **out.variables, zone="UTC", web_pass="")
    body = text.encode("utf-8")
    if not body.isascii() or any(len(line) > LONGEST_7BIT_LINE for line in body.split(b"\n")):
        size = quoprimime.body_length(body)  # as the email package will encode it
    else:
        size = len(body)
    return size + len(out.subject.encode("utf-8")) + HEADER_BYTES


def _variables(config: Config) -> dict[str, Any]:
    """What every game mail's template is given besides its own variables."""
    return dict(judge_name=config.judge.name, judge_address=config.judge.address,
                judge_date=judge_date, web_url=config.web_url)


def queue_outgoing(session: Session, composer: Composer, config: Config,
                   outgoing: Iterable[Outgoing], now: datetime,
                   inbound_id: int | None = None, withheld: list[str] | None = None,
                   **extra: Any) -> int:
    """Render each mail once per zone its recipients read times in (SET ZONE; the ``when``
    filter, judge.mail.writing.times) and queue a copy per recipient (in the caller's transaction).

    One copy each, as the Judge does: a player's address is nobody else's business (in many
    games players do not know who plays which power), so no mail lists its other recipients.
    Only addresses the judge may write to get one (judge.mail.guards.recipients; those it holds back
    are added to ``withheld``), and of a game's seats only those whose address confirmed it
    wants the game's mail (:func:`recipients_of`).  Returns how many mails were queued.
    """
    count = 0
    variables = dict(_variables(config), **extra)
    for out in outgoing:
        to = screen(session, recipients_of(session, out)[0], now, withheld)
        if not to:
            continue
        # times in the text are written in each recipient's zone: rendered once per zone
        zones = zones_of(session, out.game, to)
        # a private game's link carries a code of each recipient's own: one text each then
        links = _web_codes(session, config, out.game, to, now)
        kinds = {r: (zones[r], links.get(r, "")) for r in to}
        texts = {kind: composer.render(out.template, **variables, **out.variables,
                                       zone=kind[0], web_code=kind[1])
                 for kind in dict.fromkeys(kinds.values())}
        picture = results_attachment(session, out.game, out.map_phase) if out.map_phase \
            else None
        no_picture = pictures_off(session, out.game) if picture else set()
        # built once per text, copied per recipient (the copies differ in To and Message-ID)
        copies = {kind: composer.broadcast_copies(subject=out.subject, body=text, now=now)
                  for kind, text in texts.items()}
        for recipient in to:
            enqueue_copy(session, copies[kinds[recipient]], recipient, inbound_id=inbound_id,
                         attachment=None if recipient in no_picture else picture)
            count += 1
    return count


def _web_codes(session: Session, config: Config, game_name: str | None, to: list[str],
               now: datetime) -> dict[str, str]:
    """The code a link to a private game's page carries in mail to each of its own people
    (judge.service.access.passes: good once, and only while the recipient's seat is theirs); none
    for a public game."""
    if not config.web_url or not game_name:
        return {}
    game = session.scalars(select(Game).where(Game.name_key == game_name.lower())).first()
    if game is None or game.privacy_hash is None:
        return {}
    return {address: link_query(game, seat_of(session, game, address), now) for address in to}


def queue_events(session: Session, composer: Composer, config: Config, events: list[Event],
                 now: datetime) -> int:
    """The scheduler's delivery: events of one game tick, queued in its transaction."""
    return queue_outgoing(session, composer, config, outgoing_for(events, config.judge.name), now)
