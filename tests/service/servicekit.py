"""What the service-layer tests share: a fixed moment, the master and the seven players, and a
standard game started the way the service starts one (CREATE and seven JOINs)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session

from judge.service import games
from judge.store.models import Game, Seat

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
MASTER = "gm@example.org"
PLAYERS = [f"p{i}@example.org" for i in range(7)]
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]


def full_game(session: Session, name: str = "g1", rules: list[str] | None = None) -> Game:
    """A started game ``name``: created by MASTER, joined by the seven PLAYERS."""
    game, _ = games.create_game(session, name, "mpw", MASTER, NOW, rules=rules)
    for i, address in enumerate(PLAYERS):
        games.join_game(session, name, f"pw{i}", address, NOW)
    assert game.state == "active"
    return game


def power_seat(session: Session, power: str, name: str = "g1") -> Seat:
    """The seat playing ``power`` in ``name``."""
    seat = games.power_seat(session, games.find_game(session, name), power)
    assert seat is not None
    return seat
