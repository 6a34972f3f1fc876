"""Steinke's "Breaking ties in DIAS tournaments": every worked example, with the
article's figures, plus the tie-break machinery and standings.

The article's records are built as real games (``game_for``) so that the outcome derivation
(win / n-way draw / loss to X survivors, years from 1900) is exercised too; the tournament
system is DIAS draw-size, under which every pair of records in the article is level.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from test_scoring_helpers import board, game_for

from judge.core.scoring import (CommonDenominator, Outcome, YearsEliminationPenalty,
                                YearsOffset, common_denominator, get_system, get_tiebreaks,
                                line_scores, outcome_of, standings, totals)
from judge.core.scoring.outcomes import best_first
from judge.core.scoring.tiebreaks import lines, penalty

DIAS = get_system("dias")


def records(**recs: list[str]) -> tuple[list, dict[str, list[str]]]:
    """Games giving each player the outcomes listed (seed notation)."""
    games = [game_for(player, o) for player, outs in recs.items() for o in outs]
    return games, recs


def values(breaker, games, *players):
    return breaker.values(frozenset(players), games, DIAS)


# -- outcomes ------------------------------------------------------------------------------

@pytest.mark.parametrize("notation", ["win 1912", "2draw 1908", "7draw 1900", "4loss 1907",
                                      "1loss 1916", "5loss 1906"])
def test_outcome_notation_round_trips(notation):
    assert str(Outcome.parse(notation)) == notation


@pytest.mark.parametrize("notation", ["win 1913", "3draw 1907", "4loss 1907", "1loss 1916"])
def test_games_give_the_outcome_they_were_built_for(notation):
    g = game_for("P", notation)
    assert str(outcome_of(g, "P")) == notation
    assert outcome_of(g, "nobody") is None


def test_outcome_of_a_survivor_outside_the_draw_and_of_an_ended_game():
    g = board({"ENGLAND": 10, "FRANCE": 10, "ITALY": 2, "TURKEY": (0, 1905)}, "draw",
              ("ENGLAND", "FRANCE"), 1909, players={"ITALY": "i", "TURKEY": "t", "ENGLAND": "e"})
    assert str(outcome_of(g, "i")) == "2loss 1909"      # alive at the end, not in the draw
    assert str(outcome_of(g, "t")) == "2loss 1905"      # eliminated in 1905
    assert str(outcome_of(g, "e")) == "2draw 1909"
    ended = board({"ENGLAND": 10, "FRANCE": 10, "ITALY": 2, "TURKEY": (0, 1905)}, "ended",
                  (), 1909, players={"ITALY": "i"})
    assert str(outcome_of(ended, "i")) == "3draw 1909"  # DIAS: every survivor shares it


def test_years_are_counted_from_1900():
    assert Outcome.parse("win 1913").years == 13
    assert Outcome.parse("4loss 1901").years == 1


# -- the year-based systems ----------------------------------------------------------------

def test_seed_simplest_system_minus_one_per_win_or_draw_year_plus_one_per_loss_year():
    # "win 1913 -13, loss 1901 +1, loss 1901 +1 = -11" against "2draw 1904 -4, 4draw 1904 -4,
    # 4draw 1904 -4 = -12": level on DIAS, player two loses the tie-break.
    games, _ = records(P1=["win 1913", "4loss 1901", "4loss 1901"],
                       P2=["2draw 1904", "4draw 1904", "4draw 1904"])
    assert totals(games, DIAS)["P1"] == totals(games, DIAS)["P2"] == 1
    years0 = YearsOffset(0)
    assert [years0.game_value(outcome_of(g, "P1")) for g in games[:3]] == [-13, 1, 1]
    assert [years0.game_value(outcome_of(g, "P2")) for g in games[3:]] == [-4, -4, -4]
    assert values(years0, games, "P1", "P2") == {"P1": -11, "P2": -12}
    top = [s for s in standings(games, DIAS, years0) if s.player in ("P1", "P2")]
    assert [(s.player, s.rank, s.shared) for s in top] == [("P1", 1, False), ("P2", 2, False)]


def test_seed_offset_x14_makes_the_two_records_equivalent():
    # X = 14: "win 1907 14-7, loss 1907 +7, loss 1907 +7 = +21" and
    # "2draw 1907 14-7, 4draw 1907 14-7, 4draw 1907 14-7 = +21".
    games, _ = records(P1=["win 1907", "4loss 1907", "4loss 1907"],
                       P2=["2draw 1907", "4draw 1907", "4draw 1907"])
    x14 = YearsOffset(14)
    assert [x14.game_value(outcome_of(g, "P1")) for g in games[:3]] == [7, 7, 7]
    assert [x14.game_value(outcome_of(g, "P2")) for g in games[3:]] == [7, 7, 7]
    assert values(x14, games, "P1", "P2") == {"P1": 21, "P2": 21}
    top = [s for s in standings(games, DIAS, x14) if s.player in ("P1", "P2")]
    assert [(s.rank, s.shared) for s in top] == [(1, True), (1, True)]
    assert top[0].tiebreaks == (("years:14", 21),)


def test_seed_elimination_penalty_variant():
    # "A loss to a four way draw in 1907 would be equivalent to a loss to a solo victor in
    # 1910, and if X were 10 would be tie break equivalent to getting a draw in 1906."
    x10 = YearsEliminationPenalty(10)
    loss_to_4draw = outcome_of(game_for("P", "4loss 1907"), "P")
    loss_to_solo = outcome_of(game_for("P", "1loss 1910"), "P")
    draw_1906 = outcome_of(game_for("P", "4draw 1906"), "P")
    assert loss_to_4draw.out == 3 and loss_to_solo.out == 6
    assert x10.game_value(loss_to_4draw) == 7 - 3 == 4
    assert x10.game_value(loss_to_solo) == 10 - 6 == 4
    assert x10.game_value(draw_1906) == 10 - 6 == 4
    # The win/draw side is the same as in the offset system.
    assert x10.game_value(draw_1906) == YearsOffset(10).game_value(draw_1906)


# -- the common-denominator system ---------------------------------------------------------

def test_seed_penalty_table():
    assert [penalty(n) for n in range(1, 8)] == [F("0.32"), F("0.35"), F("0.38"), F("0.41"),
                                                 F("0.44"), F("0.47"), F("0.50")]


def test_seed_first_example_extra_draw_year_costs_more_than_extra_win_year():
    # P1: win 1910, win 1911, 4draw 1909; P2: win 1910, win 1910, 4draw 1910.
    # "player 1 should win the tie break."
    games, _ = records(P1=["win 1910", "win 1911", "4draw 1909"],
                       P2=["win 1910", "win 1910", "4draw 1910"])
    assert totals(games, DIAS)["P1"] == totals(games, DIAS)["P2"]
    got = values(CommonDenominator(), games, "P1", "P2")
    assert got == {"P1": F("-0.32"), "P2": F("-0.41")}
    top = [s.player for s in standings(games, DIAS, CommonDenominator())][:2]
    assert top == ["P1", "P2"]


def test_seed_second_example_line_by_line():
    # Player 1 | Player 2 | Common Denominator
    # 2draw 1908 | 3draw 1907 | 3draw 1907   -> P1 -.35 + 1
    # 4draw 1907 | 3draw 1907 | 4draw 1907   -> P2 +1
    # 6draw 1906 | 4draw 1907 | 6draw 1906   -> P2 +2 -.41
    p1 = [Outcome.parse(s) for s in ("2draw 1908", "4draw 1907", "6draw 1906")]
    p2 = [Outcome.parse(s) for s in ("3draw 1907", "3draw 1907", "4draw 1907")]
    ls = lines({"P1": p1, "P2": p2})
    assert [(str(line["P1"]), str(line["P2"])) for line in ls] == [
        ("2draw 1908", "3draw 1907"), ("4draw 1907", "3draw 1907"), ("6draw 1906", "4draw 1907")]
    assert [line_scores(line) for line in ls] == [
        {"P1": F("0.65"), "P2": 0}, {"P1": 0, "P2": 1}, {"P1": 0, "P2": F("1.59")}]
    # "Player 1 gets -.35 +1 = .65, and player two gets +1 -.41 +2 = 2.59. Player two wins."
    assert common_denominator({"P1": p1, "P2": p2}) == {"P1": F("0.65"), "P2": F("2.59")}


def test_seed_second_example_through_standings():
    games, _ = records(P1=["2draw 1908", "4draw 1907", "6draw 1906"],
                       P2=["3draw 1907", "3draw 1907", "4draw 1907"])
    table = standings(games, DIAS, get_tiebreaks("head-to-head,common-denominator"))
    assert [(s.rank, s.player, s.total) for s in table[:2]] == [(1, "P2", F(11, 12)),
                                                                (2, "P1", F(11, 12))]
    # They never met: head-to-head does not apply, the common denominator decides.
    assert dict(table[0].tiebreaks) == {"head-to-head": None, "common-denominator": F("2.59")}
    assert dict(table[1].tiebreaks) == {"head-to-head": None, "common-denominator": F("0.65")}


@pytest.mark.parametrize("one, two, den, want_one, want_two", [
    # win 1912: 6 eliminated +6, 12 years taken -3.84 = +2.16;
    # 4loss 1907: 3 eliminated -3, 7 years survived +3.5 = +0.5
    ("win 1912", "4loss 1907", "7draw 1900", "2.16", "0.5"),
    # 5draw 1905: +2, 5 years taken -2.2 = -0.2;  1loss 1916: -6, 16 years +8 = +2
    ("5draw 1905", "1loss 1916", "7draw 1900", "-0.2", "2"),
    # 5loss 1906 is the denominator: 0;  2loss 1910: 3 eliminated -3, 4 years +2 = -1
    ("5loss 1906", "2loss 1910", "5loss 1906", "0", "-1"),
    # win 1909: 2 eliminated +2;  3draw 1912: 3 years taken -1.14
    ("win 1909", "3draw 1912", "3draw 1909", "2", "-1.14"),
])
def test_seed_final_examples(one, two, den, want_one, want_two):
    games = [game_for("P1", one), game_for("P2", two)]
    line = {"P1": outcome_of(games[0], "P1"), "P2": outcome_of(games[1], "P2")}
    assert line_scores(line) == {"P1": F(want_one), "P2": F(want_two)}
    # The denominator scores 0 against itself, and each side scores the same against it.
    d = Outcome.parse(den)
    assert line_scores({"D": d, "X": d}) == {"D": 0, "X": 0}
    if den != "7draw 1900":
        assert line_scores({"P1": line["P1"], "D": d})["P1"] == F(want_one)
        assert line_scores({"P2": line["P2"], "D": d})["P2"] == F(want_two)


def test_common_denominator_uneven_records_and_more_than_two_players():
    recs = {"A": [Outcome.parse("2draw 1910"), Outcome.parse("4loss 1905")],
            "B": [Outcome.parse("2draw 1908")],
            "C": [Outcome.parse("3draw 1908"), Outcome.parse("2loss 1906")]}
    # line 1: 2draw 1910 / 2draw 1908 / 3draw 1908 -> den 3draw 1908:
    #   A +1 - 2 * .35 = .30, B +1, C 0
    # line 2: 4loss 1905 / - / 2loss 1906 -> den 4loss 1905: A 0, C -2 + .5 = -1.5
    assert common_denominator(recs) == {"A": F("0.3"), "B": 1, "C": F("-1.5")}


def test_best_to_worst_order():
    outs = [Outcome.parse(s) for s in ("4loss 1907", "3draw 1907", "win 1912", "2draw 1908",
                                       "win 1909", "1loss 1916", "3draw 1905", "6loss 1903")]
    assert [str(o) for o in sorted(outs, key=best_first)] == [
        "win 1909", "win 1912", "2draw 1908", "3draw 1905", "3draw 1907",
        "1loss 1916",   # +8 - 6 = 2
        "4loss 1907",   # +3.5 - 3 = .5
        "6loss 1903"]   # +1.5 - 1 = .5, earlier year
