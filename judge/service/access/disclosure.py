"""Who may learn a player's address, and who plays which power.

One promise everywhere: a player's address is private.  Only the game's master sees it (LIST,
the master's copy of the Game Starting mail); every other mail and reply names powers, never
addresses.  The master may make a game's addresses public (``SET ADDRESSES PUBLIC``; ``SET
ADDRESSES PRIVATE`` takes it back): then whoever may see the game sees them too.  A game with
the ANONYMOUS rule (gunboat) keeps them private whatever the master asks: nobody but the master
learns which address holds which power.

Every view of a game that could show an address asks :func:`addresses_shown`.  A tournament's
standings know players by address: :func:`standings_players` hides those not everyone may
see.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from judge.core.scoring import GameResult

from judge.service import game_rules
from judge.store.models import Game, Tournament

ANONYMOUS = "ANONYMOUS"


def is_anonymous(game: Game) -> bool:
    return game_rules.has(game, ANONYMOUS)


def addresses_public(game: Game) -> bool:
    """Whether everyone who may see ``game`` may see its players' addresses."""
    return bool(game.addresses_public) and not is_anonymous(game)


def addresses_shown(game: Game, *, master: bool) -> bool:
    """Whether a reader of ``game`` (its master or not) is shown its players' addresses."""
    return master or addresses_public(game)


def setting_name(game: Game) -> str:
    """The setting as LIST and the notices word it: anonymous, public or private."""
    if is_anonymous(game):
        return "anonymous"
    return "public" if game.addresses_public else "private"


def standings_players(session: Session, tournament: Tournament, results: Sequence[GameResult],
                      reader: str) -> list[GameResult]:
    """``results`` as the standings by mail show them to ``reader``: the tournament's director
    sees every address; anyone else sees their own, and those of players whose every game in
    the table has public addresses.  The others become ``player 1``, ``player 2`` … (numbered
    in the order they first appear, game by game), the same name in every game."""
    reader = reader.lower()
    if reader == tournament.director.lower():
        return list(results)
    public = {g.name for g in session.scalars(select(Game).where(
        Game.tournament_id == tournament.id)) if addresses_public(g)}
    hidden = {p.player for r in results if r.game not in public for p in r.powers
              if p.player and p.player != reader}
    names: dict[str, str] = {}
    for r in results:
        for p in r.powers:
            if p.player in hidden and p.player not in names:
                names[p.player] = f"player {len(names) + 1}"
    return [replace(r, powers=tuple(replace(p, player=names.get(p.player, p.player))
                                    if p.player else p for p in r.powers)) for r in results]
