"""Tournament scoring systems: a board score for each power of a game, totals over rounds.

Every system maps one :class:`~judge.core.scoring.game_results.GameResult` to an exact score per
power (``fractions.Fraction``; no rounding anywhere -- round only to display).  A player's
tournament total is the sum of their board scores over every game they played
(:func:`totals`).

Rules shared by all systems
---------------------------
* A **concession** is scored exactly like a solo of the power conceded to.
* The centre-based systems (all but draw-size) look at final centre counts, not at who was in
  a draw: a ``draw`` and a game the master ``ended`` are scored alike.
* "Survivor" means a power not eliminated when the game ended; "board topper(s)" are the
  power(s) with the most centres.
* Constants are those of the standard seven-power board; rank tables that list seven places
  (Carnage) extend by the same step for larger boards, which is this module's choice.

The systems (``SYSTEMS`` maps each name to an instance; :func:`get_system` looks one up):

==================  ==========================================================================
``draw-size``       (alias ``dias``) solo 1, draw 1/n to each of the n members, else 0
``sum-of-squares``  solo 100; else 100 * c^2 / sum of c^2
``c-diplo``         solo 100; else 1 + c + 38/14/7 for 1st/2nd/3rd (ties share)
``carnage``         solo 28034; else 7000..1000 by rank (ties share) + c
``tribute``         solo 100; else c + 66/S, non-toppers pay toppers min(66/S, top-6)
``opentribute``     solo 340; else 34 + 3c, everyone pays toppers (top - c); dead score 0
``world-classic``   solo 420; else survivors 10c + 30 + 48 shared by toppers; dead: years
``manorcon``        solo 75; else 100 * P / sum P with P = c^2 + 4c + 16; dead 0.1/year
==================  ==========================================================================
"""

from __future__ import annotations

import abc
from collections import defaultdict
from collections.abc import Iterable, Mapping
from fractions import Fraction

from judge.core.scoring.game_results import FIRST_YEAR, GameResult

F = Fraction


class ScoringSystem(abc.ABC):
    """A way to score one game.  Subclasses set ``name`` and implement :meth:`board_scores`."""

    name: str = ""

    @abc.abstractmethod
    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        """The score of every power of ``result``, by power name."""

    def player_scores(self, result: GameResult) -> dict[str, Fraction]:
        """The same scores keyed by player (powers no player held are left out)."""
        scores = self.board_scores(result)
        return {p.player: scores[p.power] for p in result.powers if p.player is not None}

    def __repr__(self) -> str:
        return f"<scoring system {self.name}>"


def _solo(result: GameResult, value: Fraction | int) -> dict[str, Fraction] | None:
    """Winner takes all: ``value`` to the winner and 0 to the rest, or None if no winner."""
    if result.winner is None:
        return None
    return {p.power: F(value) if p.power == result.winner else F(0) for p in result.powers}


def _toppers(result: GameResult) -> tuple[int, frozenset[str]]:
    top = max(p.centers for p in result.powers)
    return top, frozenset(p.power for p in result.powers if p.centers == top)


def _shared_places(keys: Mapping[str, object], table: list[Fraction]) -> dict[str, Fraction]:
    """Places by ``keys`` (higher is better); tied powers share the points of the places they
    occupy equally.  ``table[i]`` is the value of place i+1 (places past its end are worth 0)."""
    order = sorted(keys, key=lambda p: keys[p], reverse=True)  # type: ignore[arg-type,return-value]
    out: dict[str, Fraction] = {}
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and keys[order[j]] == keys[order[i]]:
            j += 1
        pool = sum((table[k] for k in range(i, j) if k < len(table)), F(0))
        for p in order[i:j]:
            out[p] = pool / (j - i)
        i = j
    return out


class DrawSize(ScoringSystem):
    """Draw-size scoring, the DIAS way of counting (name ``draw-size``, alias ``dias``).

    Formula: a solo (or concession) scores 1 for the winner; a draw scores 1/n for each of
    its n members; everyone else scores 0.  Centres do not count.  A game the master ended is
    a draw of all its survivors.

    Source: the scoring that Steinke's "Breaking ties in DIAS tournaments"
    presupposes -- "scoring wins, draws, and losses", "all survivors receive an equal share in
    any draw"; the NADF ("Draw Sized Scoring ... each survivor in a draw receives the same
    number of points") and webDiplomacy's draw-size scoring are the same rule with a larger
    pot.  The pot of 1 is this module's choice; it does not change any ranking.
    """

    name = "draw-size"

    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        solo = _solo(result, 1)
        if solo is not None:
            return solo
        sharing = result.sharing
        return {p.power: F(1, len(sharing)) if p.power in sharing else F(0)
                for p in result.powers}


class SumOfSquares(ScoringSystem):
    """Sum of squares (name ``sum-of-squares``).

    Formula: a solo scores 100 for the winner and 0 for the rest.  Otherwise each power
    scores ``100 * c**2 / sum(c_i**2)`` over all powers of the board.

    Source: Windy City Weasels house rules (Chicago, adopted for league season 6, 2010) and
    webDiplomacy's points page; the webDiplomacy forum's worked example
    (8-8-7-6-4-1-0 gives 27.83, 27.83, 21.30, 15.65, 6.96, 0.43, 0) is a test.
    """

    name = "sum-of-squares"

    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        solo = _solo(result, 100)
        if solo is not None:
            return solo
        total = sum(p.centers ** 2 for p in result.powers)
        return {p.power: F(100 * p.centers ** 2, total) for p in result.powers}


class CDiplo(ScoringSystem):
    """C-Diplo (name ``c-diplo``), the "C-Diplo 100" form.

    Formula: a solo scores 100 for the winner and 0 for the rest.  Otherwise every power
    scores 1 (for playing) + 1 per centre, and the powers placed 1st, 2nd and 3rd by centre
    count add 38, 14 and 7; tied powers share the bonuses of the places they occupy equally
    (two powers tied for 2nd get (14 + 7) / 2 each; four tied for 2nd get (14 + 7) / 4).
    A board therefore always totals 100 when all 34 centres are owned.

    Source: the French hobby's system, as used at EuroDipCon (Toby Harris, "C-Diplo -- Saint
    or Sinner?", diplom.org) and the World Diplomacy Database's "C-Diplo 100" page, whose two
    worked boards (9-7-7-4-4-3-0 and 9-7-5-5-4-3-1) are tests.
    """

    name = "c-diplo"
    BONUS = [F(38), F(14), F(7)]

    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        solo = _solo(result, 100)
        if solo is not None:
            return solo
        bonus = _shared_places(result.center_counts(), self.BONUS)
        return {p.power: 1 + p.centers + bonus[p.power] for p in result.powers}


class Carnage(ScoringSystem):
    """Carnage (name ``carnage``), with elimination order.

    Formula: a solo scores 28034 for the winner (the whole value of a board) and 0 for the
    rest.  Otherwise powers are placed by centre count, eliminated powers below all survivors
    and among themselves by elimination year (later is better; the same year ties).  Places
    1st to 7th score 7000, 6000, ..., 1000 (on a larger board place k of N scores
    1000 * (N + 1 - k)); tied powers share the points of the places they occupy equally; and
    every power adds 1 point per centre.

    Source: the Carnage convention (Vermont, USA), as described on the World Diplomacy Wiki
    ("Carnage Scoring System") and the webDiplomacy forum, whose worked boards (14-7-6-4-3 with
    two eliminated, and 8-8-7-6-4-1-0) are tests.
    """

    name = "carnage"
    SOLO = 28034

    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        solo = _solo(result, self.SOLO)
        if solo is not None:
            return solo
        n = result.size
        table = [F(1000 * (n - k)) for k in range(n)]
        keys = {p.power: (p.centers, p.eliminated if p.eliminated is not None else 10 ** 6)
                for p in result.powers}
        rank = _shared_places(keys, table)
        return {p.power: rank[p.power] + p.centers for p in result.powers}


class Tribute(ScoringSystem):
    """Tribute (name ``tribute``).

    Formula: a solo scores 100 for the winner and 0 for the rest.  Otherwise, with S
    survivors and a board top of T centres held by k toppers:

    * every power scores 1 per centre, and every survivor adds 66 / S (its survival share);
    * if T > 6, every surviving non-topper pays a tribute of ``min(T - 6, 66 / S)`` (never
      more than its survival share) and the toppers split everything paid equally.

    Eliminated powers score 0.  A board totals 100 when all 34 centres are owned.

    Source: Brandon Fogel, "To Whom Tribute is Due", Diplomacy World 149 (2020); the Windy
    City Weasels' "Tribute Scoring System" page; the World Diplomacy Wiki page (tribute paid
    cannot exceed the draw-size score; tied board-toppers split the tribute equally).
    """

    name = "tribute"

    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        solo = _solo(result, 100)
        if solo is not None:
            return solo
        survivors = result.survivors
        share = F(66, len(survivors))
        top, toppers = _toppers(result)
        tribute = min(F(top - 6), share) if top > 6 else F(0)
        payers = [p for p in survivors if p not in toppers]
        pot = tribute * len(payers)
        out: dict[str, Fraction] = {}
        for p in result.powers:
            score = F(p.centers)
            if p.survived:
                score += share
                score += pot / len(toppers) if p.power in toppers else -tribute
            out[p.power] = score
        return out


class OpenTribute(ScoringSystem):
    """OpenTribute (name ``opentribute``).

    Formula: a solo scores 340 (10 x 34) for the winner and 0 for the rest.  Otherwise every
    power starts with ``34 + 3 * c`` and every non-topper -- eliminated ones included -- pays
    the board top ``T - c`` (one point per centre it is behind).  With k toppers sharing the
    top, the toppers together receive 1/k of the tribute collected, split equally (each gets
    1/k^2 of it); the rest is spoiled.  An eliminated power then scores 0 (what it has left
    after paying is spoiled).  Once all centres are owned a lone topper scores 10 T and a
    surviving non-topper 34 + 4c - T.

    Source: the Windy City Weasels' "OpenTribute Variant" page.  Kept exact here: no rounding
    of the shared toppers' tribute (Chris Brand's Diplomacy Tournament Visualiser rounds it
    down).
    """

    name = "opentribute"

    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        solo = _solo(result, 340)
        if solo is not None:
            return solo
        top, toppers = _toppers(result)
        collected = sum(top - p.centers for p in result.powers if p.power not in toppers)
        k = len(toppers)
        out: dict[str, Fraction] = {}
        for p in result.powers:
            if not p.survived:
                out[p.power] = F(0)
            elif p.power in toppers:
                out[p.power] = 34 + 3 * p.centers + F(collected, k * k)
            else:
                out[p.power] = F(34 + 3 * p.centers - (top - p.centers))
        return out


class WorldClassic(ScoringSystem):
    """World Classic (name ``world-classic``).

    Formula: a solo scores 420 for the winner and 0 for the rest.  Otherwise every survivor
    scores 10 per centre + 30 for surviving, the board topper(s) share 48 equally, and every
    eliminated power scores 1 per year survived: ``eliminated - 1901`` (out in 1905 means it
    survived 1901-1904: 4 points).

    Source: Peter McNamara's system, as summarised on the World Diplomacy Wiki ("World
    Classic Scoring System": 10 per centre, 48 for the topper shared equally, 30 for
    survival and 1 per year of survival "in a non solo game").  The solo value 420 comes from
    Chris Brand's Diplomacy Tournament Visualiser, which also gives the losers of a solo
    their year points; the wiki's wording limits year points to non-solo games, which is the
    reading taken here.  Unsure: no primary publication was found to settle the solo case.
    """

    name = "world-classic"

    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        solo = _solo(result, 420)
        if solo is not None:
            return solo
        top, toppers = _toppers(result)
        out: dict[str, Fraction] = {}
        for p in result.powers:
            if p.eliminated is not None:
                out[p.power] = F(p.eliminated - FIRST_YEAR)
            else:
                out[p.power] = 10 * p.centers + 30 + (F(48, len(toppers))
                                                      if p.power in toppers else F(0))
        return out


class ManorCon(ScoringSystem):
    """ManorCon (name ``manorcon``).

    Formula: an eliminated power scores 0.1 per year it played, the year of its elimination
    included (``0.1 * (eliminated - 1900)``).  A solo scores 75 for the winner, and every
    other power still on the board is scored as if eliminated in the year of the solo.
    Otherwise every power, eliminated ones included, has ``P = c**2 + 4c + 16`` (16 for a
    power with no centres), B is the sum of P over the board, and every survivor scores
    ``100 * P / B``.

    Source: the ManorCon (UK convention) Diplomacy tournament scoring page,
    diplom.org/manorcon/dipscore.htm.  Exact: 0.1 is ``Fraction(1, 10)``.
    """

    name = "manorcon"
    SOLO = 75
    PER_YEAR = F(1, 10)

    def board_scores(self, result: GameResult) -> dict[str, Fraction]:
        out: dict[str, Fraction] = {}
        winner = result.winner
        if winner is not None:
            for p in result.powers:
                out_year = p.eliminated if p.eliminated is not None else result.year
                out[p.power] = (F(self.SOLO) if p.power == winner
                                else self.PER_YEAR * (out_year - (FIRST_YEAR - 1)))
            return out
        weight = {p.power: p.centers ** 2 + 4 * p.centers + 16 for p in result.powers}
        board = sum(weight.values())
        for p in result.powers:
            if p.eliminated is not None:
                out[p.power] = self.PER_YEAR * (p.eliminated - (FIRST_YEAR - 1))
            else:
                out[p.power] = F(100 * weight[p.power], board)
        return out


SYSTEMS: dict[str, ScoringSystem] = {
    s.name: s for s in (DrawSize(), SumOfSquares(), CDiplo(), Carnage(), Tribute(),
                        OpenTribute(), WorldClassic(), ManorCon())
}
ALIASES = {"dias": "draw-size", "drawsize": "draw-size", "sos": "sum-of-squares",
           "cdiplo": "c-diplo", "worldclassic": "world-classic", "open-tribute": "opentribute"}


def get_system(name: str) -> ScoringSystem:
    """The system called ``name`` (case-insensitive; see ``SYSTEMS`` and ``ALIASES``).

    Raises ``KeyError`` with the list of known names.
    """
    key = name.strip().lower().replace("_", "-")
    key = ALIASES.get(key, key)
    try:
        return SYSTEMS[key]
    except KeyError:
        raise KeyError(f"unknown scoring system {name!r}; known: "
                       f"{', '.join(sorted(SYSTEMS))}") from None


def totals(results: Iterable[GameResult], system: ScoringSystem) -> dict[str, Fraction]:
    """Every player's total: the sum of their board scores over all games they played."""
    out: dict[str, Fraction] = defaultdict(Fraction)
    for result in results:
        for player, score in system.player_scores(result).items():
            out[player] += score
    return dict(out)
