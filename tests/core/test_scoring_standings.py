"""Standings: ranks, head-to-head recursion, shared ranks, independence of input order."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_scoring_helpers import POWERS, board, game_for

from judge.core.scoring import (SYSTEMS, CommonDenominator, GameResult, HeadToHead,
                                PowerResult, ResultType, YearsOffset, get_system,
                                get_tiebreaks, standings)

DIAS = get_system("dias")


def table(games, tiebreak=None, system=DIAS, only=None):
    rows = standings(games, system, tiebreak)
    return [(s.rank, s.player, s.shared) for s in rows if only is None or s.player in only]


def test_plain_ranks_best_first_and_competition_numbering():
    g1 = board({"AUSTRIA": 17, "ENGLAND": 17}, "draw", ("AUSTRIA", "ENGLAND"),
               players={"AUSTRIA": "a", "ENGLAND": "b"})
    g2 = board({"AUSTRIA": 18, "ENGLAND": 1, "FRANCE": 1}, "solo", ("AUSTRIA",),
               players={"AUSTRIA": "c", "ENGLAND": "d", "FRANCE": "e"})
    assert table([g1, g2], tiebreak=None) == [
        (1, "c", False), (2, "a", True), (2, "b", True), (4, "d", True), (4, "e", True)]


def test_a_symmetric_tie_survives_every_breaker_and_shares_the_rank():
    # a and b drew the same game: head-to-head, years and common denominator all level.
    g = board({"AUSTRIA": 17, "ENGLAND": 17}, "draw", ("AUSTRIA", "ENGLAND"), 1909,
              players={"AUSTRIA": "a", "ENGLAND": "b"})
    rows = standings([g], DIAS, get_tiebreaks("h2h,years:14,years-elim:14,cd"))
    assert [(s.rank, s.player, s.shared) for s in rows] == [(1, "a", True), (1, "b", True)]
    assert rows[0].tiebreaks == (("head-to-head", F(1, 2)), ("years:14", 5),
                                 ("years-elim:14", 5), ("common-denominator", 0))


def test_head_to_head_decides_between_two():
    # a soloed against b; b soloed elsewhere; a lost elsewhere: both total 1.
    g1 = game_for("a", "win 1910", others={"ENGLAND": "b"})
    g2 = game_for("b", "win 1905")
    g3 = game_for("a", "3loss 1903")
    rows = standings([g1, g2, g3], DIAS, get_tiebreaks("h2h,cd"))
    top = [(s.rank, s.player, dict(s.tiebreaks)) for s in rows if s.player in "ab"]
    assert top == [(1, "a", {"head-to-head": 1}), (2, "b", {"head-to-head": 0})]


def test_head_to_head_recurses_on_the_players_still_tied():
    # a, b, c all total 1.  a beat b (g1); b and c drew (g2); b and c drew elsewhere (g4,
    # g5), c sooner.  Head-to-head among {a, b, c}: a 1, b 0 + 1/2, c 1/2 -> a first; then
    # among {b, c} only g2 counts: 1/2 each -> not split; the common denominator puts c's
    # 1908 draw ahead of b's 1910 draw.
    g1 = game_for("a", "win 1906", others={"ENGLAND": "b"})
    g2 = game_for("b", "2draw 1907", others={"AUSTRIA": "c"})
    g3 = game_for("a", "2loss 1904")
    g4 = game_for("b", "2draw 1910")
    g5 = game_for("c", "2draw 1908")
    rows = standings([g1, g2, g3, g4, g5], DIAS, get_tiebreaks("head-to-head,cd"))
    abc = [s for s in rows if s.player in ("a", "b", "c")]
    assert [(s.rank, s.player, s.shared, s.total) for s in abc] == [
        (1, "a", False, 1), (2, "c", False, 1), (3, "b", False, 1)]
    assert abc[1].tiebreaks == (("head-to-head", F(1, 2)), ("head-to-head", F(1, 2)),
                                ("common-denominator", 0))
    assert abc[2].tiebreaks == (("head-to-head", F(1, 2)), ("head-to-head", F(1, 2)),
                                ("common-denominator", F("-0.7")))


def test_head_to_head_does_not_apply_when_a_tied_player_met_nobody():
    g1 = game_for("a", "win 1906", others={"ENGLAND": "b"})
    g2 = game_for("b", "win 1907")
    g3 = game_for("c", "win 1909")
    g4 = game_for("a", "2loss 1904")
    assert HeadToHead().values(frozenset("abc"), [g1, g2, g3, g4], DIAS) == \
        {"a": None, "b": None, "c": None}
    rows = table([g1, g2, g3, g4], get_tiebreaks("h2h"), only="abc")
    assert rows == [(1, "a", True), (1, "b", True), (1, "c", True)]
    # Years decide instead: b survived a's solo to 1906 (+6) and won in 1907 (14-7): 13;
    # a won in 1906 (14-6) and was eliminated in 1904 (+4): 12; c won in 1909: 14-9 = 5.
    rows = table([g1, g2, g3, g4], get_tiebreaks("h2h,years:14"), only="abc")
    assert rows == [(1, "b", False), (2, "a", False), (3, "c", False)]


def test_a_single_breaker_may_be_passed_alone():
    g1 = game_for("a", "win 1906")
    g2 = game_for("b", "win 1907")
    assert table([g1, g2], YearsOffset(14), only="ab") == [(1, "a", False), (2, "b", False)]
    assert table([g1, g2], CommonDenominator(), only="ab") == [(1, "a", False),
                                                               (2, "b", False)]


@pytest.mark.parametrize("spec, names", [
    ("none", []), ("", []), ("h2h", ["head-to-head"]),
    ("head-to-head, years:14, years-elim:10, common-denominator",
     ["head-to-head", "years:14", "years-elim:10", "common-denominator"])])
def test_get_tiebreaks(spec, names):
    assert [t.name for t in get_tiebreaks(spec)] == names


@pytest.mark.parametrize("spec, message", [
    ("years", "years needs its offset X, e.g. years:14"),
    ("coin-toss", "unknown tie-break 'coin-toss'")])
def test_get_tiebreaks_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        get_tiebreaks(spec)


# -- independence of input order -----------------------------------------------------------

PLAYERS = [f"p{i}" for i in range(10)]


@st.composite
def tournaments(draw) -> list[GameResult]:
    rng = random.Random(draw(st.integers(0, 2 ** 32)))
    games = []
    for n in range(draw(st.integers(1, 6))):
        year = rng.randint(1903, 1915)
        players = rng.sample(PLAYERS, 7)
        dead = set(rng.sample(POWERS, rng.randint(0, 4)))
        alive = [p for p in POWERS if p not in dead]
        powers = [PowerResult(pw, pl, 0 if pw in dead else rng.randint(1, 12),
                              rng.randint(1902, year) if pw in dead else None)
                  for pw, pl in zip(POWERS, players)]
        kind = rng.choice(list(ResultType))
        if kind in (ResultType.SOLO, ResultType.CONCESSION):
            members = {rng.choice(alive)}
        elif kind is ResultType.DRAW and len(alive) >= 2:
            members = set(rng.sample(alive, rng.randint(2, len(alive))))
        else:
            kind, members = ResultType.ENDED, set()
        games.append(GameResult(f"g{n}", rng.randint(1, 3), kind, year, tuple(powers),
                                frozenset(members)))
    return games


@settings(max_examples=60, deadline=None)
@given(tournaments(), st.randoms(use_true_random=False),
       st.sampled_from(sorted(SYSTEMS)),
       st.sampled_from(["h2h,cd", "h2h,years:14", "years-elim:12", "none"]))
def test_standings_do_not_depend_on_input_order(games, rnd, system, spec):
    chain = get_tiebreaks(spec)
    want = standings(games, SYSTEMS[system], chain)
    shuffled = [replace(g, powers=tuple(rnd.sample(g.powers, len(g.powers)))) for g in games]
    rnd.shuffle(shuffled)
    assert standings(shuffled, SYSTEMS[system], chain) == want
    # And the table is well formed.
    assert len({s.player for s in want}) == len(want)
    assert [s.total for s in want] == sorted((s.total for s in want), reverse=True)
    for i, s in enumerate(want):
        assert s.rank == 1 + min(j for j, t in enumerate(want) if t.rank == s.rank)
        assert s.shared == (sum(t.rank == s.rank for t in want) > 1)
        assert s.rank <= i + 1
