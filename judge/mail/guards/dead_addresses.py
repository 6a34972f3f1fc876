"""What the judge does with mail that comes back: counts hard bounces per address, marks an
address failing after ``[bounces] hard_bounces`` of them, and tells its games' masters once.

A bounce is robot mail: never answered (judge.mail.reading.robots).  The pipeline hands each robot
mail here.  Whose mail came back is known from the return path it was sent to
(judge.mail.sending.return_paths: a token only the mail to that address carried); a bounce that came
to the judge's plain address instead (a provider that rewrites the return path, or takes no
``+`` addresses) is counted against the addresses it names only when it quotes the
Message-ID of a mail the judge sent to that very address: a stranger cannot know one.

A marked address gets no mail (the sender fails it at once, judge.mail.sending.sender) until a mail
from it is processed, which clears the mark and the count (:func:`heard_again`).  Its owner
cannot be told at another address: the judge knows one address per seat.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.basics.config import Config
from judge.mail.reading.bounces import Bounce, Failure, parse, read_bounce
from judge.mail.writing.compose import Composer
from judge.mail.writing.game_mail import outgoing_for, queue_outgoing
from judge.mail.sending.return_paths import token_in
from judge.service.failing_addresses import failing_address_events
from judge.store import bounce_counts
from judge.store.models import OutboxMessage

log = logging.getLogger("judge.bounces")

# Where a returned mail says whom it was for: the envelope recipients first, then the headers
# receiving servers (and a provider's mailbox) write them into.
_RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To", "To")


@dataclass(frozen=True)
class Returned:
    """A robot mail read as returned mail: the return-path token it came to (None when it came
    to no return path), and the bounce it reports (None when it reports no failure)."""

    token: str | None
    bounce: Bounce | None


def read_returned(raw: bytes, envelope_recipients: str, config: Config) -> Returned | None:
    """``raw`` read as returned mail; None when it is neither a bounce nor mail to a return
    path (an auto-reply to the judge's address, a mailing list's mail), or cannot be read as
    one: robot mail is left unanswered all the same, never failed for this."""
    try:
        return _read_returned(raw, envelope_recipients, config)
    except Exception:  # noqa: BLE001 - mail from anywhere: a bounce nobody can read
        log.exception("could not read a robot mail as a bounce; not counted")
        return None


def _read_returned(raw: bytes, envelope_recipients: str, config: Config) -> Returned | None:
    msg = parse(raw)
    places = [a for a in envelope_recipients.split(",") if a]
    for name in _RECIPIENT_HEADERS:
        places += [str(value) for value in msg.get_all(name, [])]
    token = token_in(config, places)
    bounce = read_bounce(msg)
    if token is None and bounce is None:
        return None
    return Returned(token, bounce)


def record_returned(session: Session, config: Config, composer: Composer, returned: Returned,
                    inbound_id: int, now: datetime) -> str:
    """Count what ``returned`` reports, in the caller's transaction; the note for the stored
    mail's row (``judge inbound list``)."""
    bounce = returned.bounce
    if bounce is None:
        return "mail to a return path that reports no failed delivery; not counted"
    if not bounce.hard:
        return "temporary failure, not counted: " + _described(bounce.failures)
    if returned.token is not None:
        address = bounce_counts.address_of_token(session, returned.token)
        if address is None:
            return "bounce to an unknown return path; not counted"
        counted = {address: bounce.hard[0].diagnostic}
        unproven: list[Failure] = []
    else:
        counted, unproven = _proven(session, bounce)
    notes = [_count(session, config, composer, address, diagnostic, inbound_id, now)
             for address, diagnostic in counted.items()]
    if unproven:
        notes.append("not counted (names no mail the judge sent to it): "
                     + _described(unproven))
    return "; ".join(notes)


def _proven(session: Session, bounce: Bounce) -> tuple[dict[str, str], list[Failure]]:
    """The hard failures of a bounce that came to no return path, split: those whose address
    the judge sent the returned mail to (address → diagnostic), and the others."""
    ids = list(bounce.returned_ids)
    sent: set[str] = set()
    if ids:
        for (recipients,) in session.execute(select(OutboxMessage.recipients)
                                             .where(OutboxMessage.message_id.in_(ids))):
            sent.update(recipients.split(","))
    counted: dict[str, str] = {}
    unproven: list[Failure] = []
    for failure in bounce.hard:
        if failure.address and failure.address in sent:
            counted.setdefault(failure.address, failure.diagnostic)
        else:
            unproven.append(failure)
    return counted, unproven


def _count(session: Session, config: Config, composer: Composer, address: str,
           diagnostic: str, inbound_id: int, now: datetime) -> str:
    """One hard bounce of ``address``; at the threshold, the mark and the masters' notice."""
    count = bounce_counts.count_hard_bounce(session, address, diagnostic, now)
    limit = config.bounces.hard_bounces
    note = f"hard bounce {count} of {limit} for {address}: {diagnostic}"
    if count < limit or not bounce_counts.mark_failing(session, address, now):
        return note
    events = failing_address_events(session, address, count, diagnostic)
    told = queue_outgoing(session, composer, config, outgoing_for(events, config.judge.name),
                          now, inbound_id=inbound_id)
    log.warning("%s marked failing after %d hard bounces (%s): no mail to it until it writes; "
                "%d master notice(s) for %s", address, count, diagnostic, told,
                ", ".join(e.game for e in events) or "no game")
    return f"{note}; marked failing, {told} master notice(s)"


def _described(failures: tuple[Failure, ...] | list[Failure]) -> str:
    return "; ".join(f"{f.address or '?'}: {f.diagnostic}" for f in failures)


def heard_again(session: Session, address: str) -> None:
    """A mail from ``address`` was processed: it is reachable again, its count starts over."""
    bounce_counts.clear(session, address)
