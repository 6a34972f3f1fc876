"""Late powers when the grace period ends, by mail and through the scheduler.

DPjudge's rules: "CIVIL_DISORDER will default the orders of all powers (whether dummy or not),
while CD_DUMMIES will default the orders only of the dummy powers."  So without CIVIL_DISORDER
a late player's orders are not filled in: the game waits, the late powers and the master are
told once, the scheduler leaves the game alone, and the phase is processed as soon as the
orders arrive or the master acts (PROCESS, DUMMY with CD_DUMMIES, REPLACE, SET RULES).
Vacant powers never hold a game up.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from gamekit import Judge, code_for, player, signon
from judge.basics.utc import utcnow
from judge.service.clock import game_clock as clock
from judge.store.models import Game

from test_by_mail import ALL_HOLD
from test_clock_and_repairs import snapshot_count, tick

MASTER = "master@example.org"
M = "SIGNON Mg mpw"


def game_row(j: Judge) -> Game:
    with j.store.transaction() as s:
        game = s.scalars(select(Game)).one()
        s.expunge(game)
        return game


def two_player_game(j: Judge, rules: str = "") -> None:
    """France (player0) and Germany (player1) play; the other five powers are vacant."""
    reply = j.mail(MASTER, f"CREATE g mpw DEADLINE 2h GRACE 1h RULES POWER_CHOICE "
                           f"START_MASTER {rules}".strip()).body
    assert "created" in reply, reply
    j.mail(player(0), "JOIN g pw0 France")
    j.mail(player(1), "JOIN g pw1 Germany")
    assert "has started" in j.mail(MASTER, f"{M}\nSTART").body
    j.passwords = {"FRANCE": "pw0", "GERMANY": "pw1"}


def order(j: Judge, power: str, *lines: str) -> str:
    i = {"FRANCE": 0, "GERMANY": 1}[power]
    return j.mail(player(i), "\n".join([signon(j, power, "g"), *(lines or ALL_HOLD[power])])
                  ).body


def past_grace(j: Judge) -> None:
    """Run the scheduler past the deadline and past the end of the grace period."""
    deadline = game_row(j).deadline.replace(tzinfo=utcnow().tzinfo)
    tick(j, deadline + timedelta(minutes=1))
    tick(j, deadline + timedelta(hours=1, minutes=1))


def test_without_civil_disorder_the_game_waits_for_a_late_player(judge_in_process: Judge
                                                                 ) -> None:
    j = judge_in_process
    two_player_game(j)
    order(j, "GERMANY", "SET WAIT", *ALL_HOLD["GERMANY"])
    j.new()
    deadline = game_row(j).deadline.replace(tzinfo=utcnow().tzinfo)
    tick(j, deadline + timedelta(minutes=1))
    (late,) = j.new()
    assert late.subject == "JUDGE:g - S1901M Late Notice: F"
    assert "judge will not fill in the missing orders of France\nthen: the game will wait" \
        in late.body
    tick(j, deadline + timedelta(hours=1, minutes=1))
    # not processed: France and the master are told, once, and the game has no next event
    (waiting,) = j.new()
    assert waiting.subject == "JUDGE:g - S1901M Waiting: F"
    assert sorted(waiting.to) == sorted([player(0), MASTER])
    assert "This game does not use CIVIL_DISORDER, so the judge does not fill in the" in \
        waiting.body
    assert "S1901M will be processed as\nsoon as the missing orders arrive." in waiting.body
    assert "  PROCESS " in waiting.body and "  DUMMY <power> " in waiting.body
    row = game_row(j)
    assert snapshot_count(j) == 0 and row.phase == "S1901M"
    assert row.clock_stage == clock.WAITING and row.next_event_at is None
    for days in (1, 2, 30):
        tick(j, deadline + timedelta(days=days))
    assert j.new() == [] and snapshot_count(j) == 0
    # LIST says whom it waits for, and why
    listing = j.mail("someone@example.org", "LIST g").body
    assert "The grace period is over; the game waits for the orders of: France." in listing
    assert "Late powers: after the grace period the game waits for them; missing orders are" \
        " not\nfilled in (no CIVIL_DISORDER)." in listing
    # France's orders arrive: processed at once, although Germany asked to wait
    reply = order(j, "FRANCE")
    assert "S1901M has been processed" in reply, reply
    assert game_row(j).phase == "F1901M" and snapshot_count(j) == 1
    results = [m for m in j.last_broadcasts if m.subject.endswith("Results")][0]
    assert "France: Army Paris -> Burgundy." in results.body


def test_the_master_may_process_a_waiting_game_with_defaults(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    order(j, "GERMANY")
    past_grace(j)
    assert game_row(j).clock_stage == clock.WAITING
    reply = j.mail(MASTER, f"{M}\nPROCESS").body
    assert "S1901M has been processed; g is now at F1901M." in reply
    results = [m for m in j.last_broadcasts if m.subject.endswith("Results")][0]
    assert "France: Army Paris HOLD." in results.body
    # the new phase has its own clock again
    row = game_row(j)
    assert row.clock_stage == clock.BEFORE_REMINDER and row.next_event_at is not None


def test_set_rules_civil_disorder_processes_the_waiting_phase(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    order(j, "GERMANY")
    past_grace(j)
    reply = j.mail(MASTER, f"{M}\nSET RULES POWER_CHOICE START_MASTER CIVIL_DISORDER").body
    assert "S1901M has been processed" in reply, reply
    assert game_row(j).phase == "F1901M"


def test_a_late_power_made_a_dummy_under_cd_dummies_is_filled_in(judge_in_process: Judge
                                                                  ) -> None:
    j = judge_in_process
    two_player_game(j, "CD_DUMMIES")
    order(j, "GERMANY")
    past_grace(j)
    (waiting,) = [m for m in j.new() if "Waiting" in m.subject]
    assert waiting.subject == "JUDGE:g - S1901M Waiting: F"
    assert "Late powers: after the grace period the game waits for late players; only" \
        " dummies'\nmissing orders are filled in (CD_DUMMIES, no CIVIL_DISORDER)." in \
        j.mail(MASTER, "LIST g").body
    reply = j.mail(MASTER, f"{M}\nDUMMY France").body
    assert "France is now a dummy; it is processed without waiting for it (CD_DUMMIES)." in reply
    assert "S1901M has been processed" in reply, reply


def test_a_late_dummy_without_cd_dummies_holds_the_game_up_too(judge_in_process: Judge
                                                                ) -> None:
    j = judge_in_process
    two_player_game(j)
    j.mail(MASTER, f"{M}\nDUMMY Germany")
    order(j, "FRANCE")
    past_grace(j)
    (waiting,) = [m for m in j.new() if "Waiting" in m.subject]
    assert waiting.subject == "JUDGE:g - S1901M Waiting: G" and waiting.to == [MASTER]
    assert "Germany is a dummy, ordered by the master (BECOME), and\nwithout CD_DUMMIES" in \
        waiting.body
    assert snapshot_count(j) == 0
    reply = j.mail(MASTER, f"{M}\nBECOME Germany\n" + "\n".join(ALL_HOLD["GERMANY"])).body
    assert "S1901M has been processed" in reply, reply


def test_a_replacement_player_completes_the_waiting_phase(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    order(j, "GERMANY")
    past_grace(j)
    reply = j.mail(MASTER, f"{M}\nREPLACE France new@example.org npw").body
    assert "France is now played by new@example.org" in reply and snapshot_count(j) == 0
    reply = j.mail("new@example.org", f"CONFIRM {code_for(j, 'new@example.org')}\nSIGNON Fg npw\n"
                   + "\n".join(ALL_HOLD["FRANCE"])).body
    assert "S1901M has been processed" in reply, reply


def test_with_civil_disorder_the_grace_end_fills_in_and_vacant_powers_never_wait(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j, "CIVIL_DISORDER")
    order(j, "GERMANY")
    j.new()
    deadline = game_row(j).deadline.replace(tzinfo=utcnow().tzinfo)
    tick(j, deadline + timedelta(minutes=1))
    (late,) = j.new()
    assert "Units without orders will hold." in late.body
    tick(j, deadline + timedelta(hours=1, minutes=1))
    subjects = [m.subject for m in j.new()]
    assert subjects == ["JUDGE:g - S1901M Results"]
    assert game_row(j).phase == "F1901M"


def test_vacant_powers_and_players_who_left_never_hold_the_game_up(judge_in_process: Judge
                                                                   ) -> None:
    j = judge_in_process
    two_player_game(j)
    order(j, "GERMANY")
    past_grace(j)
    assert game_row(j).clock_stage == clock.WAITING
    # the late player resigns: nobody is late any more, and the phase goes on at once
    reply = j.mail(player(0), "SIGNON Fg pw0\nRESIGN").body
    assert "You have resigned from g." in reply
    assert game_row(j).phase == "F1901M"


def test_get_rules_says_what_happens_to_late_powers(judge_in_process: Judge) -> None:
    j = judge_in_process
    text = " ".join(j.mail("someone@example.org", "GET RULES").body.split())
    assert "Without this rule the judge does not fill in a late player's orders." in text
    assert "When the grace period ends with orders missing, the game waits" in text
    assert "CIVIL_DISORDER fills in the orders of every power, dummy or not; CD_DUMMIES only" \
        " those of dummies." in text
