"""Passes to a private game's pages: a signed cookie, got with the privacy password or with a
one-time link from mail, good for a while, and void once its holder leaves the game.

A private game's pages need its privacy password, as its mail commands do
(judge.service.access.privacy).  Whoever shows it, or opens a link the judge mailed to one of the
game's people, gets a *pass*: a cookie ``<seat>.<expiry>.<signature>``.  The signature is an
HMAC keyed by the stored privacy hash and, for a pass of a seat (a player's, the master's, an
observer's), by that seat's password hash and the moment its holder took it; so a new privacy
password (SET PRIVACY) voids every pass, a new holder of the seat (REPLACE, a dummy taken over)
voids the old holder's, and a seat that is no longer played (resigned, ejected, replaced, made
a dummy) has no pass at all.  No secret of the web server's own is needed: several daemons
sharing a database accept each other's passes.  A pass expires after the lifetime given (the
web's ``[web] pass_days``).

Links in mail never carry a pass, since addresses are kept in proxies' logs and browsers'
histories: they carry a *code* ``?code=<seat>.<issued>.<nonce>.<signature>``, signed alike,
which the web exchanges once for a pass (the nonce is stored when it is used; a second use,
or a code older than the lifetime, opens nothing).  Opening the link only shows a button: the
code is spent by the button's POST, so a mail scanner or a link preview that fetches every
link it sees spends nothing.

Wrong passwords are counted as the mail's are (judge.store.counters, kind ``privacy``): per
day, from one client address and from everybody; past the limits no password is checked.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from judge.service.access.passwords import check_password
from judge.basics.utc import as_utc
from judge.service.access.privacy import KIND, PER_GAME, PER_SENDER
from judge.store import counters
from judge.store.models import Game, Seat, SeatStatus, WebLinkUse

COOKIE_PREFIX = "judge_pass_"


def cookie_name(game: Game) -> str:
    return f"{COOKIE_PREFIX}{game.id}"


def _signature(game: Game, seat: Seat | None, what: str) -> str:
    assert game.privacy_hash is not None
    key = game.privacy_hash if seat is None else \
        f"{game.privacy_hash}\n{seat.password_hash}\n{_moment(seat.joined_at)}"
    return hmac.new(key.encode(), f"{what} {game.id}".encode(), hashlib.sha256).hexdigest()


def _moment(when: datetime) -> int:
    taken = as_utc(when)
    assert taken is not None
    return int(taken.timestamp())


def _seat(session: Session, game: Game, seat_id: int) -> Seat | None:
    """A seat of ``game`` still played (None for no seat); raises LookupError when the seat
    is not the game's or no longer played."""
    if seat_id == 0:
        return None
    seat = session.get(Seat, seat_id)
    if seat is None or seat.game_id != game.id or seat.status != SeatStatus.ACTIVE:
        raise LookupError(seat_id)
    return seat


def make_pass(game: Game, seat: Seat | None, now: datetime, lifetime: timedelta) -> str:
    """A pass for ``seat`` (None: for whoever gave the privacy password) until now + lifetime."""
    expires = int((now + lifetime).timestamp())
    seat_id = seat.id if seat is not None else 0
    return f"{seat_id}.{expires}.{_signature(game, seat, f'pass {seat_id} {expires}')}"


def pass_is_good(session: Session, game: Game, given: str | None, now: datetime) -> bool:
    """Whether the cookie ``given`` lets its holder see ``game`` (any public game: yes)."""
    if game.privacy_hash is None:
        return True
    parts = (given or "").split(".")
    if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit() or \
            int(parts[1]) < now.timestamp() or len(parts[1]) > 12:
        return False
    seat_id, expires, signature = int(parts[0]), int(parts[1]), parts[2]
    try:
        seat = _seat(session, game, seat_id)
    except LookupError:
        return False
    return hmac.compare_digest(_signature(game, seat, f"pass {seat_id} {expires}"), signature)


def link_query(game: Game, seat: Seat | None, now: datetime) -> str:
    """What a link to a private game's page carries in mail to one of those who may see it
    (results to its players, master and observers; LIST to a mail that signed on or gave the
    privacy password): a code the page exchanges once for a pass.  Nothing for a public
    game."""
    if game.privacy_hash is None:
        return ""
    issued = int(now.timestamp())
    seat_id = seat.id if seat is not None else 0
    nonce = secrets.token_hex(8)
    signature = _signature(game, seat, f"link {seat_id} {issued} {nonce}")
    return f"?code={seat_id}.{issued}.{nonce}.{signature[:32]}"


def seat_of(session: Session, game: Game, address: str) -> Seat | None:
    """The seat ``address`` holds in ``game`` (its player's, master's, observer's), if any."""
    return session.scalars(select(Seat).where(
        Seat.game_id == game.id, Seat.status == SeatStatus.ACTIVE,
        Seat.address == address).order_by(Seat.id)).first()


def _valid_code(session: Session, game: Game, code: str, now: datetime, lifetime: timedelta
                ) -> tuple[Seat | None, str, datetime] | None:
    """What a link's ``code`` stands for -- its seat, its nonce, when it expires -- or None
    when it is no code of this game's, is older than ``lifetime`` or its seat is no longer
    played (whether it was used is not asked here)."""
    parts = code.split(".")
    if game.privacy_hash is None or len(parts) != 4 or not parts[0].isdigit() or \
            not parts[1].isdigit() or len(parts[1]) > 12 or len(parts[2]) != 16:
        return None
    seat_id, issued, nonce, signature = int(parts[0]), int(parts[1]), parts[2], parts[3]
    expires = datetime.fromtimestamp(issued, now.tzinfo) + lifetime
    if expires < now:
        return None
    try:
        seat = _seat(session, game, seat_id)
    except LookupError:
        return None
    wanted = _signature(game, seat, f"link {seat_id} {issued} {nonce}")[:32]
    if not hmac.compare_digest(wanted, signature):
        return None
    return seat, nonce, expires


def code_is_open(session: Session, game: Game, code: str, now: datetime, lifetime: timedelta
                 ) -> bool:
    """Whether ``code`` would give a pass now (a good code, not used yet); nothing is spent."""
    valid = _valid_code(session, game, code, now, lifetime)
    return valid is not None and session.get(WebLinkUse, valid[1]) is None


def use_code(session: Session, game: Game, code: str, now: datetime, lifetime: timedelta
             ) -> str | None:
    """The pass a link's ``code`` gives, once: None when it is no good code (see
    :func:`code_is_open`) or was used already."""
    valid = _valid_code(session, game, code, now, lifetime)
    if valid is None:
        return None
    seat, nonce, expires = valid
    session.execute(delete(WebLinkUse).where(WebLinkUse.expires_at < now))
    try:
        with session.begin_nested():
            session.add(WebLinkUse(nonce=nonce, expires_at=expires))
    except IntegrityError:
        return None  # opened before (or at this very moment, by another request)
    return make_pass(game, seat, now, lifetime)


def _subjects(game: Game, client: str) -> tuple[str, str]:
    return f"{game.id}:web:{client}", str(game.id)


def reserve_guess(session: Session, game: Game, client: str, now: datetime) -> bool:
    """Count a guess of the privacy password from ``client`` before it is checked, if the
    day's limits leave one (judge.service.access.privacy: the game-wide count is the mail's too)."""
    mine, everyone = _subjects(game, client)
    return counters.reserve(session, KIND, [(mine, PER_SENDER), (everyone, PER_GAME)], now)


def take_back_guess(session: Session, game: Game, client: str, now: datetime) -> None:
    """A right password is no wrong guess: its count is taken back."""
    for subject in _subjects(game, client):
        counters.bump(session, KIND, subject, now, -1)


def password_is_right(game: Game, password: str) -> bool:
    """The slow hash check (run outside any writing transaction)."""
    return (game.privacy_hash is not None and 0 < len(password) <= 64
            and check_password(password, game.privacy_hash))
