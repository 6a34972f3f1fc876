"""Game results as plain frozen data, and the JSON document that carries them.

A :class:`GameResult` is everything tournament scoring needs to know about one finished game:
who played which power, the final supply-centre counts, how the game ended, the year it ended
and the year each eliminated power went out.  It is built by the service layer when a game
ends, or read from a file with :func:`load_results` (``judge scoring <results.json>``).

JSON shape
----------
One object with a list of games::

    {"games": [
      {"game": "war1901",            # game id, unique in the document
       "round": 1,                   # tournament round, a whole number >= 1
       "result": "draw",             # "solo" | "draw" | "concession" | "ended"
       "members": ["ENGLAND", "FRANCE", "TURKEY"],
       "year": 1908,                 # game year of the result (>= 1901)
       "powers": {
         "ENGLAND": {"player": "ann@example.org", "centers": 12},
         "FRANCE":  {"player": "bob@example.org", "centers": 11},
         "TURKEY":  {"player": "cy@example.org",  "centers": 11},
         "ITALY":   {"player": "di@example.org",  "centers": 0, "eliminated": 1905},
         ...}}]}

* ``result`` -- ``solo``: one power reached victory; ``concession``: the others conceded to
  one power; both need exactly one power in ``members`` (the winner).  ``draw``: a declared
  draw, ``members`` lists the two or more powers sharing it (all survivors under DIAS, fewer
  under NoDIAS).  ``ended``: the master ended the game without a declared result (a game-end
  date, say); ``members`` must be absent or empty, and scoring systems that need draw members
  treat all survivors as sharing it (the DIAS reading of a game that simply stops).
* ``powers`` -- every power on the board (at least two), each with its ``player`` (the
  address or name that identifies the player across games; one player per power and one
  power per player in a game; ``null`` for a power no player ever held, which is scored on
  the board but credited to nobody), ``centers`` (a whole number >= 0) and ``eliminated``
  (the game year the power was eliminated, or ``null``/absent for a survivor).  An
  eliminated power has 0 centres and went out no later than ``year``; a power with 0
  centres must say when it was eliminated.  ``members`` must be surviving powers of the game.
* Power names are compared upper-cased; ``"centres"`` is accepted for ``"centers"``.

Anything else is refused with one :class:`ResultsError` whose message names the place, such
as ``games[2].powers.FRANCE.centers: must be a whole number >= 0, not -1``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from judge.core.errors import InputError

FIRST_YEAR = 1901
"""The first game year of a standard game; results and eliminations cannot precede it."""


class ResultsError(InputError):
    """A results document that does not have the documented shape (one line for a human)."""


class ResultType(enum.Enum):
    """How a game ended."""

    SOLO = "solo"
    DRAW = "draw"
    CONCESSION = "concession"
    ENDED = "ended"


@dataclass(frozen=True, slots=True)
class PowerResult:
    """One power at the end of a game: its player (None if no player ever held it), final
    centres, elimination year or None."""

    power: str
    player: str | None
    centers: int
    eliminated: int | None = None

    @property
    def survived(self) -> bool:
        """True when the power was still on the board when the game ended."""
        return self.eliminated is None


@dataclass(frozen=True, slots=True)
class GameResult:
    """The result of one game, ready to be scored.

    ``powers`` is sorted by power name; ``members`` holds the winner (solo, concession) or
    the draw members (draw) and is empty for a game the master ended.
    """

    game: str
    round: int
    type: ResultType
    year: int
    powers: tuple[PowerResult, ...]
    members: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "powers", tuple(sorted(self.powers, key=lambda p: p.power)))
        object.__setattr__(self, "members", frozenset(self.members))

    # -- lookups ------------------------------------------------------------------------
    def power(self, name: str) -> PowerResult:
        """The :class:`PowerResult` of power ``name`` (KeyError if it was not on the board)."""
        for p in self.powers:
            if p.power == name:
                return p
        raise KeyError(name)

    def power_of(self, player: str | None) -> PowerResult | None:
        """The power ``player`` played in this game, or None if they did not play it."""
        for p in self.powers:
            if player is not None and p.player == player:
                return p
        return None

    @property
    def players(self) -> frozenset[str]:
        """Every player of the game (powers no player held are nobody's)."""
        return frozenset(p.player for p in self.powers if p.player is not None)

    @property
    def size(self) -> int:
        """The number of powers on the board (7 in the standard game)."""
        return len(self.powers)

    @property
    def survivors(self) -> frozenset[str]:
        """Powers still on the board at the end."""
        return frozenset(p.power for p in self.powers if p.survived)

    @property
    def winner(self) -> str | None:
        """The soloist, or the power conceded to; None for draws and ended games."""
        if self.type in (ResultType.SOLO, ResultType.CONCESSION):
            return next(iter(self.members))
        return None

    @property
    def sharing(self) -> frozenset[str]:
        """The powers sharing the result: the winner, the draw members, or -- for a game
        the master ended -- every survivor (the DIAS reading)."""
        if self.type is ResultType.ENDED:
            return self.survivors
        return self.members

    def center_counts(self) -> dict[str, int]:
        """Final centres by power."""
        return {p.power: p.centers for p in self.powers}


# -- loading -------------------------------------------------------------------------------

def _fail(where: str, what: str) -> ResultsError:
    return ResultsError(f"{where}: {what}")


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _load_power(where: str, name: str, raw: Any, year: int) -> PowerResult:
    if not isinstance(raw, Mapping):
        raise _fail(where, f"must be an object with player and centers, not {raw!r}")
    unknown = set(raw) - {"player", "centers", "centres", "eliminated"}
    if unknown:
        raise _fail(where, f"unknown key {sorted(unknown)[0]!r}")
    player = raw.get("player", "")
    if player is not None and (not isinstance(player, str) or not player.strip()):
        raise _fail(f"{where}.player", "must be a non-empty string, or null for no player")
    if "centers" in raw and "centres" in raw:
        raise _fail(where, "give centers once (centers or centres, not both)")
    centers = raw.get("centers", raw.get("centres"))
    if centers is None:
        raise _fail(f"{where}.centers", "is missing")
    if not _whole(centers) or centers < 0:
        raise _fail(f"{where}.centers", f"must be a whole number >= 0, not {centers!r}")
    eliminated = raw.get("eliminated")
    if eliminated is not None:
        if not _whole(eliminated) or not FIRST_YEAR <= eliminated <= year:
            raise _fail(f"{where}.eliminated",
                        f"must be a year from {FIRST_YEAR} to the result year {year}, "
                        f"not {eliminated!r}")
        if centers != 0:
            raise _fail(where, f"eliminated in {eliminated} but holds {centers} centres")
    elif centers == 0:
        raise _fail(where, "has no centres: give the year it was eliminated")
    return PowerResult(name, None if player is None else player.strip(), centers, eliminated)


def _load_game(where: str, raw: Any) -> GameResult:
    if not isinstance(raw, Mapping):
        raise _fail(where, "must be an object")
    unknown = set(raw) - {"game", "round", "result", "members", "year", "powers"}
    if unknown:
        raise _fail(where, f"unknown key {sorted(unknown)[0]!r}")
    game = raw.get("game")
    if not isinstance(game, str) or not game.strip():
        raise _fail(f"{where}.game", "must be a non-empty string")
    rnd = raw.get("round")
    if not _whole(rnd) or rnd < 1:
        raise _fail(f"{where}.round", f"must be a whole number >= 1, not {rnd!r}")
    try:
        rtype = ResultType(raw.get("result"))
    except ValueError:
        raise _fail(f"{where}.result", "must be one of solo, draw, concession, ended, "
                                       f"not {raw.get('result')!r}") from None
    year = raw.get("year")
    if not _whole(year) or year < FIRST_YEAR:
        raise _fail(f"{where}.year", f"must be a game year >= {FIRST_YEAR}, not {year!r}")

    powers = _load_powers(f"{where}.powers", raw.get("powers"), year)
    members = _load_members(f"{where}.members", raw.get("members", []), powers, rtype)
    return GameResult(game.strip(), rnd, rtype, year, tuple(powers.values()),
                      frozenset(members))


def _load_powers(where: str, raw_powers: Any, year: int) -> dict[str, PowerResult]:
    """The game's powers by name: at least two, each once, a player in one power only, and
    not all of them eliminated."""
    if not isinstance(raw_powers, Mapping) or len(raw_powers) < 2:
        raise _fail(where, "must be an object with at least two powers")
    powers: dict[str, PowerResult] = {}
    seen_players: dict[str, str] = {}
    for key, value in raw_powers.items():
        if not isinstance(key, str) or not key.strip():
            raise _fail(where, f"power names must be non-empty strings: {key!r}")
        name = key.strip().upper()
        if name in powers:
            raise _fail(where, f"power {name} is given twice")
        pr = _load_power(f"{where}.{name}", name, value, year)
        if pr.player is not None and pr.player in seen_players:
            raise _fail(f"{where}.{name}.player",
                        f"{pr.player} already plays {seen_players[pr.player]} in this game")
        if pr.player is not None:
            seen_players[pr.player] = name
        powers[name] = pr
    if not any(p.survived for p in powers.values()):
        raise _fail(where, "every power is eliminated")
    return powers


def _load_members(where: str, raw_members: Any, powers: dict[str, PowerResult],
                  rtype: ResultType) -> list[str]:
    """The powers the result names (the winner, or those in the draw): surviving powers of
    the game, as many as the kind of result has."""
    if raw_members is None:
        raw_members = []
    if not isinstance(raw_members, list) or not all(isinstance(m, str) for m in raw_members):
        raise _fail(where, "must be a list of power names")
    members = [m.strip().upper() for m in raw_members]
    if len(set(members)) != len(members):
        raise _fail(where, "names a power twice")
    for m in members:
        if m not in powers:
            raise _fail(where, f"{m} is not a power of this game")
        if not powers[m].survived:
            raise _fail(where, f"{m} was eliminated in {powers[m].eliminated}")
    if rtype in (ResultType.SOLO, ResultType.CONCESSION) and len(members) != 1:
        raise _fail(where,
                    f"a {rtype.value} needs exactly one power (the winner), got {len(members)}")
    if rtype is ResultType.DRAW and len(members) < 2:
        raise _fail(where, "a draw needs at least two powers")
    if rtype is ResultType.ENDED and members:
        raise _fail(where, "a game the master ended has no members")
    return members


def load_results(doc: dict) -> list[GameResult]:
    """Validate a results document (see the module docstring) and return its games.

    The games come back sorted by (round, game id).  Raises :class:`ResultsError`.
    """
    if not isinstance(doc, Mapping):
        raise ResultsError("the results document must be a JSON object with a 'games' list")
    unknown = set(doc) - {"games"}
    if unknown:
        raise _fail("document", f"unknown key {sorted(unknown)[0]!r}")
    games = doc.get("games")
    if not isinstance(games, list):
        raise _fail("games", "must be a list of game results")
    out: list[GameResult] = []
    ids: set[str] = set()
    for i, raw in enumerate(games):
        g = _load_game(f"games[{i}]", raw)
        if g.game in ids:
            raise _fail(f"games[{i}].game", f"{g.game} is given twice")
        ids.add(g.game)
        out.append(g)
    return sorted(out, key=lambda g: (g.round, g.game))
