"""A player's outcome in one game, in the terms of Steinke's tie-breaks ("Breaking ties in
DIAS tournaments").

Steinke speaks of "win 1912", "3draw 1907" and "4loss 1907" (a loss to four surviving
players).  :class:`Outcome` is exactly that triple plus the board size, and
:func:`outcome_of` derives it from a :class:`~judge.core.scoring.game_results.GameResult`:

* **win** -- the player's power soloed or was conceded to; size 1; the year of the result.
* **draw** -- the player's power is one of the n powers sharing the result: the draw members,
  or every survivor of a game the master ended (the DIAS reading); size n; the result year.
* **loss** -- anything else: eliminated, or alive but outside the draw, or alive when someone
  else soloed.  Its size X is the number of powers sharing the result (1 after a solo), so the
  players "eliminated including oneself" are ``board - X`` (Steinke counts six eliminated in
  a loss to a solo).  Its year is the elimination year, or the result year for a power still
  on the board at the end.

Years are counted from 1900, as Steinke does (a win in 1913 took 13 years; a loss in 1901
survived 1 year): ``Outcome.years == year - 1900``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, Literal, cast

from judge.core.scoring.game_results import GameResult

BASE_YEAR = 1900
"""Years are counted from here: a result in 1907 took 7 game years (as Steinke counts)."""

Kind = Literal["win", "draw", "loss"]
WIN: Final = "win"
DRAW: Final = "draw"
LOSS: Final = "loss"


@dataclass(frozen=True, slots=True)
class Outcome:
    """``kind`` (win, draw, loss), ``size`` (1 for a win, n for an n-way draw, X for a loss
    to X surviving players), ``year`` and the number of powers on the ``board``."""

    kind: Kind
    size: int
    year: int
    board: int = 7

    def __post_init__(self) -> None:
        if self.kind not in (WIN, DRAW, LOSS):
            raise ValueError(f"unknown outcome kind {self.kind!r}")
        if self.kind == WIN and self.size != 1:
            raise ValueError("a win has size 1")
        if not 1 <= self.size <= self.board:
            raise ValueError(f"size {self.size} does not fit a board of {self.board}")

    @property
    def shares(self) -> bool:
        """True for a win or a draw (the player shares the result)."""
        return self.kind != LOSS

    @property
    def years(self) -> int:
        """Game years from 1900 to the outcome (taken for a win or draw, survived for a loss)."""
        return self.year - BASE_YEAR

    @property
    def out(self) -> int:
        """Powers not sharing the result: for a win or draw the opponents eliminated compared
        with a full-board draw; for a loss the players eliminated including oneself."""
        return self.board - self.size

    def __str__(self) -> str:
        if self.kind == WIN:
            return f"win {self.year}"
        return f"{self.size}{self.kind} {self.year}"

    @classmethod
    def parse(cls, text: str, board: int = 7) -> Outcome:
        """Read Steinke's notation: ``"win 1912"``, ``"3draw 1907"``, ``"4loss 1907"``."""
        m = re.fullmatch(r"\s*(?:(win)|(\d+)(draw|loss))\s+(\d{4})\s*", text.lower())
        if not m:
            raise ValueError(f"not an outcome: {text!r} (try 'win 1912', '3draw 1907')")
        if m.group(1):
            return cls(WIN, 1, int(m.group(4)), board)
        return cls(cast(Kind, m.group(3)), int(m.group(2)), int(m.group(4)), board)


def outcome_of(result: GameResult, player: str) -> Outcome | None:
    """The outcome of ``player`` in ``result`` (None if they did not play in it)."""
    pr = result.power_of(player)
    if pr is None:
        return None
    sharing = result.sharing
    if result.winner is not None and pr.power == result.winner:
        return Outcome(WIN, 1, result.year, result.size)
    if pr.power in sharing:
        return Outcome(DRAW, len(sharing), result.year, result.size)
    year = pr.eliminated if pr.eliminated is not None else result.year
    return Outcome(LOSS, len(sharing), year, result.size)


def loss_value(o: Outcome) -> Fraction:
    """Steinke's loss modifiers from a full-board start in 1900: +1/2 per year survived,
    -1 per player eliminated including oneself."""
    return Fraction(o.years, 2) - o.out


def best_first(o: Outcome) -> tuple:
    """Sort key putting a player's outcomes "from best to worst" (this module's decision;
    Steinke does not define the order):

    1. wins, then draws by size (2-way before 3-way ...), then losses;
    2. a win or draw of the same size: the earlier year first;
    3. losses: the higher :func:`loss_value` first, then the later year, then the larger X.
    """
    if o.shares:
        return (0, o.size, o.year)
    return (1, -loss_value(o), -o.year, -o.size)
