"""Deadlines a player can rely on, by mail through the real pipeline and store: changes told
to everybody (Parameter Change), the Resumed and late notices, a deadline clock without drift,
time zones (deadlines written with offsets and zone names; each reader's times in their own
zone, headers in UTC) and absences.
"""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from gamekit import Judge, Sent, observe, player
from judge.basics.utc import utcnow
from judge.mail.writing.game_mail import judge_date
from judge.mail.writing.times import written
from test_by_mail import ALL_HOLD
from test_clock_and_repairs import snapshot_count, tick
from test_late_powers import M, MASTER, game_row, order, two_player_game

OBSERVER = "watcher@example.org"
UTC = timezone.utc


def deadline(j: Judge) -> datetime:
    return game_row(j).deadline.replace(tzinfo=UTC)


def told(j: Judge, what: str) -> list[Sent]:
    return [m for m in j.last_broadcasts if m.subject.endswith(what)]


def copy_for(mails: list[Sent], address: str) -> Sent:
    (found,) = [m for m in mails if address in m.to]
    return found


# --------------------------------------------------------------------------- told to everybody

def test_every_change_of_when_or_how_the_game_moves_is_told_to_everybody(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    observe(j, OBSERVER, "g")
    everybody = sorted([MASTER, player(0), player(1), OBSERVER])
    when = (utcnow() + timedelta(days=3)).replace(second=0, microsecond=0)
    for command, says in [
            (f"SET DEADLINE {when:%Y-%m-%dT%H:%M}Z", "has set a new deadline for S1901M"),
            ("SET GRACE 12h", "has set the grace period to 12h"),
            ("SET DEADLINE M 72h", "changed the length of movement phases"),
            ("SET CLOCK 21:30 MON-FRI", "deadlines fall at 21:30 UTC time, Monday to Friday"),
            ("SET RULES POWER_CHOICE START_MASTER CIVIL_DISORDER",
             "has changed the rules of g: now CD_DUMMIES CIVIL_DISORDER"),
            ("SET MAX ABSENCE 5", "allows absences of up to 5 days"),
            ("SET CLOCK OFF", "has removed the deadline clock")]:
        j.mail(MASTER, f"{M}\n{command}")
        (mail,) = told(j, "Parameter Change")
        assert mail.subject == "JUDGE:g - S1901M Parameter Change"
        assert sorted(mail.to) == everybody, command
        assert says in " ".join(mail.body.split()), (command, mail.body)
        # the deadline in the header, for programs, and in words, for people
        assert f":: Deadline: S1901M {judge_date(deadline(j))}\n" in mail.body
        assert f"S1901M is{' now' if 'DEADLINE 2' in command else ''} {written(deadline(j))}." \
            in mail.body, mail.body
    assert deadline(j) == when
    assert f"Late orders are taken until {written(when + timedelta(hours=12))}." in mail.body


def test_a_paused_game_says_no_deadline_runs(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    j.mail(MASTER, f"{M}\nPAUSE\nSET GRACE 2h")
    (mail,) = told(j, "Parameter Change")
    assert ":: Deadline:" not in mail.body
    assert "g is paused: no deadline runs until the master resumes it." in mail.body


# --------------------------------------------------------------------------- notices

def test_resumed_says_the_new_deadline_in_words(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    j.mail(MASTER, f"{M}\nPAUSE\nRESUME")
    (resumed,) = told(j, "Resumed")
    assert f"The deadline for S1901M is {written(deadline(j))}." in resumed.body
    assert f":: Deadline: S1901M {judge_date(deadline(j))}" in resumed.body


def test_the_adjustment_late_notice_says_builds_are_waived_and_removals_chosen(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j, "CIVIL_DISORDER")
    reply = j.mail(MASTER, f"{M}\nPAUSE\nPOSITION W1901A\n"
                           "France: A Par, F Bre; centers Par Bre Mar\n"
                           "Germany: A Mun, A Ber, F Kie; centers Mun\n"
                           "ENDPOSITION\nRESUME").body
    assert "The board of g is set at W1901A." in reply, reply
    j.new()
    tick(j, deadline(j) + timedelta(minutes=1))
    (late,) = j.new()
    assert late.subject == "JUDGE:g - W1901A Late Notice: FG"
    assert "Missing builds will be waived, and where removals are missing the judge\nwill" \
        " choose the units to remove." in late.body
    assert "Units without orders will hold" not in late.body


# --------------------------------------------------------------------------- the clock

def cd_game(j: Judge) -> None:
    """Nobody orders; missing orders are filled in at the deadline (no grace)."""
    reply = j.mail(MASTER, "CREATE g mpw DEADLINE 48h GRACE 0 RULES POWER_CHOICE START_MASTER"
                           " CIVIL_DISORDER").body
    assert "created" in reply, reply
    j.mail(player(0), "JOIN g pw0 France")
    j.mail(player(1), "JOIN g pw1 Germany")
    j.mail(MASTER, f"{M}\nSTART")
    j.passwords = {"FRANCE": "pw0", "GERMANY": "pw1"}


def test_without_a_clock_deadlines_do_not_drift_with_processing_time(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    cd_game(j)
    last = deadline(j)
    for phases in range(1, 4):
        # the scheduler gets to the game 40 seconds late
        tick(j, last + timedelta(seconds=40))
        assert snapshot_count(j) == phases
        assert deadline(j) == last + timedelta(hours=48)
        last = deadline(j)


def test_with_a_clock_every_deadline_falls_at_its_time_of_day(judge_in_process: Judge) -> None:
    j = judge_in_process
    cd_game(j)
    reply = j.mail(MASTER, f"{M}\nSET CLOCK 22:00").body
    assert "deadlines fall at 22:00 UTC time, every day" in reply
    first = deadline(j)  # the clock applies from the next phase on
    tick(j, first + timedelta(seconds=40))
    last = deadline(j)
    assert (last.hour, last.minute) == (22, 0)
    assert first + timedelta(hours=48) <= last < first + timedelta(hours=72)
    for phases in range(2, 5):
        tick(j, last + timedelta(minutes=3))
        assert snapshot_count(j) == phases
        assert deadline(j) == last + timedelta(hours=48)  # not a day later, not drifting
        last = deadline(j)


def first_allowed(after: datetime, zone: str, at: time, days: set[int]) -> datetime:
    """The first moment at or after ``after`` that is ``at`` on one of ``days`` in ``zone``
    (worked out here by walking the days, independently of the judge)."""
    local = after.astimezone(ZoneInfo(zone)).date()
    candidates = [datetime.combine(local + timedelta(days=n), at, tzinfo=ZoneInfo(zone))
                  for n in range(9)]
    return min(c for c in candidates if c.isoweekday() in days and c >= after)


def test_the_next_deadline_is_the_first_allowed_time_a_phase_length_away(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)  # 2h phases
    j.mail(MASTER, f"{M}\nSET CLOCK 18:00 MON-FRI ZONE America/New_York")
    order(j, "FRANCE")
    before = utcnow()
    order(j, "GERMANY")  # the last orders: processed at once
    after = utcnow()
    assert game_row(j).phase == "F1901M"
    found = deadline(j)
    expected = {first_allowed(t + timedelta(hours=2), "America/New_York", time(18), {1, 2, 3, 4,
                                                                                      5})
                for t in (before, after)}
    assert found in expected
    local = found.astimezone(ZoneInfo("America/New_York"))
    assert (local.hour, local.minute) == (18, 0) and local.isoweekday() <= 5
    listing = j.mail(MASTER, "LIST g").body
    assert "Deadlines fall at 18:00 America/New_York time, Monday to Friday (SET CLOCK)." \
        in listing


def test_a_bad_clock_is_refused(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    for bad, says in [("25:00", "not a time of day"), ("22:00 FUNDAY", "not a weekday"),
                      ("22:00 ZONE Mars/Olympus", "not a time zone"), ("", "needs a time")]:
        reply = j.mail(MASTER, f"{M}\nSET CLOCK {bad}").body
        assert says in reply, reply
        assert game_row(j).clock_minute is None
        assert told(j, "Parameter Change") == []


# --------------------------------------------------------------------------- time zones

def future_winter_date() -> str:
    """A day in January (Paris is at +01:00) still ahead."""
    now = utcnow()
    return f"{now.year + 1}-01-15"


def test_a_deadline_with_an_offset_and_with_a_zone_name_is_the_same_moment(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    day = future_winter_date()
    expected = datetime.fromisoformat(f"{day}T17:00:00+00:00")
    for written_as in (f"{day} 18:00 +0100", f"{day} 18:00 +01:00", f"{day} 18:00 CET",
                       f"{day} 18:00 Europe/Paris", f"{day} 18:00 europe/paris",
                       f"{day}T18:00+01:00", f"{day}T17:00Z", f"{day} 17:00 UTC",
                       f"{day} 17:00"):
        reply = j.mail(MASTER, f"{M}\nSET DEADLINE {written_as}").body
        assert "Error" not in reply, (written_as, reply)
        assert deadline(j) == expected, written_as
    # a time without a zone is read in the writer's zone
    reply = j.mail(MASTER, f"{M}\nSET ZONE Europe/Paris\nSET DEADLINE {day} 18:00").body
    assert deadline(j) == expected
    assert f"The deadline of S1901M is now {written(expected, 'Europe/Paris')}" in reply
    assert "18:00 CET" in reply


def test_a_deadline_on_a_weekday(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    now = utcnow()
    j.mail(MASTER, f"{M}\nSET DEADLINE Friday 18:00 Europe/Paris")
    local = deadline(j).astimezone(ZoneInfo("Europe/Paris"))
    assert (local.isoweekday(), local.hour, local.minute) == (5, 18, 0)
    assert now < deadline(j) <= now + timedelta(days=7)


def test_what_is_not_a_time_is_refused_with_the_forms_that_are(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    before = deadline(j)
    for bad in ("next week", "2026-13-01 18:00", "Friday", "2030-01-01 18:00 Mars/Olympus",
                "2030-01-01T18:00+01:00 Europe/Paris", "2020-01-01 18:00"):
        reply = j.mail(MASTER, f"{M}\nSET DEADLINE {bad}").body
        assert "Error" in reply, (bad, reply)
        assert deadline(j) == before
    reply = j.mail(MASTER, f"{M}\nSET DEADLINE next week").body
    assert "Friday 18:00" in reply and "Europe/Paris" in reply and "+0100" in reply
    reply = j.mail(player(0), "SIGNON Fg pw0\nSET ZONE Mars/Olympus").body
    assert "is not a time zone the judge knows" in reply


TIME = re.compile(r"\b\d{1,2}:\d{2}\b( \w+)?")


def times_in(text: str) -> list[str]:
    """Every time of day written in the text, with the word after it: its zone (header
    lines, which keep the machine form in UTC, left out)."""
    found = []
    for line in text.splitlines():
        if not line.startswith("::"):
            found += [m.group(0) for m in TIME.finditer(line)]
    return found


def test_every_time_written_to_a_player_is_in_the_zone_they_chose(judge_in_process: Judge
                                                                  ) -> None:
    j = judge_in_process
    two_player_game(j)
    tokyo = player(0)
    mine: list[str] = []  # every text the judge wrote to France's player
    reply = j.mail(tokyo, "SIGNON Fg pw0\nSET ZONE Asia/Tokyo").body
    assert "The judge now writes times to you in Asia/Tokyo time" in reply
    assert times_in(reply.split("SET ZONE")[1])[0].endswith(" JST")
    reply = j.mail(tokyo, "SIGNON Fg pw0\nLIST").body
    mine.append(reply)
    assert f"Deadline: {written(deadline(j), 'Asia/Tokyo')}" in reply

    got: set[str] = set()  # the kinds of mail France's player got

    def check(mails: list[Sent]) -> list[Sent]:
        for m in mails:
            if tokyo in m.to:
                # rendered for that zone alone (the same as the others' only without times)
                assert m.to == [tokyo] or not times_in(m.body), m.body
                mine.append(m.body)
                got.add(m.subject.split(" - ")[1].split(" ", 1)[1].split(":")[0])
            else:  # the others read UTC
                assert all(t.endswith(" UTC") for t in times_in(m.body)), m.body
        return mails

    def mail(sender: str, body: str) -> None:
        mine.append(j.mail(sender, body).body) if sender == tokyo else j.mail(sender, body)
        check(j.last_broadcasts)

    # the master's changes, the pause and the resumption
    mail(MASTER, f"{M}\nSET GRACE 3h\nSET DEADLINE 30h\nPAUSE\nRESUME")
    mail(tokyo, "SIGNON Fg pw0\nPRESS TO G\nhello\nENDPRESS\nHISTORY g")
    # an absence, the reminder and the late notice of the scheduler, and the results
    mail(player(1), "SIGNON Gg pw1\nSET ABSENCE "
         f"{(utcnow() + timedelta(days=20)):%Y-%m-%d} TO "
         f"{(utcnow() + timedelta(days=22)):%Y-%m-%d}")
    mail(player(1), "SIGNON Gg pw1\n" + "\n".join(ALL_HOLD["GERMANY"]))
    first = deadline(j)
    tick(j, first - timedelta(minutes=20))
    check(j.new())
    tick(j, first + timedelta(minutes=1))
    check(j.new())
    mail(tokyo, "SIGNON Fg pw0\n" + "\n".join(ALL_HOLD["FRANCE"]))
    (results,) = [m for m in j.last_broadcasts if m.subject.endswith("Results")
                  and tokyo in m.to]
    assert (f"The deadline for orders will be {written(deadline(j), 'Asia/Tokyo')}.\n"
            in results.body)
    # the header of the same mail keeps the machine form in UTC
    assert f":: Deadline: F1901M {judge_date(deadline(j))}" in results.body
    assert got == {"Parameter Change", "Paused", "Resumed", "Reminder", "Late Notice",
                   "Results"}, got
    written_times = [t for text in mine for t in times_in(text)]
    assert len(written_times) >= 12, written_times
    assert all(t.endswith(" JST") for t in written_times), written_times


# --------------------------------------------------------------------------- absences

def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%MZ")


def test_an_absence_moves_the_deadline_to_its_end_and_everybody_is_told(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)  # the deadline is 2h away
    observe(j, OBSERVER, "g")
    base = deadline(j)
    start = (utcnow() + timedelta(hours=1)).replace(second=0, microsecond=0)
    end = start + timedelta(days=2)
    reply = j.mail(player(1), f"SIGNON Gg pw1\nSET ABSENCE {iso(start)} TO {iso(end)}").body
    assert f"Your absence from {written(start)} until {written(end)} is noted" in reply
    assert f"The deadline of S1901M is {written(end)}." in reply
    assert deadline(j) == end
    (mail,) = told(j, "Parameter Change")
    assert sorted(mail.to) == sorted([MASTER, player(0), player(1), OBSERVER])
    assert f"Germany will be away\n  from  {written(start)}\n  until {written(end)}." \
        in mail.body
    assert f"The deadline for S1901M is now {written(end)}." in mail.body
    assert f":: Deadline: S1901M {judge_date(end)}" in mail.body
    listing = j.mail(player(0), "LIST g").body
    assert f"Germany is away from {written(start)} until {written(end)}." in listing
    # one at a time
    reply = j.mail(player(1), f"SIGNON Gg pw1\nSET ABSENCE {iso(end)} TO "
                              f"{iso(end + timedelta(days=1))}").body
    assert "you have announced an absence already" in reply
    # the master refuses it: the deadline goes back to where the clock put it
    reply = j.mail(MASTER, f"{M}\nSET NOABSENCE Germany").body
    assert "The absence of Germany is ended" in reply
    assert deadline(j) == base
    (mail,) = told(j, "Parameter Change")
    assert "The master has refused the absence Germany announced" in mail.body
    assert f"The deadline for S1901M is now {written(base)}." in mail.body


def test_the_scheduler_moves_the_next_deadline_out_of_an_absence(judge_in_process: Judge
                                                                  ) -> None:
    j = judge_in_process
    two_player_game(j, "CIVIL_DISORDER")  # 2h phases, 1h grace
    first = deadline(j)
    start, end = first + timedelta(hours=2), first + timedelta(hours=6)
    j.mail(player(0), f"SIGNON Fg pw0\nSET ABSENCE {iso(start)} TO {iso(end)}")
    assert deadline(j) == first  # this phase's deadline is before it
    # the grace ends: processed with the orders filled in; the next phase would end two
    # hours later, in France's absence, so it ends when the absence does
    j.new()
    tick(j, first + timedelta(hours=1, seconds=30))
    assert game_row(j).phase == "F1901M"
    assert deadline(j) == end
    (results,) = [m for m in j.new() if m.subject.endswith("Results")]
    assert written(end) in " ".join(results.body.split())
    assert f":: Deadline: F1901M {judge_date(end)}" in results.body
    # the player withdraws it: the deadline comes back to where the clock put it
    reply = j.mail(player(0), "SIGNON Fg pw0\nSET NOABSENCE").body
    assert "Your absence is ended" in reply
    assert deadline(j) == first + timedelta(hours=3)
    (mail,) = told(j, "Parameter Change")
    assert "France has withdrawn the absence announced" in mail.body


def test_absences_within_the_masters_limits(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    day = utcnow().date() + timedelta(days=5)
    too_long = f"SET ABSENCE {day} TO {day + timedelta(days=14)}"  # 15 whole days
    reply = j.mail(player(0), f"SIGNON Fg pw0\n{too_long}").body
    assert "may last at most 14 days" in reply
    reply = j.mail(player(0), f"SIGNON Fg pw0\nSET ABSENCE {day} TO {day - timedelta(days=1)}"
                   ).body
    assert "must end after it begins" in reply
    reply = j.mail(player(0), "SIGNON Fg pw0\nSET ABSENCE soon").body
    assert "SET ABSENCE needs when you leave and when you are back" in reply
    j.mail(MASTER, f"{M}\nSET MAX ABSENCE 0")
    reply = j.mail(player(0), f"SIGNON Fg pw0\nSET ABSENCE {day} TO {day}").body
    assert "allows no absences" in reply
    j.mail(MASTER, f"{M}\nSET MAX ABSENCE 20")
    reply = j.mail(player(0), f"SIGNON Fg pw0\n{too_long}").body
    assert "is noted" in reply
    # whole days in the player's zone: from the first day's start to the last day's end
    j.mail(player(0), "SIGNON Fg pw0\nSET NOABSENCE")
    reply = j.mail(player(0), f"SIGNON Fg pw0\nSET ZONE Europe/Paris\nSET ABSENCE {day} TO "
                              f"{day}").body
    paris = ZoneInfo("Europe/Paris")
    start = datetime.combine(day, time(0), tzinfo=paris)
    end = datetime.combine(day + timedelta(days=1), time(0), tzinfo=paris)
    assert f"from {written(start, 'Europe/Paris')} until {written(end, 'Europe/Paris')}" \
        in reply
    # announcing and withdrawing, again and again, would mail everybody each time
    for _ in range(2):
        j.mail(player(0), "SIGNON Fg pw0\nSET NOABSENCE")
        j.mail(player(0), f"SIGNON Fg pw0\nSET ABSENCE {day} TO {day}")
    j.mail(player(0), "SIGNON Fg pw0\nSET NOABSENCE")
    reply = j.mail(player(0), f"SIGNON Fg pw0\nSET ABSENCE {day} TO {day}").body
    assert "as many as a player may in a day" in reply and told(j, "Parameter Change") == []
    # only the master ends another's; an observer announces none
    reply = j.mail(player(1), "SIGNON Gg pw1\nSET NOABSENCE France").body
    assert "only the master" in reply
    observe(j, OBSERVER, "g")
    reply = j.mail(OBSERVER, f"SIGNON Og opw\nSET ABSENCE {day} TO {day}").body
    assert "Error" in reply
    assert snapshot_count(j) == 0


def test_an_absence_of_a_player_who_left_holds_nothing_up(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    start = (utcnow() + timedelta(hours=1)).replace(second=0, microsecond=0)
    end = start + timedelta(days=1)
    j.mail(player(1), f"SIGNON Gg pw1\nSET ABSENCE {iso(start)} TO {iso(end)}")
    assert deadline(j) == end
    j.mail(player(1), "SIGNON Gg pw1\nRESIGN")
    order(j, "FRANCE", *ALL_HOLD["FRANCE"])
    assert game_row(j).phase == "F1901M"
    assert deadline(j) < end
