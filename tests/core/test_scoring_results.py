"""load_results: the documented JSON shape, and one clear ResultsError for anything else."""

from __future__ import annotations

import copy
import json

import pytest

from judge.core.errors import InputError
from judge.core.scoring import ResultsError, ResultType, get_system, load_results, standings

DOC = {"games": [
    {"game": "war1901", "round": 1, "result": "draw",
     "members": ["england", "FRANCE", "Turkey"], "year": 1908,
     "powers": {
         "ENGLAND": {"player": "ann@example.org", "centers": 12},
         "FRANCE": {"player": "bob@example.org", "centers": 11},
         "TURKEY": {"player": "cy@example.org", "centres": 11},
         "ITALY": {"player": "di@example.org", "centers": 0, "eliminated": 1905},
         "AUSTRIA": {"player": "ed@example.org", "centers": 0, "eliminated": 1903},
         "GERMANY": {"player": "flo@example.org", "centers": 0, "eliminated": 1906},
         "RUSSIA": {"player": "gus@example.org", "centers": 0, "eliminated": 1907}}},
    {"game": "abc", "round": 2, "result": "solo", "members": ["RUSSIA"], "year": 1911,
     "powers": {
         "RUSSIA": {"player": "ann@example.org", "centers": 18},
         "TURKEY": {"player": "bob@example.org", "centers": 16, "eliminated": None}}},
    {"game": "zz", "round": 1, "result": "ended", "year": 1910,
     "powers": {
         "ENGLAND": {"player": "cy@example.org", "centers": 17},
         "FRANCE": {"player": "di@example.org", "centers": 17}}},
]}


def test_loads_the_documented_shape():
    games = load_results(json.loads(json.dumps(DOC)))
    assert [(g.round, g.game) for g in games] == [(1, "war1901"), (1, "zz"), (2, "abc")]
    war = games[0]
    assert war.type is ResultType.DRAW and war.year == 1908
    assert war.members == {"ENGLAND", "FRANCE", "TURKEY"}
    assert war.power("TURKEY").centers == 11
    assert war.power("ITALY").eliminated == 1905 and not war.power("ITALY").survived
    assert war.power_of("di@example.org").power == "ITALY"
    assert games[2].winner == "RUSSIA"
    assert games[1].sharing == {"ENGLAND", "FRANCE"}
    table = standings(games, get_system("dias"))
    assert [(s.rank, s.player) for s in table[:2]] == [(1, "ann@example.org"),
                                                       (2, "cy@example.org")]


def test_an_empty_tournament():
    assert load_results({"games": []}) == []


def mutate(path: str, value, doc=DOC):
    """A copy of DOC with the item at ``path`` (dotted, ints index lists) replaced; the value
    ``...`` deletes it."""
    d = copy.deepcopy(doc)
    *parents, last = [int(k) if k.isdigit() else k for k in path.split(".")]
    node = d
    for k in parents:
        node = node[k]
    if value is ...:
        del node[last]
    else:
        node[last] = value
    return d


@pytest.mark.parametrize("doc, message", [
    ([], "the results document must be a JSON object with a 'games' list"),
    ({"games": {}}, "games: must be a list of game results"),
    ({"games": [], "extra": 1}, "document: unknown key 'extra'"),
    ({"games": [1]}, r"games\[0\]: must be an object"),
    (mutate("games.0.game", ""), r"games\[0\].game: must be a non-empty string"),
    (mutate("games.1.game", "war1901"), r"games\[1\].game: war1901 is given twice"),
    (mutate("games.0.round", 0), r"games\[0\].round: must be a whole number >= 1, not 0"),
    (mutate("games.0.round", True), r"games\[0\].round: must be a whole number >= 1"),
    (mutate("games.0.result", "win"),
     r"games\[0\].result: must be one of solo, draw, concession, ended, not 'win'"),
    (mutate("games.0.year", 1899), r"games\[0\].year: must be a game year >= 1901, not 1899"),
    (mutate("games.0.colour", "red"), r"games\[0\]: unknown key 'colour'"),
    (mutate("games.2.powers", {"ENGLAND": {"player": "x", "centers": 3}}),
     r"games\[2\].powers: must be an object with at least two powers"),
    (mutate("games.0.powers.FRANCE.centers", -1),
     r"games\[0\].powers.FRANCE.centers: must be a whole number >= 0, not -1"),
    (mutate("games.0.powers.FRANCE.centers", 2.5),
     r"games\[0\].powers.FRANCE.centers: must be a whole number >= 0, not 2.5"),
    (mutate("games.0.powers.FRANCE.centers", ...), r"games\[0\].powers.FRANCE.centers: is missing"),
    (mutate("games.0.powers.FRANCE.player", " "),
     r"games\[0\].powers.FRANCE.player: must be a non-empty string"),
    (mutate("games.0.powers.FRANCE.player", "ann@example.org"),
     r"games\[0\].powers.FRANCE.player: ann@example.org already plays ENGLAND in this game"),
    (mutate("games.0.powers.FRANCE.team", "x"),
     r"games\[0\].powers.FRANCE: unknown key 'team'"),
    (mutate("games.0.powers.ITALY.eliminated", 1909),
     r"games\[0\].powers.ITALY.eliminated: must be a year from 1901 to the result year 1908"),
    (mutate("games.0.powers.ITALY.eliminated", ...),
     r"games\[0\].powers.ITALY: has no centres: give the year it was eliminated"),
    (mutate("games.0.powers.ITALY.centers", 2),
     r"games\[0\].powers.ITALY: eliminated in 1905 but holds 2 centres"),
    (mutate("games.0.powers.ITALY", 7), r"games\[0\].powers.ITALY: must be an object"),
    (mutate("games.0.members", ["ENGLAND", "PRUSSIA"]),
     r"games\[0\].members: PRUSSIA is not a power of this game"),
    (mutate("games.0.members", ["ENGLAND", "ITALY"]),
     r"games\[0\].members: ITALY was eliminated in 1905"),
    (mutate("games.0.members", ["ENGLAND", "england"]), r"games\[0\].members: names a power twice"),
    (mutate("games.0.members", ["ENGLAND"]), r"games\[0\].members: a draw needs at least two"),
    (mutate("games.0.members", "ENGLAND"), r"games\[0\].members: must be a list of power names"),
    (mutate("games.1.members", ["RUSSIA", "TURKEY"]),
     r"games\[1\].members: a solo needs exactly one power \(the winner\), got 2"),
    (mutate("games.1.result", "concession"), None),
    (mutate("games.2.members", ["ENGLAND"]),
     r"games\[2\].members: a game the master ended has no members"),
    (mutate("games.2.powers.ENGLAND", {"player": "cy@example.org", "centers": 0,
                                       "eliminated": 1905}, mutate(
        "games.2.powers.FRANCE", {"player": "di@example.org", "centers": 0,
                                  "eliminated": 1905})),
     r"games\[2\].powers: every power is eliminated"),
])
def test_errors_name_the_place(doc, message):
    if message is None:
        assert load_results(doc)[2].type is ResultType.CONCESSION
        return
    with pytest.raises(ResultsError, match=f"^{message}") as info:
        load_results(doc)
    assert isinstance(info.value, InputError)
    assert "\n" not in info.value.message


def test_centres_given_twice():
    doc = mutate("games.0.powers.FRANCE", {"player": "b", "centers": 1, "centres": 1})
    with pytest.raises(ResultsError, match="give centers once"):
        load_results(doc)


def test_a_power_no_player_held_is_scored_on_the_board_but_credited_to_nobody():
    doc = {"games": [{"game": "g", "round": 1, "result": "ended", "year": 1905, "powers": {
        "ENGLAND": {"player": "ann@example.org", "centers": 10},
        "FRANCE": {"player": None, "centers": 10},
        "ITALY": {"player": None, "centers": 0, "eliminated": 1903}}}]}
    (game,) = load_results(doc)
    assert game.power("FRANCE").player is None and game.players == {"ann@example.org"}
    table = standings([game], get_system("draw-size"))
    assert [(s.player, s.total) for s in table] == [("ann@example.org", 0.5)]
