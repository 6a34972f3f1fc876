"""Deadlines run by the scheduler (reminder, late notice, grace, processing exactly once), late
orders, and the master's repairs: ROLLBACK, ROLLFORWARD, POSITION; plus concurrent mails."""

from __future__ import annotations

import threading
from datetime import timedelta

from sqlalchemy import func, select

from conftest import JUDGE_ADDRESS, make_mail
from gamekit import Judge, signon, start_full_game
from judge.basics.utc import utcnow
from judge.mail.writing.game_mail import queue_events
from judge.mail.intake.accept import Arrival, message_id_of, store_arrivals
from judge.pipeline.stages import Pipeline
from judge.pipeline.worker import process_pending
from judge.service.clock.scheduler import due_games, run_due
from judge.store.models import Game, PhaseSnapshot

from test_by_mail import ALL_HOLD


def tick(j: Judge, now) -> int:
    from judge.mail.writing.compose import Composer
    composer = Composer(j.config)
    return run_due(j.store, now, lambda s, ev: queue_events(s, composer, j.config, ev, now))


def game_row(j: Judge) -> Game:
    with j.store.transaction() as s:
        return s.scalars(select(Game)).one()


def snapshot_count(j: Judge) -> int:
    with j.store.transaction() as s:
        return s.scalar(select(func.count()).select_from(PhaseSnapshot))


def test_reminder_late_notice_late_orders_then_processing_once(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j, extra="DEADLINE 2h GRACE 1h")
    j.new()
    for power in ("AUSTRIA", "ENGLAND", "GERMANY", "ITALY", "RUSSIA", "TURKEY"):
        j.mail(assigned[power], f"{signon(j, power)}\n" + "\n".join(ALL_HOLD[power]))
    deadline = game_row(j).deadline.replace(tzinfo=utcnow().tzinfo)
    start = deadline - timedelta(hours=2)
    # nothing is due at the start: the scheduler does not even look at the game
    with j.store.transaction() as s:
        assert due_games(s, start) == []
    # the reminder (half an hour before the deadline) goes to France only
    tick(j, deadline - timedelta(minutes=20))
    (reminder,) = j.new()
    assert reminder.subject == "JUDGE:war1901 - S1901M Reminder: F"
    assert reminder.to == [assigned["FRANCE"]]
    tick(j, deadline - timedelta(minutes=10))
    assert j.new() == []  # never twice
    # the deadline passes: a late notice to France and the master, no processing (grace)
    tick(j, deadline + timedelta(minutes=1))
    (late,) = j.new()
    assert late.subject == "JUDGE:war1901 - S1901M Late Notice: F"
    assert set(late.to) == {assigned["FRANCE"], "master@example.org"}
    assert snapshot_count(j) == 0
    # late orders during the grace are taken, and complete the phase at once
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\n" + "\n".join(ALL_HOLD["FRANCE"]))
    assert "Accepted: A PAR - BUR" in reply.body and "S1901M has been processed" in reply.body
    assert snapshot_count(j) == 1
    # the old phase's clock is gone: at the old end of grace the new phase (whose own 2h
    # deadline started when S1901M was processed, moments after the game began) is merely late
    j.new()
    tick(j, deadline + timedelta(minutes=30))
    assert snapshot_count(j) == 1 and game_row(j).phase == "F1901M"
    assert [m.subject for m in j.new()] == ["JUDGE:war1901 - F1901M Late Notice: AEFGIRT"]


def test_grace_end_processes_with_defaults_exactly_once(judge_in_process: Judge) -> None:
    j = judge_in_process
    # CIVIL_DISORDER: missing orders are filled in when the grace ends
    start_full_game(j, extra="DEADLINE 1h GRACE 30m RULES CIVIL_DISORDER")
    j.new()
    deadline = game_row(j).deadline.replace(tzinfo=utcnow().tzinfo)
    # a daemon that was down for a day catches up in one pass: no reminder, no late notice
    later = deadline + timedelta(days=1)
    tick(j, later)
    tick(j, later)
    mails = j.new()
    assert [m.subject for m in mails] == ["JUDGE:war1901 - S1901M Results"]
    assert "Austria: Army Vienna HOLD." in mails[0].body
    assert snapshot_count(j) == 1 and game_row(j).phase == "F1901M"


def test_rollback_then_rollforward(judge_in_process: Judge) -> None:
    j = judge_in_process
    assigned = start_full_game(j)
    for power, orders in ALL_HOLD.items():
        j.mail(assigned[power], f"{signon(j, power)}\n" + "\n".join(orders))
    assert game_row(j).phase == "F1901M"
    after = game_row(j).position
    reply = j.mail("master@example.org", "SIGNON Mwar1901 mpw\nROLLBACK\n")
    assert "Rolled back; war1901 is at S1901M again." in reply.body
    assert game_row(j).phase == "S1901M"
    # the orders of the rolled-back phase are back in place
    reply = j.mail(assigned["FRANCE"], f"{signon(j, 'FRANCE')}\nLIST\n")
    assert "A PAR - BUR" in reply.body
    reply = j.mail("master@example.org", "SIGNON Mwar1901 mpw\nROLLFORWARD\nHISTORY war1901\n")
    assert "Rolled forward; war1901 is at F1901M." in reply.body
    assert "France: Army Paris -> Burgundy." in reply.body
    assert game_row(j).position == after and snapshot_count(j) == 1
    reply = j.mail("master@example.org", "SIGNON Mwar1901 mpw\nROLLFORWARD\n")
    assert "no rolled-back phase" in reply.body
    # rolling back and processing again replaces the undone phase
    j.mail("master@example.org", "SIGNON Mwar1901 mpw\nROLLBACK S1901M\nBECOME France\n"
           "A Par-Pic\nPROCESS\n")
    assert snapshot_count(j) == 1
    reply = j.mail("master@example.org", "HISTORY war1901 S1901M")
    assert "France: Army Paris -> Picardy." in reply.body


def test_two_mails_for_one_game_at_the_same_moment(judge_in_process: Judge) -> None:
    """Two workers process the last two powers' orders concurrently: both orders count and
    the phase is processed once."""
    j = judge_in_process
    assigned = start_full_game(j)
    for power in ("AUSTRIA", "ENGLAND", "GERMANY", "ITALY", "RUSSIA"):
        j.mail(assigned[power], f"{signon(j, power)}\n" + "\n".join(ALL_HOLD[power]))
    raws = [make_mail(f"{signon(j, p)}\n" + "\n".join(ALL_HOLD[p]), sender=assigned[p]).as_bytes()
            for p in ("FRANCE", "TURKEY")]
    store_arrivals(j.store, [Arrival(JUDGE_ADDRESS, "x@example.org", r, message_id_of(r))
                             for r in raws])
    barrier = threading.Barrier(2)

    def work() -> None:
        barrier.wait()
        process_pending(j.store, j.config, Pipeline(j.config), limit=1)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    mails = j.new()
    results = [m for m in mails if "Results" in m.subject]
    assert len(results) == 1 and snapshot_count(j) == 1
    assert "France: Army Paris -> Burgundy." in results[0].body
    assert "Turkey: Fleet Ankara HOLD." in results[0].body
    assert len([m for m in mails if m.reply]) == 2


def test_passwords_are_stored_as_salted_scrypt_hashes(judge_in_process: Judge) -> None:
    from judge.service.access.passwords import check_password
    from judge.store.models import Seat
    j = judge_in_process
    j.mail("master@example.org", "CREATE war1901 hunter2")
    j.mail("p@example.org", "JOIN war1901 hunter2")
    with j.store.transaction() as s:
        hashes = [seat.password_hash for seat in s.scalars(select(Seat))]
    assert len(hashes) == 2 and hashes[0] != hashes[1]  # same password, different salts
    for h in hashes:
        assert h.startswith("scrypt$") and "hunter2" not in h
        assert check_password("hunter2", h) and not check_password("hunter3", h)
