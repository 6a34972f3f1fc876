"""The service layer on its own, over a real store: a game's life from CREATE to the first
processed phase, with the events it returns (no mail, no commands: those layers are tested
through mail elsewhere)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from judge.service import games, orders
from judge.service import processing as phases
from judge.service.errors import GameError
from judge.service.events import GameNotice, GameResumed, GameStarted, PlayerRemoved, PowerAssigned
from judge.store.models import Game, PhaseSnapshot, Seat

NOW = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)
MASTER = "gm@example.org"
PLAYERS = [f"p{i}@example.org" for i in range(7)]


def _full_game(session, name: str = "g1") -> tuple[Game, list]:
    game, _ = games.create_game(session, name, "mpw", MASTER, NOW)
    events: list = []
    for i, address in enumerate(PLAYERS):
        _, events = games.join_game(session, name, f"pw{i}", address, NOW)
    return game, events


def test_the_seventh_join_starts_the_game_and_tells_each_player_their_power(store) -> None:
    with store.transaction() as session:
        game, events = _full_game(session)
        assert game.state == "active" and game.phase == "S1901M"
        started = [e for e in events if isinstance(e, GameStarted)]
        assigned = [e for e in events if isinstance(e, PowerAssigned)]
        assert len(started) == 1
        # the players' copy does not go to the master, who gets one of their own
        assert MASTER not in started[0].to and started[0].master_to == (MASTER,)
        assert sorted(a for e in assigned for a in e.to) == sorted(PLAYERS)
        assert sorted(e.power for e in assigned) == sorted(
            ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"])
        france = next(e for e in assigned if e.power == "FRANCE")
        assert france.units == ("Fleet Brest", "Army Marseilles", "Army Paris")
        assert france.homes == ("Brest", "Marseilles", "Paris")
        assert game.deadline is not None and game.deadline > NOW


@pytest.mark.parametrize("name, why", [
    ("9lives", "game_name_form"),
    ("g" * 21, "game_name_form"),
    ("g1", "game_exists"),
])
def test_bad_or_taken_names_are_refused_and_nothing_is_stored(store, name: str, why: str) -> None:
    with store.transaction() as session:
        games.create_game(session, "g1", "mpw", MASTER, NOW)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        games.create_game(session, name, "mpw", "other@example.org", NOW)
    assert (refused.value.code, refused.value.facts) == (why, {"name": name})
    with store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Game)) == 1


def test_an_eighth_player_cannot_join_a_started_game(store) -> None:
    with store.transaction() as session:
        _full_game(session)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        games.join_game(session, "g1", "pw", "late@example.org", NOW)
    assert (refused.value.code, refused.value.facts) == ("not_forming",
                                                         {"game": "g1", "state": "active"})


def test_pause_and_resume_stop_and_restart_the_clock(store) -> None:
    with store.transaction() as session:
        game, _ = _full_game(session)
        [paused] = games.pause_game(session, game)
        assert isinstance(paused, GameNotice) and paused.kind == "paused"
        assert game.state == "paused"
        with pytest.raises(GameError) as refused:
            games.pause_game(session, game)
        assert refused.value.code == "not_active"
        [resumed] = phases.resume_game(session, game, NOW)
        assert isinstance(resumed, GameResumed) and resumed.deadline is not None
        assert game.state == "active"


def test_an_ejected_player_is_told_and_everyone_hears_the_power_left(store) -> None:
    with store.transaction() as session:
        game, _ = _full_game(session)
        seat = games.power_seat(session, game, "ITALY")
        assert seat is not None
        events = games.leave(session, game, seat, "ejected")
        notice = next(e for e in events if isinstance(e, GameNotice))
        assert notice.kind == "player_left" and notice.facts == {"power": "ITALY",
                                                                  "how": "ejected"}
        [told] = [e for e in events if isinstance(e, PlayerRemoved)]
        assert told.to == (seat.address,) and told.how == "ejected"
        assert seat.status == "ejected"


def test_processing_a_phase_moves_the_game_on_and_keeps_a_snapshot(store) -> None:
    with store.transaction() as session:
        game, _ = _full_game(session)
        france = games.power_seat(session, game, "FRANCE")
        assert france is not None
        pos = phases.position_of(game)
        assert orders.submit_line(france, pos, "A Par-Bur") == "A PAR - BUR"
        with pytest.raises(GameError):
            orders.submit_line(france, pos, "A Par-Mun")  # not adjacent: refused, unchanged
        assert orders.stored_orders(france) == {"PAR": "A PAR - BUR"}
        phases.process_phase(session, game, NOW, "master")
        assert game.phase == "F1901M"
        assert "A BUR" in game.position.upper()
        assert session.scalar(select(func.count()).select_from(PhaseSnapshot)) == 1
        # every power's orders are cleared for the new phase
        assert all(s.orders == "{}" for s in session.scalars(
            select(Seat).where(Seat.game_id == game.id, Seat.kind == "power")))
