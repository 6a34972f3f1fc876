"""Reading moments, zones and clock settings, and where a clock puts a deadline (summer time
included): the pure parts under the deadline commands, which tests/game test by mail."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from judge.mail.writing.times import day_names, written
from judge.service.clock import game_clock as clock
from judge.service.errors import GameError
from judge.service.clock.moments import parse_clock, parse_days, parse_moment, parse_when
from judge.store.models import Game
from judge.basics.zones import tz, zone_named

UTC = timezone.utc
NOW = datetime(2026, 11, 24, 10, 30, tzinfo=UTC)  # a Tuesday


@pytest.mark.parametrize("text, zone", [
    ("Europe/Paris", "Europe/Paris"), ("europe/PARIS", "Europe/Paris"), ("UTC", "UTC"),
    ("gmt", "UTC"), ("Z", "UTC"), ("Etc/UTC", "UTC"), ("+0100", "+01:00"), ("+01:00", "+01:00"),
    ("-5", "-05:00"), ("UTC+5:30", "+05:30"), ("+00:00", "UTC"), ("CET", "CET"),
    ("cest", "+02:00"), ("PST", "-08:00"), ("CST", None), ("IST", None), ("Mars/Olympus", None),
    ("+15:00", None), ("", None), ("../../etc/passwd", None), ("x" * 100, None)])
def test_zone_names(text: str, zone: str | None) -> None:
    assert zone_named(text) == zone


@pytest.mark.parametrize("text, expected", [
    ("2026-12-01 18:00", "2026-12-01T18:00+00:00"),
    ("2026-12-01 18:00 UTC", "2026-12-01T18:00+00:00"),
    ("2026-12-01T18:00", "2026-12-01T18:00+00:00"),
    ("2026-12-01T17:00Z", "2026-12-01T17:00+00:00"),
    ("2026-12-01 17:00Z", "2026-12-01T17:00+00:00"),
    ("2026-12-01T18:00+01:00", "2026-12-01T17:00+00:00"),
    ("2026-12-01 18:00 +0100", "2026-12-01T17:00+00:00"),
    ("2026-12-01 18:00 CET", "2026-12-01T17:00+00:00"),
    ("2026-12-01 18:00 Europe/Paris", "2026-12-01T17:00+00:00"),
    ("2026-07-01 18:00 Europe/Paris", "2026-07-01T16:00+00:00"),  # summer time
    ("2026-07-01 18:00 CEST", "2026-07-01T16:00+00:00"),
    ("Friday 18:00", "2026-11-27T18:00+00:00"),
    ("fri 18.00 Europe/Paris", "2026-11-27T17:00+00:00"),
    ("Tuesday 09:00", "2026-12-01T09:00+00:00"),  # today's has passed: next week's
    ("Tuesday 11:00", "2026-11-24T11:00+00:00"),
    ("tomorrow 9:00", "2026-11-25T09:00+00:00"),
    ("18:00", "2026-11-24T18:00+00:00"),
    ("08:00", "2026-11-25T08:00+00:00"),
    ("2026-12-01", "2026-12-01T00:00+00:00"),
])
def test_moments(text: str, expected: str) -> None:
    found = parse_moment(text, NOW, None)
    assert found is not None, text
    assert found.when == datetime.fromisoformat(expected)


@pytest.mark.parametrize("text", ["next week", "2026-13-01 18:00", "Friday", "25:00",
                                  "2026-12-01T18:00+01:00 Europe/Paris", "1800", "someday 18:00",
                                  "2026-12-01 18:00 Mars/Olympus", "a b c d e"])
def test_not_moments(text: str) -> None:
    assert parse_moment(text, NOW, None) is None


def test_a_time_without_a_zone_is_read_in_the_writers() -> None:
    found = parse_moment("2026-12-01 18:00", NOW, "America/New_York")
    assert found is not None and found.when == datetime(2026, 12, 1, 23, 0, tzinfo=UTC)


def test_when_durations_and_refusals() -> None:
    assert parse_when("24h", NOW) == NOW + timedelta(hours=24)
    assert parse_when("1d12h", NOW) == NOW + timedelta(hours=36)
    with pytest.raises(GameError) as refused:
        parse_when("next week", NOW)
    assert (refused.value.code, refused.value.facts) == ("moment_form", {"text": "next week"})


def test_days_and_clocks() -> None:
    assert parse_days(["MON-FRI"]) == (1, 2, 3, 4, 5)
    assert parse_days(["sat,sun"]) == (6, 7)
    assert parse_days(["FRI-MON"]) == (1, 5, 6, 7)
    assert parse_days(["WEEKDAYS", "SAT"]) == (1, 2, 3, 4, 5, 6)
    assert parse_days(["MON-SUN"]) == ()
    setting = parse_clock(["22:00", "MON-FRI", "ZONE", "europe/london"], None)
    assert (setting.minute, setting.days, setting.zone) == (1320, (1, 2, 3, 4, 5),
                                                            "Europe/London")
    assert parse_clock(["6:30"], "Asia/Tokyo").zone == "Asia/Tokyo"
    for bad in (["22:00", "ZONE"], ["22:00", "ZONE", "Mars/Olympus"], ["noon"], []):
        with pytest.raises(GameError):
            parse_clock(bad, None)
    assert day_names((1, 2, 3, 4, 5)) == "Monday to Friday"
    assert day_names((1, 3, 5)) == "Monday, Wednesday and Friday"
    assert day_names((6, 7)) == "Saturday and Sunday"
    assert day_names(()) == "every day"


def _game(minute: int | None, days: str = "", zone: str = "UTC") -> Game:
    return Game(clock_minute=minute, clock_days=days, clock_zone=zone)


def test_a_clock_keeps_its_local_time_across_summer_time() -> None:
    london = _game(22 * 60, zone="Europe/London")
    # British Summer Time ends on Sunday 25 October 2026
    before = clock.aligned(london, datetime(2026, 10, 23, 12, 0, tzinfo=UTC))
    after = clock.aligned(london, datetime(2026, 10, 26, 12, 0, tzinfo=UTC))
    assert before == datetime(2026, 10, 23, 21, 0, tzinfo=UTC)  # 22:00 BST
    assert after == datetime(2026, 10, 26, 22, 0, tzinfo=UTC)  # 22:00 GMT
    for moment in (before, after):
        local = moment.astimezone(ZoneInfo("Europe/London"))
        assert (local.hour, local.minute) == (22, 0)


def test_a_clock_skips_the_days_not_allowed() -> None:
    weekdays = _game(18 * 60, days="12345")
    friday_night = datetime(2026, 11, 27, 19, 0, tzinfo=UTC)
    assert clock.aligned(weekdays, friday_night) == datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
    exactly = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
    assert clock.aligned(weekdays, exactly) == exactly


def test_without_a_clock_a_deadline_is_at_the_next_whole_minute() -> None:
    free = _game(None)
    assert clock.aligned(free, datetime(2026, 11, 27, 19, 3, 1, tzinfo=UTC)) == \
        datetime(2026, 11, 27, 19, 4, tzinfo=UTC)
    assert clock.aligned(free, datetime(2026, 11, 27, 19, 3, tzinfo=UTC)) == \
        datetime(2026, 11, 27, 19, 3, tzinfo=UTC)


def test_phase_start() -> None:
    due = NOW - timedelta(seconds=40)
    assert clock.phase_start(due, NOW) == due  # the scheduler came a little late
    assert clock.phase_start(NOW - timedelta(hours=5), NOW) == NOW  # the judge was down
    assert clock.phase_start(None, NOW) == NOW


def test_written() -> None:
    moment = datetime(2026, 11, 24, 17, 0, tzinfo=UTC)
    assert written(moment) == "Tuesday 24 November 2026, 17:00 UTC"
    assert written(moment, "Europe/Paris") == "Tuesday 24 November 2026, 18:00 CET"
    assert written(moment, "+05:30") == "Tuesday 24 November 2026, 22:30 UTC+05:30"
    assert written(moment, "America/Sao_Paulo") == "Tuesday 24 November 2026, 14:00 UTC-03:00"
    assert written(None) == ""
    assert tz(None) is UTC
