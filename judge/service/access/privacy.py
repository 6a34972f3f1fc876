"""Private games: a privacy password keeps strangers out of a game.

A game is private when it has a privacy password: the master's ``SET PRIVACY``, ``CREATE …
PRIVACY``, or one the judge makes up for a SOLITAIRE game ("A PRIVACY password will be
automatically assigned, because these are typically private games", DPjudge's rules).  The
password is stored hashed like every other (:mod:`judge.service.access.passwords`).

Whoever is signed on to the game (a player, its master, an observer) needs no privacy password;
anyone else must give it to observe or join the game, to see it listed, or to read its
history and summary.  :func:`may_see` is the one question every view of a game asks;
:func:`require_sight` asks it for a mail command and throttles wrong guesses as SIGNON does.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy.orm import Session

from judge.service.errors import CountedRefusal, GameError
from judge.service.access.passwords import check_password, hash_password
from judge.store import counters
from judge.store.models import Game

# wrong privacy passwords a day (judge.store.counters): from one address, from everybody
KIND, PER_SENDER, PER_GAME = "privacy", 5, 50


def is_private(game: Game) -> bool:
    return game.privacy_hash is not None


def may_see(game: Game, *, signed_on_to: int | None = None,
            password: str | None = None) -> bool:
    """Whether someone may see ``game``: it is public, they are signed on to it (the id of
    the game their mail signed on to), or they give its privacy password."""
    if game.privacy_hash is None or signed_on_to == game.id:
        return True
    return password is not None and check_password(password, game.privacy_hash)


def require_sight(session: Session, game: Game, now: datetime, *, what: str, sender: str,
                  signed_on_to: int | None = None, password: str | None = None) -> None:
    """:func:`may_see`, or GameError saying how to get in (``what``: the command's syntax
    with the privacy password, e.g. ``HISTORY war1901 PRIVACY <password>``).

    Guesses are counted per UTC day (judge.store.counters): past ``PER_SENDER`` wrong ones from
    one address, or ``PER_GAME`` from everybody (the web's included), no privacy password is
    checked for the game that day.  Each guess is counted *before* it is checked, atomically
    (:func:`judge.store.counters.reserve`), and a right one is taken back: guesses made at
    once, by several workers or by the web, can never be checked past the limits together.
    Nobody who plays in the game is affected: they sign on."""
    if game.privacy_hash is None or signed_on_to == game.id:
        return
    if password is None:
        raise GameError("private_game", game=game.name, syntax=what)
    limits = [(f"{game.id}:{sender.lower()}", PER_SENDER), (str(game.id), PER_GAME)]
    if not counters.reserve(session, KIND, limits, now):
        raise GameError("privacy_guesses_spent", game=game.name)
    if may_see(game, password=password):
        for subject, _ in limits:  # a right password is no wrong guess
            counters.bump(session, KIND, subject, now, -1)
        return

    def count_again(kept: Session) -> GameError | None:
        # The command's savepoint, and the guess counted in it, was undone.  Others may have
        # taken the last guesses meanwhile: then this answer must say no more than they do.
        if counters.reserve(kept, KIND, limits, now):
            return None
        return GameError("privacy_guesses_spent", game=game.name)

    raise CountedRefusal("wrong_privacy_password", count=count_again, if_undone=True,
                         game=game.name)


def set_privacy(game: Game, password: str | None) -> None:
    """The master's SET PRIVACY <password> (or SET NOPRIVACY: ``None``)."""
    if password is not None and (not password or len(password) > 64):
        raise GameError("privacy_password_form")
    game.privacy_hash = None if password is None else hash_password(password)


def assign_privacy(game: Game) -> str | None:
    """SOLITAIRE: make the game private with a new privacy password, returned for the master
    (``None`` if the game already has one, which stays)."""
    if game.privacy_hash is not None:
        return None
    password = secrets.token_urlsafe(9)
    set_privacy(game, password)
    return password

