"""Draw and concession votes in the service layer, over a real store (judge.service.draws).

It proves that SET DRAW by every survivor (and only the survivors) ends a DIAS game in a draw:
a GameEnded event for everybody, the game finished with its clock stopped, the result
recorded and the votes gone; that SET NODRAW withdraws a vote so the draw no longer passes;
that NoDIAS lists and concessions pass as the rules say; that a refused vote keeps the
previous one (checked in a fresh transaction); that votes are secret (a player sees only their
own, the master every one); that each voting mode refuses the others' commands; that a
processed phase clears the votes; and that RESUME reopens a drawn game.

(Named test_draw_votes.py, not test_draws.py: tests/core/test_draws.py already has that
basename, and the suite's test directories are not packages.)
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from judge.service import draws, games
from judge.service import processing as phases
from judge.service.errors import GameError
from judge.service.events import GameEnded, GameNotice, GameResumed
from judge.store.models import DrawVote, Game, GameResult
from servicekit import MASTER, NOW, PLAYERS, POWERS, full_game



def _game(session, name: str = "g1") -> Game:
    return games.find_game(session, name)


def _votes(session, name: str = "g1") -> dict[tuple[str, str], str]:
    """The stored votes: (power, kind) → value."""
    game = _game(session, name)
    return {(v.power, v.kind): v.value for v in session.scalars(
        select(DrawVote).where(DrawVote.game_id == game.id))}


def test_set_draw_by_every_survivor_ends_the_game_in_a_draw(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        for power in POWERS[:-1]:
            cast = draws.set_draw(session, game, power, "", NOW)
            assert (cast.kind, cast.ended, cast.events) == ("draw_all", None, [])
        assert game.state == "active" and len(_votes(session)) == 6
        last = draws.set_draw(session, game, "TURKEY", "", NOW)
        ended = last.ended
        assert ended is not None and last.events == [ended]
        assert (ended.how, ended.phase, ended.members) == ("draw", "S1901M", tuple(POWERS))
        assert sorted(ended.to) == sorted([MASTER, *PLAYERS])
        assert dict(ended.centres)["RUSSIA"] == 4 and dict(ended.centres)["FRANCE"] == 3
    with store.transaction() as session:
        game = _game(session)
        assert game.state == "finished" and game.winner is None
        assert game.next_event_at is None  # the clock is stopped
        result = session.get(GameResult, game.id)
        assert result is not None
        assert (result.result, result.members, result.phase, result.year) == \
            ("draw", " ".join(POWERS), "S1901M", 1901)
        assert sorted(json.loads(result.players).values()) == sorted(PLAYERS)
        assert _votes(session) == {}


def test_only_survivors_vote_and_their_draw_passes_without_the_eliminated(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        games.pause_game(session, game)
        phases.set_position(session, game, "S1901M", ["France: A Par; centers Par",
                                                      "Germany: A Mun; centers Mun"], NOW)
        phases.resume_game(session, game, NOW)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        draws.set_draw(session, _game(session), "ITALY", "", NOW)
    assert (refused.value.code, refused.value.facts) == ("voter_eliminated",
                                                         {"power": "ITALY", "game": "g1"})
    with store.transaction() as session:
        assert _votes(session) == {}
        game = _game(session)
        assert draws.set_draw(session, game, "FRANCE", "", NOW).facts["alive"] == \
            ["FRANCE", "GERMANY"]
        ended = draws.set_draw(session, game, "GERMANY", "", NOW).ended
        assert ended is not None and ended.members == ("FRANCE", "GERMANY")
    with store.transaction() as session:
        result = session.get(GameResult, _game(session).id)
        assert result is not None and (result.result, result.members) == \
            ("draw", "FRANCE GERMANY")
        assert json.loads(result.centers) == {p: 1 if p in ("FRANCE", "GERMANY") else 0
                                              for p in POWERS}


def test_set_nodraw_withdraws_the_vote_so_the_draw_no_longer_passes(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        draws.set_draw(session, game, "FRANCE", "", NOW)
    with store.transaction() as session:
        withdrawn = draws.set_nodraw(session, _game(session), "FRANCE", NOW)
        assert (withdrawn.kind, withdrawn.facts["power"], withdrawn.facts["dias"]) == \
            ("nodraw", "FRANCE", True)
    with store.transaction() as session:
        assert _votes(session) == {}
        game = _game(session)
        for power in POWERS:
            if power != "FRANCE":
                assert draws.set_draw(session, game, power, "", NOW).ended is None
        assert game.state == "active"
    with store.transaction() as session:
        assert session.get(GameResult, _game(session).id) is None
        assert len(_votes(session)) == 6 and ("FRANCE", "draw") not in _votes(session)


@pytest.mark.parametrize("nodias, first, bad, code", [
    (True, "AEF", "AEQ", "vote_refused"),  # not a power
    (True, "AEF", "A A", "vote_refused"),  # a power named twice
    (True, "AEF", "", "nodias_draw_list"),  # a NoDIAS draw needs its list
    (False, "", "AEF", "dias_draw_list"),  # a DIAS draw takes none
])
def test_a_refused_draw_vote_keeps_the_previous_one(store, nodias: bool, first: str, bad: str,
                                                   code: str) -> None:
    with store.transaction() as session:
        game = full_game(session)
        draws.set_nodias(session, game, nodias)
        draws.set_draw(session, game, "FRANCE", first, NOW)
        before = _votes(session)
    assert before == {("FRANCE", "draw"): "AUSTRIA ENGLAND FRANCE" if nodias else "ALL"}
    with pytest.raises(GameError) as refused, store.transaction() as session:
        draws.set_draw(session, _game(session), "FRANCE", bad, NOW)
    assert refused.value.code == code
    if code == "vote_refused":
        assert set(refused.value.facts) == {"reason"}
    else:
        assert refused.value.facts == {"game": "g1"}
    with store.transaction() as session:
        assert _votes(session) == before


def test_a_refused_concession_keeps_the_previous_one(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        draws.set_concede(session, game, "ENGLAND", "France", NOW)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        draws.set_concede(session, _game(session), "ENGLAND", "Atlantis", NOW)
    assert refused.value.code == "vote_refused" and set(refused.value.facts) == {"reason"}
    with store.transaction() as session:
        assert _votes(session) == {("ENGLAND", "concede"): "FRANCE"}


def test_a_nodias_draw_passes_for_the_powers_every_survivor_accepts(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        changed = draws.set_nodias(session, game, True)
        assert changed.facts["changed"] is True
        assert [e.kind for e in changed.events if isinstance(e, GameNotice)] == ["draw_mode"]
        assert draws.mode_name(game) == "NoDIAS"
        outcomes = [draws.set_draw(session, game, power, "A E F", NOW) for power in POWERS]
        assert [o.facts["included"] for o in outcomes] == [p in "AUSTRIA ENGLAND FRANCE"
                                                           for p in POWERS]
        assert all(o.ended is None for o in outcomes[:-1])
        ended = outcomes[-1].ended
        assert ended is not None and (ended.how, ended.members) == \
            ("draw", ("AUSTRIA", "ENGLAND", "FRANCE"))
    with store.transaction() as session:
        result = session.get(GameResult, _game(session).id)
        assert result is not None and (result.result, result.members) == \
            ("draw", "AUSTRIA ENGLAND FRANCE")


def test_every_other_survivor_conceding_ends_the_game_in_a_concession(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        # a concession to oneself counts as none
        draws.set_concede(session, game, "FRANCE", "F", NOW)
        assert _votes(session) == {}
        others = [p for p in POWERS if p != "FRANCE"]
        for power in others[:-1]:
            assert draws.set_concede(session, game, power, "French", NOW).ended is None
        ended = draws.set_concede(session, game, others[-1], "F", NOW).ended
        assert ended is not None and (ended.how, ended.members) == ("concession", ("FRANCE",))
    with store.transaction() as session:
        game = _game(session)
        result = session.get(GameResult, game.id)
        assert game.state == "finished"
        assert result is not None and (result.result, result.members) == ("concession", "FRANCE")


def test_votes_are_secret_a_player_sees_their_own_and_the_master_all(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        draws.set_draw(session, game, "FRANCE", "", NOW)
        draws.set_concede(session, game, "ENGLAND", "Germany", NOW)
    with store.transaction() as session:
        game = _game(session)
        assert draws.votes_shown(session, game, "FRANCE", False) == [
            {"power": "FRANCE", "kind": "draw", "value": "ALL"}]
        assert draws.votes_shown(session, game, "ENGLAND", False) == [
            {"power": "ENGLAND", "kind": "concede", "value": "GERMANY"}]
        assert draws.votes_shown(session, game, "ITALY", False) == []
        assert draws.votes_shown(session, game, None, False) == []  # an observer
        assert draws.votes_shown(session, game, None, True) == [
            {"power": "ENGLAND", "kind": "concede", "value": "GERMANY"},
            {"power": "FRANCE", "kind": "draw", "value": "ALL"}]


def test_a_game_that_is_not_running_takes_no_vote(store) -> None:
    with store.transaction() as session:
        forming, _ = games.create_game(session, "forming", "mpw", MASTER, NOW)
        with pytest.raises(GameError) as refused:
            draws.set_draw(session, forming, "FRANCE", "", NOW)
        assert (refused.value.code, refused.value.facts) == (
            "nothing_to_vote", {"game": "forming", "state": "forming"})
        game = full_game(session)
        games.terminate_game(session, game, NOW)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        draws.set_nodraw(session, _game(session), "FRANCE", NOW)
    assert (refused.value.code, refused.value.facts) == (
        "nothing_to_vote", {"game": "g1", "state": "terminated"})


def test_each_voting_mode_refuses_the_commands_of_the_others(store) -> None:
    with store.transaction() as session:
        full_game(session, "dias")
        full_game(session, "propose", rules=["PROPOSE_DIAS"])
    cases = [
        (lambda s: draws.propose(s, _game(s, "dias"), "FRANCE", "DIAS", NOW),
         {"command": "PROPOSE", "game": "dias", "mode": "DIAS"}),
        (lambda s: draws.vote(s, _game(s, "dias"), "FRANCE", "YES", NOW),
         {"command": "VOTE YES", "game": "dias", "mode": "DIAS"}),
        (lambda s: draws.set_draw(s, _game(s, "propose"), "FRANCE", "", NOW),
         {"command": "SET DRAW", "game": "propose", "mode": "PROPOSE_DIAS"}),
        (lambda s: draws.set_concede(s, _game(s, "propose"), "FRANCE", "E", NOW),
         {"command": "SET CONCEDE", "game": "propose", "mode": "PROPOSE_DIAS"}),
    ]
    for call, facts in cases:
        with pytest.raises(GameError) as refused, store.transaction() as session:
            call(session)
        assert (refused.value.code, refused.value.facts) == ("vote_command_unused", facts)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        draws.set_nodias(session, _game(session, "propose"), True)
    assert (refused.value.code, refused.value.facts) == (
        "vote_rule_fixed", {"game": "propose", "rule": "PROPOSE_DIAS"})
    with store.transaction() as session:
        assert _votes(session, "dias") == {} and _votes(session, "propose") == {}
        assert _game(session, "propose").nodias is False


def test_a_proposal_is_announced_answered_and_rejected_by_one_no(store) -> None:
    with store.transaction() as session:
        game = full_game(session, rules=["PROPOSE_DIAS"])
        with pytest.raises(GameError) as refused:
            draws.vote(session, game, "ENGLAND", "YES", NOW)
        assert refused.value.code == "no_proposal"
        made = draws.propose(session, game, "FRANCE", "DIAS", NOW)
        [told] = made.events
        assert isinstance(told, GameNotice) and told.kind == "proposal"
        assert made.facts["proposal"] == {"kind": "dias", "target": None}
    for power, word, code in [("FRANCE", "YES", "own_proposal"),
                              ("ENGLAND", "maybe", "vote_yes_or_no")]:
        with pytest.raises(GameError) as refused, store.transaction() as session:
            draws.vote(session, _game(session), power, word, NOW)
        assert refused.value.code == code
    with store.transaction() as session:
        game = _game(session)
        assert draws.vote(session, game, "GERMANY", "YES", NOW).ended is None
        no = draws.vote(session, game, "ENGLAND", "NO", NOW)
        assert [e.kind for e in no.events if isinstance(e, GameNotice)] == ["proposal_rejected"]
    with pytest.raises(GameError) as refused, store.transaction() as session:
        draws.vote(session, _game(session), "ITALY", "YES", NOW)
    assert refused.value.code == "proposal_rejected"
    with store.transaction() as session:
        assert _votes(session) == {("FRANCE", "proposal"): "DIAS", ("GERMANY", "answer"): "YES",
                                   ("ENGLAND", "answer"): "NO"}
        assert _game(session).state == "active"


def test_a_processed_phase_clears_the_votes(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        draws.set_draw(session, game, "FRANCE", "", NOW)
        draws.set_concede(session, game, "ENGLAND", "F", NOW)
    with store.transaction() as session:
        game = _game(session)
        events = phases.process_phase(session, game, NOW, "master")
        assert not any(isinstance(e, GameEnded) for e in events)
    with store.transaction() as session:
        assert _game(session).phase == "F1901M"
        assert session.scalar(select(func.count()).select_from(DrawVote)) == 0


def test_resume_reopens_a_drawn_game_and_forgets_its_result(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        with pytest.raises(GameError) as refused:
            draws.resume_ended(session, game, NOW)  # it has not ended
        assert (refused.value.code, refused.value.facts) == (
            "resume_not_drawn", {"game": "g1", "victory": False})
        for power in POWERS:
            draws.set_draw(session, game, power, "", NOW)
        assert game.state == "finished"
    with store.transaction() as session:
        game = _game(session)
        [resumed] = draws.resume_ended(session, game, NOW)
        assert isinstance(resumed, GameResumed) and resumed.after == "draw"
        assert resumed.deadline is not None and resumed.deadline > NOW
    with store.transaction() as session:
        game = _game(session)
        assert game.state == "active" and game.next_event_at is not None
        assert session.get(GameResult, game.id) is None
        assert _votes(session) == {}
