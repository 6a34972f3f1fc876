"""Whatever makes the set of orders complete processes the phase at once, when nothing else
holds it (a pause, ALWAYS_WAIT, a player's WAIT): the last order, RESUME, DUMMY, RESIGN,
EJECT, REPLACE, SET RULES, SET NOWAIT.  Each by mail, through the real pipeline and store.

Two players (France and Germany); the other powers are vacant and never hold the game up.
"""

from __future__ import annotations

from typing import Callable

import pytest

from gamekit import Judge, player
from test_by_mail import ALL_HOLD
from test_clock_and_repairs import snapshot_count
from test_late_powers import M, MASTER, game_row, order, two_player_game


def results(j: Judge) -> list[str]:
    return [m.subject for m in j.last_broadcasts if m.subject.endswith("Results")]


def processed_by(j: Judge, sender: str, body: str, phase: str = "S1901M") -> str:
    """Send the mail; it alone must process ``phase``."""
    before = snapshot_count(j)
    reply = j.mail(sender, body).body
    assert f"{phase} has been processed" in reply, reply
    assert snapshot_count(j) == before + 1
    assert results(j) == [f"JUDGE:g - {phase} Results"]
    return reply


def _by_resume(j: Judge) -> None:
    order(j, "FRANCE")
    j.mail(MASTER, f"{M}\nPAUSE")
    # the last orders arrive during the pause: taken, not processed
    reply = order(j, "GERMANY")
    assert "Accepted" in reply and "has been processed" not in reply
    assert snapshot_count(j) == 0
    processed_by(j, MASTER, f"{M}\nRESUME")
    (resumed,) = [m for m in j.last_broadcasts if m.subject.endswith("Resumed")]
    assert "Every order for S1901M is in: it is processed at once" in resumed.body


def _by_dummy(j: Judge) -> None:
    # CD_DUMMIES: a dummy's missing orders are filled in, so it never holds the game up
    j.mail(MASTER, f"{M}\nSET RULES POWER_CHOICE START_MASTER CD_DUMMIES")
    order(j, "FRANCE")
    processed_by(j, MASTER, f"{M}\nDUMMY Germany")


def _by_resign(j: Judge) -> None:
    order(j, "FRANCE")
    processed_by(j, player(1), "SIGNON Gg pw1\nRESIGN")


def _by_eject(j: Judge) -> None:
    order(j, "FRANCE")
    processed_by(j, MASTER, f"{M}\nEJECT Germany")


def _by_replace(j: Judge) -> None:
    # Germany's orders are complete but its player asked to wait; the new player has not
    order(j, "GERMANY", "SET WAIT", *ALL_HOLD["GERMANY"])
    reply = order(j, "FRANCE")
    assert "has been processed" not in reply
    processed_by(j, MASTER, f"{M}\nREPLACE Germany new@example.org npw")


def _by_set_rules(j: Judge) -> None:
    j.mail(MASTER, f"{M}\nSET RULES POWER_CHOICE START_MASTER ALWAYS_WAIT")
    order(j, "FRANCE")
    reply = order(j, "GERMANY")
    assert "has been processed" not in reply and snapshot_count(j) == 0
    processed_by(j, MASTER, f"{M}\nSET RULES POWER_CHOICE START_MASTER")


def _by_nowait(j: Judge) -> None:
    order(j, "GERMANY", "SET WAIT", *ALL_HOLD["GERMANY"])
    order(j, "FRANCE")
    assert snapshot_count(j) == 0
    processed_by(j, player(1), "SIGNON Gg pw1\nSET NOWAIT")


def _by_order(j: Judge) -> None:
    order(j, "FRANCE")
    processed_by(j, player(1), "SIGNON Gg pw1\n" + "\n".join(ALL_HOLD["GERMANY"]))


@pytest.mark.parametrize("trigger", [_by_resume, _by_dummy, _by_resign, _by_eject,
                                     _by_replace, _by_set_rules, _by_nowait, _by_order],
                         ids=lambda f: f.__name__.removeprefix("_by_"))
def test_what_completes_the_orders_processes_the_phase_at_once(
        judge_in_process: Judge, trigger: Callable[[Judge], None]) -> None:
    j = judge_in_process
    two_player_game(j)
    trigger(j)
    assert game_row(j).phase == "F1901M"


def _to_fall_retreats(j: Judge) -> None:
    """France dislodges the German army in Burgundy in the Fall: F1901R, Germany retreats."""
    order(j, "FRANCE", "A Par-Pic", "A Mar H", "F Bre H")
    order(j, "GERMANY", "A Mun-Bur", "A Ber H", "F Kie H")
    order(j, "FRANCE", "A Mar-Bur", "A Pic S A Mar-Bur", "F Bre H")
    order(j, "GERMANY", "A Bur H", "A Ber H", "F Kie H")
    assert game_row(j).phase == "F1901R"


def test_resume_in_a_retreat_phase_whose_last_retreat_came_during_the_pause(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    _to_fall_retreats(j)
    j.mail(MASTER, f"{M}\nPAUSE")
    reply = order(j, "GERMANY", "A Bur-Mun")
    assert "Accepted: A BUR R MUN" in reply, reply
    assert game_row(j).phase == "F1901R"
    # every order is in: RESUME processes them at once
    processed_by(j, MASTER, f"{M}\nRESUME", phase="F1901R")
    assert game_row(j).phase == "S1902M"  # nobody builds: the winter is skipped


def test_resume_while_orders_are_missing_waits_for_them(judge_in_process: Judge) -> None:
    j = judge_in_process
    two_player_game(j)
    order(j, "FRANCE")
    j.mail(MASTER, f"{M}\nPAUSE")
    reply = j.mail(MASTER, f"{M}\nRESUME").body
    assert "has been processed" not in reply and snapshot_count(j) == 0
    (resumed,) = [m for m in j.last_broadcasts if m.subject.endswith("Resumed")]
    assert "The deadline for S1901M is " in resumed.body
