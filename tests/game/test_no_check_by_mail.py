"""Several orders for one unit, by mail.

DPjudge's NO_CHECK rule: "All units that had been given erroneous or multiple orders will HOLD
(and may receive support) … flagged as (*invalid*)."  In a NO_CHECK game a unit given two
different orders in one mail keeps both: it holds, both lines are (*invalid*) in the results,
and the reply says so when the second arrives.  A later mail's order replaces them.  Outside
NO_CHECK a later order replaces an earlier one, and the reply says which.
"""

from __future__ import annotations

import json

from sqlalchemy import select

from gamekit import Judge, player
from judge.store.models import Seat

MASTER = "master@example.org"
M = "SIGNON Mg mpw"
BOARD = ("POSITION S1905M\n"
         "France: A Mar, A Gas; centers Par Bre Mar\n"
         "Italy: A Pie, F Lyo; centers Rom Nap Ven\n"
         "ENDPOSITION")


def game(j: Judge, rules: str = "") -> None:
    """France (player0) and Italy (player1) on a small board around Marseilles."""
    reply = j.mail(MASTER, f"CREATE g mpw RULES POWER_CHOICE START_MASTER {rules}").body
    assert "created" in reply, reply
    j.mail(player(0), "JOIN g pw0 France")
    j.mail(player(1), "JOIN g pw1 Italy")
    reply = j.mail(MASTER, f"{M}\nSTART\nPAUSE\n{BOARD}\nRESUME").body
    assert "g is running again, at S1905M." in reply, reply


def france(j: Judge, *lines: str) -> str:
    return j.mail(player(0), "\n".join(["SIGNON Fg pw0", *lines])).body


def stored(j: Judge) -> dict[str, str]:
    with j.store.transaction() as s:
        return json.loads(s.scalars(select(Seat).where(Seat.power == "FRANCE")).one().orders)


def process(j: Judge) -> str:
    assert "has been processed;" in j.mail(MASTER, f"{M}\nPROCESS").body
    (results,) = [m for m in j.last_broadcasts if m.subject.endswith("Results")]
    return results.body


def test_no_check_a_unit_with_two_orders_holds_may_be_supported_and_both_are_invalid(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    game(j, "NO_CHECK")
    reply = france(j, "A Mar-Spa", "A Mar-Bur", "A Gas S A Mar")
    assert "> A Mar-Spa\nAccepted: A MAR - SPA\n" in reply
    assert ("> A Mar-Bur\nAccepted: A MAR - BUR\nA MAR now has 2 different orders in this "
            "mail (A MAR - SPA, A MAR - BUR).\nUnder NO_CHECK a unit given more than one "
            "order holds, and each of its\norders is reported (*invalid*) in the results."
            ) in reply
    assert "Given more than one order, so holding (NO_CHECK): Army Marseilles." in reply
    assert stored(j) == {"GAS": "A GAS S A MAR", "MAR": "A MAR - SPA", "MAR#2": "A MAR - BUR"}
    # Italy's orders complete the phase: it is processed at once
    reply = j.mail(player(1), "SIGNON Ig pw1\nA Pie-Mar\nF Lyo S A Pie-Mar").body
    assert "S1905M has been processed" in reply
    (results,) = [m.body for m in j.last_broadcasts if m.subject.endswith("S1905M Results")]
    assert "France: Army Marseilles -> Spain.  (*invalid*)" in results
    assert "France: Army Marseilles -> Burgundy.  (*invalid*)" in results
    assert "France: Army Marseilles HOLD." in results
    # it held, with the support of the army in Gascony: Italy's attack of strength 2 bounces
    assert "France: Army Gascony SUPPORT Army Marseilles." in results
    assert "Italy: Army Piedmont -> Marseilles.  (*bounce*)" in results
    assert "dislodged" not in results


def test_no_check_a_later_mail_replaces_the_units_orders_and_says_so(judge_in_process: Judge
                                                                     ) -> None:
    j = judge_in_process
    game(j, "NO_CHECK")
    france(j, "A Mar-Spa", "A Mar-Bur", "A Mar-Bur")
    assert stored(j) == {"MAR": "A MAR - SPA", "MAR#2": "A MAR - BUR"}
    reply = france(j, "A Mar H")
    assert "Accepted: A MAR H (replaces A MAR - SPA and A MAR - BUR)" in reply
    assert "Given more than one order" not in reply
    assert stored(j) == {"MAR": "A MAR H"}
    results = process(j)
    assert "France: Army Marseilles HOLD." in results and "invalid" not in results


def test_without_no_check_a_later_order_replaces_and_the_reply_says_which(
        judge_in_process: Judge) -> None:
    j = judge_in_process
    game(j)
    reply = france(j, "A Mar-Spa", "A Mar-Bur", "A Gas H", "A Gas H")
    assert "> A Mar-Bur\nAccepted: A MAR - BUR (replaces A MAR - SPA)\n" in reply
    assert "> A Gas H\nAccepted: A GAS H\n" in reply  # the same order again replaces nothing
    assert stored(j) == {"GAS": "A GAS H", "MAR": "A MAR - BUR"}
    reply = france(j, "A Mar-Spa")
    assert "Accepted: A MAR - SPA (replaces A MAR - BUR)" in reply
    results = process(j)
    assert "France: Army Marseilles -> Spain." in results and "invalid" not in results


def test_get_rules_and_get_orders_say_what_several_orders_do(judge_in_process: Judge) -> None:
    j = judge_in_process
    rules = " ".join(j.mail("someone@example.org", "GET RULES").body.split())
    assert ("A unit given two different orders in one mail keeps both: it holds (and may be "
            "supported), and both orders are reported (*invalid*).") in rules
    orders = " ".join(j.mail("someone@example.org", "GET ORDERS").body.split())
    assert "the reply says which order it replaces" in orders
