"""Tournaments over the store: create one, find one, put a game in one, list its games.

A tournament is a name, a password, a director (the address that created it, for contact) and
the games put in it.  By mail, ``CREATE <game> <pw> … TOURNAMENT <name> <tournament password>``
creates the tournament on first use with that password; later games may be added only with
it (a mail's From address proves nothing, so it gives no authority).  The operator creates
tournaments, sets their passwords and adds games with ``judge tournament …``.  Refusals raise
:class:`~judge.service.errors.GameError`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.service.errors import GameError
from judge.service.games import NAME_RE
from judge.service.access.passwords import check_password, hash_password
from judge.store.models import Game, Tournament

MAX_PASSWORD = 64


class WrongPassword(GameError):
    """The password given for a tournament is not its password."""


def existing_tournament(session: Session, name: str) -> Tournament | None:
    return session.scalars(select(Tournament).where(Tournament.name_key == name.lower())).first()


def find_tournament(session: Session, name: str) -> Tournament:
    row = existing_tournament(session, name)
    if row is None:
        raise GameError("no_such_tournament", name=name)
    return row


def _check_new(name: str, password: str) -> None:
    if not NAME_RE.match(name):
        raise GameError("tournament_name_form", name=name)
    if not password or len(password) > MAX_PASSWORD or any(c.isspace() for c in password):
        raise GameError("tournament_password_form", longest=MAX_PASSWORD)


def create_tournament(session: Session, name: str, director: str, now: datetime,
                      password: str) -> Tournament:
    """A new, empty tournament; the name follows the rules of game names."""
    _check_new(name, password)
    if existing_tournament(session, name) is not None:
        raise GameError("tournament_exists", name=name)
    row = Tournament(name=name, name_key=name.lower(), director=director, created_at=now,
                     password_hash=hash_password(password))
    session.add(row)
    session.flush()
    return row


def set_password(session: Session, name: str, password: str) -> Tournament:
    """The keeper gives a tournament a (new) password."""
    row = find_tournament(session, name)
    _check_new(row.name, password)
    row.password_hash = hash_password(password)
    return row


def check_tournament_for(session: Session, name: str, password: str) -> None:
    """Refuse, before anything is written, what :func:`tournament_for` would refuse."""
    row = existing_tournament(session, name)
    if row is None:
        _check_new(name, password)
    elif row.password_hash is None:
        raise GameError("tournament_without_password", tournament=row.name)
    elif not check_password(password, row.password_hash):
        raise WrongPassword("wrong_tournament_password", tournament=row.name)


def tournament_for(session: Session, name: str, password: str, address: str,
                   now: datetime) -> Tournament:
    """The tournament a mailed CREATE puts its game in: created on first use with
    ``password`` (``address`` is its director), otherwise only with its password."""
    check_tournament_for(session, name, password)
    row = existing_tournament(session, name)
    return row if row is not None else create_tournament(session, name, address, now,
                                                         password)


def add_game(session: Session, tournament: Tournament, game: Game) -> None:
    """Put ``game`` in ``tournament`` (a game belongs to at most one)."""
    if game.tournament_id not in (None, tournament.id):
        other = session.get(Tournament, game.tournament_id)
        raise GameError("in_another_tournament", game=game.name,
                        tournament=other.name if other else game.tournament_id)
    game.tournament_id = tournament.id
    session.flush()
