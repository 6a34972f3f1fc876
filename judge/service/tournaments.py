"""Tournaments over the store: create one, find one, put a game in one, list its games.

A tournament is a name, a director (the address that created it) and the games put in it.
By mail, ``CREATE <game> <pw> … TOURNAMENT <name>`` creates the tournament on first use with
the game's creator as director; later games may be added only by the director.  The operator
adds games with ``judge tournament add`` whatever the director.  Refusals raise
:class:`~judge.service.errors.GameError`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.service.errors import GameError
from judge.service.games import NAME_RE
from judge.store.models import Game, Tournament


def find_tournament(session: Session, name: str) -> Tournament:
    row = session.scalars(select(Tournament).where(Tournament.name_key == name.lower())).first()
    if row is None:
        raise GameError(f'no tournament named "{name}" on this judge.')
    return row


def create_tournament(session: Session, name: str, director: str, now: datetime) -> Tournament:
    """A new, empty tournament; the name follows the rules of game names."""
    if not NAME_RE.match(name):
        raise GameError(f'"{name}" cannot be a tournament name: one word of up to 20 letters,'
                        " digits, - or _, starting with a letter.")
    if session.scalars(select(Tournament.id)
                       .where(Tournament.name_key == name.lower())).first() is not None:
        raise GameError(f'there is already a tournament named "{name}".')
    row = Tournament(name=name, name_key=name.lower(), director=director, created_at=now)
    session.add(row)
    session.flush()
    return row


def check_tournament_for(session: Session, name: str, address: str) -> None:
    """Refuse, before anything is written, what :func:`tournament_for` would refuse."""
    row = session.scalars(select(Tournament).where(Tournament.name_key == name.lower())).first()
    if row is None:
        if not NAME_RE.match(name):
            raise GameError(f'"{name}" cannot be a tournament name: one word of up to 20'
                            " letters, digits, - or _, starting with a letter.")
    elif row.director.lower() != address.lower():
        raise GameError(f"only the director of tournament {row.name} may add games to it.")


def tournament_for(session: Session, name: str, address: str, now: datetime) -> Tournament:
    """The tournament a mailed CREATE puts its game in: created on first use (``address``
    directs it), otherwise only its director may add games."""
    check_tournament_for(session, name, address)
    row = session.scalars(select(Tournament).where(Tournament.name_key == name.lower())).first()
    return row if row is not None else create_tournament(session, name, address, now)


def add_game(session: Session, tournament: Tournament, game: Game) -> None:
    """Put ``game`` in ``tournament`` (a game belongs to at most one)."""
    if game.tournament_id not in (None, tournament.id):
        other = session.get(Tournament, game.tournament_id)
        raise GameError(f"{game.name} already belongs to tournament "
                        f"{other.name if other else game.tournament_id}.")
    game.tournament_id = tournament.id
    session.flush()


def tournament_games(session: Session, tournament: Tournament) -> list[Game]:
    """The tournament's games, by name."""
    return list(session.scalars(select(Game).where(Game.tournament_id == tournament.id)
                                .order_by(Game.name_key)))
