"""Builders of game results for the scoring tests."""

from __future__ import annotations

from itertools import count

from judge.core.scoring import GameResult, Outcome, PowerResult, ResultType

POWERS = ("AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")
_ids = count(1)


def board(counts: dict[str, int | tuple[int, int]], result: str = "ended",
          members: tuple[str, ...] = (), year: int = 1910, game: str | None = None,
          rnd: int = 1, players: dict[str, str] | None = None) -> GameResult:
    """A game from ``{power: centres}``; ``(0, year)`` is a power eliminated in ``year``.
    Players default to ``<game>-<power>``."""
    game = game or f"g{next(_ids)}"
    players = players or {}
    powers = []
    for power, c in counts.items():
        centres, out = (c, None) if isinstance(c, int) else c
        powers.append(PowerResult(power, players.get(power, f"{game}-{power}"), centres, out))
    return GameResult(game, rnd, ResultType(result), year, tuple(powers), frozenset(members))


def game_for(player: str, notation: str, game: str | None = None, rnd: int = 1,
             others: dict[str, str] | None = None) -> GameResult:
    """A seven-power game in which ``player`` (as FRANCE) gets the outcome written in the
    seed's notation -- ``"win 1913"``, ``"3draw 1907"``, ``"4loss 1907"`` -- the other
    powers being played by fresh players (or by ``others``, power -> player)."""
    o = Outcome.parse(notation)
    game = game or f"g{next(_ids)}"
    names = {"FRANCE": player, **(others or {})}
    rest = [p for p in POWERS if p != "FRANCE"]
    counts: dict[str, int | tuple[int, int]] = {}
    if o.kind == "win":
        counts = {"FRANCE": 18, **{p: 3 for p in rest[:5]}, rest[5]: (0, o.year)}
        return board(counts, "solo", ("FRANCE",), o.year, game, rnd, names)
    if o.kind == "draw":
        sharing = ["FRANCE", *rest[:o.size - 1]]
    else:
        sharing = rest[:o.size]
    for p in POWERS:
        counts[p] = 5 if p in sharing else (0, o.year)
    if o.size == 1:
        counts[sharing[0]] = 18
        return board(counts, "solo", tuple(sharing), o.year, game, rnd, names)
    return board(counts, "draw", tuple(sharing), o.year, game, rnd, names)
