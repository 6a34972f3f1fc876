"""Scoring systems: published worked examples (cited) and hand-computed boards."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from test_scoring_helpers import board

from judge.core.scoring import SYSTEMS, get_system, totals

E = (0, 1905)   # a power eliminated in 1905


def scores(system: str, counts, result="ended", members=(), year=1910):
    return get_system(system).board_scores(board(counts, result, members, year))


SOLO_BOARD = {"AUSTRIA": 3, "ENGLAND": 4, "FRANCE": 18, "GERMANY": 5, "ITALY": (0, 1906),
              "RUSSIA": 2, "TURKEY": 2}


@pytest.mark.parametrize("system, value", [
    ("draw-size", 1), ("sum-of-squares", 100), ("c-diplo", 100), ("carnage", 28034),
    ("tribute", 100), ("opentribute", 340), ("world-classic", 420)])
@pytest.mark.parametrize("result", ["solo", "concession"])
def test_winner_takes_all(system, value, result):
    got = scores(system, SOLO_BOARD, result, ("FRANCE",), 1910)
    assert got == {"FRANCE": value, **{p: 0 for p in SOLO_BOARD if p != "FRANCE"}}


def test_names_and_aliases():
    assert set(SYSTEMS) == {"draw-size", "sum-of-squares", "c-diplo", "carnage", "tribute",
                            "opentribute", "world-classic", "manorcon"}
    assert get_system("DIAS") is SYSTEMS["draw-size"]
    assert get_system("World_Classic") is SYSTEMS["world-classic"]
    with pytest.raises(KeyError, match="unknown scoring system 'elo'"):
        get_system("elo")


def test_every_system_is_exact():
    counts = {"AUSTRIA": 7, "ENGLAND": 6, "FRANCE": 6, "GERMANY": 5, "ITALY": 4, "RUSSIA": 3,
              "TURKEY": 3}
    for name in SYSTEMS:
        assert all(type(v) is F for v in scores(name, counts).values()), name


# -- draw-size / DIAS ----------------------------------------------------------------------

def test_draw_size_shares_among_members():
    counts = {"AUSTRIA": 12, "ENGLAND": 11, "FRANCE": 11, "GERMANY": E, "ITALY": E,
              "RUSSIA": E, "TURKEY": E}
    got = scores("dias", counts, "draw", ("AUSTRIA", "ENGLAND", "FRANCE"))
    assert got == {"AUSTRIA": F(1, 3), "ENGLAND": F(1, 3), "FRANCE": F(1, 3), "GERMANY": 0,
                   "ITALY": 0, "RUSSIA": 0, "TURKEY": 0}


def test_draw_size_nodias_draw_leaves_a_survivor_out_and_ended_game_is_dias():
    counts = {"AUSTRIA": 16, "ENGLAND": 15, "FRANCE": 3, "GERMANY": E, "ITALY": E,
              "RUSSIA": E, "TURKEY": E}
    assert scores("dias", counts, "draw", ("AUSTRIA", "ENGLAND"))["FRANCE"] == 0
    assert scores("dias", counts, "draw", ("AUSTRIA", "ENGLAND"))["AUSTRIA"] == F(1, 2)
    # Steinke's 16-15-3 three-way draw: the small power gets an equal share.
    assert set(scores("dias", counts, "ended").values()) == {F(1, 3), 0}


# -- sum of squares ------------------------------------------------------------------------

def test_sum_of_squares_webdiplomacy_example():
    # webDiplomacy forum (thread 1335078): England 8, Russia 8, France 7, Turkey 6, Italy 4,
    # Austria 1, Germany 0 -> 27.83, 27.83, 21.3, 15.65, 6.96, 0.43, 0.
    counts = {"ENGLAND": 8, "RUSSIA": 8, "FRANCE": 7, "TURKEY": 6, "ITALY": 4, "AUSTRIA": 1,
              "GERMANY": (0, 1907)}
    got = scores("sum-of-squares", counts)
    assert got["ENGLAND"] == F(6400, 230)
    assert {p: round(float(v), 2) for p, v in got.items()} == {
        "ENGLAND": 27.83, "RUSSIA": 27.83, "FRANCE": 21.3, "TURKEY": 15.65, "ITALY": 6.96,
        "AUSTRIA": 0.43, "GERMANY": 0}
    assert sum(got.values()) == 100


def test_sum_of_squares_webdiplomacy_16_against_9_9():
    # Same thread: 16 against 9 and 9 -> 61.24.
    got = scores("sos", {"AUSTRIA": 16, "ENGLAND": 9, "FRANCE": 9, "GERMANY": E})
    assert round(float(got["AUSTRIA"]), 2) == 61.24


# -- C-Diplo -------------------------------------------------------------------------------

def test_c_diplo_wdd_first_example():
    # World Diplomacy Database, "C-Diplo 100": 9-7-7-4-4-3-0 ->
    # France 1+9+38 = 48, Germany/Italy 1+7+(14+7)/2 = 18.5, Austria/Turkey 5, Russia 4, England 1.
    got = scores("c-diplo", {"AUSTRIA": 4, "ENGLAND": (0, 1906), "FRANCE": 9, "GERMANY": 7,
                             "ITALY": 7, "RUSSIA": 3, "TURKEY": 4})
    assert got == {"AUSTRIA": 5, "ENGLAND": 1, "FRANCE": 48, "GERMANY": F("18.5"),
                   "ITALY": F("18.5"), "RUSSIA": 4, "TURKEY": 5}
    assert sum(got.values()) == 100


def test_c_diplo_wdd_second_example():
    # Same page: Austria 5, England 9, France 4, Germany 5, Italy 3, Russia 1, Turkey 7 ->
    # 9.5, 48, 5, 9.5, 4, 2, 22.
    got = scores("c-diplo", {"AUSTRIA": 5, "ENGLAND": 9, "FRANCE": 4, "GERMANY": 5,
                             "ITALY": 3, "RUSSIA": 1, "TURKEY": 7})
    assert got == {"AUSTRIA": F("9.5"), "ENGLAND": 48, "FRANCE": 5, "GERMANY": F("9.5"),
                   "ITALY": 4, "RUSSIA": 2, "TURKEY": 22}


def test_c_diplo_four_tied_for_second_share_second_and_third():
    # Toby Harris: "4 players sharing 2nd place would each gain one quarter of the 14 + 7".
    got = scores("c-diplo", {"AUSTRIA": 10, "ENGLAND": 6, "FRANCE": 6, "GERMANY": 6,
                             "ITALY": 6, "RUSSIA": E, "TURKEY": E})
    assert got["ENGLAND"] == 1 + 6 + F(21, 4)
    assert got["AUSTRIA"] == 49 and got["RUSSIA"] == 1
    assert sum(got.values()) == 100


def test_c_diplo_tied_toppers_share_first_and_second():
    got = scores("c-diplo", {"AUSTRIA": 12, "ENGLAND": 12, "FRANCE": 10, "GERMANY": E})
    assert got == {"AUSTRIA": 13 + 26, "ENGLAND": 13 + 26, "FRANCE": 11 + 7, "GERMANY": 1}


# -- Carnage -------------------------------------------------------------------------------

def test_carnage_webdiplomacy_example_with_elimination_order():
    # webDiplomacy forum (thread 1325258): Russia 14, Turkey 7, France 6, Germany 4,
    # England 3, Italy 0 (eliminated 2nd), Austria 0 (eliminated 1st) ->
    # 7014, 6007, 5006, 4004, 3003, 2000, 1000.
    got = scores("carnage", {"RUSSIA": 14, "TURKEY": 7, "FRANCE": 6, "GERMANY": 4,
                             "ENGLAND": 3, "ITALY": (0, 1907), "AUSTRIA": (0, 1904)})
    assert got == {"RUSSIA": 7014, "TURKEY": 6007, "FRANCE": 5006, "GERMANY": 4004,
                   "ENGLAND": 3003, "ITALY": 2000, "AUSTRIA": 1000}


def test_carnage_webdiplomacy_example_with_shared_top():
    # Same thread: England 8, Russia 8 -> 6508 each; France 7 -> 5007; Turkey 6 -> 4006;
    # Italy 4 -> 3004; Austria 1 -> 2001; Germany 0 -> 1000.
    got = scores("carnage", {"ENGLAND": 8, "RUSSIA": 8, "FRANCE": 7, "TURKEY": 6, "ITALY": 4,
                             "AUSTRIA": 1, "GERMANY": (0, 1908)})
    assert got == {"ENGLAND": 6508, "RUSSIA": 6508, "FRANCE": 5007, "TURKEY": 4006,
                   "ITALY": 3004, "AUSTRIA": 2001, "GERMANY": 1000}


def test_carnage_eliminated_the_same_year_tie():
    got = scores("carnage", {"AUSTRIA": 10, "ENGLAND": 9, "FRANCE": 8, "GERMANY": 7,
                             "ITALY": (0, 1906), "RUSSIA": (0, 1906), "TURKEY": (0, 1903)})
    assert got["ITALY"] == got["RUSSIA"] == F(3000 + 2000, 2)
    assert got["TURKEY"] == 1000


# -- Tribute -------------------------------------------------------------------------------

def test_tribute_lone_topper_collects_from_every_survivor():
    # S = 4 survivors: share 66/4 = 16.5; top 10 -> tribute 10 - 6 = 4 from each of 3.
    got = scores("tribute", {"AUSTRIA": 10, "ENGLAND": 9, "FRANCE": 8, "GERMANY": 7,
                             "ITALY": E, "RUSSIA": E, "TURKEY": E})
    assert got == {"AUSTRIA": F("38.5"), "ENGLAND": F("21.5"), "FRANCE": F("20.5"),
                   "GERMANY": F("19.5"), "ITALY": 0, "RUSSIA": 0, "TURKEY": 0}
    assert sum(got.values()) == 100


def test_tribute_is_capped_at_the_survival_share():
    # 16 against six 3s: share 66/7 < 16 - 6, so each pays 66/7; the topper gets 16 + 66.
    got = scores("tribute", {"AUSTRIA": 16, "ENGLAND": 3, "FRANCE": 3, "GERMANY": 3,
                             "ITALY": 3, "RUSSIA": 3, "TURKEY": 3})
    assert got["AUSTRIA"] == 82 and got["ENGLAND"] == 3


def test_tribute_tied_toppers_split_the_tribute():
    # 8, 8, 6, 6, 6: share 13.2, tribute 2 from each of three, 3 to each topper.
    got = scores("tribute", {"AUSTRIA": 8, "ENGLAND": 8, "FRANCE": 6, "GERMANY": 6,
                             "ITALY": 6, "RUSSIA": E, "TURKEY": E})
    assert got["AUSTRIA"] == got["ENGLAND"] == F("24.2")
    assert got["FRANCE"] == F("17.2")
    assert sum(got.values()) == 100


def test_tribute_no_tribute_when_the_top_is_six_or_less():
    got = scores("tribute", {"AUSTRIA": 6, "ENGLAND": 6, "FRANCE": 6, "GERMANY": 6,
                             "ITALY": 5, "RUSSIA": 5, "TURKEY": E})
    assert got["AUSTRIA"] == 6 + 11 and got["ITALY"] == 5 + 11


# -- OpenTribute ---------------------------------------------------------------------------

def test_opentribute_matches_the_published_simplification():
    # Windy City Weasels: once all centres are owned a lone topper scores 10 x centres and
    # a surviving non-topper 34 + 4 x centres - topper's centres; the eliminated score 0.
    got = scores("opentribute", {"AUSTRIA": 12, "ENGLAND": 8, "FRANCE": 7, "GERMANY": 4,
                                 "ITALY": 3, "RUSSIA": E, "TURKEY": (0, 1907)})
    assert got == {"AUSTRIA": 120, "ENGLAND": 34 + 32 - 12, "FRANCE": 34 + 28 - 12,
                   "GERMANY": 34 + 16 - 12, "ITALY": 34 + 12 - 12, "RUSSIA": 0, "TURKEY": 0}


def test_opentribute_shared_top_gets_one_over_n_squared_each():
    # 10, 10, 8, 6 and three eliminated: collected (2 + 4 + 3 * 10) = 36; each topper 36/4.
    got = scores("opentribute", {"AUSTRIA": 10, "ENGLAND": 10, "FRANCE": 8, "GERMANY": 6,
                                 "ITALY": E, "RUSSIA": E, "TURKEY": E})
    assert got == {"AUSTRIA": 34 + 30 + 9, "ENGLAND": 73, "FRANCE": 34 + 24 - 2,
                   "GERMANY": 34 + 18 - 4, "ITALY": 0, "RUSSIA": 0, "TURKEY": 0}


# -- World Classic -------------------------------------------------------------------------

def test_world_classic_draw():
    got = scores("world-classic", {"AUSTRIA": 10, "ENGLAND": 9, "FRANCE": 8, "GERMANY": 7,
                                   "ITALY": (0, 1905), "RUSSIA": (0, 1906),
                                   "TURKEY": (0, 1907)})
    assert got == {"AUSTRIA": 100 + 30 + 48, "ENGLAND": 120, "FRANCE": 110, "GERMANY": 100,
                   "ITALY": 4, "RUSSIA": 5, "TURKEY": 6}


def test_world_classic_tied_toppers_share_48():
    got = scores("world-classic", {"AUSTRIA": 12, "ENGLAND": 12, "FRANCE": 10, "GERMANY": E})
    assert got == {"AUSTRIA": 174, "ENGLAND": 174, "FRANCE": 130, "GERMANY": 4}


# -- ManorCon ------------------------------------------------------------------------------

def test_manorcon_draw():
    # P = c^2 + 4c + 16: 156, 133, 112, 93 and 16 for each of three eliminated; B = 542.
    got = scores("manorcon", {"AUSTRIA": 10, "ENGLAND": 9, "FRANCE": 8, "GERMANY": 7,
                              "ITALY": (0, 1905), "RUSSIA": (0, 1906), "TURKEY": (0, 1907)})
    assert got == {"AUSTRIA": F(15600, 542), "ENGLAND": F(13300, 542),
                   "FRANCE": F(11200, 542), "GERMANY": F(9300, 542),
                   "ITALY": F("0.5"), "RUSSIA": F("0.6"), "TURKEY": F("0.7")}


def test_manorcon_solo_the_others_as_if_eliminated_in_the_solo_year():
    got = scores("manorcon", SOLO_BOARD, "solo", ("FRANCE",), 1910)
    assert got == {"FRANCE": 75, "ITALY": F("0.6"), "AUSTRIA": 1, "ENGLAND": 1,
                   "GERMANY": 1, "RUSSIA": 1, "TURKEY": 1}


# -- totals --------------------------------------------------------------------------------

def test_totals_sum_over_rounds():
    g1 = board({"AUSTRIA": 17, "ENGLAND": 17}, "draw", ("AUSTRIA", "ENGLAND"),
               players={"AUSTRIA": "ann", "ENGLAND": "bob"}, rnd=1)
    g2 = board({"FRANCE": 18, "ITALY": 16}, "solo", ("FRANCE",),
               players={"FRANCE": "ann", "ITALY": "bob"}, rnd=2)
    assert totals([g1, g2], get_system("dias")) == {"ann": F(3, 2), "bob": F(1, 2)}
    assert totals([g1, g2], get_system("c-diplo")) == {"ann": 1 + 17 + 26 + 100,
                                                       "bob": 1 + 17 + 26}


# -- every system on the same two boards (hand-computed) -----------------------------------

TWO_WAY = {"AUSTRIA": 17, "ENGLAND": 17, **{p: (0, 1905) for p in
                                           ("FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY")}}
THREE_WAY = {"AUSTRIA": 12, "ENGLAND": 11, "FRANCE": 11,
             **{p: (0, 1906) for p in ("GERMANY", "ITALY", "RUSSIA", "TURKEY")}}


@pytest.mark.parametrize("system, drawer, dead", [
    ("draw-size", F(1, 2), 0),
    ("sum-of-squares", 50, 0),
    ("c-diplo", 1 + 17 + F(38 + 14, 2), 1 + F(7, 5)),        # 7 for 3rd shared by five 0s
    ("carnage", F(7000 + 6000, 2) + 17, F(5000 + 4000 + 3000 + 2000 + 1000, 5)),
    ("tribute", 17 + 33, 0),                                    # co-toppers: nobody pays
    ("opentribute", 34 + 51 + F(5 * 17, 4), 0),                 # 85 collected, 1/2^2 each
    ("world-classic", 170 + 30 + 24, 4),
    ("manorcon", F(100 * 373, 2 * 373 + 5 * 16), F("0.5")),
])
def test_two_way_draw_17_17(system, drawer, dead):
    got = scores(system, TWO_WAY, "draw", ("AUSTRIA", "ENGLAND"), 1909)
    assert got["AUSTRIA"] == got["ENGLAND"] == drawer
    assert all(got[p] == dead for p in ("FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"))


@pytest.mark.parametrize("system, top, eleven, dead", [
    ("draw-size", F(1, 3), F(1, 3), 0),
    ("sum-of-squares", F(14400, 386), F(12100, 386), 0),
    ("c-diplo", 1 + 12 + 38, 1 + 11 + F(14 + 7, 2), 1),
    ("carnage", 7012, F(6000 + 5000, 2) + 11, F(4000 + 3000 + 2000 + 1000, 4)),
    ("tribute", 12 + 22 + 2 * 6, 11 + 22 - 6, 0),
    ("opentribute", 10 * 12, 34 + 4 * 11 - 12, 0),
    ("world-classic", 120 + 30 + 48, 110 + 30, 5),
    ("manorcon", F(100 * 208, 208 + 2 * 181 + 4 * 16), F(100 * 181, 634), F("0.6")),
])
@pytest.mark.parametrize("result, members", [("draw", ("AUSTRIA", "ENGLAND", "FRANCE")),
                                             ("ended", ())])
def test_three_way_draw_12_11_11(system, top, eleven, dead, result, members):
    got = scores(system, THREE_WAY, result, members, 1909)
    assert got["AUSTRIA"] == top
    assert got["ENGLAND"] == got["FRANCE"] == eleven
    assert all(got[p] == dead for p in ("GERMANY", "ITALY", "RUSSIA", "TURKEY"))
