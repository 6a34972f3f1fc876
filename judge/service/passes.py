"""Passes to a private game's pages: the privacy password once, then a signed cookie.

A private game's pages need its privacy password, as its mail commands do
(judge.service.privacy).  The form posts the password once; the judge answers with a *pass*,
a cookie holding an HMAC of the game's id keyed by the stored privacy hash.  No secret of the
web server's own is needed (several daemons sharing a database accept each other's passes),
and a new privacy password (SET PRIVACY) voids every pass given for the old one.  The link
in mail to those who may see the game (results, LIST) carries the pass as ``?pass=``.

Wrong passwords are counted as the mail's are (judge.store.counters, kind ``privacy``): per
day, from one client address and from everybody; past the limits no password is checked.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime

from sqlalchemy.orm import Session

from judge.service.passwords import check_password
from judge.service.privacy import KIND, PER_GAME, PER_SENDER
from judge.store import counters
from judge.store.models import Game

COOKIE_PREFIX = "judge_pass_"


def cookie_name(game: Game) -> str:
    return f"{COOKIE_PREFIX}{game.id}"


def make_pass(game: Game) -> str:
    assert game.privacy_hash is not None
    return hmac.new(game.privacy_hash.encode(), f"web pass {game.id}".encode(),
                    hashlib.sha256).hexdigest()


def pass_is_good(game: Game, given: str | None) -> bool:
    """Whether the cookie ``given`` lets its holder see ``game`` (any public game: yes)."""
    if game.privacy_hash is None:
        return True
    return given is not None and hmac.compare_digest(make_pass(game), given)


def link_query(game: Game) -> str:
    """What a link to a private game's page carries in mail to those who may see it (results
    to its players, LIST to a mail that signed on or gave the privacy password): its pass,
    which the page turns into the cookie.  Nothing for a public game."""
    return "" if game.privacy_hash is None else f"?pass={make_pass(game)}"


def _subjects(game: Game, client: str) -> tuple[str, str]:
    return f"{game.id}:web:{client}", str(game.id)


def reserve_guess(session: Session, game: Game, client: str, now: datetime) -> bool:
    """Count a guess of the privacy password from ``client`` before it is checked, if the
    day's limits leave one (judge.service.privacy: the game-wide count is the mail's too)."""
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
