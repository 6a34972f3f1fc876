"""Tournament scoring: game results, scoring systems, Steinke's tie-breaks, standings.

Pure core (no I/O, no database, no mail): frozen dataclasses in, exact ``Fraction`` values
out.  Typical use (the CLI ``judge scoring <results.json>`` does exactly this)::

    from judge.core.scoring import load_results, get_system, get_tiebreaks, standings

    games = load_results(json.load(fh))          # list[GameResult]; ResultsError if malformed
    table = standings(games, get_system("dias"),
                      get_tiebreaks("head-to-head,common-denominator"))
    for s in table:                              # Standing(rank, player, total, tiebreaks,
        print(s.rank, s.player, float(s.total))  #          shared)

Modules: :mod:`.results` (data and the JSON shape), :mod:`.systems` (board scores and
totals), :mod:`.outcomes` (win / n-way draw / loss-to-X in Steinke's terms),
:mod:`.tiebreaks` (head-to-head, years:X, years-elim:X, common-denominator) and
:mod:`.standings` (ranks, shared ranks).
"""

from judge.core.scoring.outcomes import BASE_YEAR, Outcome, outcome_of
from judge.core.scoring.game_results import (GameResult, PowerResult, ResultsError, ResultType, load_results)
from judge.core.scoring.standings import Split, Standing, standings
from judge.core.scoring.systems import SYSTEMS, ScoringSystem, get_system, totals
from judge.core.scoring.tiebreaks import (DEFAULT_TIEBREAKS, CommonDenominator, HeadToHead,
                                          TieBreak, YearsEliminationPenalty, YearsOffset,
                                          common_denominator, get_tiebreaks, line_scores)

__all__ = [
    "BASE_YEAR", "Outcome", "outcome_of",
    "GameResult", "PowerResult", "ResultsError", "ResultType", "load_results",
    "Split", "Standing", "standings",
    "SYSTEMS", "ScoringSystem", "get_system", "totals",
    "DEFAULT_TIEBREAKS", "CommonDenominator", "HeadToHead", "TieBreak",
    "YearsEliminationPenalty", "YearsOffset", "common_denominator", "get_tiebreaks",
    "line_scores",
]
