"""A restart across a deadline: the daemon is stopped, the stored deadline passes, and the
restarted daemon processes the phase exactly once (and a second restart does nothing more)."""

from __future__ import annotations

from datetime import timedelta
from typing import Callable

from sqlalchemy import func, select

from conftest import RunningJudge
from judge.basics.utc import utcnow
from judge.service.clock import game_clock as clock
from judge.store.db import Store
from judge.store.models import Game, PhaseSnapshot
from smtpkit import exchange, one_copy_each, wait_broadcast


def test_a_deadline_passed_while_the_daemon_was_down_is_processed_once(
        judge_factory: Callable[..., RunningJudge]) -> None:
    judge = judge_factory(JUDGE_SCHEDULER_POLL_SECONDS="0.2")
    # CIVIL_DISORDER: the late player's orders are filled in, so the phase is processed
    exchange(judge, "gm@example.org", "CREATE war1901 mpw DEADLINE 1d GRACE 0 RULES "
             "CIVIL_DISORDER")
    exchange(judge, "p@example.org", "JOIN war1901 pw")
    reply = exchange(judge, "gm@example.org", "SIGNON Mwar1901 mpw\nSTART")
    assert "war1901 has started." in reply
    judge.stop()

    store = Store(judge.db_url)
    with store.transaction() as s:
        game = s.scalars(select(Game)).one()
        game.deadline = utcnow() - timedelta(minutes=5)
        game.reminder_at = game.deadline - timedelta(hours=1)
        clock.schedule_next(game)

    judge.start()
    results = wait_broadcast(judge, "JUDGE:war1901 - S1901M Results")
    assert "France: Army Paris HOLD." in results.get_body(("plain",)).get_content()
    judge.settle()
    judge.stop()
    judge.start()
    judge.settle()
    one_copy_each(judge, "JUDGE:war1901 - S1901M Results")
    # past the deadline with no grace: no reminder and no late notice, only the results
    assert not [m for m in judge.replies() if "Reminder" in str(m["Subject"])
                or "Late Notice" in str(m["Subject"])]
    with store.transaction() as s:
        assert s.scalar(select(func.count()).select_from(PhaseSnapshot)) == 1
        assert s.scalars(select(Game.phase)).one() == "F1901M"
    store.dispose()
