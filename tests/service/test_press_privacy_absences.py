"""Press, privacy, absences and the reading of clock settings in the service layer, over a real
store (judge.service.press, privacy, absences, moments).

It proves that an accepted press is archived as sent and its PressSent event names the right
readers and the master's copy; that every refused press is refused by code and archives
nothing; that the archive shows each reader what they may see (grey press hides its sender
from all but the master and the sender); that the master's press settings refuse a no-change
and announce a change; that a private game is closed without its privacy password, and that
wrong guesses are counted until no password is checked; that an absence moves the deadline it
covers and its withdrawal (by the player, refused or cancelled by the master) moves it back;
that refused absences store nothing and count nothing; and that bad clock settings are refused
by code.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Callable

import pytest
from sqlalchemy import func, select

from judge.service import games, membership, press
from judge.service.clock import absences
from judge.service.clock import moments
from judge.service import processing as phases
from judge.service.access import privacy
from judge.service.errors import CountedRefusal, GameError
from judge.service.events import GameNotice, ParameterChanged
from judge.store import counters
from judge.store.models import Absence, Game, Press, Seat
from judge.basics.utc import as_utc
from servicekit import MASTER, NOW, PLAYERS, full_game, power_seat

DEADLINE = NOW + timedelta(hours=48)  # a movement phase's default length
OBSERVERS = ["o1@example.org", "o2@example.org"]


def _game(session, name: str = "g1") -> Game:
    return games.find_game(session, name)


def _observer(session, address: str) -> Seat:
    return next(s for s in games.seats(session, _game(session), "observer")
                if s.address == address)


def _master(session) -> Seat:
    return games.seats(session, _game(session), "master")[0]


def _with_observers(session) -> None:
    full_game(session)
    for address in OBSERVERS:
        taken = membership.observe_game(session, "g1", "opw", address, NOW, most=30, days=3)
        membership.confirm(session, taken.code, NOW, sender=address, days=3,
                           failures_allowed=5)
    session.flush()


def _send(session, seat: Seat, to: str, lines: list[str], broadcast: bool = False):
    game = _game(session)
    return press.send_press(session, game, seat, press.read_addressing(game, to, broadcast),
                            lines, NOW, max_bytes=10_000, max_lines=200)


def _press_rows(session) -> int:
    return session.scalar(select(func.count()).select_from(Press))


# --------------------------------------------------------------------------- press

def test_press_to_powers_is_archived_and_goes_to_their_players_and_the_master(store) -> None:
    with store.transaction() as session:
        _with_observers(session)
        france = power_seat(session, "FRANCE")
        sent = _send(session, france, "TO England, G", ["", "Shall we?", "  ", ""])
        assert (sent.sender, sent.powers, sent.to_master, sent.broadcast, sent.grey) == \
            ("FRANCE", ("ENGLAND", "GERMANY"), False, False, False)
        assert sent.body == ("Shall we?",)  # blank lines around the text go
        assert sorted(sent.to) == sorted([power_seat(session, "ENGLAND").address,
                                          power_seat(session, "GERMANY").address])
        assert sent.master_to == (MASTER,)
        assert sent.deadline == DEADLINE
        france_id = france.id
    with store.transaction() as session:
        [row] = session.scalars(select(Press)).all()
        assert (row.phase, row.sender, row.sender_seat_id, row.recipients, row.broadcast,
                row.grey, row.body) == ("S1901M", "FRANCE", france_id, "ENGLAND GERMANY",
                                        False, False, "Shall we?")


def test_a_broadcast_reaches_everyone_in_the_game_but_its_sender(store) -> None:
    with store.transaction() as session:
        _with_observers(session)
        france = power_seat(session, "FRANCE")
        sent = _send(session, france, "", ["Hello all"], broadcast=True)
        assert sent.broadcast and sent.powers == () and sent.master_to == (MASTER,)
        assert sorted(sent.to) == sorted([a for a in PLAYERS if a != france.address]
                                         + OBSERVERS)
        to_master = _send(session, _observer(session, OBSERVERS[0]), "TO M", ["A question"])
        assert (to_master.sender, to_master.to, to_master.master_to) == \
            ("OBSERVER", (), (MASTER,))
    with store.transaction() as session:
        rows = session.scalars(select(Press).order_by(Press.id)).all()
        assert [(r.sender, r.recipients, r.broadcast) for r in rows] == [
            ("FRANCE", "", True), ("OBSERVER", "MASTER", False)]


def _terminated(session) -> None:
    games.terminate_game(session, full_game(session), NOW)


def _france_resigned(session) -> None:
    full_game(session)
    games.leave(session, _game(session), power_seat(session, "FRANCE"), "resigned")


def _grey_off(session) -> None:
    full_game(session)
    press.set_grey_press(session, _game(session), False)


def _italy_eliminated(session) -> None:
    game = full_game(session)
    games.pause_game(session, game)
    phases.set_position(session, game, "S1901M", ["France: A Par; centers Par",
                                                  "Germany: A Mun; centers Mun"], NOW)
    phases.resume_game(session, game, NOW)


def _forming(session) -> None:
    games.create_game(session, "g1", "mpw", MASTER, NOW)
    games.join_game(session, "g1", "pw", PLAYERS[0], NOW)


def _first_player(session) -> Seat:
    return games.seats(session, _game(session), "power")[0]


def _resigned_france(session) -> Seat:
    return next(s for s in games.seats(session, _game(session), "power", active=False)
                if s.power == "FRANCE")


PRESS_REFUSALS: list[tuple[str, Callable, Callable, str, bool, list[str], str, dict | None]] = [
    # id, setup, sender, addressing, broadcast, body, code, facts (None: the core's reason)
    ("forming", _forming, _first_player, "", True, ["hi"], "press_not_started", {"game": "g1"}),
    ("over", _terminated, lambda s: power_seat(s, "FRANCE"), "", True, ["hi"],
     "press_game_over", {"game": "g1", "state": "terminated"}),
    ("resigned", _france_resigned, _resigned_france, "", True, ["hi"], "press_no_place",
     {"game": "g1"}),
    ("empty", full_game, lambda s: power_seat(s, "FRANCE"), "TO E", False, ["", "   "],
     "press_empty", {}),
    ("to_self", full_game, lambda s: power_seat(s, "FRANCE"), "TO F E", False, ["hi"],
     "press_refused", None),
    ("grey_off", _grey_off, lambda s: power_seat(s, "FRANCE"), "TO E GREY", False, ["hi"],
     "press_refused", None),
    ("observer_broadcast", _with_observers, lambda s: _observer(s, OBSERVERS[0]), "", True,
     ["hi"], "press_refused", None),
    ("to_eliminated", _italy_eliminated, lambda s: power_seat(s, "FRANCE"), "TO I", False, ["hi"],
     "press_refused", None),
    ("from_eliminated", _italy_eliminated, lambda s: power_seat(s, "ITALY"), "TO F", False,
     ["hi"], "press_refused", None),
    ("bad_addressing", full_game, lambda s: power_seat(s, "FRANCE"), "France", False, ["hi"],
     "press_refused", None),
    ("broadcast_to_powers", full_game, lambda s: power_seat(s, "FRANCE"), "TO E", True, ["hi"],
     "press_refused", None),
]


@pytest.mark.parametrize("setup, sender, to, broadcast, body, code, facts",
                         [case[1:] for case in PRESS_REFUSALS],
                         ids=[case[0] for case in PRESS_REFUSALS])
def test_a_refused_press_is_refused_by_code_and_archives_nothing(
        store, setup: Callable, sender: Callable, to: str, broadcast: bool, body: list[str],
        code: str, facts: dict | None) -> None:
    with store.transaction() as session:
        setup(session)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        _send(session, sender(session), to, body, broadcast)
    assert refused.value.code == code
    if facts is None:
        assert set(refused.value.facts) == {"reason"} and refused.value.facts["reason"]
    else:
        assert refused.value.facts == facts
    with store.transaction() as session:
        assert _press_rows(session) == 0


def test_an_eliminated_powers_player_may_still_write_to_the_master(store) -> None:
    with store.transaction() as session:
        _italy_eliminated(session)
        sent = _send(session, power_seat(session, "ITALY"), "TO M", ["I am out"])
        assert (sent.sender, sent.to, sent.master_to) == ("ITALY", (), (MASTER,))
    with store.transaction() as session:
        assert _press_rows(session) == 1


def test_press_to_a_power_the_master_plays_as_a_dummy_is_taken(store) -> None:
    # the master plays a dummy (CD_DUMMIES, SOLITAIRE: "the Master CONTROLs all powers"), so
    # press to it is taken and read in the master's copy
    with store.transaction() as session:
        game = full_game(session)
        games.dummy_power(session, game, "FRANCE", NOW)
    with store.transaction() as session:
        sent = _send(session, power_seat(session, "ENGLAND"), "TO F", ["Still there?"])
        assert sent.powers == ("FRANCE",) and sent.master_to == (MASTER,)
    with store.transaction() as session:
        assert [r.recipients for r in session.scalars(select(Press))] == ["FRANCE"]


def test_the_archive_shows_each_reader_what_they_may_see(store) -> None:
    with store.transaction() as session:
        _with_observers(session)
        _send(session, power_seat(session, "FRANCE"), "TO E GREY", ["psst"])
        _send(session, _observer(session, OBSERVERS[0]), "TO M", ["may I?"])
        _send(session, _master(session), "", ["welcome"], broadcast=True)
        first_observer, second_observer = (_observer(session, a).id for a in OBSERVERS)
    with store.transaction() as session:
        game = _game(session)

        def seen(viewer: press.Viewer) -> list[tuple[str, str | None]]:
            return [(v.body[0], v.sender) for v in press.visible_press(session, game, viewer)]

        assert seen(press.Viewer("master")) == [
            ("psst", "FRANCE"), ("may I?", "OBSERVER"), ("welcome", "MASTER")]
        # grey: the reader is not told who sent it; the sender is
        assert seen(press.Viewer("power", "ENGLAND")) == [("psst", None), ("welcome", "MASTER")]
        assert seen(press.Viewer("power", "FRANCE")) == [("psst", "FRANCE"),
                                                         ("welcome", "MASTER")]
        assert seen(press.Viewer("power", "ITALY")) == [("welcome", "MASTER")]
        assert seen(press.Viewer("observer", None, first_observer)) == [
            ("may I?", "OBSERVER"), ("welcome", "MASTER")]
        assert seen(press.Viewer("observer", None, second_observer)) == [("welcome", "MASTER")]
        assert seen(press.Viewer()) == [("welcome", "MASTER")]


def test_press_settings_refuse_no_change_and_announce_a_change(store) -> None:
    with store.transaction() as session:
        _with_observers(session)
    for call, code, facts in [
            (lambda s: press.set_grey_press(s, _game(s), True), "grey_press_unchanged",
             {"game": "g1", "allowed": True}),
            (lambda s: press.set_observer_press(s, _game(s), False), "observer_press_unchanged",
             {"game": "g1", "allowed": False})]:
        with pytest.raises(GameError) as refused, store.transaction() as session:
            call(session)
        assert (refused.value.code, refused.value.facts) == (code, facts)
    with store.transaction() as session:
        game = _game(session)
        assert (game.grey_press, game.observer_press) == (True, False)
        [grey] = press.set_grey_press(session, game, False)
        [observers] = press.set_observer_press(session, game, True)
        assert isinstance(grey, GameNotice) and (grey.kind, grey.facts) == \
            ("grey_press", {"allowed": False})
        assert isinstance(observers, GameNotice) and (observers.kind, observers.facts) == \
            ("observer_press", {"allowed": True})
        assert sorted(grey.to) == sorted([MASTER, *PLAYERS, *OBSERVERS])
    with store.transaction() as session:
        game = _game(session)
        assert (game.grey_press, game.observer_press) == (False, True)
        # what the settings now allow and refuse
        assert _send(session, _observer(session, OBSERVERS[0]), "", ["hi"], True).broadcast
        with pytest.raises(GameError) as refused:
            _send(session, power_seat(session, "FRANCE"), "TO E GREY", ["psst"])
        assert refused.value.code == "press_refused"


# --------------------------------------------------------------------------- privacy

def test_a_private_game_needs_its_privacy_password_unless_one_is_signed_on(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        assert not privacy.is_private(game)
        privacy.set_privacy(game, "sesame")
    with store.transaction() as session:
        game = _game(session)
        assert privacy.is_private(game) and "sesame" not in (game.privacy_hash or "")
        with pytest.raises(GameError) as refused:
            privacy.require_sight(session, game, NOW, what="HISTORY g1 PRIVACY <password>",
                                  sender="stranger@example.org")
        assert (refused.value.code, refused.value.facts) == (
            "private_game", {"game": "g1", "syntax": "HISTORY g1 PRIVACY <password>"})
        privacy.require_sight(session, game, NOW, what="x", sender="stranger@example.org",
                              password="sesame")
        privacy.require_sight(session, game, NOW, what="x", sender=PLAYERS[0],
                              signed_on_to=game.id)
        assert privacy.may_see(game, password="sesame")
        assert not privacy.may_see(game, password="Sesame")
        privacy.set_privacy(game, None)
    with store.transaction() as session:
        assert not privacy.is_private(_game(session))


@pytest.mark.parametrize("password", ["", "x" * 65])
def test_a_malformed_privacy_password_is_refused_and_the_game_stays_public(
        store, password: str) -> None:
    with store.transaction() as session:
        full_game(session)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        privacy.set_privacy(_game(session), password)
    assert (refused.value.code, refused.value.facts) == ("privacy_password_form", {})
    with store.transaction() as session:
        assert _game(session).privacy_hash is None


def test_joining_a_private_game_takes_its_privacy_password(store) -> None:
    with store.transaction() as session:
        game, _ = games.create_game(session, "g1", "mpw", MASTER, NOW)
        privacy.set_privacy(game, "sesame")
    with pytest.raises(GameError) as refused, store.transaction() as session:
        games.join_game(session, "g1", "pw", PLAYERS[0], NOW)
    assert refused.value.code == "private_game" and refused.value.facts["game"] == "g1"
    with store.transaction() as session:
        assert games.seats(session, _game(session), "power") == []
        seat, _ = games.join_game(session, "g1", "pw", PLAYERS[0], NOW, privacy="sesame")
        assert seat.address == PLAYERS[0]
    with store.transaction() as session:
        assert [s.address for s in games.seats(session, _game(session), "power")] == \
            [PLAYERS[0]]


def test_wrong_privacy_passwords_are_counted_until_none_is_checked_that_day(store) -> None:
    guesser, other = "guesser@example.org", "other@example.org"
    with store.transaction() as session:
        privacy.set_privacy(full_game(session), "sesame")
    for _ in range(privacy.PER_SENDER):
        with pytest.raises(CountedRefusal) as refused, store.transaction() as session:
            privacy.require_sight(session, _game(session), NOW, what="x", sender=guesser,
                                  password="guess")
        assert (refused.value.code, refused.value.facts) == ("wrong_privacy_password",
                                                             {"game": "g1"})
        with store.transaction() as session:  # the mail layer keeps the count
            refused.value.count(session)
    with store.transaction() as session:
        game_id = _game(session).id
        assert counters.count(session, privacy.KIND, f"{game_id}:{guesser}", NOW) == \
            privacy.PER_SENDER
        assert counters.count(session, privacy.KIND, str(game_id), NOW) == privacy.PER_SENDER
    with pytest.raises(GameError) as refused, store.transaction() as session:
        # even the right password is not checked for this sender today
        privacy.require_sight(session, _game(session), NOW, what="x", sender=guesser,
                              password="sesame")
    assert (refused.value.code, refused.value.facts) == ("privacy_guesses_spent",
                                                         {"game": "g1"})
    with store.transaction() as session:
        game = _game(session)
        privacy.require_sight(session, game, NOW, what="x", sender=other, password="sesame")
        privacy.require_sight(session, game, NOW + timedelta(days=1), what="x", sender=guesser,
                              password="sesame")


# --------------------------------------------------------------------------- absences

def _absences(session) -> list[tuple[str, datetime, datetime]]:
    return [(a.status, a.starts_at.replace(tzinfo=UTC), a.ends_at.replace(tzinfo=UTC))
            for a in session.scalars(select(Absence).order_by(Absence.id))]


def test_an_absence_over_the_deadline_moves_it_and_withdrawing_it_moves_it_back(store) -> None:
    starts, ends = NOW + timedelta(days=1), NOW + timedelta(days=4)
    with store.transaction() as session:
        game = full_game(session)
        assert game.deadline == DEADLINE
        events, moved = absences.announce(session, game, power_seat(session, "FRANCE"), starts,
                                          ends, NOW)
        assert moved
        [told] = events
        assert isinstance(told, ParameterChanged) and told.deadline == ends
        assert sorted(told.to) == sorted([MASTER, *PLAYERS])
        [change] = told.changes
        assert (change.what, change.power, change.starts, change.ends, change.moved) == \
            ("absence", "FRANCE", starts, ends, True)
    with store.transaction() as session:
        game = _game(session)
        assert _absences(session) == [("granted", starts, ends)]
        assert game.deadline.replace(tzinfo=UTC) == ends
        assert game.base_deadline.replace(tzinfo=UTC) == DEADLINE
        events, moved = absences.withdraw(session, game, power_seat(session, "FRANCE"), NOW,
                                          by_master=False)
        assert moved
        [change] = events[0].changes
        assert (change.what, change.how, change.moved) == ("noabsence", "withdrawn", True)
    with store.transaction() as session:
        assert _absences(session) == [("withdrawn", starts, ends)]
        assert _game(session).deadline.replace(tzinfo=UTC) == DEADLINE


def test_an_absence_clear_of_the_deadline_leaves_it(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        events, moved = absences.announce(session, game, power_seat(session, "FRANCE"),
                                          DEADLINE + timedelta(hours=1),
                                          DEADLINE + timedelta(days=2), NOW)
        assert not moved and not events[0].changes[0].moved
    with store.transaction() as session:
        assert _game(session).deadline.replace(tzinfo=UTC) == DEADLINE
        assert [a[0] for a in _absences(session)] == ["granted"]


@pytest.mark.parametrize("later, status", [
    (timedelta(0), "refused"),  # before it began
    (timedelta(days=1, hours=1), "cancelled"),  # once begun
])
def test_the_master_refuses_an_absence_before_it_begins_and_cancels_it_after(
        store, later: timedelta, status: str) -> None:
    starts, ends = NOW + timedelta(days=1), NOW + timedelta(days=4)
    with store.transaction() as session:
        game = full_game(session)
        absences.announce(session, game, power_seat(session, "FRANCE"), starts, ends, NOW)
    with store.transaction() as session:
        events, moved = absences.withdraw(session, _game(session), power_seat(session, "FRANCE"),
                                          NOW + later, by_master=True)
        assert moved and events[0].changes[0].how == status
    with store.transaction() as session:
        assert _absences(session) == [(status, starts, ends)]
        assert _game(session).deadline.replace(tzinfo=UTC) == DEADLINE


def _no_absences(session) -> None:
    full_game(session).max_absence_days = 0


@pytest.mark.parametrize("setup, starts, ends, code, facts", [
    (_no_absences, timedelta(days=1), timedelta(days=2), "no_absences_allowed", {"game": "g1"}),
    (full_game, timedelta(days=2), timedelta(days=1), "absence_backwards", {}),
    (full_game, timedelta(days=-3), timedelta(days=-1), "absence_over", {}),
    (full_game, timedelta(days=1), timedelta(days=15, minutes=1), "absence_too_long",
     {"game": "g1", "days": 14}),
    (full_game, timedelta(days=400), timedelta(days=401), "absence_too_far", {}),
    (_terminated, timedelta(days=1), timedelta(days=2), "game_over", {"game": "g1"}),
], ids=["none_allowed", "backwards", "over", "too_long", "too_far", "game_over"])
def test_a_refused_absence_stores_and_counts_nothing(
        store, setup: Callable, starts: timedelta, ends: timedelta, code: str,
        facts: dict) -> None:
    with store.transaction() as session:
        setup(session)
        deadline = as_utc(_game(session).deadline)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        absences.announce(session, _game(session), power_seat(session, "FRANCE"), NOW + starts,
                          NOW + ends, NOW)
    assert (refused.value.code, refused.value.facts) == (code, facts)
    with store.transaction() as session:
        assert _absences(session) == []
        assert as_utc(_game(session).deadline) == deadline
        assert counters.count(session, "absence", str(power_seat(session, "FRANCE").id), NOW) == 0


def test_an_absence_may_last_exactly_the_longest_allowed(store) -> None:
    with store.transaction() as session:
        game = full_game(session)
        game.max_absence_days = 3
        absences.announce(session, game, power_seat(session, "FRANCE"), NOW,
                          NOW + timedelta(days=3), NOW)
    with store.transaction() as session:
        assert [a[0] for a in _absences(session)] == ["granted"]


def test_one_open_absence_at_a_time_and_three_announced_a_day(store) -> None:
    starts, ends = NOW + timedelta(days=1), NOW + timedelta(days=2)
    with store.transaction() as session:
        full_game(session)
        absences.announce(session, _game(session), power_seat(session, "FRANCE"), starts, ends, NOW)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        absences.announce(session, _game(session), power_seat(session, "FRANCE"), starts, ends, NOW)
    assert (refused.value.code, refused.value.facts) == ("absence_already", {})
    # that refusal counted nothing: two more may be announced today
    for _ in range(2):
        with store.transaction() as session:
            game, france = _game(session), power_seat(session, "FRANCE")
            absences.withdraw(session, game, france, NOW, by_master=False)
            absences.announce(session, game, france, starts, ends, NOW)
    with store.transaction() as session:
        absences.withdraw(session, _game(session), power_seat(session, "FRANCE"), NOW, False)
    with pytest.raises(GameError) as refused, store.transaction() as session:
        absences.announce(session, _game(session), power_seat(session, "FRANCE"), starts, ends, NOW)
    assert (refused.value.code, refused.value.facts) == (
        "absences_per_day", {"limit": absences.ANNOUNCED_PER_DAY})
    with store.transaction() as session:
        assert [a[0] for a in _absences(session)] == ["withdrawn"] * 3
        tomorrow = NOW + timedelta(days=1)
        absences.announce(session, _game(session), power_seat(session, "FRANCE"),
                          tomorrow, tomorrow + timedelta(days=1), tomorrow)
        assert [a[0] for a in _absences(session)] == ["withdrawn"] * 3 + ["granted"]


@pytest.mark.parametrize("by_master", [False, True])
def test_withdrawing_no_open_absence_is_refused(store, by_master: bool) -> None:
    with store.transaction() as session:
        game = full_game(session)
        # one that is over does not count
        absences.announce(session, game, power_seat(session, "FRANCE"), NOW - timedelta(days=2),
                          NOW + timedelta(hours=1), NOW - timedelta(days=2))
    with pytest.raises(GameError) as refused, store.transaction() as session:
        absences.withdraw(session, _game(session), power_seat(session, "FRANCE"),
                          NOW + timedelta(hours=2), by_master)
    assert (refused.value.code, refused.value.facts) == (
        "no_open_absence", {"by_master": by_master, "power": "FRANCE"})
    with store.transaction() as session:
        assert [a[0] for a in _absences(session)] == ["granted"]


# --------------------------------------------------------------------------- moments

@pytest.mark.parametrize("call, code, facts", [
    (lambda: moments.parse_clock([], None), "clock_needs_time", {}),
    (lambda: moments.parse_clock(["noon"], None), "time_of_day_form", {"word": "noon"}),
    (lambda: moments.parse_clock(["22:00", "ZONE", "UTC", "MON"], None), "zone_last", {}),
    (lambda: moments.parse_clock(["22:00", "ZONE", "Mars/Olympus"], None), "zone_unknown",
     {"word": "Mars/Olympus"}),
    (lambda: moments.parse_clock(["22:00", "Funday"], None), "weekday_form",
     {"word": "Funday"}),
    (lambda: moments.parse_clock(["22:00", "MON-XYZ"], None), "weekdays_form",
     {"word": "MON-XYZ"}),
    (lambda: moments.parse_duration("2 weeks"), "duration_form", {"text": "2 weeks"}),
], ids=["no_time", "time", "zone_last", "zone_unknown", "weekday", "weekdays", "duration"])
def test_bad_clock_settings_and_durations_are_refused_by_code(call: Callable, code: str,
                                                             facts: dict) -> None:
    with pytest.raises(GameError) as refused:
        call()
    assert (refused.value.code, refused.value.facts) == (code, facts)
